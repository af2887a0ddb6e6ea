"""A game's ``Play`` over the lobby's web edge WebSocket, as a gRPC stream-stream call.

:class:`SocketChannel` wraps a gRPC channel: a game's ``Play`` path opens a WebSocket at that
path on the web edge (the ``websockets`` library's client, an Origin of the edge's own page),
with the call's metadata as the first message; everything else goes over the channel as it
is. Its call has what match_client.play.PlayStream uses of a gRPC call (``write``, ``read``
ending in ``grpc.aio.EOF``, ``cancel``, ``done``, ``add_done_callback``,
``wait_for_connection`` and the status it ended with: ``code``, ``details``, the metadata), so
tests/e2e/play.py's PlayChannel over it plays
the five games' whole games over the socket, their leak checks included: the socket carries
exactly the messages Play carries. A close with code 4000 + a status is raised as the
``AioRpcError`` the gRPC stream would have ended with, its details and trailers from the
refusal the socket sends last.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import grpc
import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from match_client.play import PLAY, refused

STATUS_BASE = 4000
_CODES = {code.value[0]: code for code in grpc.StatusCode}


def socket_url(web_url: str, path: str) -> str:
    """The WebSocket URL of ``path`` on the web edge at ``web_url`` (http://host:port)."""
    parts = urlsplit(web_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}{path}"


async def open_socket(
    web_url: str, path: str, origin: str | None = None, **kwargs: Any
) -> ClientConnection:
    """A WebSocket to ``path``, sent as the edge's own page would open it (its Origin)."""
    return await connect(
        socket_url(web_url, path),
        origin=origin or web_url,  # type: ignore[arg-type]
        max_size=None,
        compression=None,
        **kwargs,
    )


def hello(metadata: Sequence[tuple[str, str]]) -> str:
    """The first message: the call's metadata as a JSON object."""
    return json.dumps({k: v for k, v in metadata})


class SocketCall:
    """One Play stream over a WebSocket, used as PlayStream uses a gRPC call."""

    def __init__(
        self, web_url: str, path: str, metadata: Sequence[tuple[str, str]], parse: Any, dump: Any
    ) -> None:
        self._parse = parse
        self._dump = dump
        self._last: Any = None  # the last message, when a refusal with no request id
        self._closing: asyncio.Future[None] | None = None
        self._over = False  # the socket closed: the call is done, with _error (None: OK)
        self._error: grpc.aio.AioRpcError | None = None
        self._on_done: list[Any] = []
        self._ready = asyncio.ensure_future(self._open(web_url, path, metadata))

    async def _open(
        self, web_url: str, path: str, metadata: Sequence[tuple[str, str]]
    ) -> ClientConnection:
        try:
            ws = await open_socket(web_url, path)
        except (OSError, websockets.InvalidHandshake) as error:
            failed = grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(),
                details=f"the WebSocket did not open: {error}",
            )
            self._end(failed)
            raise failed from None
        await ws.send(hello(metadata))
        return ws

    def _end(self, error: grpc.aio.AioRpcError | None) -> None:
        """The call is over, with ``error`` (None: OK), as a gRPC call's status is set once."""
        if self._over:
            return
        self._over, self._error = True, error
        loop = asyncio.get_running_loop()
        for callback in self._on_done:
            loop.call_soon(callback, self)

    def _closed(self, closed: ConnectionClosed) -> grpc.aio.AioRpcError | None:
        try:
            raise_closed(closed, self._last)
        except grpc.aio.AioRpcError as error:
            self._end(error)
            return error
        self._end(None)
        return None

    def done(self) -> bool:
        return self._over

    def add_done_callback(self, callback: Any) -> None:
        if self._over:
            asyncio.get_running_loop().call_soon(callback, self)
        else:
            self._on_done.append(callback)

    async def wait_for_connection(self) -> None:
        await self._ready

    async def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.OK if self._error is None else self._error.code()

    async def details(self) -> str:
        return "" if self._error is None else str(self._error.details())

    async def initial_metadata(self) -> Any:
        return grpc.aio.Metadata()

    async def trailing_metadata(self) -> Any:
        return grpc.aio.Metadata() if self._error is None else self._error.trailing_metadata()

    async def write(self, message: Any) -> None:
        if self._over:
            raise asyncio.InvalidStateError("RPC already finished.")
        ws = await self._ready
        try:
            await ws.send(self._dump(message))
        except ConnectionClosed as closed:
            error = self._closed(closed)
            raise error or asyncio.InvalidStateError("RPC already finished.") from None

    async def read(self) -> Any:
        ws = await self._ready
        try:
            data = await ws.recv()
        except ConnectionClosed as closed:
            error = self._closed(closed)
            if error is not None:
                raise error from None
            return grpc.aio.EOF
        message = self._parse(data)
        # A refusal with no request id answers a message that did not parse (PlayStream drops
        # it), or, right before a close, says why the socket ends.
        last = message.WhichOneof("body") == "refusal" and not message.request_id
        self._last = message if last else None
        return message

    def cancel(self) -> None:
        async def close() -> None:
            with contextlib.suppress(Exception):
                ws = await self._ready
                await ws.close()

        if self._closing is None:
            self._closing = asyncio.ensure_future(close())
        self._end(
            grpc.aio.AioRpcError(
                grpc.StatusCode.CANCELLED,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(),
                details="Locally cancelled by application!",
            )
        )

    async def aclose(self) -> None:
        """Close the socket and wait until it is closed. ``cancel`` (what a gRPC call offers)
        only starts the close: a test that ended before it finished left the socket to the
        garbage collector, whose ResourceWarning then failed whichever test ran next."""
        self.cancel()
        assert self._closing is not None
        await self._closing


def raise_closed(closed: ConnectionClosed, last: Any) -> None:
    """A closed socket as the end of its gRPC stream: nothing for a close 1000 (OK), else the
    AioRpcError the stream would have ended with."""
    frame = closed.rcvd
    code = frame.code if frame is not None else 1006
    if code == 1000:
        return
    if STATUS_BASE < code < STATUS_BASE + 100 and last is not None:
        raise refused(last.refusal)
    if STATUS_BASE < code < STATUS_BASE + 100:
        raise grpc.aio.AioRpcError(
            _CODES.get(code - STATUS_BASE, grpc.StatusCode.UNKNOWN),
            grpc.aio.Metadata(),
            grpc.aio.Metadata(),
            details=frame.reason if frame is not None else "",
        )
    raise grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        details=f"the WebSocket closed ({code} {frame.reason if frame else ''})",
    )


class SocketChannel:
    """``channel``, with every ``Play`` opened as a WebSocket on the edge at ``web_url``."""

    def __init__(self, channel: grpc.aio.Channel, web_url: str) -> None:
        self._channel = channel
        self._web_url = web_url
        self.opened = 0
        self._calls: list[SocketCall] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)

    def stream_stream(
        self,
        path: str,
        request_serializer: Any = None,
        response_deserializer: Any = None,
        **kwargs: Any,
    ) -> Any:
        if not path.endswith(f"/{PLAY}"):
            return self._channel.stream_stream(
                path, request_serializer, response_deserializer, **kwargs
            )

        def call(metadata: Sequence[tuple[str, str]] = (), timeout: Any = None) -> SocketCall:
            self.opened += 1
            made = SocketCall(
                self._web_url, path, metadata, response_deserializer, request_serializer
            )
            self._calls.append(made)
            return made

        return call

    async def close(self) -> None:
        """Close every socket it opened, and wait until each is closed."""
        calls, self._calls = self._calls, []
        for call in calls:
            await call.aclose()
