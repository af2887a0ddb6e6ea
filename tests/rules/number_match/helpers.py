"""Small hand-made games of Number Match for the rules tests."""

from __future__ import annotations

from dataclasses import replace

from match_rules.number_match import commands as cmd
from match_rules.number_match import events as ev
from match_rules.number_match.board import Level
from match_rules.number_match.decide import decide_steps
from match_rules.number_match.generate import DEAL_VERSION
from match_rules.number_match.settings import Settings
from match_rules.number_match.state import NumberMatchState, initial_state

T0 = 1_764_547_200_000  # 2025-12-01T00:00:00Z
ME = "p1"


def steps(text: str) -> tuple[ev.Step, ...]:
    """``"1-2,+,3-4"``: pairs of 1-based cells and additions."""
    out = []
    for part in filter(None, text.split(",")):
        if part == "+":
            out.append(ev.Step(True, 0, 0))
        else:
            a, b = part.split("-")
            out.append(ev.Step(False, int(a), int(b)))
    return tuple(out)


def started(
    board: tuple[int, ...],
    witness: str,
    level: Level = Level.EASY,
    at: int = T0,
    settings: Settings | None = None,
    version: str = DEAL_VERSION,
) -> NumberMatchState:
    """A game of ``board`` started at ``at``, with ``witness`` as its deal's, dealt with
    ``version`` (the current one unless said)."""
    chosen = settings or Settings(level)
    state = replace(initial_state(board, steps(witness)), dealt_additions=chosen.level.additions)
    return run(state, cmd.StartGame(at, ME, chosen, version))


def run(state: NumberMatchState, *commands: cmd.Command) -> NumberMatchState:
    for command in commands:
        for _, after in decide_steps(state, command):
            state = after
    return state


def events(state: NumberMatchState, command: cmd.Command) -> list[ev.Event]:
    return [event for event, _ in decide_steps(state, command)]


def pair(first: int, second: int, at: int = T0 + 1_000) -> cmd.PairCells:
    return cmd.PairCells(at, ME, first, second)
