"""One refusal policy across games: stable slugs, a status category each, a readable message."""

from __future__ import annotations

from match_rules import registry
from match_rules.errors import Category, Code, RuleError
from match_rules.race.errors import RaceCode


def test_every_refusal_code_has_a_unique_slug_and_a_category() -> None:
    codes = registry.refusal_codes()
    slugs = [c.slug for c in codes]
    assert len(slugs) == len(set(slugs)), "a slug is one code, in one game's enum or the shared one"
    assert all(isinstance(c.category, Category) for c in codes)
    assert set(Code) < set(codes) and len(codes) == 69
    assert RaceCode.TILE_OUT_OF_RANGE.category is Category.INVALID_ARGUMENT
    assert Code.NOT_SEATED.category is Category.PERMISSION_DENIED
    assert Code.HINT_LIMIT_REACHED.category is Category.RESOURCE_EXHAUSTED
    assert Code.PAUSED.category is Category.FAILED_PRECONDITION


def test_a_rule_error_carries_its_code_and_message() -> None:
    error = RuleError(Code.PAUSED, "wait a moment")
    assert (error.code, error.message, str(error)) == (
        Code.PAUSED,
        "wait a moment",
        "paused: wait a moment",
    )
