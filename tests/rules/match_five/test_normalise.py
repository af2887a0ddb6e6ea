"""What makes two links the same, and what a link may hold (docs/rules-match-5.md, "Links")."""

from __future__ import annotations

import pytest

from match_rules.errors import RuleError
from match_rules.match_five.errors import MatchFiveCode
from match_rules.match_five.normalise import bad_character, check, normalise


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("Shark", "shark"),
        ("  SHARK!! ", "shark"),
        ("Shárk", "shark"),
        ("Little Red  Riding-Hood", "little red riding hood"),
        ("Adam's Apple", "adam s apple"),
        ("rock'n'roll", "rock n roll"),
        ("Straße", "strasse"),  # case folding: ß is ss
        ("\uff33\uff28\uff21\uff32\uff2b", "shark"),  # full-width letters (NFKD)
        ("Ǆ", "dz"),  # a letter whose compatibility form is two
        ("İstanbul", "istanbul"),  # the dot is a combining mark
        ("salt & pepper", "salt pepper"),  # symbols are dropped
        ("R2-D2", "r2 d2"),
        ("²", "2"),
        ("日本", "日本"),
        ("?!…", ""),
        ("♥", ""),
        ("", ""),
    ],
)
def test_links_are_compared_without_case_accents_spacing_and_punctuation(text, normal):
    assert normalise(text) == normal


def test_letters_and_accents_still_tell_different_words_apart():
    assert normalise("Adams apple") != normalise("Adam's apple")
    assert normalise("Shark") != normalise("Sharks")


@pytest.mark.parametrize("text", ["a", "a" * 60, "é" * 60, "Zebra crossing", "日本"])
def test_a_link_of_1_to_60_characters_with_a_letter_or_digit_is_fine(text):
    check(text)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("a" * 61, MatchFiveCode.LINK_TOO_LONG),
        ("é" * 61, MatchFiveCode.LINK_TOO_LONG),
        ("", MatchFiveCode.LINK_EMPTY),
        ("   ", MatchFiveCode.LINK_EMPTY),
        ("?! ...", MatchFiveCode.LINK_EMPTY),
        ("♥♥", MatchFiveCode.LINK_EMPTY),
        ("new\nline", MatchFiveCode.LINK_INVALID_CHARACTERS),
        ("tab\there", MatchFiveCode.LINK_INVALID_CHARACTERS),
        ("bell\x07", MatchFiveCode.LINK_INVALID_CHARACTERS),
        ("zero\u200bwidth", MatchFiveCode.LINK_INVALID_CHARACTERS),  # Cf
        ("\u202eevil", MatchFiveCode.LINK_INVALID_CHARACTERS),  # a bidi override, Cf
        ("private\ue000", MatchFiveCode.LINK_INVALID_CHARACTERS),  # Co
        ("unassigned\u0378", MatchFiveCode.LINK_INVALID_CHARACTERS),  # Cn
        ("half\ud800", MatchFiveCode.LINK_INVALID_CHARACTERS),  # Cs
    ],
)
def test_a_link_too_long_empty_or_with_a_control_character_is_refused(text, code):
    with pytest.raises(RuleError) as caught:
        check(text)
    assert caught.value.code is code and caught.value.message


def test_the_refusal_names_the_character():
    with pytest.raises(RuleError, match="ZERO WIDTH SPACE"):
        check("a\u200bb")
    with pytest.raises(RuleError, match="U\\+000A"):
        check("a\nb")
    assert bad_character("fine, thanks!") is None


def test_a_combining_mark_goes_before_case_folding_can_turn_it_into_a_letter():
    """U+0345, the Greek iota subscript, is a combining mark that case folding turns into the
    letter iota (U+03B9): dropped first, alpha with the subscript (U+1FB3, U+1FBC) is the same
    link as alpha alone (U+03B1), not as alpha iota."""
    alpha, alpha_iota = "\u03b1", "\u03b1\u03b9"
    assert normalise("\u1fb3") == normalise("\u1fbc") == normalise(alpha) == alpha
    assert normalise(alpha_iota) == alpha_iota
