"""What every RPC shares: metadata, authentication, and how a call ends (status, log, metrics).

``unary`` and ``streaming`` wrap a servicer method: an ApiError ends the call with its status,
message and refusal slug; anything else is logged with its traceback and ends as INTERNAL with
a plain sentence. No traceback ever reaches a client.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc  # type: ignore[import-untyped]
import structlog

from services.lobby import metrics
from services.lobby.errors import ApiError
from services.lobby.tokens import Claims, TokenError, Tokens

log = structlog.get_logger()

Req = TypeVar("Req")
Resp = TypeVar("Resp")
Self = TypeVar("Self")
Context = Any  # grpc.aio.ServicerContext: grpc ships no type hints

INTERNAL_MESSAGE = "the lobby failed to handle this request; try again"
_NO_TOKEN = "send your player token as metadata `authorization: Bearer <player_token>`"


def metadata(context: Context, key: str) -> str | None:
    for k, v in context.invocation_metadata() or ():
        if k == key:
            return str(v)
    return None


class Auth:
    """Checks player tokens and the bot key."""

    def __init__(self, tokens: Tokens, bot_key: str | None) -> None:
        self.tokens = tokens
        self._bot_key = bot_key

    def claims(self, context: Context) -> Claims | None:
        """The caller's token's claims; None without a token; ApiError for a bad one."""
        header = metadata(context, "authorization")
        if header is None:
            return None
        scheme, _, token = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, _NO_TOKEN)
        try:
            return self.tokens.verify(token.strip())
        except TokenError as error:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, str(error)) from None

    def player(self, context: Context, table_id: str) -> Claims:
        """The token's claims, which must name ``table_id``."""
        claims = self.claims(context)
        if claims is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, _NO_TOKEN)
        if claims.table != table_id:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                "your player token is for another table: use the token of your seat here",
            )
        structlog.contextvars.bind_contextvars(player_id=claims.player)
        return claims

    def is_bot(self, context: Context) -> bool:
        """True for the bot service (metadata `x-match-bot-key`); PERMISSION_DENIED if wrong."""
        key = metadata(context, "x-match-bot-key")
        if key is None:
            return False
        if self._bot_key is None or not hmac.compare_digest(key.encode(), self._bot_key.encode()):
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                "x-match-bot-key is not the bot key this lobby was given; bots cannot join",
            )
        return True


async def _end(context: Context, method: str, error: BaseException) -> grpc.StatusCode:
    """Abort the call for ``error``; returns the status code it ends with."""
    if isinstance(error, ApiError):
        extra = {"refusal": error.refusal_code} if error.refusal_code else {}
        log.info("refused", method=method, code=error.code.name, reason=error.message, **extra)
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
        @functools.wraps(handler)
        async def call(self: Self, request: Req, context: Context) -> Resp:
            code = grpc.StatusCode.OK
            start = time.perf_counter()
            with structlog.contextvars.bound_contextvars(method=method):
                try:
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
                    metrics.REQUESTS.labels(method, code.name).inc()
                    metrics.LATENCY.labels(method).observe(time.perf_counter() - start)

        return call

    return wrap


def streaming(
    method: str,
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
            metrics.WATCHES.inc()
            with structlog.contextvars.bound_contextvars(method=method):
                try:
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
                    metrics.WATCHES.dec()
                    metrics.REQUESTS.labels(method, code.name).inc()

        return call

    return wrap
