"""What each player may see: their own faces only, others' counts, layouts after the reveal."""

from __future__ import annotations

from functools import reduce

import pytest

from match_rules.race import commands as cmd
from match_rules.race import decide, evolve, initial_state, next_deadline, player_view, redact
from match_rules.race import events as ev
from match_rules.race.state import Phase
from match_rules.race.view import OpponentMoved, Status, TileState
from tests.rules.race.helpers import ANN, BOB, BOT, DEAL, PAIRS_1, Game


def faces(g: Game, player: str) -> dict[int, int | None]:
    return {t.tile: t.symbol for t in player_view(g.state, player).tiles if t.symbol is not None}


def test_a_player_sees_the_faces_they_turned_that_are_up_now() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 2, 3, 5)  # a pair, then a miss
    assert faces(g, ANN) == {1: 0, 2: 0, 3: 1, 5: 2}
    view = player_view(g.state, ANN)
    assert [t.state for t in view.tiles[:5]] == [
        TileState.FOUND,
        TileState.FOUND,
        TileState.SHOWING,
        TileState.DOWN,
        TileState.SHOWING,
    ]


def test_a_face_that_went_back_down_is_never_shown_again() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 3, 5)
    g.turn(g.t0 + 1100, ANN, 7)
    assert faces(g, ANN) == {7: 3}


def test_nobody_sees_another_players_tiles_only_their_counts() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 2, 3)
    assert faces(g, BOB) == {}
    (ann,) = player_view(g.state, BOB).opponents
    assert (ann.player, ann.status, ann.boards) == (ANN, Status.PLAYING, ann.boards)
    assert [(p.board, p.pairs, p.turns) for p in ann.boards] == [(1, 1, 3)]


def test_anothers_private_events_reach_you_as_counts_only() -> None:
    g = Game.playing((ANN, BOT), bots=frozenset({BOT}))
    g.turn(g.t0 + 100, ANN, 1)
    (turned,) = g.log[-1:]
    assert redact(g.state, turned, ANN) is turned
    assert redact(g.state, turned, BOT) == OpponentMoved(g.t0 + 100, 1, ANN, 1, 0, 0)
    (hint,) = g.when(cmd.RequestHint(g.t0 + 200, ANN))
    assert redact(g.state, hint, BOT) == OpponentMoved(g.t0 + 200, 1, ANN, 1, 0, 1)
    public = ev.BoardStarted(g.t0, 1)
    assert redact(g.state, public, BOT) is public


def test_after_the_reveal_the_whole_layout_is_shown_to_everybody() -> None:
    g = Game.playing()
    assert player_view(g.state, BOB).revealed == ()
    g.when(cmd.Tick(g.t0 + 120_000))
    view = player_view(g.state, BOB)
    assert view.revealed == (DEAL[0],)
    assert view.board == 2 and view.phase is Phase.READY and view.status is Status.WAITING
    assert faces(g, BOB) == {}  # board 2 starts face down


def test_the_view_tracks_the_phases_and_statuses() -> None:
    g = Game.started()
    view = player_view(g.state, ANN)
    assert (view.phase, view.status, view.starts_at, view.ends_at) == (
        Phase.READY,
        Status.WAITING,
        None,
        None,
    )
    g.when(cmd.PressReady(g.state.now + 10, ANN))
    assert player_view(g.state, ANN).status is Status.READY
    g.when(cmd.PressReady(g.state.now + 10, BOB))
    view = player_view(g.state, ANN)
    assert (view.phase, view.status) == (Phase.COUNTDOWN, Status.READY)
    assert view.ends_at == view.starts_at + 120_000  # type: ignore[operator]
    t0 = g.t0
    last = g.find_pairs(ANN, PAIRS_1, t0 + 2_000, step=600)
    view = player_view(g.state, BOB)
    assert view.ends_at == last + 20_000
    assert view.opponents[0].status is Status.DONE
    assert player_view(g.state, ANN).outcome is ev.Outcome.CLEARED
    g.when(cmd.Resign(last + 1, BOB))
    view = player_view(g.state, ANN)
    assert view.opponents[0].status is Status.OUT
    assert [(p.board, p.pairs) for p in view.opponents[0].boards] == [(1, 0)]


def test_before_the_game_starts_the_view_is_empty() -> None:
    view = player_view(Game.new().state, ANN)
    assert (view.board, view.phase, view.opponents, view.hints_left) == (
        0,
        Phase.NOT_STARTED,
        (),
        0,
    )
    assert all(t.state is TileState.DOWN for t in view.tiles)


def test_hints_left_are_shown_at_a_table_with_a_bot() -> None:
    g = Game.playing((ANN, BOT), bots=frozenset({BOT}), hints=2)
    assert player_view(g.state, ANN).hints_left == 2
    assert player_view(Game.playing().state, ANN).hints_left == 0


def test_the_standings_are_shown_when_the_game_is_over() -> None:
    g = Game.started()
    g.when(cmd.Tick(g.state.now + 30_000))
    view = player_view(g.state, ANN)
    assert view.phase is Phase.OVER
    assert [s.player for s in view.standings] == [ANN, BOB]


def test_after_the_game_everybodys_counts_for_every_board_are_shown() -> None:
    g = Game.playing()
    for _ in range(3):
        number = g.board
        while g.board == number and g.state.phase is not Phase.OVER:
            nxt = next_deadline(g.state)
            assert nxt is not None
            if g.state.phase is Phase.READY:
                g.when(cmd.PressReady(g.state.now + 1, ANN))
                g.when(cmd.PressReady(g.state.now + 1, BOB))
            else:
                g.when(cmd.Tick(nxt))
    view = player_view(g.state, ANN)
    assert view.phase is Phase.OVER
    assert [p.board for p in view.opponents[0].boards] == [1, 2, 3]
    assert view.revealed == DEAL
    assert faces(g, ANN) == {}


def test_a_projection_folded_from_the_events_alone_gives_every_player_the_same_view() -> None:
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 2, 3, 5)
    g.turn(g.t0 + 200, BOB, 7)
    projection = initial_state()
    for event in g.log:
        projection = evolve(projection, event)
    for player in (ANN, BOB):
        assert player_view(projection, player) == player_view(g.state, player)
    with pytest.raises(ValueError, match="no deal"):  # a projection cannot referee
        decide(projection, cmd.TurnTile(g.t0 + 300, BOB, 9))
    g.when(cmd.Tick(g.t0 + 120_000))
    projection = reduce(evolve, g.log[-3:], projection)
    assert player_view(projection, BOB).revealed == (DEAL[0],)


def test_the_view_is_the_viewers() -> None:
    assert player_view(Game.playing().state, BOB).player == BOB


def test_once_the_game_is_over_a_players_own_tiles_are_down_again() -> None:
    """Ann found two pairs on the last board played; its faces are in the revealed layout."""
    g = Game.playing()
    g.turn(g.t0 + 100, ANN, 1, 2, 3, 4)
    g.when(cmd.Resign(g.t0 + 1_000, ANN))
    g.when(cmd.Resign(g.t0 + 1_100, BOB))
    assert g.state.phase is Phase.OVER
    assert faces(g, ANN) == {}
    assert player_view(g.state, ANN).revealed == (DEAL[0],)
