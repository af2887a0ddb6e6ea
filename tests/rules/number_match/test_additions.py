"""Every addition a level shows as left can be made (issue 31, item 10).

The seed gives each level its additions ("Leicht 27 | 5") and says the small number on the
button shows how many are left. Before, every board was capped at 540 cells, so adding straight
away on Easy went 27 -> 54 -> 108 -> 216 -> 432 and then the fifth was refused (`board_full`)
with "1 left" on the button; Medium and Hard the same. Now a level's board is capped at
LEVEL_CELLS (1152), which its additions never reach; Classic keeps 540; and a game dealt with
number-match-deal-v1 keeps the 540 it was played (and is audited) with.
"""

from __future__ import annotations

import pytest

from match_rules.errors import RuleError
from match_rules.game import TableContext
from match_rules.number_match import commands as cmd
from match_rules.number_match import events as ev
from match_rules.number_match import generate, solver
from match_rules.number_match.board import LEVEL_CELLS, MAX_CELLS, Level
from match_rules.number_match.decide import cap, decide_steps
from match_rules.number_match.errors import NumberMatchCode
from match_rules.number_match.game import GAME
from match_rules.number_match.state import NumberMatchState
from tests.rules.number_match.helpers import ME, T0, run, started
from tests.rules.number_match.test_board import no_pairs

LEVELS = [Level.EASY, Level.MEDIUM, Level.HARD, Level.EXPERT]


def board_of(level: Level) -> tuple[int, ...]:
    """The level's count of numbers, 1 to 9 over and over: pairs in every column, so the game
    goes on after every addition."""
    return tuple(k % 9 + 1 for k in range(level.numbers))


def add(state: NumberMatchState, k: int) -> NumberMatchState:
    return run(state, cmd.AddNumbers(T0 + 1_000 * k, ME))


def refusal(state: NumberMatchState) -> RuleError:
    with pytest.raises(RuleError) as caught:
        decide_steps(state, cmd.AddNumbers(T0 + 100_000, ME))
    return caught.value


@pytest.mark.parametrize("level", LEVELS)
def test_every_addition_the_level_shows_can_be_made_straight_away(level: Level) -> None:
    state = started(board_of(level), "", level)
    assert state.additions_left == level.additions
    for k in range(1, level.additions + 1):  # type: ignore[operator]
        shown = state.additions_left
        (added,) = [e for e, _ in decide_steps(state, cmd.AddNumbers(T0 + 1_000 * k, ME))]
        assert isinstance(added, ev.NumbersAdded) and added.additions_left == shown - 1  # type: ignore[operator]
        state = add(state, k)
        assert len(state.board) == level.numbers * 2**k
    assert state.additions_left == 0 and len(state.board) <= LEVEL_CELLS
    assert (
        refusal(state).code is NumberMatchCode.NO_ADDITIONS_LEFT
    )  # not board_full: none is shown left


def test_easy_makes_its_fifth_addition_at_432_cells_where_540_refused_it() -> None:
    state = started(board_of(Level.EASY), "", Level.EASY)
    for k in range(1, 5):
        state = add(state, k)
    assert (len(state.board), state.additions_left) == (432, 1)
    state = add(state, 5)
    assert (len(state.board), state.additions_left) == (864, 0)


def test_medium_reaches_level_cells_exactly() -> None:
    state = started(board_of(Level.MEDIUM), "", Level.MEDIUM)
    for k in range(1, 6):
        state = add(state, k)
    assert len(state.board) == LEVEL_CELLS == 1152


def test_a_game_dealt_with_v1_keeps_the_540_cells_it_was_played_with() -> None:
    state = started(board_of(Level.EASY), "", Level.EASY, version=generate.V1)
    assert cap(state) == MAX_CELLS
    for k in range(1, 5):
        state = add(state, k)
    caught = refusal(state)
    assert caught.code is NumberMatchCode.BOARD_FULL and "at most 540 cells" in caught.message


def test_classic_keeps_its_540_cells() -> None:
    state = started((1, 2, 3), "", Level.CLASSIC)
    assert cap(state) == MAX_CELLS
    assert cap(started((1, 2, 3), "", Level.EASY)) == LEVEL_CELLS


def test_the_view_shows_the_additions_that_can_be_made() -> None:
    state = started(board_of(Level.HARD), "", Level.HARD)
    for k in range(1, 4):
        state = add(state, k)
    view = GAME.snapshot(state, ME, TableContext("t-1", 1, state.now, {ME: "Ann"}, "c", None))
    assert (len(view.board), view.additions_left) == (360, 1)  # type: ignore[attr-defined]
    state = add(state, 4)
    assert (len(state.board), state.additions_left) == (720, 0)  # past 540: the shown one held


def test_a_hint_may_count_on_an_addition_past_540_cells() -> None:
    # 300 numbers with no pair and one addition left: the copies (600 cells) only fit under the
    # level's cap, and there the solver looks at them
    board = no_pairs(300)
    at_540 = solver.hint(board, 1, 50)
    at_level = solver.hint(board, 1, 50, LEVEL_CELLS)
    assert (at_540.kind, at_540.nodes) == (solver.HintKind.STUCK, 1)  # nothing to search
    assert at_level.nodes > 1  # the addition was searched
