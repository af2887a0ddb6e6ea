"""The race's bot, as pure functions: what it remembers, what to turn next and when.

Pure and deterministic: no clock, no I/O; every random choice comes from a ``random.Random`` the
caller passes in (the bot service, services/bot, seeds one per seat and game, see
:func:`seat_rng`). The simulator (``libs/match_botsim``) runs exactly this code against the rules.

**What the bot knows.** Only what its own turns showed it: the faces of its own ``TileTurned``
events, and the faces of its tiles that are up now (found pairs, the tile or two of the current
attempt). It never sees the deal.

**Forgetting** (docs/bot.md). Each face the bot sees is kept for a lifetime counted in the bot's
own later turns, drawn when it is seen from an exponential law with the strength's half-life: a
face seen ``k`` turns ago is still remembered with probability ``2 ** (-k / half_life)``. Seeing
the tile again draws a new lifetime. Counting in turns, not seconds, models interference (what
pushes a face out of memory is the faces seen after it) and keeps the strength independent of
the pace, so ``BOT_PACE`` and a faster test clock never make the bot stronger or weaker. On top
of that, a *slip*: when the bot reaches for a tile it remembers, it picks a neighbour of it
instead with the strength's slip probability (right face, wrong place).

**Choice.** A known pair it has not found is turned first (both tiles); else a tile it does not
remember and, if it then knows that tile's partner, the partner; else another tile it does not
remember. It never turns a tile that is up.

**Pace.** Thinking time per turn is lognormal, like a person's: about 0.9 s for a new tile, less
when it goes for a tile it remembers, more after a miss (it looks at the two faces first); scaled
by ``BOT_PACE``. It waits out the 1 s pause after a miss and never finishes a board before
T0 + 12.5 s (a clear under 12 s is disqualified, and it would not be human). ``BOT_PACE`` never
changes those two.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from match_rules.deal import Strength
from match_rules.race.settings import COLUMNS, FASTEST_HONEST_CLEAR_MS, TILES

READY_MIN_MS = 500
READY_MAX_MS = 2_000
CLEAR_NOT_BEFORE_MS = FASTEST_HONEST_CLEAR_MS + 500  # from T0; the rules disqualify a faster clear
PAUSE_SLACK_MS = 50  # after paused_until, so a turn never lands inside the pause

ALL_TILES = tuple(range(1, TILES + 1))

# --- strengths -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Profile:
    """How well one kind of player remembers.

    ``half_life_turns``: a face seen k own turns ago is remembered with probability
    2 ** (-k / half_life_turns); ``math.inf`` never forgets. ``slip``: the probability that a
    turn aimed at a remembered tile goes to a neighbouring tile instead.
    """

    name: str
    half_life_turns: float
    slip: float

    @property
    def forget_per_turn(self) -> float:
        """The chance that a face still remembered is gone one own turn later."""
        if math.isinf(self.half_life_turns):
            return 0.0
        return 1.0 - math.pow(0.5, 1.0 / self.half_life_turns)


PROFILES: Mapping[Strength, Profile] = {
    Strength.WEAK: Profile("weak", half_life_turns=3.0, slip=0.10),
    Strength.MEDIUM: Profile("medium", half_life_turns=8.0, slip=0.05),
    Strength.STRONG: Profile("strong", half_life_turns=25.0, slip=0.02),
}
PERFECT = Profile("perfect", half_life_turns=math.inf, slip=0.0)  # a baseline, never a bot
DEFAULT_STRENGTH = Strength.MEDIUM  # until the table's BotsAssigned says otherwise


def parse_strength(text: str) -> Strength | None:
    """``"weak"``, ``"medium"`` or ``"strong"`` (any case, spaces ignored); None otherwise."""
    try:
        return Strength(text.strip().lower())
    except ValueError:
        return None


def seat_rng(table_id: str, player_id: str, purpose: str = "play") -> random.Random:
    """The random source of one seat in one game (a table holds one game), for one purpose.

    Seeded from public ids only: the bot's draws say nothing about any face (its picks among
    the tiles it does not remember are blind), and a game can be replayed for debugging."""
    return random.Random(f"match-bot/{table_id}/{player_id}/{purpose}")


# --- memory --------------------------------------------------------------------------------


@dataclass(slots=True)
class Memory:
    """The faces the bot saw on one board, each kept until its drawn lifetime runs out.

    ``rng`` is used for one draw per face seen and nothing else, so what is forgotten depends
    only on the bot's own turns. ``turn`` is the bot's latest own turn on ``board``."""

    profile: Profile = PROFILES[DEFAULT_STRENGTH]
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    board: int = 0
    turn: int = 0
    faces: dict[int, tuple[int, float]] = field(default_factory=dict)  # tile -> (symbol, until)

    def start(self, board: int) -> None:
        """A new board starts a fresh memory (an older board number changes nothing)."""
        if board > self.board:
            self.board, self.turn, self.faces = board, 0, {}

    def see(self, board: int, tile: int, symbol: int, turn: int) -> None:
        """The bot's own turn ``turn`` (1..80) on ``board`` showed ``symbol`` on ``tile``.

        The same turn seen again (a reply and the Watch stream both carry it) changes nothing;
        a late event of an older board is ignored."""
        self.start(board)
        if board != self.board or turn <= self.turn or not 1 <= tile <= TILES:
            return
        self.turn = turn
        self.faces[tile] = (symbol, turn + self.lifetime())

    def lifetime(self) -> float:
        """How many further own turns a face just seen stays in memory (exponential law)."""
        if math.isinf(self.profile.half_life_turns):
            return math.inf
        return self.rng.expovariate(math.log(2) / self.profile.half_life_turns)

    def catch_up(self, board: int, turns: int) -> None:
        """After a snapshot: the bot has taken ``turns`` turns on ``board`` (faces of turns whose
        events it missed are simply not in memory)."""
        self.start(board)
        if board == self.board:
            self.turn = max(self.turn, turns)

    def recall(self) -> dict[int, int]:
        """tile -> symbol for every face still remembered after the latest own turn."""
        return {t: s for t, (s, until) in self.faces.items() if until >= self.turn}

    @property
    def seen(self) -> dict[int, int]:
        return self.recall()


def known_faces(remembered: Mapping[int, int], visible: Mapping[int, int]) -> dict[int, int]:
    """What the bot knows now: what it remembers, and the faces of its tiles that are up."""
    return {**remembered, **visible}


# --- what to turn --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Move:
    """The tile to turn, and whether the bot goes for it because it knows its face."""

    tile: int
    known: bool


def known_pairs(memory: Mapping[int, int], found: Collection[int]) -> list[tuple[int, int]]:
    """Pairs whose two faces the bot knows and that it has not found yet, by tile number."""
    by_symbol: dict[int, list[int]] = {}
    for tile, symbol in sorted(memory.items()):
        if tile not in found:
            by_symbol.setdefault(symbol, []).append(tile)
    return sorted((ts[0], ts[1]) for ts in by_symbol.values() if len(ts) >= 2)


def partner_of(memory: Mapping[int, int], found: Collection[int], tile: int) -> int | None:
    """The tile the bot knows with the same face as ``tile``, if any."""
    symbol = memory.get(tile)
    if symbol is None:
        return None
    for other, s in sorted(memory.items()):
        if other != tile and s == symbol and other not in found:
            return other
    return None


def neighbours(tile: int) -> list[int]:
    """The tiles next to ``tile`` on the 4 x 5 grid (left, right, above, below)."""
    row, col = divmod(tile - 1, COLUMNS)
    out = []
    for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < TILES // COLUMNS and 0 <= c < COLUMNS:  # pragma: no mutate: 20 / 4 is whole
            out.append(r * COLUMNS + c + 1)
    return out


def slipped(tile: int, blocked: Collection[int], rng: random.Random, slip: float) -> int:
    """``tile``, or with probability ``slip`` a neighbour of it that is down."""
    if slip <= 0 or rng.random() >= slip:
        return tile
    near = [t for t in neighbours(tile) if t not in blocked]
    return rng.choice(near) if near else tile


def choose_tiles(
    memory: Mapping[int, int],
    found: Collection[int],
    turned: Sequence[int],
    rng: random.Random,
) -> tuple[int, ...]:
    """A new attempt: both tiles of a known pair (the first one not face up now), else one tile
    not known (its partner is chosen once its face is seen); () when nothing can be turned.
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
    knows it, else a tile not known, else any tile that is down."""
    partner = partner_of(memory, found, first)
    if partner is not None:
        return partner
    unknown = [t for t in ALL_TILES if t not in memory and t not in found and t != first]
    if unknown:
        return rng.choice(unknown)
    rest = [t for t in ALL_TILES if t not in found and t != first]
    return rng.choice(rest) if rest else None


def next_move(
    memory: Mapping[int, int],
    found: Collection[int],
    turned: Sequence[int],
    rng: random.Random,
    slip: float = 0.0,
) -> Move | None:
    """The one tile to turn now (None: nothing is left to turn).

    ``memory`` is what the bot knows (:func:`known_faces`), ``found`` the tiles of its found
    pairs, ``turned`` its tiles up and not found. A turn aimed at a known tile slips to a
    neighbour with probability ``slip``; it is never a tile that is up."""
    blocked = set(found) | set(turned)
    if len(turned) == 1:
        first = turned[0]
        partner = partner_of(memory, found, first)
        if partner is not None:
            return Move(slipped(partner, blocked, rng, slip), known=True)
        tile = choose_second(memory, found, first, rng)
        return Move(tile, known=False) if tile is not None else None
    plan = choose_tiles(memory, found, turned, rng)
    if not plan:
        return None
    if len(plan) == 2:  # a known pair: the first tile is remembered, not seen
        return Move(slipped(plan[0], blocked, rng, slip), known=True)
    return Move(plan[0], known=False)


def next_tile(
    memory: Mapping[int, int],
    found: Collection[int],
    turned: Sequence[int],
    rng: random.Random,
    slip: float = 0.0,
) -> int | None:
    """The tile of :func:`next_move` (None: nothing is left to turn)."""
    move = next_move(memory, found, turned, rng, slip)
    return move.tile if move is not None else None


def random_move(found: Collection[int], turned: Sequence[int], rng: random.Random) -> Move | None:
    """Any tile that is down, at random: the bench's baseline of a player with no memory."""
    down = [t for t in ALL_TILES if t not in found and t not in turned]
    return Move(rng.choice(down), known=False) if down else None


