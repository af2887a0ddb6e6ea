"""How a bench seat sends its game's commands: one interface, a transport per way of sending.

A seat's transport takes one command (the name of an rpc of its game's service and the request
message) and returns the reply, or raises the call's ``grpc.aio.AioRpcError`` (a refusal of the
rules carries its code, :func:`match_client.client.refusal_code`). The players of every game (the
race's and the scripted ones, match_bench.games) send through it and know nothing else of the
wire, so a second transport is a class here and an entry in :data:`TRANSPORTS`.

``unary``: one gRPC unary call per command, the rpc found by name in the game's service
descriptor (match_client.session.rpcs, the table ``GameSession`` calls from), sent over the
bench's own channels: ``GameSession`` calls over its ``MatchClient``'s channel, and every
``MatchClient`` of a process shares one HTTP/2 connection (gRPC's global subchannel pool), which
would cap the load; the bench's channels each keep their own.

``play``: the seat's bidirectional ``Play`` stream (docs/api.md, "Play"), opened at its first
command and closed by :meth:`Transport.close`, through the terminal client's own
:class:`match_client.play.PlayStream` (answers matched by request id, a refusal raised as the
unary call's error), on the same channels.

``view``: as ``play``, and the seat follows its table's view on that stream from its first
command on, as every client app does (the bench's other players only send).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc  # type: ignore[import-untyped, unused-ignore]
from google.protobuf.message import Message

from match_client.play import PlayStream, play_rpc
from match_client.session import rpcs

TIMEOUT_S = 30.0


class Transport(Protocol):
    """One seat's way of sending its game's commands."""

    name: str

    async def send(self, rpc: str, request: Message) -> Any:
        """The reply to ``request`` sent as the rpc ``rpc``; raises the call's AioRpcError."""
        ...

    async def close(self) -> None:
        """Nothing more will be sent."""
        ...


class Unary:
    """A unary call per command, with the seat's token."""

    name = "unary"

    def __init__(self, channel: grpc.aio.Channel, slug: str, token: str) -> None:
        self._channel = channel
        self._rpcs = rpcs(slug)
        self._metadata = (("authorization", f"Bearer {token}"),)
        self._calls: dict[str, Any] = {}

    def _call(self, name: str) -> Any:
        found = self._calls.get(name)
        if found is None:
            rpc = self._rpcs[name]
            if rpc.streaming:
                raise ValueError(f"{rpc.path} streams: a transport sends commands, not Watch")
            found = self._calls[name] = self._channel.unary_unary(
                rpc.path,
                request_serializer=rpc.request.SerializeToString,
                response_deserializer=rpc.response.FromString,
            )
        return found

    async def send(self, rpc: str, request: Message) -> Any:
        return await self._call(rpc)(request, metadata=self._metadata, timeout=TIMEOUT_S)

    async def close(self) -> None:
        return None


class Play:
    """The seat's commands over its Play stream, one stream per seat."""

    name = "play"

    def __init__(self, channel: grpc.aio.Channel, slug: str, token: str) -> None:
        rpc = play_rpc(slug)
        if rpc is None:
            raise ValueError(f"the {slug} service has no Play rpc")
        self._stream = PlayStream(channel, rpc, (("authorization", f"Bearer {token}"),), TIMEOUT_S)

    async def send(self, rpc: str, request: Message) -> Any:
        request_id = str(getattr(request, "request_id", "")) or None
        return await self._stream.call(rpc, request, request_id)

    async def close(self) -> None:
        await self._stream.close()


@dataclass
class ViewTally:
    """What the seats' views got: every event (``items``), the messages that carried them (a
    batch is one), and how each view ended ("ok": the game over; otherwise the status that
    ended it)."""

    items: int = 0
    messages: int = 0
    ended: Counter[str] = field(default_factory=Counter)


class Viewing(Play):
    """As ``play``, and the seat follows its view on the same stream from its first command,
    as the terminal client, the bot and the browser do: every event of the table the seat may
    see comes down the stream besides the replies. Items are counted, in :attr:`tally` (one for
    every seat of the process: the bench sets a fresh one before a phase), not drawn."""

    name = "view"
    tally = ViewTally()
    # The view leaves out what the seat's answers carried, as the terminal client asks it to
    # (docs/api.md, "Play"); False sends every event down the view too (the bench's A/B).
    skip_answered = True

    def __init__(self, channel: grpc.aio.Channel, slug: str, token: str) -> None:
        super().__init__(channel, slug, token)
        self._follow: asyncio.Task[None] | None = None

    async def send(self, rpc: str, request: Message) -> Any:
        if self._follow is None:
            self._follow = asyncio.create_task(self._view(self.tally))
        return await super().send(rpc, request)

    async def _view(self, tally: ViewTally) -> None:
        try:
            counted = self._stream.view_messages
            async for _ in self._stream.watch(0, skip_answered=self.skip_answered):
                tally.items += 1
                tally.messages += self._stream.view_messages - counted
                counted = self._stream.view_messages
            tally.ended["ok"] += 1
        except grpc.aio.AioRpcError as error:
            tally.ended[error.code().name] += 1

    async def close(self) -> None:
        if self._follow is not None:
            self._follow.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._follow
        await super().close()


# name -> how a seat's transport is made from (channel, game slug, seat token)
TRANSPORTS: dict[str, Callable[[grpc.aio.Channel, str, str], Transport]] = {
    "unary": Unary,
    "play": Play,
    "view": Viewing,
}


def make(name: str, channel: grpc.aio.Channel, slug: str, token: str) -> Transport:
    """The seat's transport ``name``; a clear error for one the bench does not have."""
    if name not in TRANSPORTS:
        raise ValueError(f"no transport {name!r}; the bench has {sorted(TRANSPORTS)}")
    return TRANSPORTS[name](channel, slug, token)
