"""Abuse: tables, bot seats, finished games and the audit API (issue 22, findings 2-4).

Each test repeats a reproduction of the issue at a bounded scale against a real stack and shows
the limit holding. The limits are set small here (the env below); the defaults are in
docs/operations.md ("Limits"). Clients come from two addresses: 127.0.0.1 (the attacker) and
::1 (a bystander), as the lobby listens on both loopbacks.

Each test has a stack of its own: the suite runs in a random order, and a bucket drained or a
table left waiting by one test must not decide another. Bounds, measured on a 2-core machine
shared with other test runs:

- another player's p50 (GetTable of their own table, from the other address) during a flood:
  at most max(5 x before, before + 100 ms);
- the lobby's and the referee's RSS: grow by at most 40 MB over a test.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc import StatusCode

from match.v1 import (
    audit_pb2,
    audit_pb2_grpc,
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_service_pb2,
    race_service_pb2_grpc,
    referee_pb2,
)
from match_audit.client import LedgerClient
from match_bus.jetstream import TableLog
from match_client.client import refusal_code, retry_after_ms
from match_launch.natsserver import free_port
from match_launch.stack import Stack
from tests.conftest import running

RATE = 10.0  # the referee's clock runs ten times faster
# A waiting table expires after 200 s of referee time: 20 s of wall time, so none expires
# while the caps are still being filled on a slow, shared machine (at 6 s, the first did).
EXPIRY_MS = 200_000
CREATE_BURST, CREATE_RATE = 3, 0.5  # CreateTable per address
WAITING_PER_ADDR, WAITING_MAX = 4, 6
BOTS_PER_ADDR, BOTS_MAX = 2, 3
LEDGER_BURST, LEDGER_RATE = 10, 5
RSS_GROWTH_KB = 40 * 1024
OWN = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    s = Stack(
        tmp_path / "stack",
        lobby_addr=f"[::]:{free_port()}",  # both loopbacks: two client addresses
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "REFEREE_TABLE_EXPIRY_MS": str(EXPIRY_MS),
            "REFEREE_METRICS_PORT": str(free_port()),
            "BOT_PACE": "0.3",
            "LOBBY_RATE_CREATE": str(CREATE_RATE),
            "LOBBY_BURST_CREATE": str(CREATE_BURST),
            "LOBBY_WAITING_PER_ADDR": str(WAITING_PER_ADDR),
            "LOBBY_WAITING_MAX": str(WAITING_MAX),
            "LOBBY_BOTS_PER_ADDR": str(BOTS_PER_ADDR),
            "LOBBY_BOTS_MAX": str(BOTS_MAX),
            "LEDGER_RATE_ADDR": str(LEDGER_RATE),
            "LEDGER_BURST_ADDR": str(LEDGER_BURST),
        },
    )
    yield from running(s)


@pytest.fixture
def rss_at_start(stack: Stack) -> dict[str, int]:
    return {name: rss_kb(stack, name) for name in ("lobby", "referee")}


# --- helpers ----------------------------------------------------------------------------------


def referee_metrics(stack: Stack) -> int:
    return int(stack.env["REFEREE_METRICS_PORT"])


def port_of(stack: Stack) -> str:
    return stack.lobby_addr.rsplit(":", 1)[1]


@asynccontextmanager
async def client(stack: Stack, host: str) -> AsyncIterator[grpc.aio.Channel]:
    """A connection of its own from ``host``: "127.0.0.1" or "[::1]"."""
    async with grpc.aio.insecure_channel(f"{host}:{port_of(stack)}", options=OWN) as channel:
        yield channel


def rid() -> tuple[tuple[str, str], ...]:
    return (("x-request-id", uuid.uuid4().hex),)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"), *rid())


def create_request(
    seats: int = 2, visibility: int = common_pb2.VISIBILITY_OPEN
) -> lobby_pb2.CreateTableRequest:
    return lobby_pb2.CreateTableRequest(
        game_kind=common_pb2.GAME_KIND_MATCH_RACE,
        seats=seats,
        visibility=visibility,
        display_name="Host",
    )


async def create(
    stub: lobby_pb2_grpc.LobbyServiceStub, **settings: Any
) -> lobby_pb2.CreateTableResponse:
    """CreateTable, waiting as told when the address's table rate says so."""
    for _ in range(20):
        try:
            made: lobby_pb2.CreateTableResponse = await stub.CreateTable(
                create_request(**settings), metadata=rid()
            )
            return made
        except grpc.aio.AioRpcError as error:
            if "(new tables)" not in (error.details() or ""):
                raise
            await asyncio.sleep(assert_told_to_wait(error) / 1000)
    raise AssertionError("the table rate never let a table through")


