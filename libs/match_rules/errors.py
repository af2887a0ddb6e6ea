"""Refusals: one policy for every game.

A refused command raises :class:`RuleError` with a stable machine code, a gRPC-style category and
a message a person can act on. A refusal changes nothing: ``decide`` raises before any event.
"""

from __future__ import annotations

from enum import Enum


class Category(Enum):
    """How the shell should report a refusal (maps one-to-one onto gRPC status codes)."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    NOT_FOUND = "NOT_FOUND"  # used by the shells (an unknown table), never by the rules
    UNAVAILABLE = "UNAVAILABLE"  # a shell's dependency is down; try again


class RefusalCode(Enum):
    """A refusal code: ``(slug, category)``. :class:`Code` holds the codes more than one game
    gives; each game's own are its package's ``errors.py`` (``RaceCode``, ...). Every slug is
    one code, in one enum, across games: the lobby, the clients and docs/contract.md key on it."""

    @property
    def slug(self) -> str:
        return self.value[0]  # type: ignore[no-any-return]

    @property
    def category(self) -> Category:
        return self.value[1]  # type: ignore[no-any-return]


class Code(RefusalCode):
    """The refusals more than one game gives. Values are stable on the wire."""

    INVALID_SETUP = ("invalid_setup", Category.INVALID_ARGUMENT)
    STALE_TIME = ("stale_time", Category.INVALID_ARGUMENT)
    NOT_SEATED = ("not_seated", Category.PERMISSION_DENIED)
    GAME_NOT_STARTED = ("game_not_started", Category.FAILED_PRECONDITION)
    GAME_ALREADY_STARTED = ("game_already_started", Category.FAILED_PRECONDITION)
    GAME_OVER = ("game_over", Category.FAILED_PRECONDITION)
    MALFORMED_REQUEST = ("malformed_request", Category.INVALID_ARGUMENT)
    PAUSED = ("paused", Category.FAILED_PRECONDITION)
    HINT_LIMIT_REACHED = ("hint_limit_reached", Category.RESOURCE_EXHAUSTED)
    CARD_OUT_OF_RANGE = ("card_out_of_range", Category.INVALID_ARGUMENT)
    INVALID_DECK_SIZE = ("invalid_deck_size", Category.INVALID_ARGUMENT)
    INVALID_PICTURES = ("invalid_pictures", Category.INVALID_ARGUMENT)


class RuleError(Exception):
    """A command the rules refuse. ``code`` is stable; ``message`` is for a person."""

    def __init__(self, code: RefusalCode, message: str) -> None:
        super().__init__(f"{code.slug}: {message}")
        self.code = code
        self.message = message
