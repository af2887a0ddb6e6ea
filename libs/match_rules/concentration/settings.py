"""The settings of a Concentration table, the decks they make, and what pairs with what.

A card's face is a short string: an emoji deck's picture by name (``"apple"``), a playing card
by rank and suit (``"AS"``, ``"TD"`` for the ten of diamonds, ``"KC"``), a joker ``"JK"``.

- emoji (52, 36 or 24 cards; identical only; no jokers): 26, 18 or 12 pictures of the palette
  of 48, two copies each;
- playing cards, 52 (A-K), 36 (A-9) or 24 (A-6), matching identical cards: half the faces of the
  rank range, two copies each;
- playing cards matching by rank and colour, or by rank: one copy of every card of the range;
- playing cards with jokers: two more cards.

The two jokers pair with each other in every mode and with nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from match_rules.concentration.errors import ConcentrationCode
from match_rules.errors import Code, RuleError

MIN_PLAYERS = 1
MAX_PLAYERS = 6
DECK_SIZES = (52, 36, 24)
TURN_LIMITS_MS = (0, 30_000, 60_000)  # 0: none (the seed's default)

# The emoji palette: 48 pictures, by name (the face) and the emoji a client may show.
PALETTE: tuple[tuple[str, str], ...] = (
    ("apple", "🍎"), ("banana", "🍌"), ("cherries", "🍒"), ("grapes", "🍇"),
    ("lemon", "🍋"), ("pear", "🍐"), ("peach", "🍑"), ("strawberry", "🍓"),
    ("watermelon", "🍉"), ("pineapple", "🍍"), ("carrot", "🥕"), ("corn", "🌽"),
    ("mushroom", "🍄"), ("cheese", "🧀"), ("bread", "🍞"), ("pizza", "🍕"),
    ("cake", "🍰"), ("cookie", "🍪"), ("dog", "🐶"), ("cat", "🐱"),
    ("mouse", "🐭"), ("rabbit", "🐰"), ("fox", "🦊"), ("bear", "🐻"),
    ("panda", "🐼"), ("koala", "🐨"), ("tiger", "🐯"), ("lion", "🦁"),
    ("cow", "🐮"), ("pig", "🐷"), ("frog", "🐸"), ("monkey", "🐵"),
    ("chicken", "🐔"), ("penguin", "🐧"), ("owl", "🦉"), ("butterfly", "🦋"),
    ("snail", "🐌"), ("turtle", "🐢"), ("octopus", "🐙"), ("fish", "🐟"),
    ("sun", "🌞"), ("moon", "🌙"), ("star", "⭐"), ("rainbow", "🌈"),
    ("flower", "🌸"), ("tree", "🌳"), ("rocket", "🚀"), ("balloon", "🎈"),
)  # fmt: skip
RANKS = "A23456789TJQK"  # ace low; T is the ten
SUITS = "SHDC"  # spades, hearts, diamonds, clubs
BLACK = frozenset("SC")
JOKER = "JK"
RANKS_BY_SIZE = {52: RANKS, 36: RANKS[:9], 24: RANKS[:6]}


class Pictures(Enum):
    EMOJI = "emoji"
    PLAYING_CARDS = "playing_cards"


class Matching(Enum):
    IDENTICAL = "identical"  # the same face: two copies of each
    RANK_AND_COLOUR = "rank_and_colour"  # same rank, both black or both red
    RANK = "rank"  # same rank


@dataclass(frozen=True, slots=True)
class Settings:
    """What the host chose. ``cards`` is the deck's size before jokers; ``turn_limit_ms`` is the
    time to flip the second card (0: none)."""

    pictures: Pictures = Pictures.EMOJI
    cards: int = 52
    jokers: bool = False
    matching: Matching = Matching.IDENTICAL
    turn_limit_ms: int = 0

    @property
    def deck_size(self) -> int:
        """Cards on the table: ``cards``, plus two with jokers."""
        return self.cards + (2 if self.jokers else 0)

    @property
    def pairs(self) -> int:
        return self.deck_size // 2


def check(settings: Settings) -> Settings:
    """``settings`` if they make a game, else a RuleError with the setting's own code, saying
    what to change."""
    if settings.cards not in DECK_SIZES:
        raise RuleError(
            Code.INVALID_DECK_SIZE,
            f"a deck has 52, 36 or 24 cards, got {settings.cards}",
        )
    if settings.pictures is Pictures.EMOJI:
        if settings.jokers:
            raise RuleError(
                ConcentrationCode.INVALID_JOKERS,
                "the emoji deck has no jokers: choose playing cards for them",
            )
        if settings.matching is not Matching.IDENTICAL:
            raise RuleError(
                ConcentrationCode.INVALID_MATCHING,
                "emoji pair only with the identical picture: matching by rank needs playing cards",
            )
    if settings.turn_limit_ms not in TURN_LIMITS_MS:
        raise RuleError(
            ConcentrationCode.INVALID_TURN_LIMIT,
            f"the time to flip the second card is none, 30 s or 60 s, "
            f"got {settings.turn_limit_ms} ms",
        )
    return settings


def faces_in_range(settings: Settings) -> tuple[str, ...]:
    """Every face the deck may draw from, in a fixed order: the palette for emoji; for playing
    cards every card of the rank range, rank by rank (A first), suits in the order S H D C."""
    if settings.pictures is Pictures.EMOJI:
        return tuple(name for name, _ in PALETTE)
    return tuple(rank + suit for rank in RANKS_BY_SIZE[settings.cards] for suit in SUITS)


def copies(settings: Settings) -> int:
    """How many copies of each chosen face: two when matching identical faces, else one."""
    return 2 if settings.matching is Matching.IDENTICAL else 1


def chosen_count(settings: Settings) -> int:
    """How many faces the deck draws from :func:`faces_in_range` (before jokers)."""
    return settings.cards // copies(settings)


def pair(a: str, b: str, matching: Matching) -> bool:
    """Whether faces ``a`` and ``b`` (two different cards) pair under ``matching``."""
    if JOKER in (a, b):
        return a == b
    if matching is Matching.IDENTICAL:
        return a == b
    same_rank = a[0] == b[0]
    if matching is Matching.RANK:
        return same_rank
    return same_rank and ((a[1] in BLACK) == (b[1] in BLACK))
