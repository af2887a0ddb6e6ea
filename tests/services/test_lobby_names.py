"""The display-name policy (services/lobby/names.py) and the request-id policy
(validation.predictable): pure, so every case is a line."""

from __future__ import annotations

import re
import secrets
import uuid

import grpc  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.lobby import validation
from services.lobby.errors import ApiError
from services.lobby.names import MAX_MARKS, NameProblem, display_name, reads_as_bot

# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("Ann", "Ann"),
        ("  Ann  ", "Ann"),
        ("Zoë", "Zoë"),
        ("Nguy\u1ec5n", "Nguy\u1ec5n"),  # e with two marks
        ("\u0e2a\u0e21\u0e0a\u0e32\u0e22", "\u0e2a\u0e21\u0e0a\u0e32\u0e22"),  # Thai
        ("\u674e\u5c0f\u9f99", "\u674e\u5c0f\u9f99"),  # Chinese
        ("\u2764\ufe0f Ann", "\u2764 Ann"),  # the emoji-style selector is dropped
        ("\uff21\uff4e\uff4e", "Ann"),  # fullwidth, NFKC
        ("Robot", "Robot"),
        ("Bott", "Bott"),
        ("Bot Ann", "Bot Ann"),
        ("R2-D2", "R2-D2"),
        ("x" * 32, "x" * 32),
    ],
)
def test_a_visible_name_is_kept_normalised(given: str, shown: str) -> None:
    assert display_name(given) == shown


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("", "1 to 32"),
        ("   ", "1 to 32"),
        ("x" * 33, "1 to 32"),
        ("\u3164", "U+1160 HANGUL JUNGSEONG FILLER"),  # HANGUL FILLER, after NFKC
        ("\uffa0", "HANGUL"),
        ("\u2800", "U+2800 BRAILLE PATTERN BLANK"),
        ("\u115f\u115f", "HANGUL CHOSEONG FILLER"),
        ("Ann\u200b", "U+200B ZERO WIDTH SPACE"),
        ("A\u200dnn", "ZERO WIDTH JOINER"),
        ("Ann\u202e", "RIGHT-TO-LEFT OVERRIDE"),
        ("An\u00adn", "SOFT HYPHEN"),
        ("A\u034fnn", "COMBINING GRAPHEME JOINER"),
        ("Ann\ufe00", "VARIATION SELECTOR-1"),
        ("Ann\u2028Bob", "LINE SEPARATOR"),
        ("Ann\tBob", "U+0009"),
        ("Ann\u1680Bob", "OGHAM SPACE MARK"),
        ("a  b", "two spaces"),
        ("\u0301a", "combining"),
        ("a \u0301", "combining"),
        ("a" + "\u0301" * (MAX_MARKS + 1), "combining"),
        ("\u00e1\u0301\u0301", "combining"),  # a precomposed accent counts too
        ("...", "at least one letter"),
        ("-- __", "at least one letter"),
    ],
)
def test_an_invisible_or_blank_name_is_refused(given: str, words: str) -> None:
    with pytest.raises(NameProblem, match=re.escape(words)):
        display_name(given)


@pytest.mark.parametrize(
    "given",
    [
        "Bot",
        "bot",
        "Bot 1",
        "Bot 12",
        "BOT-1",
        "B o t 1",
        "b.o.t_3",
        "\uff22\uff4f\uff54\u3000\uff11",  # fullwidth
        "\U0001d401\U0001d428\U0001d42d 1",  # mathematical bold
        "\u0412\u043e\u0442 1",  # Cyrillic
        "\u0392\u03bf\u03c4 1",  # Greek
        "\u0392\u039f\u03a4 2",  # Greek capitals
        "B0t 1",
        "Bot l",
        "Bot I",
        "Bot |",
        "B\u0307ot 1",  # a dot above
        "Bo\u0301t\u0300 1",  # accents
        "Bot \u0661",  # Arabic-Indic one
        "Bot \u0967",  # Devanagari one
        "\u13f4ot 1",  # Cherokee B
        # small capitals, a stroke, a slashed o, enclosed letters: issue 34's look-alikes
        "\u0299\u1d0f\u1d1b 1",  # LATIN LETTER SMALL CAPITAL B, O, T
        "\u0243ot 1",  # LATIN CAPITAL LETTER B WITH STROKE
        "B\u00f8t 1",  # LATIN SMALL LETTER O WITH STROKE
        "\U0001f171\U0001f17e\U0001f183 1",  # NEGATIVE SQUARED LATIN CAPITAL LETTER B, O, T
        "\u24b7\u24de\u24e3",  # circled
        "\u15f7OT 1",  # Canadian syllabics carrier sa, from confusables.txt
    ],
)
def test_a_person_may_not_take_a_name_that_reads_as_a_bots(given: str) -> None:
    assert reads_as_bot(given)
    with pytest.raises(NameProblem, match="reads as a bot's name"):
        display_name(given)


