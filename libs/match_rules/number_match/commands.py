"""Commands of Number Match. Every command carries ``now``: the referee's clock on arrival.
Cells are numbered from 1, row by row, on the board as it is."""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.number_match.settings import Settings


@dataclass(frozen=True, slots=True)
class StartGame:
    """The seat is taken: the dealt board is laid out."""

    now: int
    player: str
    settings: Settings
    deal_version: str


@dataclass(frozen=True, slots=True)
class PairCells:
    now: int
    player: str
    first: int
    second: int


@dataclass(frozen=True, slots=True)
class AddNumbers:
    now: int
    player: str


@dataclass(frozen=True, slots=True)
class AskHint:
    now: int
    player: str


@dataclass(frozen=True, slots=True)
class Undo:
    now: int
    player: str


@dataclass(frozen=True, slots=True)
class EndGame:
    now: int
    player: str


@dataclass(frozen=True, slots=True)
class Tick:
    """Let time pass: the idle limit ends a game nobody plays."""

    now: int


Command = StartGame | PairCells | AddNumbers | AskHint | Undo | EndGame | Tick
