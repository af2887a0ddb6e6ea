"""The bot's decisions, as pure functions (match_rules.race.bot, services/bot/fill.py), its
settings, whole boards played by the race's bot against the rules core on a simulated clock, and
the seat book (which replica plays which seat) against a real nats-server."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
import nats
import pytest
from nats.aio.client import Client

from match.v1 import common_pb2, lobby_pb2, race_pb2, race_service_pb2, views_pb2
from match_bus.clock import Clock
from match_bus.jetstream import open_bucket
from match_bus.service import BaseConfig
from match_client.client import MatchClient, Seat
from match_launch.natsserver import NatsServer
from match_rules.race import bot, decide, evolve, initial_state
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.botseat import RaceBotSeat
from match_rules.race.state import RaceState
from services.bot import fill, seats
from services.bot.config import BotConfig, ConfigError
from services.bot.player import SeatPlayer
from services.bot.seats import Identity, SeatBook, SeatRecord
from services.bot.service import Bot, Held, LobbyReach

T0 = 1_000_000
ALL = set(range(1, 21))


def rng(seed: int = 0) -> random.Random:
    return random.Random(seed)


# --- what to turn ------------------------------------------------------------------------


def test_a_known_pair_comes_first() -> None:
    memory = {3: 7, 11: 7, 5: 2}
    assert bot.choose_tiles(memory, set(), (), rng()) == (3, 11)
    assert bot.next_tile(memory, set(), (), rng()) == 3
    assert bot.next_tile(memory, set(), (3,), rng()) == 11


def test_a_found_pair_is_not_known_any_more() -> None:
    memory = {3: 7, 11: 7, 5: 2}
    plan = bot.choose_tiles(memory, {3, 11}, (), rng())
    assert len(plan) == 1 and plan[0] not in memory and plan[0] not in {3, 11}


def test_an_unknown_tile_then_its_partner_when_known() -> None:
    memory = {5: 2, 8: 4}
    first = bot.next_tile(memory, set(), (), rng())
    assert first is not None and first not in memory  # nothing to pair: learn a new face
    memory[first] = 4  # its face: the partner of 8
    assert bot.next_tile(memory, set(), (first,), rng()) == 8


def test_an_unknown_tile_then_another_unknown_one() -> None:
    memory = {5: 2, 8: 4, 1: 9}
    second = bot.next_tile(memory, set(), (1,), rng())
    assert second is not None and second not in memory


def test_after_a_miss_the_showing_tiles_are_not_the_first_tile() -> None:
    # Tiles 2 and 6 are still up from a miss; the pair (2, 14) is known: start with 14.
    memory = {2: 1, 6: 3, 14: 1}
    assert bot.choose_tiles(memory, set(), (2, 6), rng()) == (14, 2)


@pytest.mark.parametrize("seed", range(300))
def test_never_a_face_up_tile(seed: int) -> None:
    r = random.Random(seed)
    layout = r.sample(range(25), 10) * 2
    r.shuffle(layout)
    pairs = [[t for t in range(1, 21) if layout[t - 1] == s] for s in set(layout)]
    found = {t for p in r.sample(pairs, r.randint(0, 9)) for t in p}
    seen = {t: layout[t - 1] for t in r.sample(sorted(ALL), r.randint(0, 20))}
    down = sorted(ALL - found)
    turned = tuple(r.sample(down, r.choice((0, 1, 2))))
    if len(turned) == 2 and layout[turned[0] - 1] == layout[turned[1] - 1]:
        turned = turned[:1]  # two tiles stay showing only after a miss
    seen.update({t: layout[t - 1] for t in turned})  # the bot saw what it turned
    tile = bot.next_tile(seen, found, turned, r)
    assert tile is not None
    assert tile not in found and tile not in turned


# --- when to turn ------------------------------------------------------------------------


def test_thinking_is_human_and_scaled_by_pace() -> None:
    r = rng()
    for kind in bot.Think:
        assert all(300 <= bot.think_ms(r, 1.0, kind) <= 4_000 for _ in range(200))
        assert all(30 <= bot.think_ms(r, 0.1, kind) <= 400 for _ in range(200))


def test_the_pause_after_a_miss_is_waited_out() -> None:
    at = bot.earliest_turn_ms(
        now_ms=T0, think=100, starts_at_ms=T0 - 5_000, paused_until_ms=T0 + 1_000, clearing=False
    )
    assert at > T0 + 1_000


def test_never_plans_a_clear_before_twelve_seconds() -> None:
    for think in (0, 60, 1_500):
        at = bot.earliest_turn_ms(
            now_ms=T0 + 2_000, think=think, starts_at_ms=T0, paused_until_ms=0, clearing=True
        )
        assert at >= T0 + 12_500
    later = bot.earliest_turn_ms(
        now_ms=T0 + 30_000, think=700, starts_at_ms=T0, paused_until_ms=0, clearing=True
    )
    assert later == T0 + 30_700


def test_only_the_last_pair_may_clear() -> None:
    assert not bot.may_clear(set(range(1, 17)))
    assert bot.may_clear(set(range(1, 19)))


# --- the lobby ---------------------------------------------------------------------------


def table(**kw: object) -> lobby_pb2.Table:
    t = lobby_pb2.Table(
        table_id="abcdef0123456789",
        visibility=common_pb2.VISIBILITY_OPEN,
        seats=4,
        status=lobby_pb2.Table.STATUS_WAITING,
        fill_at_ms=T0,
    )
    t.taken.add(seat=1, player_id="host", display_name="Ann")
    for k, v in kw.items():
        setattr(t, k, v)
    return t


def test_which_tables_to_fill() -> None:
    assert fill.should_fill(table(), T0)
    assert not fill.should_fill(table(), T0 - 1)  # the fill wait is not over
    assert not fill.should_fill(table(visibility=common_pb2.VISIBILITY_PRIVATE), T0)
    assert not fill.should_fill(table(status=lobby_pb2.Table.STATUS_PLAYING), T0)
    assert not fill.should_fill(table(seats=1), T0)  # no free seat
    assert not fill.should_fill(table(fill_at_ms=0), T0)


def test_bot_names_follow_the_bots_already_seated() -> None:
    t = table()
    assert fill.bot_names(t) == ["Bot 1", "Bot 2", "Bot 3"]
    t.taken.add(seat=2, player_id="b1", display_name="Bot 1", is_bot=True)
    t.taken.add(seat=3, player_id="bob", display_name="Bob")
    assert fill.bot_names(t) == ["Bot 2"]


# --- settings ----------------------------------------------------------------------------


def test_refuses_to_start_without_a_bot_key() -> None:
    with pytest.raises(ConfigError, match="MATCH_BOT_KEY_FILE is not set"):
        BotConfig.from_env({})


def test_refuses_a_bot_key_file_others_may_read(tmp_path: Path) -> None:
    path = tmp_path / "bot.key"
    path.write_text("k\n")
    path.chmod(0o644)
    with pytest.raises(ConfigError, match=r"open to others.*chmod 600"):
        BotConfig.from_env({"MATCH_BOT_KEY_FILE": str(path)})


def test_settings_from_the_environment(bot_key: dict[str, str]) -> None:
    c = BotConfig.from_env({**bot_key, "BOT_PACE": "0.1", "BOT_POLL_S": "0.2"})
    assert (c.bot_key, c.pace, c.poll_s, c.lobby_addr) == ("k", 0.1, 0.2, "127.0.0.1:50051")
    d = BotConfig.from_env({**bot_key, "LOBBY_ADDR": "lobby:1"})
    assert (d.pace, d.poll_s, d.lobby_addr) == (1.0, 0.5, "lobby:1")
    with pytest.raises(ConfigError, match="BOT_PACE"):
        BotConfig.from_env({**bot_key, "BOT_PACE": "0"})
    with pytest.raises(ConfigError, match="BOT_POLL_S"):
        BotConfig.from_env({**bot_key, "BOT_POLL_S": "soon"})


# --- whole boards against the rules ------------------------------------------------------


def play_board(seed: int, pace: float) -> tuple[list[ev.Event], int]:
    """The brain plays board 1 on a simulated clock; the other player never turns. Returns the
    events and the number of refused turns."""
    r = random.Random(seed)
    deal = []
    for _ in range(3):
        tiles = r.sample(range(25), 10) * 2
        r.shuffle(tiles)
        deal.append(tuple(tiles))
    state: RaceState = initial_state(tuple(deal))
    log: list[ev.Event] = []

    def run(command: cmd.Command) -> None:
        nonlocal state
        for e in decide(state, command):
            state = evolve(state, e)
            log.append(e)

    run(cmd.StartGame(T0 - 10_000, ("bot", "ann"), frozenset({"bot"}), 30_000, 3, "t"))
    run(cmd.PressReady(T0 - 4_000, "bot"))
    run(cmd.PressReady(T0 - 3_000, "ann"))
    run(cmd.Tick(T0))
    memory = bot.Memory(profile=bot.PERFECT)  # the plain memory: it never forgets
    now = T0
    refused = 0
    while state.board is not None and state.board.players["bot"].outcome is None:
        mine = state.board.players["bot"]
        known = bot.known_faces(memory.recall(), mine.faces)
        move = bot.next_move(known, mine.found, mine.showing, r)
        assert move is not None
        tile = move.tile
        now = bot.earliest_turn_ms(
            now_ms=now,
            think=bot.think_ms(r, pace, bot.think_kind(mine.showing, move)),
            starts_at_ms=T0,
            paused_until_ms=mine.paused_until,
            clearing=bot.may_clear(mine.found),
        )
        before = len(log)
        try:
            run(cmd.TurnTile(now, "bot", tile))
        except Exception:
            refused += 1
            continue
        for e in log[before:]:
            if isinstance(e, ev.TileTurned) and e.player == "bot":
                memory.see(e.board, e.tile, e.symbol, e.turn)
    return log, refused


@pytest.mark.parametrize("pace", [1.0, 0.1, 0.01])
@pytest.mark.parametrize("seed", range(15))
def test_the_bot_clears_a_board_honestly(seed: int, pace: float) -> None:
    log, refused = play_board(seed, pace)
    assert refused == 0  # never a face-up tile, never inside the pause
    cleared = [e for e in log if isinstance(e, ev.BoardCleared)]
    assert not [e for e in log if isinstance(e, ev.ClearDisqualified)]
    assert len(cleared) == 1 and cleared[0].player == "bot"
    assert cleared[0].elapsed_ms >= 12_500
    turns = [e for e in log if isinstance(e, ev.TileTurned)]
    assert 20 <= len(turns) <= 60  # a memory bot: far from the 80-turn limit
    if pace == 1.0:  # at a person's pace, never two turns less than 0.3 s apart
        gaps = [b.at - a.at for a, b in itertools.pairwise(turns)]
        assert min(gaps) >= 300


def test_memory_starts_again_on_a_new_board() -> None:
    m = bot.Memory(profile=bot.PERFECT)
    m.see(1, 3, 7, 1)
    m.see(2, 4, 9, 1)
    assert (m.board, m.seen) == (2, {4: 9})
    m.see(1, 5, 5, 2)  # a late event of the old board changes nothing
    assert m.seen == {4: 9}


# --- a seat's task, against a fake session -----------------------------------------------


class FakeSession:
    """Stands in for a GameSession: the first Watch breaks, the second sends Ready open; the
    press is answered, then the game ends."""

    def __init__(self) -> None:
        self.watch_calls: list[int] = []
        self.skips: list[bool] = []  # each watch's skip_answered
        self.presses = 0
        self.more: asyncio.Queue[race_service_pb2.WatchResponse | None] = asyncio.Queue()

    async def watch(
        self, after_event_number: int = 0, skip_answered: bool = False
    ) -> AsyncIterator[Any]:
        self.watch_calls.append(after_event_number)
        self.skips.append(skip_answered)
        if len(self.watch_calls) == 1:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "down"
            )
        view = views_pb2.RaceView(
            player="bot",
            event_number=4,
            phase=views_pb2.RaceView.PHASE_READY,
            board=1,
            status=views_pb2.RaceView.STATUS_WAITING,
        )
        yield race_service_pb2.WatchResponse(snapshot=view)
        while (item := await self.more.get()) is not None:
            yield item

    async def press_ready(self, request_id: str | None = None) -> Any:
        self.presses += 1
        ready = race_pb2.RaceEvent(
            player_ready=race_pb2.RaceEvent.PlayerReady(board=1, player="bot")
        )
        env = common_pb2.EventEnvelope(event_number=5, race=ready)
        await self.more.put(race_service_pb2.WatchResponse(event=env))  # the stream echoes it
        ended = race_pb2.RaceEvent(game_ended=race_pb2.RaceEvent.GameEnded())
        await self.more.put(
            race_service_pb2.WatchResponse(
                event=common_pb2.EventEnvelope(event_number=6, race=ended)
            )
        )
        await self.more.put(None)
        return race_service_pb2.PressReadyResponse(events=[env])

    async def call(self, rpc: str, request: Any, request_id: str | None = None) -> Any:
        assert rpc == "PressReady"
        return await self.press_ready(request_id)


async def test_a_seat_resumes_its_watch_presses_ready_once_and_stops_at_the_end() -> None:
    session = FakeSession()
    seat = Seat(table_id="abcdef0123456789", player_id="bot", token="tok", seat=2)
    policy = RaceBotSeat(seat.table_id, seat.player_id, pace=0.01, rng=random.Random(1))
    player = SeatPlayer(session, seat, policy, poll_s=0.05)
    await asyncio.wait_for(player.run(), 10)
    assert session.watch_calls == [0, 0]
    assert session.skips == [True, True]  # the press's answer is folded: not sent again
    assert session.presses == 1
    assert policy.tracker.game_over and policy.tracker.event_number == 6


# --- the seat book against a real nats-server ----------------------------------------------


async def books(
    server: NatsServer, *who: Identity, ttl_s: float = seats.REPLICA_TTL_S
) -> tuple[Client, list[SeatBook]]:
    nc = await nats.connect(server.url)
    js = nc.jetstream()
    opened = await asyncio.gather(*(SeatBook.open(js, me, replica_ttl_s=ttl_s) for me in who))
    return nc, list(opened)


def dead_seat(seat: int = 2) -> SeatRecord:
    return SeatRecord(
        table_id="abcdef0123456789",
        seat=seat,
        player_id=f"p{seat}",
        token=f"token-{seat}",
        owner="bot-gone",
        incarnation="old",
        strength="weak",
    )


async def test_the_buckets_are_made_once_whoever_comes_first(nats_server: NatsServer) -> None:
    nc, (a, _b, _c) = await books(
        nats_server, Identity.new("a"), Identity.new("b"), Identity.new("c")
    )
    try:
        js = nc.jetstream()
        seats_info = await js.stream_info(f"KV_{seats.SEATS_BUCKET}")
        beats_info = await js.stream_info(f"KV_{seats.REPLICAS_BUCKET}")
        assert seats_info.config.max_age == seats.SEAT_TTL_S
        assert beats_info.config.max_age == seats.REPLICA_TTL_S
        assert seats_info.config.num_replicas == 1
        await SeatBook.open(js, Identity.new("d"))  # and again: nothing changes
        assert await a.seats() == [] and await a.live() == {}
    finally:
        await nc.close()


async def test_of_two_replicas_claiming_one_orphan_exactly_one_wins(
    nats_server: NatsServer,
) -> None:
    a_id, b_id = Identity.new("bot-a"), Identity.new("bot-b")
    nc, (writer, a, b) = await books(nats_server, Identity.new("bot-gone"), a_id, b_id)
    try:
        for seat in (2, 3, 4):
            await writer.record(dead_seat(seat))
        await asyncio.gather(a.beat(), b.beat())
        live = await a.live()
        assert live == {a_id.key: a_id.incarnation, b_id.key: b_id.incarnation}
        for _ in range(3):  # three seats, each raced for by both
            for revision, record in await a.seats():
                if record.owned_by(a_id) or record.owned_by(b_id):
                    continue
                assert seats.orphaned(record, live, a_id, set())
                assert seats.orphaned(record, live, b_id, set())
                won = await asyncio.gather(
                    a.replace(revision, record.for_owner(a_id)),
                    b.replace(revision, record.for_owner(b_id)),
                )
                assert sum(w is not None for w in won) == 1, won
        owners = {r.key: r.owner for _, r in await b.seats()}
        assert len(owners) == 3 and set(owners.values()) <= {"bot-a", "bot-b"}
        for _, record in await a.seats():  # the token and the strength went with the seat
            assert (record.token, record.strength) == (f"token-{record.seat}", "weak")
            assert not seats.orphaned(record, live, a_id, {record.key})
            assert not seats.orphaned(record, live, b_id, {record.key})
        # A claim on a stale revision loses; a release on a stale revision leaves it alone.
        revision, record = (await a.seats())[0]
        assert await a.replace(revision - 1, record.for_owner(a_id)) is None
        assert not await a.release(record.key, revision - 1)
        assert await a.get(record.key) == (revision, record)
        assert await a.release(record.key, revision)
        assert await a.get(record.key) is None
        assert len(await a.seats()) == 2
    finally:
        await nc.close()


async def test_a_replica_that_stops_beating_leaves_its_seats_to_the_others(
    nats_server: NatsServer,
) -> None:
    a_id, b_id = Identity.new("bot-a"), Identity.new("bot-b")
    nc, (a, b) = await books(nats_server, a_id, b_id, ttl_s=1.0)
    try:
        assert not await a.beat()  # the first beat starts a heartbeat
        assert await a.beat()  # then it is renewed
        await a.record(dead_seat().for_owner(a_id))
        await b.beat()
        [(revision, record)] = await b.seats()
        assert not seats.orphaned(record, await b.live(), b_id, set())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while not seats.orphaned(record, live := await b.live(), b_id, set()):
            assert loop.time() < deadline, "a's heartbeat never expired"
            await b.beat()
            await asyncio.sleep(0.2)
        assert a_id.key not in live and b_id.key in live
        assert await b.replace(revision, record.for_owner(b_id)) is not None
        assert not await a.beat()  # a notices its heartbeat had lapsed
        assert not (await a.get(record.key) or (0, record))[1].owned_by(a_id)
    finally:
        await nc.close()


async def test_a_scan_whose_watcher_never_says_it_caught_up_ends_with_every_key(
    nats_server: NatsServer,
) -> None:
    """Over a real nats-server: the watcher's "caught up" marker held back, as nats-py holds it
    back when an entry it counted expires before delivery. The scan asks the real consumer what
    is left (nats-py's own watcher and consumer info, not a stand-in), and ends with every key
    once the quiet time has passed, well before its time-out."""
    nc = await nats.connect(nats_server.url)
    try:
        kv = await open_bucket(nc.jetstream(), "SCANTEST", "a scan's test", ttl_s=60.0)
        for key in ("a", "b", "c"):
            await kv.put(key, key.encode())
        real = kv.watchall

        async def without_marker(**kwargs: Any) -> Any:
            watcher = await real(**kwargs)
            watcher._init_done = True  # nats-py sends its marker only while this is False
            return watcher

        kv.watchall = without_marker  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        began = loop.time()
        scanned = await seats._latest(kv)
        took = loop.time() - began
        assert {k: e.value for k, e in scanned.items()} == {"a": b"a", "b": b"b", "c": b"c"}
        assert seats.SCAN_QUIET_S <= took < seats.SCAN_TIMEOUT_S  # the quiet path, not a fail
    finally:
        await nc.close()


async def test_a_replica_restarted_under_the_same_id_orphans_its_former_seats_at_once(
    nats_server: NatsServer,
) -> None:
    before, after = Identity("bot-a", "life1"), Identity("bot-a", "life2")
    nc, (old, new) = await books(nats_server, before, after)
    try:
        await old.beat()
        await old.record(dead_seat().for_owner(before))
        await new.beat()  # the new process takes the heartbeat key over
        assert await new.live() == {"bot-a": "life2"}
        [(_, record)] = await new.seats()
        assert seats.orphaned(record, await new.live(), after, set())
        await new.retire()
        assert await new.live() == {}
    finally:
        await nc.close()


async def test_a_scan_removes_the_markers_seats_given_back_leave(
    nats_server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A released seat's delete marker would stay for SEAT_TTL_S, and every scan would read it
    again (docs/bot.md): the scan that meets a marker removes it, up to MARKERS_PER_SCAN a
    scan, and a seat recorded again on the same key after its marker keeps its record."""
    monkeypatch.setattr(seats, "MARKERS_PER_SCAN", 2)
    nc, (book,) = await books(nats_server, Identity.new("bot-a"))
    try:
        js = nc.jetstream()
        stream = f"KV_{seats.SEATS_BUCKET}"

        async def stored() -> int:
            return int((await js.stream_info(stream)).state.messages)

        revisions = {n: await book.record(dead_seat(n)) for n in range(1, 7)}
        for n in range(1, 6):  # five games over, one seat still playing
            assert await book.release(dead_seat(n).key, revisions[n])
        assert await stored() == 6  # five markers and the live record
        found = []
        for _ in range(3):  # two markers a scan
            found.append([record.seat for _, record in await book.seats()])
        assert found == [[6], [6], [6]]
        assert await stored() == 1  # only the live seat's record is left
        assert await book.get(dead_seat(1).key) is None  # a removed key reads as deleted
        # A marker seen by a scan, and a record written to its key before the removal: the
        # removal ends at the marker, so the new record stays.
        first = await book.record(dead_seat(1))
        assert await book.release(dead_seat(1).key, first)
        marker = first + 1
        again = await book.record(dead_seat(1))
        await book._sweep([(dead_seat(1).key, marker)])
        assert await book.get(dead_seat(1).key) == (again, dead_seat(1))
        assert sorted(record.seat for _, record in await book.seats()) == [1, 6]
    finally:
        await nc.close()


async def test_a_refused_removal_is_not_tried_again_at_every_scan(
    nats_server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that refuses the purge (permissions older than the bot) answers nothing: the
    scan gives up on its first failed removal and the next ones leave the markers alone for
    SWEEP_PAUSE_S, instead of each waiting out a time-out."""
    nc, (book,) = await books(nats_server, Identity.new("bot-a"))
    try:
        js = nc.jetstream()
        for n in (1, 2):
            assert await book.release(dead_seat(n).key, await book.record(dead_seat(n)))
        tries: list[str] = []
        real = book._seats._js.purge_stream

        async def refused(name: str, **kwargs: Any) -> bool:
            tries.append(kwargs["subject"])
            raise nats.errors.TimeoutError

        monkeypatch.setattr(book._seats._js, "purge_stream", refused)
        assert await book.seats() == [] and len(tries) == 2  # one round of removals, failed
        assert await book.seats() == [] and len(tries) == 2  # paused: not tried again
        monkeypatch.setattr(book._seats._js, "purge_stream", real)
        book._sweep_after = 0.0  # the pause is over
        assert await book.seats() == []
        assert (await js.stream_info(f"KV_{seats.SEATS_BUCKET}")).state.messages == 0
    finally:
        await nc.close()


async def test_looking_at_the_seat_book_leaves_no_consumers_behind(nats_server: NatsServer) -> None:
    nc, (book,) = await books(nats_server, Identity.new("a"))
    try:
        js = nc.jetstream()
        await book.beat()
        for _ in range(20):  # twenty seconds of takeover scans
            await book.seats()
            await book.live()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:
            left = [
                (await js.stream_info(f"KV_{bucket}")).state.consumer_count
                for bucket in (seats.SEATS_BUCKET, seats.REPLICAS_BUCKET)
            ]
            if max(left) <= 1:
                break
            assert loop.time() < deadline, f"consumers left behind: {left}"
            await asyncio.sleep(0.2)
    finally:
        await nc.close()


def bot_config() -> BotConfig:
    base = BaseConfig(nats_url="", log_format="auto", log_level="info", metrics_port=0)
    return BotConfig(
        base=base, lobby_addr="127.0.0.1:9", bot_key="k", poll_s=0.2, pace=1.0, clock=Clock()
    )


async def test_a_scan_that_missed_a_live_owners_heartbeat_takes_nothing_from_it(
    nats_server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nats-py may say a watch caught up before it delivered everything (nats-io/nats.py#842):
    a replica's scan of the heartbeats can miss one that is there. Its owner's seat then looks
    orphaned, but the claim reads the owner's heartbeat itself first and leaves the seat, round
    after round; once the owner has gone, the seat is taken."""
    me, owner = Identity.new("bot-b"), Identity.new("bot-a")
    nc, (book, theirs) = await books(nats_server, me, owner)
    client = MatchClient("127.0.0.1:9")  # never called: no seat is played here
    bot = Bot(bot_config(), client, book)
    played: list[str] = []
    monkeypatch.setattr(bot, "_play", lambda held, resume=False: played.append(held.record.key))
    try:
        mine = dead_seat().for_owner(owner)
        revision = await theirs.record(mine)
        live_now = book.live

        async def missed() -> dict[str, str]:  # the scan that lost the owner's heartbeat
            return {k: v for k, v in (await live_now()).items() if k != owner.key}

        monkeypatch.setattr(book, "live", missed)
        for _ in range(2):  # each round with both heartbeats fresh: only the scan misses one
            await theirs.beat()
            await bot.heartbeat()
            assert bot.holds_lease()
            assert await bot.takeover_once() == 0
        assert bot.held == {} and played == []
        assert await book.get(mine.key) == (revision, mine)
        monkeypatch.setattr(book, "live", live_now)  # with its heartbeat gone, it is taken
        await theirs.retire()
        await bot.heartbeat()
        assert await bot.takeover_once() == 1
        assert played == [mine.key]
        assert (await book.get(mine.key) or (0, mine))[1].owned_by(me)
    finally:
        await client.close()
        await nc.close()


async def test_after_its_heartbeat_lapsed_a_replica_waits_before_it_acts_again(
    nats_server: NatsServer,
) -> None:
    me, other = Identity.new("bot-a"), Identity.new("bot-b")
    nc, (book, theirs) = await books(nats_server, me, other, ttl_s=1.0)
    client = MatchClient("127.0.0.1:9")  # never called here
    try:
        bot = Bot(bot_config(), client, book)
        assert book.replica_ttl_s == 1.0 and bot.lease_s == seats.HEARTBEAT_S
        await bot.heartbeat()  # the first beat, holding nothing: act at once
        assert bot.holds_lease()
        mine = dead_seat().for_owner(me)
        bot.held[mine.key] = Held(mine, revision=await book.record(mine))
        # The heartbeat expires (the replica was stalled); another replica claims the seat.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while await book.alive(me.replica, me.incarnation):
            assert loop.time() < deadline, "the heartbeat never expired"
            await asyncio.sleep(0.2)
        assert not bot.holds_lease()
        [(revision, record)] = await theirs.seats()
        assert await theirs.replace(revision, record.for_owner(other)) is not None
        # Back: the lapse is noticed; the replica does not act for two more beats.
        await bot.heartbeat()
        assert not bot.holds_lease()
        await bot.heartbeat()
        assert not bot.holds_lease()
        await bot.heartbeat()
        assert bot.holds_lease()
        assert await book.alive(me.replica, me.incarnation)
        assert not await book.alive(me.replica, "another life")
    finally:
        await client.close()
        await nc.close()


# --- what the fill loop says about the lobby ------------------------------------------------


def test_a_lobby_still_starting_is_waited_for_not_warned_about() -> None:
    """``make run`` starts the bot beside the lobby: a refusal in the first seconds is the
    lobby starting, said once as information; its first answer says it is reached."""
    reach = LobbyReach(started=100.0)
    assert reach.failed(100.1) == LobbyReach.STARTING
    assert reach.failed(100.6) is None  # once, not every poll
    assert reach.answered() == "lobby reachable"
    assert reach.answered() is None


def test_a_lobby_that_never_starts_is_warned_about_once_the_grace_is_over() -> None:
    reach = LobbyReach(started=100.0)
    assert reach.failed(100.0) == LobbyReach.STARTING
    assert reach.failed(100.0 + LobbyReach.START_GRACE_S) == LobbyReach.DOWN
    assert reach.failed(200.0) is None
    assert reach.answered() == "lobby reachable again"


def test_a_lobby_lost_after_it_answered_is_warned_about_at_once() -> None:
    reach = LobbyReach(started=100.0)
    assert reach.answered() is None
    assert reach.failed(100.5) == LobbyReach.DOWN  # inside the grace, but it had answered
    assert reach.failed(101.0) is None
    assert reach.answered() == "lobby reachable again"
    assert reach.failed(102.0) == LobbyReach.DOWN
