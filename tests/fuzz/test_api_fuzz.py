"""Fuzzing the public gRPC API of a running stack: garbage, wrong types, huge fields, calls out of
order, bad tokens and a flood; then the stack must still be healthy, a normal game must still
play, and nothing any fuzz client received may show a face it did not turn.

Every answer is checked against what docs/api.md documents for the method (tests/fuzz/api.py):
never UNKNOWN or INTERNAL, never a hang (every call has a timeout), never an internal detail in
the message. Hypothesis runs derandomized with no example database, so every run sends the same
requests. The tests share one stack and run in the order written; the last one looks at what the
others left behind.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nats.aio.client import Client

from match.v1 import (
    common_pb2,
    lobby_pb2,
    race_command_pb2,
    race_pb2,
    race_service_pb2,
    referee_pb2,
    views_pb2,
)
from match_bus.clock import Clock
from match_launch.stack import Stack
from services.lobby.config import DEFAULT_ADDRESS_LIMIT
from tests.e2e.leaks import check_no_leaks
from tests.e2e.players_race import Player, commitment_holds, fetch_deal, pairs_of
from tests.fuzz.api import (
    BY_NAME,
    METHODS,
    OWN_CONNECTION,
    Method,
    Outcome,
    acall,
    bodies,
    call,
    decoded,
    messages,
    metadata,
    problems,
)
from tests.fuzz.conftest import Seen

S = grpc.StatusCode
FUZZ = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,  # the same examples on every run: reproducible in CI
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
UNKNOWN_TABLE = "0123456789abcdef"  # well formed, never made (the lobby makes 16 hex digits)
WAVE = 500  # calls at once in a flood
MAX_FLOOD = 6_000  # a flood that meets no limit by then fails


def record(seen: Seen, method: Method, outcome: Outcome) -> list[str]:
    """Keep what came back for the leak check; the problems with the answer."""
    seen.calls += 1
    if outcome.code == S.OK:
        seen.strangers.extend(decoded(method, outcome))
    return problems(method, outcome)


def person(seen: Seen, name: str, channel: grpc.aio.Channel, clock: Clock) -> Player:
    player = Player(name, channel, clock)
    seen.people.append(player)
    return player


@asynccontextmanager
async def own_channel(stack: Stack, host: str = "") -> AsyncIterator[grpc.aio.Channel]:
    """A connection of its own; from another client address with ``host="127.0.0.1"``."""
    addr = f"{host}:{stack.lobby_addr.rsplit(':', 1)[1]}" if host else stack.lobby_addr
    async with grpc.aio.insecure_channel(addr, options=OWN_CONNECTION) as ch:
        yield ch


async def refused(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def code_of(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str | None]:
    slug = None
    for key, value in error.trailing_metadata() or ():
        if key == "match-refusal-code":
            slug = str(value)
    return error.code(), slug


def mint(stack: Stack, table: str, player: str, seat: int, exp: int) -> str:
    """A player token as docs/api.md specifies it, signed with the stack's secret: test
    privilege, to make tokens no client can (expired ones, ones for tables that do not exist)."""
    secret = bytes.fromhex(stack.secrets["MATCH_TOKEN_SECRET"])
    claims = {"table": table, "player": player, "seat": seat, "exp": exp}
    payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
    signature = hmac.new(secret, payload, hashlib.sha256).digest()

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    return f"{b64(payload)}.{b64(signature)}"


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture
def rested() -> None:
    """The fuzz clients' address with its whole burst again. The scripted people share it with
    the garbage above, which may have spent it (RESOURCE_EXHAUSTED is one of the documented
    answers there); a call they expect a given refusal for must not meet the address's limit
    instead. The bucket refills in burst / rate seconds (services/lobby/config.py)."""
    limit = DEFAULT_ADDRESS_LIMIT
    time.sleep(limit.burst / limit.per_s + 0.1)


# --- garbage -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.name)
@FUZZ
@given(body=bodies(), md=metadata())
def test_random_bytes_get_a_documented_status(
    method: Method, body: bytes, md: list[tuple[str, str]], raw: grpc.Channel, seen: Seen
) -> None:
    assert record(seen, method, call(raw, method, body, md)) == []


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.name)
@FUZZ
@given(data=st.data(), md=metadata())
def test_well_formed_requests_with_any_values_get_a_documented_status(
    method: Method, data: Any, md: list[tuple[str, str]], raw: grpc.Channel, seen: Seen
) -> None:
    body = data.draw(messages(method.request.DESCRIPTOR), label="request")
    assert record(seen, method, call(raw, method, body, md)) == []


def other_messages() -> list[Any]:
    """A populated message of every other kind a client (or a confused one) could send."""
    race = race_pb2.RaceSettings(ready_window_ms=30_000, hints_per_board=3)
    turned = race_pb2.RaceEvent(
        tile_turned=race_pb2.RaceEvent.TileTurned(board=1, player="p", tile=3, symbol=7, turn=1)
    )
    envelope = common_pb2.EventEnvelope(table_id=UNKNOWN_TABLE, event_number=9, race=turned)
    return [
        lobby_pb2.CreateTableRequest(
            game_kind=common_pb2.GAME_KIND_MATCH_RACE,
            seats=2,
            visibility=common_pb2.VISIBILITY_PRIVATE,
            display_name="Zed",
            race=race,
        ),
        lobby_pb2.ListTablesRequest(game_kind=1, page_size=5, page_token="20"),
        lobby_pb2.JoinTableRequest(invite_code="ABCDEFGH", display_name="Zed"),
        lobby_pb2.LeaveTableRequest(table_id=UNKNOWN_TABLE),
        lobby_pb2.GetTableRequest(table_id=UNKNOWN_TABLE),
        lobby_pb2.CreateTableResponse(
            table_id=UNKNOWN_TABLE, invite_code="ABCDEFGH", player_id="p", player_token="t.s"
        ),
        lobby_pb2.ListTablesResponse(
            tables=[lobby_pb2.Table(table_id=UNKNOWN_TABLE, seats=2)], next_page_token="x"
        ),
        lobby_pb2.JoinTableResponse(table_id=UNKNOWN_TABLE, player_id="p", seat=2),
        lobby_pb2.GetTableResponse(table=lobby_pb2.Table(table_id=UNKNOWN_TABLE, seats=4)),
        race_service_pb2.TurnTileRequest(table_id=UNKNOWN_TABLE, tile=7),
        race_service_pb2.WatchRequest(table_id=UNKNOWN_TABLE, after_event_number=2**64 - 1),
        race_service_pb2.TurnTileResponse(events=[envelope]),
        race_service_pb2.WatchResponse(event=envelope),
        race_service_pb2.WatchResponse(
            snapshot=views_pb2.RaceView(table_id=UNKNOWN_TABLE, board=2, turns=80, pairs=10)
        ),
        health_pb2.HealthCheckRequest(service="match.v1.LobbyService"),
        health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING),
        # The platform's internal messages: a client cannot reach NATS, but may send these.
        referee_pb2.TableCommand(
            table_id=UNKNOWN_TABLE,
            player_id="p",
            request_id="r",
            join_table=referee_pb2.TableCommand.JoinTable(display_name="Zed", is_bot=True),
        ),
        race_command_pb2.RaceCommand(
            table_id=UNKNOWN_TABLE,
            player_id="p",
            turn_tile=race_command_pb2.RaceCommand.TurnTile(tile=3),
        ),
        common_pb2.Refusal(code="x", message="y"),
        envelope,
    ]


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.name)
def test_a_valid_message_of_another_type_gets_a_documented_status(
    method: Method, raw: grpc.Channel, seen: Seen
) -> None:
    found = []
    for message in other_messages():
        if isinstance(message, method.request):
            continue
        outcome = call(raw, method, message.SerializeToString())
        found += [f"{type(message).__name__}: {p}" for p in record(seen, method, outcome)]
    assert found == []


# --- huge ----------------------------------------------------------------------------------


def _create(name: str = "Zed") -> lobby_pb2.CreateTableRequest:
    return lobby_pb2.CreateTableRequest(
        game_kind=common_pb2.GAME_KIND_MATCH_RACE,
        seats=2,
        visibility=common_pb2.VISIBILITY_OPEN,
        display_name=name,
    )


def _nested_groups(depth: int) -> bytes:
    return b"\xa3\x06" * depth + b"\xa4\x06" * depth  # field 100, start/end group


KIB = 1024
HUGE: list[tuple[str, str, bytes, tuple[tuple[str, str], ...], set[grpc.StatusCode]]] = [
    (
        "a display name of 10k characters",
        "CreateTable",
        _create("x" * 10_000).SerializeToString(),
        (),
        {S.INVALID_ARGUMENT},
    ),
    (
        "a display name of 60 KB of two-byte characters",
        "CreateTable",
        _create("é" * 30_000).SerializeToString(),
        (),
        {S.INVALID_ARGUMENT},
    ),
    (
        "a request of 100 KiB",
        "CreateTable",
        _create("y" * 100 * KIB).SerializeToString(),
        (),
        {S.RESOURCE_EXHAUSTED},
    ),
    (
        "a join with a 10k name",
        "JoinTable",
        lobby_pb2.JoinTableRequest(
            table_id=UNKNOWN_TABLE, display_name="n" * 10_000
        ).SerializeToString(),
        (),
        {S.INVALID_ARGUMENT},
    ),
    (
        "an invite code of 60k",
        "JoinTable",
        lobby_pb2.JoinTableRequest(
            invite_code="A" * 60_000, display_name="Zed"
        ).SerializeToString(),
        (),
        {S.INVALID_ARGUMENT},
    ),
    (
        "a table id of 60k",
        "GetTable",
        lobby_pb2.GetTableRequest(table_id="a" * 60_000).SerializeToString(),
        (),
        {S.INVALID_ARGUMENT},
    ),
    (
        "a table id of 100 KiB",
        "Watch",
        race_service_pb2.WatchRequest(table_id="a" * 100 * KIB).SerializeToString(),
        (),
        {S.RESOURCE_EXHAUSTED},
    ),
    (
        "a page token of 60k digits",
        "ListTables",
        lobby_pb2.ListTablesRequest(page_token="9" * 60_000).SerializeToString(),
        (),
        {S.INVALID_ARGUMENT},
    ),
    (
        "a page of 4 billion tables",
        "ListTables",
        lobby_pb2.ListTablesRequest(page_size=2**32 - 1).SerializeToString(),
        (),
        {S.OK},
    ),
    (
        "a page token of 100 KiB",
        "ListTables",
        lobby_pb2.ListTablesRequest(page_token="9" * 100 * KIB).SerializeToString(),
        (),
        {S.RESOURCE_EXHAUSTED},
    ),
    (
        "a repeated unknown field, 20k times (under 64 KiB)",
        "ListTables",
        b"\xa0\x06\x01" * 20_000,
        (),
        {S.OK},
    ),
    (
        "a repeated unknown field, 30k times (over 64 KiB)",
        "GetTable",
        b"\xa0\x06\x01" * 30_000,
        (),
        {S.RESOURCE_EXHAUSTED},
    ),
    (
        "groups nested 5000 deep",
        "TurnTile",
        _nested_groups(5_000),
        (),
        {S.INVALID_ARGUMENT},
    ),
    (
        "a token of 600 characters",
        "PressReady",
        race_service_pb2.PressReadyRequest(table_id=UNKNOWN_TABLE).SerializeToString(),
        bearer("a" * 300 + "." + "b" * 300),
        {S.UNAUTHENTICATED},
    ),
    (
        "an authorization header of 20 KiB",
        "PressReady",
        race_service_pb2.PressReadyRequest(table_id=UNKNOWN_TABLE).SerializeToString(),
        bearer("a" * 20 * KIB),
        {S.RESOURCE_EXHAUSTED},
    ),
    (
        "a request id of 6k characters",
        "CreateTable",
        _create().SerializeToString(),
        (("x-request-id", "r" * 6_000),),
        {S.INVALID_ARGUMENT, S.RESOURCE_EXHAUSTED},
    ),
]


@pytest.mark.parametrize(("what", "name", "body", "md", "expected"), HUGE, ids=[h[0] for h in HUGE])
def test_huge_fields_are_refused_for_their_size_or_their_content(
    what: str,
    name: str,
    body: bytes,
    md: tuple[tuple[str, str], ...],
    expected: set[grpc.StatusCode],
    raw: grpc.Channel,
    seen: Seen,
) -> None:
    method = BY_NAME[name]
    outcome = call(raw, method, body, md)
    wait = outcome.retry_after_ms()
    if outcome.code == S.RESOURCE_EXHAUSTED and "too many requests" in outcome.details and wait:
        # The address's rate limit (the suite's calls come from one address), not the field's
        # size: asked again once it allows, the call is judged for what it holds.
        time.sleep(wait / 1000)
        outcome = call(raw, method, body, md)
    assert record(seen, method, outcome) == []
    assert outcome.code in expected, f"{what}: {outcome.code.name} {outcome.details!r}"


# --- out of order --------------------------------------------------------------------------


async def test_calls_before_the_game_get_the_documented_refusals(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, seen: Seen, rested: None
) -> None:
    ann, bob = person(seen, "Ann", channel, clock), person(seen, "Bob", channel, clock)
    table = (await ann.create(seats=3)).table_id
    stranger = race_service_pb2.TurnTileRequest(table_id=table, tile=1)
    # A turn before joining: no token.
    error = await refused(ann.race.TurnTile(stranger))
    assert error.code() == S.UNAUTHENTICATED
    error = await refused(ann.race.Watch(race_service_pb2.WatchRequest(table_id=table)).read())
    assert error.code() == S.UNAUTHENTICATED
    # Seated, but the game has not started: no Ready, no turn, no hint, no resigning.
    for command in (ann.ready(), ann.turn(1), ann.hint(), ann.resign()):
        assert code_of(await refused(command)) == (S.FAILED_PRECONDITION, "game_not_started")
    await bob.join(table)
    error = await refused(bob.start_table())  # only the host starts
    assert code_of(error) == (S.PERMISSION_DENIED, "not_host")
    # Bob leaves; once the listing shows it, his token is dead, for leaving again too.
    await bob.lobby.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=table), metadata=bob.metadata())
    for _ in range(100):
        listed = await ann.lobby.GetTable(lobby_pb2.GetTableRequest(table_id=table))
        if bob.player_id not in {s.player_id for s in listed.table.taken}:
            break
        await asyncio.sleep(0.05)
    for again in (
        bob.lobby.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=table), metadata=bob.metadata()),
        bob.ready(),
    ):
        assert (await refused(again)).code() == S.UNAUTHENTICATED
    # Joining the same table twice gives a second seat to a second player, never the first's.
    again = await bob.join(table)
    assert again.player_id != ann.player_id and again.seat in (2, 3)


async def test_calls_at_a_started_table_and_after_resigning_are_refused(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, seen: Seen, rested: None
) -> None:
    ann, bob = person(seen, "Ann", channel, clock), person(seen, "Bob", channel, clock)
    created = await ann.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
    await bob.join(invite_code=created.invite_code)  # the last seat: the game starts
    ann.watch()
    await ann.wait_for("ready_opened", board=1)
    carol = person(seen, "Carol", channel, clock)
    assert code_of(await refused(carol.join(invite_code=created.invite_code))) == (
        S.FAILED_PRECONDITION,
        "table_started",
    )
    leave = ann.lobby.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=ann.table_id), metadata=ann.metadata()
    )
    assert code_of(await refused(leave)) == (S.FAILED_PRECONDITION, "table_started")
    assert (await refused(ann.start_table())).code() == S.FAILED_PRECONDITION
    assert (await refused(ann.turn(1))).code() == S.FAILED_PRECONDITION  # Ready first
    await ann.resign()
    for command in (ann.ready(), ann.turn(2), ann.resign(), ann.hint()):
        assert (await refused(command)).code() == S.FAILED_PRECONDITION
    # Bob plays on alone.
    await bob.ready()
    await ann.wait_for("board_started", board=1, timeout=20)
    reply = await bob.turn(1)
    assert reply.counters.turns == 1
    await ann.stop_watch()


async def test_tokens_garbled_expired_or_for_another_table_are_refused(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, seen: Seen, rested: None
) -> None:
    ann, bob = person(seen, "Ann", channel, clock), person(seen, "Bob", channel, clock)
    created = await ann.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
    mine = created.table_id
    await bob.create(seats=2)  # Bob's own table
    payload, signature = ann.token.split(".")
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    forged_claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    forged_claims["seat"] = 2
    forged = (
        base64.urlsafe_b64encode(json.dumps(forged_claims).encode()).rstrip(b"=").decode()
        + "."
        + signature
    )
    an_hour_ago = int(time.time()) - 3_600
    bad = {
        "a flipped signature": flipped,
        "claims changed under the signature": forged,
        "no signature": payload,
        "two dots": ann.token + ".x",
        "empty": "",
        "not base64": "!!!.???",
        "expired": mint(stack, mine, ann.player_id, 1, an_hour_ago),
        "another secret": mint_with(b"\x01" * 32, mine, ann.player_id),
    }
    ready = race_service_pb2.PressReadyRequest(table_id=mine)
    for what, token in bad.items():
        error = await refused(ann.race.PressReady(ready, metadata=bearer(token)))
        assert error.code() == S.UNAUTHENTICATED, what
        if what == "expired":
            assert "expired" in (error.details() or "")
    for header in ("Basic YWJj", "Bearer", ann.token, f"Bearer  {ann.token} x"):
        md = (("authorization", header),)
        assert (await refused(ann.race.PressReady(ready, metadata=md))).code() == (
            S.UNAUTHENTICATED
        ), header
    # Another table's token, for every call that takes one: PERMISSION_DENIED.
    theirs = bearer(bob.token)
    for name, request in (
        ("PressReady", ready),
        ("TurnTile", race_service_pb2.TurnTileRequest(table_id=mine, tile=1)),
        ("Resign", race_service_pb2.ResignRequest(table_id=mine)),
        ("RequestHint", race_service_pb2.RequestHintRequest(table_id=mine)),
        ("Watch", race_service_pb2.WatchRequest(table_id=mine)),
        ("LeaveTable", lobby_pb2.LeaveTableRequest(table_id=mine)),
        ("StartTable", lobby_pb2.StartTableRequest(table_id=mine)),
        ("GetTable", lobby_pb2.GetTableRequest(table_id=mine)),  # private
    ):
        method = BY_NAME[name]
        outcome = await acall(channel, method, request.SerializeToString(), theirs)
        assert record(seen, method, outcome) == []
        assert outcome.code == S.PERMISSION_DENIED, (name, outcome)
    # A table that does not exist: unknown to GetTable and JoinTable; with a token for it
    # (only the secret's holder can make one) the referee does not know it either.
    ghost = bearer(mint(stack, UNKNOWN_TABLE, "ghost", 1, int(time.time()) + 3_600))
    for name, request, md, expected in (
        ("GetTable", lobby_pb2.GetTableRequest(table_id=UNKNOWN_TABLE), (), S.NOT_FOUND),
        (
            "JoinTable",
            lobby_pb2.JoinTableRequest(table_id=UNKNOWN_TABLE, display_name="Zed"),
            (),
            S.NOT_FOUND,
        ),
        (
            "JoinTable",
            lobby_pb2.JoinTableRequest(invite_code="ZZZZZZZZ", display_name="Zed"),
            (),
            S.NOT_FOUND,
        ),
        ("Watch", race_service_pb2.WatchRequest(table_id=UNKNOWN_TABLE), ghost, S.NOT_FOUND),
        (
            "Watch",
            race_service_pb2.WatchRequest(table_id=UNKNOWN_TABLE),
            bearer(ann.token),
            S.PERMISSION_DENIED,
        ),
        (
            "TurnTile",
            race_service_pb2.TurnTileRequest(table_id=UNKNOWN_TABLE, tile=1),
            ghost,
            S.NOT_FOUND,
        ),
        ("PressReady", race_service_pb2.PressReadyRequest(table_id=UNKNOWN_TABLE), ghost, None),
        ("StartTable", lobby_pb2.StartTableRequest(table_id=UNKNOWN_TABLE), ghost, None),
    ):
        method = BY_NAME[name]
        outcome = await acall(channel, method, request.SerializeToString(), md)
        assert record(seen, method, outcome) == []
        if expected is not None:
            assert outcome.code == expected, (name, outcome)
        else:  # the referee's refusal of a table it does not know
            assert outcome.code in (S.NOT_FOUND, S.FAILED_PRECONDITION), (name, outcome)


def mint_with(secret: bytes, table: str, player: str) -> str:
    payload = json.dumps(
        {"table": table, "player": player, "seat": 1, "exp": int(time.time()) + 3_600}
    ).encode()
    signature = hmac.new(secret, payload, hashlib.sha256).digest()
    return ".".join(base64.urlsafe_b64encode(p).rstrip(b"=").decode() for p in (payload, signature))


# --- a flood ---------------------------------------------------------------------------------


async def test_a_flood_from_one_address_is_limited_and_nobody_else_notices(
    stack: Stack, clock: Clock, seen: Seen, rested: None
) -> None:
    list_tables, get_table = BY_NAME["ListTables"], BY_NAME["GetTable"]
    async with own_channel(stack) as dan_ch, own_channel(stack) as eve_ch:
        dan, eve = person(seen, "Dan", dan_ch, clock), person(seen, "Eve", eve_ch, clock)
        created = await dan.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
        await eve.join(invite_code=created.invite_code)
        dan.watch()
        await dan.wait_for("ready_opened", board=1)
        async with own_channel(stack, "127.0.0.1") as flood_ch:
            mallory = person(seen, "Mallory", flood_ch, clock)
            await mallory.create(seats=2)
            mine = lobby_pb2.GetTableRequest(table_id=mallory.table_id).SerializeToString()

            async def flood() -> list[Outcome]:
                """Waves of calls at once until the lobby says enough (however slow the
                machine is), then one wave more."""
                out: list[Outcome] = []
                limited = 0
                while len(out) < MAX_FLOOD:
                    calls = [acall(flood_ch, list_tables, b"") for _ in range(WAVE)]
                    calls += [
                        acall(flood_ch, get_table, mine, bearer(mallory.token))
                        for _ in range(WAVE // 10)
                    ]
                    out += await asyncio.gather(*calls)
                    if limited:
                        return out
                    limited = sum(o.code == S.RESOURCE_EXHAUSTED for o in out)
                return out

            async def meanwhile() -> None:
                """Dan and Eve, each on a connection of their own, play on during the flood."""
                started = loop.time()
                await asyncio.gather(dan.ready(), eve.ready())
                await dan.wait_for("board_started", board=1, timeout=20)
                for player, tile in ((dan, 1), (eve, 5), (dan, 2), (eve, 6)):
                    await player.turn(tile)
                    outcome = await acall(player.channel, list_tables, b"")
                    assert outcome.code == S.OK, outcome
                assert loop.time() - started < 20

            loop = asyncio.get_running_loop()
            flooded, _ = await asyncio.gather(flood(), meanwhile())
            codes = [o.code for o in flooded]
            assert set(codes) <= {S.OK, S.RESOURCE_EXHAUSTED}, set(codes)
            limited = [o for o in flooded if o.code == S.RESOURCE_EXHAUSTED]
            assert limited, f"{len(flooded)} calls at once from one address, none limited"
            waits = [o.retry_after_ms() for o in limited]
            assert all(isinstance(w, int) and w >= 1 for w in waits), limited[0]
            for o in flooded:
                assert record(seen, list_tables, o) == []
            # Waiting as told is enough.
            await asyncio.sleep(max(w or 0 for w in waits) / 1000 + 0.05)
            again = await acall(flood_ch, list_tables, b"")
            assert again.code == S.OK, again
        await dan.stop_watch()


# --- afterwards ------------------------------------------------------------------------------


async def play_a_game(ann: Player, bob: Player, nc: Client) -> None:
    """Two people who know the deal (test privilege) clear every board at 13 s."""
    created = await ann.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE, window=60_000)
    await bob.join(invite_code=created.invite_code)
    ann.watch()
    layouts = await fetch_deal(nc, ann.table_id)
    for board, layout in enumerate(layouts, start=1):
        await ann.wait_for("ready_opened", board=board, timeout=30)
        await ann.ready()
        await bob.ready()
        t0 = (await ann.wait_for("board_started", board=board, timeout=30)).at
        pairs = pairs_of(layout)
        for player in (ann, bob):
            for a, b in pairs[:-1]:
                await player.turn(a)
                await player.turn(b)
        await ann.sleep_until(t0 + 13_000)
        for player in (ann, bob):
            await player.turn(pairs[-1][0])
            await player.turn(pairs[-1][1])
        await ann.wait_for("board_ended", board=board, timeout=30)
    ended = await ann.wait_for("game_ended", timeout=30)
    assert {s.pairs for s in ended.standings} == {30}
    assert ann._watch is not None
    await asyncio.wait_for(ann._watch, 30)  # the stream ends once the seed is out
    [revealed] = [
        e.seed_revealed for e in ann.table_events() if e.WhichOneof("event") == "seed_revealed"
    ]
    [committed] = [
        e.seed_committed for e in ann.table_events() if e.WhichOneof("event") == "seed_committed"
    ]
    assert commitment_holds(revealed.seed, committed.commitment)


async def test_afterwards_the_stack_is_healthy_a_game_plays_and_nothing_leaked(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, nc: Client, seen: Seen, rested: None
) -> None:
    for name, process in stack.processes.items():
        assert process.poll() is None, f"{name} died: {stack.log(name)}"
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "match.v1.LobbyService", "match.v1.MatchRaceService"):
        answer = await health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING, service
    await play_a_game(person(seen, "Ann", channel, clock), person(seen, "Bob", channel, clock), nc)
    checked = 0
    for player in seen.people:
        await player.stop_watch()
        if player.player_id:
            checked += check_no_leaks(player.player_id, player.received)
    checked += check_no_leaks("", seen.strangers)  # nobody's: no private event, no face
    assert checked > 100 and seen.people
    for name, process in stack.processes.items():
        assert process.poll() is None, f"{name} died: {stack.log(name)}"
