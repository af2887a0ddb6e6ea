"""What a link is, as text: its limits, and the form in which two links are "the same".

A link is stored exactly as written (the log holds it, the audit re-runs the votes over it).
Two links are compared after :func:`normalise`: case, accents, spacing and punctuation do not
count, so "Shark", "shark!" and " SHÄRK " are one link, while "Adam's apple" and "Adams apple"
are two (a player may call "Match!" on those). Pure: :mod:`unicodedata` only (Python 3.11's
Unicode 14 tables: the audit must run the same version to get the same answers).
"""

from __future__ import annotations

import unicodedata

from match_rules.errors import RuleError
from match_rules.match_five.errors import MatchFiveCode
from match_rules.match_five.settings import LINK_MAX_CHARS

# Unicode categories a link may not hold: control, format (zero-width, bidi overrides),
# surrogate, private use and unassigned characters; newlines and tabs are controls.
FORBIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})


def _folded(text: str) -> str:
    """NFKD, then without combining marks."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))


def normalise(text: str) -> str:
    """The form two links are compared in: NFKD, combining marks dropped, case folded (then
    NFKD and marks again, for the few letters whose folding brings one); letters and digits
    kept; a run of spaces and punctuation made one space; anything else (symbols) dropped;
    no space at either end. "  Shárk-Fin!! " -> "shark fin"."""
    out: list[str] = []
    for c in _folded(_folded(text).casefold()):
        kind = unicodedata.category(c)[0]
        if kind in "LN":  # pragma: no mutate (equivalent: kind is one letter, never X)
            out.append(c)
        elif kind in "PZ":  # pragma: no mutate (equivalent: kind is one letter, never X)
            out.append(" ")
    return " ".join("".join(out).split())


def bad_character(text: str) -> str | None:
    """The first character a link may not hold, or None."""
    return next((c for c in text if unicodedata.category(c) in FORBIDDEN), None)


def check(text: str) -> None:
    """Refuse a link that is too long, holds a forbidden character, or has nothing in it."""
    if len(text) > LINK_MAX_CHARS:
        raise RuleError(
            MatchFiveCode.LINK_TOO_LONG,
            f"the link has {len(text)} characters; a link has at most {LINK_MAX_CHARS}: shorten it",
        )
    bad = bad_character(text)
    if bad is not None:
        name = unicodedata.name(bad, f"U+{ord(bad):04X}")
        raise RuleError(
            MatchFiveCode.LINK_INVALID_CHARACTERS,
            f"the link holds a control or invisible character ({name}): write it on one line, "
            "with letters, digits, spaces and punctuation",
        )
    if not normalise(text):
        raise RuleError(
            MatchFiveCode.LINK_EMPTY,
            "the link has no letter or digit: write a word (or erase the link)",
        )
