"""The web edge's WebSockets: each bidirectional gRPC method (a game's ``Play``) for browsers.

A browser cannot stream both ways over HTTP/1.1 (fetch has no full-duplex body), so Connect
cannot carry ``Play``. The web edge (services/webedge.py) serves each bidirectional method of
the services it was given as a WebSocket at the method's own path
(``/match.v1.MatchRaceService/Play``), and runs the very handler the gRPC server runs, as it
does for the Connect calls: one implementation of the token check, the admission against the
stream caps, the rate limits (a token from the address's and the player's buckets per
message), the refusals and the leak checks (docs/api.md, "Play over a WebSocket"):

- **Opening.** The upgrade passes the edge's Host and Origin checks and carries no query
  string: a URL ends up in logs and histories, so a token must not travel in one. A refused
  upgrade is answered with an HTTP status and a sentence, before anything runs.
- **The first message** is text: the call's metadata, as gRPC metadata would carry it, as a
  JSON object of strings: ``{"authorization": "Bearer <player_token>"}`` (``x-client-key``
  may come too). It must come within ``hello_timeout_s`` of the socket opening (0: no limit;
  the lobby gives its web edge's header timeout, ``LOBBY_WEB_HEADER_TIMEOUT_S``); a socket
  without one is closed 4016 (UNAUTHENTICATED), one whose first message is not such an object
  4003 (INVALID_ARGUMENT), each with a sentence.
- **Then** each binary message is one request message, parsed by the handler's own parser (a
  body that does not parse is the handler's to refuse, as on gRPC), and each response message
  goes out as one binary message. A text message after the first closes the socket 4003.
- **The end.** The handler's end OK closes the socket 1000. Its end with a status (the token
  expired, too many streams, ...) sends, as the last binary message, the method's response
  message with an empty ``request_id`` and its ``refusal`` (the status code, the sentence, the
  refusal's slug and the wait of a rate limit: what a gRPC client reads in the status and the
  trailers), then closes with code 4000 + the status code and the sentence, cut to the 123
  bytes a close frame holds.
- **Size.** A message over the edge's ``max_body`` bytes closes the socket 1009 (the
  websockets library counts it as it arrives and keeps none of it), as the gRPC server refuses
  a message over its limit.

uvicorn runs the WebSocket on the ``websockets`` library's sans-I/O protocol (its C speedups
mask and unmask frames); :class:`GuardedSocket` keeps the connection counted by the edge's
ConnectionGuard until it closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc  # type: ignore[import-untyped]
import structlog
from google.protobuf import descriptor_pool
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from prometheus_client import Counter, Gauge
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

log = structlog.get_logger()

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

HELLO_TIMEOUT_S = 10.0  # to send the first message, as a request has to send its headers
MAX_METADATA = 16  # entries of the first message
REASON_BYTES = 123  # what a close frame's reason holds (RFC 6455, 5.5)
NORMAL = 1000
STATUS_BASE = 4000  # closed for a status: 4000 + its gRPC code (4016: UNAUTHENTICATED)

HELLO = (
    'send the call\'s metadata first, as a text message: {"authorization": "Bearer '
    '<player_token>"}; then each request as a binary message (docs/api.md)'
)

SOCKETS = Gauge("match_web_sockets", "Web edge WebSockets open now (each a seat's Play stream)")
SOCKET_MESSAGES = Counter(
    "match_web_socket_messages_total",
    "Messages on the web edge's WebSockets, by direction: in (requests), out (responses)",
    ["direction"],
)
SOCKETS_CLOSED = Counter(
    "match_web_sockets_closed_total",
    "Web edge WebSockets closed by the edge, by close code (1000: the handler ended; 4000 + a "
    "gRPC status code: it ended with that status; 1009: a message over the size limit)",
    ["code"],
)
_IN = SOCKET_MESSAGES.labels("in")
_OUT = SOCKET_MESSAGES.labels("out")


class Ended(Exception):
    """The handler's ``context.abort``: the socket ends with this status."""

    def __init__(
        self, code: grpc.StatusCode, details: str, trailers: tuple[tuple[str, str], ...]
    ) -> None:
        super().__init__(details)
        self.code = code
        self.details = details
        self.trailers = trailers


class SocketContext:
    """The part of ``grpc.aio.ServicerContext`` the handlers use, over a WebSocket: the peer
    is the TCP peer (as on the gRPC port: no X-Forwarded-For), the metadata the first
    message's."""

    def __init__(self, peer: str, metadata: tuple[tuple[str, str], ...]) -> None:
        self._peer = peer
        self._metadata = metadata

    def peer(self) -> str:
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Iterable[tuple[str, str]] = (),
    ) -> None:
        raise Ended(code, details, tuple((k, str(v)) for k, v in trailing_metadata or ()))


class Refused(Exception):
    """The client broke the socket's protocol: it is closed with ``code`` and ``reason``."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def metadata_of(text: str) -> tuple[tuple[str, str], ...]:
    """The first message's metadata; Refused when it is not a JSON object of strings."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if (
        not isinstance(value, dict)
        or len(value) > MAX_METADATA
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    ):
        raise Refused(
            STATUS_BASE + grpc.StatusCode.INVALID_ARGUMENT.value[0],
            "the first message is not a JSON object of strings: " + HELLO,
        )
    return tuple((k.lower(), v) for k, v in value.items())


