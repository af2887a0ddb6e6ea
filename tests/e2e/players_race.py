"""Scripted players for the end-to-end tests: real gRPC against the real stack.

Each player records every message it receives (replies and its Watch stream), so that the
leak check can look at exactly what left the server for that player.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
from nats.aio.client import Client

from match.v1 import (
    common_pb2,
    dealer_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_bus import subjects
from match_bus.clock import Clock


async def fetch_deal(nc: Client, table_id: str) -> tuple[tuple[int, ...], ...]:
    """Test privilege: read the deal from the dealer's internal subject (no client can)."""
    request = dealer_pb2.DealRequest(
        table_id=table_id, game_id=table_id, game_kind=common_pb2.GAME_KIND_MATCH_RACE
    )
    msg = await nc.request(subjects.DEALER_DEAL, request.SerializeToString(), 5)
    deal = dealer_pb2.DealResponse.FromString(msg.data).deal
    return tuple(tuple(b.layout) for b in deal.race.boards)


def pairs_of(layout: tuple[int, ...]) -> list[tuple[int, int]]:
    where: dict[int, list[int]] = {}
    for tile, symbol in enumerate(layout, start=1):
        where.setdefault(symbol, []).append(tile)
    return [(a, b) for a, b in where.values()]


@dataclass
class Player:
    name: str
    channel: grpc.aio.Channel
    clock: Clock
    table_id: str = ""
    player_id: str = ""
    token: str = ""
    received: list[Any] = field(default_factory=list)  # every message from the server
    stream: list[race_service_pb2.WatchResponse] = field(default_factory=list)
    _watch: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.race = race_service_pb2_grpc.MatchRaceServiceStub(self.channel)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"), ("x-request-id", uuid.uuid4().hex))

    async def create(
        self,
        seats: int,
        visibility: int = common_pb2.VISIBILITY_OPEN,
        window: int = 10_000,
        hints: int = 3,
    ) -> lobby_pb2.CreateTableResponse:
        reply = await self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=common_pb2.GAME_KIND_MATCH_RACE,
                seats=seats,
                visibility=visibility,
                display_name=self.name,
                race=race_pb2.RaceSettings(ready_window_ms=window, hints_per_board=hints),
            )
        )
        self.received.append(reply)
        self.table_id, self.player_id, self.token = (
            reply.table_id,
            reply.player_id,
            reply.player_token,
        )
        return reply

    async def join(self, table_id: str = "", invite_code: str = "") -> lobby_pb2.JoinTableResponse:
        request = lobby_pb2.JoinTableRequest(display_name=self.name)
        if invite_code:
            request.invite_code = invite_code
        else:
            request.table_id = table_id
        reply = await self.lobby.JoinTable(request)
        self.received.append(reply)
        self.table_id, self.player_id, self.token = (
            reply.table_id,
            reply.player_id,
            reply.player_token,
        )
        return reply

    def _seated(self, reply: Any) -> None:
        self.table_id, self.player_id = reply.table_id, reply.player_id
        self.token = reply.player_token

    async def start_table(self) -> None:
        self.received.append(
            await self.lobby.StartTable(
                lobby_pb2.StartTableRequest(table_id=self.table_id), metadata=self.metadata()
            )
        )

    async def ready(self) -> Any:
        reply = await self.race.PressReady(
            race_service_pb2.PressReadyRequest(table_id=self.table_id), metadata=self.metadata()
        )
        self.received.append(reply)
        return reply

    async def turn(self, tile: int) -> race_service_pb2.TurnTileResponse:
        reply = await self.race.TurnTile(
            race_service_pb2.TurnTileRequest(table_id=self.table_id, tile=tile),
            metadata=self.metadata(),
        )
        self.received.append(reply)
        return reply

    async def hint(self) -> race_service_pb2.RequestHintResponse:
        reply = await self.race.RequestHint(
            race_service_pb2.RequestHintRequest(table_id=self.table_id), metadata=self.metadata()
        )
        self.received.append(reply)
        return reply

    async def resign(self) -> Any:
        reply = await self.race.Resign(
            race_service_pb2.ResignRequest(table_id=self.table_id), metadata=self.metadata()
        )
        self.received.append(reply)
        return reply

    # --- the Watch stream -------------------------------------------------------------------

    def watch(self, after: int = 0) -> None:
        async def run() -> None:
            call = self.race.Watch(
                race_service_pb2.WatchRequest(table_id=self.table_id, after_event_number=after),
                metadata=self.metadata(),
            )
            async for item in call:
                self.stream.append(item)
                self.received.append(item)

        self._watch = asyncio.create_task(run())

    async def stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self._watch

    def events(self) -> list[race_pb2.RaceEvent]:
        return [
            i.event.race
            for i in self.stream
            if i.WhichOneof("item") == "event" and i.event.HasField("race")
        ]

    def table_events(self) -> list[common_pb2.TableEvent]:
        return [
            i.event.table
            for i in self.stream
            if i.WhichOneof("item") == "event" and i.event.HasField("table")
        ]

    async def wait_for(
        self, kind: str, count: int = 1, timeout: float = 60.0, **where: Any
    ) -> race_pb2.RaceEvent:
        """The ``count``-th race event of ``kind`` on the Watch stream matching ``where``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            found = [getattr(e, kind) for e in self.events() if e.WhichOneof("event") == kind]
            found = [e for e in found if all(getattr(e, k) == v for k, v in where.items())]
            if len(found) >= count:
                return found[count - 1]
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.name} never saw {kind} #{count} {where}")

    async def sleep_until(self, server_ms: int) -> None:
        """Sleep until the system clock reads ``server_ms``."""
        await asyncio.sleep(self.clock.wall_seconds(server_ms - self.clock.now_ms()))


def commitment_holds(seed: bytes, commitment: str) -> bool:
    return hashlib.sha256(seed).hexdigest() == commitment
