"""A tiny `make bench` (a few tables, a few seconds, both stacks): the same code paths, and its
summary line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack  # python -m match_bench starts a whole stack

LINE = re.compile(
    r"^bench: ratio=(?P<ratio>[0-9.]+) in_flight=(?P<in_flight>\d+) "
    r"p99_ms=(?P<p99>[0-9.]+|nan) max_tables_50ms=(?P<max_tables>\d+) "
    r"tables=(?P<tables>\d+) bytes_per_table=(?P<bytes>-?\d+)$"
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
        "--tables", "2", "--max-tables", "48", "--concurrency", "8", "--warmup", "2",
        "--full-seconds", "14", "--bare-seconds", "1.5",
        "--human-tables", "2", "--human-max-tables", "3", "--human-seconds", "1.5",
        "--group-sync", "5ms", "--idle-tables", "4", "--idle-budget", "5", "--idle-per-game", "3",
        "--settle", "0.5",
        "--no-profile",
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    match = LINE.match(last)
    assert match, done.stdout[-3000:]
    assert float(match["ratio"]) >= 0
    assert int(match["tables"]) >= 2
    results = json.loads((tmp_path / "bench.json").read_text())
    full = results["full_speed"]
    assert full["turns"] > 0, done.stdout[-3000:]
    assert 0 < full["mean_in_flight"] <= 8, full  # the closed loop's bound, time-weighted
    assert full["tables"] >= 2  # the feeder may have opened more (at most --max-tables)
    assert full["tables"] <= 48
    assert results["bare_chain"]["turns"] > 0
    # The same closed loop again with the services on asyncio's own loop (they run on uvloop
    # by default), in the same run; each stack says its loop.
    assert results["full_speed_asyncio"]["turns"] > 0, done.stdout[-3000:]
    assert "event loop: uvloop ratio=" in done.stdout and "(asyncio: ratio=" in done.stdout
    assert "always, uvloop)" in done.stdout and "always, asyncio)" in done.stdout
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