@dataclass
class SocketMethod:
    """One bidirectional method, served as a WebSocket at its path."""

    path: str  # /<service>/<method>
    handler: Any  # its grpc RpcMethodHandler (stream_stream)
    # The method's response message, when it has ``request_id`` and a ``refusal``
    # (match.v1.PlayRefusal): how the socket says why it ends. None: the close alone says it.
    response: type[Message] | None = field(default=None)

    @classmethod
    def of(cls, service: str, name: str, handler: Any) -> SocketMethod:
        pool = descriptor_pool.Default()  # type: ignore[no-untyped-call]
        method = pool.FindMethodByName(f"{service}.{name}")
        response: type[Message] | None = GetMessageClass(method.output_type)
        fields = method.output_type.fields_by_name
        if "request_id" not in fields or "refusal" not in fields:
            response = None
        return cls(f"/{service}/{name}", handler, response)

    def ending(self, error: Ended) -> bytes | None:
        """The last message of a socket that ends with ``error``: the refusal a gRPC client
        reads from the status and the trailers."""
        if self.response is None:
            return None
        trailers = dict(error.trailers)
        wait = trailers.get("retry-after-ms", "0")
        message = self.response(request_id="")
        refusal = message.refusal  # type: ignore[attr-defined]
        refusal.status_code = error.code.value[0]
        refusal.message = error.details
        refusal.refusal_code = trailers.get("match-refusal-code", "")
        refusal.retry_after_ms = int(wait) if wait.isdigit() else 0
        return message.SerializeToString()


def close_reason(text: str) -> str:
    """``text`` cut to what a close frame holds (whole UTF-8 characters, "..." when cut)."""
    raw = text.encode()
    if len(raw) <= REASON_BYTES:
        return text
    return raw[: REASON_BYTES - 3].decode(errors="ignore") + "..."


async def serve_socket(
    method: SocketMethod,
    peer: str,
    receive: Receive,
    send: Send,
    hello_timeout_s: float = HELLO_TIMEOUT_S,
) -> None:
    """Run ``method``'s handler over an accepted WebSocket (``receive``/``send``: ASGI's),
    until the handler ends, the client goes, or the client breaks the protocol."""
    SOCKETS.inc()
    closed = False

    async def close(code: int, reason: str = "") -> None:
        nonlocal closed
        if closed:
            return
        closed = True
        SOCKETS_CLOSED.labels(str(code)).inc()
        with contextlib.suppress(Exception):  # the client may be gone already
            await send({"type": "websocket.close", "code": code, "reason": close_reason(reason)})

    try:
        try:
            first = await asyncio.wait_for(receive(), hello_timeout_s or None)
        except TimeoutError:
            await close(
                STATUS_BASE + grpc.StatusCode.UNAUTHENTICATED.value[0],
                f"no first message within {hello_timeout_s:g} s: " + HELLO,
            )
            return
        if first["type"] != "websocket.receive":
            closed = True  # the client went
            return
        if first.get("text") is None:
            await close(
                STATUS_BASE + grpc.StatusCode.UNAUTHENTICATED.value[0],
                "the first message was binary: " + HELLO,
            )
            return
        try:
            metadata = metadata_of(first["text"])
        except Refused as refused:
            await close(refused.code, refused.reason)
            return
        gone: list[Refused | None] = []  # how the client's side ended, once it has
        requests = _requests(receive, method.handler.request_deserializer, gone)
        serialize = method.handler.response_serializer
        try:
            async for response in method.handler.stream_stream(
                requests, SocketContext(peer, metadata)
            ):
                await send({"type": "websocket.send", "bytes": serialize(response)})
                _OUT.inc()
        except Ended as error:
            last = method.ending(error)
            if last is not None and not gone:
                with contextlib.suppress(Exception):
                    await send({"type": "websocket.send", "bytes": last})
            await close(STATUS_BASE + error.code.value[0], error.details)
            return
        except OSError:  # uvicorn's ClientDisconnected: the client went while we sent
            closed = True
            return
        if gone and gone[0] is not None:
            await close(gone[0].code, gone[0].reason)
        elif not gone:
            await close(NORMAL)
        else:
            closed = True  # the client closed it
    finally:
        SOCKETS.dec()


async def _requests(
    receive: Receive, parse: Callable[[bytes], Any], gone: list[Refused | None]
) -> AsyncIterator[Any]:
    """The client's messages, parsed, until it closes (``gone`` gets None) or sends text
    (``gone`` gets why the socket closes)."""
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            gone.append(None)
            return
        data = message.get("bytes")
        if data is None:
            gone.append(
                Refused(
                    STATUS_BASE + grpc.StatusCode.INVALID_ARGUMENT.value[0],
                    "a text message after the first: every request is a binary message (the "
                    "method's request message, protobuf)",
                )
            )
            return
        _IN.inc()
        yield parse(data)


class GuardedSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket connection, still counted by the edge's ConnectionGuard: the HTTP
    connection it was upgraded from hands it the release of its place
    (webedge.GuardedH11.handle_websocket_upgrade), and it gives the place up when it closes."""

    release: Callable[[], None] | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        release, self.release = self.release, None
        if release is not None:
            release()
        super().connection_lost(exc)
