"""make mutation's pytest plugin (libs/match_mutation/plugin.py): a mutant's tests run fastest
first, by the times of mutmut's clean run; other runs keep pytest's order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest
from match_mutation import plugin


@dataclass
class Item:
    nodeid: str


def ids(items: list[Any]) -> list[str]:
    return [item.nodeid for item in items]


def test_fastest_first_with_the_unrecorded_last_and_ties_in_their_order() -> None:
    items = [Item("slow"), Item("new"), Item("fast"), Item("tie-a"), Item("tie-b")]
    seconds = {"slow": 3.0, "fast": 0.01, "tie-a": 0.5, "tie-b": 0.5}
    plugin.fastest_first(cast(list[pytest.Item], items), seconds)
    assert ids(items) == ["fast", "tie-a", "tie-b", "slow", "new"]


@pytest.mark.parametrize(
    ("under_test", "order"),
    [
        ("match_rules.race.decide.x_apply__mutmut_3", ["fast", "slow"]),
        ("", ["slow", "fast"]),  # the clean run
        ("stats", ["slow", "fast"]),
        ("fail", ["slow", "fast"]),  # the forced failure
    ],
)
def test_only_a_mutants_run_is_reordered(
    monkeypatch: pytest.MonkeyPatch, under_test: str, order: list[str]
) -> None:
    monkeypatch.setenv("MUTANT_UNDER_TEST", under_test)
    monkeypatch.setattr(plugin, "_durations", {"slow": 2.0, "fast": 0.1})
    items = [Item("slow"), Item("fast")]
    plugin.pytest_collection_modifyitems(cast(list[pytest.Item], items))
    assert ids(items) == order


def test_the_times_come_from_mutmuts_stats_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    (tmp_path / "mutmut-stats.json").write_text('{"duration_by_test": {"t": 0.25}}')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(plugin, "_durations", None)
    assert plugin.durations() == {"t": 0.25}


def test_no_stats_file_means_no_times(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(plugin, "_durations", None)
    assert plugin.durations() == {}
