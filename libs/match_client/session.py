"""One seat's calls to its game's own gRPC service, for any registered game.

Each game has one service, the only one in ``match.v1.<slug>_service_pb2`` (the lobby serves it
the same way, services/lobby/games.py): unary rpcs that are the game's commands, and one
server-streaming ``Watch`` whose request has ``table_id`` and ``after_event_number``. The calls
are made from the service's descriptor over the client's channel with grpc's generic
``unary_unary`` and ``unary_stream``, so nothing here names a game: the terminal client, the
bot service, the chaos and bench players and the tests all call a game through
:class:`GameSession`.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf import message_factory
from google.protobuf.message import Message

from match_client.client import BOT_KEY_HEADER, MatchClient, Seat
from match_client.play import PlayStream, Unsupported, play_rpc, unbatched

WATCH = "Watch"


@dataclass(frozen=True, slots=True)
class Rpc:
    path: str  # "/match.v1.<Service>/<Rpc>"
    request: type[Message]
    response: type[Message]
    streaming: bool


@cache
def rpcs(slug: str) -> dict[str, Rpc]:
    """The rpcs of the game ``slug``'s service, by name."""
    messages = importlib.import_module(f"match.v1.{slug}_service_pb2")
    (service,) = messages.DESCRIPTOR.services_by_name.values()
    return {
        method.name: Rpc(
            path=f"/{service.full_name}/{method.name}",
            request=message_factory.GetMessageClass(method.input_type),
            response=message_factory.GetMessageClass(method.output_type),
            streaming=method.server_streaming,
        )
        for method in service.methods
        if not method.client_streaming  # Play: match_client.play
    }


class GameSession:
    """One seat's calls to its game's service. Every call sends the seat's token (``token``
    None: a spectator, who may only watch a game whose table is public); the Watch also sends
    the bot key when given (the lobby then counts its streams per seat, not per address: the
    bot service plays every bot seat from one address).

    A seat (``token`` given) plays over its game's ``Play`` stream (match_client.play): its
    commands and its view on one stream, opened at the first of them. ``play=False``, or a
    server without Play (UNIMPLEMENTED), uses the unary rpcs and Watch instead; the answers and
    errors are the same either way. :meth:`close` ends the stream."""

    def __init__(
        self,
        client: MatchClient,
        slug: str,
        table_id: str,
        token: str | None,
        bot_key: str | None = None,
        play: bool = True,
    ) -> None:
        self.client = client
        self.slug = slug
        self.table_id = table_id
        self._token = token
        self._bot_key = bot_key
        self._rpcs = rpcs(slug)
        self._callables: dict[str, Any] = {}
        self._play = play_rpc(slug) if play and token else None
        self._stream: PlayStream | None = None

    @property
    def stream(self) -> PlayStream | None:
        """The seat's Play stream (made at its first use; None: this session plays unary)."""
        if self._stream is None and self._play is not None:
            metadata = list(self.client.metadata(self._token, None))[1:]  # no request id
            if self._bot_key:
                metadata.append((BOT_KEY_HEADER, self._bot_key))
            channel: Any = self.client._channel  # the client's one channel to the lobby
            self._stream = PlayStream(channel, self._play, metadata, self.client.timeout)
        return self._stream

    @property
    def playing(self) -> bool:
        """True while this seat's commands go over its Play stream."""
        return self._play is not None and not (self._stream and self._stream.unsupported)

    async def close(self) -> None:
        """End the seat's Play stream, if open."""
        if self._stream is not None:
            await self._stream.close()

    @classmethod
    def of(cls, client: MatchClient, slug: str, seat: Seat) -> GameSession:
        """The session of ``seat`` at a table of the game ``slug``."""
        return cls(client, slug, seat.table_id, seat.token)

    def _callable(self, name: str) -> Any:
        found = self._callables.get(name)
        if found is None:
            rpc = self._rpcs[name]
            channel: Any = self.client._channel  # the client's one channel to the lobby
            make = channel.unary_stream if rpc.streaming else channel.unary_unary
            found = self._callables[name] = make(
                rpc.path,
                request_serializer=rpc.request.SerializeToString,
                response_deserializer=rpc.response.FromString,
            )
        return found

    async def call(self, rpc: str, request: Message, request_id: str | None = None) -> Message:
        """Send ``request`` to the rpc ``rpc``; its response (or the call's AioRpcError)."""
        stream = self.stream
        if stream is not None and not stream.unsupported:
            try:
                answer: Message = await stream.call(rpc, request, request_id)
                return answer
            except Unsupported:
                pass  # the server has no Play: the unary rpc, from now on
        metadata = self.client.metadata(self._token, request_id)
        reply: Message = await self._callable(rpc)(
            request, timeout=self.client.timeout, metadata=metadata
        )
        return reply

    async def send(self, rpc: str, request_id: str | None = None, **fields: Any) -> Any:
        """The rpc ``rpc`` with a request of this table and ``fields`` (``send("FlipCard",
        card=3)``); its response, as the game's own message (or the call's AioRpcError)."""
        request = self._rpcs[rpc].request(table_id=self.table_id, **fields)
        return await self.call(rpc, request, request_id)

    async def watch(
        self, after_event_number: int = 0, skip_answered: bool = False
    ) -> AsyncIterator[Any]:
        """The table's stream for this seat: maybe a snapshot, then every event, until the server
        ends it. Breaking out cancels the call. ``skip_answered``: over Play, the view leaves out
        what this session's answers carried, for a caller that folds the answers' events with
        the view's in number order (a Watch call sends every event either way)."""
        stream = self.stream
        if stream is not None and not stream.unsupported:
            try:
                async for item in stream.watch(after_event_number, skip_answered):
                    yield item
                return
            except Unsupported:
                pass  # the server has no Play: Watch, from now on
        request = self._rpcs[WATCH].request(
            table_id=self.table_id, after_event_number=after_event_number, batch=True
        )
        metadata = list(self.client.metadata(self._token, None))
        if self._bot_key:
            metadata.append((BOT_KEY_HEADER, self._bot_key))
        call = self._callable(WATCH)(request, timeout=None, metadata=metadata)
        try:
            async for item in call:
                for one in unbatched(item):
                    yield one
        finally:
            call.cancel()
