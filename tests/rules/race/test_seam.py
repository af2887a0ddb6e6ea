"""The race behind the game seam (``match_rules.race.game.GAME``): the adapter the shells use
gives exactly what the race's own modules give, on the race's own wire messages."""

from __future__ import annotations

import pytest

from match.v1 import common_pb2, dealer_pb2, race_command_pb2, race_pb2, views_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import Game, SeatInfo, TableContext
from match_rules.race import commands as cmd
from match_rules.race import deal as dealing
from match_rules.race import events as ev
from match_rules.race import initial_state, next_deadline
from match_rules.race.errors import RaceCode
from match_rules.race.game import GAME, to_proto
from match_rules.race.view import OpponentMoved
from tests.rules.race.helpers import ANN, BOB, BOT, DEAL, OPENED, PAIRS_1, WINDOW
from tests.rules.race.helpers import Game as Play

SEED = bytes(range(32))


def context(**changes: object) -> TableContext:
    base: dict[str, object] = {
        "table_id": "table0001",
        "event_number": 7,
        "server_time_ms": 1234,
        "names": {ANN: "Ann", BOB: "Bob"},
        "commitment": "c" * 64,
        "seed": None,
    }
    base.update(changes)
    return TableContext(**base)  # type: ignore[arg-type]


def wire_deal() -> dealer_pb2.RaceDeal:
    return dealer_pb2.RaceDeal(boards=[dealer_pb2.RaceDeal.Board(layout=b) for b in DEAL])


def test_the_race_is_a_game_of_two_to_four_seats_filled_by_the_bot_service() -> None:
    game: Game = GAME
    assert (game.slug, game.kind) == ("race", common_pb2.GAME_KIND_MATCH_RACE)
    assert (game.min_seats, game.max_seats, game.cpu_fills) == (2, 4, False)
    assert game.deal_version == dealing.DEAL_VERSION
    assert game.command_message is race_command_pb2.RaceCommand
    assert game.reply_message is race_command_pb2.RaceCommandReply


def test_settings_fill_the_defaults_and_refuse_what_makes_no_game() -> None:
    assert GAME.settings(None) == race_pb2.RaceSettings(ready_window_ms=30_000, hints_per_board=3)
    given = race_pb2.RaceSettings(ready_window_ms=10_000, hints_per_board=0)
    assert GAME.settings(given) == given
    for bad, code in (
        (race_pb2.RaceSettings(ready_window_ms=9_999), RaceCode.INVALID_READY_WINDOW),
        (race_pb2.RaceSettings(ready_window_ms=120_001), RaceCode.INVALID_READY_WINDOW),
        (race_pb2.RaceSettings(ready_window_ms=10_000, hints_per_board=11), RaceCode.INVALID_HINTS),
    ):
        with pytest.raises(RuleError) as refused:
            GAME.settings(bad)
        assert refused.value.code is code
        assert refused.value.code.slug in ("invalid_ready_window", "invalid_hints")


def test_the_deal_is_deal_v1_on_the_wire() -> None:
    dealt = GAME.deal(SEED, GAME.settings(None))
    expected = dealing.deal(SEED)
    assert tuple(tuple(b.layout) for b in dealt.boards) == expected.boards
    strength = dealer_pb2.BotStrength.Name(dealt.bot_strength)
    assert strength == f"BOT_STRENGTH_{expected.bot_strength.name}"
    state = GAME.initial_state(dealt)
    assert state.deal == expected.boards
    assert GAME.initial_state(None).deal is None
    assert GAME.with_deal(GAME.initial_state(None), dealt).deal == expected.boards
    with pytest.raises(ValueError):
        GAME.with_deal(GAME.initial_state(None), dealer_pb2.RaceDeal())


