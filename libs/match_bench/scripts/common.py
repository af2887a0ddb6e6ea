"""What more than one game's script does: turning cards over group by group."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import Any


def grouped(faces: Sequence[Hashable]) -> list[list[int]]:
    """The cards (1-based) by equal faces, each group in the order of its first card: turned
    group after group, they only ever complete groups."""
    where: dict[Hashable, list[int]] = {}
    for card, face in enumerate(faces, start=1):
        where.setdefault(face, []).append(card)
    return list(where.values())


class Flips:
    """One seat turning the cards of ``faces`` over, group after group, with the rpc ``rpc``
    whose request names the card in ``field``; after a group's last card it waits
    ``after_group_s`` (the game's time to compare an attempt, when it has one)."""

    rpc = ""
    field = ""
    after_group_s = 0.0

    def __init__(self, faces: Sequence[Hashable]) -> None:
        groups = grouped(faces)
        self.order = [card for group in groups for card in group]
        # the positions just after a group's last card
        self.ends = set(itertools.accumulate(len(group) for group in groups))
        self.position = 0

    def next(self, seat: int) -> tuple[str, dict[str, Any]] | None:
        if self.position >= len(self.order):
            return None
        return self.rpc, {self.field: self.order[self.position]}

    def answered(self, seat: int, reply: Any) -> None:
        self.position += 1

    def pause_s(self, seat: int) -> float:
        """How long to wait before the next command."""
        return self.after_group_s if self.position in self.ends else 0.0
