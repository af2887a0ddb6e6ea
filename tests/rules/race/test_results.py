"""What a finished race gives the players' read models (``Results.winners``, ``figures``):
worked out by hand for small games, and the same from a state folded from the log alone."""

from __future__ import annotations

from match_rules.game import Figure, Keep, Results
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.game import GAME
from match_rules.race.state import RaceState
from tests.rules.race.helpers import ANN, BOB, CAT, PAIRS_1, PAIRS_2
from tests.rules.race.helpers import Game as Play

S = Keep.SUM


def folded(log: list[ev.Event]) -> RaceState:
    """The state the players service folds: the logged events through the wire, no deal."""
    state = GAME.initial_state(None)
    for event in log:
        state = GAME.evolve(state, GAME.decode(GAME.encode(event)))
    return state


def results(play: Play) -> Results:
    """The results of a finished game; the same from the log alone."""
    got = GAME.results(play.state)
    assert got is not None
    assert GAME.results(folded(play.log)) == got
    return got


def test_two_boards_played_the_winner_and_each_players_pairs_board_by_board() -> None:
    """Board 1: Ann clears it (last pair at T0 + 19.1 s), Bob finds 2 pairs, Cat turns nothing.
    Board 2: Cat misses Ready (out); Bob finds 3 pairs, Ann 1, then both resign and the game
    ends before board 3. Ann 11 pairs, Bob 5, Cat 0: Ann wins alone."""
    play = Play.playing((ANN, BOB, CAT))
    t0 = play.t0
    play.find_pairs(ANN, PAIRS_1, t0 + 100, step=1_000)
    play.find_pairs(BOB, PAIRS_1[:2], t0 + 20_000, step=1_000)
    play.when(cmd.Tick(t0 + 39_100))  # the grace is over: board 1 ends, Ready opens
    assert play.board == 2
    opened = play.state.now
    play.when(cmd.PressReady(opened + 1_000, ANN))
    play.when(cmd.PressReady(opened + 1_000, BOB))
    play.when(cmd.Tick(opened + 30_000 + 3_000))  # Cat missed Ready; board 2 starts
    t2 = play.t0
    play.find_pairs(BOB, PAIRS_2[:3], t2 + 100, step=1_000)
    play.find_pairs(ANN, PAIRS_2[:1], t2 + 6_000)
    play.when(cmd.Resign(t2 + 7_000, ANN))
    play.when(cmd.Resign(t2 + 8_000, BOB))
    assert len(play.of(ev.BoardRevealed)) == 2 and play.of(ev.GameEnded)

    got = results(play)
    assert [(s.player, s.place, s.score) for s in got.standings] == [
        (ANN, 1, 11),
        (BOB, 2, 5),
        (CAT, 3, 0),
    ]
    assert not got.draw and got.ranked
    assert got.winners == frozenset({ANN})
    assert got.figures == (
        Figure(ANN, "pairs_board_1", 10, S),
        Figure(ANN, "pairs_board_2", 1, S),
        Figure(ANN, "pairs", 11, S),
        Figure(BOB, "pairs_board_1", 2, S),
        Figure(BOB, "pairs_board_2", 3, S),
        Figure(BOB, "pairs", 5, S),
        Figure(CAT, "pairs_board_1", 0, S),  # in the board to its end, no tile turned
        Figure(CAT, "pairs", 0, S),  # out before board 2: it is not Cat's
    )
    assert got.entries == () and got.daily == ()  # the race's only board is its rating


def test_a_disqualified_clear_scores_no_pair_and_a_board_resigned_untouched_is_not_played() -> None:
    """Ann clears board 1 in 9.6 s (under 12 s: disqualified, 0 pairs); Bob resigns without a
    tile, which ends the board; Ann resigns at board 2's Ready. Both 0 pairs in 10 s: a draw."""
    play = Play.playing((ANN, BOB))
    t0 = play.t0
    play.find_pairs(ANN, PAIRS_1, t0 + 100, step=500)
    assert play.of(ev.ClearDisqualified)
    play.when(cmd.Resign(t0 + 10_000, BOB))
    play.when(cmd.Resign(t0 + 10_500, ANN))

    got = results(play)
    assert [(s.player, s.place) for s in got.standings] == [(ANN, 1), (BOB, 1)]
    assert got.draw and got.winners == frozenset()
    assert got.figures == (
        Figure(ANN, "pairs_board_1", 0, S),
        Figure(ANN, "pairs", 0, S),
        Figure(BOB, "pairs", 0, S),
    )
    assert got.entries == ()


def test_a_game_ended_before_any_board_is_a_draw_with_no_board_figures() -> None:
    play = Play.started((ANN, BOB))
    play.when(cmd.Resign(play.state.now + 10, ANN))
    assert GAME.results(play.state) is None  # Bob is still in: not over
    play.when(cmd.Resign(play.state.now + 10, BOB))
    got = results(play)
    assert got.draw and got.winners == frozenset()
    assert got.figures == (Figure(ANN, "pairs", 0, S), Figure(BOB, "pairs", 0, S))


def test_a_board_resigned_after_one_turn_was_played() -> None:
    """Bob turns one tile and resigns: board 1 is his, with 0 pairs."""
    play = Play.playing((ANN, BOB))
    play.turn(play.t0 + 100, BOB, 1)
    play.when(cmd.Resign(play.t0 + 1_000, BOB))
    play.when(cmd.Resign(play.t0 + 1_100, ANN))
    assert Figure(BOB, "pairs_board_1", 0, S) in results(play).figures


def test_everybody_resigning_at_t0_took_no_time() -> None:
    play = Play.playing((ANN, BOB))
    for player in (ANN, BOB):
        play.when(cmd.Resign(play.t0, player))
    (revealed,) = play.of(ev.BoardRevealed)
    assert isinstance(revealed, ev.BoardRevealed)
    assert [(r.player, r.time_ms) for r in revealed.results] == [(ANN, 0), (BOB, 0)]