def test_start_seats_the_players_in_seat_order_and_the_bots_as_bots() -> None:
    seats = [SeatInfo(2, BOT, "Bot", True), SeatInfo(1, ANN, "Ann", False)]
    settings = race_pb2.RaceSettings(ready_window_ms=WINDOW, hints_per_board=2)
    start = GAME.start(OPENED, seats, settings, "v")
    assert start == cmd.StartGame(OPENED, (ANN, BOT), frozenset({BOT}), WINDOW, 2, "v")
    state = GAME.initial_state(wire_deal())
    assert not GAME.is_started(state)
    steps = GAME.decide_steps(state, start)
    after = steps[-1][1]
    assert GAME.is_started(after) and not GAME.is_terminal(after)
    assert GAME.clock(after) == OPENED
    assert GAME.next_deadline(after) == next_deadline(after) == OPENED + WINDOW
    folded = state
    for event, _ in steps:
        folded = GAME.evolve(folded, event)
    assert folded == after
    assert GAME.tick(5) == cmd.Tick(5)
    assert GAME.results(after) is None


def test_commands_from_the_wire_and_the_ones_a_client_may_not_send() -> None:
    def wire(**command: object) -> race_command_pb2.RaceCommand:
        return race_command_pb2.RaceCommand(player_id=ANN, **command)  # type: ignore[arg-type]

    assert GAME.command(wire(press_ready={}), 9) == cmd.PressReady(9, ANN)
    assert GAME.command(wire(turn_tile={"tile": 4}), 9) == cmd.TurnTile(9, ANN, 4)
    assert GAME.command(wire(resign={}), 9) == cmd.Resign(9, ANN)
    assert GAME.command(wire(request_hint={}), 9) == cmd.RequestHint(9, ANN)
    for bad in (wire(), wire(start_game={})):
        with pytest.raises(RuleError) as refused:
            GAME.command(bad, 9)
        assert refused.value.code is Code.MALFORMED_REQUEST
    assert GAME.presence(9, ANN, False) is None


def test_events_go_through_the_race_codec_and_are_redacted_as_the_race_does() -> None:
    play = Play.playing()
    (turned,) = play.turn(play.t0 + 100, ANN, 1)
    assert GAME.encode(turned) == to_proto(turned)
    assert GAME.decode(to_proto(turned)) == turned
    assert GAME.redact(play.state, turned, ANN) is turned
    seen = GAME.redact(play.state, turned, BOB)
    assert isinstance(seen, OpponentMoved) and seen.turns == 1


def test_an_accepted_reply_carries_the_events_and_the_players_counters() -> None:
    play = Play.playing()
    play.turn(play.t0 + 100, ANN, 1)
    envelope = common_pb2.EventEnvelope(event_number=12)
    reply = GAME.accepted([envelope], play.state, ANN, 4321, 12)
    assert list(reply.accepted.events) == [envelope]
    assert reply.accepted.counters == views_pb2.RaceCounters(
        event_number=12,
        server_time_ms=4321,
        board=1,
        status=views_pb2.RaceView.STATUS_PLAYING,
        turns=1,
        pairs=0,
        hints_left=0,
        paused_until_ms=0,
    )
    refusal = common_pb2.Refusal(code="paused")
    assert GAME.reply_message(refusal=refusal) == race_command_pb2.RaceCommandReply(refusal=refusal)


def test_before_the_game_the_snapshot_lists_the_seated_players() -> None:
    view = GAME.snapshot(
        initial_state(), ANN, context(bots=frozenset({BOB}), deal_version="match-deal-v1")
    )
    assert view.phase == views_pb2.RaceView.PHASE_WAITING_FOR_PLAYERS
    assert (view.table_id, view.game_id, view.event_number) == ("table0001", "", 7)
    assert view.deal_version == "match-deal-v1" and view.commitment == "c" * 64
    (bob,) = view.opponents
    assert (bob.player, bob.display_name, bob.is_bot) == (BOB, "Bob", True)
    assert bob.status == views_pb2.RaceView.STATUS_DONE
    assert not view.HasField("seed")