async def patient(call: Any) -> Any:
    """An audit call, sent again after the wait a rate limit asks for."""
    for _ in range(50):
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() != StatusCode.RESOURCE_EXHAUSTED:
                raise
            await asyncio.sleep(assert_told_to_wait(error) / 1000)
    raise AssertionError("the ledger kept refusing")


async def failure(call: Any) -> grpc.aio.AioRpcError:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError("the call succeeded")


def assert_told_to_wait(error: grpc.aio.AioRpcError) -> int:
    assert error.code() == StatusCode.RESOURCE_EXHAUSTED, error
    wait = retry_after_ms(error)
    assert wait is not None and wait >= 1, error.trailing_metadata()
    return wait


def rss_kb(stack: Stack, name: str) -> int:
    status = Path(f"/proc/{stack.processes[name].pid}/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1])


def metric(port: int, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        text = page.read().decode()
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.split()[-1])
    return 0.0


async def p50_ms(stub: lobby_pb2_grpc.LobbyServiceStub, table_id: str, n: int = 30) -> float:
    """The median latency of GetTable of one's own table, in ms."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await stub.GetTable(lobby_pb2.GetTableRequest(table_id=table_id))
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.01)
    return statistics.median(times)


async def until(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = await check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        await asyncio.sleep(0.2)


async def records_of(stack: Stack, table_id: str) -> list[referee_pb2.TableRecord]:
    nc = await stack.connect_nats()
    try:
        stored = await TableLog(nc.jetstream()).read(table_id)
    finally:
        await nc.close()
    return [referee_pb2.TableRecord.FromString(r.data) for r in stored]


# --- finding 2: tables without limit, never removed ---------------------------------------------


async def test_tables_are_capped_per_address_and_in_all_and_waiting_ones_expire(
    stack: Stack, rss_at_start: dict[str, int]
) -> None:
    async with client(stack, "[::1]") as bystander_ch, client(stack, "127.0.0.1") as probe_ch:
        bystander = lobby_pb2_grpc.LobbyServiceStub(bystander_ch)
        own = await bystander.CreateTable(create_request(), metadata=rid())
        before = await p50_ms(bystander, own.table_id)

        # 20 connections from one address, 10 CreateTable each, all at once.
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port_of(stack)}", options=OWN)]
        channels += [
            grpc.aio.insecure_channel(f"127.0.0.1:{port_of(stack)}", options=OWN) for _ in range(19)
        ]
        try:
            stubs = [lobby_pb2_grpc.LobbyServiceStub(c) for c in channels]

            async def one(stub: lobby_pb2_grpc.LobbyServiceStub) -> Any:
                try:
                    return await stub.CreateTable(create_request(), metadata=rid())
                except grpc.aio.AioRpcError as error:
                    return error

            started = time.monotonic()
            flood = asyncio.gather(*(one(s) for s in stubs for _ in range(10)))
            during = await p50_ms(bystander, own.table_id)
            outcomes = await flood
            elapsed = time.monotonic() - started
        finally:
            for c in channels:
                await c.close()
        made = [o for o in outcomes if isinstance(o, lobby_pb2.CreateTableResponse)]
        refused = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        # The CreateTable bucket binds: its whole burst goes through at once, and no more than
        # what refilled while the flood lasted (the waiting cap, 4, would let one more through
        # when the flood is over within 2 s).
        allowed = math.floor(CREATE_BURST + elapsed * CREATE_RATE)
        assert CREATE_BURST <= len(made) <= allowed, (len(made), elapsed)
        assert len(made) <= WAITING_PER_ADDR
        assert len(made) + len(refused) == 200
        for error in refused:
            assert_told_to_wait(error)
        reasons = {e.details().split(":")[0] for e in refused}
        assert any("too many requests from this address (new tables)" in r for r in reasons)
        # Latency of another player, from another address, during the flood.
        print(
            f"abuse-tables: flood made={len(made)} refused={len(refused)} p50_before_ms="
            f"{before:.1f} p50_during_ms={during:.1f}"
        )
        assert during <= max(5 * before, before + 100), (before, during)

        # Once the rate lets it, the address meets its cap of waiting tables.
        probe = lobby_pb2_grpc.LobbyServiceStub(probe_ch)
        while len(made) < WAITING_PER_ADDR:
            await asyncio.sleep(1 / CREATE_RATE)
            made.append(await probe.CreateTable(create_request(), metadata=rid()))
        await asyncio.sleep(1 / CREATE_RATE)
        capped = await failure(probe.CreateTable(create_request(), metadata=rid()))
        assert_told_to_wait(capped)
        assert "your address has 4 tables waiting for players" in capped.details()

        # The whole system's cap: the bystander's address may make one more, then nobody.
        another = await bystander.CreateTable(create_request(), metadata=rid())
        full = await failure(bystander.CreateTable(create_request(), metadata=rid()))
        assert_told_to_wait(full)
        assert "the lobby holds its most tables waiting for players (6)" in full.details()
        listed = await bystander.ListTables(lobby_pb2.ListTablesRequest(page_size=100))
        assert len(listed.tables) <= WAITING_MAX

        # Expiry: every waiting table is closed at its expires_at_ms, stamped with that instant.
        mine = [m.table_id for m in made] + [own.table_id, another.table_id]

        async def all_gone() -> bool:
            page = await bystander.ListTables(lobby_pb2.ListTablesRequest(page_size=100))
            return not {t.table_id for t in page.tables} & set(mine)

        await until(all_gone, EXPIRY_MS / RATE / 1000 + 10, "expired tables left the listing")
        log = await records_of(stack, own.table_id)
        created = log[0].events[0].table.table_created
        last = log[-1]
        assert last.events[0].table.HasField("table_expired")
        assert last.events[0].server_time_ms == created.expires_at_ms
        assert created.expires_at_ms == log[0].events[0].server_time_ms + EXPIRY_MS
        assert last.command.HasField("tick")
        assert (
            await asyncio.to_thread(metric, referee_metrics(stack), "match_referee_live_tables")
            == 0
        )
        expired = await asyncio.to_thread(
            metric, referee_metrics(stack), "match_referee_tables_expired_total"
        )
        assert expired >= len(mine)

        # A later join, start or look gets a clear refusal.
        join = await failure(
            bystander.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=made[0].table_id, display_name="Late"),
                metadata=rid(),
            )
        )
        assert join.code() == StatusCode.FAILED_PRECONDITION
        assert refusal_code(join) == "table_expired"
        start = await failure(
            bystander.StartTable(
                lobby_pb2.StartTableRequest(table_id=own.table_id),
                metadata=bearer(own.player_token),
            )
        )
        assert start.code() == StatusCode.FAILED_PRECONDITION
        assert refusal_code(start) == "table_expired"
        look = await failure(bystander.GetTable(lobby_pb2.GetTableRequest(table_id=own.table_id)))
        assert refusal_code(look) == "table_expired"
        # And the address may make tables again.
        fresh = await probe.CreateTable(create_request(seats=4), metadata=rid())
        assert fresh.seat == 1

    # A restart does not load expired tables (only the one just made).
    stack.stop_service("referee")
    stack.start_service("referee")

    async def reloaded() -> float:
        try:
            return await asyncio.to_thread(
                metric, referee_metrics(stack), "match_referee_live_tables"
            )
        except OSError:
            return 0.0

    assert await until(reloaded, 30, "the referee took its tables on again") == 1
    print(
        f"abuse-tables: rss_kb start={rss_at_start} now=",
        {n: rss_kb(stack, n) for n in rss_at_start},
    )
    for name, kb in rss_at_start.items():
        assert rss_kb(stack, name) - kb <= RSS_GROWTH_KB, (name, kb, rss_kb(stack, name))


# --- finding 3: bot amplification --------------------------------------------------------------


async def test_bots_fill_tables_within_a_budget_per_creator_address_and_in_all(
    stack: Stack, rss_at_start: dict[str, int]
) -> None:
    async with client(stack, "127.0.0.1") as a_ch, client(stack, "[::1]") as b_ch:
        a, b = lobby_pb2_grpc.LobbyServiceStub(a_ch), lobby_pb2_grpc.LobbyServiceStub(b_ch)
        hosts = [await create(a) for _ in range(3)]
        for host in hosts[:2]:
            await a.StartTable(
                lobby_pb2.StartTableRequest(table_id=host.table_id),
                metadata=bearer(host.player_token),
            )
        over = await failure(
            a.StartTable(
                lobby_pb2.StartTableRequest(table_id=hosts[2].table_id),
                metadata=bearer(hosts[2].player_token),
            )
        )
        assert_told_to_wait(over)
        assert "bot seats" in over.details()
        # The bot itself is refused there too (as it would be at the fill time).
        bot_key = stack.bot_key_file.read_text().strip()
        as_bot = await failure(
            a.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=hosts[2].table_id, display_name="Bot 9"),
                metadata=(("x-match-bot-key", bot_key), *rid()),
            )
        )
        assert_told_to_wait(as_bot)

        async def started() -> bool:
            for host in hosts[:2]:
                got = await a.GetTable(lobby_pb2.GetTableRequest(table_id=host.table_id))
                if got.table.status != lobby_pb2.Table.STATUS_PLAYING:
                    return False
            return True

        await until(started, 20, "the bot filled the two tables within the budget")
        # The whole system's budget: one seat left for the other address, then none.
        one = await create(b)
        await b.StartTable(
            lobby_pb2.StartTableRequest(table_id=one.table_id), metadata=bearer(one.player_token)
        )
        two = await create(b)
        busy = await failure(
            b.StartTable(
                lobby_pb2.StartTableRequest(table_id=two.table_id),
                metadata=bearer(two.player_token),
            )
        )
        assert_told_to_wait(busy)
        assert "every bot is busy (3 seats)" in busy.details()

        async def bots_now() -> int:
            seats = 0
            for table_id in [h.table_id for h in hosts] + [one.table_id, two.table_id]:
                got = await a.GetTable(lobby_pb2.GetTableRequest(table_id=table_id))
                seats += sum(s.is_bot for s in got.table.taken)
            return seats

        await until(lambda: _eq(bots_now(), BOTS_MAX), 20, "the third bot seat was taken")
        await asyncio.sleep(2)  # several bot polls later: still within the budget
        assert await bots_now() == BOTS_MAX
    for name, kb in rss_at_start.items():
        assert rss_kb(stack, name) - kb <= RSS_GROWTH_KB, (name, kb, rss_kb(stack, name))


async def _eq(value: Any, expected: int) -> bool:
    return bool(await value == expected)


# --- finding 4: a finished game's log, and the audit API ---------------------------------------


async def test_a_finished_games_log_keeps_its_size_and_the_audit_api_is_limited(
    stack: Stack,
) -> None:
    async with client(stack, "127.0.0.1") as a_ch, client(stack, "[::1]") as b_ch:
        a, b = lobby_pb2_grpc.LobbyServiceStub(a_ch), lobby_pb2_grpc.LobbyServiceStub(b_ch)
        made = await create(a, visibility=common_pb2.VISIBILITY_PRIVATE)
        joined = await b.JoinTable(
            lobby_pb2.JoinTableRequest(invite_code=made.invite_code, display_name="Guest"),
            metadata=rid(),
        )
        race_a = race_service_pb2_grpc.MatchRaceServiceStub(a_ch)
        race_b = race_service_pb2_grpc.MatchRaceServiceStub(b_ch)
        table = made.table_id
        for race, token in ((race_a, made.player_token), (race_b, joined.player_token)):
            await race.Resign(
                race_service_pb2.ResignRequest(table_id=table), metadata=bearer(token)
            )

        async def revealed() -> list[referee_pb2.TableRecord] | None:
            log = await records_of(stack, table)
            done = any(e.table.HasField("seed_revealed") for r in log for e in r.events)
            return log if done else None

        at_end = len(await until(revealed, 20, "the seed was revealed"))

        # 200 late commands from both tokens (each sent again when its player's rate limit
        # says wait): every one refused game_over, none appended.
        async def late(race: Any, token: str, n: int) -> list[str]:
            codes: list[str] = []
            i = 0
            while len(codes) < n:
                request: Any = (
                    race_service_pb2.TurnTileRequest(table_id=table, tile=1 + i % 20)
                    if i % 2
                    else race_service_pb2.PressReadyRequest(table_id=table)
                )
                call = race.TurnTile if i % 2 else race.PressReady
                error = await failure(call(request, metadata=bearer(token)))
                if error.code() == StatusCode.RESOURCE_EXHAUSTED and retry_after_ms(error):
                    await asyncio.sleep(assert_told_to_wait(error) / 1000)
                    continue
                codes.append(refusal_code(error) or error.code().name)
                i += 1
            return codes

        codes = await asyncio.gather(
            late(race_a, made.player_token, 100), late(race_b, joined.player_token, 100)
        )
        assert [c for cs in codes for c in cs] == ["game_over"] * 200
        assert len(await records_of(stack, table)) == at_end
        print(f"abuse-tables: finished game records={at_end} after 200 late commands")

        # The audit API: pages against one checkpoint, and match-audit reads them all.
        audit_addr = stack.service_env("ledger")["LEDGER_ADDR"]
        async with grpc.aio.insecure_channel(audit_addr, options=OWN) as ledger_ch:
            audit = audit_pb2_grpc.LedgerAuditServiceStub(ledger_ch)

            async def served() -> Any:
                try:
                    return await patient(
                        lambda: audit.GetGameRecords(
                            audit_pb2.GetGameRecordsRequest(table_id=table, page_size=2)
                        )
                    )
                except grpc.aio.AioRpcError as error:
                    if error.code() in (StatusCode.FAILED_PRECONDITION, StatusCode.UNAVAILABLE):
                        return None
                    raise

            first = await until(served, 20, "the ledger served the game")
            pages, token = [first], first.next_page_token
            while token:
                ask = audit_pb2.GetGameRecordsRequest(table_id=table, page_size=2, page_token=token)
                page = await patient(lambda ask=ask: audit.GetGameRecords(ask))
                assert page.checkpoint == first.checkpoint
                pages.append(page)
                token = page.next_page_token
            assert sum(len(p.entries) for p in pages) == at_end
            assert all(len(p.entries) <= 2 for p in pages)
            try:
                await patient(
                    lambda: audit.GetGameRecords(
                        audit_pb2.GetGameRecordsRequest(table_id=table, page_token="9.x")
                    )
                )
                raise AssertionError("a bad page token was accepted")
            except grpc.aio.AioRpcError as bad:
                assert bad.code() == StatusCode.INVALID_ARGUMENT

            # 20 clients of one address at once: the ledger answers some and tells the rest
            # when to come back.
            await asyncio.sleep(LEDGER_BURST / LEDGER_RATE)  # the bucket is full again
            many = [grpc.aio.insecure_channel(audit_addr, options=OWN) for _ in range(20)]
            try:
                stubs = [audit_pb2_grpc.LedgerAuditServiceStub(c) for c in many]

                async def ask(stub: Any) -> Any:
                    try:
                        return await stub.GetGameRecords(
                            audit_pb2.GetGameRecordsRequest(table_id=table)
                        )
                    except grpc.aio.AioRpcError as error:
                        return error

                began = time.monotonic()
                outcomes = await asyncio.gather(*(ask(s) for s in stubs for _ in range(5)))
                elapsed = time.monotonic() - began
            finally:
                for c in many:
                    await c.close()
            errors = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
            # The burst, and no more than what refilled while the flood lasted.
            allowed = math.floor(LEDGER_BURST + elapsed * LEDGER_RATE)
            answered = len(outcomes) - len(errors)
            assert LEDGER_BURST <= answered <= allowed, (answered, elapsed)
            assert len(errors) >= 100 - allowed
            waits = [assert_told_to_wait(e) for e in errors]
            print(
                f"abuse-tables: audit flood answered={len(outcomes) - len(errors)} "
                f"refused={len(errors)}"
            )
            await asyncio.sleep(max(waits) / 1000 + 0.05)
        # match-audit pages through it and waits when told to.
        evidence = await asyncio.to_thread(_evidence, audit_addr, table)
        assert len(evidence.entries) == at_end


def _evidence(addr: str, table: str) -> Any:
    with LedgerClient(addr) as ledger:
        return ledger.evidence(table)
