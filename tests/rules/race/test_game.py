"""How a game ends: three boards, the reveal, times, ranking, and the game being over."""

from __future__ import annotations

from match_rules.errors import Code
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race import next_deadline
from match_rules.race.score import standings
from match_rules.race.state import Phase
from tests.rules.race.helpers import ANN, BOB, CAT, DEAL, PAIRS_1, WINDOW, Game

Out = ev.Outcome


def play_board(g: Game, clears: dict[str, int]) -> None:
    """Everybody presses Ready at once; each player in ``clears`` finds all pairs, one tile every
    ``clears[player]`` ms from T0; the others do nothing; the board then runs out."""
    opened = g.state.board.ready_deadline - WINDOW  # type: ignore[union-attr]
    for p in g.state.remaining:
        g.when(cmd.PressReady(opened + 10, p))
    t0 = opened + 3010
    g.when(cmd.Tick(t0))
    moves = sorted(
        (t0 + step * (i + 1), p, tile)
        for p, step in clears.items()
        for i, tile in enumerate(t for pair in g.pairs_for(g.board) for t in pair)
    )
    for at, p, tile in moves:
        g.when(cmd.TurnTile(at, p, tile))
    number = g.board
    while g.state.phase is Phase.PLAYING and g.board == number:
        g.when(cmd.Tick(next_deadline(g.state)))  # type: ignore[arg-type]


def test_a_game_is_three_boards_each_with_its_own_ready_countdown_and_clock() -> None:
    g = Game.started()
    for board in (1, 2, 3):
        assert g.board == board and g.state.phase is Phase.READY
        play_board(g, {ANN: 700, BOB: 800})
    assert len(g.of(ev.ReadyOpened)) == 3
    assert len(g.of(ev.CountdownStarted)) == 3
    assert [e.board for e in g.of(ev.BoardTaken)] == [1, 2, 3]
    assert g.state.phase is Phase.OVER


def test_after_every_board_the_whole_layout_and_everybodys_pairs_are_revealed() -> None:
    g = Game.started()
    play_board(g, {ANN: 700})
    (revealed,) = g.of(ev.BoardRevealed)
    assert revealed.layout == DEAL[0]
    assert [(r.player, r.outcome, r.pairs, r.turns) for r in revealed.results] == [
        (ANN, Out.CLEARED, 10, 20),
        (BOB, Out.BOARD_ENDED, 0, 0),
    ]


def test_a_players_time_is_the_moment_of_their_last_pair() -> None:
    g = Game.playing()
    t0 = g.t0
    g.turn(t0 + 500, BOB, 1, 2)  # one pair at 0.5 s, then nothing
    last = g.find_pairs(ANN, PAIRS_1, t0 + 1000, step=600)
    g.when(cmd.Tick(last + 20_000))
    ann, bob = g.of(ev.BoardRevealed)[0].results
    assert ann.time_ms == last - t0
    assert bob.time_ms == 500


def test_with_no_pair_or_a_disqualified_clear_the_time_is_the_end_of_the_board() -> None:
    g = Game.playing()
    t0 = g.t0
    g.find_pairs(ANN, PAIRS_1, t0, step=500)  # disqualified at 9.5 s
    g.when(cmd.Tick(t0 + 120_000))
    ann, bob = g.of(ev.BoardRevealed)[0].results
    assert (ann.outcome, ann.pairs, ann.found, ann.time_ms) == (Out.DISQUALIFIED, 0, 10, 120_000)
    assert (bob.outcome, bob.pairs, bob.time_ms) == (Out.BOARD_ENDED, 0, 120_000)


def test_the_most_pairs_over_three_boards_wins() -> None:
    g = Game.started()
    for _ in range(3):
        play_board(g, {BOB: 900})
    (ended,) = g.of(ev.GameEnded)
    assert [(s.player, s.place, s.pairs) for s in ended.standings] == [(BOB, 1, 30), (ANN, 2, 0)]


def test_on_equal_pairs_the_one_who_took_less_time_wins() -> None:
    g = Game.started()
    for _ in range(3):
        play_board(g, {ANN: 900, BOB: 800})
    (ended,) = g.of(ev.GameEnded)
    assert [(s.player, s.place) for s in ended.standings] == [(BOB, 1), (ANN, 2)]


def test_equal_on_pairs_and_time_shares_the_place() -> None:
    g = Game.started((ANN, BOB, CAT))
    for _ in range(3):
        play_board(g, {ANN: 700, BOB: 700, CAT: 800})
    (ended,) = g.of(ev.GameEnded)
    assert [(s.player, s.place) for s in ended.standings] == [(ANN, 1), (BOB, 1), (CAT, 3)]


def test_turns_are_shown_but_never_break_a_tie() -> None:
    results = (
        (
            ev.BoardResult(ANN, Out.BOARD_ENDED, 3, 3, 40, 50_000, 0),
            ev.BoardResult(BOB, Out.BOARD_ENDED, 3, 3, 10, 50_000, 0),
        ),
    )
    table = standings((ANN, BOB), frozenset(), results)
    assert [(s.player, s.place, s.turns) for s in table] == [(ANN, 1, 40), (BOB, 1, 10)]


def test_players_out_of_the_game_rank_below_everyone_who_stayed() -> None:
    g = Game.started((ANN, BOB, CAT))
    play_board(g, {ANN: 700, CAT: 1000})
    g.when(cmd.Resign(g.state.now + 1, ANN))  # the best player resigns between boards
    play_board(g, {BOB: 2000})
    play_board(g, {})
    (ended,) = g.of(ev.GameEnded)
    assert [(s.player, s.place, s.out) for s in ended.standings] == [
        (BOB, 1, False),
        (CAT, 2, False),
        (ANN, 3, True),
    ]


def test_boards_a_game_never_reached_count_nothing() -> None:
    g = Game.started()
    play_board(g, {ANN: 700})
    g.when(cmd.Tick(g.state.now + WINDOW))  # nobody presses Ready for board 2
    (ended,) = g.of(ev.GameEnded)
    assert [(s.player, s.pairs, s.place) for s in ended.standings] == [(ANN, 10, 1), (BOB, 0, 2)]
    assert len(g.state.results) == 1


def test_once_the_game_is_over_every_command_is_refused() -> None:
    g = Game.started()
    for _ in range(3):
        play_board(g, {ANN: 700})
    at = g.state.now + 1
    g.refused(cmd.TurnTile(at, ANN, 1), Code.GAME_OVER)
    g.refused(cmd.PressReady(at, ANN), Code.GAME_OVER)
    g.refused(cmd.Resign(at, BOB), Code.GAME_OVER)
    g.refused(cmd.RequestHint(at, BOB), Code.GAME_OVER)
    assert g.when(cmd.Tick(at + 1_000_000)) == []
