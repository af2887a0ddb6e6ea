"""The deal of MATCH 5, version ``match-five-deal-v1`` (docs/dealing.md, vectors in
docs/vectors/match-five-deal-v1.json): which die of each colour the table takes, and how the
five dice land in each round.

Every label has its own stream of :class:`match_rules.deal.DealStream`, keyed by the 32-byte
seed with this version's prefix, and draws with :func:`match_rules.deal.uniform`, colour by
colour in ``content.COLOURS`` order (red, yellow, green, blue, purple):

* ``dice``: the die of each colour, ``1 + uniform(stream, 2)``;
* ``round/1``, ``round/2``: the face each die shows, ``1 + uniform(stream, 6)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.deal import SEED_BYTES, DealStream, uniform
from match_rules.match_five.content import COLOURS, DICE, FACES, category
from match_rules.match_five.settings import ROUNDS

DEAL_VERSION = "match-five-deal-v1"


@dataclass(frozen=True, slots=True)
class Deal:
    """``dice[i]``: the die (1 or 2) of ``COLOURS[i]``; ``faces[r - 1][i]``: its face (1..6)
    in round ``r``."""

    dice: tuple[int, ...]
    faces: tuple[tuple[int, ...], ...]

    def categories(self, round_: int) -> tuple[str, ...]:
        """Each colour's category in round ``round_`` (side A of the tiles in round 1, B in
        round 2)."""
        return categories(self.dice, round_, self.faces[round_ - 1])


def categories(dice: tuple[int, ...], round_: int, faces: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(
        category(colour, die, round_ - 1, face)
        for colour, die, face in zip(COLOURS, dice, faces, strict=True)
    )


def _roll(seed: bytes, label: str, sides: int) -> tuple[int, ...]:
    stream = DealStream(seed, label, DEAL_VERSION)
    return tuple(1 + uniform(stream, sides) for _ in COLOURS)


def deal(seed: bytes) -> Deal:
    """Deal a game from the dealer's 32-byte ``seed``."""
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed must be exactly {SEED_BYTES} bytes, got {len(seed)}")
    return Deal(
        _roll(seed, "dice", DICE),
        tuple(_roll(seed, f"round/{r}", FACES) for r in range(1, ROUNDS + 1)),
    )


def check(deal: Deal) -> None:
    """Raise ValueError unless ``deal`` is one a seed can give."""
    if len(deal.dice) != len(COLOURS) or any(not 1 <= d <= DICE for d in deal.dice):
        raise ValueError(f"a deal has one die (1 or 2) of each of the {len(COLOURS)} colours")
    if len(deal.faces) != ROUNDS or any(
        len(f) != len(COLOURS) or any(not 1 <= n <= FACES for n in f) for f in deal.faces
    ):
        raise ValueError(f"a deal has a face (1..6) of each die in each of the {ROUNDS} rounds")
