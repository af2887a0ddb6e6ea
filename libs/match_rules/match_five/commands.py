"""Commands of MATCH 5. Every command carries ``now``: the referee's clock on arrival."""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.match_five.settings import Settings


@dataclass(frozen=True, slots=True)
class StartGame:
    now: int
    players: tuple[str, ...]
    settings: Settings
    deal_version: str


@dataclass(frozen=True, slots=True)
class WriteLink:
    """Write (or rewrite) a link for a combination, 1..10, while the sand timer runs."""

    now: int
    player: str
    combination: int
    text: str


@dataclass(frozen=True, slots=True)
class EraseLink:
    now: int
    player: str
    combination: int


@dataclass(frozen=True, slots=True)
class Done:
    """Done writing; or, in the reading, done with the open combination."""

    now: int
    player: str


@dataclass(frozen=True, slots=True)
class Vote:
    now: int
    player: str
    ballot: int
    accept: bool


@dataclass(frozen=True, slots=True)
class CallMatch:
    """ "Match!" on another player's link (its ballot) of the open combination."""

    now: int
    player: str
    ballot: int


@dataclass(frozen=True, slots=True)
class Tick:
    """Let time pass: the sand timer and the votes' timers fire when they were due."""

    now: int


Command = StartGame | WriteLink | EraseLink | Done | Vote | CallMatch | Tick
