"""The board of Number Match and what a move does to it: pure functions on a tuple of cells.

A board is ``tuple[int, ...]``: the cells in reading order, :data:`WIDTH` to a row, ``0`` an
empty cell and ``1..9`` a number. Row ``r`` is cells ``[9r, 9r + 9)``; the last row may be
shorter. A board never ends with (nor holds) a row that is entirely empty: such a row is removed
the moment it empties, so a clear board is ``()``.

Two numbers *pair* when they are equal or sum to 10 (5 pairs only with 5); equivalently when
they fall in the same class ``{1, 9}``, ``{2, 8}``, ``{3, 7}``, ``{4, 6}``, ``{5}``
(:func:`number_class`). They *see* each other when only empty cells lie between them along one
of four lines:

=============  ====================================================================
reading order  the board as one line of text (same row, or row end to next row start)
column         ``i, i + 9, i + 18, ...``
down-right     ``i, i + 10, ...`` while the column increases (stops at the right edge)
down-left      ``i, i + 8, ...`` while the column decreases (stops at the left edge)
=============  ====================================================================

Columns and diagonals never wrap. A pair *touches* when no cell at all lies between them along a
line in which they see each other. Two cells can see each other along two lines at once (a
column neighbour ``i + 9`` with the 8 cells between empty is also seen in reading order); the
pair touches if it touches along either, since the player sees the adjacent cells, and scores
as such: the rule that favours the player, written down here because the rules page is silent.

Pure: no clock, no I/O, no randomness.
"""

from __future__ import annotations

from enum import Enum

__all__ = [
    "LEVEL_CELLS",
    "MAX_CELLS",
    "POINTS_APART",
    "POINTS_CLEAR",
    "POINTS_ROW",
    "POINTS_TOUCHING",
    "WIDTH",
    "Board",
    "Level",
    "add_numbers",
    "added_length",
    "can_add",
    "check_board",
    "clear",
    "is_clear",
    "number_class",
    "pair_moves",
    "pairs_with",
    "points_for",
    "remove_pair",
    "sees",
    "touching",
]

Board = tuple[int, ...]

WIDTH = 9
# Classic's cap (unlimited additions): an addition that would pass it is not possible. Also every
# level's in games dealt with number-match-deal-v1 (issue 31, item 10: there it refused an Easy
# player's fifth addition made straight away, 27 -> 54 -> ... -> 432 -> 864, with one shown left).
MAX_CELLS = WIDTH * 60
# The most cells a level's board can reach: an addition at most doubles the cells (the cells up
# to the last number, plus one copy of each number), so a level's board never passes its numbers
# doubled once per addition, at most Medium's 36 * 2**5 = 1152. With this as their cap every
# addition a level shows as left can be made.
LEVEL_CELLS = 36 * 2**5

POINTS_TOUCHING = 1
POINTS_APART = 4
POINTS_ROW = 10
POINTS_CLEAR = 150

# The four lines as (step, column change per step): reading order, column, down-right, down-left.
_LINES = ((1, None), (WIDTH, 0), (WIDTH + 1, 1), (WIDTH - 1, -1))


class Level(Enum):
    """A level: how many numbers the board starts with and how many additions it gives.

    ``additions`` is ``None`` for Classic: no limit but :data:`MAX_CELLS`. A level's board is
    capped at :data:`LEVEL_CELLS`, which its additions never reach.
    """

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    EXPERT = "expert"
    CLASSIC = "classic"

    @property
    def numbers(self) -> int:
        """The numbers on the board at the start."""
        return _LEVELS[self][0]

    @property
    def additions(self) -> int | None:
        """The additions the level gives; ``None`` for no limit (Classic)."""
        return _LEVELS[self][1]


_LEVELS: dict[Level, tuple[int, int | None]] = {
    Level.EASY: (27, 5),
    Level.MEDIUM: (36, 5),
    Level.HARD: (45, 4),
    Level.EXPERT: (54, 3),
    Level.CLASSIC: (27, None),
}


def check_board(board: Board) -> None:
    """Raise ValueError unless ``board`` is a well-formed board (see the module docstring) of
    at most :data:`LEVEL_CELLS` cells (the largest any game can make)."""
    if len(board) > LEVEL_CELLS:
        raise ValueError(f"a board holds at most {LEVEL_CELLS} cells, this one {len(board)}")
    for index, cell in enumerate(board):
        if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell <= 9:
            raise ValueError(f"cell {index} must be an integer 0..9, got {cell!r}")
    for start in range(0, len(board), WIDTH):
        if not any(board[start : start + WIDTH]):
            raise ValueError(f"row {start // WIDTH} is entirely empty; a board holds no empty row")


def number_class(n: int) -> int:
    """The class of a number (1..5): numbers pair exactly when their classes are equal."""
    return min(n, 10 - n)


def pairs_with(a: int, b: int) -> bool:
    """Whether two numbers make a pair: equal, or summing to 10 (an empty cell pairs with
    nothing)."""
    return 1 <= a <= 9 and 1 <= b <= 9 and (a == b or a + b == 10)


