"""One seat's ``Play`` stream: its commands and its view of the table over one gRPC stream.

Every game's service has ``rpc Play(stream <Service>PlayRequest) returns (stream
<Service>PlayResponse)`` (docs/api.md, "Play"): a request holds a request id and the request of
one of the service's rpcs (the member named after the rpc in snake case); the answer holds the
same request id and that rpc's response, or a refusal (the status a unary call would have ended
with). A ``watch`` request starts the seat's view: the Watch rpc's items, under that request's id.
The view is asked for in batches (``batch``: a record's events in one message, fewer messages
for the lobby and for us) and handed to the caller one event per item, as Watch sends them
without it (:func:`unbatched`). Nothing here names a game: the members are found from the
service's descriptor.

:class:`PlayStream` opens the stream when it is first needed, with the seat's token in the
metadata, and matches answers to commands by request id. A refusal is raised as the
``grpc.aio.AioRpcError`` the unary call would have raised (status, message, and the trailers
``match-refusal-code`` and ``retry-after-ms``), so callers cannot tell the two paths apart. A
stream that breaks is opened again and every unanswered command sent again under its request
id (the referee answers a command it already applied with its first answer), by one reopening
at a time however many streams end meanwhile, one command at a time; a stream the server ends
gives its own status to the commands it leaves unanswered (a write that finds it ended does
too), so a seat given up is told UNAUTHENTICATED and why, not that the call was finished. A
caller cancelled mid-write leaves the stream up for the others; a server without
Play (UNIMPLEMENTED) makes :attr:`PlayStream.unsupported` true, and the caller goes back to the
unary rpcs (match_client.session.GameSession does).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import grpc  # type: ignore[import-untyped]
from google.protobuf import message_factory
from google.protobuf.message import Message

from match_client.client import new_request_id

PLAY = "Play"
REFUSAL = "refusal"
REOPEN_TRIES = 3  # a stream that breaks is opened again this many times before giving up
REOPEN_PAUSE_S = 0.2
_CODES = {code.value[0]: code for code in grpc.StatusCode}
_NOT_BROKEN = object()
# A stream that ends with one of these is not opened again: the seat itself is refused (its
# token, its table), or the lobby holds too many streams or a message was too big (gRPC's limit).
_FINAL = frozenset(
    {
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.NOT_FOUND,
    }
)


def unbatched(item: Any) -> Sequence[Any]:
    """A Watch item as items of one event each: an ``events`` item (asked for with the
    WatchRequest's ``batch``) becomes one ``event`` item per event, in order; any other item
    is itself. A server that does not batch sends ``event`` items, which pass as they are."""
    if item.WhichOneof("item") != "events":
        return (item,)
    response = type(item)
    return [response(event=envelope) for envelope in item.events.events]


@dataclass(frozen=True, slots=True)
class PlayRpc:
    """A game's Play: its path, its messages, and the request member of each rpc."""

    path: str
    request: type[Message]
    response: type[Message]
    members: dict[str, str]  # rpc name -> oneof member ("TurnTile" -> "turn_tile")
    view: str  # the member of the server-streaming rpc (Watch): "watch"


@cache
def play_rpc(slug: str) -> PlayRpc | None:
    """Play of the game ``slug``'s service; None if its service has none."""
    messages = importlib.import_module(f"match.v1.{slug}_service_pb2")
    (service,) = messages.DESCRIPTOR.services_by_name.values()
    play = service.methods_by_name.get(PLAY)
    if play is None:
        return None
    request = message_factory.GetMessageClass(play.input_type)
    fields = request.DESCRIPTOR.oneofs_by_name["command"].fields
    by_type = {f.message_type.full_name: f.name for f in fields}
    members = {m.name: by_type[m.input_type.full_name] for m in service.methods if m is not play}
    (view,) = (members[m.name] for m in service.methods if m.server_streaming and m is not play)
    return PlayRpc(
        path=f"/{service.full_name}/{PLAY}",
        request=request,
        response=message_factory.GetMessageClass(play.output_type),
        members=members,
        view=view,
    )


def refused(refusal: Any) -> grpc.aio.AioRpcError:
    """A Play refusal as the error its unary call would have raised."""
    trailers: list[tuple[str, str]] = []
    if refusal.refusal_code:
        trailers.append(("match-refusal-code", refusal.refusal_code))
    if refusal.retry_after_ms:
        trailers.append(("retry-after-ms", str(refusal.retry_after_ms)))
    return grpc.aio.AioRpcError(
        _CODES.get(refusal.status_code, grpc.StatusCode.UNKNOWN),
        grpc.aio.Metadata(),
        grpc.aio.Metadata(*trailers),
        details=refusal.message,
    )


def _unavailable(pending: _Pending, cause: BaseException | None = None) -> grpc.aio.AioRpcError:
    request_id = str(getattr(pending.request, "request_id", ""))
    why = f" ({cause!r})" if cause is not None else ""
    return grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(("x-request-id", request_id)),
        details=f"the Play stream ended before the answer came{why}: retry with the same "
        f"request id ({request_id}) to get it",
    )


