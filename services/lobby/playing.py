"""Each registered game's own gRPC service, built from its descriptor: one path for every game.

For a game's service (services.lobby.games.GameService) every unary rpc ``Xyz``:

1. authenticates the seat token for ``request.table_id`` (services.lobby.servicers.seated_player);
2. runs the game's cheap edge check (``GAME.check_request``);
3. sends the game's ``command_message`` (table_id, player_id, request_id, and the oneof member
   ``xyz`` holding the request's other fields, copied by name) to the referee on
   ``match.referee.pNN.<slug>.<table>``;
4. answers with the reply's Accepted, its fields copied by name into the rpc's response (a
   refusal ends the call with its category's status, message and slug, services.lobby.errors).

A reply holding an event the player may not see as it is (the game's ``redact`` would change it)
is not sent: INTERNAL. ``Watch`` is services.lobby.watch for the game: with a seat token, the
seat's view; without one, a spectator's view where the game allows it (its GAME's
``public_watch``). A seated player's streams are their presence (services.lobby.presence).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import grpc  # type: ignore[import-untyped]
import structlog
from google.protobuf.descriptor import Descriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from nats.js import JetStreamContext

from match.v1 import common_pb2
from match_rules.errors import RuleError
from match_rules.protocodec import snake
from services.lobby import metrics, validation
from services.lobby.directory import TableDirectory
from services.lobby.edge import (
    INTERNAL_MESSAGE,
    NO_TOKEN,
    Auth,
    Context,
    metadata,
    streaming,
    unary,
)
from services.lobby.errors import RETRY_AFTER_KEY, ApiError, invalid
from services.lobby.fanout import Watches
from services.lobby.games import GameService
from services.lobby.parsing import Malformed
from services.lobby.presence import PlayerStream, Presence
from services.lobby.referee import Referee
from services.lobby.servicers import seated_player, still_seated
from services.lobby.tokens import Claims
from services.lobby.viewer import TableViewer, leaks
from services.lobby.watch import Answers, Stream, seat_of, view, watch, wrong_game

log = structlog.get_logger()

TABLE_ID = "table_id"


_REPEATED, _MESSAGE, _PRESENT, _SCALAR = range(4)


@cache
def _copy_plan(source: Descriptor, target: Descriptor, skip: frozenset[str]) -> tuple[Any, ...]:
    """The fields :func:`copy_by_name` copies from ``source`` to ``target``, and how: worked
    out once per pair of messages, since it runs twice on every command."""
    wanted = target.fields_by_name
    plan = []
    for field in source.fields:
        if field.name in skip or field.name not in wanted:
            continue
        if field.is_repeated:
            kind = _REPEATED
        elif field.message_type is not None:
            kind = _MESSAGE
        else:
            kind = _PRESENT if field.has_presence else _SCALAR
        plan.append((field.name, kind))
    return tuple(plan)


def copy_by_name(source: Message, target: Message, skip: frozenset[str] = frozenset()) -> None:
    """Every set field of ``source`` into the field of the same name of ``target``."""
    for name, kind in _copy_plan(source.DESCRIPTOR, target.DESCRIPTOR, skip):
        if kind == _SCALAR:
            setattr(target, name, getattr(source, name))
        elif kind == _REPEATED:
            getattr(target, name).extend(getattr(source, name))
        elif not source.HasField(name):
            continue
        elif kind == _MESSAGE:
            getattr(target, name).CopyFrom(getattr(source, name))
        else:
            setattr(target, name, getattr(source, name))


class GameServicer:
    """One game's service: its handlers, for ``add_safely``'s generic registration."""

    def __init__(
        self,
        service: GameService,
        auth: Auth,
        referee: Referee,
        directory: TableDirectory,
        js: JetStreamContext,
        watches: Watches,
        presence: Presence,
    ) -> None:
        self.service = service
        self.game = service.game
        self.auth = auth
        self._referee = referee
        self._directory = directory
        self._js = js
        self._watches = watches
        self._presence = presence

    # --- registration ------------------------------------------------------------------------

    def register(self, server: Any) -> None:
        """What generated ``add_XServicer_to_server`` does, for this game's service."""
        handlers = {
            method.name: self._handler(method) for method in self.service.descriptor.methods
        }
        name = self.service.full_name
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
        server.add_registered_method_handlers(name, handlers)

    def _handler(self, method: MethodDescriptor) -> Any:
        request = GetMessageClass(method.input_type)
        response = GetMessageClass(method.output_type)
        if method.client_streaming:
            kit = self._play_kit(response)

            @streaming(method.name, metrics.PLAYS)
            async def play(
                self: GameServicer, requests: Any, context: Context
            ) -> AsyncIterator[Any]:
                async for item in self.play(requests, context, kit):
                    yield item

            return grpc.stream_stream_rpc_method_handler(
                _bound_stream(play, self),
                request_deserializer=request.FromString,
                response_serializer=response.SerializeToString,
            )
        if method.server_streaming:
            snapshots = self.game.watch_snapshots
            stream = Stream(self.game, response, snapshots=snapshots)

            @streaming(method.name)
            async def follow(self: GameServicer, req: Any, context: Context) -> AsyncIterator[Any]:
                async for item in self.watch(req, context, stream):
                    yield item

            return grpc.unary_stream_rpc_method_handler(
                _bound_stream(follow, self),
                request_deserializer=request.FromString,
                response_serializer=response.SerializeToString,
            )
        member = self.service.command_member(method.name)

        @unary(method.name)
        async def call(self: GameServicer, req: Any, context: Context) -> Any:
            return await self.command(member, req, response, context)

        return grpc.unary_unary_rpc_method_handler(
            _bound_unary(call, self),
            request_deserializer=request.FromString,
            response_serializer=response.SerializeToString,
        )

    # --- commands ----------------------------------------------------------------------------

    def _check_game(self, table_id: str) -> None:
        """A table the listing knows to play another game: refused here, not forwarded."""
        table = self._directory.get(table_id)
        if table is not None and table.game_kind != self.game.kind:
            raise wrong_game(table_id, table.game_kind, self.game)

    async def command(
        self, member: str, request: Any, response: type[Message], context: Context
    ) -> Message:
        table_id, claims = seated_player(self.auth, self._directory, request.table_id, context)
        request_id = validation.request_id(metadata(context, "x-request-id"))
        return await self.forward(table_id, claims, member, request, response, request_id)

    async def forward(
        self,
        table_id: str,
        claims: Claims,
        member: str,
        request: Any,
        response: type[Message],
        request_id: str,
    ) -> Message:
        """An authenticated seat's command (``request``, the oneof ``member`` of the game's
        command): checked, sent to the referee, its answer as ``response``; ApiError if not."""
        problem = self.game.check_request(request)
        if isinstance(problem, RuleError):  # as the referee would refuse it: with its slug
            raise ApiError(
                grpc.StatusCode[problem.code.category.value], problem.message, problem.code.slug
            )
        if problem is not None:
            raise invalid(problem)
        self._check_game(table_id)
        message = self.game.command_message(
            table_id=table_id, player_id=claims.player, request_id=request_id
        )
        copy_by_name(request, getattr(message, member), frozenset({TABLE_ID}))
        getattr(message, member).SetInParent()
        accepted = await self._referee.game(self.game, message)
        for envelope in accepted.events:
            if not self._may_see(envelope, claims.player):
                log.error("the referee's reply holds another player's private event; not sent")
                raise ApiError(
                    grpc.StatusCode.INTERNAL, "the lobby failed to handle this; try again"
                )
        out = response()
        copy_by_name(accepted, out)
        return out

    def _may_see(self, envelope: Any, player: str) -> bool:
        """Whether ``player`` may get ``envelope`` of the reply as it is: a table event, or one
        of this game's that does not leak (its type proves it, else its redaction does)."""
        which = envelope.WhichOneof("body")
        if which == "table":
            return True
        return which == self.game.slug and not leaks(envelope, player)

    # --- the stream --------------------------------------------------------------------------

    async def watch(self, request: Any, context: Context, stream: Stream) -> AsyncIterator[Any]:
        public = self.game.public_watch
        if public and metadata(context, "authorization") is None:
            table_id, player = validation.table_id(request.table_id), ""
            structlog.contextvars.bind_contextvars(table_id=table_id)
        else:
            table_id, claims = seated_player(self.auth, self._directory, request.table_id, context)
            player = claims.player
        client = self._client(context)
        after = request.after_event_number
        seen: list[TableViewer] = []
        present = self._presence.stream(self.game, table_id, player) if player else None
        try:
            async for item in watch(
                self._js,
                self._watches,
                table_id,
                player,
                after,
                client,
                stream,
                seen.append,
                request.batch,
            ):
                if present is not None and seen:
                    present.following(seen[0])
                yield item
        finally:
            if present is not None:
                present.ended(seen[0] if seen else None)

    def _client(self, context: Context) -> str | None:
        """The caller's address for the stream caps; None for the bot service, which plays
        every bot seat from one address: its streams are counted per seat only."""
        return None if self.auth.carries_bot_key(context) else self.auth.address(context)

    # --- Play: a seat's commands and view on one stream ----------------------------------------

    def _play_kit(self, response: type[Message]) -> PlayKit:
        """What Play's messages mean, from the service's descriptor: each rpc's request and
        response are the members named after it (services/lobby/games.py)."""
        kit = PlayKit(response=response)
        for method in self.service.descriptor.methods:
            if method.client_streaming:
                continue
            member = snake(method.name)
            if method.server_streaming:
                kit.view = member
                kit.stream = Stream(
                    self.game,
                    GetMessageClass(method.output_type),
                    snapshots=self.game.watch_snapshots,
                )
            else:
                kit.commands[member] = Command(
                    method.name,
                    self.service.command_member(method.name),
                    GetMessageClass(method.output_type),
                )
        return kit

    async def play(self, requests: Any, context: Context, kit: PlayKit) -> AsyncIterator[Any]:
        """One seat's Play stream. The seat's token is checked, and the stream admitted against
        the stream caps, once, here; each message is then counted against the address's and
        the player's buckets and refused on the stream, as its unary call would be, without
        ending it. Only an authentication failure (the token expired, the seat given up) ends
        it, UNAUTHENTICATED; so does the end of the view (the game over: OK)."""
        # The open takes one call from the address's bucket (as a Watch's does) but none from
        # the player's: each command then takes one from both, so a seat's commands cost the
        # same on a stream as in unary calls.
        claims = self.auth.claims(context, count=False)
        if claims is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, NO_TOKEN)
        table_id = validation.table_id(claims.table)
        structlog.contextvars.bind_contextvars(table_id=table_id, player_id=claims.player)
        still_seated(self._directory, table_id, claims.player)
        self._check_game(table_id)
        seat = _Seat(table_id, claims, self._client(context), asyncio.Queue())
        with self._watches.admitted(seat_of(table_id, claims.player), seat.client):
            reader = asyncio.create_task(self._read(requests, context, kit, seat))
            try:
                while True:
                    item = await seat.out.get()
                    if isinstance(item, _End):
                        if item.error is not None:
                            raise item.error
                        return
                    yield item
            finally:
                reader.cancel()
                if seat.view is not None:
                    seat.view.cancel()
                await asyncio.gather(reader, *filter(None, [seat.view]), return_exceptions=True)
                if seat.present is not None:
                    seat.present.ended(seat.seen[-1] if seat.seen else None)

    async def _read(self, requests: Any, context: Context, kit: PlayKit, seat: _Seat) -> None:
        """Answer each request in the order sent; the end of the client's side ends the stream
        once the last one is answered."""
        try:
            async for request in requests:
                async with seat.busy:
                    answer = await self._answer(request, context, kit, seat)
                    if answer is not None:
                        seat.out.put_nowait(answer)
            seat.out.put_nowait(_End(None))
        except ApiError as error:  # an authentication failure: the stream ends
            seat.out.put_nowait(_End(error))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the stream itself broke (the client went away)
            log.debug("play stream ended", error=repr(error))
            seat.out.put_nowait(_End(None))

    async def _answer(self, request: Any, context: Context, kit: PlayKit, seat: _Seat) -> Any:
        """The answer to one request (None: the view started, its items are the answer).
        Raises ApiError only for an authentication failure."""
        request_id = "" if type(request) is Malformed else request.request_id
        # Still the seat's: checked before anything is counted for it.
        expired = self.auth.expired(seat.claims)
        if expired is not None:
            raise expired
        still_seated(self._directory, seat.table_id, seat.claims.player)
        method, code, start = "Play", grpc.StatusCode.OK, time.perf_counter()
        try:
            self.auth.admit(context)  # the address's bucket, as for every unary call
            self.auth.admit_player(seat.claims.player)
            if type(request) is Malformed:
                raise invalid(request.message)
            request_id = validation.random_looking("request_id", request_id, "per command")
            member = request.WhichOneof("command")
            if member is None:
                raise invalid(
                    "set one command in the Play request (a member named after the rpc, e.g. "
                    "the request you would send that rpc): docs/api.md, Play"
                )
            body = getattr(request, member)
            self._same_table(body.table_id, seat.table_id)
            if member == kit.view:
                method = "Play.view"
                self._start_view(body, request_id, kit, seat)
                return None
            command = kit.commands[member]
            method = command.rpc
            answers = seat.answers  # the view leaves out what the answer carries
            if answers is not None:
                answers.expect(request_id)
            try:
                out = await self.forward(
                    seat.table_id, seat.claims, command.member, body, command.response, request_id
                )
                if answers is not None:
                    answers.carried(cast(Any, out).events)  # every command's response has it
            finally:  # the answer, or refusal, is queued before the view runs again: no await
                if answers is not None:
                    answers.settle(request_id)
            return kit.response(request_id=request_id, **{member: out})
        except ApiError as error:
            code = error.code
            extra = {"refusal": error.refusal_code} if error.refusal_code else {}
            say = log.debug if error.quiet else log.info
            say("refused", method=method, code=code.name, reason=error.log_reason, **extra)
            return kit.response(request_id=request_id, refusal=refusal(error))
        except Exception as error:
            code = grpc.StatusCode.INTERNAL
            log.error("request failed", method=method, exc_info=error)
            return kit.response(
                request_id=request_id,
                refusal=common_pb2.PlayRefusal(status_code=code.value[0], message=INTERNAL_MESSAGE),
            )
        finally:
            metrics.REQUESTS.labels(method, code.name).inc()
            if method not in ("Play", "Play.view"):
                metrics.LATENCY.labels(method).observe(time.perf_counter() - start)

    def _same_table(self, given: str, table_id: str) -> None:
        """A request's ``table_id``: empty (the stream's) or the stream's table."""
        if given and validation.table_id(given) != table_id:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"this Play stream is for table {table_id}, not {given}: a stream acts for its "
                "seat's own table only; leave table_id empty or open a stream with that "
                "table's token",
            )

    def _start_view(self, request: Any, request_id: str, kit: PlayKit, seat: _Seat) -> None:
        """Start the seat's view as the watch ``request`` asks (after its
        ``after_event_number``; ``batch``: events in ``events`` items; ``skip_answered``: not
        the events the stream's answers carried), replacing the one running, if any."""
        if seat.present is None:
            seat.present = self._presence.stream(self.game, seat.table_id, seat.claims.player)
        seat.answers = Answers() if request.skip_answered else None
        after, batch = request.after_event_number, request.batch
        seat.follow(asyncio.create_task(self._run_view(after, batch, request_id, kit, seat)))

    async def _run_view(
        self, after: int, batch: bool, request_id: str, kit: PlayKit, seat: _Seat
    ) -> None:
        error: ApiError | None = None
        try:
            async for item in view(
                self._js,
                self._watches,
                seat.table_id,
                seat.claims.player,
                after,
                seat.client,
                kit.stream,
                seat.seen.append,
                batch,
                seat.answers,
            ):
                if seat.present is not None and seat.seen:
                    seat.present.following(seat.seen[-1])
                seat.out.put_nowait(kit.response(request_id=request_id, **{kit.view: item}))
        except asyncio.CancelledError:
            raise  # replaced by a new view, or the stream ended
        except ApiError as failed:
            error = failed
        except Exception as failed:
            log.error("the view failed", exc_info=failed)
            error = ApiError(grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE)
        # The view is over (the game over and its seed out, or it failed): the stream ends with
        # it, as a Watch does, once the command being answered, if any, has its answer.
        async with seat.busy:
            seat.out.put_nowait(_End(error))


