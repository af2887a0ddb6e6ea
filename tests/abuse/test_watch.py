"""Abuse: Watch streams must not exhaust the events stream's consumers (issue 22, finding 1).

The reproduction, at a bounded scale on a real stack: private tables, many Watch streams per
token over several connections from one address. What must hold (the bounds are in
docs/operations.md, "Limits"):

* each player holds at most LOBBY_MAX_WATCHES_PER_PLAYER streams and each client address (all
  connections together) LOBBY_MAX_WATCHES_PER_ADDRESS; every stream over a cap ends
  RESOURCE_EXHAUSTED with ``retry-after-ms``;
* the consumers on the lobby's copy of the log (MATCH_EVENTS_LOBBY) are at most one per table
  watched (a feed holds one only while it catches up; its records are pushed after that),
  never one per watcher, and none is left once the watchers leave (after the linger);
* every admitted watcher gets its table's events, redacted for itself;
* the bot (exempt from the address cap by its key) still follows its table, and a second
  referee replica takes partitions on meanwhile;
* another player's p50 latency and the lobby's memory stay within bounds;
* lease rounds leave no consumer on the lease bucket, and the bot's scans none on its buckets.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from nats.aio.client import Client

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_bus import subjects
from match_client.client import retry_after_ms
from match_launch.stack import Stack
from services.lobby.viewer import leaks
from tests.conftest import running

RATE = 10.0  # the system clock runs ten times faster, as in tests/e2e
ADDRESS_CAP = 60  # LOBBY_MAX_WATCHES_PER_ADDRESS, below what the attack tries
PLAYER_CAP = 4  # LOBBY_MAX_WATCHES_PER_PLAYER: the default
TABLES, SEATS = 5, 4  # private tables, every seat the attacker's: 20 tokens
REPLACED = 2  # consumers being replaced, lingering a few seconds (see the test)
STREAMS_PER_TOKEN, CONNECTIONS = 8, 8  # 160 streams tried over 8 connections
LINGER_S = 1.0
LEASE_TTL_S = 3.0  # a lease round every second
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
# The bounds this test holds (docs/operations.md, "Limits"): generous, for a 2-core machine
# shared with other tests.
P50_DURING_MAX_MS = 100.0  # another player's GetTable p50 during the attack (the issue: 313)
RSS_GROWTH_MAX_KB = 60_000  # the lobby's resident memory over the attack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        Path(tmp_path_factory.mktemp("abuse-watch")),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "REFEREE_LEASE_TTL_S": str(LEASE_TTL_S),
            "BOT_PACE": "0.2",
            "LOBBY_MAX_WATCHES_PER_ADDRESS": str(ADDRESS_CAP),
            "LOBBY_WATCH_LINGER_S": str(LINGER_S),
        },
    )
    yield from running(s)


@pytest.fixture
async def connections(stack: Stack) -> AsyncIterator[list[grpc.aio.Channel]]:
    """The attacker's connections: one address, several ports."""
    async with contextlib.AsyncExitStack() as opened:
        channels = [
            await opened.enter_async_context(
                grpc.aio.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION)
            )
            for _ in range(CONNECTIONS)
        ]
        yield channels


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def rss_kb(stack: Stack, name: str = "lobby") -> int:
    status = Path(f"/proc/{stack.processes[name].pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1])


async def consumers(nc: Client, stream: str = subjects.LOBBY_EVENTS) -> int:
    return int((await nc.jetstream().stream_info(stream)).state.consumer_count)


async def p50_ms(stub: lobby_pb2_grpc.LobbyServiceStub, table_id: str, n: int = 40) -> float:
    """The median time of GetTable (an open table: no token, so no player bucket is spent)."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await stub.GetTable(lobby_pb2.GetTableRequest(table_id=table_id), timeout=10)
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.02)
    return statistics.median(times)


@dataclass
class Token:
    table_id: str
    player_id: str
    token: str


@dataclass
class Stream:
    token: Token
    call: grpc.aio.UnaryStreamCall
    items: list[race_service_pb2.WatchResponse] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        while (item := await self.call.read()) is not grpc.aio.EOF:
            self.items.append(item)

    def events(self) -> list[common_pb2.EventEnvelope]:
        return [i.event for i in self.items if i.WhichOneof("item") == "event"]


async def attacker_tokens(channel: grpc.aio.Channel) -> list[Token]:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    tokens = []
    for t in range(TABLES):
        made = await lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=common_pb2.GAME_KIND_MATCH_RACE,
                seats=SEATS,
                visibility=common_pb2.VISIBILITY_PRIVATE,
                display_name=f"Mal {t}",
                race=race_pb2.RaceSettings(ready_window_ms=120_000, hints_per_board=0),
            ),
            metadata=(("x-request-id", f"abuse-watch-{t}-{time.time_ns()}"),),
        )
        tokens.append(Token(made.table_id, made.player_id, made.player_token))
        for seat in range(2, SEATS + 1):
            joined = await lobby.JoinTable(
                lobby_pb2.JoinTableRequest(invite_code=made.invite_code, display_name=f"M{seat}"),
                metadata=(("x-request-id", f"abuse-watch-{t}-{seat}-{time.time_ns()}"),),
            )
            tokens.append(Token(joined.table_id, joined.player_id, joined.player_token))
    return tokens


async def open_stream(channel: grpc.aio.Channel, token: Token) -> Stream | grpc.aio.AioRpcError:
    """A Watch from event 0: the stream once its first item came, or the error it ended with."""
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    call = race.Watch(
        race_service_pb2.WatchRequest(table_id=token.table_id), metadata=bearer(token.token)
    )
    stream = Stream(token, call)
    try:
        first = await asyncio.wait_for(call.read(), 20)
    except grpc.aio.AioRpcError as error:
        return error
    assert first is not grpc.aio.EOF
    stream.items.append(first)
    stream.reader = asyncio.create_task(stream.read())
    return stream


async def keep_turning(channel: grpc.aio.Channel, tokens: list[Token], until: float) -> int:
    """Every token turns tiles until ``until`` (most are refused: not its turn, paused, over);
    returns the turns accepted."""
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    accepted = 0
    tile = 0
    while time.monotonic() < until:
        for token in tokens:
            tile = tile % 20 + 1
            with contextlib.suppress(grpc.aio.AioRpcError):
                await race.TurnTile(
                    race_service_pb2.TurnTileRequest(table_id=token.table_id, tile=tile),
                    metadata=(*bearer(token.token), ("x-request-id", f"t{time.time_ns()}")),
                )
                accepted += 1
        await asyncio.sleep(0.2)  # 5 tries a second per token: within its rate
    return accepted


async def test_watch_streams_are_capped_and_share_one_consumer_per_table(
    stack: Stack, nc: Client, connections: list[grpc.aio.Channel]
) -> None:
    async with grpc.aio.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION) as own:
        lobby = lobby_pb2_grpc.LobbyServiceStub(own)
        race = race_service_pb2_grpc.MatchRaceServiceStub(own)
        # The bystander: an open table for two (the bot will take the other seat), watched.
        dee = await lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=common_pb2.GAME_KIND_MATCH_RACE,
                seats=2,
                visibility=common_pb2.VISIBILITY_OPEN,
                display_name="Dee",
                race=race_pb2.RaceSettings(ready_window_ms=120_000),
            ),
            metadata=(("x-request-id", f"abuse-watch-dee-{time.time_ns()}"),),
        )
        dee_token = Token(dee.table_id, dee.player_id, dee.player_token)
        watching = await open_stream(own, dee_token)
        assert isinstance(watching, Stream), watching
        base_consumers = await consumers(nc)
        base_p50 = await p50_ms(lobby, dee.table_id)
        base_rss = rss_kb(stack)

        # The attack: 20 tokens at 5 tables, 8 streams each over 8 connections.
        tokens = await attacker_tokens(connections[0])
        tries = [
            [
                open_stream(connections[(i + n) % CONNECTIONS], token)
                for n in range(STREAMS_PER_TOKEN)
            ]
            for i, token in enumerate(tokens)
        ]
        began = time.monotonic()
        # A few players first (their own cap speaks), then everybody at once (the address's).
        outcomes = [o for t in tries[:TABLES] for o in await asyncio.gather(*t)]
        rest = tries[TABLES:]  # round robin: every token gets some streams
        outcomes += await asyncio.gather(*(t[n] for n in range(STREAMS_PER_TOKEN) for t in rest))
        opening_s = time.monotonic() - began
        streams = [o for o in outcomes if isinstance(o, Stream)]
        refused = [o for o in outcomes if not isinstance(o, Stream)]
        try:
            # The caps hold: the address's (Dee's own stream counts: same address), and each
            # player's; every refusal says so, with a time to wait.
            assert len(streams) == ADDRESS_CAP - 1
            per_player: dict[str, int] = {}
            for s in streams:
                per_player[s.token.player_id] = per_player.get(s.token.player_id, 0) + 1
            assert max(per_player.values()) <= PLAYER_CAP
            assert {e.code() for e in refused} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
            assert all(retry_after_ms(e) == 2000 for e in refused)
            said = {e.details() for e in refused}
            assert any("for this player (4 at most)" in d for d in said), said
            assert any("from this address (60 at most)" in d for d in said), said
            # Per address, not per connection: a new connection from it is refused too.
            fresh = await open_stream(own, dee_token)
            assert isinstance(fresh, grpc.aio.AioRpcError)
            assert fresh.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

            # At most one consumer per table watched (a feed catching up), whatever the watchers:
            # once caught up a feed takes the records its table's copy pushes. A consumer
            # replaced meanwhile (an ordered consumer resets when a loaded machine misses its
            # heartbeats; the listing follows again after a stall) lingers a few seconds: two
            # of those are allowed, never one per watcher.
            during_consumers = await consumers(nc)
            assert during_consumers <= base_consumers + TABLES + REPLACED, during_consumers
            assert during_consumers < len(streams) / 4, (during_consumers, len(streams))

            # Events for every watcher: the games start, everyone presses Ready and turns.
            await _press_ready(race, tokens, streams)
            # A second referee replica takes partitions on meanwhile.
            stack.start_service("referee.2")
            # The bot follows its table meanwhile: Dee starts hers, the bot sits and is Ready.
            await lobby.StartTable(
                lobby_pb2.StartTableRequest(table_id=dee.table_id),
                metadata=(*bearer(dee.player_token), ("x-request-id", f"s{time.time_ns()}")),
            )
            turning = asyncio.create_task(
                keep_turning(connections[1], tokens, time.monotonic() + 8.0)
            )
            during_p50 = await p50_ms(lobby, dee.table_id)
            during_rss = rss_kb(stack)
            accepted = await turning
            bot_ready = await _wait_for_bot_ready(watching, dee.player_id, timeout_s=30)
            await asyncio.sleep(0.5)  # the last events reach every watcher

            # Every watcher of a table got the same events, in order, and only its own faces.
            by_table: dict[str, list[int]] = {}
            for s in streams:
                numbers = [e.event_number for e in s.events()]
                assert numbers == list(range(1, len(numbers) + 1))
                assert not any(leaks(e, s.token.player_id) for e in s.events())
                by_table.setdefault(s.token.table_id, []).append(len(numbers))
            for counts in by_table.values():
                assert max(counts) - min(counts) <= 2, counts  # some still in flight, at most
            delivered = sum(len(s.events()) for s in streams)
            referee2 = stack.log("referee.2", tail=0)
            print(
                f"\nabuse-watch: tried={len(outcomes)} opened={len(streams)} "
                f"refused={len(refused)} in {opening_s:.2f} s; consumers on MATCH_EVENTS_LOBBY "
                f"base={base_consumers} during={during_consumers}; accepted turns={accepted}, "
                f"events delivered={delivered}; GetTable p50 before={base_p50:.1f} ms "
                f"during={during_p50:.1f} ms; lobby RSS before={base_rss} kB "
                f"during={during_rss} kB; bot ready={bot_ready}"
            )
            assert "partitions gained" in referee2
            assert "could not take partitions on" not in referee2
            assert accepted > 0 and delivered > len(streams) * 10
            assert during_p50 <= P50_DURING_MAX_MS
            assert during_rss - base_rss <= RSS_GROWTH_MAX_KB
        finally:
            for s in streams:
                s.call.cancel()
            await asyncio.gather(*(s.reader for s in streams if s.reader), return_exceptions=True)
            if "referee.2" in stack.processes:
                stack.stop_service("referee.2")

        # The watchers left: after the linger their tables' consumers are gone.
        deadline = time.monotonic() + LINGER_S + 10
        while await consumers(nc) > base_consumers and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert await consumers(nc) <= base_consumers
        watching.call.cancel()


async def _press_ready(
    race: race_service_pb2_grpc.MatchRaceServiceStub, tokens: list[Token], streams: list[Stream]
) -> None:
    """Every token presses Ready once its table's Ready is open (its last seat was taken)."""
    deadline = time.monotonic() + 20
    waiting = list(tokens)
    while waiting and time.monotonic() < deadline:
        opened = {
            s.token.table_id
            for s in streams
            if any(e.HasField("race") and e.race.HasField("ready_opened") for e in s.events())
        }
        now = [t for t in waiting if t.table_id in opened]
        await asyncio.gather(
            *(
                race.PressReady(
                    race_service_pb2.PressReadyRequest(table_id=token.table_id),
                    metadata=(*bearer(token.token), ("x-request-id", f"r{time.time_ns()}")),
                )
                for token in now
            )
        )
        waiting = [t for t in waiting if t not in now]
        await asyncio.sleep(0.1)
    assert not waiting, [
        (
            t.table_id,
            t.player_id,
            [len(s.events()) for s in streams if s.token.table_id == t.table_id],
        )
        for t in waiting
    ]


async def _wait_for_bot_ready(stream: Stream, host: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for e in stream.events():
            ready = e.HasField("race") and e.race.HasField("player_ready")
            if ready and e.race.player_ready.player != host:
                return True
        await asyncio.sleep(0.1)
    raise AssertionError("the bot never pressed Ready: it could not follow its table")


async def test_lease_rounds_and_bot_scans_leave_no_consumers(stack: Stack, nc: Client) -> None:
    """Many lease rounds (one a second since the stack started) and bot scans (two a second):
    the lease bucket holds no consumer, the bot's buckets hardly one each at any moment."""
    samples = []
    for _ in range(12):
        samples.append(
            (
                await consumers(nc, f"KV_{subjects.REFEREE_LEASES_BUCKET}"),
                await consumers(nc, "KV_MATCH_BOT_SEATS"),
                await consumers(nc, "KV_MATCH_BOT_REPLICAS"),
            )
        )
        await asyncio.sleep(0.5)
    rounds = (time.monotonic() - STARTED) / (LEASE_TTL_S / 3)
    print(
        f"\nabuse-watch: consumers (leases, bot seats, bot replicas) {samples}; "
        f"~{rounds:.0f} rounds"
    )
    assert all(leases == 0 for leases, _, _ in samples)
    assert all(seats <= 2 and beats <= 2 for _, seats, beats in samples)
    assert "lease round failed" not in stack.log("referee", tail=0)


STARTED = time.monotonic()
