"""Concentration's own refusal codes; the ones more than one game gives are
:class:`match_rules.errors.Code`. Values are stable on the wire (docs/contract.md)."""

from __future__ import annotations

from match_rules.errors import Category, RefusalCode


class ConcentrationCode(RefusalCode):
    """Every reason Concentration refuses a command that is its own."""

    CARD_TAKEN = ("card_taken", Category.FAILED_PRECONDITION)
    CARD_FACE_UP = ("card_face_up", Category.FAILED_PRECONDITION)
    NOT_YOUR_TURN = ("not_your_turn", Category.FAILED_PRECONDITION)
    SEAT_PLAYED_BY_CPU = ("seat_played_by_cpu", Category.FAILED_PRECONDITION)
    INVALID_JOKERS = ("invalid_jokers", Category.INVALID_ARGUMENT)
    INVALID_MATCHING = ("invalid_matching", Category.INVALID_ARGUMENT)
    INVALID_TURN_LIMIT = ("invalid_turn_limit", Category.INVALID_ARGUMENT)
