"""``python -m match_botsim.bench`` (``make bench-bot``): measure the bot's strengths (not a test).

Simulated games against the rules core (``match_botsim.sim``), fixed seeds, no network:

* **solo boards**: each kind of player (random, weak, medium, strong, perfect) plays the same
  ``--games`` games (three boards each) with an idle second seat. Per kind: pairs found within
  the first ``--budget`` turns of a board (the headline: see docs/bot.md for why a turn budget),
  and, under the full rules, pairs, turns, clear rate and time per board;
* **head to head**: two-player games, each strength against random, against perfect, and
  against each other; the win rate of the first named (a shared place counts half).

Every number comes with a 95 % confidence interval (``match_botsim.stats``): Student's t for
means, Wilson's score interval for rates (a clear rate, a win rate), where t fails at 0 and 1.
Prints a table, writes ``var/bench-bot.json`` and the chart ``var/bench-bot.png``, and ends with
exactly one line (``<pairs>``: each kind's mean pairs within the turn budget)::

    bench-bot: random=<pairs> weak=<pairs> medium=<pairs> strong=<pairs> perfect=<pairs> \
        ordered=<yes|no>

(on one line, without the break).
``ordered=yes`` only if each kind's pairs interval lies wholly above the one before it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from match_botsim.players import KINDS, SimPlayer
from match_botsim.sim import BoardRecord, game_seed, play_game
from match_botsim.stats import Interval, mean_ci, rate_ci
from match_rules.race import bot

VERSION = "bench-bot/v1"  # part of every seed: change it and every number changes
BUDGET_TURNS = 30
SOLO_GAMES = 500  # x 3 boards per kind
H2H_GAMES = 300  # per matchup
CHUNK = 50  # games per worker task
MATCHUPS: tuple[tuple[str, str], ...] = (
    ("weak", "random"),
    ("medium", "random"),
    ("strong", "random"),
    ("weak", "perfect"),
    ("medium", "perfect"),
    ("strong", "perfect"),
    ("weak", "medium"),
    ("medium", "strong"),
    ("weak", "strong"),
)


# --- the games (run in worker processes) --------------------------------------------------


def solo_games(kind: str, start: int, stop: int, budget: int, pace: float) -> list[BoardRecord]:
    """Games ``start..stop-1`` of ``kind`` alone (every kind gets the same deals)."""
    out: list[BoardRecord] = []
    for i in range(start, stop):
        player = SimPlayer(kind, f"{VERSION}/solo/{kind}/{i}", pace)
        game = play_game(
            game_seed(f"{VERSION}/solo/{i}"), [("p", player), ("idle", None)], budget=budget
        )
        if game.refused:
            raise AssertionError(f"{kind} had {game.refused} turns refused in solo game {i}")
        out.extend(r for r in game.boards if r.player == "p")
    return out


def h2h_games(a: str, b: str, start: int, stop: int, pace: float) -> list[float]:
    """Games ``start..stop-1`` of ``a`` against ``b``: 1 when ``a`` places above ``b``, 0.5 on a
    shared place, else 0. The seats alternate from game to game."""
    scores = []
    for i in range(start, stop):
        pa = SimPlayer(a, f"{VERSION}/h2h/{a}-{b}/{i}/a", pace)
        pb = SimPlayer(b, f"{VERSION}/h2h/{a}-{b}/{i}/b", pace)
        seats: list[tuple[str, SimPlayer | None]] = [("a", pa), ("b", pb)]
        if i % 2:
            seats.reverse()
        game = play_game(game_seed(f"{VERSION}/h2h/{i}"), seats)
        if game.refused:
            raise AssertionError(f"{a} v {b}: {game.refused} turns refused in game {i}")
        place_a, place_b = game.place("a"), game.place("b")
        scores.append(1.0 if place_a < place_b else 0.5 if place_a == place_b else 0.0)
    return scores


def _chunks(n: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, CHUNK):
        yield start, min(start + CHUNK, n)


# --- the report ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Solo:
    kind: str
    boards: int
    pairs: Interval  # within the turn budget: the headline
    pairs_full: Interval
    turns: Interval
    clear_rate: Interval
    time_s: Interval
    disqualified: int

    @classmethod
    def of(cls, kind: str, records: Sequence[BoardRecord]) -> Solo:
        return cls(
            kind=kind,
            boards=len(records),
            pairs=mean_ci(r.pairs_in_budget for r in records),
            pairs_full=mean_ci(r.pairs for r in records),
            turns=mean_ci(r.turns for r in records),
            clear_rate=rate_ci(1.0 if r.cleared else 0.0 for r in records),
            time_s=mean_ci(r.time_ms / 1000 for r in records),
            disqualified=sum(r.disqualified for r in records),
        )


@dataclass(frozen=True, slots=True)
class HeadToHead:
    a: str
    b: str
    wins: int
    ties: int
    losses: int
    win_rate: Interval

    @classmethod
    def of(cls, a: str, b: str, scores: Sequence[float]) -> HeadToHead:
        return cls(
            a=a,
            b=b,
            wins=sum(s == 1.0 for s in scores),
            ties=sum(s == 0.5 for s in scores),
            losses=sum(s == 0.0 for s in scores),
            win_rate=rate_ci(scores),
        )


@dataclass(frozen=True, slots=True)
class Report:
    solo: dict[str, Solo]
    h2h: list[HeadToHead]
    games: int
    h2h_games: int
    budget: int
    pace: float
    seconds: float

    @property
    def ordered(self) -> bool:
        order = [self.solo[k].pairs for k in KINDS]
        return all(hi.above(lo) for lo, hi in itertools.pairwise(order))

    def line(self) -> str:
        pairs = " ".join(f"{k}={self.solo[k].pairs.mean:.2f}" for k in KINDS)
        return f"bench-bot: {pairs} ordered={'yes' if self.ordered else 'no'}"

    def as_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "interval": "95%: Student t for means (mean +- t(0.975, n-1) * s / sqrt(n)), "
            "Wilson score for rates (clear_rate, win_rate)",
            "budget_turns": self.budget,
            "solo_games": self.games,
            "head_to_head_games": self.h2h_games,
            "pace": self.pace,
            "profiles": {
                p.name: {  # JSON has no infinity: null is "never forgets"
                    "half_life_turns": None if math.isinf(p.half_life_turns) else p.half_life_turns,
                    "slip": p.slip,
                }
                for p in (*bot.PROFILES.values(), bot.PERFECT)
            },
            "solo": {
                k: {
                    "boards": s.boards,
                    "pairs_in_budget": s.pairs.as_dict(),
                    "pairs_full_rules": s.pairs_full.as_dict(),
                    "turns": s.turns.as_dict(),
                    "clear_rate": s.clear_rate.as_dict(),
                    "time_s": s.time_s.as_dict(),
                    "disqualified": s.disqualified,
                }
                for k, s in self.solo.items()
            },
            "head_to_head": [
                {
                    "player": h.a,
                    "against": h.b,
                    "wins": h.wins,
                    "ties": h.ties,
                    "losses": h.losses,
                    "win_rate": h.win_rate.as_dict(),
                }
                for h in self.h2h
            ],
            "ordered": self.ordered,
            "line": self.line(),
        }


def measure(
    *,
    games: int = SOLO_GAMES,
    h2h: int = H2H_GAMES,
    budget: int = BUDGET_TURNS,
    pace: float = 1.0,
    workers: int = 1,
    matchups: Sequence[tuple[str, str]] = MATCHUPS,
) -> Report:
    """Play every game of the bench (in ``workers`` processes; the numbers do not depend on it)."""
    started = time.monotonic()
    # Spawned, not forked: a fork copies the caller's other threads' locks (gRPC's, logging's)
    # mid-use, and a worker that inherits a held lock hangs, and its pool with it.
    spawn = multiprocessing.get_context("spawn")
    pool_of = ProcessPoolExecutor(max_workers=workers, mp_context=spawn) if workers > 1 else None
    with pool_of or _Inline() as pool:
        solo_jobs = {
            k: [pool.submit(solo_games, k, a, b, budget, pace) for a, b in _chunks(games)]
            for k in KINDS
        }
        h2h_jobs = {
            (a, b): [pool.submit(h2h_games, a, b, s, e, pace) for s, e in _chunks(h2h)]
            for a, b in matchups
        }
        solo = {
            k: Solo.of(k, [r for j in jobs for r in j.result()]) for k, jobs in solo_jobs.items()
        }
        duels = [
            HeadToHead.of(a, b, [s for j in jobs for s in j.result()])
            for (a, b), jobs in h2h_jobs.items()
        ]
    return Report(solo, duels, games, h2h, budget, pace, time.monotonic() - started)


class _Done:
    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


class _Inline:
    """A stand-in for a process pool that runs each job at once, in this process."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def submit(self, fn: Any, *args: Any) -> _Done:
        return _Done(fn(*args))


