"""What every RPC shares: metadata, authentication, rate limits, and how a call ends (status,
log, metrics).

``unary`` and ``streaming`` wrap a servicer method: the call is first counted against its
client address's bucket (the peer's IP without its port, services/peers.py: every
connection from one address shares it; a Watch once, when it opens); a valid player token is
counted against its player's bucket when it is checked. Over either limit the call ends
RESOURCE_EXHAUSTED with ``retry-after-ms`` before anything is forwarded. An ApiError ends the
call with its status, message and trailers; anything else is logged with its traceback and
ends as INTERNAL with a plain sentence. No traceback ever reaches a client.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import grpc  # type: ignore[import-untyped]
import structlog

from services.lobby import metrics
from services.lobby.errors import ApiError, rate_limited
from services.lobby.identity import SessionClaims, SessionError, SessionExpired, Sessions
from services.lobby.limits import Limiter, Rate, retry_after_ms
from services.lobby.tokens import Claims, TokenError, TokenExpired, Tokens
from services.peers import IPV6_PREFIX, client_address

log = structlog.get_logger()

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Context = Any  # grpc.aio.ServicerContext: grpc ships no type hints

INTERNAL_MESSAGE = "the lobby failed to handle this request; try again"
NO_TOKEN = "send your player token as metadata `authorization: Bearer <player_token>`"
NO_SESSION = (
    "sign in first (GetChallenge, then SignIn) and send the session token as metadata "
    "`authorization: Bearer <session_token>`"
)
# A token of the other kind, each way: both are refused, and the message says which to send.
SESSION_NOT_SEAT = (
    "this is a session token (from SignIn), not a seat's player token: calls at a table take "
    "the player token of that seat (from CreateTable, JoinTable or FindMySeats)"
)
SEAT_NOT_SESSION = (
    "this is a seat's player token, not a session: send the session token from SignIn as "
    "`authorization: Bearer <session_token>` (or no authorization, to play without a key)"
)


def metadata(context: Context, key: str) -> str | None:
    for k, v in context.invocation_metadata() or ():
        if k == key:
            return str(v)
    return None


_OFF = Rate(0, 0)


@dataclass(frozen=True)
class Limits:
    """The lobby's buckets (off unless given)."""

    player: Limiter = field(default_factory=lambda: Limiter(_OFF))
    address: Limiter = field(default_factory=lambda: Limiter(_OFF))  # every call
    create: Limiter = field(default_factory=lambda: Limiter(_OFF))  # CreateTable
    sign_in: Limiter = field(default_factory=lambda: Limiter(_OFF))  # GetChallenge, SignIn


def _admit(limiter: Limiter, kind: str, key: str, what: str) -> None:
    wait = limiter.take(key)
    if wait:
        metrics.LIMITED.labels(kind).inc()
        raise rate_limited(what, retry_after_ms(wait))


def address(context: Context, ipv6_prefix: int = IPV6_PREFIX) -> str:
    """The caller's client address, the key of the limits kept per client (an IPv6 one by its
    first ``ipv6_prefix`` bits)."""
    return client_address(str(context.peer()), ipv6_prefix)


