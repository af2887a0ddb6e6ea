"""MATCH 5: three seats (its fewest), the longest sand timer; each seat writes a link for each
of the 10 combinations and erases them again, ``ROUNDS`` times, inside round 1's writing. What a
MATCH 5 table sends most (links written and erased) is scripted; the reading and the votes
(timed, 10 s and more per combination) are not: a table ends its script still writing."""

from __future__ import annotations

from typing import Any

from match.v1 import dealer_pb2, match_five_pb2
from match_rules.match_five import content

SEATS = 3
COMBINATIONS = len(content.COMBINATIONS)  # the rules' ten, numbered 1..10
ROUNDS = 3  # write-all-then-erase-all passes per seat: 60 commands


def settings() -> match_five_pb2.MatchFiveSettings:
    return match_five_pb2.MatchFiveSettings(writing_seconds=600, vote_seconds=10)


class Script:
    def __init__(self, deal: dealer_pb2.Deal, seats: int) -> None:
        self.position = [0] * seats

    def next(self, seat: int) -> tuple[str, dict[str, Any]] | None:
        n = self.position[seat]
        if n >= ROUNDS * 2 * COMBINATIONS:
            return None
        erasing, index = divmod(n % (2 * COMBINATIONS), COMBINATIONS)
        combination = index + 1
        if erasing:
            return "EraseLink", {"combination": combination}
        # A link is the writer's for one combination only: a word per seat and combination.
        return "WriteLink", {"combination": combination, "text": f"word{seat}x{combination}"}

    def answered(self, seat: int, reply: Any) -> None:
        self.position[seat] += 1

    def pause_s(self, seat: int) -> float:
        return 0.0
