"""Issue 22, findings 5 to 8, repeated at bounded scale against a real stack (NATS, dealer,
referee and lobby as processes), each with its limit holding:

5. ListTables: the per-call time with 5,000 open tables is that of 20 tables (within a factor of
   3 plus 3 ms), and another player's p50 stays within 3x plus 10 ms of what it was while one
   connection lists 100-table pages at its limit (200 calls/s); the lobby's RSS grows by less than
   64 MB for the 5,000 tables and stays below 400 MB.
6. Invite codes: after the failure budget (5 here) every code from the address is refused
   RESOURCE_EXHAUSTED with ``retry-after-ms``, right ones too, until the wait is over; a code
   past its life is refused; another player's p50 holds meanwhile.
7. Request ids: the same id from another caller gets another table and seat, never the
   victim's token or code; the victim's own retry, over a new connection, gets the first
   answer; predictable ids are refused.
8. Display names: blank, invisible and bot-like names are refused; the bot keeps its names.

The bounds are generous on purpose: two cores shared with other test runs.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from match.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc, referee_pb2
from match_bus import subjects
from match_bus.secretfiles import read_secret
from match_client.client import MatchClient, retry_after_ms
from match_launch.stack import Stack

pytestmark = pytest.mark.timeout(120)

RACE = common_pb2.GAME_KIND_MATCH_RACE
OPEN, PRIVATE = common_pb2.VISIBILITY_OPEN, common_pb2.VISIBILITY_PRIVATE
INVITE_TTL_S = 8  # short, so that a code can be seen expiring
INVITE_FAILURES = 5  # wrong codes per address before the refusals, then one a second
MANY_TABLES = 5_000
RSS_GROWTH_MB = 64  # for MANY_TABLES tables (the issue measured 2.1 KB a table)
RSS_MAX_MB = 400


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        Path(tmp_path_factory.mktemp("abuse-edge")),
        services=("dealer", "referee", "lobby"),
        env={
            "LOBBY_INVITE_TTL_S": str(INVITE_TTL_S),
            "LOBBY_INVITE_FAIL_BURST": str(INVITE_FAILURES),
            "LOBBY_INVITE_FAIL_PER_MIN": "60",
            # Every guess here comes from 127.0.0.1: the call rate per address is
            # tests/abuse/test_tables.py's to show; here the wrong-code budget must refuse.
            "LOBBY_RATE_ADDR": "0",
        },
    )
    s.start()
    try:
        yield s
    finally:
        s.stop()
    assert "Traceback" not in s.log("lobby"), s.log("lobby")
    assert not s.nats_refusals(), "\n".join(s.nats_refusals())


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[MatchClient]:
    async with MatchClient(stack.lobby_addr) as c:
        yield c


# gRPC shares one TCP connection between the channels of a process unless told not to.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]


@pytest.fixture
async def raw(stack: Stack) -> AsyncIterator[lobby_pb2_grpc.LobbyServiceStub]:
    """A connection of its own, speaking plain gRPC (no client key)."""
    async with grpc.aio.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION) as channel:
        yield lobby_pb2_grpc.LobbyServiceStub(channel)


def rss_mb(stack: Stack) -> float:
    status = Path(f"/proc/{stack.processes['lobby'].pid}/status").read_text()
    (line,) = [x for x in status.splitlines() if x.startswith("VmRSS:")]
    return int(line.split()[1]) / 1024


async def p50_s(call: Callable[[], Awaitable[object]], n: int = 40) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def refused(call: Awaitable[object]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def rid() -> tuple[tuple[str, str]]:
    return (("x-request-id", uuid.uuid4().hex),)


def create_request(seats: int = 2, visibility: int = OPEN, name: str = "Ann") -> Any:
    return lobby_pb2.CreateTableRequest(
        game_kind=RACE, seats=seats, visibility=visibility, display_name=name
    )


# --- 5. ListTables ------------------------------------------------------------------------------


def _made(table_id: str, at_ms: int) -> bytes:
    """A table's first record as the referee writes it: made, and its host seated."""
    made = common_pb2.EventEnvelope(
        table_id=table_id, game_id=table_id, game_kind=RACE, event_number=1, server_time_ms=at_ms
    )
    made.table.table_created.CopyFrom(
        common_pb2.TableEvent.TableCreated(
            seats=4, visibility=OPEN, creator="p" + table_id[1:], fill_at_ms=at_ms + 20_000
        )
    )
    seated = common_pb2.EventEnvelope(
        table_id=table_id, game_id=table_id, game_kind=RACE, event_number=2, server_time_ms=at_ms
    )
    seated.table.player_seated.CopyFrom(
        common_pb2.TableEvent.PlayerSeated(seat=1, player_id="p" + table_id[1:], display_name="X")
    )
    return referee_pb2.TableRecord(
        table_id=table_id, record_number=1, first_event_number=1, events=[made, seated]
    ).SerializeToString()


