"""Concentration: classic turn-based pairs for 1 to 6 players, with decks, a turn timer and a
CPU that takes over a seat whose player does not come back.

The rules as implemented are stated in docs/rules-concentration.md; each one has a test in
tests/rules/concentration/ named after it.
"""

from __future__ import annotations

from match_rules.concentration import commands, events
from match_rules.concentration.decide import decide, decide_steps, is_terminal, next_deadline
from match_rules.concentration.settings import Matching, Pictures, Settings
from match_rules.concentration.state import ConcentrationState, Phase, evolve, initial_state
from match_rules.concentration.view import player_view, redact

__all__ = [
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