def test_the_bot_service_may_use_the_bots_names() -> None:
    for n in (1, 2, 3):
        assert display_name(f"Bot {n}", bot=True) == f"Bot {n}"
    with pytest.raises(NameProblem):
        display_name("\u3164", bot=True)  # but not an invisible one


def test_names_near_bot_are_a_persons() -> None:
    # plain ASCII letters are never re-read: "Boy" is not "Bot" however y looks in some script
    for name in ("Robot", "Bott", "Bot Ann", "Abbot", "Boat 1", "Bo", "Tob 1", "Boy", "B6t", "Zoë"):
        assert not reads_as_bot(name), name


def test_a_refused_name_is_invalid_argument_at_the_edge() -> None:
    with pytest.raises(ApiError) as caught:
        validation.display_name("Bot 1")
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "choose another name" in caught.value.message


# --- request ids -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("0000000000000000", "fewer than 4 different"),
        ("xxxxxxxxxxxxxxxx", "fewer than 4 different"),
        ("abababababababab", "fewer than 4 different"),
        ("0123456789abcdef", "counts evenly"),
        ("fedcba9876543210", "counts evenly"),
        ("13579bdfhjlnprtv", "counts evenly"),
        ("abcabcabcabcabcz", "repeats a pattern"),
        ("q7abcabcabcabcz9", "repeats a pattern"),
        ("0000-0000-0000-0001-0000-0000-0000-0002", "fewer than 4"),
        ("00000000000000000000000000000abc", "repeats a pattern"),
        ("ABCDEFGHIJKLMNOP", "counts evenly"),
    ],
)
def test_a_predictable_request_id_is_refused(given: str, words: str) -> None:
    assert words in (validation.predictable(given) or "")
    with pytest.raises(ApiError) as caught:
        validation.request_id(given)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "unpredictable" in caught.value.message and "uuid4" in caught.value.message


def test_random_request_ids_pass() -> None:
    for _ in range(20_000):
        for rid in (uuid.uuid4().hex, str(uuid.uuid4()), secrets.token_hex(8)):
            assert validation.predictable(rid) is None, rid
        assert validation.predictable(secrets.token_urlsafe(12)[:16].replace("_", "x")) is None


def test_eleven_in_a_row_is_no_pattern_but_twelve_is() -> None:
    assert validation.predictable("0123456789az" + "q7k2") is None  # 0..9a: 11 even steps
    assert validation.predictable("0123456789ab" + "q7k2") is not None


def _predictable_by_walking(value: str) -> str | None:
    """The policy as first written, one character at a time: the oracle for the faster one."""
    chars = [c for c in value.lower() if c not in "._:-"]
    if len(set(chars)) < validation.MIN_DISTINCT_CHARS:
        return f"it has fewer than {validation.MIN_DISTINCT_CHARS} different characters"
    ranks = ["0123456789abcdefghijklmnopqrstuvwxyz".find(c) for c in chars]
    longest = max(validation.MIN_PATTERN_RUN, len(chars) // 2)
    for period in (1, 2, 3):
        run = period
        for i in range(period, len(chars)):
            run = run + 1 if chars[i] == chars[i - period] else period
            if run >= longest:
                return f"it repeats a pattern ({''.join(chars[i - run + 1 : i + 1])})"
    run = 2
    for i in range(2, len(ranks)):
        steady = ranks[i] >= 0 and ranks[i] - ranks[i - 1] == ranks[i - 1] - ranks[i - 2]
        run = run + 1 if steady and ranks[i - 1] >= 0 and ranks[i - 2] >= 0 else 2
        if run >= longest:
            return f"it counts evenly ({''.join(chars[i - run + 1 : i + 1])})"
    return None


# Ids built to sit near the policy's edges: stretches that repeat or count, broken or not,
# among separators, capitals and characters outside 0-9a-z.
_near_edges = st.lists(
    st.one_of(
        st.text(alphabet="0123456789abcdefXYZ._:-é\n", min_size=1, max_size=6),
        st.builds(
            lambda s, n: s * n, st.text(alphabet="ab1-Z", min_size=1, max_size=3), st.integers(1, 8)
        ),
        st.builds(
            lambda a, step, n: "".join(
                "0123456789abcdefghijklmnopqrstuvwxyz"[(a + step * k) % 36] for k in range(n)
            ),
            st.integers(0, 35),
            st.integers(-5, 5),
            st.integers(2, 16),
        ),
    ),
    max_size=8,
).map("".join)


@given(st.one_of(_near_edges, st.text(max_size=70)))
@settings(max_examples=3000, deadline=None)
def test_the_policy_says_what_walking_the_id_says(value: str) -> None:
    assert validation.predictable(value) == _predictable_by_walking(value)
