"""Bot replicas against the real stack: two replicas racing for one table take each seat once,
and the seat of a SIGKILLed replica is played on by another one, to the end of the game.

One stack for the module, without the stack's own bot: the tests start bot replicas themselves
(in this process, or as processes with their own MATCH_REPLICA_ID). The system clock runs five
times faster here, so a Ready window of 120 s lasts 24 s of wall time, more than a takeover
needs (the dead replica's heartbeat expires within 5 s).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator

import grpc
import pytest
from nats.aio.client import Client
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from match.v1 import lobby_pb2, race_pb2
from match_bus.clock import Clock
from match_bus.service import BaseConfig
from match_client.client import MatchClient, refusal_code
from match_launch.stack import Stack
from services.bot import seats
from services.bot.config import BotConfig
from services.bot.seats import Identity, SeatBook, SeatRecord
from services.bot.service import Bot
from tests.conftest import running
from tests.e2e.leaks import check_no_leaks
from tests.e2e.players_race import Player

RATE = 5.0
READY_WINDOW_MS = 120_000


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        tmp_path_factory.mktemp("takeover"),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "0.1",
            "BOT_POLL_S": "0.2",
            # The takeover is under test, not the bot's skill: a weak bot (the seed may name
            # one) can use up a board's 80 turns, where the test needs every board cleared.
            "BOT_FORCE_STRENGTH": "strong",
        },
        services=("dealer", "ledger", "referee", "lobby"),
    )
    yield from running(s)


@pytest.fixture
def replicas(stack: Stack) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Bot processes the test starts with ``start_replica``; every one is stopped at the end."""
    started: dict[str, subprocess.Popen[bytes]] = {}
    yield started
    for proc in started.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def start_replica(
    stack: Stack, started: dict[str, subprocess.Popen[bytes]], replica_id: str
) -> subprocess.Popen[bytes]:
    env = stack.service_env("bot")
    env["MATCH_REPLICA_ID"] = replica_id
    log = open(stack.workdir / "logs" / f"{replica_id}.log", "ab")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "services.bot"], env=env, stdout=log, stderr=log)
    log.close()  # the child keeps its own handle
    started[replica_id] = proc
    return proc


def config(stack: Stack, clock: Clock, replica_id: str) -> BotConfig:
    base = BaseConfig(nats_url=stack.url, log_format="auto", log_level="info", metrics_port=0)
    return BotConfig(
        base=base,
        lobby_addr=stack.lobby_addr,
        bot_key=stack.secrets["MATCH_BOT_KEY"],
        poll_s=0.2,
        pace=0.1,
        clock=clock,
        replica_id=replica_id,
    )


async def records(kv: KeyValue, table_id: str) -> dict[int, SeatRecord]:
    out = {}
    for seat in range(1, 5):
        try:
            entry = await kv.get(seats.seat_key(table_id, seat))
        except KeyNotFoundError:
            continue
        record = SeatRecord.decode(entry.value or b"")
        assert record is not None
        out[seat] = record
    return out


async def until(what: str, check: Callable[[], Awaitable[bool]], timeout: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.1)


async def test_two_replicas_racing_for_one_table_take_each_seat_once(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, nc: Client
) -> None:
    ann = Player("Ann", channel, clock)
    created = await ann.create(seats=4, window=READY_WINDOW_MS)
    js = nc.jetstream()
    bots: list[Bot] = []
    try:
        for replica in ("race-a", "race-b"):
            client = MatchClient(stack.lobby_addr)
            book = await SeatBook.open(js, Identity.new(replica))
            bots.append(Bot(config(stack, clock, replica), client, book))
        names = ["Bot 1", "Bot 2", "Bot 3"]
        # Both replicas go for the same three free seats at the same moment.
        taken = await asyncio.gather(*(bot.fill(created.table_id, names) for bot in bots))
        assert sum(taken) == 3, taken
        table = await seated(ann)
        assert sorted(s.seat for s in table.taken) == [1, 2, 3, 4]
        # A JoinTable once the seats are gone is refused, never a fifth seat.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bots[0].client.join_table(
                table_id=created.table_id, display_name="Bot 9", bot_key=bots[0].config.bot_key
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert refusal_code(refused.value) in ("table_full", "table_started")
        # Every seat taken is recorded once, by the replica that took it.
        kv = await js.key_value(seats.SEATS_BUCKET)
        found = await records(kv, created.table_id)
        assert sorted(found) == [2, 3, 4]
        held = {key for bot in bots for key in bot.held}
        assert held == {r.key for r in found.values()}
        for bot in bots:
            for key in bot.held:
                assert found[int(key.rsplit(".", 1)[1])].owned_by(bot.me)
    finally:
        for bot in bots:
            await bot.stop()
            await bot.client.close()
        # Nobody is to play these seats on (a replica of the next test would take them over).
        kv = await js.key_value(seats.SEATS_BUCKET)
        for seat in (2, 3, 4):
            await kv.purge(seats.seat_key(created.table_id, seat))


async def test_the_seat_of_a_killed_replica_is_played_on_by_another(
    stack: Stack,
    channel: grpc.aio.Channel,
    clock: Clock,
    nc: Client,
    replicas: dict[str, subprocess.Popen[bytes]],
) -> None:
    first = start_replica(stack, replicas, "bot-a")
    kv = await seats.open_bucket(nc.jetstream(), seats.SEATS_BUCKET, "", seats.SEAT_TTL_S, 1)
    ann = Player("Ann", channel, clock)
    created = await ann.create(seats=2, window=READY_WINDOW_MS)
    ann.watch()
    await ann.start_table()

    async def recorded_by_a_with_strength() -> bool:
        found = await records(kv, created.table_id)
        return 2 in found and found[2].owner == "bot-a" and bool(found[2].strength)

    # bot-a takes seat 2, and records the strength the table showed once the game starts.
    await until("bot-a recorded seat 2 and its strength", recorded_by_a_with_strength, 30)
    await ann.wait_for("ready_opened", board=1)
    first.kill()  # SIGKILL: no goodbye, its heartbeat expires on its own
    first.wait(10)
    start_replica(stack, replicas, "bot-b")

    async def claimed_by_b() -> bool:
        found = await records(kv, created.table_id)
        return 2 in found and found[2].owner == "bot-b"

    await until("bot-b claimed seat 2", claimed_by_b, 30)
    [bot] = [s for s in (await seated(ann)).taken if s.is_bot]
    # Ann leaves the game: the bot plays the three boards alone, every turn of them bot-b's
    # (no board had started when bot-a died).
    await ann.resign()
    ended = await ann.wait_for("game_ended", timeout=120)
    assert bot.player_id in {s.player for s in ended.standings}
    revealed = [e.board_revealed for e in ann.events() if e.WhichOneof("event") == "board_revealed"]
    assert len(revealed) == 3
    for board in revealed:
        [result] = [r for r in board.results if r.player == bot.player_id]
        assert result.outcome == race_pb2.RaceEvent.OUTCOME_CLEARED, result
        assert result.turns >= 20

    async def released() -> bool:
        return 2 not in await records(kv, created.table_id)

    await until("bot-b removed the finished seat", released, 30)
    await ann.stop_watch()
    assert check_no_leaks(ann.player_id, ann.received) > 0


async def seated(player: Player) -> lobby_pb2.Table:
    reply = await player.lobby.GetTable(
        lobby_pb2.GetTableRequest(table_id=player.table_id), metadata=player.metadata()
    )
    return reply.table
