"""Folding the race's events (match_rules.race.state.evolve): every event moves the state's
clock to its instant, and each outcome lands on the player it names (docs/rules-race.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match_rules.game import TableContext
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race import evolve, initial_state, is_terminal, next_deadline
from match_rules.race.game import GAME
from tests.rules.race.helpers import ANN, BOB, CAT, DEAL, OPENED, PAIRS_1
from tests.rules.race.helpers import Game as Play


def _a_game_with_every_kind_of_board_event() -> Play:
    """Bob misses Ready; Ann misses once, her next turn turns those tiles down, then she clears
    board 1; Cat
    turns nothing, so the board ends for her; board 1 is revealed; then everybody resigns."""
    play = Play.started((ANN, BOB, CAT))
    for player in (ANN, CAT):
        play.when(cmd.PressReady(OPENED + 1_000, player))
    while play.state.board is not None and play.state.board.starts_at is None:
        deadline = next_deadline(play.state)
        assert deadline is not None
        play.when(cmd.Tick(deadline))
    play.when(cmd.Tick(play.t0))
    play.turn(play.t0 + 100, ANN, 1, 3)
    play.turn(play.t0 + 2_000, ANN, 6, 5)  # the missed tiles turn down first; 5 and 6 pair
    play.find_pairs(ANN, [p for p in PAIRS_1 if 5 not in p], play.t0 + 3_000, step=1_000)
    while not play.of(ev.BoardRevealed):
        deadline = next_deadline(play.state)
        assert deadline is not None
        play.when(cmd.Tick(deadline))
    for player in (ANN, CAT):
        play.when(cmd.Resign(play.state.now, player))
    return play


def test_every_event_moves_the_clock_to_its_instant() -> None:
    play = _a_game_with_every_kind_of_board_event()
    kinds = {type(e) for e in play.log}
    for kind in (
        ev.PlayerMissedReady,
        ev.CountdownStarted,
        ev.BoardStarted,
        ev.AttemptMissed,
        ev.TilesTurnedDown,
        ev.BoardCleared,
        ev.BoardEnded,
        ev.BoardRevealed,
        ev.GameEnded,
    ):
        assert kind in kinds, kind
    state = initial_state(DEAL)
    for event in play.log:
        state = evolve(state, event)
        assert state.now == event.at, event


def test_each_outcome_lands_on_its_player() -> None:
    play = _a_game_with_every_kind_of_board_event()
    state = initial_state(DEAL)
    for event in play.log:
        before = state
        state = evolve(state, event)
        board = state.board
        if isinstance(event, ev.PlayerMissedReady):
            assert board is not None and board.players[event.player].outcome is ev.Outcome.OUT
        if isinstance(event, ev.TilesTurnedDown):
            assert board is not None and before.board is not None
            mine = board.players[event.player]
            assert mine.showing == () and not set(event.tiles) & set(mine.faces)
            assert set(before.board.players[event.player].faces) - set(mine.faces) == set(
                event.tiles
            )
        if isinstance(event, ev.BoardEnded):
            assert board is not None and board.ended_at == event.at
            outcomes = {p: pb.outcome for p, pb in board.players.items()}
            assert outcomes == {
                ANN: ev.Outcome.CLEARED,
                BOB: ev.Outcome.OUT,
                CAT: ev.Outcome.BOARD_ENDED,
            }


class _Teller:
    def name(self, player: str) -> str:
        return player.title()

    def when(self, ms: int) -> str:
        return f"@{ms}"


def test_what_a_player_did_is_told_with_their_name() -> None:
    play = _a_game_with_every_kind_of_board_event()
    told = {
        (type(e), GAME.describe(e, _Teller()).text, GAME.place(e).part, GAME.place(e).starts)
        for e in play.log
        if isinstance(e, ev.PlayerReady | ev.PlayerMissedReady | ev.BoardStarted)
    }
    assert told == {
        (ev.PlayerReady, "Ann is Ready", 1, False),
        (ev.PlayerReady, "Cat is Ready", 1, False),
        (ev.PlayerMissedReady, "Bob missed Ready and is out", 1, False),
        (ev.BoardStarted, "the board starts (T0)", 1, True),
    }
    resigned = [GAME.describe(e, _Teller()).text for e in play.of(ev.PlayerResigned)]
    assert resigned == ["Ann resigns", "Cat resigns"]


def test_any_event_folded_later_moves_the_clock_to_its_own_instant() -> None:
    """Events the rules emit at the instant of the one before them (Ready opening, the
    countdown, the reveal, the end) still carry their own time when folded on their own."""
    play = _a_game_with_every_kind_of_board_event()
    state = initial_state(DEAL)
    for event in play.log:
        later = replace(event, at=event.at + 7)
        assert evolve(state, later).now == event.at + 7, event
        state = evolve(state, event)


def test_a_past_boards_counts_are_shown_with_its_turns_and_hints() -> None:
    """Cat (at a table with a bot) turns tile 1, takes a hint, finds the pair: after board 1
    is revealed, Ann sees Cat's board 1 as one pair in two turns with one hint."""
    play = Play.playing((ANN, BOB, CAT), bots=frozenset({BOB}))
    play.turn(play.t0 + 100, CAT, 1)
    play.when(cmd.RequestHint(play.t0 + 200, CAT))
    play.turn(play.t0 + 300, CAT, 2)
    play.find_pairs(ANN, PAIRS_1, play.t0 + 1_000, step=1_000)
    while not play.of(ev.BoardRevealed):
        deadline = next_deadline(play.state)
        assert deadline is not None
        play.when(cmd.Tick(deadline))
    view = GAME.snapshot(play.state, ANN, TableContext("t", 1, 1, {}, "", None))
    cat = next(o for o in view.opponents if o.player == CAT)
    first = cat.boards[0]
    assert (first.board, first.pairs, first.turns, first.hints) == (1, 1, 2, 1)


def test_the_game_reports_the_races_own_deadline_and_end() -> None:
    playing = Play.playing()
    assert GAME.next_deadline(playing.state) == next_deadline(playing.state) is not None
    assert GAME.is_terminal(playing.state) is False
    play = _a_game_with_every_kind_of_board_event()
    assert GAME.is_terminal(play.state) is True and is_terminal(play.state)
    try:
        initial_state().layout(1)
    except ValueError as error:
        assert str(error) == "this state is a projection of the events: it holds no deal"
    else:
        raise AssertionError("a projection gave a layout")


def test_folding_what_is_not_an_event_of_match_says_what_it_is() -> None:
    """Before any board, a board's event names itself; after, anything else is refused."""
    with pytest.raises(AssertionError) as early:
        evolve(initial_state(DEAL), ev.PlayerReady(1, 1, ANN))
    assert str(early.value) == "PlayerReady before any board"
    with pytest.raises(TypeError) as wrong:
        evolve(Play.playing().state, "x")  # type: ignore[arg-type]
    assert str(wrong.value) == "not an event of Match: 'x'"
