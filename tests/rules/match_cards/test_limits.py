"""The limits table comes out of the measurement (match_rules.match_cards.limits)."""

from __future__ import annotations

import random
from random import Random

import pytest

from match_rules.match_cards import limits
from match_rules.match_cards.deal import deal
from match_rules.match_cards.settings import LIMITS, Mode, Settings


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
    # over the published sample: the 1,800th of 2,000 values, and the 1,980th
    sample = list(range(1, limits.SAMPLE + 1))
    assert limits.percentile(sample, limits.PERCENTILE) == 1_800
    assert limits.percentile(sample, limits.PERFECT_PERCENTILE) == 1_980


def test_the_players_failed_attempts_on_the_first_deals_are_pinned() -> None:
    """The measurement is a derivation: its figures on the first deals are pinned, so that a
    change to the player (the bot's policy) or to the counting shows here at once, not only in
    the slow full-sample test above. A perfect memory fails less than a forgetful one."""

    def failed(mode: Mode, keep: float) -> list[int]:
        settings = Settings(mode, 12)
        boards = [deal(n.to_bytes(32, "big"), settings).cards for n in range(8)]
        return [limits.play(b, settings.group, keep, Random(n)) for n, b in enumerate(boards)]

    assert failed(Mode.PAIRS, 1.0) == [3, 3, 3, 3, 2, 4, 3, 3]
    assert failed(Mode.PAIRS, limits.FORGETFUL_KEEP) == [4, 10, 13, 5, 8, 8, 9, 6]
    assert failed(Mode.TRIPLES, 1.0) == [3, 4, 4, 3, 2, 3, 3, 4]
    # the perfect player's 99th and the forgetful one's 90th percentile over three deals,
    # each size on boards of its own size
    assert limits.measure(Mode.PAIRS, 12, 3) == (3, 13)
    assert limits.measure(Mode.PAIRS, 20, 3) == (6, 28)
    assert limits.measure(Mode.TRIPLES, 18, 3) == (5, 20)


def test_the_rule_by_hand() -> None:
    # m = max(perfect, forgetful); Hard m + 1, Easy 2 m, Medium halfway rounded up
    assert limits.rule(10, 9) == (20, 16, 11)
    assert limits.rule(3, 7) == (14, 11, 8)
    assert limits.rule(5, 5) == (10, 8, 6)


def test_the_script_prints_the_table_and_says_whether_settings_holds_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    small = limits.table(3)
    assert set(small) == set(LIMITS) and small != LIMITS  # three deals are not 2,000
    assert limits.main(["--sample", "3"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "mode     cards  Easy  Medium  Hard"
    assert out[1] == "pairs       12    26      20    14"
    assert len(out) == 2 + len(LIMITS) and out[-1] == "settings.LIMITS differs"
    monkeypatch.setattr(limits, "LIMITS", small)
    assert limits.main(["--sample", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "settings.LIMITS matches"


def test_only_sample_n_changes_the_number_of_deals_the_script_measures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--sample N`` measures N deals of each size; no argument, or any other, the published
    SAMPLE."""
    asked: list[int] = []

    def table(sample: int = limits.SAMPLE) -> dict[tuple[Mode, int], tuple[int, int, int]]:
        asked.append(sample)
        return LIMITS

    monkeypatch.setattr(limits, "table", table)
    assert limits.main() == 0
    assert limits.main(["--sample", "7"]) == 0
    assert limits.main(["--deals", "7"]) == 0
    assert limits.main(["--sample"]) == 0
    assert asked == [limits.SAMPLE, 7, limits.SAMPLE, limits.SAMPLE]
    assert capsys.readouterr().out.count("settings.LIMITS matches") == 4
