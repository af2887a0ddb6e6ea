"""Every game the platform hosts, by kind and by slug: the one line a new game adds.

The shells look a game up here and use only :class:`match_rules.game.Game`; nothing else in
them names a game. Each entry is the module whose ``GAME`` is that game; the game's own refusal
codes are the :class:`~match_rules.errors.RefusalCode` enum of ``match_rules.<slug>.errors``.
"""

from __future__ import annotations

import importlib
from functools import cache

from match_rules.errors import Code, RefusalCode
from match_rules.game import Game

_MODULES = (
    "match_rules.race.game",
    "match_rules.concentration.game",
    "match_rules.match_cards.game",
    "match_rules.number_match.game",
    "match_rules.match_five.game",
)


class UnknownGame(LookupError):
    """No registered game has that kind or slug."""


@cache
def games() -> tuple[Game, ...]:
    """The registered games, in the order listed."""
    return tuple(importlib.import_module(name).GAME for name in _MODULES)


def by_kind(kind: int) -> Game:
    for game in games():
        if game.kind == kind:
            return game
    raise UnknownGame(f"no game of kind {kind}")


def by_slug(slug: str) -> Game:
    for game in games():
        if game.slug == slug:
            return game
    raise UnknownGame(f"no game called {slug!r}")


def slugs() -> tuple[str, ...]:
    return tuple(game.slug for game in games())


def refusal_codes() -> tuple[RefusalCode, ...]:
    """Every refusal code on the wire: the shared ones, then each game's own, in the games'
    order (docs/contract.md lists them all)."""
    codes: list[RefusalCode] = list(Code)
    for slug in slugs():
        module = importlib.import_module(f"match_rules.{slug}.errors")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, RefusalCode)
                and value is not RefusalCode
            ):
                codes.extend(value)
    return tuple(codes)
