"""The race's player for the bot service (match_rules.race.botseat), pure: what its seat sees,
what it sends and when, and what it does when a command is refused."""

from __future__ import annotations

import random
import statistics

from match.v1 import common_pb2, race_pb2, race_service_pb2, views_pb2
from match_rules.deal import Strength
from match_rules.game import BotCall, BotEnd, Reaction
from match_rules.race import bot
from match_rules.race.botseat import BOT, PRESS_READY, TURN_TILE, RaceBotSeat
from match_rules.race.game import GAME
from match_rules.registry import by_slug

TABLE = "abcdef0123456789"
V = views_pb2.RaceView


def seat(**kw: object) -> RaceBotSeat:
    return RaceBotSeat(TABLE, "bot", rng=random.Random(1), **kw)  # type: ignore[arg-type]


def view(
    phase: V.Phase = V.PHASE_PLAYING,
    status: V.Status = V.STATUS_PLAYING,
    found: int = 0,
    showing: tuple[int, ...] = (),
    starts_at_ms: int = 1_000,
    board: int = 1,
    ready_deadline_ms: int = 0,
) -> race_service_pb2.WatchResponse:
    """Board ``board``: the first ``found`` tiles found (tiles 2k-1, 2k share symbol k), the
    tiles ``showing`` up with symbol 90 + tile."""
    v = V(
        table_id=TABLE,
        player="bot",
        event_number=40,
        server_time_ms=5_000,
        phase=phase,
        board=board,
        status=status,
        starts_at_ms=starts_at_ms,
        turns=6,
        ready_deadline_ms=ready_deadline_ms,
    )
    for tile in range(1, 21):
        if tile <= found:
            v.tiles.add(tile=tile, state=V.TILE_STATE_FOUND, symbol=(tile + 1) // 2)
        elif tile in showing:
            v.tiles.add(tile=tile, state=V.TILE_STATE_SHOWING, symbol=90 + tile)
        else:
            v.tiles.add(tile=tile, state=V.TILE_STATE_DOWN)
    return race_service_pb2.WatchResponse(snapshot=v)


def event(number: int, **body: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        event_number=number, server_time_ms=7_000 + number, race=race_pb2.RaceEvent(**body)
    )


def assigned(strength: str) -> common_pb2.EventEnvelope:
    body = common_pb2.TableEvent(
        bots_assigned=common_pb2.TableEvent.BotsAssigned(strength=strength)
    )
    return common_pb2.EventEnvelope(event_number=1, table=body)


def test_the_race_has_a_bot_player_and_concentration_none() -> None:
    assert GAME.bot is BOT
    made = BOT.seat(TABLE, "bot", pace=0.5, rate=2.0, strength="weak", forced=None)
    assert isinstance(made, RaceBotSeat)
    assert (made.pace, made.rate, made.strength) == (0.5, 2.0, Strength.WEAK)
    assert by_slug("concentration").bot is None


def test_the_strength_is_the_table_s_unless_forced() -> None:
    s = seat()
    assert s.shown is None and s.strength is bot.DEFAULT_STRENGTH
    s.observe(race_service_pb2.WatchResponse(event=assigned("strong")))
    assert (s.shown, s.strength) == ("strong", Strength.STRONG)
    assert s.memory.profile == bot.PROFILES[Strength.STRONG]
    s.assign("strong")  # the reply and the stream: once is enough
    s.assign("genius")  # not a strength: the one played stays
    assert (s.shown, s.strength) == ("genius", Strength.STRONG)
    forced = seat(forced=Strength.WEAK, strength="strong")
    assert (forced.shown, forced.strength) == ("strong", Strength.WEAK)


def test_it_sees_its_own_faces_and_the_times_the_server_sent() -> None:
    s = seat()
    assert s.observe(view()) == 5_000 and s.event_number == 40
    own = event(
        41,
        tile_turned=race_pb2.RaceEvent.TileTurned(board=1, player="bot", tile=4, symbol=9, turn=7),
    )
    other = event(
        42,
        tile_turned=race_pb2.RaceEvent.TileTurned(board=1, player="ann", tile=5, symbol=3, turn=1),
    )
    assert s.observe(race_service_pb2.WatchResponse(event=own)) == 7_041
    assert s.observe(race_service_pb2.WatchResponse(event=other)) == 7_042
    assert s.memory.recall() == {4: 9} and s.event_number == 42
    counters = views_pb2.RaceCounters(server_time_ms=9_000)
    assert s.observe_events([], counters) == 9_000


def test_it_ends_when_the_game_is_over_or_it_is_out() -> None:
    s = seat()
    assert s.ended() is None
    s.observe(view(status=V.STATUS_OUT))
    assert s.ended() is BotEnd.OUT
    s.observe(
        race_service_pb2.WatchResponse(event=event(41, game_ended=race_pb2.RaceEvent.GameEnded()))
    )
    assert s.ended() is BotEnd.GAME_OVER


def test_it_presses_ready_once_per_board() -> None:
    s = seat(pace=0.5)
    s.observe(view(phase=V.PHASE_READY, status=V.STATUS_WAITING))
    call = s.decide(0)
    assert call is not None and call.rpc == PRESS_READY and call.move is False
    assert call.request == race_service_pb2.PressReadyRequest(table_id=TABLE)
    assert 250 <= call.after_ms <= 1_000 and call.at_ms == 0 and call.attempts == 1
    assert s.still(call, 0)
    assert s.refused(call, "not_seated", "FAILED_PRECONDITION") is Reaction.RETRY
    again = s.decide(0)
    assert again is not None
    assert s.refused(again, "already_ready", "FAILED_PRECONDITION") is Reaction.RETRY
    assert s.decide(0) is None  # this board is readied
    s.readied.clear()
    stale = s.decide(0)
    assert stale is not None
    fresh = s.decide(0)
    assert fresh is not None
    s.answered(stale, race_service_pb2.PressReadyResponse())  # not the call decided last
    s.refused(stale, "already_ready", "FAILED_PRECONDITION")
    assert s.readied == set()
    assert s.answered(fresh, race_service_pb2.PressReadyResponse()) == 0
    assert s.readied == {1}


def test_it_presses_ready_within_half_the_time_left_on_the_wall_clock() -> None:
    # A 30 s window on a server clock running ten times the wall's (the tests' clocks) leaves
    # the bot 3 s of wall time: it presses within 1.5 s whatever it drew (0.5-2 s at pace 1).
    drawn, capped = [], []
    for n in range(200):
        plain = RaceBotSeat(TABLE, "bot", rng=random.Random(n))
        plain.observe(view(phase=V.PHASE_READY, status=V.STATUS_WAITING))
        fast = RaceBotSeat(TABLE, "bot", rng=random.Random(n), rate=10.0)
        fast.observe(view(phase=V.PHASE_READY, status=V.STATUS_WAITING, ready_deadline_ms=30_000))
        a, b = plain.decide(0), fast.decide(0)
        assert a is not None and b is not None
        drawn.append(a.after_ms)
        capped.append(b.after_ms)
    assert max(drawn) > 1_500  # the draw alone would have gone past half the window
    assert max(capped) <= 1_500
    assert capped == [min(d, 1_500) for d in drawn]  # the same draw, only capped
    late = RaceBotSeat(TABLE, "bot", rng=random.Random(1))
    late.observe(view(phase=V.PHASE_READY, status=V.STATUS_WAITING, ready_deadline_ms=30_000))
    call = late.decide(29_900)  # 100 ms left: 50 ms; and none left: at once
    assert call is not None and call.after_ms == 50
    late.readied.clear()
    call = late.decide(31_000)
    assert call is not None and call.after_ms == 0
    roomy = RaceBotSeat(TABLE, "bot", rng=random.Random(3))
    roomy.observe(view(phase=V.PHASE_READY, status=V.STATUS_WAITING, ready_deadline_ms=30_000))
    call = roomy.decide(0)  # a 30 s window on the wall clock: the draw as it is
    assert call is not None and bot.READY_MIN_MS <= call.after_ms <= bot.READY_MAX_MS


def test_it_waits_outside_its_turns() -> None:
    s = seat()
    s.observe(view(phase=V.PHASE_COUNTDOWN, status=V.STATUS_WAITING))
    assert s.decide(0) is None


def test_a_turn_is_sent_after_thinking_and_only_if_nothing_changed() -> None:
    s = seat(rate=2.0)
    s.observe(view(found=2, showing=(3,)))
    call = s.decide(10_000)
    assert call is not None and call.rpc == TURN_TILE and call.move and call.attempts == 3
    assert isinstance(call.request, race_service_pb2.TurnTileRequest)
    assert call.request.table_id == TABLE and call.request.tile in range(4, 21)
    assert 10_000 + 2 * bot.THINK_MIN_MS <= call.at_ms <= 10_000 + 2 * bot.THINK_MAX_MS
    assert s.still(call, call.at_ms)
    other = BotCall(TURN_TILE, call.request)
    assert not s.still(other, call.at_ms)  # not the call decided last
    s.observe(view(found=2, showing=(3, 5)))  # its reply came back on the stream first
    assert not s.still(call, call.at_ms)
    reply = race_service_pb2.TurnTileResponse(events=[event(41)])
    assert s.answered(call, reply) == 7_041


def test_a_board_is_never_finished_before_t0_plus_12_5_s() -> None:
    s = seat()
    s.observe(view(found=18, starts_at_ms=0))
    assert s.decide(1_000) is None  # T0 unknown: no risk
    s.observe(view(found=18, starts_at_ms=1_000))
    call = s.decide(2_000)
    assert call is not None and call.at_ms >= 1_000 + bot.CLEAR_NOT_BEFORE_MS
    assert not s.still(call, 2_000)
    assert s.still(call, 1_000 + bot.CLEAR_NOT_BEFORE_MS)


def test_nothing_is_turned_on_a_board_with_nothing_down() -> None:
    s = seat()
    s.observe(view(found=20))
    assert s.decide(0) is None


def test_what_a_refused_turn_does() -> None:
    s = seat()
    s.observe(view())
    call = s.decide(0)
    assert call is not None
    assert s.refused(call, "paused", "FAILED_PRECONDITION") is Reaction.PAUSE
    for code in ("board_over", "board_not_started", "game_over", "player_out"):
        assert s.refused(call, code, "FAILED_PRECONDITION") is Reaction.WAIT
    assert s.refused(call, "not_seated", "FAILED_PRECONDITION") is Reaction.STOP
    assert s.refused(call, None, "PERMISSION_DENIED") is Reaction.STOP
    assert s.refused(call, None, "INVALID_ARGUMENT") is Reaction.RETRY
    assert s.refused(call, "tile_up", "FAILED_PRECONDITION") is Reaction.RETRY


def test_a_seat_draws_from_its_own_two_seeded_streams_by_default() -> None:
    """Choices and thinking from the seat's "play" stream, forgetting from its "memory" stream,
    each seeded by the table and the seat; at the default pace and rate, the default strength."""
    plain = RaceBotSeat(TABLE, "bot")
    assert (plain.pace, plain.rate, plain.strength) == (1.0, 1.0, bot.DEFAULT_STRENGTH)
    assert plain.rng.random() == bot.seat_rng(TABLE, "bot", "play").random()
    assert plain.memory.rng.random() == bot.seat_rng(TABLE, "bot", "memory").random()
    assert plain.memory.profile == bot.PROFILES[bot.DEFAULT_STRENGTH]
    assert (plain.tracker.player, plain.tracker.table_id) == ("bot", TABLE)
    other = RaceBotSeat(TABLE, "bot-2")
    assert other.rng.random() != RaceBotSeat(TABLE, "bot").rng.random()
    # a turn it never decided is not still worth sending
    never = BotCall(TURN_TILE, race_service_pb2.TurnTileRequest(table_id=TABLE, tile=1))
    assert plain.still(never, 0) is False


def test_a_forced_strength_remembers_as_that_strength_does() -> None:
    for strength in Strength:
        forced = RaceBotSeat(TABLE, "bot", forced=strength)
        assert forced.strength is strength
        assert forced.memory.profile == bot.PROFILES[strength]


def going_for(seed: int, strength: Strength = Strength.WEAK) -> RaceBotSeat:
    """Tile 3 is up (symbol 93, seen on the board, not remembered); it remembers that tile 12
    carries 93 too."""
    s = RaceBotSeat(TABLE, "bot", rng=random.Random(seed), forced=strength)
    s.observe(view(showing=(3,)))
    s.memory.see(1, 12, 93, 7)
    return s


def test_going_for_a_tile_it_remembers_it_slips_at_its_strengths_rate() -> None:
    """docs/bot.md: the partner of the tile it has up, or with the strength's slip probability
    (weak: 10 %) a neighbour of it that is down (12: 8, 11 and 16)."""
    n = 400
    tiles = []
    for seed in range(n):
        call = going_for(seed).decide(10_000)
        assert call is not None and isinstance(call.request, race_service_pb2.TurnTileRequest)
        tiles.append(call.request.tile)
    assert set(tiles) == {12, 8, 11, 16}
    slips = sum(t != 12 for t in tiles) / n
    assert abs(slips - 0.1) < 4 * (0.1 * 0.9 / n) ** 0.5


def test_it_thinks_as_long_as_its_kind_of_turn_takes() -> None:
    """Going for a tile it remembers: 0.6 s median; the first turn after a miss: 1.3 s."""
    known = []
    after_miss = []
    for seed in range(200):
        call = going_for(seed, Strength.STRONG).decide(10_000)
        assert call is not None
        known.append(call.at_ms - 10_000)
        s = RaceBotSeat(TABLE, "bot", rng=random.Random(seed))
        s.observe(view(showing=(3, 5)))
        call = s.decide(10_000)
        assert call is not None
        after_miss.append(call.at_ms - 10_000)
    assert abs(statistics.median(known) / 600 - 1) < 0.1
    assert abs(statistics.median(after_miss) / 1_300 - 1) < 0.1


def test_after_a_miss_it_waits_out_the_pause() -> None:
    s = seat()
    paused = view(showing=(3, 5))
    paused.snapshot.paused_until_ms = 10_000 + bot.THINK_MAX_MS + 1_000
    s.observe(paused)
    call = s.decide(10_000)
    assert call is not None
    assert call.at_ms >= paused.snapshot.paused_until_ms + bot.PAUSE_SLACK_MS


def test_a_turn_decided_is_not_sent_once_the_board_or_its_status_changed() -> None:
    for changed in (
        view(status=V.STATUS_DONE),  # its board is over (out of turns, resigned)
        view(board=2),  # the next board, as empty as this one was
        view(found=2),  # a pair found meanwhile
    ):
        s = seat()
        s.observe(view())
        call = s.decide(10_000)
        assert call is not None and s.still(call, call.at_ms)
        s.observe(changed)
        assert not s.still(call, call.at_ms), changed.snapshot


def test_a_player_done_with_the_board_turns_nothing_while_the_others_play_on() -> None:
    s = seat()
    s.observe(view(status=V.STATUS_DONE, found=4))
    assert s.decide(0) is None


def test_a_replys_counters_are_taken_in() -> None:
    """A reply's counters carry the server's time and the pause after a miss."""
    s = seat()
    s.observe(view())
    call = s.decide(0)
    assert call is not None
    counters = views_pb2.RaceCounters(server_time_ms=9_500, board=1, paused_until_ms=20_000)
    reply = race_service_pb2.TurnTileResponse(events=[event(41)], counters=counters)
    assert s.answered(call, reply) == 9_500
    following = s.decide(9_500)
    assert following is not None and following.at_ms >= 20_000 + bot.PAUSE_SLACK_MS


def test_the_strength_shown_stays_through_other_table_events() -> None:
    """What the seat shows is what its record keeps for a takeover (services/bot)."""
    s = seat()
    s.observe(race_service_pb2.WatchResponse(event=assigned("strong")))
    revealed = common_pb2.TableEvent(seed_revealed=common_pb2.TableEvent.SeedRevealed())
    s.observe(race_service_pb2.WatchResponse(event=common_pb2.EventEnvelope(table=revealed)))
    assert (s.shown, s.strength) == ("strong", Strength.STRONG)
