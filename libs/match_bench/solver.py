"""`make bench-solver`: Number Match's solver, dealing and hints, against a plain search.

Not a test: it measures, on one core, what the targets are about.

* *Dealing*: ``--boards`` boards per level (Easy, Medium, Hard, Expert) from fixed seeds, each
  timed through :func:`generate` (candidates, solver, witness), its witness then replayed:
  ``solvable`` is the share of dealt boards whose witness clears them.
* *Hints*: from each dealt board a random player (``random.Random`` seeded per board: the
  bench is reproducible, the rules never see it) pairs any legal pair, adds only when no pair
  is left (and once in 50 moves anyway, as a player who misses pairs would), until the game
  ends; ``--states`` states evenly spread over the game are kept, the first (the dealt board)
  and the last (often a dead end) included, so some are no longer clearable. On each, our
  :func:`hint` (budget ``HINT_BUDGET``) is timed against the plain search's first move
  (:func:`plain_solve`, no table, order or pruning), capped at ``--cap`` positions so that it
  finishes: a capped plain search is counted at the time it took to reach the cap, and the
  tables say how many were capped (``capped``) and on how many settled states both agreed.

* *Difficulty* (issue 31): ``--difficulty`` boards per level (seeds of their own), each dealt
  through :func:`generate`; ``clearable_first_moves`` is the share, over all their legal first
  pairs, of those after which the solver clears the board within ``FIRST_MOVE_BUDGET``
  positions (:func:`open_first_moves`), and ``greedy_clears`` the share of games that
  ``--greedy`` random greedy players per board (``random.Random``, not the generator's own
  players: take any legal pair, add numbers only when none is left) clear, with no hint.

Prints a table per level and ends with exactly one line: ``solver: gen_p99_ms=<Expert dealing
p99> hint_p99_ms=<Expert hint p99> solvable=<share over all levels> speedup=<plain time over
ours, summed over all states of all levels> clearable_first_moves_<level>=<share> ...
greedy_clears_<level>=<share> ...`` (levels Easy to Expert). ``--quick`` is a small run.
Writes the figures to ``<out>/bench-solver.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from match_rules.number_match.board import (
    LEVEL_CELLS,
    Board,
    Level,
    add_numbers,
    can_add,
    pair_moves,
    remove_pair,
)
from match_rules.number_match.generate import DEAL_BUDGET, generate, open_first_moves
from match_rules.number_match.solver import HINT_BUDGET, hint, plain_solve, replay

LEVELS = (Level.EASY, Level.MEDIUM, Level.HARD, Level.EXPERT)
EARLY_ADD = 50  # one move in this many adds numbers although pairs are left


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile, as ``match_bench.sync`` takes it: the value at rank
    ``int(q / 100 * n)`` of the sorted values (so p99 of 200 is the second largest)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else 0.0


@dataclass
class Figures:
    """What one level measured."""

    gen_ms: list[float] = field(default_factory=list)
    attempts: list[int] = field(default_factory=list)
    checked: int = 0
    ours_ms: list[float] = field(default_factory=list)
    plain_ms: list[float] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    plain_capped: int = 0
    plain_agrees: int = 0  # both settled, and on the same answer (clearable or not)
    both_settled: int = 0


def play(
    board: Board, additions: int | None, rng: random.Random, keep: int
) -> list[tuple[Board, int | None]]:
    """``keep`` states (board, additions left) spread evenly over one random game, its first
    and its last included."""
    states: list[tuple[Board, int | None]] = []
    while board:
        states.append((board, additions))
        pairs = pair_moves(board)
        may_add = additions != 0 and can_add(board)
        if may_add and (not pairs or rng.randrange(EARLY_ADD) == 0):
            board = add_numbers(board)
            additions = None if additions is None else additions - 1
        elif pairs:
            board, _ = remove_pair(board, *rng.choice(pairs))
        else:
            break  # game over: no pair, no addition
    return [states[(len(states) - 1) * k // max(keep - 1, 1)] for k in range(keep)]


def greedy(board: Board, additions: int, rng: random.Random) -> bool:
    """Whether a random greedy player clears ``board``: any legal pair, add only when none."""
    while board:
        pairs = pair_moves(board)
        if pairs:
            board, _ = remove_pair(board, *rng.choice(pairs))
        elif additions and can_add(board, LEVEL_CELLS):  # the rules' cap for a level
            board = add_numbers(board, LEVEL_CELLS)
            additions -= 1
        else:
            return False
    return True


@dataclass
class Difficulty:
    """What one level's dealt boards measured: open and legal first pairs, greedy games won."""

    opened: int = 0
    legal: int = 0
    cleared: int = 0
    games: int = 0

    @property
    def open_share(self) -> float:
        return self.opened / max(self.legal, 1)

    @property
    def greedy_share(self) -> float:
        return self.cleared / max(self.games, 1)


def difficulty(level: Level, boards: int, players: int) -> Difficulty:
    d = Difficulty()
    for n in range(boards):
        seed = hashlib.sha256(f"bench-solver/difficulty/{level.value}/{n}".encode()).digest()
        dealt = generate(seed, level)
        additions = dealt.additions or 0
        opened, legal = open_first_moves(dealt.board, additions)
        d.opened += opened
        d.legal += legal
        for p in range(players):
            rng = random.Random(f"bench-solver/greedy/{level.value}/{n}/{p}")
            d.cleared += greedy(dealt.board, additions, rng)
            d.games += 1
    return d


