"""The CPU player: pure, seeded, and seeing only what every seat sees (the public events).

It plays at the game's strength (``cpu_strength``, drawn from the seed, like the race's bot) and
forgets at that strength's rate. Its memory (:data:`Memory`, one per CPU seat, kept in the
state) records every face it saw flipped since it took its seat, with the number of the game
event that showed it; what it still *recalls* of a sighting is drawn once and for all from the
deal's ``cpu_seed``: it keeps a sighting with probability :data:`KEEP_PER_MILLE` (weak 35 %,
medium 70 %, strong 95 %). With a pair it recalls among the face-down cards, it takes it; for a
second card, the recalled partner of the first; otherwise a card it does not recall, chosen at
random from ``cpu_seed`` and the number of game events so far. So an audit that re-deals the
seed re-runs every CPU move exactly.

Every random draw is a stream of :class:`match_rules.deal.DealStream` keyed by ``cpu_seed``,
with the version :data:`CPU_VERSION` and a label:

- ``keep/<seat>/<n>``: ``uniform(1000) < KEEP_PER_MILLE[strength]`` decides whether the CPU of
  seat ``<seat>`` (1-based) keeps the sighting of game event ``<n>``;
- ``flip/<n>``: ``uniform(len(candidates))`` picks a card among ``candidates`` (ascending)
  when the CPU flips with ``<n>`` game events folded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from match_rules.concentration import events as ev
from match_rules.concentration.settings import Matching, pair
from match_rules.deal import DealStream, Strength, uniform

CPU_VERSION = "concentration-cpu-v1"
KEEP_PER_MILLE = {Strength.WEAK: 350, Strength.MEDIUM: 700, Strength.STRONG: 950}

Memory = Mapping[int, tuple[str, int]]  # card -> (the face seen, the game event that showed it)
NOTHING: Memory = MappingProxyType({})


def remember(memory: Memory, event: ev.Event, seq: int) -> Memory:
    """The memory after the CPU saw ``event``, game event number ``seq``: a flip is recorded,
    a pair taken is gone from the table and from memory."""
    if isinstance(event, ev.CardFlipped):
        return MappingProxyType({**memory, event.card: (event.face, seq)})
    if isinstance(event, ev.PairTaken):
        return MappingProxyType({c: s for c, s in memory.items() if c not in event.cards})
    return memory


def keeps(cpu_seed: bytes, seat: int, seq: int, strength: Strength) -> bool:
    """Whether the CPU of ``seat`` kept the sighting of game event ``seq``."""
    stream = DealStream(cpu_seed, f"keep/{seat}/{seq}", CPU_VERSION)
    return uniform(stream, 1000) < KEEP_PER_MILLE[strength]


def recall(memory: Memory, cpu_seed: bytes, seat: int, strength: Strength) -> dict[int, str]:
    """What the CPU of ``seat`` still knows: card -> face, for the sightings it kept."""
    return {
        card: face
        for card, (face, seq) in sorted(memory.items())
        if keeps(cpu_seed, seat, seq, strength)
    }


@dataclass(frozen=True, slots=True)
class Table:
    """What the CPU looks at when it flips: public, the same for every seat."""

    down: tuple[int, ...]  # the cards face down, ascending
    up: tuple[tuple[int, str], ...]  # the card face up this turn, with its face (none or one)
    matching: Matching


def choose(table: Table, known: Mapping[int, str], cpu_seed: bytes, seq: int) -> int:
    """The card the CPU flips now: its turn, a card left to flip, ``seq`` game events so far."""
    down = table.down
    known = {card: face for card, face in known.items() if card in down}
    if table.up:
        partner = _partner(table.up[0][1], known, table.matching)
        if partner is not None:
            return partner
    else:
        for card, face in sorted(known.items()):
            if _partner(face, {c: f for c, f in known.items() if c != card}, table.matching):
                return card
    candidates = [c for c in down if c not in known] or list(down)
    return candidates[uniform(DealStream(cpu_seed, f"flip/{seq}", CPU_VERSION), len(candidates))]


def _partner(face: str, known: Mapping[int, str], matching: Matching) -> int | None:
    return next((card for card, f in sorted(known.items()) if pair(face, f, matching)), None)
