"""Match Cards' bot, as pure functions: what it remembers, which card it turns next, how long it
thinks. The limits table (:mod:`match_rules.match_cards.limits`) is measured with exactly this
policy and memory, and the bot service plays a bot seat with it
(:mod:`match_rules.match_cards.botseat`).

**Memory** (docs/rules-match-cards.md, "The bot"). Each sighting of a card the bot does not
remember is kept with the strength's probability (:data:`KEEP`: weak 35 %, medium 70 %, strong
95 %, the Concentration CPU's), drawn once when the card is seen; a card it forgot is drawn again
when it is seen again. Found cards leave memory. ``keep`` 1 is the perfect memory of the limits'
baseline player.

**Choice.** A whole group it remembers, first; else a card it does not remember (at random),
then the cards it remembers of that card's picture, then cards it does not remember; a card it
remembers but that does not help is turned only when nothing else is left. It never turns a
found card or one already up.

Every random choice comes from a ``random.Random`` the caller passes in: the bot service seeds
one per seat and game from public ids (:func:`seat_rng`), the limits table one per deal.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from enum import Enum

from match_rules.deal import Strength

KEEP: Mapping[Strength, float] = {
    Strength.WEAK: 0.35,
    Strength.MEDIUM: 0.70,
    Strength.STRONG: 0.95,
}
DEFAULT_STRENGTH = Strength.MEDIUM  # no BotsAssigned names one: the deal draws no strength


def seat_rng(table_id: str, player_id: str, purpose: str) -> random.Random:
    """The random source of one seat in one game, for one purpose ("play", "memory", "think").

    Seeded from public ids only: the bot's picks among cards it does not remember are blind,
    and a game can be replayed for debugging."""
    return random.Random(f"match-cards-bot/{table_id}/{player_id}/{purpose}")


# --- memory --------------------------------------------------------------------------------


def remember(
    memory: MutableMapping[int, str], card: int, picture: str, keep: float, rng: random.Random
) -> None:
    """``card`` was seen showing ``picture``: a card not remembered is kept with probability
    ``keep`` (one draw from ``rng``; none when ``keep`` is 1 or the card is remembered)."""
    if card not in memory and (keep >= 1 or rng.random() < keep):
        memory[card] = picture


def forget_found(memory: MutableMapping[int, str], cards: Collection[int]) -> None:
    """Found cards leave memory: there is nothing more to find there."""
    for card in cards:
        memory.pop(card, None)


# --- which card ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Choice:
    """The card to turn, and whether the bot goes for it because it remembers its picture."""

    card: int
    known: bool


def complete_groups(memory: Mapping[int, str], group: int) -> list[list[int]]:
    """Every picture the bot remembers on all ``group`` of its cards, as those cards (each list
    in the order they were remembered), the lists in order."""
    by_picture: dict[str, list[int]] = {}
    for card, picture in memory.items():
        by_picture.setdefault(picture, []).append(card)
    return sorted(cards for cards in by_picture.values() if len(cards) == group)


def next_card(
    memory: Mapping[int, str],
    hidden: Collection[int],
    turned: Sequence[int],
    up_picture: str | None,
    group: int,
    rng: random.Random,
) -> Choice | None:
    """The card to turn now. ``memory``: card -> picture for the cards the bot remembers (none
    found); ``hidden``: every card not found (the attempt's cards among them); ``turned``: the
    attempt's cards up so far, ``up_picture`` the first one's picture. None: nothing to turn."""
    if not turned:
        complete = complete_groups(memory, group)
        if complete:
            return Choice(complete[0][0], known=True)
    target = up_picture if turned else None
    known = sorted(c for c, p in memory.items() if p == target and c not in turned)
    if known:
        return Choice(known[0], known=True)
    unseen = sorted(c for c in hidden if c not in memory and c not in turned)
    pool = unseen or sorted(c for c in hidden if c not in turned)
    if not pool:
        return None
    return Choice(pool[rng.randrange(len(pool))], known=False)


# --- when ----------------------------------------------------------------------------------


class Think(Enum):
    """What the bot is about to do, which sets how long it thinks first."""

    NEW = "new"  # the first card of an attempt, one it does not remember
    NEXT = "next"  # a later card of an attempt, one it does not remember
    KNOWN = "known"  # a card it remembers: it knows where to go


# Median thinking time (ms at BOT_PACE 1) of each kind; lognormal with THINK_SIGMA around it.
THINK_MEDIAN_MS: Mapping[Think, int] = {Think.NEW: 900, Think.NEXT: 800, Think.KNOWN: 600}
THINK_SIGMA = 0.35
THINK_MIN_MS = 300
THINK_MAX_MS = 4_000


def think_kind(turned: Sequence[int], choice: Choice) -> Think:
    if choice.known:
        return Think.KNOWN
    return Think.NEXT if turned else Think.NEW


def think_ms(rng: random.Random, pace: float, kind: Think) -> int:
    """How long the bot thinks before a card: lognormal around the kind's median, kept within
    THINK_MIN_MS..THINK_MAX_MS, then scaled by BOT_PACE."""
    ms = THINK_MEDIAN_MS[kind] * math.exp(THINK_SIGMA * rng.gauss(0.0, 1.0))
    return round(min(max(ms, THINK_MIN_MS), THINK_MAX_MS) * pace)
