"""Number Match's solver against a plain exhaustive search, its hints and the witness replay
(libs/match_rules/number_match/solver.py)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from match_rules.number_match import solver
from match_rules.number_match.board import (
    MAX_CELLS,
    WIDTH,
    Board,
    add_numbers,
    pair_moves,
    remove_pair,
)
from match_rules.number_match.solver import (
    ADD,
    HintKind,
    Solution,
    Status,
    WitnessError,
    hint,
    plain_solve,
    replay,
    solve,
)
from tests.rules.number_match.test_board import no_pairs, normalized, rows

EXHAUSTIVE = 20_000  # positions: plain_solve settles nearly every small board below

# A board the search needs five restarts for (one addition left, 14 numbers).
HARD = rows("9", "34", ".8", ".....5.94", "..8.....8", "53.5.5...", "8.")


@st.composite
def small_boards(draw: st.DrawFn) -> tuple[Board, int | None]:
    """A small board and the additions left: up to 10 numbers with none, 6 with some (an
    addition doubles what the plain search must go through). The numbers come in pairs of a
    class, shuffled, with empty cells between; sometimes one is dropped (an odd class)."""
    additions = draw(st.sampled_from([0, 0, 1, 2, None]))
    half = draw(st.integers(1, 5 if additions == 0 else 3))
    first = draw(st.lists(st.integers(1, 9), min_size=half, max_size=half))
    partners = [draw(st.sampled_from([v, 10 - v])) for v in first]
    numbers = draw(st.permutations(first + partners))
    if draw(st.integers(0, 5)) == 0:
        numbers = numbers[1:]
    cells: list[int] = []
    for v in numbers:
        cells += [0] * draw(st.sampled_from([0, 0, 0, 1, 2, 4, 8])) + [v]
    board = normalized(cells)
    assume(board)
    return board, additions


def settled(board: Board, additions: int | None) -> Solution:
    """The plain exhaustive search's answer; a board it cannot settle is no example."""
    found = plain_solve(board, additions, EXHAUSTIVE)
    assume(found.status is not Status.UNKNOWN)
    return found


def exhaustive(board: Board, additions: int | None) -> Status:
    """The plain exhaustive search's answer, which must be settled."""
    found = plain_solve(board, additions, EXHAUSTIVE)
    assert found.status is not Status.UNKNOWN
    return found.status


# --- exact: the same answer as the plain search ----------------------------------------------


@settings(max_examples=500, deadline=None)
@given(small_boards())
def test_solve_agrees_with_the_plain_exhaustive_search(case: tuple[Board, int | None]) -> None:
    board, additions = case
    plain = settled(board, additions)
    found = solve(board, additions, EXHAUSTIVE)
    assert found.status is plain.status
    if found.status is Status.SOLVABLE:
        replay(board, additions, found.moves)


@settings(max_examples=250, deadline=None)
@given(small_boards())
def test_a_pair_hint_keeps_the_board_clearable_and_add_comes_only_when_no_pair_does(
    case: tuple[Board, int | None],
) -> None:
    board, additions = case
    plain = settled(board, additions)
    given_hint = hint(board, additions, EXHAUSTIVE)
    if given_hint.kind is HintKind.STUCK:
        assert plain.status is Status.UNSOLVABLE
        return
    assert plain.status is Status.SOLVABLE
    replay(board, additions, given_hint.moves)
    if given_hint.kind is HintKind.PAIR:
        assert given_hint.pair == given_hint.moves[0]
        after, _ = remove_pair(board, *given_hint.moves[0])
        assert not after or plain_solve(after, additions, EXHAUSTIVE).status is Status.SOLVABLE
    else:
        assert given_hint.kind is HintKind.ADD and given_hint.pair is None
        for pair in pair_moves(board):
            after, _ = remove_pair(board, *pair)
            assert after and settled(after, additions).status is Status.UNSOLVABLE
        left = None if additions is None else additions - 1
        assert plain_solve(add_numbers(board), left, EXHAUSTIVE).status is Status.SOLVABLE


def test_a_hint_names_a_pair_on_an_ordinary_board() -> None:
    found = hint(rows("123", "987"), 0)
    assert found.kind is HintKind.PAIR and found.pair in pair_moves(rows("123", "987"))


def test_add_is_the_hint_when_no_pair_is_left() -> None:
    found = hint((1, 2, 3), 5)
    assert found.kind is HintKind.ADD and found.moves[0] == ADD


def test_a_hint_on_a_clear_board_is_refused() -> None:
    with pytest.raises(ValueError, match="already clear"):
        hint((), 3)


