"""The web edge: the same gRPC handlers, spoken to a browser in the Connect protocol.

A service registers its gRPC servicers through a ``Recorder`` (it passes them on to the gRPC
server and keeps them). ``ConnectEdge`` then serves exactly those handlers over HTTP with
connectrpc (Connect, gRPC-Web and gRPC on an ASGI server, uvicorn here): one implementation of
every call, with the same validation, tokens, rate limits, leak checks and metrics, because
each Connect call runs the very handler the gRPC server runs, with a context that answers the
few questions a handler asks (``peer()``, ``invocation_metadata()``, ``abort()``).

What the edge adds, and only here (docs/client.md, "The web edge"):

- **Origins.** A request that carries an ``Origin`` whose host is not the one it was sent to,
  and that is not one the edge was given (``allowed_origins``), is refused before anything
  runs: 403 with a sentence. An allowed origin gets CORS headers, and its preflight is
  answered. A request with no Origin (curl, a native client) is served: a browser always
  sends one on a cross-origin call.
- **Host.** A request whose ``Host`` is a name the edge was not given (``allowed_hosts``:
  ``localhost``, the names of ``<PREFIX>_WEB_HOSTS`` and of the listed origins, and the bind
  address when it is a name) is refused before anything runs: 403 with a sentence. An IP
  address is always answered. That stops DNS rebinding: a page of another site whose name has
  been pointed at this edge's address sends that name as its Host, and its Origin then passes
  as "the same host".
- **The page's headers.** The web client's files carry a Content-Security-Policy that lets the
  page load only its own files and call only this edge and the origins it is given
  (``connect_to``: the ledger's audit URL), ``frame-ancestors 'none'`` and
  ``X-Frame-Options: DENY`` so that no other site can frame it.
- **Size.** A body over ``max_body`` bytes is refused (Connect ``resource_exhausted``) before it
  is read, as the gRPC server refuses a message over its limit.
- **Content type.** Connect answers a content type it does not speak with 415 and the types it
  does (``application/proto``, ``application/json``, their streaming forms, gRPC-Web).
- **Connections.** A :class:`ConnectionGuard` under uvicorn holds the edge's connections to a
  total cap and each client address (services/peers.py) to a fair share of it
  (services/fairshare.py): over it, a connection is answered 503 with ``Retry-After`` and closed
  before anything is read. A connection has ``header_timeout_s`` to send a request's headers
  (from when it opened or its last answer ended, however slowly the bytes come) and
  ``body_timeout_s`` to send its body, or it is closed; an idle one goes after
  ``idle_timeout_s``. An answer being sent (a Watch) has no time limit.
- **Static files.** Anything else under ``/`` is the web client's bundle (``static_dir``), and
  ``/config.json`` what the page needs to know (``config``).
- **WebSockets.** A bidirectional method (a game's ``Play``) cannot go over Connect in a
  browser: it is served as a WebSocket at its own path, after the same Host and Origin checks,
  running the same handler (services/websocket.py).

The caller's address for the limits is the TCP peer, as on the gRPC port: the edge does not
trust ``X-Forwarded-For`` (an operator who puts a proxy in front configures the proxy's limits).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import json
import math
import mimetypes
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import structlog
import uvicorn
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format
from google.protobuf.message import Message
from prometheus_client import Counter, Gauge
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from match_bus.settings import decimal, whole
from services.fairshare import FairShare
from services.peers import IPV6_PREFIX, client_address
from services.websocket import HELLO_TIMEOUT_S, GuardedSocket, SocketMethod, serve_socket

log = structlog.get_logger()

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

MAX_BODY = 64 * 1024  # what the gRPC server takes (grpc.max_receive_message_length)

REFUSED = Counter(
    "match_web_refused_total",
    "Web edge requests refused before any handler ran, by reason: host (a name it was not "
    "given), origin (another site's page), size, content_type, method, not_found, query (a "
    "WebSocket's URL with a query: a token must not travel in a URL)",
    ["reason"],
)
CONNECTIONS_REFUSED = Counter(
    "match_web_connections_closed_total",
    "Web edge connections closed by its guard, by reason: full (over the total cap or the "
    "address's share), slow_headers, slow_body",
    ["reason"],
)
CONNECTIONS = Gauge("match_web_connections", "Web edge connections open now")


# --- recording the gRPC handlers -------------------------------------------------------------


class Recorder:
    """Stands in for the gRPC server while servicers are registered: every service goes on to
    ``server`` (when given) and is kept here, by full name, for the Connect edge."""

    def __init__(self, server: Any | None = None) -> None:
        self._server = server
        self.services: dict[str, dict[str, Any]] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        if self._server is not None:
            self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        if self._server is not None:
            self._server.add_registered_method_handlers(service, handlers)
        self.services[service] = dict(handlers)


# --- what a handler asks of its context ------------------------------------------------------


class Aborted(ConnectError):
    """A handler's ``context.abort``: the call ends with this status and message."""


