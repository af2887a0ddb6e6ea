"""The end-to-end drivers' calls over ``Play``: a channel whose game rpcs travel on Play streams.

The drivers (tests/e2e/players_<slug>.py) call each game through its generated stub. Over
:class:`PlayChannel` a game's unary rpcs and its Watch go instead over the seat's Play stream
(match_client.play.PlayStream, one per seat token, opened at its first call), so the same
whole games and the same leak checks run over Play; the lobby's rpcs, and a spectator's Watch,
go over the channel as they are. A refusal is the same AioRpcError either way. Nothing here names
a game: a path is matched to its game by the registered games' services.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from functools import cache
from typing import Any

import grpc

from match_client.play import PlayStream, play_rpc
from match_rules import registry

TIMEOUT_S = 10.0


@cache
def _games() -> dict[str, str]:
    """Service full name -> the game's slug."""
    found = {}
    for game in registry.games():
        module = importlib.import_module(f"match.v1.{game.slug}_service_pb2")
        (service,) = module.DESCRIPTOR.services_by_name.values()
        found[service.full_name] = game.slug
    return found


def _game_rpc(path: str) -> tuple[str, str] | None:
    service, _, rpc = path.strip("/").partition("/")
    slug = _games().get(service)
    return (slug, rpc) if slug is not None else None


def _get(metadata: Any, key: str) -> str | None:
    return next((str(v) for k, v in metadata or () if k == key), None)


class PlayChannel:
    """``channel``, with each seat's game calls on its own Play stream."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._channel = channel
        self.streams: dict[tuple[str, str], PlayStream] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)

    def stream(self, slug: str, metadata: Any) -> PlayStream:
        auth = _get(metadata, "authorization") or ""
        found = self.streams.get((slug, auth))
        if found is None:
            seat = [(k, v) for k, v in metadata or () if k != "x-request-id"]
            rpc = play_rpc(slug)
            assert rpc is not None, f"{slug} has no Play"
            found = self.streams[(slug, auth)] = PlayStream(self._channel, rpc, seat, TIMEOUT_S)
        return found

    def unary_unary(self, path: str, *args: Any, **kwargs: Any) -> Any:
        game = _game_rpc(path)
        if game is None:
            return self._channel.unary_unary(path, *args, **kwargs)
        slug, rpc = game

        async def call(request: Any, timeout: Any = None, metadata: Any = None, **_: Any) -> Any:
            stream = self.stream(slug, metadata)
            return await stream.call(rpc, request, _get(metadata, "x-request-id"))

        return call

    def unary_stream(self, path: str, *args: Any, **kwargs: Any) -> Any:
        game = _game_rpc(path)
        plain = self._channel.unary_stream(path, *args, **kwargs)
        if game is None:
            return plain

        def call(request: Any, timeout: Any = None, metadata: Any = None, **more: Any) -> Any:
            if _get(metadata, "authorization") is None:  # a spectator: Watch as it is
                return plain(request, timeout=timeout, metadata=metadata, **more)
            return _View(self.stream(game[0], metadata), request.after_event_number)

        return call

    async def close(self) -> None:
        for stream in self.streams.values():
            await stream.close()


class _View:
    """A seat's view on its Play stream, as a Watch call is used: iterated, maybe cancelled."""

    def __init__(self, stream: PlayStream, after: int) -> None:
        self._items = stream.watch(after)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._items

    def cancel(self) -> None:
        pass  # the driver cancels the task that iterates: the iterator closes the stream
