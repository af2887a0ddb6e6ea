"""Concentration: classic turn-based pairs for 1 to 6 players, with decks, a turn timer and a
CPU that takes over a seat whose player does not come back.

The rules as implemented are stated in docs/rules-concentration.md; each one has a test in
tests/rules/concentration/ named after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.concentration import commands, events
from match_rules.concentration.decide import decide, decide_steps, is_terminal, next_deadline
from match_rules.concentration.settings import Matching, Pictures, Settings
from match_rules.concentration.state import ConcentrationState, Phase, evolve, initial_state
from match_rules.concentration.view import player_view, redact


@dataclass(frozen=True)
class ConcentrationDecider:
    """Concentration as a :class:`match_rules.decider.Decider`."""

    def decide(self, state: ConcentrationState, command: commands.Command) -> list[events.Event]:
        return decide(state, command)

    def evolve(self, state: ConcentrationState, event: events.Event) -> ConcentrationState:
        return evolve(state, event)

    def is_terminal(self, state: ConcentrationState) -> bool:
        return is_terminal(state)

    def next_deadline(self, state: ConcentrationState) -> int | None:
        return next_deadline(state)


CONCENTRATION = ConcentrationDecider()

__all__ = [
    "CONCENTRATION",
    "ConcentrationDecider",
    "ConcentrationState",
    "Matching",
    "Phase",
    "Pictures",
    "Settings",
    "commands",
    "decide",
    "decide_steps",
    "events",
    "evolve",
    "initial_state",
    "is_terminal",
    "next_deadline",
    "player_view",
    "redact",
]
