"""The hint: the place of the partner of the one tile showing, at a table with a bot only."""

from __future__ import annotations

from match_rules.errors import Code
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.errors import RaceCode
from tests.rules.race.helpers import ANN, BOT, Game


def bot_game(hints: int = 3) -> Game:
    return Game.playing((ANN, BOT), bots=frozenset({BOT}), hints=hints)


def test_a_hint_marks_the_place_of_the_partner_of_the_tile_showing() -> None:
    g = bot_game()
    g.turn(g.t0 + 100, ANN, 11)  # board 2 pairs (t, t+10); board 1 pairs (11, 12)
    assert g.when(cmd.RequestHint(g.t0 + 200, ANN)) == [ev.HintGiven(g.t0 + 200, 1, ANN, 11, 12, 1)]


def test_a_hint_is_a_place_not_a_symbol() -> None:
    g = bot_game()
    g.turn(g.t0 + 100, ANN, 11)
    (hint,) = g.when(cmd.RequestHint(g.t0 + 200, ANN))
    assert not hasattr(hint, "symbol")
    assert g.state.board is not None
    assert 12 not in g.state.board.players[ANN].showing  # you still have to turn it over


def test_hints_are_only_given_at_a_table_with_a_bot() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1)
    g.refused(cmd.RequestHint(g.t0 + 200, ANN), RaceCode.HINT_NO_BOT)


def test_a_hint_needs_exactly_one_tile_showing() -> None:
    g = bot_game()
    g.refused(cmd.RequestHint(g.t0 + 100, ANN), RaceCode.HINT_NEEDS_ONE_TILE)
    g.turn(g.t0 + 200, ANN, 1, 3)  # a miss: two showing
    g.refused(cmd.RequestHint(g.t0 + 300, ANN), RaceCode.HINT_NEEDS_ONE_TILE)


def test_a_hint_before_the_board_starts_is_refused() -> None:
    g = Game.started((ANN, BOT), bots=frozenset({BOT}))
    g.refused(cmd.RequestHint(g.state.now + 1, ANN), RaceCode.BOARD_NOT_STARTED)


def test_hints_per_board_are_limited_by_the_tables_setting() -> None:
    g = bot_game(hints=1)
    g.turn(g.t0 + 100, ANN, 1)
    g.when(cmd.RequestHint(g.t0 + 200, ANN))
    g.turn(g.t0 + 300, ANN, 2, 3)
    error = g.refused(cmd.RequestHint(g.t0 + 400, ANN), Code.HINT_LIMIT_REACHED)
    assert "1 hints" in error.message
    g0 = bot_game(hints=0)
    g0.turn(g0.t0 + 100, ANN, 1)
    g0.refused(cmd.RequestHint(g0.t0 + 200, ANN), Code.HINT_LIMIT_REACHED)


def test_every_hint_is_recorded_and_shown_in_the_results() -> None:
    g = bot_game()
    g.turn(g.t0 + 100, ANN, 1)
    g.when(cmd.RequestHint(g.t0 + 200, ANN))
    g.turn(g.t0 + 300, ANN, 2, 3)
    g.when(cmd.RequestHint(g.t0 + 400, ANN))
    g.when(cmd.Tick(g.t0 + 120_000))
    ann = g.of(ev.BoardRevealed)[0].results[0]
    assert (ann.player, ann.hints) == (ANN, 2)
