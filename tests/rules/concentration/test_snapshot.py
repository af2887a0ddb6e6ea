"""Concentration's view and reply field by field in the states the game tests leave out: a
miss waiting to turn down, a seat the table has no name for, a CPU seat, a draw, the game over
with nobody to play (docs/rules-concentration.md)."""

from __future__ import annotations

from match.v1 import common_pb2, concentration_pb2
from match_rules.concentration import commands as cmd
from match_rules.concentration.game import GAME
from match_rules.game import TableContext
from tests.rules.concentration.helpers import ANN, BOB, PAIRS, Game, T

View = concentration_pb2.ConcentrationView
SEED = bytes(range(32))


def test_a_miss_waiting_to_turn_down_and_a_cpu_seat_with_no_name() -> None:
    """Ann turns cards 1 and 3 (pictures 0 and 1): a miss; Bob is the CPU, unnamed."""
    g = Game.started(cpus=frozenset({BOB}))
    g.flip(T + 100, ANN, 1, 3)
    table = TableContext("t1", 7, T, {ANN: "Ann"}, "c0ffee", SEED)
    view = GAME.snapshot(g.state, ANN, table)
    assert view.turn == ANN and view.turn_down_at_ms == g.state.turn_down_at
    assert view.turn_down_at_ms > T + 100 and view.deadline_ms == 0
    assert list(view.seats) == [
        View.Seat(player=ANN, display_name="Ann", pairs=0, tries=1, cpu=False),
        View.Seat(player=BOB, display_name="", pairs=0, tries=0, cpu=True),
    ]
    assert not view.HasField("seed") and not view.draw and not view.winners


def test_nothing_to_turn_down_shows_zero() -> None:
    g = Game.started()
    g.flip(T + 100, ANN, 1, 2)  # a pair: Ann goes on, nothing waits to turn down
    view = GAME.snapshot(g.state, BOB, TableContext("t1", 7, T, {}, "", None))
    assert [c.card for c in view.cards] == list(range(1, 25))  # the 24 cards, no more
    assert view.turn_down_at_ms == 0 and view.deadline_ms > 0
    assert [(s.pairs, s.tries) for s in view.seats] == [(1, 1), (0, 0)]


def test_a_draw_is_shown_and_nobody_has_the_turn_at_the_end() -> None:
    """Ann and Bob take six pairs each, in turns (a miss passes the turn): a draw."""
    g = Game.started()
    at = T + 100
    for a, b in PAIRS[:6]:
        g.flip(at, ANN, a, b)
    g.flip(at, ANN, PAIRS[6][0], PAIRS[7][0])  # a miss: Bob's turn once they turn down
    at = g.state.turn_down_at or at
    g.when(cmd.Tick(at))
    for a, b in PAIRS[6:]:
        g.flip(at, BOB, a, b)
    view = GAME.snapshot(g.state, ANN, TableContext("t1", 7, at, {}, "", SEED))
    assert view.phase == View.PHASE_GAME_OVER and view.draw and list(view.winners) == [ANN, BOB]
    assert view.turn == "" and view.deadline_ms == 0 and view.turn_down_at_ms == 0
    assert view.seed == SEED


def test_the_reply_is_the_replying_players_view_at_the_time_of_the_reply() -> None:
    g = Game.started()
    events = [
        common_pb2.EventEnvelope(table_id="t-1", event_number=8 + n, concentration=GAME.encode(e))
        for n, e in enumerate(g.flip(T + 100, ANN, 1))
    ]
    reply = GAME.accepted(events, g.state, BOB, T + 250, 9).accepted
    assert list(reply.events) == events
    assert (reply.view.table_id, reply.view.event_number) == ("t-1", 9)
    assert (reply.view.server_time_ms, reply.view.you) == (T + 250, BOB)
    assert reply.view.commitment == "" and reply.view.seats[0].display_name == ""


def test_the_reply_to_one_event_takes_the_table_from_it() -> None:
    g = Game.started()
    flipped = g.flip(T + 100, ANN, 1)[0]
    envelope = common_pb2.EventEnvelope(
        table_id="t-7", event_number=8, concentration=GAME.encode(flipped)
    )
    reply = GAME.accepted([envelope], g.state, ANN, T + 100, 8).accepted
    assert reply.view.table_id == "t-7" and list(reply.events) == [envelope]
