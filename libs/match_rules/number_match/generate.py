"""The deal of Number Match, version ``number-match-deal-v1``: a board the solver has cleared.

The algorithm, to be specified in ``docs/dealing.md``:

* *candidates*: attempt ``a = 0, 1, 2, ...`` reads the stream
  :class:`match_rules.deal.DealStream` ``(seed, f"board/{a}", "number-match-deal-v1")`` and
  draws the level's count of numbers (27, 36, 45 or 54), cell by cell in reading order, each
  ``1 + uniform(stream, 9)``: every digit 1..9 equally likely, independently (``uniform`` is
  the project's rejection sampling of 4-byte big-endian words);
* *the check*: :func:`match_rules.number_match.solver.solve` on the candidate, with the level's
  additions and a budget of :data:`DEAL_BUDGET` positions. The first candidate proven SOLVABLE
  is dealt, its clearing is the *witness* the audit replays; a candidate proven unsolvable or
  undecided within the budget is skipped. Within :data:`MAX_ATTEMPTS` attempts, or ValueError.

Uniform digits need no bias: on 6,000 seeds (1,500 per level) every first candidate was
proven solvable, with a median of 24 to 37 positions by level and at most 574, so dealing takes
milliseconds. The levels differ by what the rules give them: more numbers, fewer additions.
Classic deals no candidates: its board is fixed (1..9, then the digits of 11..19) and
:data:`CLASSIC_WITNESS` clears it with one addition. The daily puzzle of a date is
``generate(daily_seed(date), Level.HARD)``.

Pure: no clock, no I/O, no ``random``. Any change to what this module computes, the solver's
answers on candidates included, needs a new :data:`DEAL_VERSION`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from match_rules.deal import DealStream, uniform
from match_rules.number_match.board import Board, Level
from match_rules.number_match.solver import Move, Status, solve

__all__ = [
    "CLASSIC_BOARD",
    "CLASSIC_WITNESS",
    "DAILY_PREFIX",
    "DEAL_BUDGET",
    "DEAL_VERSION",
    "MAX_ATTEMPTS",
    "Dealt",
    "candidate",
    "classic",
    "daily",
    "daily_seed",
    "generate",
]

DEAL_VERSION = "number-match-deal-v1"
# Positions per candidate: a fresh board needs a few dozen (574 at most on 6,000 seeds), so
# 4,000 skips almost nothing and bounds the cost of a skipped candidate at ~150 ms.
DEAL_BUDGET = 4_000
MAX_ATTEMPTS = 64
DAILY_PREFIX = b"number-match-daily-v1/"

# 1 to 9, then the digits of 11 to 19: 1 1 1 2 1 3 ... 1 9.
CLASSIC_BOARD: Board = tuple(range(1, 10)) + tuple(
    int(digit) for n in range(11, 20) for digit in str(n)
)
# Found once by the solver (17 positions) and kept here, so that the classic deal does not change
# with the solver; test_generate replays it. 16 pairs and one addition.
CLASSIC_WITNESS: tuple[Move, ...] = (
    (6, 14), (8, 17), (25, 26), (15, 23), (13, 21), (0, 9), (10, 11), (7, 12), (5, 16),
    (4, 9), (3, 11), (-1, -1), (15, 16), (13, 17), (10, 18), (2, 10), (1, 11),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Dealt:
    """A dealt board, its additions (None: Classic, no limit), a witness that clears it and the
    attempt it came from (0 for Classic)."""

    version: str
    level: Level
    board: Board
    additions: int | None
    moves: tuple[Move, ...]
    attempt: int


def candidate(seed: bytes, level: Level, attempt: int) -> Board:
    """Candidate ``attempt`` of ``level`` (not Classic): uniform digits from its stream."""
    if level is Level.CLASSIC:
        raise ValueError("Classic has one fixed board and no candidates")
    stream = DealStream(seed, f"board/{attempt}", DEAL_VERSION)
    return tuple(1 + uniform(stream, 9) for _ in range(level.numbers))


def generate(seed: bytes, level: Level) -> Dealt:
    """Deal ``level`` from a 32-byte seed: the first candidate the solver clears, with its
    clearing as the witness. Classic ignores the seed (:func:`classic`)."""
    if level is Level.CLASSIC:
        return classic()
    for attempt in range(MAX_ATTEMPTS):
        board = candidate(seed, level, attempt)
        solution = solve(board, level.additions, DEAL_BUDGET)
        if solution.status is Status.SOLVABLE:
            return Dealt(DEAL_VERSION, level, board, level.additions, solution.moves, attempt)
    raise ValueError(f"no candidate of {MAX_ATTEMPTS} was proven solvable")


def classic() -> Dealt:
    """The classic board, always the same, and its stored witness."""
    return Dealt(DEAL_VERSION, Level.CLASSIC, CLASSIC_BOARD, None, CLASSIC_WITNESS, 0)


def daily_seed(date: str) -> bytes:
    """The seed of the daily puzzle of ``date`` (ISO, ``2026-12-01``): SHA-256 of
    ``b"number-match-daily-v1/" + date``. Everybody gets the same board on the same date."""
    try:
        canonical: str | None = dt.date.fromisoformat(date).isoformat()
    except (TypeError, ValueError):
        canonical = None
    if canonical is None or canonical != date:
        raise ValueError(f"a daily puzzle's date looks like 2026-12-01, not {date!r}")
    # pragma: no mutate start (equivalent: codec names ignore case)
    return hashlib.sha256(DAILY_PREFIX + date.encode("ascii")).digest()
    # pragma: no mutate end


def daily(date: str) -> Dealt:
    """The daily puzzle of ``date``: a Hard board from :func:`daily_seed`."""
    return generate(daily_seed(date), Level.HARD)