def may_clear(found: Collection[int]) -> bool:
    """Whether the next turn may finish the board: only the last pair is left (a turn of any of
    its two tiles counts, so a reply the bot has not seen yet cannot fool it)."""
    return len(found) >= TILES - 2


# --- when to turn --------------------------------------------------------------------------


class Think(Enum):
    """What the bot is about to do, which sets how long it thinks first."""

    NEW = "new"  # the first tile of an attempt, one it does not know
    SECOND = "second"  # a second tile it does not know
    KNOWN = "known"  # a tile whose face it remembers: it knows where to go
    AFTER_MISS = "after_miss"  # the first turn after a miss: it looks at the two faces first


# Median thinking time (ms at BOT_PACE 1) of each kind; lognormal with THINK_SIGMA around it.
THINK_MEDIAN_MS: Mapping[Think, int] = {
    Think.NEW: 900,
    Think.SECOND: 800,
    Think.KNOWN: 600,
    Think.AFTER_MISS: 1_300,
}
THINK_SIGMA = 0.35  # a person's spread: the middle half of the times within x0.8..x1.27
THINK_MIN_MS = 300
THINK_MAX_MS = 4_000


def think_kind(turned: Sequence[int], move: Move) -> Think:
    if len(turned) == 2:
        return Think.AFTER_MISS
    if move.known:
        return Think.KNOWN
    return Think.SECOND if turned else Think.NEW


def think_ms(rng: random.Random, pace: float, kind: Think = Think.NEW) -> int:
    """How long the bot thinks before a turn: lognormal around the kind's median, kept within
    THINK_MIN_MS..THINK_MAX_MS, then scaled by BOT_PACE."""
    ms = THINK_MEDIAN_MS[kind] * math.exp(THINK_SIGMA * rng.gauss(0.0, 1.0))
    return round(min(max(ms, THINK_MIN_MS), THINK_MAX_MS) * pace)


def ready_delay_ms(rng: random.Random, pace: float, left_ms: int | None = None) -> int:
    """How long the bot takes to press Ready once it opens, scaled by BOT_PACE; never more than
    half of ``left_ms``, the wall-clock time left before Ready closes (when known), so a slow
    draw or a short window never puts a bot out of the game."""
    ms = round(rng.uniform(READY_MIN_MS, READY_MAX_MS) * pace)
    if left_ms is None:
        return ms
    return max(0, min(ms, left_ms // 2))


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