async def add_tables(stack: Stack, first: int, count: int) -> str:
    """``count`` open tables, written on the log directly (with the operator's identity) so
    that the test is quick and no per-address limit on making tables gets in the way: the
    listing is what is measured. Returns the newest table's id."""
    nc = await stack.connect_nats()
    try:
        js = nc.jetstream()
        now = int(time.time() * 1000) - 3_600_000  # made an hour ago: all due for the bot
        ids = [f"a{i:015d}" for i in range(first, first + count)]
        for start in range(0, count, 250):
            batch = ids[start : start + 250]
            await asyncio.gather(
                *(
                    js.publish(subjects.events(t), _made(t, now + first + start + i))
                    for i, t in enumerate(batch)
                )
            )
        return ids[-1]
    finally:
        await nc.close()


async def listed(tables: lobby_pb2_grpc.LobbyServiceStub, table_id: str) -> None:
    """Wait until the listing has folded ``table_id`` (and so every record before it)."""
    for _ in range(200):  # the listing follows the log
        try:
            await tables.GetTable(lobby_pb2.GetTableRequest(table_id=table_id))
            return
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.NOT_FOUND
        await asyncio.sleep(0.05)
    raise AssertionError(f"{table_id} never came in the listing")


async def list_call_s(tables: lobby_pb2_grpc.LobbyServiceStub) -> float:
    """The median time of a ListTables call (a person's page, and the bot's poll)."""
    person = lobby_pb2.ListTablesRequest(page_size=20)
    bot = lobby_pb2.ListTablesRequest(page_size=100, fill_due_by_ms=int(time.time() * 1000))
    both = [
        await p50_s(lambda: tables.ListTables(person), 60),
        await p50_s(lambda: tables.ListTables(bot), 60),
    ]
    return max(both)


async def test_list_tables_costs_the_same_for_20_or_5000_tables(
    stack: Stack, client: MatchClient, raw: lobby_pb2_grpc.LobbyServiceStub
) -> None:
    cat = await client.create_table(seats=2, display_name="Cat")  # another player
    cats_call = lambda: client.get_table(cat.table_id)  # noqa: E731
    newest = await add_tables(stack, 0, 20)
    await listed(raw, newest)
    few_s = await list_call_s(raw)
    cat_before_s = await p50_s(cats_call)
    rss_before = rss_mb(stack)

    newest = await add_tables(stack, 20, MANY_TABLES - 20)
    await listed(raw, newest)
    many_s = await list_call_s(raw)
    grown = rss_mb(stack) - rss_before

    # One connection lists 100-table pages at its limit (200 calls/s: 4 x 50), as in the issue.
    async def flood() -> None:
        request = lobby_pb2.ListTablesRequest(page_size=100)
        while True:
            start = time.perf_counter()
            try:
                await raw.ListTables(request)
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            await asyncio.sleep(max(0.0, 0.02 - (time.perf_counter() - start)))

    flooders = [asyncio.create_task(flood()) for _ in range(4)]
    try:
        await asyncio.sleep(0.2)
        cat_during_s = await p50_s(cats_call)
    finally:
        for task in flooders:
            task.cancel()
        await asyncio.gather(*flooders, return_exceptions=True)

    print(
        f"\nListTables p50: {few_s * 1000:.2f} ms at 20 tables, {many_s * 1000:.2f} ms at "
        f"{MANY_TABLES}; another player's p50 {cat_before_s * 1000:.2f} ms before, "
        f"{cat_during_s * 1000:.2f} ms while one connection lists at 200/s; lobby RSS "
        f"{rss_before:.0f} MB +{grown:.1f} MB"
    )
    assert many_s < 3 * few_s + 0.003, (few_s, many_s)
    assert cat_during_s < 3 * cat_before_s + 0.010, (cat_before_s, cat_during_s)
    assert grown < RSS_GROWTH_MB and rss_mb(stack) < RSS_MAX_MB, (rss_before, grown)

    # The pages follow each other without a gap or a repeat, the bot's due tables too.
    seen: list[str] = []
    token = ""
    for _ in range(3):
        page = await raw.ListTables(lobby_pb2.ListTablesRequest(page_size=100, page_token=token))
        seen += [t.table_id for t in page.tables]
        token = page.next_page_token
    assert len(seen) == len(set(seen)) == 300
    due = await client.list_tables(fill_due_by_ms=int(time.time() * 1000), max_pages=2)
    assert len(due) == 200 and due[0].fill_at_ms <= due[-1].fill_at_ms
    assert cat.table_id not in {t.table_id for t in due}  # not due for 20 s


