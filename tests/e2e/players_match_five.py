"""A scripted MATCH 5 player for the end-to-end tests: raw gRPC stubs of MatchFiveService
against the real stack. It does what its test tells it, and keeps everything it receives for
the leak check (:func:`check_no_leaks`): nobody sees another player's link before the reading
reaches its combination."""

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
    match_five_pb2,
    match_five_service_pb2,
    match_five_service_pb2_grpc,
)
from match_client.client import sent_politely

Settings = match_five_pb2.MatchFiveSettings
View = match_five_pb2.MatchFiveView


@dataclass(eq=False)  # hashable by identity: tests key their links by player
class M5Player:
    name: str
    channel: grpc.aio.Channel
    table_id: str = ""
    player_id: str = ""
    token: str = ""
    received: list[Any] = field(default_factory=list)
    stream: list[Any] = field(default_factory=list)
    last: int = 0  # the last event number seen on the stream
    _watch: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.game = match_five_service_pb2_grpc.MatchFiveServiceStub(self.channel)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"), ("x-request-id", uuid.uuid4().hex))

    def _seat(self, reply: Any) -> Any:
        self.received.append(reply)
        self.table_id, self.player_id, self.token = (
            reply.table_id,
            reply.player_id,
            reply.player_token,
        )
        return reply

    async def create(self, seats: int, settings: Settings | None = None) -> Any:
        request = lobby_pb2.CreateTableRequest(
            game_kind=common_pb2.GAME_KIND_MATCH_FIVE,
            seats=seats,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name=self.name,
        )
        if settings is not None:
            request.match_five.CopyFrom(settings)
        return self._seat(await self.lobby.CreateTable(request))

    async def join(self, table_id: str) -> Any:
        request = lobby_pb2.JoinTableRequest(table_id=table_id, display_name=self.name)
        return self._seat(await self.lobby.JoinTable(request))

    async def _call(self, rpc: str, **fields: Any) -> Any:
        """One command, sent again (same request id) after the wait the lobby's per-player rate
        limit names, as a polite client does: a test plays faster than a person."""
        request = getattr(match_five_service_pb2, f"{rpc}Request")(table_id=self.table_id, **fields)
        metadata = self.metadata()
        call = getattr(self.game, rpc)
        reply = await sent_politely(lambda: call(request, metadata=metadata), 50)
        self.received.append(reply)
        return reply

    async def write(self, combination: int, text: str) -> Any:
        return await self._call("WriteLink", combination=combination, text=text)

    async def erase(self, combination: int) -> Any:
        return await self._call("EraseLink", combination=combination)

    async def done(self) -> Any:
        return await self._call("Done")

    async def vote(self, ballot: int, accept: bool) -> Any:
        return await self._call("Vote", ballot=ballot, accept=accept)

    async def call_match(self, ballot: int) -> Any:
        return await self._call("CallMatch", ballot=ballot)

    # --- the Watch stream -------------------------------------------------------------------

    def watch(self) -> None:
        """Open (or, after :meth:`drop`, reopen) the stream, resuming after the last event."""

        async def run(after: int) -> None:
            call = self.game.Watch(
                match_five_service_pb2.MatchFiveServiceWatchRequest(
                    table_id=self.table_id, after_event_number=after
                ),
                metadata=self.metadata(),
            )
            async for item in call:
                self.stream.append(item)
                self.received.append(item)
                if item.WhichOneof("item") == "event":
                    self.last = item.event.event_number

        self._watch = asyncio.create_task(run(self.last))

    async def drop(self) -> None:
        """The connection goes: the stream ends (the seat stays)."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self._watch
            self._watch = None

    def events(self) -> list[Any]:
        return [
            i.event.match_five
            for i in self.stream
            if i.WhichOneof("item") == "event" and i.event.HasField("match_five")
        ]

    def found(self, kind: str, **where: Any) -> list[Any]:
        bodies = [getattr(e, kind) for e in self.events() if e.WhichOneof("event") == kind]
        return [b for b in bodies if all(getattr(b, k) == v for k, v in where.items())]

    async def wait_for(self, kind: str, timeout: float = 30, **where: Any) -> Any:
        async def until() -> Any:
            while not self.found(kind, **where):
                await asyncio.sleep(0.02)
            return self.found(kind, **where)[0]

        return await asyncio.wait_for(until(), timeout)

    async def opened(self, round_: int, combination: int) -> Any:
        return await self.wait_for("combination_opened", round=round_, combination=combination)

    async def closed(self, round_: int, combination: int) -> Any:
        return await self.wait_for("combination_closed", round=round_, combination=combination)


def ballot_of(opened: Any, player: str) -> int:
    return next(link.ballot for link in opened.links if link.player == player)


def check_no_leaks(player: M5Player, texts: dict[tuple[int, int, str], str]) -> None:
    """``texts``: (round, combination, author) -> the link, as written. ``player`` received
    another player's link only in a CombinationOpened of its combination (or a snapshot taken
    after it), never in a LinkWritten, and never before."""
    opened: set[tuple[int, int]] = set()
    for item in player.received:
        for text_of, where in _links_in(item, opened):
            author_round_comb = next(
                (k for k, v in texts.items() if v == text_of and k[2] != player.player_id), None
            )
            if author_round_comb is not None:
                assert (author_round_comb[0], author_round_comb[1]) in opened, (
                    f"{player.name} saw {text_of!r} in {where} before its reading"
                )


def _links_in(item: Any, opened: set[tuple[int, int]]) -> list[tuple[str, str]]:
    """The link texts an item carries, noting the combinations it opens first."""
    found: list[tuple[str, str]] = []
    events: list[Any] = []
    views: list[Any] = []
    if isinstance(item, match_five_service_pb2.MatchFiveServiceWatchResponse):
        if item.WhichOneof("item") == "snapshot":
            views.append(item.snapshot)
        elif item.event.HasField("match_five"):
            events.append(item.event.match_five)
    elif hasattr(item, "events") and hasattr(item, "view"):
        events.extend(e.match_five for e in item.events if e.HasField("match_five"))
        views.append(item.view)
    for event in events:
        kind = event.WhichOneof("event")
        if kind == "combination_opened":
            body = event.combination_opened
            opened.add((body.round, body.combination))
            found.extend((link.text, "a reading") for link in body.links)
        elif kind == "link_written":
            found.append((event.link_written.text, "a LinkWritten"))
    for view in views:
        for read in view.read:
            opened.add((read.round, read.combination))
            found.extend((link.text, "a view's reading") for link in read.links)
        for ballot in view.ballots:
            if ballot.text:
                found.append((ballot.text, "a view's ballot"))
    return found