# --- output --------------------------------------------------------------------------------


def _ci(i: Interval, digits: int = 2) -> str:
    return f"{i.mean:.{digits}f} [{i.lo:.{digits}f}, {i.hi:.{digits}f}]"


def table(report: Report) -> str:
    r = report
    lines = [
        f"bench-bot: {r.games} solo games (x3 boards) per player, {r.h2h_games} games per "
        f"matchup, pace {r.pace:g}; mean [95% interval: t for means, Wilson for rates]",
        "",
        f"{'player':<8} {'pairs/board':>21} {'pairs/board':>21} {'turns/board':>21} "
        f"{'clear rate':>21} {'time/board (s)':>21} {'DQ':>3}",
        f"{'':<8} {f'(first {r.budget} turns)':>21} {'(full rules)':>21} {'(full rules)':>21} "
        f"{'(full rules)':>21} {'(full rules)':>21} {'':>3}",
    ]
    for k in KINDS:
        s = r.solo[k]
        lines.append(
            f"{k:<8} {_ci(s.pairs):>21} {_ci(s.pairs_full):>21} {_ci(s.turns, 1):>21} "
            f"{_ci(s.clear_rate):>21} {_ci(s.time_s, 1):>21} {s.disqualified:>3}"
        )
    lines += ["", f"{'head to head (2 players)':<24} {'win rate':>21}   wins-ties-losses"]
    for h in r.h2h:
        lines.append(
            f"{h.a + ' v ' + h.b:<24} {_ci(h.win_rate):>21}   {h.wins}-{h.ties}-{h.losses}"
        )
    lines.append("")
    lines.append(f"({r.seconds:.0f} s)")
    return "\n".join(lines)


