"""One game as the terminal client sees it: what ``match play`` and ``make demo`` need of it.

Each game's package (``match_client.<slug>``) has a module ``game`` whose ``CLIENT`` is a
:class:`GameClient`; :mod:`match_client.registry` lists them, as :mod:`match_rules.registry`
lists the games' rules. ``match_client.cli`` and ``match_client.demo`` find a game there by its
name or its kind and use only what is here, so neither names a game.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.message import Message

from match.v1 import lobby_pb2
from match_client.client import (
    MatchClient,
    Seat,
    error_details,
    is_rpc_error,
    refusal_code,
    settings_member,
    status_name,
)
from match_client.seats import SeatStore
from match_client.terminal import Out, Settings, describe_error


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
    store: SeatStore  # where ``match play`` keeps the seat (seats.json): forgotten once left
    resumed: bool = False  # back to a seat (``--resume``): the view as it is now


def _no_problem(args: argparse.Namespace) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class MadeFrom:
    """A field of a new table's settings and the ``match play`` options it is made from.

    The lobby refuses a bad setting by its API name and unit (``race.ready_window_ms ... got
    5000``), as it should for API users; the person typed ``--ready-window 5``. Knowing only
    which options make which field, the client can name what the person typed and leave the
    rule (what is allowed) to the lobby's message, so nothing here can fall behind the rules.
    """

    field: str  # in the game's settings message: "ready_window_ms"
    flags: tuple[str, ...]  # the options it is made from: ("--ready-window",)
    # Refusal codes about this field, for the lobby's messages that do not name it.
    codes: tuple[str, ...] = ()

    def named_in(self, member: str, message: str, code: str | None) -> bool:
        """Whether a refusal is about this field: its code, or the field as the API spells it
        (``race.ready_window_ms``, ``writing_seconds``; a one-word field like ``cards`` only
        with its prefix, as the plain word may mean something else)."""
        if code is not None and code in self.codes:
            return True
        field = re.escape(self.field)
        if re.search(rf"(?<![\w.]){re.escape(member)}\.{field}(?!\w)", message):
            return True
        return "_" in self.field and re.search(rf"(?<!\w){field}(?!\w)", message) is not None


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
    # Which options make which field of ``new_settings``: a refusal is told by the options.
    made_from: tuple[MadeFrom, ...] = ()

    def refused_settings(
        self, args: argparse.Namespace, settings: Message, err: BaseException
    ) -> str | None:
        """A CreateTable refused INVALID_ARGUMENT, told by the options the person gave:
        ``--ready-window 5 (sent as race.ready_window_ms = 5000): <the lobby's message>``.
        None when it is another error, or its message names no field made from a given option
        (then it is printed as it came)."""
        if not is_rpc_error(err) or status_name(err) != "INVALID_ARGUMENT":
            return None
        member, message, code = settings_member(settings), error_details(err), refusal_code(err)
        told = []
        for source in self.made_from:
            given = [_typed(args, flag) for flag in source.flags if _given(args, flag)]
            if given and source.named_in(member, message, code):
                sent = f"{member}.{source.field} = {_sent(settings, source.field)}"
                told.append(f"{' '.join(given)} (sent as {sent})")
        if not told:
            return None
        return f"{', '.join(told)}: {describe_error(err)}"


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")  # argparse's own rule for an option's name


def _given(args: argparse.Namespace, flag: str) -> bool:
    return getattr(args, _dest(flag), None) not in (None, False)


def _typed(args: argparse.Namespace, flag: str) -> str:
    """The option as typed: ``--hints 50``, ``--ready-window 5`` (not 5.0), ``--jokers``."""
    value = getattr(args, _dest(flag))
    if value is True:
        return flag
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{flag} {value}"


def _sent(settings: Message, field: str) -> str:
    """A field's value as the request carried it: ``5000``, ``true``, ``MODE_TRIPLES``."""
    descriptor = settings.DESCRIPTOR.fields_by_name[field]
    value = getattr(settings, field)
    if descriptor.enum_type is not None:
        return str(descriptor.enum_type.values_by_number[value].name)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bytes):
        return value.hex()
    return str(value)
