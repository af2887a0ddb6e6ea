"""Refusals: one policy for every game.

A refused command raises :class:`RuleError` with a stable machine code, a gRPC-style category and
a message a person can act on. A refusal changes nothing: ``decide`` raises before any event.
"""

from __future__ import annotations

from enum import Enum


class Category(Enum):
    """How the shell should report a refusal (maps one-to-one onto gRPC status codes)."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    NOT_FOUND = "NOT_FOUND"  # used by the shells (an unknown table), never by the rules
    UNAVAILABLE = "UNAVAILABLE"  # a shell's dependency is down; try again


class Code(Enum):
    """Every reason a command can be refused, across games. Values are stable on the wire."""

    INVALID_SETUP = ("invalid_setup", Category.INVALID_ARGUMENT)
    TILE_OUT_OF_RANGE = ("tile_out_of_range", Category.INVALID_ARGUMENT)
    STALE_TIME = ("stale_time", Category.INVALID_ARGUMENT)
    NOT_SEATED = ("not_seated", Category.PERMISSION_DENIED)
    GAME_NOT_STARTED = ("game_not_started", Category.FAILED_PRECONDITION)
    GAME_ALREADY_STARTED = ("game_already_started", Category.FAILED_PRECONDITION)
    GAME_OVER = ("game_over", Category.FAILED_PRECONDITION)
    PLAYER_OUT = ("player_out", Category.FAILED_PRECONDITION)
    READY_NOT_OPEN = ("ready_not_open", Category.FAILED_PRECONDITION)
    ALREADY_READY = ("already_ready", Category.FAILED_PRECONDITION)
    BOARD_NOT_STARTED = ("board_not_started", Category.FAILED_PRECONDITION)
    BOARD_OVER = ("board_over", Category.FAILED_PRECONDITION)
    PAUSED = ("paused", Category.FAILED_PRECONDITION)
    TILE_FACE_UP = ("tile_face_up", Category.FAILED_PRECONDITION)
    HINT_NO_BOT = ("hint_no_bot", Category.FAILED_PRECONDITION)
    HINT_NEEDS_ONE_TILE = ("hint_needs_one_tile", Category.FAILED_PRECONDITION)
    HINT_LIMIT_REACHED = ("hint_limit_reached", Category.RESOURCE_EXHAUSTED)
    # The race's settings (the referee's codes for them since the start)
    INVALID_READY_WINDOW = ("invalid_ready_window", Category.INVALID_ARGUMENT)
    INVALID_HINTS = ("invalid_hints", Category.INVALID_ARGUMENT)
    # Any game: a command the client may not send (none set, or one only the referee sends)
    MALFORMED_REQUEST = ("malformed_request", Category.INVALID_ARGUMENT)
    # Concentration
    CARD_OUT_OF_RANGE = ("card_out_of_range", Category.INVALID_ARGUMENT)
    CARD_TAKEN = ("card_taken", Category.FAILED_PRECONDITION)
    CARD_FACE_UP = ("card_face_up", Category.FAILED_PRECONDITION)
    NOT_YOUR_TURN = ("not_your_turn", Category.FAILED_PRECONDITION)
    SEAT_PLAYED_BY_CPU = ("seat_played_by_cpu", Category.FAILED_PRECONDITION)
    # Concentration's settings
    INVALID_DECK_SIZE = ("invalid_deck_size", Category.INVALID_ARGUMENT)
    INVALID_PICTURES = ("invalid_pictures", Category.INVALID_ARGUMENT)
    INVALID_JOKERS = ("invalid_jokers", Category.INVALID_ARGUMENT)
    INVALID_MATCHING = ("invalid_matching", Category.INVALID_ARGUMENT)
    INVALID_TURN_LIMIT = ("invalid_turn_limit", Category.INVALID_ARGUMENT)
    # Match Cards
    CARD_FOUND = ("card_found", Category.FAILED_PRECONDITION)
    CARD_TURNED = ("card_turned", Category.FAILED_PRECONDITION)
    COMPARING = ("comparing", Category.FAILED_PRECONDITION)
    PLAYER_FINISHED = ("player_finished", Category.FAILED_PRECONDITION)
    NO_NOTICE = ("no_notice", Category.FAILED_PRECONDITION)
    NOTICE_ALREADY_OFF = ("notice_already_off", Category.FAILED_PRECONDITION)
    # Match Cards' settings and game codes
    INVALID_MODE = ("invalid_mode", Category.INVALID_ARGUMENT)
    INVALID_DIFFICULTY = ("invalid_difficulty", Category.INVALID_ARGUMENT)
    CODE_MALFORMED = ("code_malformed", Category.INVALID_ARGUMENT)
    CODE_VERSION_UNKNOWN = ("code_version_unknown", Category.INVALID_ARGUMENT)
    CODE_CHECK_FAILED = ("code_check_failed", Category.INVALID_ARGUMENT)
    CODE_SIZE_UNKNOWN = ("code_size_unknown", Category.INVALID_ARGUMENT)
    CODE_SETTING_UNKNOWN = ("code_setting_unknown", Category.INVALID_ARGUMENT)
    CODE_CONFLICT = ("code_conflict", Category.INVALID_ARGUMENT)
    # Number Match
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
    # MATCH 5
    COMBINATION_OUT_OF_RANGE = ("combination_out_of_range", Category.INVALID_ARGUMENT)
    LINK_EMPTY = ("link_empty", Category.INVALID_ARGUMENT)
    LINK_TOO_LONG = ("link_too_long", Category.INVALID_ARGUMENT)
    LINK_INVALID_CHARACTERS = ("link_invalid_characters", Category.INVALID_ARGUMENT)
    LINK_REUSED = ("link_reused", Category.FAILED_PRECONDITION)
    ALREADY_DONE = ("already_done", Category.FAILED_PRECONDITION)
    NOT_WRITING = ("not_writing", Category.FAILED_PRECONDITION)
    NO_LINK = ("no_link", Category.FAILED_PRECONDITION)
    NOT_READING = ("not_reading", Category.FAILED_PRECONDITION)
    BALLOT_NOT_OPEN = ("ballot_not_open", Category.FAILED_PRECONDITION)
    BALLOT_OUT_OF_RANGE = ("ballot_out_of_range", Category.INVALID_ARGUMENT)
    ALREADY_VOTED = ("already_voted", Category.FAILED_PRECONDITION)
    OWN_CALL = ("own_call", Category.FAILED_PRECONDITION)
    OWN_LINK = ("own_link", Category.FAILED_PRECONDITION)
    ALREADY_MATCHING = ("already_matching", Category.FAILED_PRECONDITION)

    @property
    def slug(self) -> str:
        return self.value[0]

    @property
    def category(self) -> Category:
        return self.value[1]


class RuleError(Exception):
    """A command the rules refuse. ``code`` is stable; ``message`` is for a person."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(f"{code.slug}: {message}")
        self.code = code
        self.message = message
