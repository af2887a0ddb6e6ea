"""The race: Ready, the countdown, the clear, the grace, the cap, 80 turns, resigning."""

from __future__ import annotations

from match_rules.errors import Code
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race import is_terminal, next_deadline
from match_rules.race.errors import RaceCode
from match_rules.race.state import Phase
from tests.rules.race.helpers import ANN, BOB, CAT, OPENED, PAIRS_1, WINDOW, Game


def test_starting_the_game_opens_ready_for_board_one_with_its_deadline() -> None:
    g = Game.new()
    events = g.when(cmd.StartGame(OPENED, (ANN, BOB), frozenset(), WINDOW, 3, "v"))
    assert events == [
        ev.GameStarted(OPENED, (ANN, BOB), frozenset(), WINDOW, 3, "v"),
        ev.ReadyOpened(OPENED, 1, OPENED + WINDOW),
    ]
    assert next_deadline(g.state) == OPENED + WINDOW


def test_a_game_starts_once() -> None:
    g = Game.started()
    g.refused(
        cmd.StartGame(OPENED + 1, (ANN, BOB), frozenset(), WINDOW, 3, "v"),
        Code.GAME_ALREADY_STARTED,
    )


def test_a_bad_setup_is_refused() -> None:
    g = Game.new()
    for players, bots, window, hints in [
        ((ANN,), frozenset(), WINDOW, 3),  # one seat
        ((ANN, BOB, CAT, "d", "e"), frozenset(), WINDOW, 3),  # five seats
        ((ANN, ANN), frozenset(), WINDOW, 3),  # the same player twice
        ((ANN, ""), frozenset(), WINDOW, 3),  # an empty id
        ((ANN, BOB), frozenset({CAT}), WINDOW, 3),  # a bot without a seat
        ((ANN, BOB), frozenset(), 9_999, 3),  # Ready deadline too short
        ((ANN, BOB), frozenset(), 120_001, 3),  # too long
        ((ANN, BOB), frozenset(), WINDOW, 11),  # too many hints
        ((ANN, BOB), frozenset(), WINDOW, -1),
    ]:
        g.refused(cmd.StartGame(OPENED, players, bots, window, hints, "v"), Code.INVALID_SETUP)


def test_nothing_but_the_start_is_taken_before_the_game_starts() -> None:
    g = Game.new()
    g.refused(cmd.PressReady(OPENED, ANN), Code.GAME_NOT_STARTED)
    g.refused(cmd.TurnTile(OPENED, ANN, 1), Code.GAME_NOT_STARTED)
    assert g.when(cmd.Tick(OPENED)) == []
    assert next_deadline(g.state) is None


def test_the_countdown_starts_when_the_last_player_presses_ready() -> None:
    g = Game.started()
    assert g.when(cmd.PressReady(OPENED + 100, ANN)) == [ev.PlayerReady(OPENED + 100, 1, ANN)]
    assert g.when(cmd.PressReady(OPENED + 900, BOB)) == [
        ev.PlayerReady(OPENED + 900, 1, BOB),
        ev.CountdownStarted(OPENED + 900, 1, OPENED + 3900),
    ]


def test_every_board_becomes_turnable_three_seconds_after_the_last_ready() -> None:
    g = Game.started()
    g.when(cmd.PressReady(OPENED + 100, ANN))
    g.when(cmd.PressReady(OPENED + 900, BOB))
    g.refused(cmd.TurnTile(OPENED + 3899, ANN, 1), RaceCode.BOARD_NOT_STARTED)
    assert next_deadline(g.state) == OPENED + 3900
    assert g.turn(OPENED + 3900, BOB, 1) == [
        ev.BoardStarted(OPENED + 3900, 1),
        ev.TileTurned(OPENED + 3900, 1, BOB, 1, 0, 1),
    ]
    assert g.turn(OPENED + 3900, ANN, 1)[-1].at == OPENED + 3900  # the same instant for all


def test_a_turn_before_ready_is_refused() -> None:
    g = Game.started()
    error = g.refused(cmd.TurnTile(OPENED + 100, ANN, 1), RaceCode.BOARD_NOT_STARTED)
    assert "Ready" in error.message


