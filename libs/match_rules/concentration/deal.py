"""The deal of Concentration, version ``concentration-deal-v1``: the layout and the CPU's strength.

Specified, language-independently, in ``docs/dealing.md`` (test vectors in
``docs/vectors/concentration-deal-v1.json``). The same primitives as the race's deal
(HMAC-SHA256 in counter mode per label, unbiased integers by rejection sampling), with this
version's own prefix, so no two games ever read the same bytes from a seed:

* ``deck``: draw :func:`~match_rules.concentration.settings.chosen_count` faces from
  :func:`~match_rules.concentration.settings.faces_in_range` by a partial Fisher-Yates, lay
  each once or twice (:func:`~match_rules.concentration.settings.copies`) in the order drawn,
  then the two jokers when they are on;
* ``layout``: shuffle those cards with a full Fisher-Yates (from the last position down); card
  ``n`` (1-based) is the face at position ``n - 1``;
* ``cpu-strength``: ``uniform(3)`` indexes (weak, medium, strong);
* ``cpu``: the first :data:`CPU_SEED_BYTES` bytes of the stream are the CPU players' own seed
  (:mod:`match_rules.concentration.cpu` draws every choice from it, so an audit re-runs them).
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.concentration.settings import (
    JOKER,
    Settings,
    check,
    chosen_count,
    copies,
    faces_in_range,
)
from match_rules.deal import DealStream, Strength, uniform

DEAL_VERSION = "concentration-deal-v1"
CPU_SEED_BYTES = 32


@dataclass(frozen=True, slots=True)
class Deal:
    """``cards[n - 1]`` is the face of card ``n``."""

    version: str
    cards: tuple[str, ...]
    cpu_strength: Strength
    cpu_seed: bytes  # the CPU players' random source (stream label ``cpu``)


def deck(seed: bytes, settings: Settings) -> tuple[str, ...]:
    """The cards of the deck, before the shuffle (stream label ``deck``)."""
    stream = DealStream(seed, "deck", DEAL_VERSION)
    faces = list(faces_in_range(settings))
    for i in range(chosen_count(settings)):
        j = i + uniform(stream, len(faces) - i)
        faces[i], faces[j] = faces[j], faces[i]
    cards = [face for face in faces[: chosen_count(settings)] for _ in range(copies(settings))]
    if settings.jokers:
        cards += [JOKER, JOKER]
    return tuple(cards)


def layout(seed: bytes, cards: tuple[str, ...]) -> tuple[str, ...]:
    """``cards`` shuffled into their places (stream label ``layout``)."""
    stream = DealStream(seed, "layout", DEAL_VERSION)
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        j = uniform(stream, i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def deal(seed: bytes, settings: Settings) -> Deal:
    """Deal a game of Concentration with ``settings`` from a 32-byte seed."""
    check(settings)
    strengths = tuple(Strength)
    strength = strengths[uniform(DealStream(seed, "cpu-strength", DEAL_VERSION), 3)]
    cpu_seed = DealStream(seed, "cpu", DEAL_VERSION).read(CPU_SEED_BYTES)
    return Deal(DEAL_VERSION, layout(seed, deck(seed, settings)), strength, cpu_seed)
