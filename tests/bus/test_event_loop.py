"""``MATCH_EVENT_LOOP``: a service runs on uvloop (the default) or on asyncio's own loop, and
refuses any other name before it starts. (A whole stack on each loop plays in
tests/bench/test_bench_smoke.py; every other stack in the suite runs on the default.)"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from match_bus.service import BaseConfig, run_loop
from tests.refused import refused_at_start

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("name", "module"), [("asyncio", "asyncio"), ("uvloop", "uvloop")])
def test_each_loop_runs_the_service(name: str, module: str) -> None:
    seen: list[str] = []

    async def main() -> None:
        seen.append(type(asyncio.get_running_loop()).__module__.split(".")[0])

    run_loop(name, main())
    assert seen == [module]


def test_the_loop_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATCH_EVENT_LOOP", raising=False)
    assert BaseConfig.from_env(default_metrics_port=0).event_loop == "uvloop"
    monkeypatch.setenv("MATCH_EVENT_LOOP", "asyncio")
    assert BaseConfig.from_env(default_metrics_port=0).event_loop == "asyncio"
    monkeypatch.setenv("MATCH_EVENT_LOOP", " ")
    assert BaseConfig.from_env(default_metrics_port=0).event_loop == "uvloop"


@pytest.mark.parametrize("service", ["dealer", "bot"])
def test_another_loop_is_refused_before_the_service_starts(tmp_path: Path, service: str) -> None:
    key = tmp_path / "bot.key"  # the bot needs its key before it reads anything else
    key.write_text("k" * 32)
    key.chmod(0o600)
    settings = {"MATCH_EVENT_LOOP": "trio", "MATCH_BOT_KEY_FILE": str(key)}
    said = refused_at_start(service, settings)
    assert "MATCH_EVENT_LOOP must be asyncio or uvloop, not 'trio'" in said


def test_a_service_freezes_start_up_collects_young_objects_less_often_and_times_each() -> None:
    # In a process of its own: the collector's settings are the whole process's.
    check = (
        "import gc\n"
        "from match_bus.service import GC_YOUNG_THRESHOLD, tune_gc\n"
        "before = gc.get_threshold()\n"
        "assert before[0] == 700 and gc.get_freeze_count() == 0, before\n"
        "tune_gc()\n"
        "assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, *before[1:]), gc.get_threshold()\n"
        "assert gc.get_freeze_count() > 1000, gc.get_freeze_count()\n"
        "print('tuned', GC_YOUNG_THRESHOLD)\n"
    )
    # Each collection's pause is measured, once however often the collector is tuned.
    check += (
        "from prometheus_client import REGISTRY\n"
        "tune_gc()\n"
        "def paused(g): return REGISTRY.get_sample_value("
        "'match_gc_pause_seconds_count', {'generation': str(g)})\n"
        "before = [paused(g) for g in range(3)]\n"
        "gc.collect(0); gc.collect(2); gc.collect(2)\n"
        "print('paused', [int(paused(g) - b) for g, b in zip(range(3), before)])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["tuned 20000", "paused [1, 0, 2]"]