def test_a_second_ready_is_refused() -> None:
    g = Game.started()
    g.when(cmd.PressReady(OPENED + 100, ANN))
    g.refused(cmd.PressReady(OPENED + 200, ANN), RaceCode.ALREADY_READY)


def test_ready_is_refused_once_the_board_is_under_way() -> None:
    g = Game.playing()
    g.refused(cmd.PressReady(g.t0 + 10, ANN), RaceCode.READY_NOT_OPEN)


def test_ready_from_someone_not_seated_is_refused() -> None:
    g = Game.started()
    g.refused(cmd.PressReady(OPENED + 100, "mallory"), Code.NOT_SEATED)


def test_missing_the_ready_deadline_puts_a_player_out_and_starts_the_countdown() -> None:
    g = Game.started((ANN, BOB, CAT))
    g.when(cmd.PressReady(OPENED + 100, ANN))
    g.when(cmd.PressReady(OPENED + 200, CAT))
    deadline = OPENED + WINDOW
    assert g.when(cmd.Tick(deadline + 250)) == [  # a late tick still fires at the deadline
        ev.PlayerMissedReady(deadline, 1, BOB),
        ev.CountdownStarted(deadline, 1, deadline + 3000),
    ]
    assert BOB in g.state.out
    g.refused(cmd.TurnTile(deadline + 3000, BOB, 1), RaceCode.PLAYER_OUT)
    g.refused(cmd.PressReady(deadline + 3000, BOB), RaceCode.PLAYER_OUT)


def test_when_nobody_presses_ready_the_game_ends() -> None:
    g = Game.started()
    events = g.when(cmd.Tick(OPENED + WINDOW))
    assert [type(e) for e in events] == [ev.PlayerMissedReady, ev.PlayerMissedReady, ev.GameEnded]
    assert g.state.phase is Phase.OVER
    assert next_deadline(g.state) is None


def test_the_first_clear_takes_the_board_and_starts_the_grace() -> None:
    g = Game.playing()
    last = g.find_pairs(ANN, PAIRS_1, g.t0 + 1000, step=600)  # 20 turns, 11.4 s -> 12.4 s
    events = g.log[-3:]
    assert events == [
        ev.PairFound(last, 1, ANN, (19, 20), 9, 10),
        ev.BoardCleared(last, 1, ANN, last - g.t0),
        ev.BoardTaken(last, 1, ANN, last + 20_000),
    ]
    assert next_deadline(g.state) == last + 20_000


def test_the_others_have_twenty_seconds_after_the_first_clear() -> None:
    g = Game.playing()
    last = g.find_pairs(ANN, PAIRS_1, g.t0 + 1000, step=600)
    g.turn(last + 19_999, BOB, 1)  # still in the grace
    # at the end of the grace board 1 is over; the next turn would be board 2's, not yet open
    g.refused(cmd.TurnTile(last + 20_000, BOB, 2), RaceCode.BOARD_NOT_STARTED)
    g.when(cmd.Tick(last + 20_000))
    ended = g.of(ev.BoardEnded)
    assert ended == [ev.BoardEnded(last + 20_000, 1, ev.EndReason.GRACE_OVER)]


def test_the_grace_runs_its_twenty_seconds_even_past_two_minutes() -> None:
    g = Game.playing()
    last = g.find_pairs(ANN, PAIRS_1, g.t0 + 100_000, step=500)  # clears at t0 + 109.5 s
    g.turn(g.t0 + 125_000, BOB, 1)
    g.when(cmd.Tick(last + 20_000))
    assert g.of(ev.BoardEnded)[0].at == last + 20_000


