"""Match Cards's own refusal codes; the ones more than one game gives are
:class:`match_rules.errors.Code`. Values are stable on the wire (docs/contract.md)."""

from __future__ import annotations

from match_rules.errors import Category, RefusalCode


class MatchCardsCode(RefusalCode):
    """Every reason Match Cards refuses a command that is its own."""

    CARD_FOUND = ("card_found", Category.FAILED_PRECONDITION)
    CARD_TURNED = ("card_turned", Category.FAILED_PRECONDITION)
    COMPARING = ("comparing", Category.FAILED_PRECONDITION)
    PLAYER_FINISHED = ("player_finished", Category.FAILED_PRECONDITION)
    NO_NOTICE = ("no_notice", Category.FAILED_PRECONDITION)
    NOTICE_ALREADY_OFF = ("notice_already_off", Category.FAILED_PRECONDITION)
    INVALID_MODE = ("invalid_mode", Category.INVALID_ARGUMENT)
    INVALID_DIFFICULTY = ("invalid_difficulty", Category.INVALID_ARGUMENT)
    CODE_MALFORMED = ("code_malformed", Category.INVALID_ARGUMENT)
    CODE_VERSION_UNKNOWN = ("code_version_unknown", Category.INVALID_ARGUMENT)
    CODE_CHECK_FAILED = ("code_check_failed", Category.INVALID_ARGUMENT)
    CODE_SIZE_UNKNOWN = ("code_size_unknown", Category.INVALID_ARGUMENT)
    CODE_SETTING_UNKNOWN = ("code_setting_unknown", Category.INVALID_ARGUMENT)
    CODE_CONFLICT = ("code_conflict", Category.INVALID_ARGUMENT)