def _line_step(i: int, j: int) -> list[int]:
    """The steps of the lines that run from cell ``i`` to a later cell ``j`` (maybe two)."""
    d = j - i
    steps = [1]
    col_i, col_j = i % WIDTH, j % WIDTH
    for step, dcol in _LINES[1:]:
        if d % step == 0 and col_j - col_i == (d // step) * dcol:
            steps.append(step)
    return steps


def _numbers(board: Board, i: int, j: int) -> bool:
    n = len(board)
    return i != j and 0 <= i < n and 0 <= j < n and board[i] != 0 and board[j] != 0


def sees(board: Board, i: int, j: int) -> bool:
    """Whether the numbers in cells ``i`` and ``j`` (any order) see each other: only empty cells
    between them along some line. False when either cell is empty or off the board, or
    ``i == j``."""
    if not _numbers(board, i, j):
        return False
    i, j = min(i, j), max(i, j)
    return any(not any(board[k] for k in range(i + step, j, step)) for step in _line_step(i, j))


def touching(board: Board, i: int, j: int) -> bool:
    """Whether the numbers in ``i`` and ``j`` see each other with no cell at all between them:
    reading-order neighbours (row end to next row start included), column neighbours, or
    diagonal neighbours that do not wrap. A touching pair always sees."""
    if not _numbers(board, i, j):
        return False
    i, j = min(i, j), max(i, j)
    return j - i in _line_step(i, j)


def pair_moves(board: Board) -> list[tuple[int, int]]:
    """Every legal pair ``(i, j)`` with ``i < j``, by ``i`` then ``j``.

    In each line only consecutive numbers (empties skipped) see each other, so one pass keeps
    the last number seen in reading order, in each column and on each diagonal.
    """
    found: set[tuple[int, int]] = set()
    last_column: dict[int, int] = {}
    last_down_right: dict[int, int] = {}
    last_down_left: dict[int, int] = {}
    previous = -1  # pragma: no mutate (equivalent: any < 0 is none)
    for j, value in enumerate(board):
        if not value:
            continue
        row, col = divmod(j, WIDTH)
        for i in (
            previous,
            last_column.get(col, -1),  # pragma: no mutate (equivalent: any < 0 is none)
            last_down_right.get(row - col, -1),  # pragma: no mutate (equivalent: any < 0 is none)
            last_down_left.get(row + col, -1),  # pragma: no mutate (equivalent: any < 0 is none)
        ):
            if i >= 0 and pairs_with(board[i], value):
                found.add((i, j))
        previous = last_column[col] = last_down_right[row - col] = last_down_left[row + col] = j
    return sorted(found)


def _drop_empty_rows(cells: list[int], rows: list[int]) -> int:
    """Remove the rows among ``rows`` that are entirely empty from ``cells``; how many."""
    removed = 0
    for row in sorted(set(rows), reverse=True):  # from the bottom, so indices stay valid
        start = row * WIDTH
        if not any(cells[start : start + WIDTH]):
            del cells[start : start + WIDTH]
            removed += 1
    return removed


def remove_pair(board: Board, i: int, j: int) -> tuple[Board, int]:
    """The board after removing the pair in ``i`` and ``j``, and how many rows that removed.

    Both cells empty; then every row left entirely empty is removed (only the pair's rows can
    be) and the rows below move up. Raises ValueError if the pair is not legal.
    """
    if not (_numbers(board, i, j) and pairs_with(board[i], board[j]) and sees(board, i, j)):
        raise ValueError(f"cells {i} and {j} are not a legal pair on this board")
    cells = list(board)
    cells[i] = cells[j] = 0
    removed = _drop_empty_rows(cells, [i // WIDTH, j // WIDTH])
    return tuple(cells), removed


def added_length(board: Board) -> int:
    """The board's length after an addition: up to its last number, plus one copy of each."""
    last = max((k for k, v in enumerate(board) if v), default=-1)
    return last + 1 + sum(1 for v in board if v)


def can_add(board: Board, cap: int = MAX_CELLS) -> bool:
    """Whether an addition is possible at all (the level's count aside): the board holds a
    number and the result stays within ``cap`` cells (:data:`MAX_CELLS`, Classic's, or
    :data:`LEVEL_CELLS`, which no level's additions reach)."""
    return is_clear(board) is False and added_length(board) <= cap


def add_numbers(board: Board, cap: int = MAX_CELLS) -> Board:
    """Add numbers: drop the empty cells after the last number, then append a copy of every
    number on the board, in order. Raises ValueError when :func:`can_add` is false."""
    if not can_add(board, cap):
        raise ValueError(
            "no numbers can be added: the board is clear or would pass "
            f"{cap} cells ({added_length(board)})"
        )
    last = max(k for k, v in enumerate(board) if v)
    return board[: last + 1] + tuple(v for v in board if v)


def is_clear(board: Board) -> bool:
    """Whether no number is left on the board."""
    return not any(board)


clear = is_clear  # the name the design brief uses


def points_for(board: Board, i: int, j: int, rows_removed: int, cleared: bool) -> int:
    """The points for the pair ``(i, j)`` on ``board`` (the board before the move):
    1 if it touches, else 4; plus 10 per removed row; plus 150 if it cleared the board."""
    pair = POINTS_TOUCHING if touching(board, i, j) else POINTS_APART
    return pair + POINTS_ROW * rows_removed + (POINTS_CLEAR if cleared else 0)
