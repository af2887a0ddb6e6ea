"""Match, the race: 2-4 players race on private copies of the same board, three boards a game.

The rules as implemented are stated in docs/rules-race.md; each one has a test in
tests/rules/race/ named after it.
"""

from __future__ import annotations

from match_rules.race import commands, events
from match_rules.race.decide import decide, decide_steps, is_terminal, next_deadline
from match_rules.race.state import Phase, RaceState, evolve, initial_state
from match_rules.race.view import Counters, player_counters, player_view, redact

__all__ = [
    "Counters",
    "Phase",
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
