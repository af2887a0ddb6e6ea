"""Which games `make chaos` plays (match_chaos.run.Options) and how ``--kinds`` is read."""

from __future__ import annotations

import argparse
from collections import Counter

import pytest

from match_chaos.__main__ import kinds
from match_chaos.run import KINDS, Options


def test_every_game_is_played_as_often_as_the_others_and_match_cards_alternates() -> None:
    opts = Options()
    played = [opts.game_of(i) for i in range(opts.games)]
    assert Counter(played) == dict.fromkeys(KINDS, 5)
    cards = [i for i in range(4 * opts.games) if opts.game_of(i) == "match-cards"]
    assert [opts.challenge(i) for i in cards[:6]] == [False, True] * 3
    # Beyond --games (while the faults are not done): the same turn again.
    assert [opts.game_of(i) for i in range(25, 30)] == list(KINDS)
    two = Options(kinds=("race", "match-5"))
    assert [two.game_of(i) for i in range(4)] == ["race", "match-5", "race", "match-5"]


def test_kinds_are_read_from_a_comma_list_and_an_unknown_one_is_refused() -> None:
    assert kinds("race, match-5") == ("race", "match-5")
    with pytest.raises(argparse.ArgumentTypeError, match="not a game: chess; the games are race"):
        kinds("race,chess")
    with pytest.raises(argparse.ArgumentTypeError, match="none named"):
        kinds(",")