def measure(level: Level, args: argparse.Namespace) -> Figures:
    figures = Figures()
    for n in range(args.boards):
        seed = hashlib.sha256(f"bench-solver/{level.value}/{n}".encode()).digest()
        t0 = time.perf_counter()
        dealt = generate(seed, level)
        figures.gen_ms.append((time.perf_counter() - t0) * 1000)
        figures.attempts.append(dealt.attempt + 1)
        replay(dealt.board, dealt.additions, dealt.moves)  # raises if the witness fails
        figures.checked += 1
        rng = random.Random(f"bench-solver/play/{level.value}/{n}")
        for board, additions in play(dealt.board, dealt.additions, rng, args.states):
            t0 = time.perf_counter()
            ours = hint(board, additions, HINT_BUDGET)
            figures.ours_ms.append((time.perf_counter() - t0) * 1000)
            figures.kinds[ours.kind.name] += 1
            t0 = time.perf_counter()
            plain = plain_solve(board, additions, args.cap)
            figures.plain_ms.append((time.perf_counter() - t0) * 1000)
            if plain.status.name == "UNKNOWN":
                figures.plain_capped += 1
            elif ours.kind.name != "UNKNOWN":
                figures.both_settled += 1
                figures.plain_agrees += (plain.status.name == "SOLVABLE") == (
                    ours.kind.name in ("PAIR", "ADD")
                )
    return figures


def row(level: Level, f: Figures) -> str:
    speedup = sum(f.plain_ms) / max(sum(f.ours_ms), 1e-9)
    kinds = " ".join(f"{k.lower()}={f.kinds[k]}" for k in ("PAIR", "ADD", "STUCK", "UNKNOWN"))
    return (
        f"{level.value:<7} deal: n={len(f.gen_ms)} attempts={sum(f.attempts) / len(f.attempts):.2f}"
        f" p50={percentile(f.gen_ms, 50):.1f} p99={percentile(f.gen_ms, 99):.1f}"
        f" max={max(f.gen_ms):.1f} ms\n"
        f"{'':<7} hint: n={len(f.ours_ms)} p50={percentile(f.ours_ms, 50):.2f}"
        f" p99={percentile(f.ours_ms, 99):.1f} max={max(f.ours_ms):.1f} ms  {kinds}\n"
        f"{'':<7} plain: p50={percentile(f.plain_ms, 50):.2f} p99={percentile(f.plain_ms, 99):.1f}"
        f" max={max(f.plain_ms):.1f} ms capped={f.plain_capped}"
        f" agree={f.plain_agrees}/{f.both_settled}  speedup={speedup:.1f}x"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m match_bench.solver", description=__doc__)
    p.add_argument("--boards", type=int, default=40, help="boards dealt per level")
    p.add_argument("--states", type=int, default=10, help="play states hinted per board")
    p.add_argument("--cap", type=int, default=20_000, help="positions for the plain search")
    p.add_argument("--difficulty", type=int, default=300, help="boards per level for difficulty")
    p.add_argument("--greedy", type=int, default=8, help="random greedy players per board")
    p.add_argument("--quick", action="store_true", help="a small run: 8 boards, 3 states each")
    p.add_argument("--out", type=Path, default=Path("var"))
    args = p.parse_args(argv)
    if args.quick:
        args.boards, args.states, args.difficulty = 8, 3, 40
    print(
        f"budgets: deal {DEAL_BUDGET} positions per candidate, hint {HINT_BUDGET}, plain cap "
        f"{args.cap}; {args.boards} boards and {args.boards * args.states} play states per "
        f"level; python {platform.python_version()}",
        flush=True,
    )
    results: dict[Level, Figures] = {}
    hardness: dict[Level, Difficulty] = {}
    for level in LEVELS:
        results[level] = measure(level, args)
        print(row(level, results[level]), flush=True)
    for level in LEVELS:
        hardness[level] = d = difficulty(level, args.difficulty, args.greedy)
        print(
            f"{level.value:<7} difficulty: boards={args.difficulty} first pairs={d.legal}"
            f" clearable={d.open_share:.3f} greedy games={d.games} cleared={d.greedy_share:.3f}",
            flush=True,
        )
    expert = results[Level.EXPERT]
    dealt = sum(len(f.gen_ms) for f in results.values())
    solvable = sum(f.checked for f in results.values()) / dealt
    speedup = sum(sum(f.plain_ms) for f in results.values()) / sum(
        sum(f.ours_ms) for f in results.values()
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench-solver.json").write_text(
        json.dumps(
            {
                level.value: {
                    "gen_ms": f.gen_ms,
                    "attempts": f.attempts,
                    "hint_ms": f.ours_ms,
                    "plain_ms": f.plain_ms,
                    "kinds": dict(f.kinds),
                    "plain_capped": f.plain_capped,
                    "clearable_first_moves": hardness[level].open_share,
                    "greedy_clears": hardness[level].greedy_share,
                }
                for level, f in results.items()
            },
            indent=1,
        )
    )
    print(
        f"solver: gen_p99_ms={percentile(expert.gen_ms, 99):.1f}"
        f" hint_p99_ms={percentile(expert.ours_ms, 99):.1f} solvable={solvable:.3f}"
        f" speedup={speedup:.1f} "
        + " ".join(
            f"clearable_first_moves_{lv.value}={d.open_share:.3f}" for lv, d in hardness.items()
        )
        + " "
        + " ".join(f"greedy_clears_{lv.value}={d.greedy_share:.3f}" for lv, d in hardness.items()),
        flush=True,
    )


if __name__ == "__main__":
    main()
