"""What a Concentration player sees: the table as it is, the same for everybody."""

from __future__ import annotations

import pytest

from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration import initial_state, player_view, redact
from match_rules.concentration.decide import MISS_SHOW_MS, TAKEOVER_MS
from match_rules.concentration.state import ConcentrationState, Phase, evolve
from match_rules.concentration.view import CardState, CardView, SeatView
from tests.rules.concentration.helpers import ANN, BOB, PAIRS, SMALL, Game, T


def test_the_view_shows_faces_up_and_taken_never_a_face_down() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 2)  # taken
    g.flip(T, ANN, 3, 5)  # a miss, showing
    view = player_view(g.state, BOB)
    assert view.cards[0] == CardView(1, CardState.TAKEN, "p0", ANN)
    assert view.cards[2] == CardView(3, CardState.UP, "p1")
    assert view.cards[3] == CardView(4, CardState.DOWN, None)
    assert view.turn_down_at == T + MISS_SHOW_MS
    g.when(cmd.Tick(T + MISS_SHOW_MS))
    again = player_view(g.state, BOB)
    assert again.cards[2] == CardView(3, CardState.DOWN, None)  # seen once, face down now
    assert again.seats == (SeatView(ANN, 1, 2, False), SeatView(BOB, 0, 0, False))
    assert again.turn == BOB and again.you == BOB and again.phase is Phase.PLAYING


def test_every_event_is_public_and_names_only_flipped_faces() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 2)
    g.flip(T, ANN, 3, 5)
    flipped = {e.card for e in g.log if isinstance(e, ev.CardFlipped)}
    for event in g.log:
        assert redact(event, BOB) is event
        if isinstance(event, ev.CardFlipped):
            assert event.card in flipped


def test_a_projection_without_the_deal_sees_the_same_and_cannot_deal() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 2)
    projection = initial_state()
    for event in g.log:
        projection = evolve(projection, event)
    assert player_view(projection, ANN) == player_view(g.state, ANN)
    with pytest.raises(ValueError, match="no deal"):
        projection.face(1)
    assert player_view(ConcentrationState(cards=None), ANN).cards == ()


def test_the_view_at_the_end_carries_the_standings() -> None:
    g = Game.started(players=(ANN,))
    for a, b in PAIRS:
        g.flip(T, ANN, a, b)
    view = player_view(g.state, ANN)
    assert view.phase is Phase.OVER and view.winners == (ANN,) and not view.draw
    assert view.standings == (ev.Standing(ANN, 1, 12, 12),)


def test_a_dropped_seat_shows_when_the_cpu_takes_it_to_everybody() -> None:
    g = Game.started()
    g.when(cmd.PlayerAway(T + 5, BOB))
    seats = player_view(g.state, ANN).seats
    assert seats[1].takeover_at == T + 5 + TAKEOVER_MS and seats[0].takeover_at is None


def test_settings_used_here_are_valid() -> None:
    assert SMALL.deck_size == 24 and SMALL.pairs == 12
