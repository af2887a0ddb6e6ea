"""Requests that are not the message they claim to be: INVALID_ARGUMENT, not a stack trace.

gRPC parses a request body before any handler runs, and a body that fails to parse (random
bytes, groups nested thousands deep) ends the call UNKNOWN with the parser's exception in the
message. ``add_safely`` registers a service with parsers that never raise: a bad body becomes a
``Malformed`` value, and the call is counted against its connection's rate limit (a flood of
garbage is still a flood) and ends INVALID_ARGUMENT with a sentence a person can act on. On a
bidirectional stream (Play) the handler gets the ``Malformed`` message and refuses that message
only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc  # type: ignore[import-untyped]
import structlog

from services.lobby.errors import ApiError

log = structlog.get_logger()


class Malformed:
    """A request body that did not parse as the method's request message."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def safe_parser(parse: Callable[[bytes], Any], name: str) -> Callable[[bytes], Any]:
    message = (
        f"the request body is not a valid {name} message: send the protobuf message this "
        "method takes (see docs/api.md)"
    )

    def parser(data: bytes) -> Any:
        try:
            return parse(data)
        except Exception:  # DecodeError, RecursionError on deep nesting, ...
            return Malformed(message)

    parser.message_class = getattr(parse, "__self__", None)  # type: ignore[attr-defined]
    return parser


class _Capture:
    """Stands in for the server while generated code registers a service."""

    def __init__(self) -> None:
        self.service = ""
        self.handlers: dict[str, Any] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        pass  # the registered handlers below carry the same methods

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.service, self.handlers = service, handlers


def add_safely(
    server: Any,
    add: Callable[[Any, Any], None],
    servicer: Any,
    admit: Callable[[Any], None],
) -> None:
    """``add(servicer, server)``, as generated code does it, with parsers that never raise.
    ``admit(context)`` counts a malformed call against the rate limit (may raise ApiError)."""
    capture = _Capture()
    add(servicer, capture)
    handlers = {
        name: _wrap(handler, f"{capture.service}.{name}", admit)
        for name, handler in capture.handlers.items()
    }
    generic = grpc.method_handlers_generic_handler(capture.service, handlers)
    server.add_generic_rpc_handlers((generic,))
    server.add_registered_method_handlers(capture.service, handlers)


async def _reject(bad: Malformed, name: str, context: Any, admit: Callable[[Any], None]) -> None:
    try:
        admit(context)
    except ApiError as error:
        await context.abort(error.code, error.message, error.trailing_metadata)
    log.debug("malformed request", method=name)
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, bad.message)


def _wrap(handler: Any, name: str, admit: Callable[[Any], None]) -> Any:
    message_type = getattr(handler.request_deserializer, "__self__", None)
    descriptor = getattr(message_type, "DESCRIPTOR", None)
    parser = safe_parser(handler.request_deserializer, getattr(descriptor, "full_name", name))
    serializer = handler.response_serializer
    if handler.unary_unary is not None:
        inner = handler.unary_unary

        async def unary(request: Any, context: Any) -> Any:
            if type(request) is Malformed:
                await _reject(request, name, context, admit)
            return await inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            unary, request_deserializer=parser, response_serializer=serializer
        )
    if handler.unary_stream is not None:
        streamer = handler.unary_stream

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            if type(request) is Malformed:
                await _reject(request, name, context, admit)
            async for item in streamer(request, context):
                yield item

        return grpc.unary_stream_rpc_method_handler(
            stream, request_deserializer=parser, response_serializer=serializer
        )
    if handler.stream_stream is not None:  # Play: a bad message is the handler's to refuse
        return grpc.stream_stream_rpc_method_handler(
            handler.stream_stream, request_deserializer=parser, response_serializer=serializer
        )
    return handler  # client-streaming: none on this server takes one