# --- 7. request ids -----------------------------------------------------------------------------


async def test_a_replayed_request_id_from_another_caller_gets_nothing_of_the_victims(
    stack: Stack, client: MatchClient, raw: lobby_pb2_grpc.LobbyServiceStub
) -> None:
    victim_rid = uuid.uuid4().hex
    victim = await client.create_table(
        seats=3, visibility=PRIVATE, display_name="Vic", request_id=victim_rid
    )
    # The victim's own retry, over a new connection (the same client key), gets its answer.
    async with MatchClient(stack.lobby_addr, client_key=client.client_key) as again:
        retried = await again.create_table(
            seats=3, visibility=PRIVATE, display_name="Vic", request_id=victim_rid
        )
    assert (retried.table_id, retried.player_id, retried.seat, retried.invite_code) == (
        victim.table_id,
        victim.player_id,
        1,
        victim.invite_code,
    )

    # Another caller replays it: with other settings, as a plain connection, with a key of
    # its own. Each time another table and another seat, never the victim's.
    replay = (("x-request-id", victim_rid),)
    async with MatchClient(stack.lobby_addr) as thief:
        stolen = [
            await raw.CreateTable(create_request(4, OPEN, "Eve"), metadata=replay),
            await raw.CreateTable(create_request(3, PRIVATE, "Eve"), metadata=replay),
        ]
        mine = await thief.create_table(
            seats=3, visibility=PRIVATE, display_name="Eve", request_id=victim_rid
        )
        for got in [*stolen, mine]:
            table_id = got.table_id
            assert table_id != victim.table_id
            assert got.invite_code != victim.invite_code
            token = getattr(got, "player_token", None) or getattr(got, "token", "")
            error = await refused(thief.get_table(victim.table_id, token))
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED

        # A join replayed by another caller is another player (here refused: no such code).
        bob_rid = uuid.uuid4().hex
        bob = await client.join_table(
            invite_code=victim.invite_code, display_name="Bob", request_id=bob_rid
        )
        eve = await thief.join_table(
            invite_code=victim.invite_code, display_name="Bob", request_id=bob_rid
        )
        assert eve.player_id != bob.player_id and eve.seat == 3 and bob.seat == 2

    # Predictable ids are refused, with what to send instead.
    for bad in ("0000000000000000", "0123456789abcdef", "abababababababab", "req-" + "0" * 14):
        error = await refused(raw.CreateTable(create_request(), metadata=(("x-request-id", bad),)))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, bad
        assert "unpredictable" in (error.details() or "") and "uuid4" in (error.details() or "")
    error = await refused(
        raw.CreateTable(create_request(), metadata=(*rid(), ("x-client-key", "1" * 32)))
    )
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "x-client-key" in (error.details() or "")


# --- 8. display names ---------------------------------------------------------------------------


async def test_blank_invisible_and_bot_like_names_are_refused(
    stack: Stack, client: MatchClient, raw: lobby_pb2_grpc.LobbyServiceStub
) -> None:
    host = await client.create_table(seats=4, display_name="Ann")
    bad = {
        "\u3164": "invisible, blank",
        "\u2800": "invisible, blank",
        "A\u200bnn": "invisible, blank",
        "\u0301\u0301\u0301": "combining",
        "An\u0301\u0301\u0301n": "combining",
        "Bot 1": "bot's name",
        "Bot": "bot's name",
        "\u0412\u043e\u0442 1": "bot's name",  # Cyrillic
        "B0t l": "bot's name",
        "\uff22\uff4f\uff54 2": "bot's name",  # fullwidth
    }
    for name, words in bad.items():
        for call in (
            raw.CreateTable(create_request(name=name), metadata=rid()),
            raw.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=host.table_id, display_name=name),
                metadata=rid(),
            ),
        ):
            error = await refused(call)
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, name
            assert words in (error.details() or ""), (name, error.details())
    # The bot service keeps its names; a person next to it cannot take one.
    bot_key = read_secret(stack.bot_key_file).decode().strip()
    bot = await client.join_table(table_id=host.table_id, display_name="Bot 1", bot_key=bot_key)
    person = await client.join_table(table_id=host.table_id, display_name="Botticelli")
    table = await client.get_table(host.table_id)
    names = {s.seat: (s.display_name, s.is_bot) for s in table.taken}
    assert names[bot.seat] == ("Bot 1", True) and names[person.seat] == ("Botticelli", False)


