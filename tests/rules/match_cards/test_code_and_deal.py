"""Game codes (format 3) and the deal (match-cards-deal-v2): the vectors in docs/vectors/."""

from __future__ import annotations

import json
import pathlib

import pytest

from match_rules.errors import Code, RuleError
from match_rules.match_cards import code as codes
from match_rules.match_cards.deal import deal, lookalike_subjects
from match_rules.match_cards.errors import MatchCardsCode
from match_rules.match_cards.settings import (
    LIMITS,
    PICTURE_SETS,
    SIZES,
    Difficulty,
    Mode,
    Settings,
    check,
    columns,
    picture_set,
)

VECTORS = pathlib.Path(__file__).parents[3] / "docs" / "vectors"


def test_every_size_and_mode_has_a_limit_and_a_grid() -> None:
    for mode, sizes in SIZES.items():
        for cards in sizes:
            easy, medium, hard = LIMITS[(mode, cards)]
            assert easy > medium > hard
            assert cards % columns(cards) == 0
            assert cards % Settings(mode, cards).group == 0


def test_the_seed_gives_20_on_easy_and_11_on_hard_for_12_cards_in_pairs() -> None:
    assert Settings(cards=12).limit == 20
    assert Settings(cards=12, difficulty=Difficulty.HARD).limit == 11
    assert Settings(cards=12, difficulty=Difficulty.MEDIUM).limit == 16


def test_picture_sets_are_named_and_every_picture_has_an_id_and_a_name() -> None:
    assert [s.name for s in PICTURE_SETS] == ["animals", "fruit"]
    for s in PICTURE_SETS:
        assert len(s.plain) >= 30 and len(s.lookalikes) >= 7
        for a, b in s.lookalikes:
            assert a.subject == b.subject and a.id != b.id and a.name != b.name
    assert picture_set("animals").plain[0].name == "giraffe"


@pytest.mark.parametrize(
    ("settings", "code"),
    [
        (Settings(cards=18), Code.INVALID_DECK_SIZE),
        (Settings(pictures="planets"), Code.INVALID_PICTURES),
    ],
)
def test_settings_that_make_no_game(settings: Settings, code: Code) -> None:
    with pytest.raises(RuleError) as error:
        check(settings)
    assert error.value.code is code


SEED = bytes(range(32))


def seed_of(number: int) -> bytes:
    return number.to_bytes(32, "big")


def test_a_code_carries_mode_size_difficulty_pictures_and_the_whole_seed() -> None:
    for mode, sizes in SIZES.items():
        for cards in sizes:
            for difficulty in Difficulty:
                for pictures in ("animals", "fruit"):
                    settings = Settings(mode, cards, difficulty, pictures)
                    text = codes.encode(settings, SEED)
                    read = codes.parse(text.lower().replace("-", " "))
                    assert read.seed == SEED
                    assert read.settings == Settings(mode, cards, difficulty, pictures, text)


def test_a_code_is_mm3_the_settings_and_53_symbols_in_groups_of_five() -> None:
    text = codes.encode(Settings(), SEED)
    groups = text.split("-")
    assert groups[:2] == ["MM3", "PAEA"]
    assert [len(g) for g in groups[2:]] == [5] * 10 + [3]
    # 256 bits of seed need 52 symbols of 5 bits: none shorter carries the deal
    assert len(text.replace("-", "")) == 60
    with pytest.raises(ValueError, match="32-byte"):
        codes.encode(Settings(), bytes(31))


