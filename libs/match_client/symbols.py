"""Names for the 25 symbols, so a player hears and reads ``fish``, not ``symbol 5``.

The server numbers symbols 0..24 (docs/contract.md); these names are the client's own, the same
for every player who uses it. Each name is one short, common word that a screen reader says
clearly, all different; each has an emoji that the full-screen view shows beside the word where
the terminal can draw it. Tiles stay named by their numbers 1..20.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

NAMES: tuple[str, ...] = (
    "sun", "moon", "star", "heart", "clover",
    "fish", "bird", "cat", "dog", "tree",
    "rose", "apple", "bell", "key", "boat",
    "car", "house", "hat", "shoe", "ball",
    "drum", "cup", "book", "lamp", "crown",
)  # fmt: skip
# Each a single code point drawn two cells wide with the emoji presentation by default.
EMOJI: tuple[str, ...] = (
    "\U0001f31e", "\U0001f319", "\u2b50", "\U0001f496", "\U0001f340",
    "\U0001f41f", "\U0001f426", "\U0001f431", "\U0001f436", "\U0001f332",
    "\U0001f339", "\U0001f34e", "\U0001f514", "\U0001f511", "\u26f5",
    "\U0001f697", "\U0001f3e0", "\U0001f3a9", "\U0001f45f", "\u26bd",
    "\U0001f941", "\u2615", "\U0001f4d6", "\U0001f4a1", "\U0001f451",
)  # fmt: skip
WIDTH = max(len(n) for n in NAMES)


def name(symbol: int) -> str:
    """``5`` -> ``fish``; a number outside 0..24 (a newer server) stays a number."""
    return NAMES[symbol] if 0 <= symbol < len(NAMES) else f"symbol {symbol}"


def emoji(symbol: int) -> str:
    return EMOJI[symbol] if 0 <= symbol < len(EMOJI) else "?"


def terminal_shows_emoji(env: Mapping[str, str] = os.environ, encoding: str | None = None) -> bool:
    """Whether to draw emoji: ``MATCH_EMOJI=1``/``0`` decides; otherwise a UTF-8 output on a
    terminal that is not the Linux console (which has no glyphs for them) or ``dumb``."""
    choice = env.get("MATCH_EMOJI", "").strip().lower()
    if choice in ("1", "yes", "true", "on"):
        return True
    if choice in ("0", "no", "false", "off"):
        return False
    encoding = encoding if encoding is not None else (sys.stdout.encoding or "")
    term = env.get("TERM", "")
    return encoding.lower().replace("-", "") == "utf8" and term not in ("linux", "dumb", "")
