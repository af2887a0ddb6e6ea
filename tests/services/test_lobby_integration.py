"""The lobby with the real referee and dealer (no bot, no ledger): tables made and joined over
gRPC, refusals from the real rules, and the Watch stream of a real table log."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import pytest

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_launch.stack import Stack

RACE = common_pb2.GAME_KIND_MATCH_RACE


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    s = Stack(tmp_path / "stack", services=("dealer", "referee", "lobby"))
    s.start()
    try:
        yield s
    finally:
        s.stop()
    for name in ("lobby", "referee", "dealer"):
        assert "Traceback" not in s.log(name), s.log(name)
    assert not s.nats_refusals(), "\n".join(s.nats_refusals())  # every grant was enough


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def test_a_private_table_is_made_joined_and_watched_through_the_real_referee(
    channel: grpc.aio.Channel,
) -> None:
    tables = lobby_pb2_grpc.LobbyServiceStub(channel)
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    made = await tables.CreateTable(
        lobby_pb2.CreateTableRequest(
            game_kind=RACE,
            seats=2,
            visibility=common_pb2.VISIBILITY_PRIVATE,
            display_name="Ann",
            race=race_pb2.RaceSettings(ready_window_ms=60_000),
        )
    )
    assert made.seat == 1 and len(made.invite_code) == 12

    # Joining a private table by its id is refused by the referee, with its slug.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await tables.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Eve")
        )
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    trailers = dict(caught.value.trailing_metadata() or ())
    assert trailers.get("match-refusal-code")

    joined = await tables.JoinTable(
        lobby_pb2.JoinTableRequest(invite_code=made.invite_code.lower(), display_name="Bob")
    )
    assert (joined.table_id, joined.seat) == (made.table_id, 2)

    watch = race.Watch(
        race_service_pb2.WatchRequest(table_id=made.table_id), metadata=bearer(made.player_token)
    )
    seen: list[str] = []
    while "ready_opened" not in seen:
        item = await asyncio.wait_for(watch.read(), 10)
        assert item is not grpc.aio.EOF
        body = item.event.race if item.event.HasField("race") else item.event.table
        seen.append(body.WhichOneof("event") or "")
    assert seen[:3] == ["table_created", "seed_committed", "player_seated"]
    assert "game_started" in seen

    # The rules refuse a turn before the board starts: the lobby carries the refusal out.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await race.TurnTile(
            race_service_pb2.TurnTileRequest(table_id=made.table_id, tile=1),
            metadata=bearer(made.player_token),
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert dict(caught.value.trailing_metadata() or ()).get("match-refusal-code") in (
        "board_not_started",
        "ready_not_open",
    )

    pressed = await race.PressReady(
        race_service_pb2.PressReadyRequest(table_id=made.table_id),
        metadata=bearer(made.player_token),
    )
    assert [e.race.WhichOneof("event") for e in pressed.events] == ["player_ready"]
    assert pressed.counters.board == 1
    item = await asyncio.wait_for(watch.read(), 10)
    assert item.event.race.player_ready.player == made.player_id
    watch.cancel()

    shown = await tables.GetTable(
        lobby_pb2.GetTableRequest(table_id=made.table_id), metadata=bearer(joined.player_token)
    )
    assert shown.table.status == lobby_pb2.Table.STATUS_PLAYING
    assert shown.table.invite_code == made.invite_code
    assert [s.display_name for s in shown.table.taken] == ["Ann", "Bob"]
    assert len(shown.table.commitment) == 64
    listed = await tables.ListTables(lobby_pb2.ListTablesRequest())
    assert made.table_id not in [t.table_id for t in listed.tables]


async def test_an_open_table_is_listed_until_it_is_full(channel: grpc.aio.Channel) -> None:
    tables = lobby_pb2_grpc.LobbyServiceStub(channel)
    made = await tables.CreateTable(
        lobby_pb2.CreateTableRequest(
            game_kind=RACE, seats=3, visibility=common_pb2.VISIBILITY_OPEN, display_name="Ann"
        )
    )
    listed = await tables.ListTables(lobby_pb2.ListTablesRequest())
    for _ in range(50):
        if made.table_id in [t.table_id for t in listed.tables]:
            break
        await asyncio.sleep(0.1)
        listed = await tables.ListTables(lobby_pb2.ListTablesRequest())
    (table,) = [t for t in listed.tables if t.table_id == made.table_id]
    assert table.fill_at_ms > table.created_at_ms and table.race.ready_window_ms == 30_000

    for name in ("Bob", "Cat"):
        await tables.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name=name)
        )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await tables.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Dan")
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    for _ in range(50):
        listed = await tables.ListTables(lobby_pb2.ListTablesRequest())
        if made.table_id not in [t.table_id for t in listed.tables]:
            break
        await asyncio.sleep(0.1)
    assert made.table_id not in [t.table_id for t in listed.tables]


async def test_create_and_join_retried_with_their_request_ids_make_one_table_and_one_seat(
    channel: grpc.aio.Channel,
) -> None:
    """A retry (same x-request-id; maybe on another lobby replica) names the same table and
    player, and the referee answers it with its first answer: one table, one seat each."""
    tables = lobby_pb2_grpc.LobbyServiceStub(channel)
    create = lobby_pb2.CreateTableRequest(
        game_kind=RACE, seats=3, visibility=common_pb2.VISIBILITY_PRIVATE, display_name="Ann"
    )
    once = (("x-request-id", uuid.uuid4().hex),)
    made = await tables.CreateTable(create, metadata=once)
    again = await tables.CreateTable(create, metadata=once)
    assert (again.table_id, again.player_id, again.seat) == (made.table_id, made.player_id, 1)
    assert again.invite_code == made.invite_code  # the table's, not the retry's fresh draw

    join = lobby_pb2.JoinTableRequest(invite_code=made.invite_code, display_name="Bob")
    once = (("x-request-id", uuid.uuid4().hex),)
    bob = await tables.JoinTable(join, metadata=once)
    bob_again = await tables.JoinTable(join, metadata=once)
    assert bob.seat == 2 and (bob_again.player_id, bob_again.seat) == (bob.player_id, 2)

    get = lobby_pb2.GetTableRequest(table_id=made.table_id)
    for _ in range(50):  # the listing follows the log: give it a moment
        shown = await tables.GetTable(get, metadata=bearer(made.player_token))
        if len(shown.table.taken) >= 2:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.3)  # a duplicate seat would show by now
    shown = await tables.GetTable(get, metadata=bearer(made.player_token))
    assert [(s.seat, s.player_id) for s in shown.table.taken] == [
        (1, made.player_id),
        (2, bob.player_id),
    ]
    other = await tables.CreateTable(create, metadata=(("x-request-id", uuid.uuid4().hex),))
    assert other.table_id != made.table_id


async def test_right_invite_codes_from_one_address_cost_nothing_and_wrong_ones_are_limited(
    channel: grpc.aio.Channel,
) -> None:
    """A venue behind one NAT: 15 people join their friends' 5 private tables at once, from one
    address, each by the right code, made a moment before (the listing may still be behind). A
    right code costs none of the address's wrong-code budget (10 at once, the default), so all
    are seated, and the budget is still whole: 10 wrong codes are NOT_FOUND, the 11th is
    refused, with the wait."""
    tables = lobby_pb2_grpc.LobbyServiceStub(channel)

    async def host(n: int) -> lobby_pb2.CreateTableResponse:
        return await tables.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=RACE,
                seats=4,
                visibility=common_pb2.VISIBILITY_PRIVATE,
                display_name=f"Host {n}",
                race=race_pb2.RaceSettings(ready_window_ms=60_000),
            )
        )

    async def fill(n: int) -> list[int]:
        made = await host(n)
        seats = []
        for guest in range(3):  # one at a time at a table: the tables' guests all at once
            joined = await tables.JoinTable(
                lobby_pb2.JoinTableRequest(
                    invite_code=made.invite_code, display_name=f"Guest {n}{guest}"
                )
            )
            assert joined.table_id == made.table_id
            seats.append(joined.seat)
        return seats

    assert await asyncio.gather(*(fill(n) for n in range(5))) == [[2, 3, 4]] * 5

    guesses = "23456789AB"  # 10 well-formed codes (services/lobby/validation.py) of no table
    for n in range(10):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await tables.JoinTable(
                lobby_pb2.JoinTableRequest(
                    invite_code=f"WRQNGCQDE{guesses[n]}XY", display_name="Eve"
                )
            )
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND, n
        assert "no table has the invite code" in (caught.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await tables.JoinTable(
            lobby_pb2.JoinTableRequest(invite_code="WRQNGXXXXXXX", display_name="Eve")
        )
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "too many wrong invite codes from your address" in (caught.value.details() or "")
    wait = dict(caught.value.trailing_metadata() or ()).get("retry-after-ms")
    assert wait is not None and 0 < int(wait) <= 6000
