"""Number Match's board: every rule of the seed on both sides of its edge
(libs/match_rules/number_match/board.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from match_rules.number_match.board import (
    LEVEL_CELLS,
    MAX_CELLS,
    WIDTH,
    Board,
    Level,
    add_numbers,
    added_length,
    can_add,
    check_board,
    clear,
    is_clear,
    number_class,
    pair_moves,
    pairs_with,
    points_for,
    remove_pair,
    sees,
    touching,
)


def rows(*lines: str) -> Board:
    """A board from rows of digits, ``.`` for an empty cell; every row but the last is padded
    with empty cells to the full width: ``rows("1", "..2")`` is 1, eight empties, 0, 0, 2."""
    padded = [line.ljust(WIDTH, ".") for line in lines[:-1]] + list(lines[-1:])
    return tuple(0 if ch == "." else int(ch) for line in padded for ch in line)


def normalized(cells: list[int]) -> Board:
    """``cells`` with its entirely empty rows removed (what a board always is)."""
    lines = [cells[k : k + WIDTH] for k in range(0, len(cells), WIDTH)]
    return tuple(v for line in lines if any(line) for v in line)


def no_pairs(length: int) -> Board:
    """A full board of ``length`` cells without a single pair: every cell takes the smallest
    digit 1..5 of another class than its neighbours before it (at most four of the five)."""
    cells: list[int] = []
    for k in range(length):
        col = k % WIDTH
        near = {k - 1, k - WIDTH} | ({k - WIDTH - 1} if col > 0 else set())
        near |= {k - WIDTH + 1} if col < WIDTH - 1 else set()
        taken = {number_class(cells[n]) for n in near if n >= 0}
        cells.append(min(c for c in (1, 2, 3, 4, 5) if c not in taken))
    return tuple(cells)


# --- which numbers pair -----------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [(4, 4), (3, 7), (7, 3), (1, 9), (5, 5), (9, 9), (2, 8)])
def test_equal_numbers_and_numbers_summing_to_10_pair(a: int, b: int) -> None:
    assert pairs_with(a, b)
    assert number_class(a) == number_class(b)


@pytest.mark.parametrize(("a", "b"), [(5, 4), (5, 6), (1, 2), (3, 8), (0, 0), (0, 10), (10, 0)])
def test_other_numbers_and_empty_cells_do_not_pair(a: int, b: int) -> None:
    assert not pairs_with(a, b)


def test_the_five_classes() -> None:
    assert [number_class(n) for n in range(1, 10)] == [1, 2, 3, 4, 5, 4, 3, 2, 1]


# --- where a pair can lie ---------------------------------------------------------------------


def test_neighbours_in_a_row_see_each_other_and_touch() -> None:
    board = rows("34")
    assert sees(board, 0, 1) and sees(board, 1, 0)
    assert touching(board, 0, 1)


def test_the_end_of_a_row_sees_the_start_of_the_next_and_touches_it() -> None:
    board = rows("123456783", "7")
    assert sees(board, 8, 9) and touching(board, 8, 9)
    assert points_for(board, 8, 9, 0, False) == 1


def test_empty_cells_never_block_in_reading_order_even_across_rows() -> None:
    board = rows("1", "..9")
    assert sees(board, 0, 11)
    assert not touching(board, 0, 11)
    assert points_for(board, 0, 11, 0, False) == 4


def test_a_number_between_blocks_in_reading_order() -> None:
    assert not sees(rows("1.2.9"), 0, 4)
    assert sees(rows("1...9"), 0, 4)


def test_a_column_sees_across_empty_cells_and_a_number_blocks_it() -> None:
    assert sees(rows("3.......1", ".2", "7"), 0, 18)  # cell 9 empty
    assert not sees(rows("3.......1", "1", "7"), 0, 18)  # the 1 in cell 9 blocks
    assert touching(rows("3", "7"), 0, 9)


def test_a_number_in_the_short_last_row_sees_the_one_above_it() -> None:
    board = rows("5.......3", "5")  # reading order is blocked by the 3
    assert sees(board, 0, 9) and touching(board, 0, 9)
    assert pair_moves(board) == [(0, 9)]


def test_the_down_right_diagonal_touches_and_sees_across_an_empty_cell() -> None:
    assert touching(rows("4", ".6"), 0, 10)
    board = rows("4.......1", "1", "..6")  # reading order blocked by cells 8 and 9
    assert sees(board, 0, 20) and not touching(board, 0, 20)
    assert not sees(rows("4.......1", ".2", "..6"), 0, 20)  # the 2 in cell 10 blocks


def test_the_down_left_diagonal_touches_and_sees_across_an_empty_cell() -> None:
    assert touching(rows(".......3", "......7"), 7, 15)
    board = rows("........3", "1", "......7")  # 8, 16, 24; reading blocked by cell 9
    assert sees(board, 8, 24) and not touching(board, 8, 24)
    assert not sees(rows("........3", "1......2", "......7"), 8, 24)


def test_the_down_right_diagonal_stops_at_the_right_edge() -> None:
    # cell 8 is column 8; cell 18 (8 + 10) is column 0 two rows down: not a diagonal
    board = rows("........3", "123456789", "7")
    assert not sees(board, 8, 18) and not touching(board, 8, 18)


def test_the_down_left_diagonal_stops_at_the_left_edge() -> None:
    # cell 9 is column 0; cell 17 (9 + 8) is column 8 of the same row: not a diagonal
    board = rows("111111111", "3123456.7")
    assert not sees(board, 9, 17) and not touching(board, 9, 17)
    assert not sees(rows("312345617"), 0, 8)  # 0 and 8 likewise


def test_seeing_needs_two_numbers_on_the_board() -> None:
    board = rows("1.1")
    assert not sees(board, 0, 1)
    assert not sees(board, 0, 0)
    assert not sees(board, 0, 3) and not sees(board, -1, 2)
    assert not sees(board, 3, 0) and not touching(board, 3, 0)  # off the board, either one
    assert not touching(board, 0, 1)


def test_a_pair_seen_along_two_lines_touches_if_either_line_touches() -> None:
    # 0 and 9: column neighbours (touching) and reading order across 8 empty cells
    board = rows("3........", "7")
    assert touching(board, 0, 9)
    assert points_for(board, 0, 9, 0, False) == 1


# --- all legal pairs ----------------------------------------------------------------------------


def brute_pairs(board: Board) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i in range(len(board))
        for j in range(i + 1, len(board))
        if pairs_with(board[i], board[j]) and sees(board, i, j)
    ]


def test_pair_moves_lists_each_pair_once_by_i_then_j() -> None:
    board = rows("3........", "7")  # seen along two lines, listed once
    assert pair_moves(board) == [(0, 9)]
    board = rows("12345678" + "9", "1111")
    assert pair_moves(board) == brute_pairs(board)
    assert pair_moves(()) == []


cells = st.lists(st.sampled_from([0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), max_size=45)


@settings(max_examples=200, deadline=None)
@given(cells)
def test_pair_moves_is_every_pair_that_pairs_and_sees(raw: list[int]) -> None:
    board = normalized(raw)
    assert pair_moves(board) == brute_pairs(board)


# --- removing a pair --------------------------------------------------------------------------


def test_removing_a_pair_empties_both_cells() -> None:
    board, removed = remove_pair(rows("19.3", "4"), 0, 1)
    assert board == rows("...3", "4") and removed == 0


def test_a_row_left_empty_is_removed_and_the_rows_below_move_up() -> None:
    after, removed = remove_pair(rows("1.......9", "2", "456"), 0, 8)
    assert (after, removed) == (rows("2", "456"), 1)
    assert points_for(rows("1.......9", "2", "456"), 0, 8, removed, False) == 14


def test_both_rows_of_a_pair_can_be_removed() -> None:
    after, removed = remove_pair(rows("........4", "6", "7"), 8, 9)
    assert (after, removed) == (rows("7"), 2)


def test_the_short_last_row_is_removed_when_it_empties() -> None:
    board = rows("12", "55")
    after, removed = remove_pair(board, 9, 10)
    assert (after, removed) == (rows("12......."), 1)
    assert points_for(board, 9, 10, removed, False) == 11


def test_the_last_pair_clears_the_board() -> None:
    board = rows("5.5")
    after, removed = remove_pair(board, 0, 2)
    assert after == () and removed == 1 and is_clear(after) and clear(after)
    assert points_for(board, 0, 2, removed, True) == 4 + 10 + 150


@pytest.mark.parametrize(("i", "j"), [(0, 1), (0, 2), (0, 4), (1, 1), (0, 9), (-1, 3), (0, 3)])
def test_an_illegal_pair_is_refused(i: int, j: int) -> None:
    # (0, 1) do not pair, 2 and 4 are empty, 9 and -1 are off the board, the 2 blocks (0, 3)
    with pytest.raises(ValueError, match="not a legal pair"):
        remove_pair(rows("12.1.5"), i, j)


# --- adding numbers ---------------------------------------------------------------------------


def test_adding_copies_every_number_in_order_right_after_the_last() -> None:
    board = rows("1.2......", "3..")
    assert add_numbers(board) == rows("1.2......", "3123")
    assert added_length(board) == 13


def test_adding_to_a_full_board_appends_after_it() -> None:
    assert add_numbers(rows("12")) == rows("1212")


def test_the_cap_allows_an_addition_up_to_max_cells_and_not_one_more() -> None:
    fits = no_pairs(MAX_CELLS // 2)  # 270 numbers: 540 cells after adding
    assert can_add(fits) and len(add_numbers(fits)) == MAX_CELLS
    over = no_pairs(MAX_CELLS // 2 + 1)
    assert not can_add(over)
    with pytest.raises(ValueError, match="no numbers can be added"):
        add_numbers(over)


def test_a_larger_cap_allows_an_addition_up_to_it_and_not_one_more() -> None:
    fits = no_pairs(LEVEL_CELLS // 2)  # 576 numbers: 1152 cells after adding
    assert not can_add(fits) and can_add(fits, LEVEL_CELLS)
    assert len(add_numbers(fits, LEVEL_CELLS)) == LEVEL_CELLS
    over = no_pairs(LEVEL_CELLS // 2 + 1)
    assert not can_add(over, LEVEL_CELLS)
    with pytest.raises(ValueError, match=f"would pass {LEVEL_CELLS} cells"):
        add_numbers(over, LEVEL_CELLS)


@pytest.mark.parametrize("level", [Level.EASY, Level.MEDIUM, Level.HARD, Level.EXPERT])
def test_no_level_can_add_past_level_cells(level: Level) -> None:
    # an addition at most doubles the cells: a level's additions made straight away, the most
    # it can make, end within LEVEL_CELLS; Medium's exactly at it
    assert level.numbers * 2**level.additions <= LEVEL_CELLS  # type: ignore[operator]
    assert max(lv.numbers * 2**lv.additions for lv in Level if lv.additions) == LEVEL_CELLS


@given(st.lists(st.integers(0, 40), max_size=12), st.integers(0, 2**32))
@settings(max_examples=60, deadline=None)
def test_with_pairs_between_a_board_never_outgrows_its_numbers_doubled(
    moves: list[int], seed: int
) -> None:
    # the bound the cap rests on: pairs removed between additions never make a board longer
    # than its starting numbers doubled once per addition
    board: Board = no_pairs(27)
    additions = 0
    for k, m in enumerate(moves):
        pairs = pair_moves(board)
        if pairs and (m + seed + k) % 3:
            board = remove_pair(board, *pairs[(m * 7 + seed) % len(pairs)])[0]
        elif any(board) and additions < 5:
            board = add_numbers(board, LEVEL_CELLS)
            additions += 1
        if not any(board):
            break
        assert len(board) <= 27 * 2**additions


def test_trailing_empty_cells_count_nothing_against_the_cap() -> None:
    board = (*no_pairs(268), 0, 0)  # the last row: 7 numbers and 2 empty cells
    check_board(board)
    assert added_length(board) == 2 * 268 and add_numbers(board)[268:270] == board[:2]


def test_a_clear_board_takes_no_addition() -> None:
    assert not can_add(())
    with pytest.raises(ValueError):
        add_numbers(())


# --- boards and levels ------------------------------------------------------------------------


def test_a_board_holds_digits_and_no_empty_row_and_at_most_max_cells() -> None:
    check_board(rows("1.......9", "5"))
    check_board(())
    for bad in ((1, 10), (1, -1), (1, True), (1, "2")):
        with pytest.raises(ValueError, match="cell 1"):
            check_board(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="row 1 is entirely empty"):
        check_board(rows("1........", ".........", "1"))
    with pytest.raises(ValueError, match="row 0"):
        check_board(rows("..."))
    check_board(no_pairs(LEVEL_CELLS))  # a level's board may pass Classic's 540 cells
    with pytest.raises(ValueError, match=f"at most {LEVEL_CELLS}"):
        check_board(no_pairs(LEVEL_CELLS + 1))


def test_a_board_without_pairs_has_none() -> None:
    assert pair_moves(no_pairs(100)) == []


@pytest.mark.parametrize(
    ("level", "numbers", "additions"),
    [
        (Level.EASY, 27, 5),
        (Level.MEDIUM, 36, 5),
        (Level.HARD, 45, 4),
        (Level.EXPERT, 54, 3),
        (Level.CLASSIC, 27, None),
    ],
)
def test_each_level_has_its_numbers_and_additions(
    level: Level, numbers: int, additions: int | None
) -> None:
    assert (level.numbers, level.additions) == (numbers, additions)


def test_a_clear_board_adds_nothing_and_says_why_it_cannot() -> None:
    assert added_length(()) == 0
    with pytest.raises(ValueError) as caught:
        add_numbers(())
    assert str(caught.value) == (
        "no numbers can be added: the board is clear or would pass 540 cells (0)"
    )
