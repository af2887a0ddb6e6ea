"""Leaderboard names: one canonical form, the one ``GetLeaderboard`` lists in ``boards``.

A game names its boards (``match_rules.game.Entry.board``): ``level-hard``,
``daily-2026-12-01``, and Match Cards' ``code-`` + its game code, which is upper case
(``code-MM3-PBMB-...``, 77 characters). The canonical name is the lower-case one
(``code-mm3-pbmb-...``): the players' read models store and list it, and a request names a board
in any case (the listed name, or the game code as the end of the game shows it), which is
folded to it. So every board a listing names can be opened as it is named, and in upper case.
"""

from __future__ import annotations

import re

# The longest name a game gives: Match Cards' ``code-`` and a 72-character code (77), with room.
MAX_CHARS = 80
_NAME = re.compile(r"[A-Za-z0-9-]*")


def canonical(name: str) -> str:
    """The board's canonical name: ``name`` in lower case (ASCII only: see :func:`problem`)."""
    return name.lower()


def problem(name: str) -> str | None:
    """What is wrong with a board named in a request, in words a person can act on, or None."""
    if len(name) <= MAX_CHARS and _NAME.fullmatch(name):
        return None
    shown = name if len(name) <= 40 else name[:40] + "..."
    return (
        f"board {shown!r} is not a board name: at most {MAX_CHARS} letters, digits and dashes "
        "(case does not matter), as the leaderboard's `boards` name them (empty for the game's "
        "main board)"
    )


def unknown(game: str, name: str, boards: list[str]) -> str:
    """Why a board named in a request opens nothing: ``game`` (its title) has no board ``name``.
    ``boards`` are the game's boards that have rows (``GetLeaderboard``'s ``boards``); the main
    board ("") always opens, so it is named first, with how to ask for it. A board appears once
    a ranked game puts a result on it: a level nobody has finished yet has no board either."""
    others = [board for board in boards if board]
    listed = "the main board (an empty board name)" + "".join(f", {b}" for b in others)
    return (
        f"{game} has no board {name!r}: its boards are {listed}. "
        "A board appears once a ranked game puts a result on it"
    )
