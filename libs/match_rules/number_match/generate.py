"""The deal of Number Match: a board the solver has cleared, chosen to be as hard as its level.

Two versions, both dealt for ever (an auditor re-deals a game with the version it was dealt
with, docs/dealing.md):

* ``number-match-deal-v1`` (:func:`generate` with ``version=V1``): the first candidate the
  solver clears, whatever its level. Every level's boards were about as easy: every first pair
  kept the board clearable and a greedy player cleared most of them (issue 31).
* ``number-match-deal-v2`` (the current :data:`DEAL_VERSION`): the first candidate the solver
  clears *and* that keeps its level's :data:`PROMISES`, so that harder levels are harder.

The algorithm, specified in ``docs/dealing.md``:

* *candidates*: attempt ``a = 0, 1, 2, ...`` reads the stream
  :class:`match_rules.deal.DealStream` ``(seed, f"board/{a}", version)`` and draws the level's
  count of numbers (27, 36, 45 or 54), cell by cell in reading order, each
  ``1 + uniform(stream, 9)``: every digit 1..9 equally likely, independently (``uniform`` is
  the project's rejection sampling of 4-byte big-endian words);
* *the check*: :func:`match_rules.number_match.solver.solve` on the candidate, with the level's
  additions and a budget of :data:`DEAL_BUDGET` positions. A candidate proven unsolvable or
  undecided within the budget is skipped; the solver's clearing is the *witness* the audit
  replays. v1 deals the first candidate proven SOLVABLE;
* *the level's promise* (v2 only, :func:`keeps`): of the :data:`GREEDY_PLAYERS` greedy players
  (:func:`greedy_clears`: each takes a legal pair while there is one, by its own fixed rule,
  and adds numbers only when none is left) at least ``greedy_min`` and at most ``greedy``
  clear the board, and of its legal
  first pairs at most ``open_percent`` per cent leave a board the solver clears within
  :data:`FIRST_MOVE_BUDGET` positions (:func:`open_first_moves`). Within :data:`MAX_ATTEMPTS`
  attempts, or ValueError.

Why the first-move figure has a budget: on uniform boards with the seed's additions a first pair
that makes the board unclearable is rare (none in thousands of first pairs searched with 4,000
positions each), since any addition copies every number left. What differs is how many openings
keep an *easy* clearing, one the solver's first, guided search finds at once, without having to
back out of dead ends: that is what the budget measures, deterministically (a count, not a time).

Classic deals no candidates: its board is fixed (1..9, then the digits of 11..19) and
:data:`CLASSIC_WITNESS` clears it with one addition (the same in both versions). The daily
puzzle of a date is ``generate(daily_seed(date), Level.HARD)``.

Pure: no clock, no I/O, no ``random``. Any change to what this module computes, the solver's
answers on candidates included, needs a new :data:`DEAL_VERSION`; the old ones stay dealable.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from match_rules.deal import DealStream, uniform
from match_rules.number_match import solver as solvers
from match_rules.number_match.board import (
    Board,
    Level,
    pair_moves,
    remove_pair,
)
from match_rules.number_match.solver import Move, Status, solve

__all__ = [
    "CLASSIC_BOARD",
    "CLASSIC_WITNESS",
    "DAILY_PREFIX",
    "DEAL_BUDGET",
    "DEAL_VERSION",
    "DEAL_VERSIONS",
    "FIRST_MOVE_BUDGET",
    "GREEDY_PLAYERS",
    "MAX_ATTEMPTS",
    "PROMISES",
    "V1",
    "Dealt",
    "Promise",
    "candidate",
    "classic",
    "daily",
    "daily_seed",
    "generate",
    "greedy_clears",
    "keeps",
    "open_first_moves",
]

V1 = "number-match-deal-v1"
DEAL_VERSION = "number-match-deal-v2"
DEAL_VERSIONS = (V1, DEAL_VERSION)  # every version ever dealt: each can be dealt again
# Positions per candidate: a fresh board needs a few dozen (574 at most on 6,000 seeds), so
# 4,000 skips almost nothing and bounds the cost of a skipped candidate at ~150 ms.
DEAL_BUDGET = 4_000
MAX_ATTEMPTS = 64
# v2: positions the solver may spend on the board after one first pair (an easy clearing of an
# Expert board takes about 35 to 50).
FIRST_MOVE_BUDGET = 40
GREEDY_PLAYERS = 8
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


@dataclass(frozen=True, slots=True)
class Promise:
    """What a level's v2 boards keep: at least ``greedy_min`` and at most ``greedy`` of the
    :data:`GREEDY_PLAYERS` greedy players clear it, and at most ``open_percent`` per cent of its
    first pairs leave a board the solver clears within :data:`FIRST_MOVE_BUDGET` positions."""

    greedy_min: int
    greedy: int
    open_percent: int


PROMISES: dict[Level, Promise] = {
    Level.EASY: Promise(greedy_min=5, greedy=GREEDY_PLAYERS, open_percent=100),
    Level.MEDIUM: Promise(greedy_min=0, greedy=4, open_percent=100),
    Level.HARD: Promise(greedy_min=0, greedy=4, open_percent=90),
    Level.EXPERT: Promise(greedy_min=0, greedy=3, open_percent=80),
}


def _check_version(version: str) -> None:
    if version not in DEAL_VERSIONS:
        raise ValueError(f"unknown deal version {version!r}: this deals {', '.join(DEAL_VERSIONS)}")


def candidate(seed: bytes, level: Level, attempt: int, version: str = DEAL_VERSION) -> Board:
    """Candidate ``attempt`` of ``level`` (not Classic): uniform digits from its stream."""
    if level is Level.CLASSIC:
        raise ValueError("Classic has one fixed board and no candidates")
    _check_version(version)
    stream = DealStream(seed, f"board/{attempt}", version)
    return tuple(1 + uniform(stream, 9) for _ in range(level.numbers))


def greedy_clears(board: Board, additions: int, player: int) -> bool:
    """Whether greedy player ``player`` (0 .. :data:`GREEDY_PLAYERS` - 1) clears ``board``: it
    takes a legal pair while there is one (player 0 the first in :func:`pair_moves` order,
    player 1 the last, the others one picked by their own linear congruential sequence) and adds
    numbers only when no pair is left, while it may (within Classic's 540 cells).

    Played on the solver's board of number classes, whose pairs, sorted, are exactly
    :func:`pair_moves`' and whose pair and addition do what :func:`remove_pair` and
    :func:`add_numbers` do (tested against them): a few times faster, for the same answer."""
    b = bytes(board).translate(solvers._TO_CLASS)
    state = player
    while b:
        moves = sorted(solvers._moves(b))
        if moves:
            if player == 0:
                move = moves[0]
            elif player == 1:
                move = moves[-1]
            else:
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                move = moves[(state >> 8) % len(moves)]
            b = solvers._remove(b, *move)
            continue
        added = solvers._added(b) if additions else None
        if added is None:
            return False
        b = added
        additions -= 1
    return True


def open_first_moves(board: Board, additions: int) -> tuple[int, int]:
    """``(open, legal)``: of the ``legal`` first pairs of ``board``, how many leave a board the
    solver clears within :data:`FIRST_MOVE_BUDGET` positions."""
    moves = pair_moves(board)
    opened = sum(_opens(board, additions, move) for move in moves)
    return opened, len(moves)


def _opens(board: Board, additions: int, move: Move) -> bool:
    after = remove_pair(board, *move)[0]
    return solvers.solve(after, additions, FIRST_MOVE_BUDGET).status is Status.SOLVABLE


def keeps(board: Board, level: Level) -> bool:
    """Whether a clearable ``board`` keeps ``level``'s :data:`PROMISES` (v2). Each count stops
    as soon as its answer is settled."""
    promise = PROMISES[level]
    additions = level.additions or 0
    cleared = 0
    for player in range(GREEDY_PLAYERS):
        cleared += greedy_clears(board, additions, player)
        if cleared > promise.greedy:
            return False
    if cleared < promise.greedy_min:
        return False
    if promise.open_percent < 100:
        moves = pair_moves(board)
        allowed = promise.open_percent * len(moves) // 100
        opened = 0
        for k, move in enumerate(moves):
            if opened + len(moves) - k <= allowed:
                break  # the pairs left cannot make it too many: it keeps
            opened += _opens(board, additions, move)
            if opened > allowed:
                return False
    return True


def generate(seed: bytes, level: Level, version: str = DEAL_VERSION) -> Dealt:
    """Deal ``level`` from a 32-byte seed with ``version``: the first candidate the solver
    clears (and, from v2, that keeps the level's promise), with its clearing as the witness.
    Classic ignores the seed (:func:`classic`)."""
    _check_version(version)
    if level is Level.CLASSIC:
        return classic(version)
    for attempt in range(MAX_ATTEMPTS):
        board = candidate(seed, level, attempt, version)
        solution = solve(board, level.additions, DEAL_BUDGET)
        if solution.status is not Status.SOLVABLE:
            continue
        if version == V1 or keeps(board, level):
            return Dealt(version, level, board, level.additions, solution.moves, attempt)
    raise ValueError(f"no candidate of {MAX_ATTEMPTS} was proven solvable and kept its promise")


def classic(version: str = DEAL_VERSION) -> Dealt:
    """The classic board, always the same, and its stored witness."""
    return Dealt(version, Level.CLASSIC, CLASSIC_BOARD, None, CLASSIC_WITNESS, 0)


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


def daily(date: str, version: str = DEAL_VERSION) -> Dealt:
    """The daily puzzle of ``date``: a Hard board from :func:`daily_seed`."""
    return generate(daily_seed(date), Level.HARD, version)
