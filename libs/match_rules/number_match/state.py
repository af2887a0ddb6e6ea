"""The state of one game of Number Match, and ``evolve``: it records, it never judges.

The board lives in the events (GameStarted lays it out, every later event changes it in a way
the rules compute again), so a projection folded from the log alone holds everything the player
sees. Only the referee's state holds the deal's witness before the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from match_rules.number_match import board as boards
from match_rules.number_match import events as ev
from match_rules.number_match.settings import Settings

if TYPE_CHECKING:  # mypy checks each call's fields against dataclasses.replace
    from dataclasses import replace
else:  # the same, faster: match_rules.copying
    from match_rules.copying import replace

_DEFAULT = Settings()


class Phase(Enum):
    NOT_STARTED = "not_started"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Before:
    """What an undo restores: the board, additions left and score before a move."""

    board: tuple[int, ...]
    additions_left: int | None
    score: int


@dataclass(frozen=True, slots=True)
class Hint:
    kind: ev.HintKind
    first: int = 0
    second: int = 0


@dataclass(frozen=True, slots=True)
class NumberMatchState:
    """A game folded from its events. ``dealt`` and ``witness`` are the deal (the referee's
    state only, from :func:`with_deal`); ``path`` is the moves made and not undone, so that a
    hint can follow the witness while the player does."""

    dealt: tuple[int, ...] | None = None
    witness: tuple[ev.Step, ...] | None = None
    dealt_additions: int | None = None
    phase: Phase = Phase.NOT_STARTED
    now: int = 0
    player: str = ""
    settings: Settings = _DEFAULT
    deal_version: str = ""
    start_board: tuple[int, ...] = ()
    board: tuple[int, ...] = ()
    additions: int | None = 0  # what the level gives; None: no limit
    additions_left: int | None = 0
    hints_left: int = 0
    hints_used: int = 0
    score: int = 0
    history: tuple[Before, ...] = ()
    path: tuple[ev.Step, ...] = ()
    hint: Hint | None = None  # the last hint, while the board is as it was
    started_at: int = 0
    active_at: int = 0  # the last accepted command: the idle limit counts from it
    witness_commitment: str = ""
    revealed: tuple[ev.Step, ...] | None = None  # the witness, once over
    outcome: ev.Outcome | None = None
    time_ms: int = 0
    replay: bool = False


def initial_state(
    dealt: tuple[int, ...] | None = None, witness: tuple[ev.Step, ...] | None = None
) -> NumberMatchState:
    """The state before StartGame: the referee passes in the deal, a projection nothing."""
    return NumberMatchState(dealt=dealt, witness=witness)


def _moved(state: NumberMatchState, at: int, step: ev.Step, **changes: object) -> NumberMatchState:
    before = Before(state.board, state.additions_left, state.score)
    return replace(
        state,
        now=at,
        active_at=at,
        history=(*state.history, before),
        path=(*state.path, step),
        hint=None,
        **changes,  # type: ignore[arg-type]
    )


def evolve(state: NumberMatchState, event: ev.Event) -> NumberMatchState:
    match event:
        case ev.GameStarted():
            return replace(
                state,
                phase=Phase.PLAYING,
                now=event.at,
                player=event.player,
                settings=event.settings,
                deal_version=event.deal_version,
                start_board=event.board,
                board=event.board,
                additions=event.additions,
                additions_left=event.additions,
                hints_left=event.hints,
                started_at=event.at,
                active_at=event.at,
                witness_commitment=event.witness_commitment,
                replay=event.replay,
            )
        case ev.CellsPaired():
            after, _ = boards.remove_pair(state.board, event.first - 1, event.second - 1)
            step = ev.Step(False, event.first, event.second)
            return _moved(state, event.at, step, board=after, score=event.score)
        case ev.NumbersAdded():
            return _moved(
                state,
                event.at,
                ev.Step(True, 0, 0),
                board=boards.add_numbers(state.board, boards.LEVEL_CELLS),  # decide checked
                additions_left=event.additions_left,
            )
        case ev.HintGiven():
            return replace(
                state,
                now=event.at,
                active_at=event.at,
                hints_left=event.hints_left,
                hints_used=state.hints_used + 1,
                hint=Hint(event.kind, event.first, event.second),
            )
        case ev.MoveUndone():
            before = state.history[-1]
            return replace(
                state,
                now=event.at,
                active_at=event.at,
                board=before.board,
                additions_left=event.additions_left,
                score=event.score,
                history=state.history[:-1],
                path=state.path[:-1],
                hint=None,
            )
        case ev.GameOver():
            return replace(
                state,
                phase=Phase.OVER,
                now=event.at,
                outcome=event.outcome,
                score=event.score,
                time_ms=event.time_ms,
                revealed=event.witness,
                hint=None,
            )
    raise TypeError(f"not an event of Number Match: {event!r}")  # pragma: no cover
