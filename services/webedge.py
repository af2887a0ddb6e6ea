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
- **Static files.** Anything else under ``/`` is the web client's bundle (``static_dir``), and
  ``/config.json`` what the page needs to know (``config``).

The caller's address for the limits is the TCP peer, as on the gRPC port: the edge does not
trust ``X-Forwarded-For`` (an operator who puts a proxy in front configures the proxy's limits).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
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
from prometheus_client import Counter

log = structlog.get_logger()

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

MAX_BODY = 64 * 1024  # what the gRPC server takes (grpc.max_receive_message_length)

REFUSED = Counter(
    "match_web_refused_total",
    "Web edge requests refused before any handler ran, by reason: host (a name it was not "
    "given), origin (another site's page), size, content_type, method, not_found",
    ["reason"],
)


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
    _apps: dict[str, _ServiceApp] = field(init=False, default_factory=dict)
    _page_headers: list[tuple[bytes, bytes]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self._page_headers = [*_PAGE, *_page_policy(self.connect_to)]
        for service, handlers in self.services.items():
            endpoints = {
                f"/{service}/{name}": _endpoint(service, name, handler)
                for name, handler in handlers.items()
            }
            self._apps[service] = _ServiceApp(service, endpoints, self.max_body)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            await _plain(send, 404, "this edge speaks HTTP only")
            return
        host = _header(scope, b"host")
        if self.allowed_hosts is not None and host is not None:
            name = host_name(host)
            if name is not None and name not in self.allowed_hosts:
                REFUSED.labels("host").inc()
                await _plain(
                    send,
                    403,
                    f"this edge does not answer to the name {name!r}: open it by its address "
                    "or by a name its operator lists (<SERVICE>_WEB_HOSTS or _WEB_ORIGINS)",
                )
                return
        origin = _header(scope, b"origin")
        cors: list[tuple[bytes, bytes]] = []
        if origin is not None and not _same_host(origin, scope):
            if origin not in self.allowed_origins:
                REFUSED.labels("origin").inc()
                await _plain(
                    send,
                    403,
                    f"requests from {origin} are not allowed here: only pages served by this "
                    "edge (and the origins its operator lists) may call it",
                )
                return
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


async def serve_web(app: Any, addr: str) -> Callable[[], Awaitable[None]]:
    """Serve ``app`` on ``addr`` until the returned ``stop()``; raises OSError when the
    address cannot be bound (the service should not start half-served)."""
    sock = listen(addr)
    config = uvicorn.Config(
        app,
        lifespan="off",
        proxy_headers=False,  # the TCP peer is the caller: X-Forwarded-For is not trusted
        server_header=False,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=3,
        ws="none",
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="web-edge")

    async def stop() -> None:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=5.0)
        sock.close()

    return stop


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
        return cls(addr, origins, hosts)


_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*")
