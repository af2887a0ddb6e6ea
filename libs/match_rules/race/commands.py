"""Commands of Match, the race. Every command carries ``now``: the referee's clock on arrival."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StartGame:
    """Seat the players and open Ready for board 1 (the table is full)."""

    now: int
    players: tuple[str, ...]
    bots: frozenset[str]
    ready_window_ms: int
    hints_per_board: int
    deal_version: str


@dataclass(frozen=True, slots=True)
class PressReady:
    now: int
    player: str


@dataclass(frozen=True, slots=True)
class TurnTile:
    now: int
    player: str
    tile: int


@dataclass(frozen=True, slots=True)
class Resign:
    now: int
    player: str


@dataclass(frozen=True, slots=True)
class RequestHint:
    now: int
    player: str


@dataclass(frozen=True, slots=True)
class Tick:
    """Let time pass: fires every deadline due at ``now`` (Ready, countdown, grace, cap)."""

    now: int


Command = StartGame | PressReady | TurnTile | Resign | RequestHint | Tick
