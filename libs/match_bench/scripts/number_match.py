"""Number Match: one seat, the default level; it plays the deal's witness (the complete
clearing the dealer found), step by step, to a clear board."""

from __future__ import annotations

from typing import Any

from match.v1 import dealer_pb2, number_match_pb2

SEATS = 1


def settings() -> number_match_pb2.NumberMatchSettings:
    return number_match_pb2.NumberMatchSettings()


class Script:
    def __init__(self, deal: dealer_pb2.Deal, seats: int) -> None:
        self.steps = list(deal.number_match.witness)
        self.position = 0

    def next(self, seat: int) -> tuple[str, dict[str, Any]] | None:
        if self.position >= len(self.steps):
            return None
        step = self.steps[self.position]
        if step.add:
            return "AddNumbers", {}
        return "PairCells", {"first": step.first, "second": step.second}

    def answered(self, seat: int, reply: Any) -> None:
        self.position += 1

    def pause_s(self, seat: int) -> float:
        return 0.0
