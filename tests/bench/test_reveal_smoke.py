"""A tiny `make bench-reveal`: both ways read every table as over, and its line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack  # python -m match_bench starts a whole stack

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(
    r"^bench-reveal: tables=3 records=6 one_by_one_ms=[0-9.]+ batched_ms=[0-9.]+ "
    r"speedup=([0-9.]+|inf) cpu_speedup=([0-9.]+|inf)$"
)


def test_a_tiny_bench_reveal_prints_its_line(tmp_path: Path) -> None:
    argv = [
        sys.executable, "-m", "match_bench.reveal", "--out", str(tmp_path),
        "--tables", "3", "--records", "6", "--rounds", "2",
    ]  # fmt: skip
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert LINE.match(done.stdout.strip().splitlines()[-1]), done.stdout
    rounds = json.loads((tmp_path / "bench-reveal.json").read_text())
    assert [len(rounds["one_by_one"]), len(rounds["batched"])] == [2, 2]
