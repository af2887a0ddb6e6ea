"""A referee's Match Cards game in memory: a known deal, commands at chosen instants."""

from __future__ import annotations

from match_rules.match_cards import commands as cmd
from match_rules.match_cards import events as ev
from match_rules.match_cards.deal import DEAL_VERSION, deal
from match_rules.match_cards.decide import decide_steps
from match_rules.match_cards.settings import Settings
from match_rules.match_cards.state import MatchCardsState, initial_state

T0 = 1_000_000
# seed 1, pairs, 12 cards, Easy, animals; the same with its check symbol mistyped
CODE = "MM3-PAEA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-A6D"
BAD_CHECK = "MM3-PAEA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-A6E"


class Game:
    def __init__(
        self, settings: Settings | None = None, players: tuple[str, ...] = ("ann",), seed: int = 1
    ) -> None:
        settings = settings or Settings()
        dealt = deal(seed.to_bytes(32, "big"), settings)
        self.cards = dealt.cards
        self.code = dealt.code
        self.state: MatchCardsState = initial_state(dealt.cards, dealt.code)
        self.events: list[ev.Event] = []
        self.run(cmd.StartGame(T0, players, settings, DEAL_VERSION))

    def run(self, command: cmd.Command) -> list[ev.Event]:
        steps = decide_steps(self.state, command)
        for event, after in steps:
            self.state = after
            self.events.append(event)
        return [e for e, _ in steps]

    def turn(self, card: int, at: int = T0, player: str = "ann") -> list[ev.Event]:
        return self.run(cmd.TurnCard(at, player, card))

    def cards_of(self, picture: str) -> list[int]:
        return [n for n, p in enumerate(self.cards, start=1) if p == picture]

    def groups(self) -> list[list[int]]:
        seen: dict[str, list[int]] = {}
        for n, p in enumerate(self.cards, start=1):
            seen.setdefault(p, []).append(n)
        return list(seen.values())

    def miss(self) -> list[int]:
        """Cards of one attempt that do not all match."""
        groups = self.groups()
        size = len(groups[0])
        return [groups[0][0], groups[1][0], *groups[2][: size - 2]]

    def attempt(self, cards: list[int], at: int, player: str = "ann") -> int:
        """Turn ``cards`` at ``at`` and let the compare fire; the instant after it."""
        for card in cards:
            self.turn(card, at, player)
        self.run(cmd.Tick(at + 1_500))
        return at + 1_500
