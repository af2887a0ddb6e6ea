"""One game as the terminal client sees it: what ``match play`` and ``make demo`` need of it.

Each game's package (``match_client.<slug>``) has a module ``game`` whose ``CLIENT`` is a
:class:`GameClient`; :mod:`match_client.registry` lists them, as :mod:`match_rules.registry`
lists the games' rules. ``match_client.cli`` and ``match_client.demo`` find a game there by its
name or its kind and use only what is here, so neither names a game.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.message import Message

from match.v1 import lobby_pb2
from match_client.client import MatchClient, Seat
from match_client.terminal import Out, Settings


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat ``match play`` has made, joined or found again, to be played from here on."""

    client: MatchClient
    seat: Seat
    table: lobby_pb2.Table | None  # the lobby's Table, when GetTable answered
    args: argparse.Namespace  # the command line (``args.plain``: the line mode)
    settings: Settings
    note: Out  # a line now (the line mode), or kept for the full-screen view's log
    early: list[str]  # the lines kept for the full-screen view's log
    name: str  # the player's display name at the table
    resumed: bool = False  # back to a seat (``--resume``): the view as it is now


def _no_problem(args: argparse.Namespace) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class GameClient:
    """A game's terminal client."""

    slug: str  # the rules' slug (match_rules.registry): "match_cards"
    name: str  # on the command line (``--game``, ``make demo GAME=``): "match-cards"
    title: str  # in ``match --help``: "Match Cards"
    seats_help: str  # its part of ``--seats``' help ("": it has no choice of seats)
    # Adds its options to ``match play``; ``own_section``: in a section of their own after the
    # shared options, else listed with them (the default game's).
    options: Callable[[argparse.ArgumentParser], None]
    own_section: bool
    given: Callable[[argparse.Namespace], dict[str, bool]]  # which of its options are given
    new_settings: Callable[[argparse.Namespace], Message]  # a new table's, from the options
    play: Callable[[Seated], Awaitable[int]]  # plays the seat to the end; the exit code
    demo: Callable[[argparse.Namespace, Ed25519PrivateKey | None], Coroutine[Any, Any, int]]
    problem: Callable[[argparse.Namespace], str | None] = _no_problem  # after the shared checks
    # An option of its own that other games take too: "--cards" -> the names of all of them.
    shared: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # ``match watch``: prints a table's stream (None: the game has no printed stream).
    watch: Callable[[MatchClient, str, str, int, Out, str], Awaitable[int]] | None = None
