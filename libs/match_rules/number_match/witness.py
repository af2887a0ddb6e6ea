"""The witness: a complete clearing of a starting board, its commitment and its check.

The dealer's solver finds it when it deals the board; the game commits to it when it starts
(:func:`commitment`, in GameStarted) and reveals it when it ends (GameOver). Anyone can then
:func:`check` it: every step a legal pair or an allowed addition, the board clear at the end, so
the board was solvable within its additions. Steps number cells from 1 (the events' way); the
solver numbers them from 0.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from match_rules.number_match import solver
from match_rules.number_match.events import Step

VERSION = "number-match-witness-v1"


def text(board: Sequence[int], additions: int | None, steps: Iterable[Step]) -> str:
    """The committed text: the version, the board's digits, the additions (``-``: no limit) and
    the steps (``+`` an addition, ``a-b`` a pair), one line each, ending in a newline."""
    moves = ",".join("+" if s.add else f"{s.first}-{s.second}" for s in steps)
    limit = "-" if additions is None else str(additions)
    return f"{VERSION}\n{''.join(map(str, board))}\n{limit}\n{moves}\n"


def commitment(board: Sequence[int], additions: int | None, steps: Iterable[Step]) -> str:
    """SHA-256 (hex) of :func:`text`."""
    return hashlib.sha256(text(board, additions, steps).encode()).hexdigest()


def to_steps(moves: Iterable[solver.Move]) -> tuple[Step, ...]:
    """The solver's moves (0-based pairs, ``solver.ADD``) as steps."""
    return tuple(
        Step(True, 0, 0) if m == solver.ADD else Step(False, m[0] + 1, m[1] + 1) for m in moves
    )


def to_moves(steps: Iterable[Step]) -> list[solver.Move]:
    return [solver.ADD if s.add else (s.first - 1, s.second - 1) for s in steps]


def check(board: Sequence[int], additions: int | None, steps: Sequence[Step]) -> int:
    """Replay ``steps`` on ``board``: the number of additions they use. Raises
    :class:`solver.WitnessError` saying which step fails and why."""
    for n, s in enumerate(steps, start=1):
        if not s.add and (s.first < 1 or s.second < 1):
            raise solver.WitnessError(
                f"step {n}: cells are numbered from 1, not {s.first}-{s.second}"
            )
    solver.replay(tuple(board), additions, to_moves(steps))
    return sum(1 for s in steps if s.add)
