"""Match, the race's own refusal codes; the ones more than one game gives are
:class:`match_rules.errors.Code`. Values are stable on the wire (docs/contract.md)."""

from __future__ import annotations

from match_rules.errors import Category, RefusalCode


class RaceCode(RefusalCode):
    """Every reason Match, the race refuses a command that is its own."""

    TILE_OUT_OF_RANGE = ("tile_out_of_range", Category.INVALID_ARGUMENT)
    PLAYER_OUT = ("player_out", Category.FAILED_PRECONDITION)
    READY_NOT_OPEN = ("ready_not_open", Category.FAILED_PRECONDITION)
    ALREADY_READY = ("already_ready", Category.FAILED_PRECONDITION)
    BOARD_NOT_STARTED = ("board_not_started", Category.FAILED_PRECONDITION)
    BOARD_OVER = ("board_over", Category.FAILED_PRECONDITION)
    TILE_FACE_UP = ("tile_face_up", Category.FAILED_PRECONDITION)
    HINT_NO_BOT = ("hint_no_bot", Category.FAILED_PRECONDITION)
    HINT_NEEDS_ONE_TILE = ("hint_needs_one_tile", Category.FAILED_PRECONDITION)
    INVALID_READY_WINDOW = ("invalid_ready_window", Category.INVALID_ARGUMENT)
    INVALID_HINTS = ("invalid_hints", Category.INVALID_ARGUMENT)
