"""The settings of a Number Match table: the level, the daily puzzle, a replayed board.

Validated here, once, with messages a person can act on; defaults are filled in by the adapter
(:mod:`match_rules.number_match.game`). The daily puzzle's date is checked against the referee's
clock when the game starts (:func:`today`), since only the start knows the time.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from match_rules.errors import Code, RuleError
from match_rules.number_match.board import Level

HINTS = 3  # per game (the seed: "You have 3 hints per game")
MIN_OFFSET_MINUTES = -12 * 60  # Baker Island
MAX_OFFSET_MINUTES = 14 * 60  # Kiribati, Line Islands
SEED_BYTES = 32
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MS_PER_MINUTE = 60_000


@dataclass(frozen=True, slots=True)
class Settings:
    """``daily_date``: the daily puzzle of that date ("" otherwise); ``utc_offset_minutes``: where
    its player's midnight falls; ``replay_seed``: the revealed seed of a finished game whose board
    is played again (b"" otherwise)."""

    level: Level = Level.EASY
    daily_date: str = ""
    utc_offset_minutes: int = 0
    replay_seed: bytes = b""

    @property
    def daily(self) -> bool:
        return bool(self.daily_date)

    @property
    def replay(self) -> bool:
        return bool(self.replay_seed)


def _invalid(message: str) -> RuleError:
    return RuleError(Code.INVALID_SETUP, message)


def parse_date(text: str) -> dt.date:
    """A daily puzzle's date, ``YYYY-MM-DD``; INVALID_SETUP otherwise."""
    if not _DATE.fullmatch(text):
        raise _invalid(f"daily_date must look like 2026-12-01 (YYYY-MM-DD), not {text!r}")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise _invalid(f"daily_date {text!r} is not a day of the calendar") from None


def check(settings: Settings) -> None:
    """Raise RuleError unless ``settings`` make a game."""
    if not MIN_OFFSET_MINUTES <= settings.utc_offset_minutes <= MAX_OFFSET_MINUTES:
        raise _invalid(
            f"utc_offset_minutes is {settings.utc_offset_minutes}; time zones run from "
            f"{MIN_OFFSET_MINUTES} to {MAX_OFFSET_MINUTES} minutes (Berlin in winter: 60)"
        )
    if settings.daily:
        parse_date(settings.daily_date)
        if settings.level is not Level.HARD:
            raise _invalid(
                f"the daily puzzle is a hard board, not {settings.level.name.lower()}: "
                "leave level unset or set it to hard"
            )
        if settings.replay:
            raise _invalid(
                "a daily puzzle is played again by its date alone: leave replay_seed unset"
            )
    elif settings.utc_offset_minutes:
        raise _invalid("utc_offset_minutes goes with daily_date only: set both or neither")
    if settings.replay:
        if len(settings.replay_seed) != SEED_BYTES:
            raise _invalid(
                f"replay_seed is the {SEED_BYTES}-byte seed a finished game revealed (its "
                f"view's seed), not {len(settings.replay_seed)} bytes"
            )
        if settings.level is Level.CLASSIC:
            raise _invalid("Classic always deals the same board: leave replay_seed unset")


def today(now_ms: int, utc_offset_minutes: int) -> str:
    """The date at ``now_ms`` (unix ms) for a player ``utc_offset_minutes`` east of UTC."""
    local = now_ms + utc_offset_minutes * _MS_PER_MINUTE
    return (dt.date(1970, 1, 1) + dt.timedelta(milliseconds=local)).isoformat()