def _code(error: BaseException | None) -> grpc.StatusCode | None:
    return error.code() if isinstance(error, grpc.aio.AioRpcError) else None


async def _ended_with(call: Any, failed: Exception) -> BaseException | None:
    """Why a write to ``call`` failed: the error itself if it is the call's status; for a call
    already over (grpc raises InvalidStateError, "RPC already finished"), the status the server
    ended it with, None if that was OK; otherwise ``failed`` as it is."""
    if isinstance(failed, grpc.aio.AioRpcError) or not call.done():
        return failed
    code = await call.code()
    if code == grpc.StatusCode.OK:
        return None
    ended = grpc.aio.AioRpcError(
        code,
        await call.initial_metadata(),
        await call.trailing_metadata(),
        details=await call.details(),
    )
    return cast(BaseException, ended)


def _cancelled(details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(
        grpc.StatusCode.CANCELLED, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details
    )


async def _connected(call: Any) -> None:
    """Until ``call``'s headers are sent; InvalidStateError if it ended first (grpc's own
    wait for them never ends on a call cancelled before they went out)."""
    if call.done():
        raise asyncio.InvalidStateError("RPC already finished.")
    ended = _ending(call)
    connecting = asyncio.get_running_loop().create_task(call.wait_for_connection())
    try:
        await asyncio.wait((connecting, ended), return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not connecting.done():
            connecting.cancel()
    if connecting.done() and not connecting.cancelled() and connecting.exception() is None:
        return
    raise asyncio.InvalidStateError("RPC already finished.")


def _ending(call: Any) -> asyncio.Future[None]:
    """A future done when ``call`` ends."""
    over: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_end(_: Any) -> None:
        if not over.done():
            over.set_result(None)

    call.add_done_callback(on_end)
    return over


async def _finished(task: asyncio.Task[Any]) -> None:
    """Wait for ``task`` (cancelled, say) to finish, its outcome dropped; the caller's own
    cancellation still goes through."""
    await asyncio.wait((task,))
    if not task.cancelled():
        task.exception()  # retrieved: asyncio does not log it as never looked at


class Unsupported(Exception):
    """The server has no Play: use the unary rpcs."""


class _Pending:
    __slots__ = ("answer", "request", "sent")

    def __init__(self, request: Message) -> None:
        self.request = request
        self.sent = 1  # streams it was sent on: one that keeps breaking them is given up
        self.answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()


class PlayStream:
    """One seat's Play stream on ``channel`` (``metadata``: the seat's token, maybe the bot
    key). Not opened before the first command or view; :meth:`close` when done."""

    def __init__(
        self, channel: Any, rpc: PlayRpc, metadata: Sequence[tuple[str, str]], timeout: float
    ) -> None:
        self._channel = channel
        self._rpc = rpc
        self._metadata = tuple(metadata)
        self._timeout = timeout
        self._method: Any = channel.stream_stream(
            rpc.path,
            request_serializer=rpc.request.SerializeToString,
            response_deserializer=rpc.response.FromString,
        )
        self._call: Any = None
        self._reader: asyncio.Task[None] | None = None
        # At most one reopening at a time; a stream that ends while it runs leaves its status
        # here and the reopening goes round again (_NOT_BROKEN: none ended meanwhile).
        self._reopening: asyncio.Task[None] | None = None
        self._broke_with: object = _NOT_BROKEN  # BaseException, None (OK) or _NOT_BROKEN
        self._closing = False
        self._connected: Any = None  # the call whose first write went out
        self._pending: dict[str, _Pending] = {}
        self._view_id = ""
        self._view: asyncio.Queue[Any] | None = None
        self.view_messages = 0  # the view's messages so far, batches counted once
        self._opening = asyncio.Lock()
        # gRPC allows one write in flight on a call: a second one at the same time fails
        # (GRPC_CALL_ERROR_TOO_MANY_OPERATIONS) and, swallowed, would lose the message.
        self._writing = asyncio.Lock()
        self.unsupported = False
        self.opened = 0  # streams opened so far (a test's to see reconnects)

    # --- commands ----------------------------------------------------------------------------

    async def call(self, rpc: str, request: Message, request_id: str | None = None) -> Any:
        """``request`` of the rpc ``rpc`` over the stream: its response, or the error its unary
        call would have raised; Unsupported when the server has no Play."""
        request_id = request_id or new_request_id()
        message = self._rpc.request(request_id=request_id, **{self._rpc.members[rpc]: request})
        pending = self._pending.get(request_id)
        try:
            if pending is None:
                pending = self._pending[request_id] = _Pending(message)
                await self._send(message)
            return await asyncio.wait_for(asyncio.shield(pending.answer), self._timeout)
        except TimeoutError:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(("x-request-id", request_id)),
                details=f"no answer on the Play stream in {self._timeout:g} s; retry with the "
                f"same request id ({request_id}) to get its answer",
            ) from None
        finally:  # answered, or given up on (even mid-send): an answer still to come is dropped
            self._pending.pop(request_id, None)

    async def watch(
        self, after_event_number: int = 0, skip_answered: bool = False
    ) -> AsyncIterator[Any]:
        """The seat's view (what Watch sends) from after ``after_event_number``, until the server
        ends the stream (OK: the game is over) or it breaks (its error). Breaking out closes the
        stream; unanswered commands go on over a new one. ``skip_answered``: the view leaves out
        the events this stream's answers carried (the Watch request's field of that name), for
        a caller that folds the answers' events and the view's together, in number order."""
        request_id = new_request_id()
        view = self._view = asyncio.Queue()
        self._view_id = request_id
        message = self._rpc.request(request_id=request_id)
        watch = getattr(message, self._rpc.view)
        watch.after_event_number = after_event_number
        watch.batch = True
        watch.skip_answered = skip_answered
        await self._send(message)
        ended = False
        try:
            while True:
                item = await view.get()
                if isinstance(item, BaseException):
                    ended = True
                    raise item
                if item is None:
                    ended = True
                    return
                self.view_messages += 1
                for one in unbatched(item):
                    yield one
        finally:
            if self._view is view:
                self._view, self._view_id = None, ""
                if not ended:
                    await self._restart()

    async def close(self) -> None:
        """End the stream (the server sees the client's side end); unanswered commands fail."""
        self._closing = True  # a stream ending meanwhile starts no reopening
        try:
            reopening, self._reopening = self._reopening, None
            if reopening is not None:  # no stream is opened again after close
                reopening.cancel()
                await _finished(reopening)
            await self._stop(cancel=True)
        finally:
            self._closing = False
        for pending in self._pending.values():
            if not pending.answer.done():
                pending.answer.set_exception(_cancelled("the Play stream was closed"))
        self._pending.clear()

    # --- the stream --------------------------------------------------------------------------

    async def _send(self, message: Message) -> None:
        if self.unsupported:
            raise Unsupported()
        call = await self._open()
        # The stream may have broken meanwhile: its reader opens another and sends it again.
        # Shielded: a caller cancelled mid-write would make grpc cancel the whole stream.
        with contextlib.suppress(Exception):
            await asyncio.shield(self._write(call, message))

    async def _write(self, call: Any, message: Message) -> None:
        async with self._writing:
            if call is not self._connected:
                # The first write on a call waits for its headers to go out; a call cancelled
                # before they did leaves that write waiting for ever (grpc.aio), and this lock
                # with it: wait for them, or for the call's end, whichever comes first.
                await _connected(call)
                self._connected = call
            await call.write(message)

    async def _open(self) -> Any:
        async with self._opening:
            if self._call is None:
                self._call = self._method(metadata=self._metadata, timeout=None)
                self.opened += 1
                self._reader = asyncio.create_task(self._read(self._call))
            return self._call

    async def _read(self, call: Any) -> None:
        """Deliver every answer; when the stream ends, open another for what is unanswered."""
        error: BaseException | None = None
        try:
            while True:
                response = await call.read()
                if response is grpc.aio.EOF:
                    break
                self._deliver(response)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or task.cancelling():
                raise  # the reader itself is stopped (_stop)
            # grpc raises CancelledError from read() on a call cancelled locally: the stream
            # is over, and what it left unanswered goes on over a new one.
            error = _cancelled("the Play stream was cancelled")
        except grpc.aio.AioRpcError as failed:
            error = failed
        except Exception as failed:  # pragma: no cover - grpc raises AioRpcError
            error = failed
        if self._call is not call:
            return  # closed, or its end already seen by the reopening that wrote to it
        self._call = None
        self._ended(error)
        if self._pending and not self.unsupported:
            self._broken(error)

    def _deliver(self, response: Any) -> None:
        which = response.WhichOneof("body")
        request_id = response.request_id
        if which == self._rpc.view:
            if request_id == self._view_id and self._view is not None:
                self._view.put_nowait(getattr(response, which))
            return
        if which == REFUSAL and request_id == self._view_id and self._view is not None:
            self._view.put_nowait(refused(response.refusal))
            return
        pending = self._pending.get(request_id)
        if pending is None or pending.answer.done():
            return  # given up on, or answered twice (a resend after a reconnect)
        if which == REFUSAL:
            pending.answer.set_exception(refused(response.refusal))
        else:
            pending.answer.set_result(getattr(response, which))

    def _ended(self, error: BaseException | None) -> None:
        """The stream ended: the view ends with it (OK: the game is over)."""
        code = error.code() if isinstance(error, grpc.aio.AioRpcError) else None
        if code == grpc.StatusCode.UNIMPLEMENTED:
            self.unsupported = True
            for pending in self._pending.values():
                if not pending.answer.done():
                    pending.answer.set_exception(Unsupported())
        if self._view is not None:
            self._view.put_nowait(Unsupported() if self.unsupported else error)
            self._view, self._view_id = None, ""

    def _broken(self, error: BaseException | None) -> None:
        """A stream ended with ``error`` (None: OK) and commands are unanswered: reopen, unless
        a reopening is running, which then goes round again with ``error``."""
        if self._closing:
            return
        self._broke_with = error
        if self._reopening is None or self._reopening.done():
            self._reopening = asyncio.get_running_loop().create_task(self._reopen())

    async def _reopen(self) -> None:
        """Open a new stream and send every unanswered command again, under its request id,
        until each is answered, is refused by how a stream ended (a status in _FINAL), or has
        gone on more than REOPEN_TRIES streams that broke; then it fails with the last status."""
        attempt = 0
        while self._pending and not self.unsupported:
            error, self._broke_with = self._broke_with, _NOT_BROKEN
            if error is _NOT_BROKEN:
                return  # everything unanswered went on a stream that is still up
            assert error is None or isinstance(error, BaseException)
            if _code(error) in _FINAL or attempt >= REOPEN_TRIES:
                self._fail_pending(error)
                return
            if attempt:
                await asyncio.sleep(REOPEN_PAUSE_S * attempt)
            attempt += 1
            try:
                call = await self._open()
            except Exception as failed:  # the channel closed under us
                self._broke_with = failed
                continue
            try:
                over = _ending(call)
                for request_id, pending in list(self._pending.items()):
                    if self._pending.get(request_id) is not pending or pending.answer.done():
                        continue  # answered, or given up on by its caller meanwhile
                    if pending.sent > REOPEN_TRIES:  # each stream it went on broke
                        self._fail(pending, error)
                        continue
                    if call.done():
                        raise asyncio.InvalidStateError("the new stream ended")
                    pending.sent += 1
                    await self._write(call, pending.request)
                    # One at a time, each once the one before is answered: a write that races
                    # the end of a stream fails inside grpc's core and hides the status the
                    # server ended it with (a seat given up, say), which the next write would
                    # otherwise do as soon as the server answers the first and ends the stream.
                    await asyncio.wait(
                        (pending.answer, over),
                        timeout=self._timeout,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
            except Exception as failed:
                # The new stream ended too: its status, not the write's, says why.
                status = await _ended_with(call, failed)
                if self._call is call:  # its reader has not seen the end yet: speak for it
                    self._call = None
                    self._ended(status)
                    self._broke_with = status

    def _fail_pending(self, error: BaseException | None) -> None:
        for pending in self._pending.values():
            if not pending.answer.done():
                self._fail(pending, error)

    @staticmethod
    def _fail(pending: _Pending, error: BaseException | None) -> None:
        if isinstance(error, grpc.aio.AioRpcError):
            pending.answer.set_exception(error)
        else:  # OK, or not a status: callers catch AioRpcError, as from the unary call
            pending.answer.set_exception(_unavailable(pending, error))

    async def _restart(self) -> None:
        """Close the stream (a view nobody reads any more); commands go on over a new one."""
        await self._stop(cancel=True)
        if self._pending:
            self._broken(None)

    async def _stop(self, cancel: bool) -> None:
        call, reader = self._call, self._reader
        self._call = self._reader = None
        if self._view is not None:  # a view still read ends, as a cancelled Watch would
            self._view.put_nowait(_cancelled("the Play stream was closed"))
            self._view, self._view_id = None, ""
        if reader is not None:
            reader.cancel()
            await _finished(reader)
        if call is not None and cancel:
            call.cancel()
