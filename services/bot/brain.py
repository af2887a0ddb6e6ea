"""The bot's strategy, as pure functions: what to turn next and when.

The bot knows only what its own turns showed it: ``memory`` maps a tile to the symbol the bot saw
on it this board (from its own ``TileTurned`` events), ``found`` holds the tiles of the pairs it
has found, ``turned`` the tiles it has up but not found (one tile of an attempt, or the two of a
miss until its next turn). It never sees the deal.

A plain memory bot: it remembers every face it saw on the board. If it knows a pair it has not
found, it turns both; else it turns a tile it has not seen and, if that tile's partner is known,
turns the partner; else another unseen one. It plays at a human pace: it thinks before every turn,
waits out the pause after a miss, and never finishes a board before T0 + 12.5 s (a clear under
12 s is disqualified, and it would not be human). Strengths (forgetting) come later.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from match.v1 import common_pb2, lobby_pb2

TILES = 20
THINK_MIN_MS = 600
THINK_MAX_MS = 1_500
READY_MIN_MS = 500
READY_MAX_MS = 2_000
CLEAR_NOT_BEFORE_MS = 12_500  # from T0; the rules disqualify a clear under 12 000
PAUSE_SLACK_MS = 50  # after paused_until, so a turn never lands inside the pause

ALL_TILES = tuple(range(1, TILES + 1))


@dataclass(slots=True)
class Memory:
    """Every face the bot saw on one board: tile -> symbol."""

    board: int = 0
    seen: dict[int, int] = field(default_factory=dict)

    def see(self, board: int, tile: int, symbol: int) -> None:
        """Remember a face the bot's own turn showed it; a new board starts a fresh memory."""
        if board > self.board:
            self.board = board
            self.seen = {}
        if board == self.board and 1 <= tile <= TILES:
            self.seen[tile] = symbol

    def start(self, board: int) -> None:
        if board != self.board:
            self.board = board
            self.seen = {}


def known_pairs(memory: Mapping[int, int], found: Collection[int]) -> list[tuple[int, int]]:
    """Pairs whose two faces the bot has seen and that it has not found yet, by tile number."""
    by_symbol: dict[int, list[int]] = {}
    for tile, symbol in sorted(memory.items()):
        if tile not in found:
            by_symbol.setdefault(symbol, []).append(tile)
    return sorted((ts[0], ts[1]) for ts in by_symbol.values() if len(ts) >= 2)


def partner_of(memory: Mapping[int, int], found: Collection[int], tile: int) -> int | None:
    """The tile the bot saw with the same face as ``tile``, if any."""
    symbol = memory.get(tile)
    if symbol is None:
        return None
    for other, s in sorted(memory.items()):
        if other != tile and s == symbol and other not in found:
            return other
    return None


def choose_tiles(
    memory: Mapping[int, int],
    found: Collection[int],
    turned: Sequence[int],
    rng: random.Random,
) -> tuple[int, ...]:
    """A new attempt: both tiles of a known pair (the first one not face up now), else one tile
    not seen yet (its partner is chosen once its face is seen); () when nothing can be turned.
    ``turned`` is what is up and not found: face up, so it cannot be the first tile."""
    blocked = set(found) | set(turned)
    for a, b in known_pairs(memory, found):
        if a not in blocked:
            return (a, b)
        if b not in blocked:
            return (b, a)
    unknown = [t for t in ALL_TILES if t not in memory and t not in blocked]
    if unknown:
        return (rng.choice(unknown),)
    rest = [t for t in ALL_TILES if t not in blocked]
    return (rng.choice(rest),) if rest else ()


def choose_second(
    memory: Mapping[int, int], found: Collection[int], first: int, rng: random.Random
) -> int | None:
    """The second tile of an attempt whose first tile is ``first``: its partner when the bot
    has seen it, else a tile not seen yet, else any tile that is down."""
    partner = partner_of(memory, found, first)
    if partner is not None:
        return partner
    unknown = [t for t in ALL_TILES if t not in memory and t not in found and t != first]
    if unknown:
        return rng.choice(unknown)
    rest = [t for t in ALL_TILES if t not in found and t != first]
    return rng.choice(rest) if rest else None


def next_tile(
    memory: Mapping[int, int],
    found: Collection[int],
    turned: Sequence[int],
    rng: random.Random,
) -> int | None:
    """The one tile to turn now (None: nothing is left to turn)."""
    if len(turned) == 1:
        return choose_second(memory, found, turned[0], rng)
    plan = choose_tiles(memory, found, turned, rng)
    return plan[0] if plan else None


def may_clear(found: Collection[int]) -> bool:
    """Whether the next turn may finish the board: only the last pair is left (a turn of any of
    its two tiles counts, so a reply the bot has not seen yet cannot fool it)."""
    return len(found) >= TILES - 2


def think_ms(rng: random.Random, pace: float) -> int:
    """How long the bot thinks before a turn: 600..1500 ms, scaled by BOT_PACE."""
    return round(rng.uniform(THINK_MIN_MS, THINK_MAX_MS) * pace)


def ready_delay_ms(rng: random.Random, pace: float) -> int:
    """How long the bot takes to press Ready once it opens, scaled by BOT_PACE."""
    return round(rng.uniform(READY_MIN_MS, READY_MAX_MS) * pace)


def earliest_turn_ms(
    *,
    now_ms: int,
    think: int,
    starts_at_ms: int,
    paused_until_ms: int,
    clearing: bool,
) -> int:
    """When (server clock, ms) the next turn may be sent: after thinking, after the pause, and,
    for a turn that may finish the board, not before T0 + 12.5 s. BOT_PACE never changes the
    last two: they are the rules."""
    at = max(now_ms + think, paused_until_ms + PAUSE_SLACK_MS if paused_until_ms else 0)
    if clearing:
        at = max(at, starts_at_ms + CLEAR_NOT_BEFORE_MS)
    return at


def should_fill(table: lobby_pb2.Table, now_ms: int) -> bool:
    """An open table still waiting, with a free seat, whose fill time has come."""
    return (
        table.status == lobby_pb2.Table.STATUS_WAITING
        and table.visibility == common_pb2.VISIBILITY_OPEN
        and len(table.taken) < table.seats
        and 0 < table.fill_at_ms <= now_ms
    )


def bot_names(table: lobby_pb2.Table) -> list[str]:
    """The names for the free seats: "Bot 1".."Bot 3", after the bots already seated."""
    seated = sum(1 for s in table.taken if s.is_bot)
    free = max(table.seats - len(table.taken), 0)
    return [f"Bot {seated + i}" for i in range(1, free + 1)]