def test_every_seed_bit_reaches_the_code_and_the_deal() -> None:
    settings = Settings(Mode.PAIRS, 60)
    base = deal(SEED, settings)
    for bit in (0, 1, 100, 255):  # the last bit of the seed, the first, ones between
        other = bytearray(SEED)
        other[bit // 8] ^= 0x80 >> (bit % 8)
        changed = deal(bytes(other), settings)
        assert changed.code != base.code and changed.cards != base.cards
        assert codes.parse(changed.code).seed == bytes(other)


def test_every_single_mistyped_symbol_and_neighbour_swap_fails_the_check() -> None:
    body = codes.encode(Settings(), SEED).replace("-", "")
    for i in range(3, len(body)):
        for c in codes.ALPHABET:
            if c != body[i]:
                typo = body[:i] + c + body[i + 1 :]
                with pytest.raises(RuleError):
                    codes.parse(typo)
    for i in range(3, len(body) - 1):
        if body[i] != body[i + 1]:
            swapped = body[:i] + body[i + 1] + body[i] + body[i + 2 :]
            with pytest.raises(RuleError):
                codes.parse(swapped)


def test_the_tag_catches_what_luhn_lets_through() -> None:
    """Swapping neighbours ``A`` and ``9`` keeps the Luhn sum; the tag catches it here."""
    text = codes.encode(Settings(), seed_of(31 << 6))  # seed symbols 50 and 51 are 9, A
    body = text.replace("-", "")
    assert body[-4:-2] == "9A"
    swapped = body[:-4] + "A9" + body[-2:]
    assert codes._luhn([codes.ALPHABET.index(c) for c in swapped[2:-1]]) == codes.ALPHABET.index(
        swapped[-1]
    )
    with pytest.raises(RuleError) as error:
        codes.parse(swapped)
    assert error.value.code is MatchCardsCode.CODE_CHECK_FAILED


GOOD = codes.encode(Settings(), seed_of(1))


@pytest.mark.parametrize(
    ("text", "code", "says"),
    [
        ("", MatchCardsCode.CODE_MALFORMED, "not a game code"),
        ("XX3-PAEA-AAAAA", MatchCardsCode.CODE_MALFORMED, "not a game code"),
        ("MM3-PAEA", MatchCardsCode.CODE_MALFORMED, "53 symbols"),
        (GOOD + "A", MatchCardsCode.CODE_MALFORMED, "has 58 symbols"),
        (GOOD[:12] + "0" + GOOD[13:], MatchCardsCode.CODE_MALFORMED, "no I, O, 0 or 1"),
        (GOOD[:12] + "!" + GOOD[13:], MatchCardsCode.CODE_MALFORMED, "is not in codes"),
        ("MM2-PAEA-AAAAAB6", MatchCardsCode.CODE_VERSION_UNKNOWN, "30-bit seed"),
        ("MM4" + GOOD[3:], MatchCardsCode.CODE_VERSION_UNKNOWN, "version 4 code"),
        (GOOD[:-1] + "E", MatchCardsCode.CODE_CHECK_FAILED, "copy it again"),
    ],
)
def test_bad_codes_each_get_their_own_refusal(text: str, code: Code, says: str) -> None:
    with pytest.raises(RuleError) as error:
        codes.parse(text)
    assert error.value.code is code
    assert says in error.value.message


def _checked(head: str) -> str:
    """A code for the settings symbols ``head`` with seed 0 whose tag and check fit."""
    tag = codes._tag(head, bytes(32))
    body = "3" + head + "A" * 51 + codes.ALPHABET[tag]
    full = body + codes.ALPHABET[codes._luhn([codes.ALPHABET.index(c) for c in body])]
    return "MM" + full


@pytest.mark.parametrize(
    ("head", "code"),
    [
        ("PEEA", MatchCardsCode.CODE_SIZE_UNKNOWN),
        ("XAEA", MatchCardsCode.CODE_SETTING_UNKNOWN),
        ("PAXA", MatchCardsCode.CODE_SETTING_UNKNOWN),
        ("PAEZ", MatchCardsCode.CODE_SETTING_UNKNOWN),
    ],
)
def test_a_well_checked_code_naming_nothing_known_is_refused(head: str, code: Code) -> None:
    assert codes.parse(_checked("PAEA")).seed == bytes(32)
    with pytest.raises(RuleError) as error:
        codes.parse(_checked(head))
    assert error.value.code is code


def test_the_seeds_example_codes_are_version_2_and_refused_as_such() -> None:
    """The seed's codes are format 2 (30 bits of seed, searchable during play): refused with
    the reason, never dealt."""
    for text in ("MM2-PAAU-AAAAAAB", "MM2-TADN-AAAAAAB", "MM2-PAAW-AAAAAAF"):
        with pytest.raises(RuleError) as error:
            codes.parse(text)
        assert error.value.code is MatchCardsCode.CODE_VERSION_UNKNOWN


def test_the_code_vectors() -> None:
    vectors = json.loads((VECTORS / "match-cards-code-v3.json").read_text())
    for v in vectors["valid"]:
        read = codes.parse(v["code"])
        assert read.seed.hex() == v["seed"]
        s = read.settings
        assert [s.mode.value, s.cards, s.difficulty.value, s.pictures] == v["settings"]
        settings = Settings(s.mode, s.cards, s.difficulty, s.pictures)
        assert codes.encode(settings, bytes.fromhex(v["seed"])) == v["code"]
    for v in vectors["invalid"]:
        with pytest.raises(RuleError) as error:
            codes.parse(v["code"])
        assert error.value.code.slug == v["refusal"]


def test_the_deal_vectors() -> None:
    vectors = json.loads((VECTORS / "match-cards-deal-v2.json").read_text())
    for v in vectors["deals"]:
        mode, cards, difficulty, pictures = v["settings"]
        settings = Settings(Mode(mode), cards, Difficulty(difficulty), pictures)
        dealt = deal(bytes.fromhex(v["seed"]), settings)
        assert dealt.code == v["code"] and list(dealt.cards) == v["cards"]
        assert dealt.version == vectors["version"] == "match-cards-deal-v2"
        assert codes.parse(dealt.code).seed.hex() == v["seed"]


def test_a_code_deals_the_same_cards_again_from_its_seed() -> None:
    settings = Settings(Mode.TRIPLES, 30, Difficulty.HARD, "fruit")
    a = deal(SEED, settings)
    replay = deal(b"", codes.parse(a.code).settings)  # the dealer's seed is not used
    assert replay.cards == a.cards and replay.code == a.code
    with pytest.raises(ValueError, match="32 bytes"):
        deal(b"short", settings)


def test_each_picture_is_laid_two_or_three_times() -> None:
    for mode, group in ((Mode.PAIRS, 2), (Mode.TRIPLES, 3)):
        dealt = deal(seed_of(42), Settings(mode, 60))
        assert all(dealt.cards.count(p) == group for p in dealt.cards)


def test_hard_deals_look_alike_groups_that_do_not_match_each_other() -> None:
    settings = Settings(Mode.PAIRS, 60, Difficulty.HARD)
    assert lookalike_subjects(settings) == 7
    assert lookalike_subjects(Settings(difficulty=Difficulty.HARD)) == 1
    assert lookalike_subjects(Settings(Mode.PAIRS, 60)) == 0
    dealt = deal(seed_of(3), settings)
    from match_rules.match_cards.settings import PICTURES

    subjects = [PICTURES[p].subject for p in set(dealt.cards)]
    assert len(subjects) - len(set(subjects)) == 7
