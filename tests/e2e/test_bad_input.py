"""Bad input through the API gets the right status and leaves the game unharmed."""

from __future__ import annotations

import grpc
import pytest

from match.v1 import common_pb2, lobby_pb2, race_service_pb2
from match_bus.clock import Clock
from match_launch.stack import Stack
from tests.e2e.leaks import check_no_leaks
from tests.e2e.players_race import Player


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


async def test_bad_input_is_refused_and_the_game_goes_on(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock
) -> None:
    ann, bob = Player("Ann", channel, clock), Player("Bob", channel, clock)
    created = await ann.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
    assert created.invite_code
    error = await refused(Player("Eve", channel, clock).join(created.table_id))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED  # a private table wants the code
    await bob.join(invite_code=created.invite_code)
    ann.watch()
    await ann.wait_for("ready_opened", board=1)

    # Unknown table, no token, a garbled token, another table's token.
    error = await refused(
        ann.race.PressReady(
            race_service_pb2.PressReadyRequest(table_id="ffffffffffffffff"), metadata=ann.metadata()
        )
    )
    assert error.code() in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND)
    error = await refused(
        ann.race.PressReady(race_service_pb2.PressReadyRequest(table_id=ann.table_id))
    )
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    error = await refused(
        ann.race.PressReady(
            race_service_pb2.PressReadyRequest(table_id=ann.table_id),
            metadata=(("authorization", "Bearer not-a-token"),),
        )
    )
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    carol = Player("Carol", channel, clock)
    await carol.create(seats=2)
    error = await refused(
        ann.race.TurnTile(
            race_service_pb2.TurnTileRequest(table_id=ann.table_id, tile=1),
            metadata=carol.metadata(),
        )
    )
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED  # not her seat, not her table

    # A turn before the board starts, out of range, during the pause; a second Ready.
    error = await refused(ann.turn(1))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    await ann.ready()
    error = await refused(ann.ready())
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    await bob.ready()
    await ann.wait_for("board_started", board=1, timeout=20)
    for tile in (0, 21):
        error = await refused(ann.turn(tile))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    down, turns = await _first_miss(ann)
    error = await refused(ann.turn(down))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION

    # Malformed requests: an empty table id, a hint at a table with no bot, bad table settings.
    error = await refused(
        ann.race.TurnTile(race_service_pb2.TurnTileRequest(tile=3), metadata=ann.metadata())
    )
    assert error.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED)
    error = await refused(ann.hint())
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    error = await refused(
        ann.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=common_pb2.GAME_KIND_MATCH_RACE,
                seats=5,
                visibility=common_pb2.VISIBILITY_OPEN,
                display_name="Zed",
            )
        )
    )
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT

    # The game goes on unharmed: Ann's next turn after the pause is her next, and counts.
    await ann.sleep_until(clock.now_ms() + 1_100)
    reply = await ann.turn(down)
    assert reply.counters.turns == turns + 1
    await ann.stop_watch()
    check_no_leaks(ann.player_id, ann.received)


async def _first_miss(player: Player) -> tuple[int, int]:
    """Turn tiles 1, 2, 3, ... two at a time until an attempt misses. Returns a tile still
    down and the turns taken so far."""
    for first in range(1, 20, 2):
        await player.turn(first)
        reply = await player.turn(first + 1)
        kinds = [e.race.WhichOneof("event") for e in reply.events if e.HasField("race")]
        if "attempt_missed" in kinds:
            return first + 2, reply.counters.turns
    raise AssertionError("ten pairs side by side: this deal cannot happen")
