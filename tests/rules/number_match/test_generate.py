"""Number Match's deal, number-match-deal-v1 (libs/match_rules/number_match/generate.py)."""

from __future__ import annotations

import hashlib

import pytest

from match_rules.deal import DealStream, uniform
from match_rules.number_match import generate as gen
from match_rules.number_match.board import Level
from match_rules.number_match.generate import (
    CLASSIC_BOARD,
    CLASSIC_WITNESS,
    DEAL_VERSION,
    MAX_ATTEMPTS,
    candidate,
    classic,
    daily,
    daily_seed,
    generate,
)
from match_rules.number_match.solver import ADD, Solution, Status, replay, solve

SEED = bytes(range(32))
LEVELS = [Level.EASY, Level.MEDIUM, Level.HARD, Level.EXPERT]


@pytest.mark.parametrize("level", LEVELS)
def test_each_level_deals_its_numbers_and_additions_with_a_witness_that_clears_it(
    level: Level,
) -> None:
    dealt = generate(SEED, level)
    assert dealt.version == DEAL_VERSION and dealt.level is level
    assert len(dealt.board) == level.numbers and all(1 <= v <= 9 for v in dealt.board)
    assert dealt.additions == level.additions
    done = replay(dealt.board, dealt.additions, dealt.moves)
    assert done.additions <= level.additions  # type: ignore[operator]


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_deals_the_same_board_and_another_seed_another(level: Level) -> None:
    assert generate(SEED, level) == generate(SEED, level)
    assert generate(bytes(32), level).board != generate(SEED, level).board


def test_a_candidate_is_uniform_digits_from_its_own_stream() -> None:
    # the spec, written out again: stream "board/<attempt>", each cell 1 + uniform(9)
    for version in gen.DEAL_VERSIONS:
        for attempt in (0, 1, 7):
            stream = DealStream(SEED, f"board/{attempt}", version)
            expected = tuple(1 + uniform(stream, 9) for _ in range(54))
            assert candidate(SEED, Level.EXPERT, attempt, version) == expected
    assert candidate(SEED, Level.EASY, 0) == candidate(SEED, Level.EXPERT, 0)[:27]


def test_the_deal_does_not_change_between_runs_or_machines() -> None:
    # a vector for docs/dealing.md: seed 00 01 02 ... 1f, Expert, v1 (dealt for ever)
    dealt = generate(SEED, Level.EXPERT, gen.V1)
    assert dealt.attempt == 0
    assert dealt.board == (
        4, 2, 1, 2, 6, 5, 6, 4, 8, 7, 2, 1, 8, 7, 4, 3, 3, 9, 9, 1, 9, 5, 3, 6, 2, 2, 6,
        1, 6, 9, 8, 2, 7, 4, 2, 9, 3, 5, 2, 3, 1, 6, 7, 5, 5, 5, 4, 4, 1, 4, 4, 9, 1, 5,
    )  # fmt: skip
    digest = hashlib.sha256(repr((dealt.board, dealt.moves)).encode()).hexdigest()
    assert digest == EXPERT_DIGEST


EXPERT_DIGEST = "31e674d0d7c87bcf7896fee9fd597f0f5493ff0c12777438e45a417e2e327626"


def test_a_candidate_the_solver_cannot_clear_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, ...]] = []

    def first_unknown(board: tuple[int, ...], additions: int | None, budget: int) -> Solution:
        calls.append(board)
        if len(calls) == 1:
            return Solution(Status.UNKNOWN, (), budget)
        if len(calls) == 2:
            return Solution(Status.UNSOLVABLE, (), 5)
        return solve(board, additions, budget)

    monkeypatch.setattr(gen, "solve", first_unknown)
    dealt = generate(SEED, Level.HARD)
    assert dealt.attempt == 2 and dealt.board == candidate(SEED, Level.HARD, 2)
    replay(dealt.board, dealt.additions, dealt.moves)


def test_no_candidate_within_the_attempts_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gen, "solve", lambda b, a, n: Solution(Status.UNKNOWN, (), n))
    with pytest.raises(ValueError, match=f"no candidate of {MAX_ATTEMPTS}"):
        generate(SEED, Level.EASY)


def test_a_seed_is_32_bytes() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        generate(b"short", Level.EASY)


# --- Classic ----------------------------------------------------------------------------------


def test_the_classic_board_is_1_to_9_then_the_digits_of_11_to_19() -> None:
    assert CLASSIC_BOARD == (
        1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1, 7, 1, 8, 1, 9,
    )  # fmt: skip
    assert len(CLASSIC_BOARD) == Level.CLASSIC.numbers == 27


def test_the_classic_witness_clears_the_classic_board() -> None:
    done = replay(CLASSIC_BOARD, None, CLASSIC_WITNESS)
    assert (done.pairs, done.additions) == (16, 1)
    assert CLASSIC_WITNESS.count(ADD) == 1
    assert solve(CLASSIC_BOARD, None).status is Status.SOLVABLE


def test_classic_always_deals_the_same_board_whatever_the_seed() -> None:
    dealt = classic()
    assert (dealt.board, dealt.additions, dealt.moves, dealt.attempt) == (
        CLASSIC_BOARD,
        None,
        CLASSIC_WITNESS,
        0,
    )
    assert generate(SEED, Level.CLASSIC) == dealt == generate(bytes(32), Level.CLASSIC)
    with pytest.raises(ValueError, match="no candidates"):
        candidate(SEED, Level.CLASSIC, 0)


# --- the daily puzzle -------------------------------------------------------------------------


def test_the_daily_seed_is_sha256_of_the_prefix_and_the_date() -> None:
    expected = hashlib.sha256(b"number-match-daily-v1/2026-12-01").digest()
    assert daily_seed("2026-12-01") == expected
    assert daily_seed("2026-12-02") != expected


def test_the_daily_puzzle_is_a_hard_board_from_its_date() -> None:
    dealt = daily("2026-12-01")
    assert dealt == generate(daily_seed("2026-12-01"), Level.HARD)
    assert dealt.level is Level.HARD and len(dealt.board) == 45


@pytest.mark.parametrize("date", ["2026-13-01", "2026-02-30", "20261201", "2026-1-01", "", "x"])
def test_a_daily_date_must_be_an_iso_date(date: str) -> None:
    with pytest.raises(ValueError, match="2026-12-01"):
        daily_seed(date)


def test_a_daily_date_must_be_a_string() -> None:
    with pytest.raises(ValueError, match="2026-12-01"):
        daily_seed(20261201)  # type: ignore[arg-type]