def test_a_later_clear_during_the_grace_neither_takes_the_board_nor_extends_it() -> None:
    g = Game.playing()
    t0 = g.t0
    g.find_pairs(BOB, PAIRS_1[:9], t0 + 100, step=50)
    ann_last = g.find_pairs(ANN, PAIRS_1, t0 + 1000, step=600)
    bob_last = g.find_pairs(BOB, PAIRS_1[9:], ann_last + 5_000)
    assert g.of(ev.BoardCleared)[-1] == ev.BoardCleared(bob_last, 1, BOB, bob_last - t0)
    assert g.of(ev.BoardTaken) == [ev.BoardTaken(ann_last, 1, ANN, ann_last + 20_000)]
    assert g.of(ev.BoardEnded) == [ev.BoardEnded(bob_last, 1, ev.EndReason.ALL_DONE)]


def test_a_board_nobody_clears_ends_two_minutes_after_it_starts() -> None:
    g = Game.playing()
    t0 = g.t0
    g.turn(t0 + 119_999, ANN, 1)
    g.refused(cmd.TurnTile(t0 + 120_000, BOB, 1), RaceCode.BOARD_NOT_STARTED)  # board 2's turn
    events = g.when(cmd.Tick(t0 + 120_000))
    assert events[0] == ev.BoardEnded(t0 + 120_000, 1, ev.EndReason.TIME_CAP)
    assert isinstance(events[1], ev.BoardRevealed)
    assert events[2] == ev.ReadyOpened(t0 + 120_000, 2, t0 + 120_000 + WINDOW)


def test_a_board_allows_eighty_turns() -> None:
    g = Game.playing()
    at = g.t0
    for i in range(40):  # 40 misses: tiles 1 and 3 then 3 and 1 ... never a pair
        first, second = (1, 3) if i % 2 == 0 else (5, 7)
        g.turn(at, ANN, first, second)
        at += 1000
    assert g.log[-1] == ev.TurnsExhausted(at - 1000, 1, ANN)
    assert g.state.board is not None
    assert g.state.board.players[ANN].turns == 80
    assert g.state.board.players[ANN].outcome is ev.Outcome.OUT_OF_TURNS
    g.refused(cmd.TurnTile(at, ANN, 9), RaceCode.BOARD_OVER)
    assert g.turn(at, BOB, 1)  # the others play on


def test_a_clear_on_the_eightieth_turn_is_a_clear() -> None:
    g = Game.playing()
    at = g.t0
    for i in range(30):  # 60 turns of misses
        g.turn(at, ANN, *((1, 3) if i % 2 == 0 else (5, 7)))
        at += 1000
    last = g.find_pairs(ANN, PAIRS_1, at, step=10)  # turns 61 to 80
    assert g.state.board is not None
    assert g.log[-3:] == [
        ev.PairFound(last, 1, ANN, (19, 20), 9, 10),
        ev.BoardCleared(last, 1, ANN, last - g.t0),
        ev.BoardTaken(last, 1, ANN, last + 20_000),
    ]
    assert g.state.board.players[ANN].turns == 80
    assert not g.of(ev.TurnsExhausted)


def test_a_clear_under_twelve_seconds_is_disqualified_and_the_rest_play_on() -> None:
    g = Game.playing()
    last = g.find_pairs(ANN, PAIRS_1, g.t0, step=500)  # 9.5 s
    assert g.log[-1] == ev.ClearDisqualified(last, 1, ANN, 9_500)
    assert not g.of(ev.BoardTaken) and not g.of(ev.BoardCleared)
    assert next_deadline(g.state) == g.t0 + 120_000  # no grace for anybody
    g.refused(cmd.TurnTile(last + 1, ANN, 1), RaceCode.BOARD_OVER)
    bob_last = g.find_pairs(BOB, PAIRS_1, g.t0 + 30_000)
    assert g.of(ev.BoardTaken) == [ev.BoardTaken(bob_last, 1, BOB, bob_last + 20_000)]


def test_a_clear_at_exactly_twelve_seconds_stands() -> None:
    g = Game.playing()
    last = g.find_pairs(ANN, PAIRS_1, g.t0 + 2_500, step=500)
    assert last - g.t0 == 12_000
    assert g.of(ev.BoardCleared) == [ev.BoardCleared(last, 1, ANN, 12_000)]