@dataclass(frozen=True, slots=True)
class Command:
    """A command of Play: its rpc, the referee command's member, the rpc's response."""

    rpc: str
    member: str
    response: type[Message]


@dataclass
class PlayKit:
    """One game's Play, from its service descriptor."""

    response: type[Message]  # the Play response message
    # by the request's member
    commands: dict[str, Command] = dataclasses.field(default_factory=dict)
    view: str = ""  # the member that starts the view (the server-streaming rpc's: "watch")
    stream: Any = None  # the view's Stream (services.lobby.watch)


@dataclass
class _Seat:
    """One Play stream's seat, and what runs for it."""

    table_id: str
    claims: Claims
    client: str | None
    out: asyncio.Queue[Any]
    busy: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)  # a request being answered
    view: asyncio.Task[None] | None = None
    present: PlayerStream | None = None
    seen: list[TableViewer] = dataclasses.field(default_factory=list)
    # What the answers carried, when the view leaves it out (its watch request's
    # ``skip_answered``); None: the view sends every event.
    answers: Answers | None = None

    def follow(self, view: asyncio.Task[None]) -> None:
        """Run ``view`` as the seat's view, cancelling the one running, if any (its items
        already queued carry its own request id). The seat lets go of a view once it is over:
        a cancelled task keeps its CancelledError, whose frames hold this seat, so a seat that
        kept the task would make a cycle of the two, with every record the view's frames hold,
        that only the collector's slowest generation frees (docs/performance.md, "The garbage
        collector")."""
        if self.view is not None:
            self.view.cancel()
        self.view = view
        view.add_done_callback(self._over)

    def _over(self, view: asyncio.Task[None]) -> None:
        if self.view is view:
            self.view = None


@dataclass(frozen=True, slots=True)
class _End:
    """The stream ends: OK (None) or with ``error``."""

    error: ApiError | None


def refusal(error: ApiError) -> common_pb2.PlayRefusal:
    """What a unary call would have ended with, as a Play refusal."""
    wait = dict(error.trailers).get(RETRY_AFTER_KEY, "0")
    return common_pb2.PlayRefusal(
        status_code=error.code.value[0],
        message=error.message,
        refusal_code=error.refusal_code,
        retry_after_ms=int(wait) if wait.isdigit() else 0,
    )


def _bound_unary(
    handler: Callable[[GameServicer, Any, Context], Awaitable[Any]], servicer: GameServicer
) -> Callable[[Any, Context], Awaitable[Any]]:
    """``handler`` with its servicer, as gRPC calls a handler: (request, context)."""

    async def call(request: Any, context: Context) -> Any:
        return await handler(servicer, request, context)

    return call


def _bound_stream(
    handler: Callable[[GameServicer, Any, Context], AsyncIterator[Any]], servicer: GameServicer
) -> Callable[[Any, Context], AsyncIterator[Any]]:
    async def call(request: Any, context: Context) -> AsyncIterator[Any]:
        async for item in handler(servicer, request, context):
            yield item

    return call
