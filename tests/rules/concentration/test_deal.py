"""The deal of Concentration (``concentration-deal-v1``) and what pairs with what, for every
combination of pictures, deck size, jokers and matching (docs/dealing.md).

The vectors file is made from the reference implementation, and a test checks it is exactly
what that makes. After a change that keeps the version (a new field of the deal, as ``cpu_seed``
was), regenerate it with ``.venv/bin/python -m tests.rules.concentration.test_deal``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from match_rules.concentration.deal import DEAL_VERSION, deal, deck, layout
from match_rules.concentration.settings import (
    DECK_SIZES,
    JOKER,
    PALETTE,
    Matching,
    Pictures,
    Settings,
    check,
    pair,
)
from match_rules.deal import DealStream
from match_rules.errors import RuleError
from match_rules.race import deal as race_deal

ROOT = Path(__file__).resolve().parents[3]
VECTORS_PATH = ROOT / "docs" / "vectors" / "concentration-deal-v1.json"
VECTORS = json.loads(VECTORS_PATH.read_text())
SEEDS = (
    ("32 bytes 0x00", bytes(32)),
    ("32 bytes 0xff", b"\xff" * 32),
    ("bytes 0x00..0x1f", bytes(range(32))),
)


def settings_of(raw: dict[str, Any]) -> Settings:
    return Settings(
        Pictures(raw["pictures"]), raw["cards"], raw["jokers"], Matching(raw["matching"])
    )


def every_combination() -> list[Settings]:
    out = [Settings(Pictures.EMOJI, size) for size in DECK_SIZES]
    for size in DECK_SIZES:
        for matching in Matching:
            for jokers in (False, True):
                out.append(Settings(Pictures.PLAYING_CARDS, size, jokers, matching))
    return out


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: str(v["settings"]))
def test_every_vector_is_reproduced(vector: dict[str, Any]) -> None:
    settings = settings_of(vector["settings"])
    dealt = deal(bytes.fromhex(vector["seed_hex"]), settings)
    assert dealt.version == VECTORS["version"] == DEAL_VERSION
    assert list(dealt.cards) == vector["cards"]
    assert dealt.cpu_strength.value == vector["cpu_strength"]
    assert dealt.cpu_seed.hex() == vector["cpu_seed_hex"]
    assert len(dealt.cards) == vector["deck_size"] == settings.deck_size


def test_the_vectors_cover_every_combination() -> None:
    covered = {settings_of(v["settings"]) for v in VECTORS["vectors"]}
    assert covered == set(every_combination())


def test_the_vectors_file_is_what_the_reference_implementation_makes() -> None:
    assert VECTORS_PATH.read_text() == vectors_document()


def test_the_cpu_seed_is_the_first_32_bytes_of_its_own_stream() -> None:
    seed = bytes(range(32))
    dealt = deal(seed, Settings(cards=24))
    assert dealt.cpu_seed == DealStream(seed, "cpu", DEAL_VERSION).read(32)
    assert len(dealt.cpu_seed) == 32 and dealt.cpu_seed != seed


def vectors_document() -> str:
    """The vectors file: every combination, the three seeds in turn."""
    lines = ["{", f'  "version": "{DEAL_VERSION}",', '  "vectors": [']
    entries = []
    for n, settings in enumerate(every_combination()):
        note, seed = SEEDS[n % len(SEEDS)]
        dealt = deal(seed, settings)
        raw = {
            "pictures": settings.pictures.value,
            "cards": settings.cards,
            "jokers": settings.jokers,
            "matching": settings.matching.value,
        }
        entries.append(
            "\n".join(
                [
                    "    {",
                    f'      "note": "{note}",',
                    f'      "seed_hex": "{seed.hex()}",',
                    f'      "settings": {json.dumps(raw)},',
                    f'      "deck_size": {settings.deck_size},',
                    f'      "cards": {json.dumps(list(dealt.cards))},',
                    f'      "cpu_strength": "{dealt.cpu_strength.value}",',
                    f'      "cpu_seed_hex": "{dealt.cpu_seed.hex()}"',
                    "    }",
                ]
            )
        )
    return "\n".join([*lines, ",\n".join(entries), "  ]", "}"]) + "\n"


if __name__ == "__main__":
    VECTORS_PATH.write_text(vectors_document())


@pytest.mark.parametrize("settings", every_combination(), ids=str)
def test_every_card_has_a_partner_and_the_deck_is_the_documented_size(settings: Settings) -> None:
    cards = deal(bytes(range(32)), settings).cards
    assert len(cards) == settings.deck_size == settings.cards + (2 if settings.jokers else 0)
    partners = [
        sum(1 for j, other in enumerate(cards) if j != i and pair(face, other, settings.matching))
        for i, face in enumerate(cards)
    ]
    expected = 3 if settings.matching is Matching.RANK else 1  # four of a rank pair any two
    assert all(
        n == (1 if face == JOKER else expected) for face, n in zip(cards, partners, strict=True)
    )
    counts = Counter(cards)
    if settings.matching is Matching.IDENTICAL:
        assert set(counts.values()) == {2}
    else:
        assert {c for f, c in counts.items() if f != JOKER} == {1}


def test_emoji_come_from_the_palette_of_48_and_cards_from_their_rank_range() -> None:
    assert len(PALETTE) == 48 and len({name for name, _ in PALETTE}) == 48
    names = {name for name, _ in PALETTE}
    assert set(deal(bytes(32), Settings(cards=24)).cards) <= names
    for size, top in ((52, "K"), (36, "9"), (24, "6")):
        ranks = {c[0] for c in deal(bytes(32), Settings(Pictures.PLAYING_CARDS, size)).cards}
        assert top in ranks or size == 52  # a half deck may miss a rank; the range holds
        assert ranks <= set("A23456789TJQK"[: {52: 13, 36: 9, 24: 6}[size]])


def test_rank_and_colour_pairs_black_with_black_and_red_with_red() -> None:
    m = Matching.RANK_AND_COLOUR
    assert pair("AS", "AC", m) and pair("AH", "AD", m)
    assert not pair("AS", "AH", m) and not pair("AS", "2S", m)
    assert pair("AS", "AH", Matching.RANK) and not pair("AS", "2S", Matching.RANK)
    assert pair(JOKER, JOKER, m) and not pair(JOKER, "AS", Matching.RANK)


def test_the_deal_is_the_same_from_the_same_seed_and_its_own_stream() -> None:
    s = Settings(Pictures.PLAYING_CARDS, 36, True, Matching.RANK)
    assert deal(bytes(32), s) == deal(bytes(32), s)
    assert deal(bytes(32), s).cards != deal(b"\x01" + bytes(31), s).cards
    mine = DealStream(bytes(32), "deck", DEAL_VERSION).read(32)
    assert mine != DealStream(bytes(32), "deck", race_deal.DEAL_VERSION).read(
        32
    )  # the race's bytes
    assert layout(bytes(32), deck(bytes(32), s)) == deal(bytes(32), s).cards


def test_settings_that_make_no_deck_are_not_dealt() -> None:
    with pytest.raises(RuleError):
        deal(bytes(32), Settings(cards=30))
    assert check(Settings()) == Settings()
