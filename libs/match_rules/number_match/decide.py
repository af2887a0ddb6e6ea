"""``decide``: all the judgement of Number Match.

Every command first lets time pass up to its ``now`` (the idle limit can end the game), then it
is judged on that state. A refused command raises RuleError and yields no event.

* A pair: two numbers on the board, equal or adding up to 10, that see each other (only empty
  cells between them in a row, a column, a diagonal, or in reading order). Points: 1 touching,
  4 across empty cells, 10 per row it empties, 150 for the clear board.
* An addition copies every number after the last one, within the level's additions (Classic:
  no limit but the board's :data:`~match_rules.number_match.board.MAX_CELLS`). A level's board
  is capped only at :data:`~match_rules.number_match.board.LEVEL_CELLS`, which its additions
  never reach, so every addition the counter shows can be made (:func:`cap`; issue 31, item
  10: games dealt with number-match-deal-v1 keep the 540 cells they were played with).
* A hint is exact: a pair after which the board can still be cleared with the additions left
  (the witness's next step while the player follows it, else the solver's), "add numbers" when
  only an addition keeps it clearable, or "stuck". When the solver cannot decide within
  :data:`HINT_BUDGET` positions the hint is refused and not counted: never a guess.
* Undo takes back the last pair or addition (and its points), many in a row; hints stay used.
* The game is over when the board is clear, when no pair and no addition is left, when the
  player ends it, or after :data:`IDLE_MS` without a command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from match_rules.decide import Log, Rules
from match_rules.errors import Code, RuleError
from match_rules.number_match import board as boards
from match_rules.number_match import commands as cmd
from match_rules.number_match import events as ev
from match_rules.number_match import generate, solver
from match_rules.number_match import witness as witnesses
from match_rules.number_match.errors import NumberMatchCode
from match_rules.number_match.settings import HINTS, check, today
from match_rules.number_match.state import NumberMatchState, Phase, evolve

IDLE_MS = 30 * 60_000  # a game nobody plays for 30 minutes ends, so no table stays open for ever
HINT_BUDGET = solver.HINT_BUDGET  # positions the solver may visit for one hint


_Log = Log[NumberMatchState, ev.Event]  # the events decided so far, and the state after each


def next_deadline(state: NumberMatchState) -> int | None:
    """When time alone changes the game next: the idle limit."""
    if state.phase is not Phase.PLAYING:
        return None
    return state.active_at + IDLE_MS


def is_terminal(state: NumberMatchState) -> bool:
    return state.phase is Phase.OVER


def cap(state: NumberMatchState) -> int:
    """The most cells an addition may make: Classic's :data:`~boards.MAX_CELLS`; a level's
    :data:`~boards.LEVEL_CELLS`, which its additions never reach, except in a game dealt with
    number-match-deal-v1, which was played (and is audited) with 540 cells for every level."""
    if state.additions is None or state.deal_version == generate.V1:
        return boards.MAX_CELLS
    return boards.LEVEL_CELLS


def can_add(state: NumberMatchState) -> bool:
    """An addition is allowed: one is left, and the copies fit on the board."""
    return state.additions_left != 0 and boards.can_add(state.board, cap(state))


def stuck_for_good(state: NumberMatchState) -> bool:
    """No pair and no addition left: the game is over."""
    return not can_add(state) and not boards.pair_moves(state.board)


def _pass_time(log: _Log, now: int) -> None:
    """The idle limit, if it has passed by ``now``."""
    deadline = next_deadline(log.state)
    if deadline is not None and now >= deadline:
        _over(log, deadline, ev.Outcome.IDLE)


def _over(log: _Log, at: int, outcome: ev.Outcome) -> None:
    s = log.state
    log.emit(
        ev.GameOver(
            at=at,
            player=s.player,
            outcome=outcome,
            score=s.score,
            time_ms=at - s.started_at,
            moves=len(s.path),
            hints_used=s.hints_used,
            witness=s.witness if s.witness is not None else (),
        )
    )


def _playing(state: NumberMatchState, player: str) -> None:
    if state.phase is Phase.NOT_STARTED:
        raise RuleError(Code.GAME_NOT_STARTED, "the game has not started yet")
    if state.phase is Phase.OVER:
        raise RuleError(
            Code.GAME_OVER,
            "the game is over: nothing more can be played, undone or hinted; play the same "
            "board again with its revealed seed as replay_seed, or start a new game",
        )
    if player != state.player:
        raise RuleError(Code.NOT_SEATED, "only the table's player plays its board")


def _start(log: _Log, c: cmd.StartGame) -> None:
    s = log.state
    if s.phase is not Phase.NOT_STARTED:
        raise RuleError(Code.GAME_ALREADY_STARTED, "the game has already started")
    check(c.settings)
    if s.dealt is None or s.witness is None:
        raise ValueError("the referee's state must hold the deal before the game starts")
    if c.settings.daily:
        now_date = today(c.now, c.settings.utc_offset_minutes)
        if now_date != c.settings.daily_date:
            raise RuleError(
                NumberMatchCode.DAILY_NOT_TODAY,
                f"it is {now_date} at UTC{c.settings.utc_offset_minutes / 60:+g}; the daily "
                f"puzzle of {c.settings.daily_date} can only be started on that day: ask for "
                f"{now_date}",
            )
    additions = c.settings.level.additions
    if additions != s.dealt_additions:
        raise ValueError(f"the deal gives {s.dealt_additions} additions, the level {additions}")
    log.emit(
        ev.GameStarted(
            at=c.now,
            player=c.player,
            settings=c.settings,
            deal_version=c.deal_version,
            board=s.dealt,
            additions=additions,
            hints=HINTS,
            witness_commitment=witnesses.commitment(s.dealt, additions, s.witness),
            daily_date=c.settings.daily_date,
            replay=c.settings.replay,
        )
    )


def _cell(state: NumberMatchState, cell: int) -> int:
    size = len(state.board)
    if not 1 <= cell <= size:
        raise RuleError(
            NumberMatchCode.CELL_OUT_OF_RANGE,
            f"cell {cell} is not on the board: its cells are numbered 1 to {size}, row by row, "
            "as it is now",
        )
    number = state.board[cell - 1]
    if number == 0:
        raise RuleError(NumberMatchCode.CELL_EMPTY, f"cell {cell} is empty: pick two numbers")
    return number


def _end_if_done(log: _Log) -> None:
    s = log.state
    if not any(s.board):
        _over(log, s.now, ev.Outcome.CLEARED)
    elif stuck_for_good(s):
        _over(log, s.now, ev.Outcome.NO_MOVES)


def _pair(log: _Log, c: cmd.PairCells) -> None:
    s = log.state
    _playing(s, c.player)
    a, b = _cell(s, c.first), _cell(s, c.second)
    if c.first == c.second:
        raise RuleError(
            NumberMatchCode.SAME_CELL, f"cell {c.first} twice: pick two different numbers"
        )
    if not boards.pairs_with(a, b):
        raise RuleError(
            NumberMatchCode.NOT_A_PAIR,
            f"{a} and {b} are not a pair: two numbers pair when they are equal or add up to 10",
        )
    i, j = sorted((c.first - 1, c.second - 1))
    if not boards.sees(s.board, i, j):
        raise RuleError(
            NumberMatchCode.CELLS_BLOCKED,
            f"cells {c.first} and {c.second} do not see each other: a pair lies in one row, "
            "column or diagonal, or follows in reading order, with only empty cells between",
        )
    after, rows = boards.remove_pair(s.board, i, j)
    points = boards.points_for(s.board, i, j, rows, boards.is_clear(after))
    log.emit(
        ev.CellsPaired(
            at=c.now,
            player=c.player,
            first=i + 1,
            second=j + 1,
            points=points,
            rows_removed=rows,
            score=s.score + points,
        )
    )
    _end_if_done(log)


def _add(log: _Log, c: cmd.AddNumbers) -> None:
    s = log.state
    _playing(s, c.player)
    if s.additions_left == 0:
        raise RuleError(
            NumberMatchCode.NO_ADDITIONS_LEFT,
            f"no addition is left ({s.settings.level.name.lower()} gives {s.additions}): "
            "find a pair, undo, or ask for a hint",
        )
    if not boards.can_add(s.board, cap(s)):
        raise RuleError(
            NumberMatchCode.BOARD_FULL,
            f"the copies would not fit: a board holds at most {cap(s)} cells; find a pair or undo",
        )
    left = None if s.additions_left is None else s.additions_left - 1
    count = sum(1 for n in s.board if n)
    log.emit(ev.NumbersAdded(at=c.now, player=c.player, count=count, additions_left=left))
    _end_if_done(log)


def _following(state: NumberMatchState) -> ev.Step | None:
    """The witness's next step while every move made so far is the witness's."""
    w = state.witness
    if w is None or len(state.path) >= len(w) or w[: len(state.path)] != state.path:
        return None
    return w[len(state.path)]


def _hint(log: _Log, c: cmd.AskHint) -> None:
    s = log.state
    _playing(s, c.player)
    if s.hints_left == 0:
        raise RuleError(
            Code.HINT_LIMIT_REACHED, f"all {HINTS} hints of this game are used (undo keeps them)"
        )
    follow = _following(s)
    if follow is not None and not follow.add:
        kind, first, second = ev.HintKind.PAIR, follow.first, follow.second
    else:
        answer = solver.hint(s.board, s.additions_left, HINT_BUDGET, cap(s))
        if answer.kind is solver.HintKind.UNKNOWN:
            raise RuleError(
                NumberMatchCode.HINT_UNDECIDED,
                f"the solver could not decide within its budget of {HINT_BUDGET} positions, "
                "so no hint was used: it never guesses; try again after a move",
            )
        kind = ev.HintKind[answer.kind.name]
        first, second = (0, 0) if answer.pair is None else (answer.pair[0] + 1, answer.pair[1] + 1)
    log.emit(
        ev.HintGiven(
            at=c.now,
            player=c.player,
            kind=kind,
            first=first,
            second=second,
            hints_left=s.hints_left - 1,
        )
    )


def _undo(log: _Log, c: cmd.Undo) -> None:
    s = log.state
    _playing(s, c.player)
    if not s.history:
        raise RuleError(
            NumberMatchCode.NOTHING_TO_UNDO, "nothing to undo: no pair or addition was made"
        )
    last, before = s.path[-1], s.history[-1]
    log.emit(
        ev.MoveUndone(
            at=c.now,
            player=c.player,
            undone=ev.Undone.ADD if last.add else ev.Undone.PAIR,
            score=before.score,
            additions_left=before.additions_left,
        )
    )


def _end(log: _Log, c: cmd.EndGame) -> None:
    _playing(log.state, c.player)
    _over(log, c.now, ev.Outcome.GAVE_UP)


_HANDLERS: dict[type, Callable[[_Log, Any], None]] = {
    cmd.StartGame: _start,
    cmd.PairCells: _pair,
    cmd.AddNumbers: _add,
    cmd.AskHint: _hint,
    cmd.Undo: _undo,
    cmd.EndGame: _end,
}

RULES = Rules(evolve, _pass_time, _HANDLERS, cmd.Tick, next_deadline, is_terminal)
decide_steps = RULES.decide_steps
decide = RULES.decide
