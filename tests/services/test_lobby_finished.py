"""A finished table leaves the lobby's listing a while after its game ends (LOBBY_KEEP_FINISHED_S)
through the real stack (nats-server, dealer, referee, lobby; real gRPC): until then GetTable and
Rematch answer as always; after, each says the table finished and where its game is, Watch
still replays the game from the log, ``match watch`` of such a game it cannot print says what to
do instead, and every other table goes on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import pytest

from match.v1 import (
    lobby_pb2,
    lobby_pb2_grpc,
    number_match_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_client import cli
from match_client.client import MatchClient
from match_client.programs import runnable
from match_client.session import GameSession
from match_launch.stack import Stack
from services.lobby.config import ConfigError, LobbyConfig
from tests.conftest import running
from tests.services.test_lobby_rematch import (
    OPEN,
    RACE,
    SETTINGS,
    Status,
    both_resign,
    md,
    refused,
    seated_pair,
    slug_of,
    table,
)

RATE = 10  # the stack's clock runs ten times faster
KEEP_S = 20  # on the stack's clock: 2 s of the test's


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee", "lobby"),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "LOBBY_KEEP_FINISHED_S": str(KEEP_S),
        },
    )
    yield from running(s)
    for name in ("lobby", "referee", "dealer"):
        assert "Traceback" not in s.log(name), s.log(name)


async def test_a_table_finished_longer_ago_than_the_lobby_keeps_it_is_said_so(
    channel: grpc.aio.Channel,
) -> None:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    pair = await seated_pair(lobby)
    await both_resign(lobby, race, pair)
    finished = await table(lobby, pair.table_id, pair.bob.player_token)
    assert finished.status == Status.STATUS_FINISHED

    # The listing's clock is the log's: a table made after the keep has gone by moves it on.
    await asyncio.sleep(KEEP_S / RATE + 0.5)
    other = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            game_kind=RACE, seats=2, visibility=OPEN, display_name="Cy", race=SETTINGS
        ),
        metadata=md(),
    )
    end = time.monotonic() + 10
    while True:
        try:
            await table(lobby, pair.table_id, pair.ann.player_token)
        except grpc.aio.AioRpcError as error:
            gone = error
            break
        assert time.monotonic() < end, "the finished table was never let go of"
        await asyncio.sleep(0.05)
    assert gone.code() == grpc.StatusCode.NOT_FOUND and slug_of(gone) == "table_archived"
    details = gone.details() or ""
    assert f"table {pair.table_id} finished 20 seconds or more ago" in details
    assert f"`match-audit replay {pair.table_id}`" in details, details

    rematch = await refused(
        lobby.Rematch(
            lobby_pb2.RematchRequest(table_id=pair.table_id), metadata=md(pair.bob.player_token)
        )
    )
    assert rematch.code() == grpc.StatusCode.NOT_FOUND and slug_of(rematch) == "table_archived"
    join = await refused(
        lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=pair.table_id, display_name="Dee"), metadata=md()
        )
    )
    assert join.code() == grpc.StatusCode.NOT_FOUND and slug_of(join) == "table_archived"

    # Its events are still the log's: Watch replays the game to its end and its seed.
    replay = race.Watch(
        race_service_pb2.WatchRequest(table_id=pair.table_id), metadata=md(pair.ann.player_token)
    )
    events = [item.event async for item in replay if item.WhichOneof("item") == "event"]
    bodies = [e.WhichOneof("body") for e in events]
    assert bodies[0] == "table" and events[0].table.HasField("table_created")
    assert any(e.race.HasField("game_ended") for e in events if e.WhichOneof("body") == "race")
    assert events[-1].table.HasField("seed_revealed")

    # Every other table goes on: the new one is listed and takes a seat.
    listed = await lobby.ListTables(lobby_pb2.ListTablesRequest(game_kind=RACE), metadata=md())
    assert [t.table_id for t in listed.tables] == [other.table_id]
    joined = await lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=other.table_id, display_name="Dee"), metadata=md()
    )
    assert joined.seat == 2


async def test_match_watch_of_another_game_let_go_of_says_what_to_do_instead(
    stack: Stack,
) -> None:
    async with MatchClient(stack.lobby_addr) as client:
        seat = await client.create_table(number_match_pb2.NumberMatchSettings(), seats=1)
        session = GameSession(client, "number_match", seat.table_id, seat.token, play=False)
        for _ in range(200):  # once its board is dealt
            try:
                await session.send("EndGame")
                break
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
                await asyncio.sleep(0.05)
        await asyncio.sleep(KEEP_S / RATE + 0.5)
        end = time.monotonic() + 10
        while True:  # a table made after the keep has gone by moves the listing's clock on
            await client.create_table(number_match_pb2.NumberMatchSettings(), seats=1)
            try:
                await client.get_table(seat.table_id, seat.token)
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.NOT_FOUND, error.details()
                break
            assert time.monotonic() < end, "the finished table was never let go of"
            await asyncio.sleep(0.2)
        said: list[str] = []
        code = await cli._watch(client, seat.table_id, seat.token, 0, said.append)
    assert code == 1
    assert said == [
        f"`match watch` prints the race's stream only, and table {seat.table_id} plays another "
        f"game: play on from your seat with `{runnable('match')} play --resume {seat.table_id}` "
        f"while it is on, or replay it move by move with `{runnable('match-audit')} replay "
        f"{seat.table_id}` once it is over"
    ]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("0", "LOBBY_KEEP_FINISHED_S must be a whole number of seconds, 1 or more, not '0'"),
        ("an hour", "LOBBY_KEEP_FINISHED_S must be a whole number of seconds, 1 or more"),
        ("1.5", "LOBBY_KEEP_FINISHED_S must be a whole number of seconds, 1 or more"),
    ],
)
def test_a_bad_keep_is_a_config_error_naming_it(value: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        LobbyConfig.from_env({"LOBBY_KEEP_FINISHED_S": value})
    assert LobbyConfig.from_env({}).keep_finished_s == 3600
    assert LobbyConfig.from_env({"LOBBY_KEEP_FINISHED_S": "86400"}).keep_finished_s == 86400
