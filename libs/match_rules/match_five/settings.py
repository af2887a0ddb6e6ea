"""The settings of a MATCH 5 table, validated once, with messages a person can act on.

The seed's sand timer runs 3 minutes; the vote on one combination's links has its own timer
(the seed has none: a table must not wait for ever on a player who left). Both can be set,
within bounds that keep a game playable.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.errors import Code, RuleError

MIN_PLAYERS = 2  # the game needs a vote
MAX_PLAYERS = 8  # a big party
ROUNDS = 2
LINK_MAX_CHARS = 60
WRITING_SECONDS = (30, 600)  # bounds of the writing timer
VOTE_SECONDS = (10, 300)  # bounds of one combination's vote


@dataclass(frozen=True, slots=True)
class Settings:
    writing_seconds: int = 180  # the sand timer: 3 minutes
    vote_seconds: int = 45  # the reading and vote of one combination


def check(settings: Settings) -> None:
    low, high = WRITING_SECONDS
    if not low <= settings.writing_seconds <= high:
        raise RuleError(
            Code.INVALID_SETUP,
            f"writing_seconds is {settings.writing_seconds}; the timer runs {low} to {high} s "
            "(the sand timer: 180)",
        )
    low, high = VOTE_SECONDS
    if not low <= settings.vote_seconds <= high:
        raise RuleError(
            Code.INVALID_SETUP,
            f"vote_seconds is {settings.vote_seconds}; a combination's vote runs {low} to "
            f"{high} s (default 45)",
        )
