"""Harder levels are harder (issue 31): the promises of number-match-deal-v2's generator.

Each level's dealt boards keep their documented promise (generate.PROMISES, the table in
docs/rules-number-match.md), checked here again from the outside on a modest number of seeds,
and over those seeds both difficulty figures fall strictly from Easy to Expert: the share of
first pairs after which the solver clears the board within FIRST_MOVE_BUDGET positions, and
the share of greedy games won. ``make bench-solver`` measures the same over hundreds of boards.
"""

from __future__ import annotations

import hashlib
import itertools
import random

import pytest

from match_rules.number_match import generate as gen
from match_rules.number_match import solver as solvers
from match_rules.number_match.board import (
    Board,
    Level,
    add_numbers,
    can_add,
    pair_moves,
    remove_pair,
)
from match_rules.number_match.generate import (
    FIRST_MOVE_BUDGET,
    GREEDY_PLAYERS,
    PROMISES,
    V1,
    Promise,
    generate,
    greedy_clears,
    keeps,
    open_first_moves,
)
from match_rules.number_match.solver import Solution, Status, replay, solve

LEVELS = [Level.EASY, Level.MEDIUM, Level.HARD, Level.EXPERT]
SEEDS = [hashlib.sha256(f"difficulty/{n}".encode()).digest() for n in range(8)]


def _figures(level: Level) -> tuple[int, int, int]:
    """Open first pairs, legal first pairs and greedy games won over SEEDS' boards."""
    opened = legal = won = 0
    for seed in SEEDS:
        dealt = generate(seed, level)
        additions = level.additions or 0
        replay(dealt.board, dealt.additions, dealt.moves)  # provably clearable: its witness
        moves = pair_moves(dealt.board)
        mine = sum(
            solve(remove_pair(dealt.board, *m)[0], additions, FIRST_MOVE_BUDGET).status
            is Status.SOLVABLE
            for m in moves
        )
        wins = sum(greedy_clears(dealt.board, additions, p) for p in range(GREEDY_PLAYERS))
        promise = PROMISES[level]
        assert promise.greedy_min <= wins <= promise.greedy, (level, seed.hex())
        assert mine * 100 <= promise.open_percent * len(moves), (level, seed.hex())
        assert open_first_moves(dealt.board, additions) == (mine, len(moves))
        opened, legal, won = opened + mine, legal + len(moves), won + wins
    return opened, legal, won


def test_every_level_keeps_its_promise_and_both_figures_fall_from_easy_to_expert() -> None:
    figures = [_figures(level) for level in LEVELS]
    open_shares = [opened / legal for opened, legal, _ in figures]
    greedy_shares = [won / (len(SEEDS) * GREEDY_PLAYERS) for _, _, won in figures]
    assert all(a > b for a, b in itertools.pairwise(open_shares)), open_shares
    assert all(a > b for a, b in itertools.pairwise(greedy_shares)), greedy_shares


def test_the_promises_tighten_from_easy_to_expert() -> None:
    promises = [PROMISES[level] for level in LEVELS]
    assert promises[0] == Promise(greedy_min=5, greedy=GREEDY_PLAYERS, open_percent=100)
    for easier, harder in itertools.pairwise(promises):
        assert harder.greedy <= easier.greedy and harder.open_percent <= easier.open_percent
        assert (harder.greedy, harder.open_percent) != (easier.greedy, easier.open_percent) or (
            harder.greedy_min < easier.greedy_min
        )


def test_the_daily_puzzle_keeps_hards_promise() -> None:
    dealt = gen.daily("2026-12-01")
    assert keeps(dealt.board, Level.HARD)


def test_a_greedy_player_pairs_by_its_own_rule_and_adds_only_when_no_pair_is_left() -> None:
    assert greedy_clears((1, 9), 0, 0)  # one pair: taken
    assert greedy_clears((1, 2), 1, 0) is False  # 1 2 1 2: no pair, no addition left
    assert greedy_clears((1, 2), 0, 3) is False
    # 1 1 1 1: player 0 takes the first pair, player 1 the last, player 2 its own pick
    assert all(greedy_clears((1, 1, 1, 1), 0, p) for p in range(GREEDY_PLAYERS))
    # 5 5 3: whichever pair first, the 3 is left alone; one addition (3 3) clears it
    assert greedy_clears((5, 5, 3), 1, 2) and not greedy_clears((5, 5, 3), 0, 2)