_CODES = {
    status: Code[status.name] for status in grpc.StatusCode if status.name in Code.__members__
}
_CODES[grpc.StatusCode.CANCELLED] = Code.CANCELED


def connect_code(status: grpc.StatusCode) -> Code:
    return _CODES.get(status, Code.UNKNOWN)


def grpc_peer(client_address: str | None) -> str:
    """A gRPC-style peer (``ipv4:203.0.113.7:53124``, ``ipv6:[::1]:53124``) for an ASGI
    client address (``host:port``), so the limits key a browser as they key a gRPC client."""
    if not client_address:
        return "unknown"
    host, _, port = client_address.rpartition(":")
    if ":" in host:
        return f"ipv6:[{host}]:{port}"
    return f"ipv4:{host}:{port}"


class HandlerContext:
    """The part of ``grpc.aio.ServicerContext`` our handlers use, over a Connect request."""

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self._ctx = ctx
        self._metadata = tuple(
            (key.lower(), value) for key, value in ctx.request_headers.allitems()
        )

    def peer(self) -> str:
        return grpc_peer(self._ctx.client_address)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Iterable[tuple[str, str]] = (),
    ) -> None:
        for key, value in trailing_metadata or ():
            self._ctx.response_trailers.add(key, str(value))
        raise Aborted(connect_code(code), details)


# --- codecs: a body that does not parse reaches the handler as gRPC's would ------------------


@dataclass(frozen=True)
class _Body:
    """A method's request type as connectrpc sees it: parsed with the handler's own parser
    (the lobby's never raises: a bad body becomes a value the handler refuses, counted
    against the caller's limit), or with protobuf's JSON mapping."""

    message: type[Message]
    parse: Callable[[bytes], Any]


def _unparsable(body: _Body, why: str) -> ConnectError:
    return ConnectError(
        Code.INVALID_ARGUMENT,
        f"the request body is not a valid {body.message.DESCRIPTOR.full_name} message ({why}): "
        "send the message this method takes (see docs/api.md)",
    )


class _Binary(Codec[Message, Any]):
    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        body: _Body = message_class
        try:
            return body.parse(bytes(data))
        except Exception as error:  # a handler registered without a safe parser
            raise _unparsable(body, type(error).__name__) from None


class _Json(Codec[Message, Any]):
    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return json_format.MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        body: _Body = message_class
        message = body.message()
        try:
            json_format.Parse(bytes(data) or b"{}", message, ignore_unknown_fields=True)
        except (json_format.ParseError, UnicodeDecodeError, RecursionError, ValueError) as error:
            raise _unparsable(body, str(error).splitlines()[0][:200]) from None
        return message


# --- the Connect applications ----------------------------------------------------------------


Served = Any  # connectrpc's EndpointUnary or EndpointServerStream (not exported by name)


