"""Every game the terminal client plays, by name and by kind: the one line a new game adds.

Each entry is the module whose ``CLIENT`` is that game's :class:`match_client.game.GameClient`;
the first is the default game (``match play --new`` without ``--game``, ``make demo``).
"""

from __future__ import annotations

import importlib
from functools import cache

from match_client.game import GameClient
from match_rules import registry as rules

_MODULES = (
    "match_client.race.game",
    "match_client.concentration.game",
    "match_client.match_cards.game",
    "match_client.number_match.game",
    "match_client.match_five.game",
)


@cache
def clients() -> tuple[GameClient, ...]:
    """The games' terminal clients, in the order listed."""
    return tuple(importlib.import_module(name).CLIENT for name in _MODULES)


def default() -> GameClient:
    return clients()[0]


def names() -> tuple[str, ...]:
    return tuple(c.name for c in clients())


def by_name(name: str) -> GameClient:
    for found in clients():
        if found.name == name:
            return found
    raise rules.UnknownGame(f"no game called {name!r}")


def by_kind(kind: int) -> GameClient:
    slug = rules.by_kind(kind).slug
    for found in clients():
        if found.slug == slug:
            return found
    raise rules.UnknownGame(f"no terminal client of game kind {kind}")
