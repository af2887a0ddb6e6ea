"""Match, the race: 2-4 players race on private copies of the same board, three boards a game.

The rules as implemented are stated in docs/rules-match.md; each one has a test in
tests/rules/race/ named after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.race import commands, events
from match_rules.race.decide import decide, decide_steps, is_terminal, next_deadline
from match_rules.race.state import Phase, RaceState, evolve, initial_state
from match_rules.race.view import Counters, player_counters, player_view, redact


@dataclass(frozen=True)
class RaceDecider:
    """Match, the race, as a :class:`match_rules.decider.Decider`."""

    def decide(self, state: RaceState, command: commands.Command) -> list[events.Event]:
        return decide(state, command)

    def evolve(self, state: RaceState, event: events.Event) -> RaceState:
        return evolve(state, event)

    def is_terminal(self, state: RaceState) -> bool:
        return is_terminal(state)

    def next_deadline(self, state: RaceState) -> int | None:
        return next_deadline(state)


RACE = RaceDecider()

__all__ = [
    "RACE",
    "Counters",
    "Phase",
    "RaceDecider",
    "RaceState",
    "commands",
    "decide",
    "decide_steps",
    "events",
    "evolve",
    "initial_state",
    "is_terminal",
    "next_deadline",
    "player_counters",
    "player_view",
    "redact",
]
