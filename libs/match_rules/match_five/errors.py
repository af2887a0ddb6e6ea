"""MATCH 5's own refusal codes; the ones more than one game gives are
:class:`match_rules.errors.Code`. Values are stable on the wire (docs/contract.md)."""

from __future__ import annotations

from match_rules.errors import Category, RefusalCode


class MatchFiveCode(RefusalCode):
    """Every reason MATCH 5 refuses a command that is its own."""

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
