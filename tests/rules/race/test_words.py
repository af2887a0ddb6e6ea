"""The race's refusals word for word (docs/rules-race.md, "Commands and refusals"), and the hint
that marks the partner on either side of the showing tile."""

from __future__ import annotations

from collections.abc import Callable

from match.v1 import race_command_pb2, race_pb2, race_service_pb2
from match_rules.errors import Code, RuleError
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race import next_deadline
from match_rules.race.decide import decide
from match_rules.race.errors import RaceCode
from match_rules.race.game import GAME, _summary
from match_rules.race.state import initial_state
from tests.rules.race.helpers import ANN, BOB, BOT, CAT, DEAL, OPENED, PAIRS_1, WINDOW
from tests.rules.race.helpers import Game as Play
from tests.rules.race.test_seam import context


def _refused(call: Callable[[], object]) -> tuple[Code, str]:
    try:
        call()
    except RuleError as error:
        return error.code, error.message
    raise AssertionError("not refused")


def _start(players: tuple[str, ...], bots: frozenset[str] = frozenset(), window: int = WINDOW):
    return lambda: decide(
        initial_state(DEAL), cmd.StartGame(OPENED, players, bots, window, 3, "test-deal")
    )


def test_a_table_of_four_starts_and_a_bot_may_hold_every_seat() -> None:
    assert decide(
        initial_state(DEAL),
        cmd.StartGame(OPENED, (ANN, BOB, CAT, BOT), frozenset(), WINDOW, 3, "test-deal"),
    )
    assert _start((ANN, BOB), frozenset({ANN, BOB}))()


def test_setup_refusals_word_for_word() -> None:
    cases = [
        (_start((ANN, BOB, CAT, BOT, "eve")), "a table seats 2 to 4 players, got 5"),
        (_start((ANN, ANN)), "every player needs a distinct, non-empty id"),
        (_start((ANN, BOB), frozenset({CAT})), "every bot must hold a seat"),
        (
            _start((ANN, BOB), window=5_000),
            "the Ready deadline must be 10 to 120 s, got 5000 ms",
        ),
    ]
    for call, message in cases:
        assert _refused(call) == (Code.INVALID_SETUP, message)


def test_play_refusals_word_for_word() -> None:
    ready = Play.started()
    counting = Play.started()
    for player in (ANN, BOB):
        counting.when(cmd.PressReady(OPENED + 1_000, player))
    no_bot = Play.playing()
    with_bot = Play.playing(bots=frozenset({BOB}))
    out = Play.playing(bots=frozenset({BOB}))
    out.when(cmd.Resign(out.t0 + 2, ANN))
    over = Play.playing()
    for player in (ANN, BOB):
        over.when(cmd.Resign(over.t0 + 2, player))
    cases = [
        (
            lambda: decide(initial_state(DEAL), cmd.TurnTile(OPENED, ANN, 1)),
            Code.GAME_NOT_STARTED,
            "the game has not started: the table is not full",
        ),
        (
            lambda: ready.when(
                cmd.StartGame(OPENED, (ANN, BOB), frozenset(), WINDOW, 3, "test-deal")
            ),
            Code.GAME_ALREADY_STARTED,
            "this game has already started",
        ),
        (
            lambda: ready.when(cmd.TurnTile(OPENED + 1, ANN, 1)),
            RaceCode.BOARD_NOT_STARTED,
            "board 1 has not started: everybody must press Ready first",
        ),
        (
            lambda: counting.when(cmd.TurnTile(OPENED + 1_001, ANN, 1)),
            RaceCode.BOARD_NOT_STARTED,
            f"board 1 has not started: it becomes turnable at {OPENED + 4_000}",
        ),
        (
            lambda: no_bot.when(cmd.RequestHint(no_bot.t0 + 1, ANN)),
            RaceCode.HINT_NO_BOT,
            "hints are given only at a table with a bot",
        ),
        (
            lambda: with_bot.when(cmd.RequestHint(with_bot.t0 + 1, ANN)),
            RaceCode.HINT_NEEDS_ONE_TILE,
            "a hint marks the partner of the one tile you have showing: turn one tile first",
        ),
        (
            lambda: out.when(cmd.TurnTile(out.t0 + 3, ANN, 1)),
            RaceCode.PLAYER_OUT,
            "you are out of this game and can no longer play",
        ),
        (
            lambda: over.when(cmd.TurnTile(over.t0 + 3, ANN, 1)),
            Code.GAME_OVER,
            "the game is over; the results are final",
        ),
    ]
    for call, code, message in cases:
        assert _refused(call) == (code, message), message


def test_a_hint_marks_the_partner_before_or_after_the_showing_tile() -> None:
    """Board 1 pairs tiles 1 and 2, 3 and 4, ..., 19 and 20."""
    for showing, partner in ((2, 1), (19, 20), (1, 2)):
        play = Play.playing(bots=frozenset({BOB}))
        play.turn(play.t0 + 100, ANN, showing)
        (hint,) = play.when(cmd.RequestHint(play.t0 + 200, ANN))
        assert isinstance(hint, ev.HintGiven)
        assert (hint.tile, hint.partner, hint.hints_used) == (showing, partner, 1)


