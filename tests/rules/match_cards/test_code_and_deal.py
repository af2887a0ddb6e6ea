"""Game codes (format 2) and the deal (match-cards-deal-v1): the vectors in docs/vectors/."""

from __future__ import annotations

import json
import pathlib

import pytest

from match_rules.errors import Code, RuleError
from match_rules.match_cards import code as codes
from match_rules.match_cards.deal import deal, deal_short, lookalike_subjects
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


def test_a_code_carries_mode_size_difficulty_pictures_and_seed_and_reads_back() -> None:
    for mode, sizes in SIZES.items():
        for cards in sizes:
            for difficulty in Difficulty:
                for pictures in ("animals", "fruit"):
                    settings = Settings(mode, cards, difficulty, pictures)
                    text = codes.encode(settings, 123_456_789)
                    read = codes.parse(text.lower().replace("-", " "))
                    assert read.short_seed == 123_456_789
                    assert read.settings == Settings(mode, cards, difficulty, pictures, text)


def test_the_short_seed_is_the_first_30_bits_of_the_dealers_seed() -> None:
    seed = bytes([0xFF, 0xFF, 0xFF, 0xFF]) + bytes(28)
    assert codes.short_seed(seed) == (1 << 30) - 1
    with pytest.raises(ValueError, match="30 bits"):
        codes.encode(Settings(), 1 << 30)


def test_every_single_mistyped_symbol_and_neighbour_swap_fails_the_check() -> None:
    text = codes.encode(Settings(), 987_654_321)
    body = text.replace("-", "")
    for i in range(3, len(body)):
        for c in codes.ALPHABET:
            if c != body[i]:
                typo = body[:i] + c + body[i + 1 :]
                with pytest.raises(RuleError):
                    codes.parse(typo)
    for i in range(3, len(body) - 1):
        if body[i] != body[i + 1] and {body[i], body[i + 1]} != {"A", "9"}:
            swapped = body[:i] + body[i + 1] + body[i] + body[i + 2 :]
            with pytest.raises(RuleError):
                codes.parse(swapped)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("MM2-PAEA", Code.CODE_MALFORMED),
        ("XX2-PAEA-AAAAAB6", Code.CODE_MALFORMED),
        ("MM2-PAEA-AAAAA06", Code.CODE_MALFORMED),
        ("MM2-PAEA-AAAAAB!", Code.CODE_MALFORMED),
        ("MM3-PAEA-AAAAAB6", Code.CODE_VERSION_UNKNOWN),
        ("MM2-PAEA-AAAAAB7", Code.CODE_CHECK_FAILED),
    ],
)
def test_bad_codes_each_get_their_own_refusal(text: str, code: Code) -> None:
    with pytest.raises(RuleError) as error:
        codes.parse(text)
    assert error.value.code is code
    assert "MM2" in error.value.message or "copy it again" in error.value.message


def _checked(body: str) -> str:
    values = [codes.ALPHABET.index(c) for c in body]
    full = body + codes.ALPHABET[codes._luhn(values)]
    return f"MM{full[0]}-{full[1:5]}-{full[5:]}"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("2PEEAAAAAAB", Code.CODE_SIZE_UNKNOWN),
        ("2XAEAAAAAAB", Code.CODE_SETTING_UNKNOWN),
        ("2PAXAAAAAAB", Code.CODE_SETTING_UNKNOWN),
        ("2PAEZAAAAAB", Code.CODE_SETTING_UNKNOWN),
    ],
)
def test_a_well_checked_code_naming_nothing_known_is_refused(body: str, code: Code) -> None:
    with pytest.raises(RuleError) as error:
        codes.parse(_checked(body))
    assert error.value.code is code


def test_the_seeds_example_codes_are_from_the_original_apps_own_format() -> None:
    """docs/dealing.md: the seed's codes were drawn by the original app; here they fail the check
    (a person is told to copy the code again), never deal something else."""
    for text in ("MM2-PAAU-AAAAAAB", "MM2-TADN-AAAAAAB", "MM2-PAAW-AAAAAAF"):
        with pytest.raises(RuleError) as error:
            codes.parse(text)
        assert error.value.code is Code.CODE_CHECK_FAILED


def test_the_code_vectors() -> None:
    vectors = json.loads((VECTORS / "match-cards-code-v2.json").read_text())
    for v in vectors["valid"]:
        read = codes.parse(v["code"])
        assert read.short_seed == v["short_seed"]
        s = read.settings
        assert [s.mode.value, s.cards, s.difficulty.value, s.pictures] == v["settings"]
    for v in vectors["invalid"]:
        with pytest.raises(RuleError) as error:
            codes.parse(v["code"])
        assert error.value.code.slug == v["refusal"]


def test_the_deal_vectors() -> None:
    vectors = json.loads((VECTORS / "match-cards-deal-v1.json").read_text())
    for v in vectors["deals"]:
        mode, cards, difficulty, pictures = v["settings"]
        settings = Settings(Mode(mode), cards, Difficulty(difficulty), pictures)
        dealt = deal(bytes.fromhex(v["seed"]), settings)
        assert dealt.code == v["code"] and list(dealt.cards) == v["cards"]


def test_the_deal_depends_on_the_short_seed_alone_and_a_code_deals_it_again() -> None:
    settings = Settings(Mode.TRIPLES, 30, Difficulty.HARD, "fruit")
    a = deal(bytes([1, 2, 3, 4]) + bytes(28), settings)
    b = deal(bytes([1, 2, 3, 7]) + bytes(range(28)), settings)  # the same first 30 bits
    assert a == b
    replay = deal(b"", codes.parse(a.code).settings)
    assert replay.cards == a.cards and replay.code == a.code
    with pytest.raises(ValueError, match="32 bytes"):
        deal(b"short", settings)


def test_each_picture_is_laid_two_or_three_times() -> None:
    for mode, group in ((Mode.PAIRS, 2), (Mode.TRIPLES, 3)):
        dealt = deal_short(42, Settings(mode, 60))
        assert all(dealt.cards.count(p) == group for p in dealt.cards)


def test_hard_deals_look_alike_groups_that_do_not_match_each_other() -> None:
    settings = Settings(Mode.PAIRS, 60, Difficulty.HARD)
    assert lookalike_subjects(settings) == 7
    assert lookalike_subjects(Settings(difficulty=Difficulty.HARD)) == 1
    assert lookalike_subjects(Settings(Mode.PAIRS, 60)) == 0
    dealt = deal_short(3, settings)
    from match_rules.match_cards.settings import PICTURES

    subjects = [PICTURES[p].subject for p in set(dealt.cards)]
    assert len(subjects) - len(set(subjects)) == 7
