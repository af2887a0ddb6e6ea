"""A pytest plugin for ``make mutation``: a mutant's tests run fastest first, and Hypothesis
reports a failing example without shrinking it.

**Fastest first.**
mutmut runs, for each mutant, the tests that reached its function, with ``-x``: the first test
that fails kills the mutant and ends the run. It hands them to pytest in no particular order, so
a mutant that a 5 ms unit test kills could first sit through seconds of whole games played by
the conformance suite. Sorted by the time each test took in mutmut's clean run (its stats), the
cheapest test that notices the change runs first. A survivor still runs every test; only killed
mutants get cheaper, and they are nearly all of them.

Only a mutant's run is reordered (``MUTANT_UNDER_TEST`` names a mutant): the clean run, the
stats run and the forced failure keep pytest's order. The tests under mutation use no fixtures
wider than a function, so no order costs a set-up twice.

**No shrinking.** When a property fails on a mutant, Hypothesis would go on to look for the
smallest failing example: up to a minute of a worker's time, to tell nobody (a failure is all
that counts). The ``mutation`` profile keeps every setting of the tests' own but skips that
phase, and keeps no example database (workers would write it at once, and a database left by
one mutant would change what the next one is tested with).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import Phase, settings

STATS = Path("mutmut-stats.json")  # in mutmut's working directory (mutants/) when tests run
_durations: dict[str, float] | None = None


def durations() -> dict[str, float]:
    """Each test's time in mutmut's clean run, by node id (read once per process)."""
    global _durations
    if _durations is None:
        try:
            _durations = json.loads(STATS.read_text(encoding="utf-8"))["duration_by_test"]
        except (OSError, ValueError, KeyError):
            _durations = {}
    return _durations


def fastest_first(items: list[pytest.Item], seconds: dict[str, float]) -> None:
    """Sort in place by recorded time; a test with no record goes last, ties keep their order."""
    items.sort(key=lambda item: seconds.get(item.nodeid, math.inf))


def pytest_configure() -> None:
    settings.register_profile(
        "mutation", phases=[Phase.explicit, Phase.reuse, Phase.generate], database=None
    )
    settings.load_profile("mutation")


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture scope
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", ""):
        fastest_first(items, durations())
