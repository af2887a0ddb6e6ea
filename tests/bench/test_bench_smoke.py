"""A tiny `make bench` (2 tables, a few seconds): the same code paths, and its summary line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

LINE = re.compile(
    r"^bench: ratio=(?P<ratio>[0-9.]+) p99_ms=(?P<p99>[0-9.]+|nan) "
    r"tables=(?P<tables>\d+) bytes_per_table=(?P<bytes>-?\d+)$"
)


def test_a_tiny_bench_prints_its_summary_line(tmp_path: Path) -> None:
    argv = [
        sys.executable, "-m", "match_bench", "--out", str(tmp_path),
        "--tables", "2", "--warmup", "2.5", "--full-seconds", "3", "--bare-seconds", "1.5",
        "--human-tables", "2", "--human-seconds", "1.5", "--idle-tables", "4",
        "--idle-budget", "5", "--settle", "0.5", "--no-profile",
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    match = LINE.match(last)
    assert match, last
    assert float(match["ratio"]) >= 0
    assert int(match["tables"]) >= 2
    results = json.loads((tmp_path / "bench.json").read_text())
    assert results["full_speed"]["turns"] > 0
    assert results["bare_chain"]["turns"] > 0
    assert results["summary_line"] == last
    assert (tmp_path / "bench.png").stat().st_size > 0
