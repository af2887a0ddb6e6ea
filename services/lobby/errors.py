"""How the lobby says no: a gRPC status, a message a person can act on, maybe a refusal slug."""

from __future__ import annotations

import grpc  # type: ignore[import-untyped]

from match.v1 import common_pb2

REFUSAL_CODE_KEY = "match-refusal-code"
RETRY_AFTER_KEY = "retry-after-ms"  # a rate-limited call: whole milliseconds to wait
REQUEST_ID_KEY = "x-request-id"

_CATEGORY = {
    common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    common_pb2.Refusal.CATEGORY_FAILED_PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    common_pb2.Refusal.CATEGORY_PERMISSION_DENIED: grpc.StatusCode.PERMISSION_DENIED,
    common_pb2.Refusal.CATEGORY_RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    common_pb2.Refusal.CATEGORY_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    common_pb2.Refusal.CATEGORY_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}


class ApiError(Exception):
    """Ends the call with ``code`` and ``message``; a refusal adds its slug to the trailers,
    ``trailers`` adds more (e.g. ``retry-after-ms``)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        refusal_code: str = "",
        trailers: tuple[tuple[str, str], ...] = (),
        quiet: bool = False,
        log_reason: str = "",
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.refusal_code = refusal_code
        self.trailers = trailers
        self.quiet = quiet  # logged at debug only (a flood must not flood the log)
        self.log_reason = log_reason or message  # what the log says (no secrets)

    @property
    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        refusal = ((REFUSAL_CODE_KEY, self.refusal_code),) if self.refusal_code else ()
        return refusal + self.trailers


def invalid(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message)


def from_refusal(
    refusal: common_pb2.Refusal, who: str = "the referee", what: str = "the command"
) -> ApiError:
    """A refusal as the client sees it: its category's status (an unknown category counts as
    FAILED_PRECONDITION: the command was well formed but not allowed), its message, its slug.
    ``who`` refused ``what`` (said when the refusal has no message)."""
    code = _CATEGORY.get(refusal.category, grpc.StatusCode.FAILED_PRECONDITION)
    message = refusal.message or f"{who} refused {what} ({refusal.code})"
    return ApiError(code, message, refusal.code or "refused")


REFEREE_DOWN = "the referee is not answering; try again"


def referee_silent(request_id: str, what: str = "the referee did not answer in time") -> ApiError:
    """The command may have reached the referee but its answer did not come back: it may have
    been applied. The same request id gets the first answer (the referee remembers it); a new
    id would be a second command."""
    return ApiError(
        grpc.StatusCode.UNAVAILABLE,
        f"{what} and the command may have been applied: retry with the same "
        f"x-request-id ({request_id}) to get its answer",
        trailers=((REQUEST_ID_KEY, request_id),),
        # A CreateTable's or JoinTable's request id gets its seat's token on a retry: the
        # caller's to know, not the log's.
        log_reason=f"{what}; the caller may retry with the same x-request-id",
    )


class ListingBehind(ApiError):
    """The lobby's table listing has not caught up with the game log within its wait (the
    system is busy): whether the table (or the invite code) exists is not known yet. Not a
    NOT_FOUND: the table may well be there. Nothing was looked at, so nothing is charged."""

    def __init__(self) -> None:
        super().__init__(
            grpc.StatusCode.UNAVAILABLE,
            "the lobby's list of tables is behind the game log (the system is busy): "
            "try again in a moment",
            "listing_behind",
        )


def rate_limited(what: str, wait_ms: int) -> ApiError:
    """Too many calls from ``what`` ("this player", "this address")."""
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"too many requests from {what}: wait {wait_ms} ms and try again",
        trailers=((RETRY_AFTER_KEY, str(wait_ms)),),
        quiet=True,
    )


def too_many_wrong_codes(wait_ms: int) -> ApiError:
    """Too many invite codes that opened nothing, from one client address."""
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"too many wrong invite codes from your address: wait {wait_ms} ms and try again; "
        "check the code with the table's host",
        trailers=((RETRY_AFTER_KEY, str(wait_ms)),),
        quiet=True,
    )