class Auth:
    """Checks player tokens and the bot key, and counts calls against the rate limits."""

    def __init__(
        self,
        tokens: Tokens,
        bot_key: str | None,
        limits: Limits | None = None,
        sessions: Sessions | None = None,
        ipv6_prefix: int = IPV6_PREFIX,
    ) -> None:
        self.tokens = tokens
        self.ipv6_prefix = ipv6_prefix
        # Without sessions (a test's lobby), none is ever issued, so none verifies.
        self.sessions = sessions or Sessions(secrets.token_bytes(32), 1)
        self._bot_key = bot_key
        self._limits = limits or Limits()

    def admit(self, context: Context) -> None:
        """Count the call against its client address's bucket; RESOURCE_EXHAUSTED when it is
        empty. The bot service (the right ``x-match-bot-key``) is not counted here: it plays
        every bot seat over one connection. Each of its seats is still counted as a player."""
        limiter = self._limits.address
        if not limiter.rate.enabled or self._is_bot_key(metadata(context, "x-match-bot-key")):
            return
        _admit(limiter, "address", self.address(context), "this address")

    def address(self, context: Context) -> str:
        """The caller's client address (LOBBY_IPV6_PREFIX), the key of per-client limits."""
        return address(context, self.ipv6_prefix)

    def admit_player(self, player: str) -> None:
        """Count one more message of ``player`` (already authenticated: a Play stream's next
        command) against its player bucket, as ``claims`` counts a unary call."""
        _admit(self._limits.player, "player", player, "this player")

    def expired(self, claims: Claims) -> ApiError | None:
        """UNAUTHENTICATED, as ``claims`` would say it, once the token of ``claims`` has
        expired (a Play stream outlives a token's verification); None while it lasts."""
        try:
            self.tokens.check_expiry(claims)
        except TokenExpired as error:
            return ApiError(grpc.StatusCode.UNAUTHENTICATED, str(error))
        return None

    def admit_create(self, context: Context) -> None:
        """Count a CreateTable against its client address's table bucket."""
        _admit(self._limits.create, "create", self.address(context), "this address (new tables)")

    def admit_sign_in(self, context: Context) -> None:
        """Count a GetChallenge or a SignIn against its client address's sign-in bucket."""
        _admit(self._limits.sign_in, "sign_in", self.address(context), "this address (sign-ins)")

    def carries_bot_key(self, context: Context) -> bool:
        """True for a call with the right ``x-match-bot-key`` (a wrong one is just a caller)."""
        return self._is_bot_key(metadata(context, "x-match-bot-key"))

    def _is_bot_key(self, key: str | None) -> bool:
        return (
            key is not None
            and self._bot_key is not None
            and hmac.compare_digest(key.encode(), self._bot_key.encode())
        )

    def claims(self, context: Context, count: bool = True) -> Claims | None:
        """The caller's seat token's claims; None without a token; ApiError for a bad one (a
        session token included: it acts at no table). ``count`` False: not counted against the
        player's bucket (a Play stream's open: each of its messages is counted instead)."""
        token = _bearer(context, NO_TOKEN)
        if token is None:
            return None
        try:
            claims = self.tokens.verify(token)
        except TokenError as error:
            message = SESSION_NOT_SEAT if self._is_session(token) else str(error)
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, message) from None
        # Only a verified token is counted: a forged one cannot spend somebody else's calls.
        if count:
            _admit(self._limits.player, "player", claims.player, "this player")
        return claims

    def seat_or_session(self, context: Context) -> Claims | SessionClaims | None:
        """A seat's token's claims or a session's (for a call that takes either: GetTable);
        None without ``authorization``; UNAUTHENTICATED for a bad token of either kind."""
        token = _bearer(context, NO_TOKEN)
        if token is None:
            return None
        try:
            claims: Claims | SessionClaims = self.tokens.verify(token)
        except TokenError as error:
            try:
                claims = self.sessions.verify(token)
            except SessionExpired as expired:
                raise ApiError(grpc.StatusCode.UNAUTHENTICATED, str(expired)) from None
            except SessionError:
                raise ApiError(grpc.StatusCode.UNAUTHENTICATED, str(error)) from None
        _admit(self._limits.player, "player", claims.player, "this player")
        return claims

    def session(self, context: Context) -> SessionClaims | None:
        """The caller's session (SignIn); None without ``authorization``; UNAUTHENTICATED for
        a bad one, or for a seat's token in its place."""
        token = _bearer(context, NO_SESSION)
        if token is None:
            return None
        try:
            session = self.sessions.verify(token)
        except SessionError as error:
            message = SEAT_NOT_SESSION if self._is_seat_token(token) else str(error)
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, message) from None
        _admit(self._limits.player, "player", session.player, "this player")
        structlog.contextvars.bind_contextvars(player_id=session.player)
        return session

    def signed_in(self, context: Context) -> SessionClaims:
        """The caller's session, which the call needs: UNAUTHENTICATED without one."""
        session = self.session(context)
        if session is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, NO_SESSION)
        return session

    def _is_session(self, token: str) -> bool:
        try:
            self.sessions.verify(token)
        except SessionError as error:
            return isinstance(error, SessionExpired)
        return True

    def _is_seat_token(self, token: str) -> bool:
        try:
            self.tokens.verify(token)
        except TokenExpired:
            return True
        except TokenError:
            return False
        return True

    def player(self, context: Context, table_id: str) -> Claims:
        """The token's claims, which must name ``table_id``."""
        claims = self.claims(context)
        if claims is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, NO_TOKEN)
        if claims.table != table_id:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"your player token is for another table, not {table_id}: a token acts for its "
                "own seat at its own table only; use the token that table gave you",
            )
        structlog.contextvars.bind_contextvars(player_id=claims.player)
        return claims

    def is_bot(self, context: Context) -> bool:
        """True for the bot service (metadata `x-match-bot-key`); PERMISSION_DENIED if wrong."""
        key = metadata(context, "x-match-bot-key")
        if key is None:
            return False
        if not self._is_bot_key(key):
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                "x-match-bot-key is not the bot key this lobby was given; bots cannot join",
            )
        return True


