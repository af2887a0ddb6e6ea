"""Display names: what a person may be called at a table. Pure.

An allow-list built on ``unicodedata`` (Python 3.11: Unicode 14) for what a name may hold, and
Unicode's confusables data for what it may read as. A name is

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
(``Bȯt`` -> ``Bot``), every decimal digit of any script as its ASCII digit, then each other
character that is not ASCII read as the letter it looks like:

- from Unicode's confusables.txt (the copy ``confusable-homoglyphs`` 3.3.1 ships: the only
  kept package with the data; we use its data, not its checks): the characters confusable with
  B, O, T and l, I, 1, | in either case (Greek, Cyrillic, Cherokee, Lisu, Coptic, small
  capitals, mathematical letters...), and those confusable with their other case (Cyrillic
  ``в`` with ``ʙ``);
- failing that, from the character's Unicode name: a Latin letter however it is dressed
  (``Ƀ`` LATIN CAPITAL LETTER B WITH STROKE, ``ø``, ``🅱`` NEGATIVE SQUARED LATIN CAPITAL
  LETTER B, ``ᴛ`` LATIN LETTER SMALL CAPITAL T) reads as that letter;

lower case, and everything but letters and digits dropped; then ``0`` reads as ``o`` and
``1``, ``i``, ``|`` as ``l``. So "Bot 1", "BOT-1", the same in Cyrillic or Greek letters,
"B0T l", "ʙᴏᴛ 1", "Ƀot 1", "Bøt 1", "🅱🅾🆃 1" and "Bot" all read ``bot`` + digits and are the
bot's (tests/services/test_lobby_names.py has the look-alikes). ASCII characters are never
re-read (``y``, ``6`` stay themselves): a name in plain letters says what it says.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path

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

# The letters of the reserved name and what reads as them (the skeleton's targets).
_RESERVED = {"b": "Bb", "o": "Oo0", "t": "Tt", "l": "lI1|"}
_LATIN_NAME = re.compile(
    r"LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL )?([A-Z])(?: WITH [A-Z -]+)?$"
)


def _confusables() -> dict[str, set[str]]:
    """confusables.txt as groups: each character linked to those it is confusable with."""
    import confusable_homoglyphs  # type: ignore[import-untyped]

    path = Path(confusable_homoglyphs.__file__).with_name("confusables.json")
    links: dict[str, set[str]] = {}
    for char, homoglyphs in json.loads(path.read_text(encoding="utf-8")).items():
        for other in (h["c"] for h in homoglyphs):
            if len(char) == 1 and len(other) == 1 and char != other:
                links.setdefault(char, set()).add(other)
                links.setdefault(other, set()).add(char)
    return links


def _group(links: dict[str, set[str]], char: str) -> set[str]:
    seen, todo = {char}, [char]
    while todo:
        for other in links.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


@functools.cache
def _lookalikes() -> dict[int, str]:
    """Every non-ASCII character confusable with a letter of the reserved name, or with its
    other case, mapped to that letter."""
    links = _confusables()
    table: dict[int, str] = {}
    for letter, seeds in _RESERVED.items():
        first = set().union(*(_group(links, seed) for seed in seeds))
        every = set(first)
        for char in first:
            for case in (char.lower(), char.upper()):
                if len(case) == 1:
                    every |= _group(links, case)
        table.update({ord(c): letter for c in every if not c.isascii()})
    return table


def _latin_letter(char: str) -> str:
    """The Latin letter a character is by its Unicode name (``Ƀ``: B), else itself."""
    found = _LATIN_NAME.search(unicodedata.name(char, ""))
    return found.group(1) if found else char


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
        if not c.isascii():
            c = _lookalikes().get(ord(c)) or _latin_letter(c)
        out.append(c)
    folded = "".join(out).casefold()
    kept = "".join(c for c in folded if (c.isascii() and c.isalnum()) or c == "|")
    return kept.translate(_READ_AS)


def reads_as_bot(name: str) -> bool:
    """True for "Bot", "Bot 7" and every look-alike of them."""
    return _BOT.fullmatch(skeleton(name)) is not None
