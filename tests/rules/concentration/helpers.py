"""Given / when / then for Concentration: a game driven through the pure core only."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from match_rules.concentration import Settings, decide, evolve, initial_state
from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration.state import ConcentrationState
from match_rules.deal import Strength
from match_rules.errors import Code, RuleError

# 24 emoji cards: card n shows picture (n - 1) // 2, so the pairs are (1, 2), (3, 4), ... (23, 24).
SMALL = Settings(cards=24)
CARDS = tuple(f"p{(n - 1) // 2}" for n in range(1, 25))
PAIRS = [(2 * i + 1, 2 * i + 2) for i in range(12)]
T = 1_000_000  # when the host started the game
ANN, BOB, CAT = "ann", "bob", "cat"
CPU_SEED = bytes(range(32))


@dataclass
class Game:
    """A game in progress. ``when`` runs a command, keeps its events and returns them."""

    state: ConcentrationState
    log: list[ev.Event] = field(default_factory=list)

    @classmethod
    def new(
        cls, cards: tuple[str, ...] = CARDS, strength: Strength = Strength.MEDIUM
    ) -> Game:
        return cls(initial_state(cards, CPU_SEED, strength))

    @classmethod
    def started(
        cls,
        players: tuple[str, ...] = (ANN, BOB),
        settings: Settings = SMALL,
        cpus: frozenset[str] = frozenset(),
        cards: tuple[str, ...] = CARDS,
        strength: Strength = Strength.MEDIUM,
    ) -> Game:
        game = cls.new(cards, strength)
        game.when(cmd.StartGame(T, players, cpus, settings, "test-deal"))
        return game

    def when(self, command: cmd.Command) -> list[ev.Event]:
        events = decide(self.state, command)
        for e in events:
            self.state = evolve(self.state, e)
        self.log.extend(events)
        return events

    def flip(self, at: int, player: str, *cards: int) -> list[ev.Event]:
        out: list[ev.Event] = []
        for card in cards:
            out += self.when(cmd.FlipCard(at, player, card))
        return out

    def refused(self, command: cmd.Command, code: Code) -> RuleError:
        before = self.state
        with pytest.raises(RuleError) as caught:
            decide(self.state, command)
        assert caught.value.code is code, caught.value
        assert self.state == before
        return caught.value