def _endpoint(service: str, name: str, handler: Any) -> Served:
    deserializer = handler.request_deserializer
    message = getattr(deserializer, "message_class", None) or getattr(
        deserializer, "__self__", None
    )
    if message is None:
        raise TypeError(f"{service}.{name}: cannot tell the request type of its handler")
    streaming = handler.unary_stream is not None
    info: MethodInfo[Any, Any] = MethodInfo(
        name=name,
        service_name=service,
        input=_Body(message, deserializer),  # type: ignore[arg-type]
        output=Message,
        idempotency_level=IdempotencyLevel.UNKNOWN,
        stream_type=StreamType.SERVER_STREAM if streaming else StreamType.UNARY,
    )
    if streaming:
        behaviour = handler.unary_stream

        async def stream(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
            async for item in behaviour(request, HandlerContext(ctx)):
                yield item

        return Endpoint.server_stream(info, stream)
    if handler.unary_unary is None:
        raise TypeError(f"{service}.{name}: only unary and server-streaming calls are served")
    call = handler.unary_unary

    async def unary(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        return await call(request, HandlerContext(ctx))

    return Endpoint.unary(info, unary)


class _ServiceApp(ConnectASGIApplication[Mapping[str, Served]]):
    def __init__(self, service: str, endpoints: Mapping[str, Served], max_body: int):
        self._path = f"/{service}"
        super().__init__(
            service=endpoints,
            endpoints=lambda e: e,
            read_max_bytes=max_body,
            codecs=[_Binary(), _Json()],
        )

    @property
    def path(self) -> str:
        return self._path


# --- the whole edge ---------------------------------------------------------------------------


@dataclass
class ConnectEdge:
    """An ASGI application: the recorded services in Connect, plus the web client's files."""

    services: Mapping[str, Mapping[str, Any]]
    allowed_origins: frozenset[str] = frozenset()
    # Host names answered besides IP addresses (WebConfig.answered_hosts); None: any Host.
    allowed_hosts: frozenset[str] | None = None
    connect_to: tuple[str, ...] = ()  # origins the page may call besides this edge
    static_dir: Path | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    max_body: int = MAX_BODY
    hello_timeout_s: float = HELLO_TIMEOUT_S  # a WebSocket's first message (its metadata)
    _apps: dict[str, _ServiceApp] = field(init=False, default_factory=dict)
    _sockets: dict[str, SocketMethod] = field(init=False, default_factory=dict)
    _page_headers: list[tuple[bytes, bytes]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self._page_headers = [*_PAGE, *_page_policy(self.connect_to)]
        for service, handlers in self.services.items():
            endpoints = {}
            for name, handler in handlers.items():
                if handler.stream_stream is not None:  # both ways: a WebSocket
                    socket = SocketMethod.of(service, name, handler)
                    self._sockets[socket.path] = socket
                else:
                    endpoints[f"/{service}/{name}"] = _endpoint(service, name, handler)
            self._apps[service] = _ServiceApp(service, endpoints, self.max_body)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send)
            return
        if scope["type"] != "http":
            await _plain(send, 404, "this edge speaks HTTP only")
            return
        refused = self._refused(scope)
        if refused is not None:
            await _plain(send, 403, refused)
            return
        origin = _header(scope, b"origin")
        cors: list[tuple[bytes, bytes]] = []
        if origin is not None and not _same_host(origin, scope):
            cors = _cors_headers(origin)
            if scope["method"] == "OPTIONS":
                await _respond(send, 204, b"", cors + _PREFLIGHT)
                return
        service = scope["path"].lstrip("/").split("/", 1)[0]
        app = self._apps.get(service)
        if app is None:
            await self._static(scope, send)
            return
        if scope["method"] != "POST":
            REFUSED.labels("method").inc()
            await _plain(
                send,
                405,
                f"{scope['method']} {scope['path']}: calls are POST (the Connect protocol)",
                [(b"allow", b"POST"), *cors],
            )
            return
        kind = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        if not kind.startswith(_SPOKEN):
            REFUSED.labels("content_type").inc()
            await _plain(
                send,
                415,
                f"content type {kind or '(none)'} is not spoken here: send application/proto "
                "or application/json (Connect), or their streaming and gRPC-Web forms",
                [(b"accept-post", b"application/proto, application/json"), *cors],
            )
            return
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            REFUSED.labels("size").inc()
            body = json.dumps(
                {
                    "code": "resource_exhausted",
                    "message": f"the request body is {length} bytes; this edge takes at most "
                    f"{self.max_body} (every request of this API is a few bytes)",
                }
            ).encode()
            await _respond(send, 429, body, [(b"content-type", b"application/json"), *cors])
            return
        await app(scope, receive, _with_headers(send, cors) if cors else send)

    def _refused(self, scope: Scope) -> str | None:
        """Why a request (or a WebSocket) is refused before anything runs: a Host name the
        edge was not given, or another site's Origin; None when it may go on."""
        host = _header(scope, b"host")
        if self.allowed_hosts is not None and host is not None:
            name = host_name(host)
            if name is not None and name not in self.allowed_hosts:
                REFUSED.labels("host").inc()
                return (
                    f"this edge does not answer to the name {name!r}: open it by its address "
                    "or by a name its operator lists (<SERVICE>_WEB_HOSTS or _WEB_ORIGINS)"
                )
        origin = _header(scope, b"origin")
        if (
            origin is not None
            and not _same_host(origin, scope)
            and origin not in self.allowed_origins
        ):
            REFUSED.labels("origin").inc()
            return (
                f"requests from {origin} are not allowed here: only pages served by this "
                "edge (and the origins its operator lists) may call it"
            )
        return None

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A WebSocket: a bidirectional method at its path (services/websocket.py)."""
        if (await receive())["type"] != "websocket.connect":
            return
        status, refused = 403, self._refused(scope)
        socket = self._sockets.get(scope["path"])
        if refused is None and socket is None:
            REFUSED.labels("not_found").inc()
            status = 404
            refused = (
                f"{scope['path']}: no WebSocket here; a game's Play is at "
                "/<package>.<Service>/Play (docs/api.md)"
            )
        if refused is None and scope.get("query_string"):
            REFUSED.labels("query").inc()
            status = 400
            refused = (
                "a WebSocket's URL takes no query: send the seat's token in the first message, "
                "never in a URL (URLs are logged)"
            )
        if refused is not None or socket is None:
            body = (str(refused) + "\n").encode()
            await send(
                {
                    "type": "websocket.http.response.start",
                    "status": status,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8")],
                }
            )
            await send({"type": "websocket.http.response.body", "body": body})
            return
        await send({"type": "websocket.accept"})
        host, port = scope.get("client") or ("", 0)
        peer = grpc_peer(f"{host}:{port}" if host else None)
        await serve_socket(socket, peer, receive, send, self.hello_timeout_s)

    async def _static(self, scope: Scope, send: Send) -> None:
        path = scope["path"]
        if scope["method"] not in ("GET", "HEAD"):
            await _plain(send, 405, f"{scope['method']} {path}: no such call on this edge")
            return
        if path == "/config.json":
            body = json.dumps(dict(self.config)).encode()
            await _respond(send, 200, body, [(b"content-type", b"application/json"), *_NO_STORE])
            return
        if self.static_dir is None:
            await _plain(send, 404, "this edge serves no web client")
            return
        root = self.static_dir.resolve()
        name = "index.html" if path in ("", "/") else path.lstrip("/")
        target = (root / name).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            REFUSED.labels("not_found").inc()
            if not (root / "index.html").is_file():
                await _plain(
                    send,
                    404,
                    f"the web client is not built ({root} has no index.html): run `make install`",
                )
                return
            await _plain(send, 404, f"{path}: no such file")
            return
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        body = b"" if scope["method"] == "HEAD" else target.read_bytes()
        headers = [(b"content-type", kind.encode()), *_NO_STORE, *self._page_headers]
        await _respond(send, 200, body, headers)


_SPOKEN = ("application/proto", "application/json", "application/connect+", "application/grpc")
_NO_STORE = [(b"cache-control", b"no-cache")]
# The page loads only its own files and talks only to this edge and the audit URL it is given.
_PAGE = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),  # for browsers older than frame-ancestors
]


def _page_policy(connect_to: Iterable[str]) -> list[tuple[bytes, bytes]]:
    """The page's Content-Security-Policy: its own files only (the favicon is a data: URL),
    calls to this edge and to ``connect_to``, no framing, no plugins, no <base>."""
    connect = " ".join(["'self'", *sorted(set(connect_to))])
    policy = (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src {connect}; frame-ancestors 'none'; base-uri 'none'; "
        "form-action 'self'; object-src 'none'"
    )
    return [(b"content-security-policy", policy.encode())]


def host_name(host: str) -> str | None:
    """The name in a Host header (lower case, no port, no trailing dot); None for an IP
    address, which DNS rebinding cannot use (it needs a name of the attacker's)."""
    if host.startswith("["):
        return None  # an IPv6 literal
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    name = name.strip().rstrip(".").lower()
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return name
    return None


_PREFLIGHT = [
    (b"access-control-allow-methods", b"GET, POST"),
    (
        b"access-control-allow-headers",
        b"content-type, authorization, x-request-id, x-client-key, connect-protocol-version, "
        b"connect-timeout-ms, x-grpc-web, x-user-agent, grpc-timeout",
    ),
    (b"access-control-max-age", b"600"),
]


def _cors_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"access-control-allow-origin", origin.encode()),
        (b"vary", b"Origin"),
        (
            b"access-control-expose-headers",
            b"match-refusal-code, retry-after-ms, grpc-status, grpc-message, "
            b"trailer-match-refusal-code, trailer-retry-after-ms",
        ),
    ]


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    async def wrapped(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return wrapped


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _same_host(origin: str, scope: Scope) -> bool:
    """True when ``origin`` names the host the request was sent to. The scheme is not
    compared: behind a proxy that ends TLS, the page's ``https://`` origin reaches the edge as
    plain HTTP for the same host."""
    host = _header(scope, b"host")
    return host is not None and origin.partition("://")[2] == host


async def _respond(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _plain(
    send: Send, status: int, text: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await _respond(
        send,
        status,
        (text + "\n").encode(),
        [(b"content-type", b"text/plain; charset=utf-8"), *(headers or [])],
    )


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


# --- serving it -------------------------------------------------------------------------------


class _Server(uvicorn.Server):
    """uvicorn inside a service's own loop: the service handles the signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Any:
        yield


def listen(addr: str) -> socket.socket:
    """A listening socket on ``host:port`` with SO_REUSEPORT, so that several replicas of a
    service can share one address as their gRPC ports do."""
    host, _, port = addr.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, int(port)))
    sock.listen(1024)
    sock.setblocking(False)
    return sock


async def serve_web(
    app: Any, addr: str, limits: ConnectionLimits | None = None
) -> Callable[[], Awaitable[None]]:
    """Serve ``app`` on ``addr`` until the returned ``stop()``, its connections held to
    ``limits``; raises OSError when the address cannot be bound (the service should not start
    half-served)."""
    limits = limits or ConnectionLimits()
    sock = listen(addr)
    guard = ConnectionGuard(limits)
    config = uvicorn.Config(
        app,
        http=type("GuardedHttpTools", (GuardedHttpTools,), {"guard": guard}),
        lifespan="off",
        proxy_headers=False,  # the TCP peer is the caller: X-Forwarded-For is not trusted
        server_header=False,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=3,
        # uvicorn takes whole seconds; 0 (no idle timeout) is a day
        timeout_keep_alive=math.ceil(limits.idle_timeout_s) if limits.idle_timeout_s else 86_400,
        # A bidirectional method's WebSocket (services/websocket.py): messages up to the edge's
        # body limit, uncompressed (a few bytes of protobuf; deflate costs CPU per message)
        ws=GuardedSocket,
        ws_max_size=getattr(app, "max_body", MAX_BODY),
        ws_per_message_deflate=False,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="web-edge")

    async def stop() -> None:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=5.0)
        sock.close()

    return stop


# --- connections ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConnectionLimits:
    """What the web edge's connections may hold and how slow they may be (0 turns one off);
    ``<PREFIX>_WEB_MAX_CONNECTIONS``, ``_MAX_CONNECTIONS_PER_ADDRESS``,
    ``_HEADER_TIMEOUT_S``, ``_BODY_TIMEOUT_S``, ``_IDLE_TIMEOUT_S``."""

    total: int = 512  # connections open at once
    per_address: int = 64  # ... from one client address: its FairShare of ``total``
    header_timeout_s: float = 10.0  # to send a request's headers
    body_timeout_s: float = 10.0  # to send a request's body once its headers came
    idle_timeout_s: float = 5.0  # between one answer and the next request
    retry_after_s: int = 5  # what a connection over its share is told to wait
    ipv6_prefix: int = IPV6_PREFIX  # an IPv6 client address is its first bits


class ConnectionGuard:
    """The edge's connections, counted by client address and in all."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.share = FairShare(limits.total, limits.per_address)
        self.open = 0
        self._by_address: dict[str, int] = {}

    def admit(self, key: str) -> bool:
        """Count one more connection from ``key``; False (nothing counted) over the share."""
        if not self.share.allows(self._by_address.get(key, 0), 1, self.open):
            return False
        self._by_address[key] = self._by_address.get(key, 0) + 1
        self.open += 1
        CONNECTIONS.set(self.open)
        return True

    def release(self, key: str) -> None:
        left = self._by_address.get(key, 0) - 1
        if left > 0:
            self._by_address[key] = left
        else:
            self._by_address.pop(key, None)
        self.open -= 1
        CONNECTIONS.set(self.open)


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 connection on httptools (llhttp, in C: less than half the CPU per call
    of the pure-Python h11, docs/performance.md), admitted by a ConnectionGuard and read against
    its deadlines: the headers of each request within ``header_timeout_s`` of the connection or
    of the last answer, its body within ``body_timeout_s`` of its headers.

    What the client owes is followed from the parser's callbacks: a request's headers (from the
    start, and once a request is answered), its body (its headers are in, its end is not), or
    nothing while its answer is being made or sent."""

    guard: ConnectionGuard  # set on a subclass per edge (serve_web)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._key: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._their = "headers"  # what the client is sending: headers, body, or done
        peer = transport.get_extra_info("peername")
        host, port = (str(peer[0]), int(peer[1])) if isinstance(peer, tuple) else ("", 0)
        peer_name = grpc_peer(f"{host}:{port}" if host else None)
        key = client_address(peer_name, self._limits.ipv6_prefix)
        if not self.guard.admit(key):
            CONNECTIONS_REFUSED.labels("full").inc()
            wait = self._limits.retry_after_s
            text = (
                f"this edge holds as many connections as it may from your address now: close "
                f"one, or try again in {wait} s\n"
            ).encode()
            transport.write(
                b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
                + f"retry-after: {wait}\r\ncontent-length: {len(text)}\r\n".encode()
                + b"connection: close\r\n\r\n"
                + text
            )
            transport.close()
            return
        self._key = key
        super().connection_made(transport)
        self._follow_state()

    @property
    def _limits(self) -> ConnectionLimits:
        return self.guard.limits

    def handle_websocket_upgrade(self, *args: Any) -> None:
        """The connection becomes a WebSocket (services/websocket.py): it owes no request any
        more, and stays counted by the guard until the socket's protocol loses it."""
        key, self._key = self._key, None
        super().handle_websocket_upgrade(*args)
        # data_received follows the request's state once more after this returns (the upgrade
        # request's body looks unsent): its deadline goes on the next turn of the loop, and
        # nothing arms one again, as the socket's protocol gets every byte from now on.
        self.loop.call_soon(self._clear_deadline)
        socket = self.transport.get_protocol()
        if key is not None and isinstance(socket, GuardedSocket):
            socket.release = functools.partial(self.guard.release, key)
        elif key is not None:
            self.guard.release(key)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._key is None:
            return  # refused: never counted, never served
        self.guard.release(self._key)
        self._key = None
        self._clear_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._key is None:
            return
        super().data_received(data)
        self._follow_state()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._their = "headers"

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._their = "body"  # until its end: at once, for a request without a body

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._their = "done"

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow_state()

    def _answering(self) -> bool:
        cycle = self.cycle
        return (cycle is not None and not cycle.response_complete) or bool(self.pipeline)

    def _owes(self) -> str:
        """What the client owes now: ``headers``, ``body``, or nothing ("")."""
        if self._their == "body":
            return "body"
        if self._answering():
            return ""  # the request is in: its answer takes as long as it takes
        return "headers"  # the next request (or the rest of its headers)

    def _follow_state(self) -> None:
        """The deadline for what the client owes now: a request's headers (not moved by a
        part of them), its body, or nothing while it waits for its answer."""
        owes = "" if self.transport.is_closing() else self._owes()
        if owes == "headers":
            if self._phase != "headers":
                self._arm("headers", self._limits.header_timeout_s)
        elif owes == "body":
            if self._phase != "body":
                self._arm("body", self._limits.body_timeout_s)
        else:
            self._clear_deadline()

    _phase = ""

    def _arm(self, phase: str, timeout_s: float) -> None:
        self._clear_deadline()
        self._phase = phase
        if timeout_s > 0:
            self._deadline = self.loop.call_later(timeout_s, self._too_slow, phase)

    def _clear_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._phase = ""

    def _too_slow(self, phase: str) -> None:
        self._deadline = None
        if self._phase == phase and not self.transport.is_closing() and self._owes() == phase:
            CONNECTIONS_REFUSED.labels(f"slow_{phase}").inc()
            self.transport.close()


# --- configuration ----------------------------------------------------------------------------


class WebConfigError(ValueError):
    """An edge setting the service cannot run with."""


@dataclass(frozen=True)
class WebConfig:
    """``<PREFIX>_WEB_ADDR`` (host:port; unset or empty: no web edge),
    ``<PREFIX>_WEB_ORIGINS`` (comma-separated origins, ``https://play.example.org``, whose
    pages may call this edge besides its own) and ``<PREFIX>_WEB_HOSTS`` (comma-separated
    names, ``play.example.org``, this edge answers to besides IP addresses, ``localhost`` and
    the origins' names: the public names a proxy or an ingress forwards to it)."""

    addr: str = ""
    origins: frozenset[str] = frozenset()
    hosts: frozenset[str] = frozenset()
    limits: ConnectionLimits = field(default_factory=lambda: ConnectionLimits())

    def answered_hosts(self) -> frozenset[str]:
        """Every name a request's Host may carry (IP addresses are always answered)."""
        names = {"localhost", *self.hosts}
        names |= {n for o in self.origins if (n := host_name(o.partition("://")[2]))}
        bound = host_name(self.addr) if self.addr else None
        if bound is not None:
            names.add(bound)
        return frozenset(names)

    @classmethod
    def from_env(cls, env: Mapping[str, str], prefix: str) -> WebConfig:
        addr = env.get(f"{prefix}_WEB_ADDR", "").strip()
        if addr:
            host, _, port = addr.rpartition(":")
            if not host or not port.isdigit() or not 0 <= int(port) < 65536:
                raise WebConfigError(
                    f"{prefix}_WEB_ADDR must be host:port (e.g. 127.0.0.1:8080), not {addr!r}"
                )
        origins = frozenset(
            o.strip().rstrip("/") for o in env.get(f"{prefix}_WEB_ORIGINS", "").split(",")
        ) - {""}
        for origin in origins:
            scheme, sep, rest = origin.partition("://")
            if scheme not in ("http", "https") or not sep or not rest or "/" in rest:
                raise WebConfigError(
                    f"{prefix}_WEB_ORIGINS: {origin!r} is not an origin "
                    "(scheme://host[:port], no path)"
                )
        hosts = frozenset(
            h.strip().rstrip(".").lower() for h in env.get(f"{prefix}_WEB_HOSTS", "").split(",")
        ) - {""}
        for host in hosts:
            if not _HOST_NAME.fullmatch(host):
                raise WebConfigError(
                    f"{prefix}_WEB_HOSTS: {host!r} is not a host name (play.example.org: no "
                    "scheme, port or path)"
                )
        d = ConnectionLimits()
        limits = ConnectionLimits(
            total=_whole(env, f"{prefix}_WEB_MAX_CONNECTIONS", d.total),
            per_address=_whole(env, f"{prefix}_WEB_MAX_CONNECTIONS_PER_ADDRESS", d.per_address),
            header_timeout_s=_seconds(env, f"{prefix}_WEB_HEADER_TIMEOUT_S", d.header_timeout_s),
            body_timeout_s=_seconds(env, f"{prefix}_WEB_BODY_TIMEOUT_S", d.body_timeout_s),
            idle_timeout_s=_seconds(env, f"{prefix}_WEB_IDLE_TIMEOUT_S", d.idle_timeout_s),
            ipv6_prefix=ipv6_prefix(env, prefix),
        )
        return cls(addr, origins, hosts, limits)


def ipv6_prefix(env: Mapping[str, str], prefix: str) -> int:
    """``<PREFIX>_IPV6_PREFIX``: how many leading bits of an IPv6 address make one client
    address (16..128; default 64)."""
    name = f"{prefix}_IPV6_PREFIX"
    try:
        bits = whole(env, name, IPV6_PREFIX)
    except ValueError as error:
        raise WebConfigError(f"{error} (a prefix length from 16 to 128, e.g. 56)") from None
    if not 16 <= bits <= 128:
        raise WebConfigError(f"{name} must be a prefix length from 16 to 128 (e.g. 56), not {bits}")
    return bits


def _whole(env: Mapping[str, str], name: str, default: int) -> int:
    """A whole number, 0 or more (0: no cap); unset or empty: ``default``."""
    try:
        return whole(env, name, default, 0)
    except ValueError as error:
        raise WebConfigError(f"{error} (0: no cap)") from None


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A number of seconds, 0 or more (0: none); unset or empty: ``default``."""
    try:
        return decimal(env, name, default, 0, "seconds")
    except ValueError as error:
        raise WebConfigError(f"{error} (0: none)") from None


_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*")
