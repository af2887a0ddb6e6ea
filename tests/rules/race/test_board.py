"""The board: 20 tiles, ten pairs, turns, the pause, what counts as a turn."""

from __future__ import annotations

import pytest

from match_rules.errors import Code
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race import initial_state
from match_rules.race.errors import RaceCode
from tests.rules.race.helpers import ANN, BOARD_1, BOB, DEAL, Game


def test_a_board_is_twenty_tiles_holding_ten_symbols_twice_each() -> None:
    with pytest.raises(ValueError, match="3 boards"):
        initial_state(DEAL[:2])
    with pytest.raises(ValueError, match="20"):
        initial_state((BOARD_1[:19], DEAL[1], DEAL[2]))
    with pytest.raises(ValueError, match="twice"):
        initial_state(((0,) * 20, DEAL[1], DEAL[2]))
    with pytest.raises(ValueError, match="outside"):
        initial_state((tuple(s + 20 for s in BOARD_1), DEAL[1], DEAL[2]))


def test_turning_a_tile_shows_its_symbol_and_counts_a_turn() -> None:
    g = Game.playing()
    assert g.turn(g.t0, ANN, 5) == [ev.TileTurned(g.t0, 1, ANN, 5, BOARD_1[4], 1)]


def test_two_tiles_with_the_same_symbol_are_a_pair_and_stay_up() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 3)
    assert g.turn(g.t0 + 200, ANN, 4) == [
        ev.TileTurned(g.t0 + 200, 1, ANN, 4, 1, 2),
        ev.PairFound(g.t0 + 200, 1, ANN, (3, 4), 1, 1),
    ]
    assert g.state.board is not None
    assert g.state.board.players[ANN].found == {3, 4}
    g.turn(g.t0 + 300, ANN, 1, 2)  # the pair stays up through later turns
    assert g.state.board.players[ANN].found == {1, 2, 3, 4}


def test_a_miss_stays_showing_until_the_next_turn() -> None:
    g = Game.playing()
    events = g.turn(g.t0 + 100, ANN, 1, 3)
    assert events[-1] == ev.AttemptMissed(g.t0 + 100, 1, ANN, (1, 3), g.t0 + 1100)
    assert g.state.board is not None
    assert g.state.board.players[ANN].showing == (1, 3)


def test_the_next_turn_after_a_miss_turns_both_back_down_first() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 3)
    assert g.turn(g.t0 + 1100, ANN, 5) == [
        ev.TilesTurnedDown(g.t0 + 1100, 1, ANN, (1, 3)),
        ev.TileTurned(g.t0 + 1100, 1, ANN, 5, BOARD_1[4], 3),
    ]


def test_after_a_miss_the_board_pauses_for_one_second() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 3)
    error = g.refused(cmd.TurnTile(g.t0 + 1099, ANN, 5), Code.PAUSED)
    assert "1 ms" in error.message
    assert g.turn(g.t0 + 1100, ANN, 5)  # exactly a second later it takes a turn again


def test_the_pause_is_the_missing_players_own() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 3)
    assert g.turn(g.t0 + 200, BOB, 1) == [ev.TileTurned(g.t0 + 200, 1, BOB, 1, 0, 1)]


def test_a_tile_that_is_face_up_is_refused() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1)
    g.refused(cmd.TurnTile(g.t0 + 150, ANN, 1), RaceCode.TILE_FACE_UP)  # showing, first of two
    g.turn(g.t0 + 200, ANN, 2)
    g.refused(cmd.TurnTile(g.t0 + 250, ANN, 2), RaceCode.TILE_FACE_UP)  # found
    g.turn(g.t0 + 300, ANN, 3, 5)
    g.refused(
        cmd.TurnTile(g.t0 + 1400, ANN, 5), RaceCode.TILE_FACE_UP
    )  # still showing after a miss


@pytest.mark.parametrize("tile", [0, 21, -1, 1000])
def test_a_tile_outside_one_to_twenty_is_refused(tile: int) -> None:
    g = Game.playing()
    error = g.refused(cmd.TurnTile(g.t0 + 100, ANN, tile), RaceCode.TILE_OUT_OF_RANGE)
    assert "1 to 20" in error.message


def test_a_refused_turn_is_not_counted() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 3)
    g.refused(cmd.TurnTile(g.t0 + 200, ANN, 5), Code.PAUSED)
    g.refused(cmd.TurnTile(g.t0 + 1200, ANN, 21), RaceCode.TILE_OUT_OF_RANGE)
    assert g.turn(g.t0 + 1300, ANN, 7)[-1] == ev.TileTurned(g.t0 + 1300, 1, ANN, 7, 3, 3)


def test_everybody_gets_the_same_tiles_in_the_same_places() -> None:
    for tile in range(1, 21):
        g = Game.playing()
        a = g.turn(g.t0 + 10, ANN, tile)[-1]
        b = g.turn(g.t0 + 20, BOB, tile)[-1]
        assert isinstance(a, ev.TileTurned) and isinstance(b, ev.TileTurned)
        assert a.symbol == b.symbol == BOARD_1[tile - 1]


def test_nobody_turns_another_players_tiles() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 2)
    assert g.state.board is not None
    bob = g.state.board.players[BOB]
    assert bob.found == frozenset() and bob.turns == 0 and bob.showing == ()
    assert g.turn(g.t0 + 200, BOB, 1)  # the same tile is still down on Bob's own board


def test_a_turn_by_someone_not_seated_is_refused() -> None:
    g = Game.playing()
    g.refused(cmd.TurnTile(g.t0 + 100, "mallory", 1), Code.NOT_SEATED)


def test_time_never_runs_backwards() -> None:
    g = Game.playing()
    g.turn(g.t0 + 500, ANN, 1)
    g.refused(cmd.TurnTile(g.t0 + 400, BOB, 1), Code.STALE_TIME)
    assert g.when(cmd.Tick(g.t0 + 400)) == []  # a late tick is simply nothing to do
