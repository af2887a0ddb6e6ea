"""What a finished game of Number Match gives the players' read models (``Results.winners``,
``figures``, ``entries``, ``daily``): worked out by hand for small games, and the same from a
state folded from the log alone."""

from __future__ import annotations

from dataclasses import replace

from match_rules.game import DailySolve, Entry, Figure, Keep, Results, Standing
from match_rules.number_match import commands as cmd
from match_rules.number_match import events as ev
from match_rules.number_match.board import Level
from match_rules.number_match.decide import decide_steps
from match_rules.number_match.game import GAME
from match_rules.number_match.settings import Settings
from match_rules.number_match.state import initial_state
from tests.rules.number_match.helpers import ME, T0, pair, steps

# Six numbers in one row, cleared by three touching pairs: 1 + 1 + (1 + 10 for the row + 150
# for the clear board) = 163 points.
SIX = (1, 1, 2, 8, 3, 3)
WITNESS = "1-2,3-4,5-6"
CLEAR = (pair(1, 2), pair(3, 4, T0 + 3_000), pair(5, 6, T0 + 61_000))  # cleared in 61 s
DAY = "2025-12-01"  # T0's date at UTC


def play(settings: Settings, *commands: cmd.Command) -> Results:
    """A game of SIX played with ``commands`` to its end: its results, checked to be the same
    from the log alone (the events through the wire, folded without the deal)."""
    state = replace(initial_state(SIX, steps(WITNESS)), dealt_additions=settings.level.additions)
    log: list[ev.Event] = []
    for command in (cmd.StartGame(T0, ME, settings, "number-match-deal-v1"), *commands):
        for event, after in decide_steps(state, command):
            log.append(event)
            state = after
    got = GAME.results(state)
    assert got is not None
    projection = GAME.initial_state(None)
    for event in log:
        projection = GAME.evolve(projection, GAME.decode(GAME.encode(event)))
    assert GAME.results(projection) == got
    return got


def test_a_cleared_board_wins_and_keeps_score_time_and_hints_per_level() -> None:
    got = play(Settings(Level.EASY), CLEAR[0], cmd.AskHint(T0 + 2_000, ME), *CLEAR[1:])
    assert got.ranked and not got.draw and got.winners == frozenset({ME})
    assert got.figures == (
        Figure(ME, "best_score/level-easy", 163, Keep.MAX),
        Figure(ME, "best_time_ms/level-easy", 61_000, Keep.MIN),
        Figure(ME, "hints", 1, Keep.SUM),
    )
    assert got.entries == (
        Entry("level-easy", ME, 163, "points"),
        Entry("", ME, 163, "points"),
    )
    assert got.daily == ()
    assert not got.entries[0].lower_is_better and not got.entries[1].lower_is_better


def test_a_board_not_cleared_has_no_winner_and_no_time_but_its_score_counts() -> None:
    got = play(Settings(Level.MEDIUM), pair(1, 2), cmd.EndGame(T0 + 5_000, ME))
    assert got.ranked and got.winners == frozenset()
    assert got.figures == (
        Figure(ME, "best_score/level-medium", 1, Keep.MAX),
        Figure(ME, "hints", 0, Keep.SUM),
    )
    assert got.entries == (Entry("level-medium", ME, 1, "points"), Entry("", ME, 1, "points"))
    assert got.daily == ()


def test_the_daily_puzzle_cleared_is_solved_on_its_date_and_has_its_own_board() -> None:
    """The daily puzzle is a hard board: its figures count at level hard. Everybody may learn
    it, so it goes on its own board only, which keeps each player's first try."""
    got = play(Settings(Level.HARD, daily_date=DAY), *CLEAR)
    assert got.winners == frozenset({ME})
    assert got.figures == (
        Figure(ME, "best_score/level-hard", 163, Keep.MAX),
        Figure(ME, "best_time_ms/level-hard", 61_000, Keep.MIN),
        Figure(ME, "hints", 0, Keep.SUM),
    )
    assert got.entries == (Entry(f"daily-{DAY}", ME, 163, "points", first_only=True),)
    assert got.daily == (DailySolve(ME, DAY),)


def test_the_daily_puzzle_not_cleared_is_on_its_board_but_not_solved() -> None:
    got = play(Settings(Level.HARD, daily_date=DAY), pair(1, 2), cmd.EndGame(T0 + 5_000, ME))
    assert got.winners == frozenset()
    assert got.entries == (Entry(f"daily-{DAY}", ME, 1, "points", first_only=True),)
    assert got.daily == ()


def test_a_replay_counts_in_the_statistics_and_on_no_board() -> None:
    got = play(Settings(Level.EXPERT, replay_seed=bytes(32)), *CLEAR)
    assert not got.ranked and got.winners == frozenset({ME})
    assert got.figures == (
        Figure(ME, "best_score/level-expert", 163, Keep.MAX),
        Figure(ME, "best_time_ms/level-expert", 61_000, Keep.MIN),
        Figure(ME, "hints", 0, Keep.SUM),
    )
    assert got.entries == () and got.daily == ()


def test_the_one_standing_is_first_place_with_a_summary_written_out_by_hand() -> None:
    cleared = play(Settings(Level.EASY), CLEAR[0], cmd.AskHint(T0 + 2_000, ME), *CLEAR[1:])
    assert cleared.standings == (
        Standing(ME, 1, 163, "cleared: 163 points in 61.0 s, 1 of 3 hints"),
    )
    assert cleared.draw is False
    given_up = play(Settings(Level.MEDIUM), pair(1, 2), cmd.EndGame(T0 + 5_000, ME))
    assert given_up.standings == (
        Standing(ME, 1, 1, "not cleared (gave up): 1 points in 5.0 s, 0 of 3 hints"),
    )
    replayed = play(Settings(Level.EXPERT, replay_seed=bytes(32)), *CLEAR)
    assert replayed.standings == (
        Standing(ME, 1, 163, "cleared: 163 points in 61.0 s, 0 of 3 hints, a replay (not ranked)"),
    )
