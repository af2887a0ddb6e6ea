"""The deal of Match Cards, version ``match-cards-deal-v2``: the pictures in their places and
the game's code, from the whole 32-byte seed (docs/dealing.md, vectors in
docs/vectors/match-cards-deal-v2.json).

* the seed: a typed code's (a replay; the code carries all 32 bytes), else the dealer's; the
  commitment is ``SHA-256`` of that dealer's seed, and the deal depends on every bit of it (v1
  depended on 30 bits, which a player who had seen a few cards could search during play);
* the streams of :class:`match_rules.deal.DealStream`, keyed by the seed with this version's
  prefix;
* ``pictures``: on Hard, ``k = max(1, groups // 4)`` look-alike subjects drawn from the set's
  by a partial Fisher-Yates, each giving both its versions (``2k`` groups); then the rest of the
  ``groups`` drawn from the set's plain pictures by a partial Fisher-Yates (all of them on Easy
  and Medium); each picture laid 2 or 3 times, in the order drawn;
* ``layout``: those cards shuffled by a full Fisher-Yates (from the last position down); card
  ``n`` (1-based) holds the picture at position ``n - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.deal import DealStream, uniform
from match_rules.match_cards import code as codes
from match_rules.match_cards.settings import Difficulty, Settings, check, picture_set

DEAL_VERSION = "match-cards-deal-v2"


@dataclass(frozen=True, slots=True)
class Deal:
    """``cards[n - 1]`` is the picture id of card ``n``; ``code`` the game's code."""

    version: str
    cards: tuple[str, ...]
    code: str


def lookalike_subjects(settings: Settings) -> int:
    """How many subjects come in two versions on this board (Hard only)."""
    if settings.difficulty is not Difficulty.HARD:
        return 0
    return max(1, settings.groups // 4)


def _draw(stream: DealStream, items: list[str], count: int) -> list[str]:
    for i in range(count):
        j = i + uniform(stream, len(items) - i)
        items[i], items[j] = items[j], items[i]
    return items[:count]


def deal(seed: bytes, settings: Settings) -> Deal:
    """Deal a game: from the typed code's seed for a replay, else from the dealer's 32-byte
    ``seed``."""
    check(settings)
    if settings.code:
        seed = codes.parse(settings.code).seed
    if len(seed) != codes.SEED_BYTES:
        raise ValueError(f"a seed must be exactly {codes.SEED_BYTES} bytes, got {len(seed)}")
    stream = DealStream(seed, "pictures", DEAL_VERSION)
    chosen = picture_set(settings.pictures)
    k = lookalike_subjects(settings)
    subjects = _draw(stream, [pair[0].subject for pair in chosen.lookalikes], k)
    versions = {pair[0].subject: pair for pair in chosen.lookalikes}
    pictures = [p.id for s in subjects for p in versions[s]]
    pictures += _draw(stream, [p.id for p in chosen.plain], settings.groups - len(pictures))
    cards = [p for p in pictures for _ in range(settings.group)]
    layout = DealStream(seed, "layout", DEAL_VERSION)
    for i in range(len(cards) - 1, 0, -1):
        j = uniform(layout, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return Deal(DEAL_VERSION, tuple(cards), codes.encode(settings, seed))
