"""The limits table comes out of the measurement (match_rules.match_cards.limits)."""

from __future__ import annotations

import random

from match_rules.match_cards import limits
from match_rules.match_cards.settings import LIMITS, Mode


def test_a_perfect_memory_player_fails_only_while_exploring() -> None:
    cards = ["a", "b", "a", "b"]
    assert limits.play(cards, 2, 1.0, random.Random(0)) <= 1
    assert limits.play(["a", "a", "a"], 3, 1.0, random.Random(0)) == 0


def test_the_rule_gives_the_seeds_two_values_for_12_cards_in_pairs() -> None:
    measured = limits.measure(Mode.PAIRS, 12, limits.SAMPLE)
    assert limits.rule(*measured) == LIMITS[(Mode.PAIRS, 12)] == (20, 16, 11)


def test_percentile_is_the_nearest_rank() -> None:
    assert limits.percentile(list(range(1, 11)), 90) == 9
    assert limits.percentile([5], 99) == 5


def test_the_script_prints_the_table_and_compares_it(capsys: object) -> None:
    assert limits.main(["--sample", "3"]) in (0, 1)
    full = limits.table(3)
    assert set(full) == set(LIMITS)
