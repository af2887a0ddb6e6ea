"""Display names: what a person may be called at a table. Pure.

An allow-list built on ``unicodedata`` (Python 3.11: Unicode 14), not a confusables library:
the two on PyPI (``confusables`` 1.2.0, last released 2021; ``confusable-homoglyphs`` 3.3.1,
2024, per-character script checks only, no skeleton) ship old copies of Unicode's
confusables.txt, and what we must refuse is small and known: invisible and blank-looking
characters, piles of combining marks, and names that read as a bot's. A name is

1. NFKC-normalised (fullwidth, mathematical and other compatibility forms become plain
   letters and digits), variation selectors VS15/VS16 dropped (emoji style), white space at
   the ends dropped; then 1..32 characters;
2. made only of letters (L*), combining marks (M*) after a letter or digit and at most
   ``MAX_MARKS`` of them on one (counted decomposed: e with circumflex and tilde is e and two
   marks), numbers (N*), punctuation (P*), symbols (S*) and the plain
   space U+0020, never two spaces in a row. Refused: control, format and private characters
   (C*: zero-width joiners and spaces, bidi overrides, soft hyphens), other spaces and
   separators, and the invisible or blank-looking characters Unicode lists as
   Default_Ignorable_Code_Point or that render as nothing (``INVISIBLE``: U+3164 HANGUL
   FILLER, U+2800 BRAILLE PATTERN BLANK, ...);
3. at least one letter, digit or symbol (not only marks, punctuation and spaces);
4. for a person, not a bot's name: its skeleton (below) is not ``bot`` followed by digits.

The skeleton, for the reserved-name check only: NFKC, decomposed with the marks dropped
(``Bȯt`` -> ``Bot``), every decimal digit of any script as its ASCII digit, the look-alikes of
B, O, T, 0 and 1 that NFKC keeps (Greek, Cyrillic, Cherokee, Lisu, Coptic... from Unicode's
confusables.txt) as those letters, lower case, and everything but letters and digits dropped;
then ``0`` reads as ``o`` and ``1``, ``i``, ``|`` as ``l``. So "Bot 1", "BOT-1", the same in
Cyrillic or Greek letters, "B0T l" and "Bot" all read ``bot`` + digits and are the bot's
(tests/services/test_lobby_names.py has the look-alikes).
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME_CHARS = 32
MAX_MARKS = 2  # combining marks in a row on one letter (Vietnamese and Thai need 2)
_VARIATION = {"\ufe0e", "\ufe0f"}  # text/emoji style: dropped, not refused

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt) that are not C* (those are refused
# as C*), and characters that render blank although they are letters or symbols.
INVISIBLE = frozenset(
    [
        "\u034f",  # COMBINING GRAPHEME JOINER
        "\u115f",  # HANGUL CHOSEONG FILLER
        "\u1160",  # HANGUL JUNGSEONG FILLER (what NFKC makes of U+3164)
        "\u17b4",  # KHMER VOWEL INHERENT AQ
        "\u17b5",  # KHMER VOWEL INHERENT AA
        "\u180b",  # MONGOLIAN FREE VARIATION SELECTOR ONE
        "\u180c",  # ... TWO
        "\u180d",  # ... THREE
        "\u180f",  # ... FOUR
        "\u2800",  # BRAILLE PATTERN BLANK
        "\u3164",  # HANGUL FILLER
        "\uffa0",  # HALFWIDTH HANGUL FILLER
        "\u2028",  # LINE SEPARATOR
        "\u2029",  # PARAGRAPH SEPARATOR
    ]
    + [chr(c) for c in range(0xFE00, 0xFE10)]  # VARIATION SELECTOR-1..16 (15, 16 dropped)
    + [chr(c) for c in range(0xE0100, 0xE01F0)]  # VARIATION SELECTOR-17..256
)

# Look-alikes that NFKC leaves alone, from Unicode's confusables.txt (as shipped in
# confusable-homoglyphs 3.3.1), for the letters of the reserved name only.
_LOOKALIKES = {
    "b": "\ua7b4\u0392\u0412\u13f4\u15f7\ua4d0\U00010282\U000102a1\U00010301"  # B
    "\u0184\u042c\u13cf\u1472\u15af\u0432\u03b2",  # b, and Cyrillic ve and Greek beta
    "o": "\u09e6\u0b66\u3007\U000114d0\U000118e0\u039f\u2c9e\u041e\u0555\u2d54\u12d0\u0b20"
    "\U000104c2\ua4f3\U000118b5\U00010292\U000102ab\U00010404\U00010516"  # O
    "\u0c02\u0c82\u0d02\u0d82\u0966\u0a66\u0ae6\u0be6\u0c66\u0ce6\u0d66\u0e50\u0ed0\u1040"
    "\u06f5\u1d0f\u1d11\uab3d\u03bf\u03c3\u2c9f\u043e\u10ff\u0585\u0d20\u101d\U000104ea"
    "\U000118c8\U000118d7\U0001042c",  # o
    "t": "\u22a4\u27d9\U0001f768\u03a4\u2ca6\u0422\u13a2\ua4d4\U00016f0a\U000118bc\U00010297"
    "\U000102b1\U00010315\u03c4\u0442\u1d1b\u2ca7",  # T; tau, te, small T
    "l": "\u2223\u23fd\uffe8\u06f1\U00010320\u0196\u01c0\u0399\u2c92\u0406\u04c0\u2d4f\u16c1"
    "\ua4f2\U00016f28\U0001028a\U00010309\u0131\u0456\u03b9",  # l, I, 1; dotless i, iota
}
_SKELETON = {ord(c): letter for letter, chars in _LOOKALIKES.items() for c in chars}
_READ_AS = str.maketrans("01i|", "olll")  # what a digit or a stroke reads as
_BOT = re.compile(r"bot[0-9lo]*")


class NameProblem(ValueError):
    """Why a display name is refused, as a sentence the player can act on."""


def display_name(raw: str, *, bot: bool = False) -> str:
    """The name as it will be shown; NameProblem if it may not be (see the module)."""
    name = "".join(c for c in unicodedata.normalize("NFKC", raw) if c not in _VARIATION)
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        raise NameProblem(f"display_name must be 1 to {MAX_NAME_CHARS} characters, got {len(name)}")
    visible = False
    for i, c in enumerate(name):
        kind = unicodedata.category(c)
        if c in INVISIBLE or (kind[0] in "CZ" and c != " "):
            raise NameProblem(
                f"display_name may not hold invisible, blank or control characters "
                f"(U+{ord(c):04X} {unicodedata.name(c, 'unnamed')} at position {i + 1}); "
                "use letters, digits, punctuation and single spaces"
            )
        if c == " " and name[i - 1] == " ":
            raise NameProblem("display_name may not hold two spaces in a row")
        visible = visible or kind[0] in "LNS"
    marks = 0
    decomposed = unicodedata.normalize("NFD", name)  # é is e and a mark: count every accent
    for i, c in enumerate(decomposed):
        if unicodedata.category(c)[0] != "M":
            marks = 0
            continue
        marks += 1
        if i == 0 or marks > MAX_MARKS or decomposed[i - 1] == " ":
            raise NameProblem(
                f"display_name may put at most {MAX_MARKS} accents or other combining "
                "marks on a letter, and none on a space or at the start"
            )
    if not visible:
        raise NameProblem("display_name must hold at least one letter, digit or symbol")
    if not bot and reads_as_bot(name):
        raise NameProblem(
            f"{name!r} reads as a bot's name (Bot, Bot 1, ...), which are kept for the bots "
            "so that nobody mistakes a person for one; choose another name"
        )
    return name


def skeleton(name: str) -> str:
    """The name reduced to what the reserved-name check compares (see the module)."""
    plain = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    out = []
    for c in plain:
        if unicodedata.category(c)[0] == "M":
            continue
        if c.isdecimal():
            c = str(unicodedata.decimal(c))
        out.append(_SKELETON.get(ord(c), c))
    folded = "".join(out).casefold()
    kept = "".join(c for c in folded if (c.isascii() and c.isalnum()) or c == "|")
    return kept.translate(_READ_AS)


def reads_as_bot(name: str) -> bool:
    """True for "Bot", "Bot 7" and every look-alike of them."""
    return _BOT.fullmatch(skeleton(name)) is not None