# --- proven dead ------------------------------------------------------------------------------


def test_an_odd_class_without_additions_is_stuck_without_a_search() -> None:
    board = rows("19.1")  # three numbers of the class {1, 9}
    assert solve(board, 0, 1) == Solution(Status.UNSOLVABLE, (), 0)
    assert hint(board, 0).kind is HintKind.STUCK
    assert exhaustive(board, 0) is Status.UNSOLVABLE
    assert solve(board, 1).status is Status.SOLVABLE  # an addition makes every count even


@pytest.mark.parametrize(
    "board",
    [
        rows("1212"),  # the 1s meet only in reading order, so the 2 between must go first...
        rows("1", "2", "1", "2"),  # ...in their column likewise
        rows("2", "1", "2", "1"),  # a partner above the forced pair, in its column
        rows("2", "1", "2", "1", "2", "2"),  # two more 2s: only the 1s are forced, the 2 above...
        rows("2", "2", "1", "2", "1", "2"),  # ...or the 2 below waits on a forced 1
    ],
)
def test_a_forced_pair_that_waits_on_a_number_that_waits_on_it_is_stuck(board: Board) -> None:
    assert solve(board, 0, 1) == Solution(Status.UNSOLVABLE, (), 0)
    assert exhaustive(board, 0) is Status.UNSOLVABLE


@pytest.mark.parametrize(
    "board",
    [
        rows("1221"),  # the 2 between has a partner between too
        rows("121", ".2"),  # ...a partner in its column
        rows("121", "..2"),  # ...a partner on a diagonal
        rows("1", ".2", "..1", "2"),  # the forced 1s may yet meet on a diagonal
        rows("12.", "..1", "2"),  # the 2 below may reach the one above on a diagonal later
        rows("1212", "........2", "2"),  # the last 2 meets the first once the row between goes
        rows("2", "1....2", "1"),  # a number above the forced pair in its column is not between
    ],
)
def test_a_forced_pair_with_a_way_out_is_searched(board: Board) -> None:
    assert solve(board, 0, EXHAUSTIVE).status is exhaustive(board, 0)


