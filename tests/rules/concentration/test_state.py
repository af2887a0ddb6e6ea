"""Concentration's state: what the referee's state holds, and what each event leaves in it.

``decide_steps`` hands the shell the state after every event, and the shell may show a player
any of them: each must be true on its own, not only once the command's last event is folded."""

from __future__ import annotations

import pytest

from match_rules.concentration import commands as cmd
from match_rules.concentration import decide_steps, initial_state, next_deadline, player_view
from match_rules.concentration import events as ev
from match_rules.concentration.decide import CPU_THINK_MS, IDLE_MS, MISS_SHOW_MS, TAKEOVER_MS
from match_rules.concentration.state import ConcentrationState
from match_rules.deal import Strength
from tests.rules.concentration.helpers import ANN, BOB, CARDS, CAT, CPU_SEED, Game, T


def test_the_referees_state_holds_the_deal_it_is_given_and_a_projection_none() -> None:
    state = initial_state(CARDS, CPU_SEED, Strength.STRONG)
    assert (state.cards, state.cpu_seed, state.cpu_strength) == (CARDS, CPU_SEED, Strength.STRONG)
    assert state.face(1) == "p0" and state.face(24) == "p11"
    projection = initial_state()
    assert (projection.cards, projection.cpu_seed) == (None, None)
    with pytest.raises(ValueError) as caught:
        projection.face(1)
    assert str(caught.value) == "this state is a projection of the events: it holds no deal"


def steps(game: Game, command: cmd.Command) -> list[tuple[ev.Event, ConcentrationState]]:
    out = decide_steps(game.state, command)
    game.state = out[-1][1]
    return out


def test_once_a_pair_is_taken_no_flip_is_awaited_until_the_next_turn_begins() -> None:
    g = Game.started()
    g.flip(T + 10, ANN, 1)
    assert g.state.deadline == T + 10 + IDLE_MS
    (taken, after), (began, then) = steps(g, cmd.FlipCard(T + 20, ANN, 2))[1:]
    assert isinstance(taken, ev.PairTaken) and isinstance(began, ev.TurnBegan)
    assert after.deadline is None and player_view(after, ANN).deadline is None
    assert then.deadline == T + 20 + IDLE_MS


def test_while_a_miss_shows_no_flip_is_awaited() -> None:
    g = Game.started()
    g.flip(T + 10, ANN, 1)
    (_, flipped), (missed, after) = steps(g, cmd.FlipCard(T + 20, ANN, 3))
    assert flipped.deadline == T + 10 + IDLE_MS
    assert isinstance(missed, ev.AttemptMissed)
    assert after.deadline is None and after.turn_down_at == T + 20 + MISS_SHOW_MS
    assert player_view(after, BOB).deadline is None
    assert next_deadline(after) == T + 20 + MISS_SHOW_MS


def test_when_time_runs_out_no_flip_is_awaited_until_the_next_turn_begins() -> None:
    g = Game.started()
    g.flip(T + 10, ANN, 1)
    (ran_out, after), (began, then) = steps(g, cmd.Tick(T + 10 + IDLE_MS))
    assert isinstance(ran_out, ev.TimeRanOut) and isinstance(began, ev.TurnBegan)
    assert after.deadline is None and after.up == () and 1 not in after.faces
    assert then.deadline == T + 10 + 2 * IDLE_MS and then.turn == BOB


def test_a_seat_handed_to_the_cpu_off_turn_does_not_move_the_thinking_cpus_clock() -> None:
    """Bob, a CPU, is thinking on his turn when Cat's seat is handed to the CPU: Bob still
    flips CPU_THINK_MS after his turn began, not after the hand-over."""
    g = Game.started(players=(ANN, BOB, CAT), cpus=frozenset({BOB}))
    g.when(cmd.PlayerAway(T + 10, CAT))
    handed = T + 10 + TAKEOVER_MS
    missed = handed - MISS_SHOW_MS - CPU_THINK_MS // 2  # Bob's turn begins before the hand-over
    g.flip(missed, ANN, 1, 3)
    bobs_turn = missed + MISS_SHOW_MS
    assert bobs_turn < handed < bobs_turn + CPU_THINK_MS
    events = g.when(cmd.Tick(bobs_turn + CPU_THINK_MS))
    assert events[:3] == [
        ev.CardsTurnedDown(bobs_turn, (1, 3)),
        ev.TurnBegan(bobs_turn, BOB, bobs_turn + IDLE_MS),
        ev.SeatHandedToCpu(handed, CAT),
    ]
    flipped = events[3]
    assert isinstance(flipped, ev.CardFlipped)
    assert (flipped.at, flipped.player) == (bobs_turn + CPU_THINK_MS, BOB)
