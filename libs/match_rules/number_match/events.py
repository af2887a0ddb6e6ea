"""Events of Number Match: what happened, stamped with the referee's ``at``.

A table has one player, and every event goes to them (and to the log). Cells are numbered from
1, row by row, on the board as it was just before the event. The witness, a complete clearing of
the starting board, is committed in :class:`GameStarted` (its SHA-256) and revealed in
:class:`GameOver`, so that an auditor can replay it and see that the board was solvable.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from match_rules.number_match.settings import Settings


class Outcome(Enum):
    CLEARED = "cleared"  # the board is clear
    NO_MOVES = "no_moves"  # no pair and no addition left
    GAVE_UP = "gave_up"  # the player ended the game
    IDLE = "idle"  # nothing played for the idle limit


class HintKind(Enum):
    PAIR = "pair"  # this pair keeps the board clearable
    ADD = "add"  # no pair does; an addition does: time to add numbers
    STUCK = "stuck"  # the board can no longer be cleared with the additions left


class Undone(Enum):
    PAIR = "pair"
    ADD = "add"


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a witness: an addition, or the pair of cells ``first``, ``second`` (1-based,
    on the board as it is at that step)."""

    add: bool
    first: int
    second: int


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The board is laid out; the clock starts."""

    at: int
    player: str
    settings: Settings
    deal_version: str
    board: tuple[int, ...]
    additions: int | None  # None: no limit (Classic)
    hints: int
    witness_commitment: str
    daily_date: str
    replay: bool


@dataclass(frozen=True, slots=True)
class CellsPaired:
    """Two numbers made a pair and are gone; ``rows_removed`` rows became empty and went."""

    at: int
    player: str
    first: int
    second: int
    points: int
    rows_removed: int
    score: int


@dataclass(frozen=True, slots=True)
class NumbersAdded:
    """Every number on the board was copied, in order, after the last one."""

    at: int
    player: str
    count: int
    additions_left: int | None


@dataclass(frozen=True, slots=True)
class HintGiven:
    """A hint was given and counted: a pair (``first``, ``second``), add, or stuck."""

    at: int
    player: str
    kind: HintKind
    first: int
    second: int
    hints_left: int


@dataclass(frozen=True, slots=True)
class MoveUndone:
    """The last pair or addition was taken back, with its points; hints are not given back."""

    at: int
    player: str
    undone: Undone
    score: int
    additions_left: int | None


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game is over; ``witness`` is the one committed at the start."""

    at: int
    player: str
    outcome: Outcome
    score: int
    time_ms: int
    moves: int
    hints_used: int
    witness: tuple[Step, ...]


Event = GameStarted | CellsPaired | NumbersAdded | HintGiven | MoveUndone | GameOver