def test_a_board_at_the_cap_tries_every_pair_before_it_is_stuck() -> None:
    # two pairs, each leaving no pair and no room to add: both are tried, in Classic too
    board = list(no_pairs(MAX_CELLS // 2 + 2))
    board[-2] = 3
    assert pair_moves(tuple(board)) == [(261, 270), (269, 270)]
    stuck = Solution(Status.UNSOLVABLE, (), 3)
    assert solve(tuple(board), 1, 50) == solve(tuple(board), None, 50) == stuck
    assert plain_solve(tuple(board), 1, 50) == plain_solve(tuple(board), None, 50) == stuck


def test_the_cap_is_the_last_addition() -> None:
    fits = no_pairs(MAX_CELLS // 2)  # 540 cells after adding: the added board is searched
    assert solve(fits, 1, 50) == Solution(Status.UNSOLVABLE, (), 2)
    assert plain_solve(fits, 1, 50) == Solution(Status.UNSOLVABLE, (), 2)
    full = no_pairs(MAX_CELLS // 2 + 1)
    assert solve(full, 1).status is Status.UNSOLVABLE
    assert solve(full, None).status is Status.UNSOLVABLE
    assert hint(full, None).kind is HintKind.STUCK


# --- budget, restarts, Classic's repeated positions ---------------------------------------------


def test_the_budget_runs_out_into_unknown_never_a_guess() -> None:
    assert solve(HARD, 1, 10) == Solution(Status.UNKNOWN, (), 10)
    assert hint(HARD, 1, 10).kind is HintKind.UNKNOWN
    assert plain_solve(HARD, 1, 10).status is Status.UNKNOWN


def test_the_budget_is_the_most_positions_expanded_and_exactly_enough_will_do() -> None:
    board = rows("1234", "9876")
    found = solve(board, 1)
    assert found.status is Status.SOLVABLE and found.nodes > 1
    assert solve(board, 1, found.nodes) == found
    assert solve(board, 1, found.nodes - 1) == Solution(Status.UNKNOWN, (), found.nodes - 1)
    assert plain_solve(rows("19.1"), 0, 3) == Solution(Status.UNSOLVABLE, (), 3)
    assert plain_solve(rows("19.1"), 0, 2) == Solution(Status.UNKNOWN, (), 2)


def test_a_hard_board_is_solved_after_restarts_and_the_answer_is_deterministic() -> None:
    first = solve(HARD, 1, 3_000)
    assert first.status is Status.SOLVABLE and first.nodes > 100
    replay(HARD, 1, first.moves)
    assert solve(HARD, 1, 3_000) == first
    assert hint(HARD, 1, 3_000) == hint(HARD, 1, 3_000)


def test_the_answer_does_not_change_between_runs_or_machines() -> None:
    # a fixed vector: the solver's answers feed the deal (number-match-deal-v1)
    assert solve(HARD, 1, 3_000) == Solution(Status.SOLVABLE, GOLDEN, 142)


GOLDEN = (
    (38, 44), ADD, (55, 56), (32, 41), (37, 47), (36, 39), (35, 43), (34, 42), (10, 30),
    (19, 27), (9, 27), (14, 17), (0, 10), (4, 12),
)  # fmt: skip

# A board the search needs 15 runs for: the order of the later runs is fixed too.
LONGER = rows("4", "6.....113", "........5", "........3", "92..51..4", ".47")


def test_the_answer_after_many_restarts_does_not_change_either() -> None:
    assert solve(LONGER, 1, 3_000) == Solution(Status.SOLVABLE, LONGER_GOLDEN, 598)


LONGER_GOLDEN = (
    (44, 46), ADD, (41, 51), (50, 58), (0, 9), (39, 40), (38, 43), (31, 44), (27, 37), (6, 7),
    (28, 38), (26, 27), (17, 21), (8, 14),
)  # fmt: skip


def test_classic_cuts_a_repeated_position_and_still_clears() -> None:
    found = solve((1, 6, 3), None)  # add, add, then it runs into its own earlier boards
    assert found.status is Status.SOLVABLE
    replay((1, 6, 3), None, found.moves)
    assert hint((1, 6, 3), None).kind is HintKind.ADD
    repeated = (1, 6, 3) * 4  # the search comes back to this very board below a pair
    found_hint = hint(repeated, None)
    assert found_hint.kind is HintKind.PAIR
    replay(repeated, None, found_hint.moves)
    assert hint((0, 0, 0, 4, 3, 2, 4, 3, 2), None).kind is HintKind.ADD  # back to it below ADD


def test_add_after_a_repetition_below_a_root_pair_is_not_claimed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # when a pair's failure rested on cutting a return to this very board, that pair may be as
    # good as the addition: say UNKNOWN rather than ADD
    answer = Solution(Status.SOLVABLE, (ADD, (0, 1)), 7)
    monkeypatch.setattr(solver, "_solve", lambda *args, **kwargs: (answer, True))
    assert hint((1, 2), None) == solver.Hint(HintKind.UNKNOWN, None, (), 7)


def test_the_search_says_whether_a_repetition_led_back_to_the_root() -> None:
    assert solver._solve((1, 1), 0, 10, True) == (Solution(Status.SOLVABLE, ((0, 1),), 1), False)
    assert solver._solve((1, 6, 3), None, 100, True)[1] is False  # repeats below ADD only


def test_a_clear_board_is_solved_by_nothing() -> None:
    assert solve((), 0) == Solution(Status.SOLVABLE, (), 0)
    assert plain_solve((), 0, 1) == Solution(Status.SOLVABLE, (), 0)


@pytest.mark.parametrize(
    ("additions", "budget", "message"),
    [
        (-1, 10, "additions_left"),
        (True, 10, "additions_left"),
        (1, 0, "budget"),
        (1, True, "budget"),
    ],
)
def test_bad_arguments_are_refused(additions: object, budget: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solve((1, 1), additions, budget)  # type: ignore[arg-type]


def test_a_malformed_board_is_refused() -> None:
    with pytest.raises(ValueError, match="entirely empty"):
        solve(rows("1", ".........", "1"), 0)


def test_the_plain_search_finds_the_same_clearing_kind() -> None:
    board = rows("123", "987")
    assert plain_solve(board, 0, 1_000).status is solve(board, 0).status is Status.SOLVABLE
    assert plain_solve((1, 2), 1, 1_000).status is Status.UNSOLVABLE


def test_the_plain_search_prunes_nothing_and_expands_every_position() -> None:
    # three 1s: parity settles it without a search, the plain search expands the board and
    # both boards its two pairs leave
    board = rows("19.1")
    assert solve(board, 0, 1) == Solution(Status.UNSOLVABLE, (), 0)
    assert plain_solve(board, 0, 1_000) == Solution(Status.UNSOLVABLE, (), 3)


# --- the pruning helpers on their own ---------------------------------------------------------


def cell(row: int, column: int) -> int:
    return row * WIDTH + column


def test_a_column_pair_is_blocked_by_a_forced_cell_between_in_its_column() -> None:
    top, bottom = cell(0, 0), cell(2, 0)
    assert solver._blocked(top, bottom, cell(1, 0), cell(3, 3))  # a between
    assert solver._blocked(top, bottom, cell(0, 3), cell(1, 0))  # d between
    # between in reading order only: the column is still open
    assert not solver._blocked(top, bottom, cell(0, 3), cell(1, 5))
    # in the column but above or below the pair
    assert not solver._blocked(cell(1, 0), cell(3, 0), cell(0, 0), cell(4, 0))


def test_a_pair_that_never_meets_on_a_diagonal_is_blocked_by_a_forced_cell_read_between() -> None:
    assert solver._blocked(cell(0, 1), cell(0, 5), cell(0, 3), cell(2, 2))  # a between
    assert solver._blocked(cell(0, 1), cell(1, 8), cell(0, 0), cell(1, 2))  # d between
    assert not solver._blocked(cell(0, 1), cell(0, 5), cell(0, 0), cell(0, 6))  # both outside
    # a diagonal may still come: no cell between in reading order blocks for good
    assert not solver._blocked(cell(0, 1), cell(1, 0), cell(0, 5), cell(0, 7))


@pytest.mark.parametrize(
    ("first", "second"),
    [(cell(1, 0), cell(3, 0)), (cell(0, 1), cell(0, 5))],  # a column pair, a reading-order pair
)
def test_only_a_cell_strictly_between_blocks_never_one_of_the_pair(first: int, second: int) -> None:
    assert not solver._blocked(first, second, first, second)
    assert not solver._blocked(first, second, second, first)


def test_an_addition_copies_the_numbers_after_the_last_and_may_reach_the_cap_exactly() -> None:
    assert solver._added(bytes((1, 0, 2, 0, 0))) == bytes((1, 0, 2, 1, 2))
    assert solver._added(bytes((1,)) * (MAX_CELLS // 2)) == bytes((1,)) * MAX_CELLS
    assert solver._added(bytes((1,)) * (MAX_CELLS // 2 + 1)) is None


def test_run_0_tries_the_pairs_whose_numbers_have_the_fewest_other_pairs_first() -> None:
    # the middle pair's numbers each have another pair, the outer pairs' one number does
    assert solver._order([(0, 1), (1, 2), (2, 3)], 0) == [(0, 1), (2, 3), (1, 2)]
    assert solver._order([(0, 1)], 3) == [(0, 1)]
    assert solver._order([], 3) == []


def test_later_runs_start_two_pairs_in_both_orders() -> None:
    orders = {tuple(solver._order([(0, 1), (1, 2)], run)) for run in range(1, 6)}
    assert orders == {((0, 1), (1, 2)), ((1, 2), (0, 1))}


def test_odd_runs_offer_the_addition_first_below_the_root_on_at_most_20_numbers() -> None:
    search = solver._Search(100, smart=True)
    twenty = bytes((1, 0) * 20)  # 20 numbers, empty cells between them
    search.run_number = 1
    assert search._frame(twenty, 1, root=False).moves[0] == ADD
    assert search._frame(twenty + bytes((1,)), 1, root=False).moves[-1] == ADD  # 21: last
    assert search._frame(twenty, 1, root=True).moves[-1] == ADD  # the root: every pair first
    assert ADD not in search._frame(twenty, 0, root=False).moves  # no addition left: none
    search.run_number = 2
    assert search._frame(twenty, 1, root=False).moves[-1] == ADD  # even runs: last
    assert search.nodes == 5


def test_the_cells_of_a_class_are_all_listed_in_order_adjacent_ones_too() -> None:
    board = bytes((1, 1, 0, 2, 1, 1, 1))
    assert solver._cells(board, 1) == [0, 1, 4, 5, 6]
    assert solver._cells(board, 2) == [3]
    assert solver._cells(board, 3) == []


# --- the witness ------------------------------------------------------------------------------

BOARD = rows("1234", "9876")
WITNESS = solve(BOARD, 1).moves


def test_replay_accepts_a_witness_and_counts_it() -> None:
    done = replay(BOARD, 1, WITNESS)
    assert done.pairs == sum(1 for m in WITNESS if m != ADD)
    assert done.additions == sum(1 for m in WITNESS if m == ADD)
    assert done.points > 150


@pytest.mark.parametrize(
    ("board", "additions", "moves", "message"),
    [
        (rows("1234"), 0, [(0, 1)], "step 1 pairs cells 0 and 1, but 1 and 2 do not pair"),
        (rows("1231"), 0, [(0, 3)], "step 1 pairs cells 0 and 3, but they do not see"),
        (rows("11.5"), 0, [(0, 1)], "after all 1 steps the board still holds 1 number:"),
        (rows("1122"), 0, [(0, 1)], "still holds 2 numbers"),
        (rows("12"), 0, [ADD], "step 1 adds numbers, but the board allows only 0 additions"),
        (rows("12"), 1, [ADD, ADD], "step 2 adds numbers, but the board allows only 1 addition "),
        (rows("1.1"), 0, [(0, 1)], "step 1 pairs cells 0 and 1, but cell 1 is empty"),
        (rows("1.1"), 0, [(0, 3)], "the board has cells 0..2"),
        (rows("1.1"), 0, [(3, 0)], "the board has cells 0..2"),
        (rows("1.1"), 0, [(2, 2)], "two different cells"),
        (rows("1.1"), 0, [(0, 2, 3)], "step 1 is (0, 2, 3), neither a pair"),
        (rows("1.1"), 0, [(0, "2")], "neither a pair"),
        (rows("1.1"), 0, [(0, True)], "neither a pair"),
        (rows("1.1"), 0, ["ab"], "neither a pair"),
        (rows("1", ".........", "1"), 0, [], "not a valid board"),
        (no_pairs(MAX_CELLS // 2 + 1), None, [ADD], "would pass 540 cells"),
    ],
)
def test_replay_refuses_a_broken_witness_saying_which_step_and_why(
    board: Board, additions: int | None, moves: list[object], message: str
) -> None:
    with pytest.raises(WitnessError) as error:
        replay(board, additions, moves)  # type: ignore[arg-type]
    assert message in str(error.value)


def test_replay_takes_a_tampered_witness_step_by_step() -> None:
    moves = list(WITNESS)
    first_pair = next(k for k, m in enumerate(moves) if m != ADD)
    i, j = moves[first_pair]
    moves[first_pair] = (i, j + 1)
    with pytest.raises(WitnessError, match=f"step {first_pair + 1} "):
        replay(BOARD, 1, moves)
    with pytest.raises(WitnessError, match="board still holds"):
        replay(BOARD, 1, WITNESS[:-1])


def test_a_stuck_or_undecided_hint_rests_on_no_moves_and_counts_its_positions() -> None:
    stuck = hint((1, 2), 0, 1_000)
    assert (stuck.kind, stuck.pair, stuck.moves) == (HintKind.STUCK, None, ())
    assert isinstance(stuck.nodes, int)
    unknown = hint((1, 2, 3, 4, 5, 6, 7, 8, 9) * 3, 5, 1)
    assert (unknown.kind, unknown.pair, unknown.moves) == (HintKind.UNKNOWN, None, ())
    assert isinstance(unknown.nodes, int)
    with pytest.raises(ValueError) as caught:
        hint((), 5)
    assert str(caught.value) == "the board is already clear: there is nothing to hint"


def test_a_replay_counts_its_additions_and_adds_up_its_points() -> None:
    done = replay((5,), 2, [ADD, ADD, (0, 1), (2, 3)])
    assert (done.pairs, done.additions, done.points) == (2, 2, 1 + (1 + 10 + 150))


def test_a_replay_names_the_empty_cell_and_the_blocked_pair_in_these_words() -> None:
    with pytest.raises(WitnessError) as caught:
        replay((1, 1, 2, 2), 0, [(0, 1), (0, 2)])
    assert str(caught.value) == "step 2 pairs cells 0 and 2, but cell 0 is empty"
    with pytest.raises(WitnessError) as caught:
        replay((1, 0, 1), 0, [(2, 2)])
    assert str(caught.value) == (
        "step 1 pairs cells 2 and 2, but the board has cells 0..2 and a pair needs two "
        "different cells"
    )
    with pytest.raises(WitnessError) as caught:
        replay((1, 2, 1), 0, [(0, 2)])
    assert str(caught.value) == (
        "step 1 pairs cells 0 and 2, but they do not see each other: a number lies between "
        "them along every line that joins them (or none does)"
    )


def test_a_pair_or_add_hint_counts_its_positions_too() -> None:
    assert isinstance(hint((1, 6, 3), None).nodes, int)  # ADD
    assert isinstance(hint((1, 1, 2, 8, 3, 3), 5).nodes, int)  # PAIR
