"""The games the lobby serves, as the registry lists them: nothing here names one.

Each registered game has one gRPC service of its own, the only service in
``match.v1.<slug>_service_pb2`` (``MatchRaceService``, ``ConcentrationService``): unary rpcs that
are the game's commands, and one server-streaming ``Watch``. The lobby builds that service's
handlers from its descriptor (services.lobby.playing): an rpc ``TurnTile`` sends the game's
``command_message`` with the oneof member ``turn_tile`` (the rpc's name in snake case) holding
the request's fields other than ``table_id``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf.descriptor import ServiceDescriptor

from match.v1 import common_pb2
from match_rules import registry
from match_rules.game import Game
from match_rules.protocodec import snake
from services.lobby.errors import invalid


def kind_name(kind: int) -> str:
    try:
        return str(common_pb2.GameKind.Name(kind))
    except ValueError:
        return f"game kind {kind}"


def kinds_served() -> str:
    """``GAME_KIND_MATCH_RACE or GAME_KIND_CONCENTRATION``: for messages."""
    names = [kind_name(game.kind) for game in registry.games()]
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]


def by_kind(kind: int) -> Game:
    """The registered game of ``kind``; INVALID_ARGUMENT naming the kinds served otherwise."""
    if kind == common_pb2.GAME_KIND_UNSPECIFIED:
        raise invalid(f"game_kind is required: {kinds_served()}")
    try:
        return registry.by_kind(kind)
    except registry.UnknownGame:
        raise invalid(
            f"{kind_name(kind)} is not played here; game_kind must be {kinds_served()}"
        ) from None


def of_slug(slug: str | None) -> Game | None:
    """The game whose slug is ``slug`` (a oneof member's name), or None."""
    if slug is None:
        return None
    try:
        return registry.by_slug(slug)
    except registry.UnknownGame:
        return None


@dataclass(frozen=True)
class GameService:
    """One game's gRPC service: its descriptor and its generated modules."""

    game: Game
    descriptor: ServiceDescriptor
    messages: Any  # match.v1.<slug>_service_pb2

    @property
    def full_name(self) -> str:
        return str(self.descriptor.full_name)

    def command_member(self, rpc: str) -> str:
        """The ``command_message`` oneof member an rpc sends: its name in snake case."""
        return snake(rpc)


@cache
def service_of(slug: str) -> GameService:
    game = registry.by_slug(slug)
    messages = importlib.import_module(f"match.v1.{slug}_service_pb2")
    (descriptor,) = messages.DESCRIPTOR.services_by_name.values()
    return GameService(game, descriptor, messages)


def services() -> tuple[GameService, ...]:
    """Every registered game's service, in the registry's order."""
    return tuple(service_of(game.slug) for game in registry.games())
