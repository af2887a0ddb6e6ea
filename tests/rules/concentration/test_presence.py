"""Dropping and coming back: the lobby reports connections, the rules decide what they mean."""

from __future__ import annotations

from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration import next_deadline
from match_rules.concentration.decide import CPU_THINK_MS, IDLE_MS, TAKEOVER_MS
from match_rules.concentration.errors import ConcentrationCode
from match_rules.errors import Code
from tests.rules.concentration.helpers import ANN, BOB, CAT, PAIRS, Game, T


def test_a_dropped_player_who_returns_in_time_keeps_the_seat() -> None:
    g = Game.started()
    assert g.when(cmd.PlayerAway(T + 10, BOB)) == [
        ev.PlayerDropped(T + 10, BOB, T + 10 + TAKEOVER_MS)
    ]
    assert next_deadline(g.state) == T + 10 + TAKEOVER_MS
    assert g.when(cmd.PlayerBack(T + 20, BOB)) == [ev.PlayerReturned(T + 20, BOB)]
    assert next_deadline(g.state) == T + IDLE_MS  # only Ann's turn's wait
    assert g.when(cmd.Tick(T + 10 + TAKEOVER_MS)) == []
    assert BOB not in g.state.cpus and not g.state.dropped


def test_a_player_who_does_not_return_in_time_is_handed_to_the_cpu_which_plays_on() -> None:
    g = Game.started()
    g.when(cmd.PlayerAway(T + 10, ANN))  # Ann's turn
    takeover = T + 10 + TAKEOVER_MS
    assert g.when(cmd.Tick(takeover))[0] == ev.SeatHandedToCpu(takeover, ANN)
    assert ANN in g.state.cpus and not g.state.dropped
    g.refused(cmd.FlipCard(takeover + 1, ANN, 1), ConcentrationCode.SEAT_PLAYED_BY_CPU)
    events = g.when(cmd.Tick(takeover + CPU_THINK_MS))
    assert isinstance(events[0], ev.CardFlipped) and events[0].player == ANN
    assert g.when(cmd.PlayerBack(takeover + CPU_THINK_MS, ANN)) == []  # too late: the CPU's


def test_coming_back_after_the_takeover_time_is_judged_after_the_takeover() -> None:
    g = Game.started()
    g.when(cmd.PlayerAway(T, BOB))
    events = g.when(cmd.PlayerBack(T + TAKEOVER_MS, BOB))
    assert events == [ev.SeatHandedToCpu(T + TAKEOVER_MS, BOB)]


def test_presence_of_a_cpu_seat_a_stranger_or_outside_the_game_is_nothing() -> None:
    g = Game.new()
    assert g.when(cmd.PlayerAway(T, ANN)) == []  # before the game
    g = Game.started(players=(ANN, BOB), cpus=frozenset({BOB}))
    assert g.when(cmd.PlayerAway(T, BOB)) == []  # the CPU's seat
    assert g.when(cmd.PlayerAway(T, CAT)) == []  # no seat
    assert g.when(cmd.PlayerBack(T, ANN)) == []  # never dropped
    assert g.when(cmd.PlayerAway(T, ANN))
    assert g.when(cmd.PlayerAway(T + 5, ANN)) == []  # dropped already: counts from the first
    assert g.state.dropped == {ANN: T + TAKEOVER_MS}
    solo = Game.started(players=(ANN,))
    for a, b in PAIRS:
        solo.flip(T, ANN, a, b)
    assert solo.when(cmd.PlayerAway(T + 1, ANN)) == []  # after the game
    assert solo.when(cmd.PlayerBack(T + 1, ANN)) == []


def test_a_solo_player_who_drops_finds_the_board_as_they_left_it() -> None:
    g = Game.started(players=(ANN,))
    g.flip(T, ANN, 1, 2)
    assert g.when(cmd.PlayerAway(T + 5, ANN)) == []
    assert next_deadline(g.state) is None
    assert g.when(cmd.Tick(T + 3_600_000)) == []
    assert g.when(cmd.PlayerBack(T + 3_600_000, ANN)) == []
    assert g.flip(T + 3_600_000, ANN, 3)


def test_the_game_ending_forgets_who_dropped() -> None:
    g = Game.started()
    g.when(cmd.PlayerAway(T, BOB))
    for a, b in PAIRS:
        g.flip(T + 1, ANN, a, b)
    assert isinstance(g.log[-1], ev.GameEnded)
    assert not g.state.dropped and next_deadline(g.state) is None


def test_two_drops_at_once_hand_both_seats_in_seat_order() -> None:
    g = Game.started(players=(ANN, CAT, BOB))
    g.when(cmd.PlayerAway(T, BOB))
    g.when(cmd.PlayerAway(T, CAT))
    assert g.when(cmd.Tick(T + TAKEOVER_MS)) == [
        ev.SeatHandedToCpu(T + TAKEOVER_MS, CAT),
        ev.SeatHandedToCpu(T + TAKEOVER_MS, BOB),
    ]


def test_a_presence_stamped_before_the_last_event_is_refused_as_stale() -> None:
    g = Game.started()
    g.flip(T + 100, ANN, 1)
    g.refused(cmd.PlayerAway(T + 99, BOB), Code.STALE_TIME)