COLOURS = {
    "random": "#9e9e9e",
    "weak": "#e07b39",
    "medium": "#d4b12f",
    "strong": "#3f8f4f",
    "perfect": "#3b6fb6",
}


def chart(report: Report, path: Path) -> None:
    """Four panels: pairs in the turn budget, clear rate, time per board, head-to-head."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    colours = [COLOURS[k] for k in KINDS]

    def bars(ax: Any, values: list[Interval], title: str, ylabel: str, digits: int) -> None:
        means = [v.mean for v in values]
        errors = [[v.mean - v.lo for v in values], [v.hi - v.mean for v in values]]
        ax.bar(KINDS, means, color=colours, yerr=errors, capsize=6, edgecolor="black", lw=0.6)
        for x, v in enumerate(values):
            ax.annotate(
                f"{v.mean:.{digits}f}",
                (x, v.hi),
                textcoords="offset points",
                xytext=(0, 4),
                ha="center",
                fontsize=9,
            )
        ax.set_title(title, fontsize=11)
        ax.set_ylabel(ylabel)
        ax.margins(y=0.15)
        ax.grid(axis="y", alpha=0.3)

    s = report.solo
    bars(
        axes[0][0],
        [s[k].pairs for k in KINDS],
        f"Pairs found in the first {report.budget} turns of a board",
        "pairs (of 10)",
        2,
    )
    bars(
        axes[0][1],
        [s[k].turns for k in KINDS],
        "Turns per board (full rules: 80-turn limit)",
        "turns",
        1,
    )
    bars(
        axes[1][0],
        [s[k].time_s for k in KINDS],
        "Time per board (full rules, as the results show it)",
        "seconds from T0",
        1,
    )
    ax = axes[1][1]
    labels = [f"{h.a} v {h.b}" for h in report.h2h]
    rates = [h.win_rate.mean for h in report.h2h]
    errors = [
        [h.win_rate.mean - h.win_rate.lo for h in report.h2h],
        [h.win_rate.hi - h.win_rate.mean for h in report.h2h],
    ]
    ys = list(range(len(labels)))[::-1]
    ax.barh(
        ys,
        rates,
        xerr=errors,
        capsize=4,
        color=[COLOURS[h.a] for h in report.h2h],
        edgecolor="black",
        lw=0.6,
    )
    for y, h in zip(ys, report.h2h, strict=True):
        inside = h.win_rate.hi > 0.85  # a long bar: write the number inside it
        ax.annotate(
            f"{h.win_rate.mean:.2f}",
            (h.win_rate.lo if inside else h.win_rate.hi, y),
            textcoords="offset points",
            xytext=(-30 if inside else 5, 0),
            va="center",
            fontsize=9,
        )
    ax.set_yticks(ys, labels)
    ax.axvline(0.5, color="black", lw=0.8, ls="--")
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate of the first named (a shared place counts half)")
    ax.set_title("Head to head, two-player games", fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    fig.suptitle(
        f"Match bot bench: {report.games * 3} solo boards per player, "
        f"{report.h2h_games} games per matchup; error bars: 95% intervals (t; Wilson for rates)",
        fontsize=12,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m match_botsim.bench", description=__doc__)
    parser.add_argument("--games", type=int, default=SOLO_GAMES, help="solo games per player")
    parser.add_argument("--h2h-games", type=int, default=H2H_GAMES, help="games per matchup")
    parser.add_argument("--budget", type=int, default=BUDGET_TURNS, help="turns per budget")
    parser.add_argument("--pace", type=float, default=1.0, help="BOT_PACE of every player")
    parser.add_argument(
        "--workers", type=int, default=min(2, os.cpu_count() or 1), help="processes"
    )
    parser.add_argument("--out", type=Path, default=Path("var"), help="folder for json and png")
    args = parser.parse_args(argv)
    report = measure(
        games=args.games,
        h2h=args.h2h_games,
        budget=args.budget,
        pace=args.pace,
        workers=max(args.workers, 1),
    )
    print(table(report))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench-bot.json").write_text(json.dumps(report.as_json(), indent=2) + "\n")
    chart(report, args.out / "bench-bot.png")
    print(f"wrote {args.out / 'bench-bot.json'} and {args.out / 'bench-bot.png'}")
    print(report.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
