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

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc  # type: ignore[import-untyped]
import structlog
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from nats.js import JetStreamContext

from match_rules.errors import RuleError
from services.lobby import validation
from services.lobby.directory import TableDirectory
from services.lobby.edge import Auth, Context, metadata, streaming, unary
from services.lobby.errors import ApiError, invalid
from services.lobby.fanout import Watches
from services.lobby.games import GameService
from services.lobby.presence import Presence
from services.lobby.referee import Referee
from services.lobby.servicers import seated_player
from services.lobby.viewer import TableViewer, shown_as_is
from services.lobby.watch import Stream, watch, wrong_game

log = structlog.get_logger()

TABLE_ID = "table_id"


def copy_by_name(source: Message, target: Message, skip: frozenset[str] = frozenset()) -> None:
    """Every set field of ``source`` into the field of the same name of ``target``."""
    wanted = target.DESCRIPTOR.fields_by_name
    for field in source.DESCRIPTOR.fields:
        if field.name in skip or field.name not in wanted:
            continue
        value = getattr(source, field.name)
        if field.is_repeated:
            getattr(target, field.name).extend(value)
        elif field.message_type is not None:
            if source.HasField(field.name):
                getattr(target, field.name).CopyFrom(value)
        elif not field.has_presence or source.HasField(field.name):
            setattr(target, field.name, value)


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
        problem = self.game.check_request(request)
        if isinstance(problem, RuleError):  # as the referee would refuse it: with its slug
            raise ApiError(
                grpc.StatusCode[problem.code.category.value], problem.message, problem.code.slug
            )
        if problem is not None:
            raise invalid(problem)
        self._check_game(table_id)
        message = self.game.command_message(
            table_id=table_id,
            player_id=claims.player,
            request_id=validation.request_id(metadata(context, "x-request-id")),
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
        which = envelope.WhichOneof("body")
        if which != self.game.slug:
            return bool(which == "table")
        try:
            event = self.game.decode(getattr(envelope, which))
        except Exception:
            return False
        return bool(shown_as_is(self.game, event, player))

    # --- the stream --------------------------------------------------------------------------

    async def watch(self, request: Any, context: Context, stream: Stream) -> AsyncIterator[Any]:
        public = self.game.public_watch
        if public and metadata(context, "authorization") is None:
            table_id, player = validation.table_id(request.table_id), ""
            structlog.contextvars.bind_contextvars(table_id=table_id)
        else:
            table_id, claims = seated_player(self.auth, self._directory, request.table_id, context)
            player = claims.player
        # The bot service plays every bot seat from one address: it is counted per seat only.
        client = None if self.auth.carries_bot_key(context) else self.auth.address(context)
        after = request.after_event_number
        seen: list[TableViewer] = []
        present = self._presence.stream(self.game, table_id, player) if player else None
        try:
            async for item in watch(
                self._js, self._watches, table_id, player, after, client, stream, seen.append
            ):
                if present is not None and seen:
                    present.following(seen[0])
                yield item
        finally:
            if present is not None:
                present.ended(seen[0] if seen else None)


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
