"""The CPU player: pure, seeded, and seeing only what its seat sees (the public flips).

It plays at the game's strength (drawn from the seed, like the race's bot) and forgets at that
strength's rate: each face it sees flipped, it keeps with probability :data:`KEEP` (weak 35 %,
medium 70 %, strong 95 %). With a pair it remembers among the face-down cards, it takes it;
for a second card, the remembered partner of the first; otherwise a card it does not remember,
chosen at random. The random source is passed in, so a game's CPU moves replay exactly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType

from match_rules.concentration import events as ev
from match_rules.concentration.settings import Matching, pair
from match_rules.concentration.view import CardState, View
from match_rules.deal import Strength

KEEP = {Strength.WEAK: 0.35, Strength.MEDIUM: 0.7, Strength.STRONG: 0.95}

Memory = Mapping[int, str]  # card -> the face the CPU remembers
NOTHING: Memory = MappingProxyType({})


def remember(memory: Memory, event: ev.Event, strength: Strength, rng: random.Random) -> Memory:
    """The CPU's memory after it saw ``event`` (a public event of its table)."""
    if isinstance(event, ev.CardFlipped) and rng.random() < KEEP[strength]:
        return MappingProxyType({**memory, event.card: event.face})
    if isinstance(event, ev.PairTaken):
        return MappingProxyType({c: f for c, f in memory.items() if c not in event.cards})
    return memory


def choose(view: View, memory: Memory, rng: random.Random) -> int:
    """The card the CPU flips now, its turn (``view.turn``) and a card left to flip."""
    matching = view.settings.matching
    down = [c.card for c in view.cards if c.state is CardState.DOWN]
    known = {card: face for card, face in memory.items() if card in down}
    up = [c for c in view.cards if c.state is CardState.UP]
    if up:
        partner = _partner(up[0].face or "", known, matching)
        if partner is not None:
            return partner
    else:
        for card, face in sorted(known.items()):
            if _partner(face, {c: f for c, f in known.items() if c != card}, matching):
                return card
    unknown = [c for c in down if c not in known]
    return rng.choice(unknown or down)


def _partner(face: str, known: Mapping[int, str], matching: Matching) -> int | None:
    return next((card for card, f in sorted(known.items()) if pair(face, f, matching)), None)
