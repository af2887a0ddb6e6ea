"""Words for people, shared by every game's telling and the clients: a count with its noun."""

from __future__ import annotations


def count(n: int, one: str, many: str = "") -> str:
    """``1 try``, ``2 tries``, ``3 pairs``: ``many`` defaults to ``one`` + "s"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"
