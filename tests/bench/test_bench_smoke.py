"""A tiny `make bench` (a few tables, a few seconds, both stacks): the same code paths, and its
summary line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from match_bench import run

pytestmark = pytest.mark.stack  # python -m match_bench starts a whole stack

GAMES = ("concentration", "match_cards", "number_match", "match_five")
LINE = re.compile(
    r"^bench: turns_s=(?P<turns_s>\d+) cpu_us_per_turn=(?P<cpu>\d+) "
    r"in_flight=(?P<in_flight>\d+) p99_ms=(?P<p99>[0-9.]+|nan) "
    r"max_tables_50ms=(?P<max_tables>\d+) unary_turns_s=(?P<unary>\d+) "
    r"unary_cpu_us_per_turn=(?P<unary_cpu>\d+) fixed_in_flight=8 "
    r"fixed_turns_s=(?P<fixed>\d+) fixed_cpu_us_per_turn=(?P<fixed_cpu>\d+) "
    r"human_turns_s=(?P<human>\d+) human_cpu_us_per_turn=(?P<human_cpu>\d+) "
    r"human_cores=(?P<human_cores>[0-9.]+) transport=play "
    r"loop=(?P<loop>uvloop|asyncio) view_turns_s=(?P<view>\d+) "
    r"view_cpu_us_per_turn=(?P<view_cpu>\d+) view_items_per_turn=(?P<view_items>[0-9.]+) "
    r"views_failed=(?P<views_failed>\d+) asyncio_turns_s=\d+ uvloop_turns_s=\d+ "
    + "".join(rf"{g}_cpu_us=(?P<{g}_cpu>\d+) {g}_cmds_s=(?P<{g}_cmds>\d+) " for g in GAMES)
    + r"ratio=(?P<ratio>[0-9.]+) tables=(?P<tables>\d+) bytes_per_table=(?P<bytes>-?\d+)"
    + "(?:"  # on a machine with two CPUs or more (match_bench.run.two_cpus)
    + "".join(
        rf" {k}_turns_s=(?P<{k}_turns>\d+) {k}_cpu_us_per_turn=(?P<{k}_cpu>\d+) "
        rf"{k}_p99_ms=(?P<{k}_p99>[0-9.]+|nan) {k}_max_tables_50ms=(?P<{k}_max>\d+)"
        for k in ("pinned", "two_stacks")
    )
    + ")?$"
)


def test_a_tiny_bench_prints_its_summary_line(tmp_path: Path) -> None:
    """Full speed's window is long enough to hold turns whatever the timing. Its 48 tables at
    most all open in the first seconds (the feeder counts players queued for a slot, and a new
    table's players queue only after Ready and the countdown); they play their first 18 turns at
    once, then wait until 12.1 s after their first turn for the last pair. A 3 s window could
    fall entirely in that wait; 14 s after a warm-up of at least 2 s always holds the last
    pairs."""
    argv = [
        sys.executable, "-m", "match_bench", "--out", str(tmp_path),
        "--tables", "2", "--max-tables", "48", "--concurrency", "8", "--saturate-to", "16",
        "--warmup", "2",
        "--full-seconds", "14", "--bare-seconds", "1.5",
        "--human-tables", "2", "--human-max-tables", "3", "--human-seconds", "1.5",
        "--group-sync", "5ms", "--idle-tables", "4", "--idle-budget", "5", "--idle-per-game", "3",
        "--settle", "0.5",
        "--no-profile",
        "--loop-rounds", "1", "--loop-tables", "4", "--loop-warmup", "1", "--loop-seconds", "3",
        "--game-warmup", "2", "--game-seconds", "3",
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=480, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    match = LINE.match(last)
    assert match, done.stdout[-3000:]
    assert float(match["ratio"]) >= 0
    # Full speed over the seats' Play streams, then over unary calls on the same stack, both
    # with turns, neither with an error (a refusal of the rules is counted apart).
    unary = json.loads((tmp_path / "bench.json").read_text())["full_speed_unary"]
    assert unary["transport"] == "unary" and unary["turns"] > 0 and unary["errors"] == {}, unary
    assert int(match["unary"]) == round(unary["turns_per_s"])
    assert int(match["unary_cpu"]) == unary["stack_cpu_us_per_turn"]
    assert int(match["tables"]) >= 2
    results = json.loads((tmp_path / "bench.json").read_text())
    full = results["full_speed"]
    assert full["turns"] > 0, done.stdout[-3000:]
    assert 0 < full["mean_in_flight"] <= 8, full  # the closed loop's bound, time-weighted
    assert full["tables"] >= 2  # the feeder may have opened more (at most --max-tables)
    assert full["tables"] <= 48
    assert results["bare_chain"]["turns"] > 0
    assert full["transport"] == "play" and full["errors"] == {}, full
    assert full["tables_failed"] == unary["tables_failed"] == 0, (full, unary)
    # On a stack of its own, full speed at 8 in flight, then twice that (--saturate-to 16): the
    # line's turns_s is its step with the most turns a second, fixed_turns_s the main stack's.
    steps = results["saturation"]
    assert [s["concurrency"] for s in steps] == [8, 16], steps
    assert all(s["turns"] > 0 and s["errors"] == {} for s in steps), steps
    assert 0 < steps[1]["mean_in_flight"] <= 16, steps[1]  # its closed loop's bound
    best = max(steps, key=lambda s: s["turns_per_s"])
    assert int(match["turns_s"]) == round(best["turns_per_s"])
    assert int(match["cpu"]) == best["stack_cpu_us_per_turn"]
    assert int(match["fixed"]) == round(full["turns_per_s"])
    assert int(match["fixed_cpu"]) == full["stack_cpu_us_per_turn"]
    # The p99's tables (--human-tables): what a turn cost there, how busy the machine was (its
    # 1.5 s window may fall before the tables' first board starts: no turn is not a failure).
    there = run.at_tables(results["human_pace"], 2)
    assert there["tables"] == 2, results["human_pace"]
    assert int(match["human"]) == round(there["turns_per_s"])
    cost = there["stack_cpu_us_per_turn"] if there["turns"] else 0
    assert int(match["human_cpu"]) == cost
    assert float(match["human_cores"]) == round(there["cpu_utilisation_cores"], 2)
    # Once more with every seat following its view on its stream, as the apps do: turns, no
    # view refused or broken, and at least the acting seat's own event down for every turn.
    view = results["full_speed_view"]
    assert view["transport"] == "view" and view["turns"] > 0 and view["errors"] == {}, view
    assert view["tables_failed"] == 0 and match["views_failed"] == "0", view
    assert [k for k in view["views_ended"] if k != "ok"] == [], view
    assert int(match["view"]) == round(view["turns_per_s"])
    assert int(match["view_cpu"]) == view["stack_cpu_us_per_turn"] > 0
    assert float(match["view_items"]) == view["view_items_per_turn"] >= 1.0, view
    # The event loops' steps, uvloop then asyncio, each on its own stack; the winner by turns/s
    # runs every stack after (each stack says its loop).
    steps = results["loop_steps"]
    assert [s["loop"] for s in steps] == ["uvloop", "asyncio"], steps
    assert all(s["turns"] > 0 for s in steps), steps
    winner = max(steps, key=lambda s: (s["turns_per_s"], s["loop"] == "uvloop"))["loop"]
    assert match["loop"] == results["summary"]["loop"] == winner
    assert f"event loop: {run.loop_verdict(winner)} (" in done.stdout
    assert "always, uvloop)" in done.stdout and "always, asyncio)" in done.stdout
    # its step, the main stack, the saturation ramp's, the pinned one, the games'
    assert done.stdout.count(f"always, {winner})") == 5
    # Every other game played by script on the real stack: commands accepted, none refused (the
    # scripts' moves are legal), its CPU per command on the line.
    for game in GAMES:
        fig = results["games"][game]
        assert fig["turns"] > 0 and fig["refused"] == {} and fig["errors"] == {}, (game, fig)
        assert fig["tables_failed_to_open"] == 0 and fig["seats_given_up"] == 0, (game, fig)
        assert int(match[f"{game}_cpu"]) == fig["stack_cpu_us_per_turn"] > 0
        assert int(match[f"{game}_cmds"]) == round(fig["turns_per_s"])
    pinned_figures(done.stdout, match, results)
    # Both ramps ran, by table count: the target's step is in each.
    for key in ("human_pace", "human_pace_group"):
        assert 2 in [p["tables"] for p in results[key]], results[key]
    assert results["summary"]["max_tables_50ms"] in [
        0,
        *(p["tables"] for p in results["human_pace"]),
    ]
    # After the ramp, tables open again (at once here: the ramp never overloaded the stack).
    assert isinstance(results["recovered_after_s"], float), results.get("recovered_after_s")
    assert "tables open again" in done.stdout
    # Every other game's idle tables: each opened, each with its memory figure.
    games = results["memory_by_game"]
    assert sorted(games) == [
        "GAME_KIND_CONCENTRATION", "GAME_KIND_MATCH_CARDS", "GAME_KIND_MATCH_FIVE",
        "GAME_KIND_NUMBER_MATCH",
    ], games  # fmt: skip
    assert all(g["tables"] == 3 and isinstance(g["bytes_per_table"], int) for g in games.values())
    assert results["summary_line"] == last
    assert "sync_interval 5ms" in done.stdout
    assert (tmp_path / "bench.png").stat().st_size > 0


def pinned_figures(stdout: str, match: re.Match[str], results: dict[str, Any]) -> None:
    """The stack on one CPU and the load on the other, then the load split over two stacks on a
    CPU each: turns at full speed, the ramps' figures on the line. On one CPU, said skipped."""
    if len(os.sched_getaffinity(0)) < 2:
        assert "pinned: skipped (one CPU here" in stdout and match["pinned_turns"] is None
        return
    pinned, two = results["pinned_full_speed"], results["two_stacks"]
    assert pinned["turns"] > 0 and pinned["errors"] == {}, pinned
    assert int(match["pinned_turns"]) == round(pinned["turns_per_s"])
    assert int(match["pinned_cpu"]) == pinned["stack_cpu_us_per_turn"] > 0
    assert [f["turns"] > 0 and f["errors"] == {} for f in two["full_speed"]["each"]] == [True] * 2
    assert two["full_speed"]["turns"] == sum(f["turns"] for f in two["full_speed"]["each"])
    assert int(match["two_stacks_turns"]) == round(two["full_speed"]["turns_per_s"])
    assert results["pinned_human_pace"] and two["human_pace"], results
    assert "two stacks full" in stdout and "pinned full" in stdout