def test_a_deal_that_breaks_the_rules_is_refused_naming_its_board() -> None:
    """Three boards of 20 tiles, ten symbols from 0..24 each on exactly two tiles."""
    good = DEAL[0]
    uneven = (0, 0, 0, 1, *good[4:])  # ten symbols: 0 three times, 1 once
    assert len(set(uneven)) == 10 and len(uneven) == 20
    high = tuple(25 if s == 9 else s for s in good)  # symbol 25: one past the last
    cases = [
        ((good, uneven, good), "board 2 must hold 10 symbols twice each"),
        ((good, good, high), "board 3 has a symbol outside 0..24"),
        ((good, good[:19], good), "board 2 has 19 tiles, needs 20"),
        ((good, good), "a deal has 3 boards, got 2"),
    ]
    for deal, message in cases:
        try:
            initial_state(deal)
        except ValueError as error:
            assert str(error) == message
        else:
            raise AssertionError(f"accepted: {message}")
    highest = tuple(24 if s == 9 else s for s in good)  # symbol 24 is the last there is
    assert initial_state((highest, good, good)).deal == (highest, good, good)


def test_the_results_summary_word_for_word() -> None:
    play = Play.playing()
    play.find_pairs(ANN, PAIRS_1, play.t0 + 100, step=1_000)
    deadline = next_deadline(play.state)
    assert deadline is not None
    play.when(cmd.Tick(deadline))
    for player in (ANN, BOB):
        play.when(cmd.Resign(play.state.now, player))
    results = GAME.results(play.state)
    assert results is not None
    assert [s.summary for s in results.standings] == [
        "10 pairs in 19.1 s, 20 turns, out",
        "0 pairs in 39.1 s, 0 turns, out",
    ]
    stayed = ev.Standing(ANN, 1, 7, 12_345, 30, 1, False)
    assert _summary(stayed) == "7 pairs in 12.3 s, 30 turns"
    slow = ev.Standing(ANN, 1, 7, 100_000, 30, 1, False)
    assert _summary(slow) == "7 pairs in 100.0 s, 30 turns"


def test_wire_limits_and_refusals_word_for_word() -> None:
    longest = race_pb2.RaceSettings(ready_window_ms=120_000, hints_per_board=10)
    assert GAME.settings(longest) == longest
    assert GAME.check_request(race_service_pb2.TurnTileRequest(tile=1)) is None
    assert GAME.check_request(race_service_pb2.TurnTileRequest(tile=20)) is None
    problem = GAME.check_request(race_service_pb2.TurnTileRequest(tile=0))
    assert isinstance(problem, RuleError)
    assert (problem.code, problem.message) == (
        RaceCode.TILE_OUT_OF_RANGE,
        "tiles are numbered 1 to 20, got 0",
    )
    assert _refused(lambda: GAME.command(race_command_pb2.RaceCommand(player_id=ANN), 5)) == (
        Code.MALFORMED_REQUEST,
        "send one of press_ready, turn_tile, resign, request_hint",
    )


def test_hints_left_never_go_below_none() -> None:
    play = Play.playing(bots=frozenset({BOB}), hints=1)
    play.turn(play.t0 + 100, ANN, 1)
    play.when(cmd.RequestHint(play.t0 + 200, ANN))
    counters = GAME.accepted([], play.state, ANN, play.t0 + 200, 9).accepted.counters
    assert counters.hints_left == 0
    view = GAME.snapshot(play.state, BOB, context())
    (ann,) = view.opponents
    assert [(b.board, b.pairs, b.turns, b.hints) for b in ann.boards] == [(1, 0, 1, 1)]


def test_the_wire_lists_a_set_sorted_and_names_an_empty_event() -> None:
    bots = frozenset({"zed", "amy", "kim", "bob", "eve", "lou", "ida", "cy"})
    started = ev.GameStarted(OPENED, tuple(sorted(bots)), bots, WINDOW, 3, "test-deal")
    wire = GAME.encode(started)
    assert list(wire.game_started.bots) == sorted(bots)  # whatever the hash seed
    assert GAME.decode(wire) == started
    try:
        GAME.decode(race_pb2.RaceEvent())
    except ValueError as error:
        assert str(error) == "a RaceEvent with no event set"
    else:
        raise AssertionError("an empty event was read")


def test_the_game_ends_at_the_instant_the_last_player_resigns() -> None:
    play = Play.playing()
    play.when(cmd.Resign(play.t0 + 100, ANN))
    play.when(cmd.Resign(play.t0 + 250, BOB))
    (ended,) = play.of(ev.GameEnded)
    assert ended.at == play.t0 + 250 and play.state.now == play.t0 + 250