# --- 6. invite codes ----------------------------------------------------------------------------


async def test_wrong_invite_codes_are_refused_after_the_failure_limit(
    stack: Stack, client: MatchClient
) -> None:
    early = await client.create_table(seats=2, visibility=PRIVATE, display_name="Old")
    made_early = time.monotonic()
    ann = await client.create_table(seats=3, visibility=PRIVATE, display_name="Ann")
    assert len(ann.invite_code) == 12
    cat = await client.create_table(seats=2, display_name="Cat")  # another player
    cats_call = lambda: client.get_table(cat.table_id)  # noqa: E731
    cat_before_s = await p50_s(cats_call)

    # 20 connections guess as fast as they can for a second.
    outcomes: dict[str, int] = {}
    waits: list[int] = []

    async def guess(n: int) -> None:
        async with grpc.aio.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION) as ch:
            guesser = lobby_pb2_grpc.LobbyServiceStub(ch)
            deadline = time.monotonic() + 1.0
            i = 0
            while time.monotonic() < deadline:
                i += 1
                code = f"{n:02d}{i:010d}".translate(str.maketrans("01", "XY"))
                try:
                    await guesser.JoinTable(
                        lobby_pb2.JoinTableRequest(invite_code=code, display_name="Eve"),
                        metadata=rid(),
                    )
                    outcomes["JOINED"] = outcomes.get("JOINED", 0) + 1
                except grpc.aio.AioRpcError as error:
                    name = error.code().name
                    outcomes[name] = outcomes.get(name, 0) + 1
                    wait = retry_after_ms(error)
                    if wait is not None:
                        waits.append(wait)

    guessing = asyncio.gather(*(guess(n) for n in range(20)))
    await asyncio.sleep(0.3)
    cat_during_s = await p50_s(cats_call, 20)
    await guessing
    print(
        f"\n20 connections, 1 s of wrong invite codes: {outcomes}; another player's p50 "
        f"{cat_before_s * 1000:.2f} ms before, {cat_during_s * 1000:.2f} ms during"
    )
    assert outcomes.get("NOT_FOUND", 0) <= INVITE_FAILURES + 2  # the budget, and its refill
    assert outcomes.get("RESOURCE_EXHAUSTED", 0) >= 20 and "JOINED" not in outcomes
    assert waits and all(0 < w <= 1000 for w in waits)
    assert cat_during_s < 3 * cat_before_s + 0.010, (cat_before_s, cat_during_s)

    # While refused, the right code is refused too: nothing tells a guess that it was right.
    # Spend what came back since the flood, until the next unit is at least 0.5 s away (a
    # refusal with a unit almost refilled would let the next call through on a slow machine).
    for _ in range(INVITE_FAILURES + 20):
        error = await refused(client.join_table(invite_code="XXXXXXXXXXXX", display_name="E"))
        if (
            error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            and (retry_after_ms(error) or 0) >= 500
        ):
            break
    error = await refused(client.join_table(invite_code=ann.invite_code, display_name="Bob"))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    wait = retry_after_ms(error)
    assert wait is not None and "wrong invite codes from your address" in (error.details() or "")
    assert f"wait {wait} ms" in (error.details() or "")
    await asyncio.sleep(wait / 1000 + 0.05)
    bob = await client.join_table(invite_code=ann.invite_code, display_name="Bob")
    assert (bob.table_id, bob.seat) == (ann.table_id, 2)

    # A code past its life opens nothing.
    await asyncio.sleep(max(0.0, made_early + INVITE_TTL_S + 0.5 - time.monotonic()))
    error = await refused(client.join_table(invite_code=early.invite_code, display_name="Dan"))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "expired" in (error.details() or "")
