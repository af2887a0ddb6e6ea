"""Simulated players: the bot's own brain at each strength, and the two baselines.

Every player here decides from what a client of that seat can see and nothing else: its own
``TileTurned`` events, and its own board as ``player_view`` shows it (found tiles, the tiles up
now with their faces, the pause, T0). It plays at the bot's human pace (``bot.think_ms``) and
keeps the bot's guards (the pause, never a clear under 12.5 s), so the only difference between
the kinds is what they remember.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from match_rules.deal import Strength
from match_rules.race import bot
from match_rules.race import events as ev

KINDS = ("random", "weak", "medium", "strong", "perfect")  # weakest first


@dataclass(frozen=True, slots=True)
class OwnBoard:
    """A player's own board, as its view shows it."""

    found: frozenset[int]
    showing: tuple[int, ...]
    faces: Mapping[int, int]  # the faces of its tiles that are up now
    paused_until: int
    starts_at: int  # T0


def profile_of(kind: str) -> bot.Profile | None:
    """The memory of a kind of player; None for the random player (no memory at all)."""
    if kind == "random":
        return None
    if kind == "perfect":
        return bot.PERFECT
    return bot.PROFILES[Strength(kind)]


class SimPlayer:
    """One seat of a simulated game, of kind ``random``, ``weak``, ``medium``, ``strong`` or
    ``perfect``. ``seed`` makes it reproducible; ``pace`` is BOT_PACE."""

    def __init__(self, kind: str, seed: str, pace: float = 1.0) -> None:
        if kind not in KINDS:
            raise ValueError(f"no such player kind {kind!r}; one of {', '.join(KINDS)}")
        self.kind = kind
        self.pace = pace
        self.profile = profile_of(kind)
        self.memory = bot.Memory(
            profile=self.profile or bot.PERFECT, rng=random.Random(f"{seed}/memory")
        )
        self.rng = random.Random(f"{seed}/play")

    def start_board(self, board: int) -> None:
        self.memory.start(board)

    def saw(self, event: ev.TileTurned) -> None:
        """One of its own turns showed it a face."""
        self.memory.see(event.board, event.tile, event.symbol, event.turn)

    def ready_delay_ms(self) -> int:
        return bot.ready_delay_ms(self.rng, self.pace)

    def plan(self, now: int, own: OwnBoard) -> tuple[int, int] | None:
        """(when, tile) of its next turn, deciding at ``now``; None when nothing can be turned."""
        if self.profile is None:
            move = bot.random_move(own.found, own.showing, self.rng)
        else:
            known = bot.known_faces(self.memory.recall(), own.faces)
            move = bot.next_move(known, own.found, own.showing, self.rng, self.profile.slip)
        if move is None:
            return None
        think = bot.think_ms(self.rng, self.pace, bot.think_kind(own.showing, move))
        at = bot.earliest_turn_ms(
            now_ms=now,
            think=think,
            starts_at_ms=own.starts_at,
            paused_until_ms=own.paused_until,
            clearing=bot.may_clear(own.found),
        )
        return at, move.tile
