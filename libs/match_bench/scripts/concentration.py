"""Concentration: one seat (a solo table starts at once), the default deck; it flips the cards
pair by pair in the deal's order, so it never misses."""

from __future__ import annotations

from match.v1 import concentration_pb2, dealer_pb2
from match_bench.scripts.common import Flips

SEATS = 1


def settings() -> concentration_pb2.ConcentrationSettings:
    return concentration_pb2.ConcentrationSettings()


class Script(Flips):
    rpc = "FlipCard"
    field = "card"

    def __init__(self, deal: dealer_pb2.Deal, seats: int) -> None:
        super().__init__(list(deal.concentration.cards))