def test_open_first_moves_counts_the_first_pairs_that_keep_an_easy_clearing() -> None:
    board = (1, 1, 1, 1)  # pairs 0-1, 1-2, 2-3: each leaves two 1s that see each other
    assert open_first_moves(board, 0) == (3, 3)
    assert open_first_moves((1, 2, 3), 0) == (0, 0)
    assert open_first_moves((1, 1, 2), 0) == (0, 1)  # the 2 is left alone


def reference_greedy(board: Board, additions: int, player: int) -> bool:
    """greedy_clears written with the board's own functions, as docs/dealing.md says it."""
    state = player
    while board:
        moves = pair_moves(board)
        if moves:
            if player == 0:
                move = moves[0]
            elif player == 1:
                move = moves[-1]
            else:
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                move = moves[(state >> 8) % len(moves)]
            board = remove_pair(board, *move)[0]
        elif additions and can_add(board):
            board = add_numbers(board)
            additions -= 1
        else:
            return False
    return True


def test_the_greedy_players_on_classes_play_as_the_board_functions_say() -> None:
    rng = random.Random(31)
    for _ in range(60):
        level = rng.choice(LEVELS)
        board = tuple(rng.randrange(1, 10) for _ in range(level.numbers))
        additions = rng.choice((0, 1, 3, 5))
        for player in range(GREEDY_PLAYERS):
            expected = reference_greedy(board, additions, player)
            assert greedy_clears(board, additions, player) is expected, (board, additions, player)


def test_a_candidate_that_breaks_its_levels_promise_is_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []

    def second_keeps(board: tuple[int, ...], level: Level) -> bool:
        seen.append(len(seen))
        return len(seen) == 2

    monkeypatch.setattr(gen, "keeps", second_keeps)
    assert generate(SEEDS[0], Level.MEDIUM).attempt == 1
    monkeypatch.setattr(gen, "keeps", lambda board, level: False)
    with pytest.raises(ValueError, match="kept its promise"):
        generate(SEEDS[0], Level.MEDIUM)
    assert generate(SEEDS[0], Level.MEDIUM, V1).attempt == 0  # v1 has no promise


@pytest.mark.parametrize(
    ("level", "greedy_won", "expected"),
    [
        (Level.EASY, 4, False),  # Easy: at least 5 of the 8 greedy players clear it
        (Level.EASY, 5, True),
        (Level.MEDIUM, 5, False),  # at most 4
        (Level.MEDIUM, 4, True),
    ],
)
def test_keeps_counts_the_greedy_players(
    monkeypatch: pytest.MonkeyPatch, level: Level, greedy_won: int, expected: bool
) -> None:
    monkeypatch.setattr(gen, "greedy_clears", lambda board, additions, player: player < greedy_won)
    assert keeps((1, 9), level) is expected


@pytest.mark.parametrize(
    ("opened", "expected", "searched"),
    [
        (9, False, 9),  # Expert: at most 80 % of 10 first pairs open; the ninth settles it
        (8, True, 10),
        (0, True, 2),  # after two closed ones, eight left can be at most the 8 allowed
    ],
)
def test_keeps_counts_the_open_first_pairs_until_the_answer_is_settled(
    monkeypatch: pytest.MonkeyPatch, opened: int, expected: bool, searched: int
) -> None:
    calls: list[int] = []

    def first_open(board: Board, additions: int | None, budget: int) -> Solution:
        calls.append(budget)
        return Solution(Status.SOLVABLE if len(calls) <= opened else Status.UNSOLVABLE, (), 1)

    monkeypatch.setattr(gen, "greedy_clears", lambda board, additions, player: False)
    monkeypatch.setattr(gen, "pair_moves", lambda board: [(0, 1)] * 10)
    monkeypatch.setattr(gen, "remove_pair", lambda board, i, j: (board, 0))
    monkeypatch.setattr(solvers, "solve", first_open)
    assert keeps((1, 9), Level.EXPERT) is expected
    assert calls == [FIRST_MOVE_BUDGET] * searched


def test_an_unknown_deal_version_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown deal version"):
        generate(SEEDS[0], Level.EASY, "number-match-deal-v0")
    with pytest.raises(ValueError, match="unknown deal version"):
        gen.candidate(SEEDS[0], Level.EASY, 0, "number-match-deal-v0")
