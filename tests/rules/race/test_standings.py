"""Standings computed by hand for constructed games: each expected line is written out from the
rules (pairs first, then time; turns never break a tie; out below everyone; a shared place
skips the next), not from score.py."""

from __future__ import annotations

from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.score import standings
from tests.rules.race.helpers import ANN, BOB, CAT, Game

OC = ev.Outcome
R = ev.BoardResult
S = ev.Standing


def test_pairs_rank_first_then_time_and_turns_never_break_a_tie() -> None:
    boards = (
        (R(ANN, OC.CLEARED, 10, 10, 24, 30_000, 0), R(BOB, OC.BOARD_ENDED, 6, 6, 30, 50_000, 1),
         R(CAT, OC.CLEARED, 10, 10, 40, 30_000, 2)),
        (R(ANN, OC.BOARD_ENDED, 4, 4, 12, 45_000, 0), R(BOB, OC.CLEARED, 10, 10, 22, 25_000, 0),
         R(CAT, OC.BOARD_ENDED, 4, 4, 9, 45_000, 1)),
    )  # fmt: skip
    # ann: 14 pairs, 75 000 ms, 36 turns; bob: 16, 75 000, 52; cat: 14, 75 000, 49.
    assert standings((ANN, BOB, CAT), frozenset(), boards) == (
        S(BOB, 1, 16, 75_000, 52, 1, False),
        S(ANN, 2, 14, 75_000, 36, 0, False),
        S(CAT, 2, 14, 75_000, 49, 3, False),
    )


def test_less_time_wins_at_equal_pairs_and_a_shared_place_skips_the_next() -> None:
    boards = (
        (R(ANN, OC.BOARD_ENDED, 5, 5, 20, 60_000, 0), R(BOB, OC.BOARD_ENDED, 5, 5, 20, 60_000, 0),
         R(CAT, OC.BOARD_ENDED, 5, 5, 20, 59_999, 0)),
    )  # fmt: skip
    assert standings((ANN, BOB, CAT), frozenset(), boards) == (
        S(CAT, 1, 5, 59_999, 20, 0, False),
        S(ANN, 2, 5, 60_000, 20, 0, False),
        S(BOB, 2, 5, 60_000, 20, 0, False),
    )
    tied = (tuple(R(p, OC.BOARD_ENDED, 5, 5, 20, 60_000, 0) for p in (ANN, BOB, CAT)),)
    assert [s.place for s in standings((ANN, BOB, CAT), frozenset({CAT}), tied)] == [1, 1, 3]


def test_out_ranks_below_everyone_who_stayed_whatever_the_pairs() -> None:
    boards = (
        (R(ANN, OC.CLEARED, 10, 10, 20, 20_000, 0), R(BOB, OC.BOARD_ENDED, 1, 1, 30, 40_000, 0)),
        (R(ANN, OC.RESIGNED, 0, 2, 5, 120_000, 0), R(BOB, OC.BOARD_ENDED, 2, 2, 8, 120_000, 0)),
    )
    assert standings((ANN, BOB), frozenset({ANN}), boards) == (
        S(BOB, 1, 3, 160_000, 38, 0, False),
        S(ANN, 2, 10, 140_000, 25, 0, True),
    )


def test_a_played_game_two_resign_on_board_one() -> None:
    """Board 1: Ann finds 2 pairs (last at T0 + 1 500), then Bob resigns and Ann resigns:
    the board ends and so does the game (nobody left). By hand: Ann resigned, so her time is
    the board's end, her 2 pairs still count; Bob resigned with none."""
    g = Game.playing((ANN, BOB))
    t0 = g.t0
    g.find_pairs(ANN, [(1, 2), (3, 4)], t0)  # 4 turns, the last at T0 + 1 500
    g.when(cmd.Resign(t0 + 2_000, BOB))
    g.when(cmd.Resign(t0 + 3_000, ANN))
    (ended,) = g.of(ev.GameEnded)
    assert ended.standings == (  # type: ignore[attr-defined]
        S(ANN, 1, 2, 3_000, 4, 0, True),
        S(BOB, 2, 0, 3_000, 0, 0, True),
    )