def test_the_board_ends_as_soon_as_it_is_over_for_every_player() -> None:
    g = Game.playing()
    g.find_pairs(ANN, PAIRS_1, g.t0 + 1000, step=600)
    at = g.t0 + 20_000
    g.when(cmd.Resign(at, BOB))
    assert g.of(ev.BoardEnded) == [ev.BoardEnded(at, 1, ev.EndReason.ALL_DONE)]


def test_resigning_ends_the_players_board_and_puts_them_out_of_the_game() -> None:
    g = Game.playing((ANN, BOB, CAT))
    g.turn(g.t0 + 100, BOB, 1, 2)
    assert g.when(cmd.Resign(g.t0 + 200, BOB)) == [ev.PlayerResigned(g.t0 + 200, 1, BOB)]
    assert g.state.board is not None
    assert g.state.board.players[BOB].outcome is ev.Outcome.RESIGNED
    g.refused(cmd.TurnTile(g.t0 + 300, BOB, 3), RaceCode.PLAYER_OUT)
    g.refused(cmd.Resign(g.t0 + 300, BOB), RaceCode.PLAYER_OUT)


def test_resigning_during_ready_starts_the_countdown_if_everybody_left_is_ready() -> None:
    g = Game.started((ANN, BOB, CAT))
    g.when(cmd.PressReady(OPENED + 100, ANN))
    g.when(cmd.PressReady(OPENED + 200, BOB))
    assert g.when(cmd.Resign(OPENED + 300, CAT)) == [
        ev.PlayerResigned(OPENED + 300, 1, CAT),
        ev.CountdownStarted(OPENED + 300, 1, OPENED + 3300),
    ]


def test_when_everybody_resigns_before_the_board_the_game_ends() -> None:
    g = Game.started()
    g.when(cmd.Resign(OPENED + 100, ANN))
    g.when(cmd.PressReady(OPENED + 150, BOB))  # Bob alone is everybody left: countdown
    assert g.state.phase is Phase.COUNTDOWN
    events = g.when(cmd.Resign(OPENED + 200, BOB))
    assert [type(e) for e in events] == [ev.PlayerResigned, ev.GameEnded]


def test_a_player_left_alone_plays_the_board_out() -> None:
    g = Game.playing()
    g.when(cmd.Resign(g.t0 + 100, BOB))
    assert g.state.phase is Phase.PLAYING
    g.find_pairs(ANN, PAIRS_1, g.t0 + 1000, step=600)
    assert g.of(ev.BoardEnded)[0].reason is ev.EndReason.ALL_DONE
    assert g.log[-1] == ev.ReadyOpened(g.log[-1].at, 2, g.log[-1].at + WINDOW)


def test_resigning_during_the_countdown_leaves_the_others_countdown_as_it_was() -> None:
    g = Game.started((ANN, BOB, CAT))
    for p in (ANN, BOB, CAT):
        g.when(cmd.PressReady(OPENED + 100, p))
    assert g.when(cmd.Resign(OPENED + 200, CAT)) == [ev.PlayerResigned(OPENED + 200, 1, CAT)]
    assert g.state.phase is Phase.COUNTDOWN and next_deadline(g.state) == OPENED + 3100


def test_resigning_after_clearing_keeps_the_clear_and_leaves_the_game() -> None:
    g = Game.playing((ANN, BOB, CAT))
    last = g.find_pairs(ANN, PAIRS_1, g.t0 + 1000, step=600)
    g.when(cmd.Resign(last + 100, ANN))
    assert g.state.board is not None
    assert g.state.board.players[ANN].outcome is ev.Outcome.CLEARED
    assert ANN in g.state.out
    g.when(cmd.Tick(last + 20_000))
    revealed = g.of(ev.BoardRevealed)[0].results[0]
    assert (revealed.player, revealed.outcome, revealed.pairs) == (ANN, ev.Outcome.CLEARED, 10)
    assert g.board == 2 and g.state.board.players[ANN].outcome is ev.Outcome.OUT


def test_the_game_is_terminal_once_it_is_over() -> None:
    g = Game.started()
    assert not is_terminal(g.state)
    g.when(cmd.Tick(OPENED + WINDOW))
    assert is_terminal(g.state)
