"""How the lobby says no: a gRPC status, a message a person can act on, maybe a refusal slug."""

from __future__ import annotations

import grpc  # type: ignore[import-untyped]

from match.v1 import common_pb2

REFUSAL_CODE_KEY = "match-refusal-code"

_CATEGORY = {
    common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT: grpc.StatusCode.INVALID_ARGUMENT,
    common_pb2.Refusal.CATEGORY_FAILED_PRECONDITION: grpc.StatusCode.FAILED_PRECONDITION,
    common_pb2.Refusal.CATEGORY_PERMISSION_DENIED: grpc.StatusCode.PERMISSION_DENIED,
    common_pb2.Refusal.CATEGORY_RESOURCE_EXHAUSTED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    common_pb2.Refusal.CATEGORY_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    common_pb2.Refusal.CATEGORY_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
}


class ApiError(Exception):
    """Ends the call with ``code`` and ``message``; a refusal adds its slug to the trailers."""

    def __init__(self, code: grpc.StatusCode, message: str, refusal_code: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.refusal_code = refusal_code

    @property
    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return ((REFUSAL_CODE_KEY, self.refusal_code),) if self.refusal_code else ()


def invalid(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message)


def from_refusal(refusal: common_pb2.Refusal) -> ApiError:
    """A refusal as the client sees it: its category's status (an unknown category counts as
    FAILED_PRECONDITION: the command was well formed but not allowed), its message, its slug."""
    code = _CATEGORY.get(refusal.category, grpc.StatusCode.FAILED_PRECONDITION)
    message = refusal.message or f"the referee refused the command ({refusal.code})"
    return ApiError(code, message, refusal.code or "refused")


REFEREE_DOWN = "the referee is not answering; try again"
