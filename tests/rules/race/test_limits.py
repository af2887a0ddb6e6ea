"""Each limit of the race from both sides, where a changed number went unnoticed before: the
fastest honest clear (12 000 ms, not 11 999), at most 10 hints a board, 3 when none is given."""

from __future__ import annotations

import pytest

from match.v1 import race_pb2
from match_rules.errors import Code, RuleError
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.errors import RaceCode
from match_rules.race.game import GAME
from tests.rules.race.helpers import ANN, BOB, OPENED, PAIRS_1, WINDOW, Game


def test_a_clear_one_ms_under_twelve_seconds_is_disqualified() -> None:
    g = Game.playing()
    last = g.find_pairs(ANN, PAIRS_1, g.t0 + 2_499, step=500)
    assert last - g.t0 == 11_999
    assert g.log[-1] == ev.ClearDisqualified(last, 1, ANN, 11_999)
    assert not g.of(ev.BoardCleared)


@pytest.mark.parametrize("hints", [0, 10])
def test_ten_hints_a_board_are_allowed(hints: int) -> None:
    settings = GAME.settings(race_pb2.RaceSettings(hints_per_board=hints))
    assert settings.hints_per_board == hints
    g = Game.new()
    g.when(cmd.StartGame(OPENED, (ANN, BOB), frozenset({BOB}), WINDOW, hints, "test-deal"))
    assert g.state.hints_per_board == hints


def test_eleven_hints_a_board_are_refused() -> None:
    with pytest.raises(RuleError) as refused:
        GAME.settings(race_pb2.RaceSettings(hints_per_board=11))
    assert refused.value.code is RaceCode.INVALID_HINTS
    g = Game.new()
    g.refused(
        cmd.StartGame(OPENED, (ANN, BOB), frozenset({BOB}), WINDOW, 11, "test-deal"),
        Code.INVALID_SETUP,
    )


def test_a_table_that_names_no_hints_gets_three() -> None:
    assert GAME.settings(race_pb2.RaceSettings()).hints_per_board == 3
    assert GAME.settings(None).hints_per_board == 3
    assert GAME.settings(race_pb2.RaceSettings(hints_per_board=0)).hints_per_board == 0
