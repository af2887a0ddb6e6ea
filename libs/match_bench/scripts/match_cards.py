"""Match Cards: one seat, the default board; it turns the cards group by group (a pair, or a
triple) in the deal's order, so no attempt fails. Cards turned while the last attempt is being
compared would be refused: after an attempt's last card it waits for the comparison."""

from __future__ import annotations

from match.v1 import dealer_pb2, match_cards_pb2
from match_bench.scripts.common import Flips
from match_rules.match_cards.decide import COMPARE_MS

SEATS = 1


def settings() -> match_cards_pb2.MatchCardsSettings:
    return match_cards_pb2.MatchCardsSettings()


class Script(Flips):
    rpc = "TurnCard"
    field = "card"
    after_group_s = (COMPARE_MS + 100) / 1000  # the attempt is compared, then the next

    def __init__(self, deal: dealer_pb2.Deal, seats: int) -> None:
        super().__init__(list(deal.match_cards.cards))
