"""A scripted Number Match player for the end-to-end tests: raw gRPC stubs of NumberMatchService
against the real stack.

It knows what the player knows: the board its replies and stream show. It plays the hints it
asks for, and otherwise a clearing its own solver finds from the board it sees (or, to reach a
dead end on purpose, the first pair it sees). Everything it receives is kept for the leak check.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    number_match_pb2,
    number_match_service_pb2,
    number_match_service_pb2_grpc,
)
from match_client.client import sent_politely
from match_rules.number_match import board as boards
from match_rules.number_match import solver

Settings = number_match_pb2.NumberMatchSettings
View = number_match_pb2.NumberMatchView
Event = number_match_pb2.NumberMatchEvent


@dataclass
class NMPlayer:
    name: str
    channel: grpc.aio.Channel
    table_id: str = ""
    player_id: str = ""
    token: str = ""
    view: View | None = None
    received: list[Any] = field(default_factory=list)
    stream: list[Any] = field(default_factory=list)
    _watch: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.game = number_match_service_pb2_grpc.NumberMatchServiceStub(self.channel)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"), ("x-request-id", uuid.uuid4().hex))

    async def create(self, settings: Settings | None = None) -> Any:
        request = lobby_pb2.CreateTableRequest(
            game_kind=common_pb2.GAME_KIND_NUMBER_MATCH,
            seats=1,
            visibility=common_pb2.VISIBILITY_PRIVATE,
            display_name=self.name,
        )
        if settings is not None:
            request.number_match.CopyFrom(settings)
        reply = await self.lobby.CreateTable(request)
        self.received.append(reply)
        self.table_id, self.player_id, self.token = (
            reply.table_id,
            reply.player_id,
            reply.player_token,
        )
        return reply

    async def _call(self, rpc: str, **fields: Any) -> Any:
        """One command, sent again (same request id) after the wait the lobby's per-player rate
        limit names, as a polite client does: a test plays faster than a person."""
        request = getattr(number_match_service_pb2, f"{rpc}Request")(
            table_id=self.table_id, **fields
        )
        metadata = self.metadata()
        call = getattr(self.game, rpc)
        reply = await sent_politely(lambda: call(request, metadata=metadata), 50)
        self.received.append(reply)
        self.view = reply.view
        return reply

    async def pair(self, first: int, second: int) -> Any:
        return await self._call("PairCells", first=first, second=second)

    async def add(self) -> Any:
        return await self._call("AddNumbers")

    async def hint(self) -> Any:
        return await self._call("AskHint")

    async def undo(self) -> Any:
        return await self._call("Undo")

    async def end(self) -> Any:
        return await self._call("EndGame")

    # --- the Watch stream -------------------------------------------------------------------

    def watch(self, after: int = 0) -> None:
        async def run() -> None:
            call = self.game.Watch(
                number_match_service_pb2.NumberMatchServiceWatchRequest(
                    table_id=self.table_id, after_event_number=after
                ),
                metadata=self.metadata(),
            )
            async for item in call:
                self.stream.append(item)
                self.received.append(item)
                if item.WhichOneof("item") == "snapshot":
                    self.view = item.snapshot

        self._watch = asyncio.create_task(run())

    async def stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self._watch
            self._watch = None

    def events(self) -> list[Any]:
        return [
            i.event.number_match
            for i in self.stream
            if i.WhichOneof("item") == "event" and i.event.HasField("number_match")
        ]

    def found(self, kind: str) -> list[Any]:
        return [getattr(e, kind) for e in self.events() if e.WhichOneof("event") == kind]

    def snapshots(self) -> list[View]:
        return [i.snapshot for i in self.stream if i.WhichOneof("item") == "snapshot"]

    async def wait_for(self, kind: str, timeout: float = 30) -> Any:
        async def until() -> Any:
            while not self.found(kind):
                await asyncio.sleep(0.02)
            return self.found(kind)[0]

        return await asyncio.wait_for(until(), timeout)

    async def wait_for_view(self, timeout: float = 30) -> View:
        """The view the stream has sent last, once it has sent one: an event (game_started,
        say) may arrive before the view that follows it."""

        async def until() -> View:
            while self.view is None:
                await asyncio.sleep(0.02)
            return self.view

        return await asyncio.wait_for(until(), timeout)

    async def wait_for_seed(self, timeout: float = 30) -> bytes:
        async def until() -> bytes:
            while True:
                for item in self.stream:
                    if item.WhichOneof("item") == "event" and item.event.table.HasField(
                        "seed_revealed"
                    ):
                        return bytes(item.event.table.seed_revealed.seed)
                await asyncio.sleep(0.02)

        return await asyncio.wait_for(until(), timeout)

    # --- playing ----------------------------------------------------------------------------

    @property
    def board(self) -> tuple[int, ...]:
        assert self.view is not None
        return tuple(self.view.board)

    @property
    def over(self) -> bool:
        return self.view is not None and self.view.phase == View.PHASE_GAME_OVER

    def additions_left(self) -> int | None:
        assert self.view is not None
        return self.view.additions_left if self.view.HasField("additions_left") else None

    async def step(self, move: solver.Move) -> None:
        if move == solver.ADD:
            await self.add()
        else:
            await self.pair(move[0] + 1, move[1] + 1)

    async def clear(self, hints: int = 0, budget: int = 2_000_000) -> None:
        """Play to a clear board: ``hints`` hints first (each played), then its own solver's
        clearing of the board it sees."""
        for _ in range(hints):
            reply = await self.hint()
            hint = reply.view.hint
            if hint.kind == Event.HINT_KIND_PAIR:
                await self.pair(hint.first, hint.second)
            elif hint.kind == Event.HINT_KIND_ADD:
                await self.add()
        await self.wait_for_view()
        found = solver.solve(self.board, self.additions_left(), budget)
        assert found.status is solver.Status.SOLVABLE, found
        for move in found.moves:
            await self.step(move)

    async def first_pairs(self) -> None:
        """Take the first pair it sees, add when none, until the game ends: a dead end, as a
        player who does not look ahead meets it."""
        await self.wait_for_view()
        while not self.over:
            moves = boards.pair_moves(self.board)
            if moves:
                await self.pair(moves[0][0] + 1, moves[0][1] + 1)
            else:
                await self.add()
