"""The dice and the word tiles of MATCH 5: what the table rolls and reads (docs/rules-match-5.md).

Five colours, two dice and two word tiles of each. A die's six faces show the symbols 1..6
(drawn as ``SYMBOLS``); the die numbered ``k`` of a colour goes with that colour's tile ``k``,
whose side lists one category per symbol. A game takes one die of each colour (and its tile);
round 1 reads side A of the tiles, round 2 side B (the tiles are flipped), each round after a
new roll. So a category is ``TILES[colour][k][side][face - 1]``. The 10 combinations are the
pairs of the five colours, numbered 1..10 in :data:`COMBINATIONS` order.
"""

from __future__ import annotations

from itertools import combinations

COLOURS = ("red", "yellow", "green", "blue", "purple")
SYMBOLS = ("circle", "triangle", "square", "star", "heart", "diamond")  # faces 1..6
SIDES = ("A", "B")
DICE = 2  # dice (and word tiles) of each colour
FACES = len(SYMBOLS)

# TILES[colour][die k - 1][side] = the six categories, one per face symbol.
TILES: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    "red": (
        (
            ("Job", "Famous person", "Family member", "Sport", "Tales and legends", "Body part"),
            ("Actor or actress", "Superhero", "Royalty", "Musician", "Athlete", "Villain"),
        ),
        (
            ("Something a doctor uses", "Uniform", "Team", "Nickname", "Emotion", "Habit"),
            ("Dance", "Game", "Toy", "Card game", "Board game", "Martial art"),
        ),
    ),
    "yellow": (
        (
            ("Carnivore", "Bird", "Insect", "Pet", "Farm animal", "Sea creature"),
            (
                "Something with wings",
                "Something with a tail",
                "Reptile",
                "Fish",
                "Dinosaur",
                "Mythical creature",
            ),
        ),
        (
            (
                "Something at the beach",
                "Lives in the jungle",
                "Lives on a farm",
                "Nocturnal animal",
                "Something that bites",
                "Something small",
            ),
            (
                "Something fast",
                "Something slow",
                "Something loud",
                "Something soft",
                "Something striped",
                "Something spotted",
            ),
        ),
    ),
    "green": (
        (
            ("Fruit", "Vegetable", "Dessert", "Drink", "Breakfast", "Spice"),
            (
                "Flower",
                "Tree",
                "Weather",
                "Something green",
                "Something in a garden",
                "Something that grows",
            ),
        ),
        (
            (
                "Something sweet",
                "Something sour",
                "Fast food",
                "Cheese",
                "Something you bake",
                "Snack",
            ),
            ("Season", "Mountain", "River", "Planet", "Something in the sky", "Natural disaster"),
        ),
    ),
    "blue": (
        (
            ("City", "Country", "Building", "Room", "Shop", "Something in a kitchen"),
            ("Vehicle", "Tool", "Clothing", "Furniture", "Machine", "Something made of metal"),
        ),
        (
            (
                "Holiday destination",
                "Lives in water",
                "Something at school",
                "Something in an office",
                "Something in a hospital",
                "Something at a party",
            ),
            (
                "Something round",
                "Something heavy",
                "Something sharp",
                "Something blue",
                "Something with buttons",
                "Something you wear on your head",
            ),
        ),
    ),
    "purple": (
        (
            ("Book", "Film", "Song", "TV show", "Hobby", "Musical instrument"),
            (
                "Painter",
                "Writer",
                "Cartoon character",
                "Video game",
                "Word in a song title",
                "Magic",
            ),
        ),
        (
            ("Language", "Festival", "Religion or belief", "Colour", "Number", "Letter"),
            (
                "Brand",
                "Invention",
                "Something old",
                "Something new",
                "Something expensive",
                "Something free",
            ),
        ),
    ),
}

# The seed's examples can be rolled: Carnivore (yellow 1) and Lives in water (blue 2), Book
# (purple 1) and Tales and legends (red 1), Fruit (green 1) and Body part (red 1): each pair on
# dice of two colours, on the same side (A, round 1).

# The 10 combinations: every pair of the five colours, numbered 1..10 in this order.
COMBINATIONS: tuple[tuple[str, str], ...] = tuple(combinations(COLOURS, 2))


def category(colour: str, die: int, side: int, face: int) -> str:
    """The category that ``die`` (1 or 2) of ``colour`` shows with ``face`` (1..6) up, on the
    tile's ``side`` (0: A, round 1; 1: B, round 2)."""
    return TILES[colour][die - 1][side][face - 1]


def combination_name(number: int) -> str:
    """``"red and yellow"`` for combination 1."""
    first, second = COMBINATIONS[number - 1]
    return f"{first} and {second}"