def test_the_snapshot_of_a_game_shows_the_players_own_faces_and_the_others_counts() -> None:
    play = Play.playing(bots=frozenset({BOB}))
    play.turn(play.t0 + 100, ANN, 1, 2)
    view = GAME.snapshot(play.state, ANN, context())
    assert view.game_id == "table0001" and view.phase == views_pb2.RaceView.PHASE_PLAYING
    assert view.deal_version == "test-deal"  # the game's own, with none from the table
    assert [t.symbol for t in view.tiles if t.HasField("symbol")] == [0, 0]
    assert view.pairs == 1 and view.hints_left == 3 and view.ends_at_ms > 0
    (bob,) = view.opponents
    assert bob.is_bot and bob.display_name == "Bob" and bob.boards[0].pairs == 0
    ready = Play.started()
    assert GAME.snapshot(ready.state, ANN, context()).ready_deadline_ms == OPENED + WINDOW


def test_the_snapshot_between_boards_and_after_the_game() -> None:
    play = Play.playing()
    play.find_pairs(ANN, PAIRS_1, play.t0 + 100, step=1000)
    cleared = GAME.snapshot(play.state, ANN, context())
    assert cleared.outcome == race_pb2.RaceEvent.OUTCOME_CLEARED
    deadline = next_deadline(play.state)
    assert deadline is not None
    steps = GAME.decide_steps(play.state, GAME.tick(deadline))
    (revealed,) = [after for event, after in steps if isinstance(event, ev.BoardRevealed)]
    between = GAME.snapshot(revealed, ANN, context())
    assert between.phase == views_pb2.RaceView.PHASE_BETWEEN_BOARDS
    assert [r.board for r in between.revealed] == [1]
    play.when(GAME.tick(deadline))
    for player in (ANN, BOB):
        play.when(cmd.Resign(play.state.now, player))
    over = GAME.snapshot(play.state, ANN, context(seed=SEED))
    assert over.phase == views_pb2.RaceView.PHASE_GAME_OVER
    assert over.seed == SEED and len(over.standings) == 2
    results = GAME.results(play.state)
    assert results is not None and not results.draw
    assert [s.player for s in results.standings] == [s.player for s in play.state.standings]
    assert results.standings[0].score == play.state.standings[0].pairs
    assert "pairs" in results.standings[0].summary
    assert any(s.summary.endswith(", out") for s in results.standings)


def test_all_tied_for_first_is_a_draw() -> None:
    play = Play.started()
    for player in (ANN, BOB):
        play.when(cmd.Resign(OPENED + 10, player))
    results = GAME.results(play.state)
    assert results is not None
    assert [s.place for s in results.standings] == [1, 1] and results.draw
    assert play.of(ev.GameEnded)


def test_the_snapshot_in_play_field_by_field() -> None:
    """Every field of a player's view during a board, written out by hand: Ann has found the
    pair of tiles 1 and 2 in two turns; Bob, a bot, has not turned a tile."""
    play = Play.playing(bots=frozenset({BOB}))
    t0 = play.t0
    play.turn(t0 + 100, ANN, 1, 2)
    V = views_pb2.RaceView
    expected = V(
        table_id="table0001",
        game_id="table0001",
        event_number=7,
        server_time_ms=1234,
        player=ANN,
        phase=V.PHASE_PLAYING,
        board=1,
        ready_deadline_ms=0,
        starts_at_ms=t0,
        ends_at_ms=t0 + 120_000,
        status=V.STATUS_PLAYING,
        turns=2,
        pairs=1,
        hints_left=3,
        paused_until_ms=0,
        deal_version="test-deal",
        commitment="c" * 64,
    )
    expected.tiles.add(tile=1, state=V.TILE_STATE_FOUND, symbol=0)
    expected.tiles.add(tile=2, state=V.TILE_STATE_FOUND, symbol=0)
    for tile in range(3, 21):
        expected.tiles.add(tile=tile, state=V.TILE_STATE_DOWN)
    bob = expected.opponents.add(
        player=BOB, status=V.STATUS_PLAYING, display_name="Bob", is_bot=True
    )
    bob.boards.add(board=1, pairs=0, turns=0, hints=0)
    assert GAME.snapshot(play.state, ANN, context()) == expected
