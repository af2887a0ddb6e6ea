"""``match_bus.service.GcPauses``: each collection's pause, by generation, in the histogram's
buckets, served without a lock (a collection can begin while a scrape holds one)."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry

from match_bus.service import GcPauses


def test_each_pause_falls_in_its_bucket_and_generation() -> None:
    clock = iter([10.0, 10.003, 20.0, 20.3, 30.0, 32.0])
    pauses = GcPauses(lambda: next(clock))
    registry = CollectorRegistry()
    registry.register(pauses)
    for generation in (0, 2, 2):  # 3 ms; 300 ms; 2 s, past every bound
        pauses("start", {"generation": generation})
        pauses("stop", {"generation": generation, "collected": 0, "uncollectable": 0})

    def value(suffix: str, generation: int, le: str | None = None) -> float | None:
        labels = {"generation": str(generation), **({"le": le} if le else {})}
        return registry.get_sample_value(f"match_gc_pause_seconds_{suffix}", labels)

    assert value("bucket", 0, "0.001") == 0
    assert value("bucket", 0, "0.005") == 1
    assert value("count", 0) == 1
    assert value("sum", 0) == pytest.approx(0.003)
    assert value("count", 1) == 0
    assert value("bucket", 2, "0.25") == 0
    assert value("bucket", 2, "0.5") == 1
    assert value("bucket", 2, "1.0") == 1
    assert value("bucket", 2, "+Inf") == 2
    assert value("sum", 2) == pytest.approx(2.3)
