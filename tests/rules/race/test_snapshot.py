"""The race's view and reply in the states the seam tests leave out: before any board, paused
after a miss, an opponent with no name, a seat without a bot, the seed kept back until the end,
and every revealed board's layout and results as the reveal told them."""

from __future__ import annotations

from match.v1 import views_pb2
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race import initial_state, next_deadline
from match_rules.race.game import GAME, to_proto
from tests.rules.race.helpers import ANN, BOB, DEAL, PAIRS_1
from tests.rules.race.helpers import Game as Play
from tests.rules.race.test_seam import SEED, context

V = views_pb2.RaceView


def test_before_any_board_nothing_is_timed() -> None:
    view = GAME.snapshot(initial_state(), ANN, context())
    assert (view.ready_deadline_ms, view.starts_at_ms, view.ends_at_ms) == (0, 0, 0)
    assert (view.board, view.turns, view.pairs, view.paused_until_ms) == (0, 0, 0, 0)
    assert view.status == V.STATUS_DONE and view.outcome == 0
    assert [(t.tile, t.state, t.HasField("symbol")) for t in view.tiles] == [
        (n, V.TILE_STATE_DOWN, False) for n in range(1, 21)
    ]
    assert [(o.player, o.display_name, o.is_bot) for o in view.opponents] == [(BOB, "Bob", False)]


def test_a_miss_pauses_the_board_in_the_view_and_in_the_reply() -> None:
    """Tiles 1 and 3 of board 1 do not match: the player's board is paused for 1 s. Bob is a
    bot, so there are hints; the table knows no name for him."""
    play = Play.playing(bots=frozenset({BOB}))
    at = play.t0 + 100
    play.turn(at, ANN, 1, 3)
    view = GAME.snapshot(play.state, ANN, context(names={ANN: "Ann"}))
    assert (view.turns, view.pairs, view.paused_until_ms) == (2, 0, at + 1_000)
    (bob,) = view.opponents
    assert (bob.player, bob.display_name, bob.is_bot) == (BOB, "", True)
    assert [(b.board, b.pairs, b.turns, b.hints) for b in bob.boards] == [(1, 0, 0, 0)]
    reply = GAME.accepted([], play.state, ANN, at, 9)
    assert reply.accepted.counters == views_pb2.RaceCounters(
        event_number=9,
        server_time_ms=at,
        board=1,
        status=V.STATUS_PLAYING,
        turns=2,
        pairs=0,
        hints_left=3,
        paused_until_ms=at + 1_000,
    )


def test_an_opponents_counts_and_the_seed_only_at_the_end() -> None:
    play = Play.playing()
    play.find_pairs(BOB, PAIRS_1[:2], play.t0 + 100)
    ann = GAME.snapshot(play.state, ANN, context(seed=SEED))
    assert not ann.HasField("seed")  # the seed is shown once the game is over, not before
    (bob,) = ann.opponents
    assert (bob.display_name, bob.is_bot) == ("Bob", False)  # no bot at this table
    assert [(b.board, b.pairs, b.turns, b.hints) for b in bob.boards] == [(1, 2, 4, 0)]


def test_every_revealed_board_shows_its_layout_and_results_as_revealed() -> None:
    play = Play.playing()
    play.find_pairs(ANN, PAIRS_1, play.t0 + 100, step=1000)
    deadline = next_deadline(play.state)
    assert deadline is not None
    play.when(cmd.Tick(deadline))
    for player in (ANN, BOB):
        play.when(cmd.Resign(play.state.now, player))
    (reveal,) = play.of(ev.BoardRevealed)
    view = GAME.snapshot(play.state, ANN, context(seed=SEED))
    assert view.seed == SEED
    (shown,) = view.revealed
    assert (shown.board, tuple(shown.layout)) == (1, DEAL[0])
    assert list(shown.results) == list(to_proto(reveal).board_revealed.results)
    assert list(view.standings) == list(to_proto(play.of(ev.GameEnded)[0]).game_ended.standings)


def test_the_reply_counts_the_pairs_found() -> None:
    play = Play.playing()
    at = play.find_pairs(ANN, PAIRS_1[:3], play.t0 + 100, step=1_000)
    counters = GAME.accepted([], play.state, ANN, at, 12).accepted.counters
    assert (counters.board, counters.turns, counters.pairs) == (1, 6, 3)
    assert counters.status == V.STATUS_PLAYING and counters.paused_until_ms == 0
