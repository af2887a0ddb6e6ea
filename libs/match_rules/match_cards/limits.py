"""The limits table, measured (``python -m match_rules.match_cards.limits``).

Two simulated players play many deals of ``match-cards-deal-v2`` (seeds ``0..n-1``, 32 bytes
big-endian) of
every mode and size to the end, with no limit, and their failed attempts are counted:

- the *perfect* player remembers every card it has seen;
- the *forgetful* player keeps each card it sees with probability :data:`FORGETFUL_KEEP`
  (35 %, the Concentration CPU's "weak" memory), drawn once per sighting, as that CPU does.

Both play the bot's policy (:mod:`match_rules.match_cards.bot`) with what they recall: a
complete group they recall, else a card they have not seen (or forgot), then the cards they
recall of its picture, then cards they have not seen; the forgetful one is the weak bot. Each
player's random choices come from ``random.Random`` seeded by the deal's number
(the table is a derivation, not a deal: it is pinned in settings.LIMITS and re-checked by a
test on a small sample).

The rule (docs/rules-match-cards.md, :func:`rule`), with ``m`` the larger of the forgetful
player's 90th percentile and the perfect player's 99th: Hard ``m + 1`` (nine forgetful players
in ten win it, a perfect one all but always), Easy ``2 m``, Medium halfway (rounded up). For 12
cards in pairs, ``m`` is 10: Hard 11 and Easy 20, the seed's two values.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Sequence

from match_rules.deal import Strength
from match_rules.match_cards import bot
from match_rules.match_cards.deal import deal
from match_rules.match_cards.settings import LIMITS, SIZES, Mode, Settings

FORGETFUL_KEEP = bot.KEEP[Strength.WEAK]  # 0.35
SAMPLE = 2000  # deals per mode and size for the published table
PERCENTILE = 90
PERFECT_PERCENTILE = 99


def play(cards: Sequence[str], group: int, keep: float, rng: random.Random) -> int:
    """Failed attempts a player of the bot's policy (:func:`bot.next_card`), keeping each
    sighting with probability ``keep``, needs to find every group of ``cards``."""
    hidden = set(range(len(cards)))
    memory: dict[int, str] = {}
    failed = 0
    while hidden:
        turned: list[int] = []
        while len(turned) < group:
            up = cards[turned[0]] if turned else None
            choice = bot.next_card(memory, hidden, turned, up, group, rng)
            assert choice is not None  # a whole group is always hidden while any card is
            turned.append(choice.card)
            bot.remember(memory, choice.card, cards[choice.card], keep, rng)
        if len({cards[c] for c in turned}) == 1:
            hidden -= set(turned)
            bot.forget_found(memory, turned)
        else:
            failed += 1
    return failed


def percentile(values: Sequence[int], p: int) -> int:
    """The ``p``-th percentile by the nearest-rank method."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def measure(mode: Mode, cards: int, sample: int) -> tuple[int, int]:
    """The perfect player's 99th and the forgetful one's 90th percentile of failed attempts
    over ``sample`` deals."""
    settings = Settings(mode, cards)
    perfect, forgetful = [], []
    for number in range(sample):
        dealt = deal(number.to_bytes(32, "big"), settings).cards  # pragma: no mutate (the default)
        perfect.append(play(dealt, settings.group, 1.0, random.Random(number)))
        forgetful.append(play(dealt, settings.group, FORGETFUL_KEEP, random.Random(number)))
    return percentile(perfect, PERFECT_PERCENTILE), percentile(forgetful, PERCENTILE)


def rule(perfect: int, forgetful: int) -> tuple[int, int, int]:
    """(Easy, Medium, Hard) from the measured percentiles."""
    m = max(perfect, forgetful)
    easy, hard = 2 * m, m + 1
    return easy, math.ceil((easy + hard) / 2), hard


def table(sample: int = SAMPLE) -> dict[tuple[Mode, int], tuple[int, int, int]]:
    out = {}
    for mode, sizes in SIZES.items():
        for cards in sizes:
            out[(mode, cards)] = rule(*measure(mode, cards, sample))
    return out


def main(argv: Sequence[str] = ()) -> int:
    """Print the table (``--sample N`` deals each) and whether it is the one in settings."""
    sample = int(argv[1]) if len(argv) == 2 and argv[0] == "--sample" else SAMPLE
    measured = table(sample)
    print("mode     cards  Easy  Medium  Hard")
    for (mode, cards), (easy, medium, hard) in measured.items():
        print(f"{mode.value:<8} {cards:>5} {easy:>5} {medium:>7} {hard:>5}")
    same = measured == LIMITS
    print("settings.LIMITS", "matches" if same else "differs")
    return 0 if same else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
