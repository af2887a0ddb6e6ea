"""Number Match's own refusal codes; the ones more than one game gives are
:class:`match_rules.errors.Code`. Values are stable on the wire (docs/contract.md)."""

from __future__ import annotations

from match_rules.errors import Category, RefusalCode


class NumberMatchCode(RefusalCode):
    """Every reason Number Match refuses a command that is its own."""

    CELL_OUT_OF_RANGE = ("cell_out_of_range", Category.INVALID_ARGUMENT)
    SAME_CELL = ("same_cell", Category.INVALID_ARGUMENT)
    CELL_EMPTY = ("cell_empty", Category.FAILED_PRECONDITION)
    NOT_A_PAIR = ("not_a_pair", Category.FAILED_PRECONDITION)
    CELLS_BLOCKED = ("cells_blocked", Category.FAILED_PRECONDITION)
    NO_ADDITIONS_LEFT = ("no_additions_left", Category.FAILED_PRECONDITION)
    BOARD_FULL = ("board_full", Category.FAILED_PRECONDITION)
    HINT_UNDECIDED = ("hint_undecided", Category.FAILED_PRECONDITION)
    NOTHING_TO_UNDO = ("nothing_to_undo", Category.FAILED_PRECONDITION)
    DAILY_NOT_TODAY = ("daily_not_today", Category.FAILED_PRECONDITION)
