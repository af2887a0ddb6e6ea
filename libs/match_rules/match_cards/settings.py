"""The settings of a Match Cards game: pairs or triples, the board's size, the difficulty, the
picture set; the limit of failed attempts each combination gets (:data:`LIMITS`), and the
named picture sets (every picture an id and a name a screen reader can say).

Sizes: pairs 12, 20, 30 or 60 cards (the seed); triples 12, 18, 30 or 60 (each picture three
times, so a size divisible by 3; 18 stands where pairs have 20). The board is laid out in rows
of :func:`columns` cards, card 1 top left, row by row.

A ``code`` (a game code typed in, :mod:`match_rules.match_cards.code`) replaces the other
settings with its own: the game is a replay of that code's deal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from match_rules.errors import Code, RuleError

MIN_PLAYERS = 1  # a solo game
MAX_PLAYERS = 4  # a challenge table: each player on their own copy of the same deal


class Mode(Enum):
    PAIRS = "pairs"
    TRIPLES = "triples"


class Difficulty(Enum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


SIZES: dict[Mode, tuple[int, ...]] = {
    Mode.PAIRS: (12, 20, 30, 60),
    Mode.TRIPLES: (12, 18, 30, 60),
}
_COLUMNS = {12: 4, 18: 6, 20: 5, 30: 6, 60: 10}

# The limit of failed attempts: (mode, cards) -> (Easy, Medium, Hard). Derived by
# ``python -m match_rules.match_cards.limits`` (docs/rules-match-cards.md, "The limits table").
LIMITS: dict[tuple[Mode, int], tuple[int, int, int]] = {
    (Mode.PAIRS, 12): (20, 16, 11),
    (Mode.PAIRS, 20): (36, 28, 19),
    (Mode.PAIRS, 30): (54, 41, 28),
    (Mode.PAIRS, 60): (108, 82, 55),
    (Mode.TRIPLES, 12): (22, 17, 12),
    (Mode.TRIPLES, 18): (32, 25, 17),
    (Mode.TRIPLES, 30): (56, 43, 29),
    (Mode.TRIPLES, 60): (112, 85, 57),
}


def group_size(mode: Mode) -> int:
    """Cards per picture, and cards an attempt turns: 2 for pairs, 3 for triples."""
    return 2 if mode is Mode.PAIRS else 3


def columns(cards: int) -> int:
    """Cards per row on a board of ``cards``."""
    return _COLUMNS[cards]


@dataclass(frozen=True, slots=True)
class Picture:
    """One picture: ``id`` on the wire (``"cat-grey"``), ``name`` for people and screen readers
    (``"cat, grey"``); ``subject`` is what look-alikes share (``"cat"``)."""

    id: str
    name: str
    subject: str


@dataclass(frozen=True, slots=True)
class PictureSet:
    """A named set: ``plain`` pictures of distinct subjects, and ``lookalikes``, subjects drawn
    in two versions each that only Hard deals (two groups of one subject that do not match)."""

    name: str
    plain: tuple[Picture, ...]
    lookalikes: tuple[tuple[Picture, Picture], ...]


# _plain and _alike run once, as the module is imported: before mutmut's runner makes any of its
# mutants active, so none could ever be seen (docs/testing.md); the tables they build are
# checked by tests/rules/match_cards (ids, names, the Hard look-alikes).
def _plain(*names: str) -> tuple[Picture, ...]:  # pragma: no mutate block
    return tuple(Picture(n.replace(" ", "-"), n, n) for n in names)


def _alike(
    *subjects: tuple[str, str, str],
) -> tuple[tuple[Picture, Picture], ...]:  # pragma: no mutate block
    return tuple(
        (Picture(f"{s}-{a}", f"{s}, {a}", s), Picture(f"{s}-{b}", f"{s}, {b}", s))
        for s, a, b in subjects
    )


ANIMALS = PictureSet(
    "animals",
    _plain(
        "giraffe", "donkey", "ant", "bear", "bee", "camel", "cow", "crab", "deer", "dolphin",
        "duck", "eagle", "elephant", "fox", "frog", "goat", "hedgehog", "horse", "kangaroo",
        "koala", "lion", "monkey", "mouse", "octopus", "panda", "penguin", "pig", "rabbit",
        "sheep", "snail", "tiger", "turtle", "whale", "zebra",
    ),
    _alike(
        ("cat", "grey", "ginger"), ("dog", "spotted", "brown"), ("owl", "brown", "snowy"),
        ("fish", "striped", "spotted"), ("parrot", "red", "green"),
        ("butterfly", "blue", "orange"), ("snake", "green", "striped"),
        ("chicken", "white", "brown"),
    ),
)  # fmt: skip
FRUIT = PictureSet(
    "fruit",
    _plain(
        "guava", "apricot", "avocado", "banana", "blackberry", "blueberry", "coconut",
        "cranberry", "date", "dragon fruit", "elderberry", "fig", "gooseberry", "grapefruit",
        "kiwi", "lemon", "lime", "lychee", "mango", "nectarine", "orange", "papaya",
        "passion fruit", "peach", "persimmon", "pineapple", "pomegranate", "quince",
        "raspberry", "strawberry", "watermelon",
    ),
    _alike(
        ("apple", "red", "green"), ("pear", "green", "yellow"), ("grape", "green", "red"),
        ("melon", "orange flesh", "green flesh"), ("tomato", "red", "yellow"),
        ("plum", "purple", "yellow"), ("cherry", "red", "yellow"),
    ),
)  # fmt: skip
PICTURE_SETS: tuple[PictureSet, ...] = (ANIMALS, FRUIT)  # a code's set letter is the index
_BY_NAME = {s.name: s for s in PICTURE_SETS}
PICTURES: dict[str, Picture] = {
    p.id: p for s in PICTURE_SETS for p in (*s.plain, *(v for pair in s.lookalikes for v in pair))
}


def picture_set(name: str) -> PictureSet:
    return _BY_NAME[name]


@dataclass(frozen=True, slots=True)
class Settings:
    """What the player chose (or what a typed ``code`` carries: see the module)."""

    mode: Mode = Mode.PAIRS
    cards: int = 12
    difficulty: Difficulty = Difficulty.EASY
    pictures: str = "animals"
    code: str = ""  # a game code typed in: this game replays its deal

    @property
    def group(self) -> int:
        return group_size(self.mode)

    @property
    def groups(self) -> int:
        return self.cards // self.group

    @property
    def limit(self) -> int:
        """The game's limit of failed attempts (:data:`LIMITS`)."""
        easy, medium, hard = LIMITS[(self.mode, self.cards)]
        return {Difficulty.EASY: easy, Difficulty.MEDIUM: medium, Difficulty.HARD: hard}[
            self.difficulty
        ]

    @property
    def replay(self) -> bool:
        return bool(self.code)


def check(settings: Settings) -> Settings:
    """``settings`` if they make a game, else a RuleError with the setting's own code."""
    sizes = SIZES[settings.mode]
    if settings.cards not in sizes:
        listed = ", ".join(str(n) for n in sizes)
        raise RuleError(
            Code.INVALID_DECK_SIZE,
            f"a board of {settings.mode.value} has {listed} cards, got {settings.cards}",
        )
    if settings.pictures not in _BY_NAME:
        raise RuleError(
            Code.INVALID_PICTURES,
            f"the picture sets are {', '.join(_BY_NAME)}; {settings.pictures!r} is not one",
        )
    return settings