def _bearer(context: Context, missing: str) -> str | None:
    """The token of ``authorization: Bearer <token>``; None without the metadata;
    UNAUTHENTICATED (saying ``missing``) for anything else."""
    header = metadata(context, "authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED, missing)
    return token.strip()


class Guarded(Protocol):
    """A servicer: its calls pass through its ``auth``."""

    auth: Auth


Self = TypeVar("Self", bound=Guarded)


async def _end(context: Context, method: str, error: BaseException) -> grpc.StatusCode:
    """Abort the call for ``error``; returns the status code it ends with."""
    if isinstance(error, ApiError):
        extra = {"refusal": error.refusal_code} if error.refusal_code else {}
        say = log.debug if error.quiet else log.info
        say("refused", method=method, code=error.code.name, reason=error.log_reason, **extra)
        await context.abort(error.code, error.message, error.trailing_metadata)
    log.error("request failed", method=method, exc_info=error)
    await context.abort(grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE)
    raise AssertionError("unreachable")  # pragma: no cover - abort raises


def unary(
    method: str,
) -> Callable[
    [Callable[[Self, Req, Context], Awaitable[Resp]]],
    Callable[[Self, Req, Context], Awaitable[Resp]],
]:
    def wrap(
        handler: Callable[[Self, Req, Context], Awaitable[Resp]],
    ) -> Callable[[Self, Req, Context], Awaitable[Resp]]:
        latency = metrics.LATENCY.labels(method)
        counted = {c: metrics.REQUESTS.labels(method, c.name) for c in grpc.StatusCode}

        @functools.wraps(handler)
        async def call(self: Self, request: Req, context: Context) -> Resp:
            code = grpc.StatusCode.OK
            start = time.perf_counter()
            # Each call runs in its own task, with its own copy of the context: nothing to undo.
            structlog.contextvars.bind_contextvars(method=method)
            try:
                self.auth.admit(context)
                return await handler(self, request, context)
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            except grpc.aio.AbortError:
                code = grpc.StatusCode.UNKNOWN
                raise
            except ApiError as error:
                code = error.code
                await _end(context, method, error)
                raise
            except Exception as error:
                code = grpc.StatusCode.INTERNAL
                await _end(context, method, error)
                raise
            finally:
                counted[code].inc()
                latency.observe(time.perf_counter() - start)

        return call

    return wrap


def streaming(
    method: str, gauge: Any = metrics.WATCHES
) -> Callable[
    [Callable[[Self, Req, Context], AsyncIterator[Resp]]],
    Callable[[Self, Req, Context], AsyncIterator[Resp]],
]:
    def wrap(
        handler: Callable[[Self, Req, Context], AsyncIterator[Resp]],
    ) -> Callable[[Self, Req, Context], AsyncIterator[Resp]]:
        @functools.wraps(handler)
        async def call(self: Self, request: Req, context: Context) -> AsyncIterator[Resp]:
            code = grpc.StatusCode.OK
            gauge.inc()
            with structlog.contextvars.bound_contextvars(method=method):
                try:
                    self.auth.admit(context)  # once, when the stream opens
                    async for item in handler(self, request, context):
                        yield item
                except (asyncio.CancelledError, GeneratorExit):
                    code = grpc.StatusCode.CANCELLED
                    raise
                except grpc.aio.AbortError:
                    code = grpc.StatusCode.UNKNOWN
                    raise
                except ApiError as error:
                    code = error.code
                    await _end(context, method, error)
                except Exception as error:
                    code = grpc.StatusCode.INTERNAL
                    await _end(context, method, error)
                finally:
                    gauge.dec()
                    metrics.REQUESTS.labels(method, code.name).inc()

        return call

    return wrap
