"""Number Match's rules, one by one (docs/rules-number-match.md): given a board, when the player
sends a command, then these events, or this refusal and nothing changed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match_rules.errors import Code, RuleError
from match_rules.number_match import commands as cmd
from match_rules.number_match import events as ev
from match_rules.number_match import solver
from match_rules.number_match import witness as witnesses
from match_rules.number_match.board import Level
from match_rules.number_match.decide import IDLE_MS, decide_steps, next_deadline
from match_rules.number_match.errors import NumberMatchCode
from match_rules.number_match.settings import Settings
from match_rules.number_match.state import Phase, evolve, initial_state
from tests.rules.number_match.helpers import ME, T0, events, pair, run, started, steps

SIX = (1, 1, 2, 8, 3, 3)  # three touching pairs; the last one empties the row and the board
SIX_WITNESS = "1-2,3-4,5-6"


def refused(state: object, command: cmd.Command) -> RuleError:
    with pytest.raises(RuleError) as caught:
        decide_steps(state, command)  # type: ignore[arg-type]
    return caught.value


# --- the start -------------------------------------------------------------------------------


def test_the_start_lays_out_the_board_with_the_levels_additions_three_hints_and_a_commitment():
    state = started(SIX, SIX_WITNESS, Level.MEDIUM)
    assert state.phase is Phase.PLAYING and state.board == SIX and state.start_board == SIX
    assert state.additions_left == 5 and state.hints_left == 3 and state.score == 0
    assert state.witness_commitment == witnesses.commitment(SIX, 5, steps(SIX_WITNESS))
    assert next_deadline(state) == T0 + IDLE_MS


def test_classic_has_no_limit_on_additions():
    assert started(SIX, SIX_WITNESS, Level.CLASSIC).additions_left is None


def test_the_commitment_is_sha256_of_the_witness_text_written_out_by_hand():
    text = "number-match-witness-v1\n112833\n5\n1-2,3-4,5-6\n"
    assert witnesses.text(SIX, 5, steps(SIX_WITNESS)) == text
    import hashlib

    assert (
        witnesses.commitment(SIX, 5, steps(SIX_WITNESS))
        == hashlib.sha256(text.encode()).hexdigest()
    )
    assert witnesses.text(SIX, None, ()) == "number-match-witness-v1\n112833\n-\n\n"


# --- pairs and points ------------------------------------------------------------------------


def test_a_touching_pair_scores_1_and_the_last_pair_scores_its_row_and_the_clear():
    state = started(SIX, SIX_WITNESS)
    (first,) = events(state, pair(1, 2))
    assert first == ev.CellsPaired(T0 + 1_000, ME, 1, 2, 1, 0, 1)
    state = run(state, pair(1, 2), pair(3, 4))
    assert state.board == (0, 0, 0, 0, 3, 3) and state.score == 2
    last, over = events(state, pair(6, 5, T0 + 9_000))
    assert last == ev.CellsPaired(T0 + 9_000, ME, 5, 6, 1 + 10 + 150, 1, 163)
    assert over == ev.GameOver(
        T0 + 9_000, ME, ev.Outcome.CLEARED, 163, 9_000, 3, 0, steps(SIX_WITNESS)
    )


def test_a_pair_across_empty_cells_scores_4():
    state = run(started((1, 5, 5, 9), "2-3,1-4"), pair(2, 3))
    paired, _ = events(state, pair(1, 4))
    assert paired.points == 4 + 10 + 150  # type: ignore[union-attr]


def test_a_pair_from_a_rows_end_to_the_next_rows_start_touches():
    board = (1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 3, 7)
    (paired,) = events(started(board, "9-10"), pair(9, 10))
    assert paired == ev.CellsPaired(T0 + 1_000, ME, 9, 10, 1, 0, 1)


def test_an_emptied_row_goes_and_the_rows_below_move_up():
    board = (1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 4, 4)
    state = run(started(board, ""), pair(1, 2), pair(3, 4), pair(5, 6), pair(7, 8))
    assert state.board == (0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 4, 4)
    paired, *_ = events(state, pair(9, 10))
    assert paired.rows_removed == 1 and paired.points == 1 + 10  # type: ignore[union-attr]
    assert run(state, pair(9, 10)).board == (0, 4, 4)  # the first row went; cell 10 stays empty


@pytest.mark.parametrize(
    ("first", "second", "code"),
    [
        (0, 1, NumberMatchCode.CELL_OUT_OF_RANGE),
        (1, 7, NumberMatchCode.CELL_OUT_OF_RANGE),
        (2, 2, NumberMatchCode.SAME_CELL),
        (1, 3, NumberMatchCode.NOT_A_PAIR),  # 1 and 2
        (1, 6, NumberMatchCode.CELLS_BLOCKED),  # 1 and 1, with 1, 2, 8 and 3 between them
    ],
)
def test_a_bad_pair_is_refused_with_its_own_code_and_changes_nothing(first, second, code):
    state = started((1, 1, 2, 8, 3, 1), "")
    if code is NumberMatchCode.CELLS_BLOCKED:
        assert state.board[first - 1] == state.board[second - 1] == 1
    error = refused(state, pair(first, second))
    assert error.code is code and error.message


def test_an_empty_cell_is_refused():
    state = run(started(SIX, SIX_WITNESS), pair(1, 2))
    assert refused(state, pair(1, 3)).code is NumberMatchCode.CELL_EMPTY


def test_a_stranger_cannot_play_the_board():
    state = started(SIX, SIX_WITNESS)
    assert refused(state, cmd.PairCells(T0 + 1, "p2", 1, 2)).code is Code.NOT_SEATED


# --- additions -------------------------------------------------------------------------------


def test_add_numbers_copies_after_the_last_number_and_counts_down():
    board = (5, 5, 1, 2)
    state = run(started(board, ""), pair(1, 2))
    (added,) = events(state, cmd.AddNumbers(T0 + 2_000, ME))
    assert added == ev.NumbersAdded(T0 + 2_000, ME, 2, 4)
    state = run(state, cmd.AddNumbers(T0 + 2_000, ME))
    assert state.board == (0, 0, 1, 2, 1, 2) and state.additions_left == 4


def test_no_addition_left_is_refused():
    state = replace(started((1, 2), ""), additions_left=0)
    assert refused(state, cmd.AddNumbers(T0 + 1, ME)).code is NumberMatchCode.NO_ADDITIONS_LEFT


def test_classic_refuses_an_addition_past_the_boards_cap():
    state = replace(started((1, 2), "", Level.CLASSIC), board=(1, 2) * 200)
    assert refused(state, cmd.AddNumbers(T0 + 1, ME)).code is NumberMatchCode.BOARD_FULL


# --- the end ---------------------------------------------------------------------------------


def test_no_pair_and_no_addition_left_ends_the_game():
    state = replace(started((1, 1, 2, 3), ""), additions_left=0)
    paired, over = events(state, pair(1, 2))
    assert isinstance(over, ev.GameOver) and over.outcome is ev.Outcome.NO_MOVES
    assert over.at == paired.at and over.score == 1


def test_ending_the_game_reveals_the_witness():
    state = started(SIX, SIX_WITNESS)
    (over,) = events(state, cmd.EndGame(T0 + 4_000, ME))
    assert over == ev.GameOver(
        T0 + 4_000, ME, ev.Outcome.GAVE_UP, 0, 4_000, 0, 0, steps(SIX_WITNESS)
    )


def test_the_idle_limit_ends_the_game_when_it_was_due_and_not_a_millisecond_before():
    state = run(started(SIX, SIX_WITNESS), pair(1, 2))
    due = T0 + 1_000 + IDLE_MS
    assert next_deadline(state) == due
    assert events(state, cmd.Tick(due - 1)) == []
    (over,) = events(state, cmd.Tick(due + 5_000))
    assert over.outcome is ev.Outcome.IDLE and over.at == due  # type: ignore[union-attr]
    # A move that arrives after the limit finds the game over (the timer's tick records it).
    assert refused(state, pair(3, 4, due + 1)).code is Code.GAME_OVER


@pytest.mark.parametrize(
    "command",
    [
        pair(3, 4, T0 + 5_000),
        cmd.AddNumbers(T0 + 5_000, ME),
        cmd.AskHint(T0 + 5_000, ME),
        cmd.Undo(T0 + 5_000, ME),
        cmd.EndGame(T0 + 5_000, ME),
    ],
    ids=lambda c: type(c).__name__,
)
def test_nothing_is_played_undone_or_hinted_once_the_game_is_over(command):
    state = run(started(SIX, SIX_WITNESS), pair(1, 2), cmd.EndGame(T0 + 2_000, ME))
    assert state.phase is Phase.OVER
    assert refused(state, command).code is Code.GAME_OVER


# --- undo ------------------------------------------------------------------------------------


def test_undo_takes_back_pairs_and_additions_many_in_a_row_with_their_points():
    board = (5, 5, 1, 2)
    state = run(started(board, ""), pair(1, 2), cmd.AddNumbers(T0 + 2_000, ME))
    (undone,) = events(state, cmd.Undo(T0 + 3_000, ME))
    assert undone == ev.MoveUndone(T0 + 3_000, ME, ev.Undone.ADD, 1, 5)
    state = run(state, cmd.Undo(T0 + 3_000, ME))
    assert state.board == (0, 0, 1, 2) and state.additions_left == 5
    (undone,) = events(state, cmd.Undo(T0 + 4_000, ME))
    assert undone == ev.MoveUndone(T0 + 4_000, ME, ev.Undone.PAIR, 0, 5)
    state = run(state, cmd.Undo(T0 + 4_000, ME))
    assert state.board == board and state.score == 0 and not state.history
    assert refused(state, cmd.Undo(T0 + 5_000, ME)).code is NumberMatchCode.NOTHING_TO_UNDO


# --- hints -----------------------------------------------------------------------------------


def test_a_hint_follows_the_witness_while_the_player_does():
    state = started(SIX, "3-4,1-2,5-6")
    (hint,) = events(state, cmd.AskHint(T0 + 1, ME))
    assert hint == ev.HintGiven(T0 + 1, ME, ev.HintKind.PAIR, 3, 4, 2)


def test_a_hint_off_the_witness_keeps_the_board_clearable():
    board = (1, 1, 2, 8, 1, 1, 9, 9, 5, 5, 3, 7)
    state = run(started(board, ""), pair(5, 6))  # no witness to follow: the solver answers
    (hint,) = events(state, cmd.AskHint(T0 + 2_000, ME))
    assert hint.kind is ev.HintKind.PAIR  # type: ignore[union-attr]
    after = run(state, pair(hint.first, hint.second, T0 + 3_000))  # type: ignore[union-attr]
    assert solver.solve(after.board, after.additions_left, 200_000).status is solver.Status.SOLVABLE


def test_a_hint_says_add_when_only_an_addition_helps_and_stuck_when_nothing_does():
    state = replace(started((1, 2), ""), board=(1, 2, 3))  # no pair; two additions clear it
    (hint,) = events(state, cmd.AskHint(T0 + 1, ME))
    assert hint == ev.HintGiven(T0 + 1, ME, ev.HintKind.ADD, 0, 0, 2)
    found = solver.solve((1, 2, 3), 5, 100_000)
    assert found.status is solver.Status.SOLVABLE and found.moves[0] == solver.ADD
    stuck = replace(state, additions_left=0)
    (hint,) = events(stuck, cmd.AskHint(T0 + 1, ME))
    assert hint == ev.HintGiven(T0 + 1, ME, ev.HintKind.STUCK, 0, 0, 2)


def test_three_hints_a_game_and_undo_does_not_give_them_back():
    state = started(SIX, SIX_WITNESS)
    for n in range(3):
        state = run(state, cmd.AskHint(T0 + n, ME))
    assert state.hints_left == 0 and state.hints_used == 3
    assert refused(state, cmd.AskHint(T0 + 5, ME)).code is Code.HINT_LIMIT_REACHED
    state = run(state, pair(1, 2, T0 + 6), cmd.Undo(T0 + 7, ME))
    assert refused(state, cmd.AskHint(T0 + 8, ME)).code is Code.HINT_LIMIT_REACHED


def test_a_hint_the_solver_cannot_decide_is_refused_and_not_counted(monkeypatch):
    from match_rules.number_match import decide

    monkeypatch.setattr(decide, "HINT_BUDGET", 1)
    state = run(started(SIX, SIX_WITNESS), pair(3, 4))  # off the witness's order
    error = refused(state, cmd.AskHint(T0 + 2_000, ME))
    assert error.code is NumberMatchCode.HINT_UNDECIDED and "budget" in error.message


# --- the daily puzzle ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("offset", "at", "date"),
    [
        (0, T0, "2025-12-01"),
        (60, T0 - 60 * 60_000, "2025-12-01"),  # 00:00 in Berlin is 23:00 UTC the day before
        (60, T0 - 60 * 60_000 - 1, "2025-11-30"),
        (-300, T0 + 5 * 3_600_000 - 1, "2025-11-30"),  # 23:59:59.999 in New York
        (840, T0 - 14 * 3_600_000, "2025-12-01"),
    ],
)
def test_the_daily_puzzle_starts_only_on_its_date_where_the_player_is(offset, at, date):
    chosen = Settings(Level.HARD, date, offset)
    state = started(SIX, SIX_WITNESS, Level.HARD, at=at, settings=chosen)
    assert state.phase is Phase.PLAYING
    wrong = Settings(Level.HARD, "2025-12-02" if date != "2025-12-02" else "2025-12-03", offset)
    with pytest.raises(RuleError) as caught:
        started(SIX, SIX_WITNESS, Level.HARD, at=at, settings=wrong)
    assert caught.value.code is NumberMatchCode.DAILY_NOT_TODAY and date in caught.value.message


def test_the_refusals_of_an_addition_and_of_an_undo_say_what_to_do_instead():
    state = replace(started((1, 2), "", Level.EXPERT), additions_left=0)
    assert refused(state, cmd.AddNumbers(T0 + 1, ME)).message == (
        "no addition is left (expert gives 3): find a pair, undo, or ask for a hint"
    )
    full = replace(started((1, 2), "", Level.CLASSIC), board=(1, 2) * 200)
    assert refused(full, cmd.AddNumbers(T0 + 1, ME)).message == (
        "the copies would not fit: a board holds at most 540 cells; find a pair or undo"
    )
    assert refused(started(SIX, SIX_WITNESS), cmd.Undo(T0 + 1, ME)).message == (
        "nothing to undo: no pair or addition was made"
    )


def test_a_classic_addition_counts_down_nothing():
    state = run(started((5, 5, 1, 2), "", Level.CLASSIC), pair(1, 2))
    (added,) = events(state, cmd.AddNumbers(T0 + 2_000, ME))
    assert added == ev.NumbersAdded(T0 + 2_000, ME, 2, None)
    assert run(state, cmd.AddNumbers(T0 + 2_000, ME)).additions_left is None


# --- every refusal's words -------------------------------------------------------------------


def test_each_refusal_says_why_in_words_written_out_by_hand():
    state = run(started((1, 1, 2, 8, 3, 2), ""), pair(1, 2))
    said = {
        pair(0, 3): "cell 0 is not on the board: its cells are numbered 1 to 6, row by row, "
        "as it is now",
        pair(1, 3): "cell 1 is empty: pick two numbers",
        pair(3, 6): "cells 3 and 6 do not see each other: a pair lies in one row, column or "
        "diagonal, or follows in reading order, with only empty cells between",
        cmd.PairCells(T0 + 1_000, "p2", 3, 4): "only the table's player plays its board",
    }
    for command, message in said.items():
        assert refused(state, command).message == message
    assert refused(initial_state(), pair(1, 2)).message == "the game has not started yet"
    assert refused(state, cmd.StartGame(T0 + 1_000, ME, Settings(), "v")).message == (
        "the game has already started"
    )
    over = run(state, cmd.EndGame(T0 + 2_000, ME))
    assert refused(over, pair(3, 4, T0 + 3_000)).message == (
        "the game is over: nothing more can be played, undone or hinted; play the same "
        "board again with its revealed seed as replay_seed, or start a new game"
    )
    spent = replace(state, hints_left=0)
    assert refused(spent, cmd.AskHint(T0 + 2_000, ME)).message == (
        "all 3 hints of this game are used (undo keeps them)"
    )


def test_an_undecided_hint_says_its_budget(monkeypatch):
    from match_rules.number_match import decide

    monkeypatch.setattr(decide, "HINT_BUDGET", 1)
    state = run(started(SIX, SIX_WITNESS), pair(3, 4))  # off the witness: the solver is asked
    assert refused(state, cmd.AskHint(T0 + 2_000, ME)).message == (
        "the solver could not decide within its budget of 1 positions, "
        "so no hint was used: it never guesses; try again after a move"
    )


def test_a_daily_puzzle_not_of_today_names_the_players_utc_offset_in_hours():
    daily = Settings(Level.HARD, daily_date="2025-12-02", utc_offset_minutes=90)
    state = replace(initial_state(SIX, steps(SIX_WITNESS)), dealt_additions=4)
    assert refused(state, cmd.StartGame(T0, ME, daily, "v")).message == (
        "it is 2025-12-01 at UTC+1.5; the daily puzzle of 2025-12-02 can only be started on "
        "that day: ask for 2025-12-01"
    )


def test_the_start_event_carries_the_deal_version_and_the_daily_date():
    daily = Settings(Level.HARD, daily_date="2025-12-01")
    state = replace(initial_state(SIX, steps(SIX_WITNESS)), dealt_additions=4)
    (started_event,) = events(state, cmd.StartGame(T0, ME, daily, "number-match-deal-v1"))
    assert started_event == ev.GameStarted(
        T0,
        ME,
        daily,
        "number-match-deal-v1",
        SIX,
        4,
        3,
        witnesses.commitment(SIX, 4, steps(SIX_WITNESS)),
        "2025-12-01",
        False,
    )
    assert run(state, cmd.StartGame(T0, ME, daily, "v-x")).deal_version == "v-x"


def test_the_start_needs_the_witness_too():
    state = replace(initial_state(SIX, None), dealt_additions=5)
    with pytest.raises(ValueError) as caught:
        decide_steps(state, cmd.StartGame(T0, ME, Settings(), "v"))
    assert str(caught.value) == "the referee's state must hold the deal before the game starts"


def test_a_command_at_the_idle_limits_very_millisecond_finds_the_game_over():
    state = run(started(SIX, SIX_WITNESS), pair(1, 2))
    due = T0 + 1_000 + IDLE_MS
    (over,) = events(state, cmd.Tick(due))
    assert over.outcome is ev.Outcome.IDLE and over.at == due  # type: ignore[union-attr]
    assert refused(state, pair(3, 4, due)).code is Code.GAME_OVER


def test_each_event_moves_the_clock_records_the_path_and_forgets_the_hint():
    state = started(SIX, SIX_WITNESS)
    assert state.deal_version == "number-match-deal-v2"
    hinted = run(state, cmd.AskHint(T0 + 1_000, ME))
    assert (hinted.now, hinted.active_at) == (T0 + 1_000, T0 + 1_000) and hinted.hint is not None
    moved = run(
        hinted,
        pair(1, 2, T0 + 2_000),
        cmd.AddNumbers(T0 + 3_000, ME),
        cmd.AddNumbers(T0 + 3_000, ME),
    )
    assert moved.hint is None
    assert moved.path == (ev.Step(False, 1, 2), ev.Step(True, 0, 0), ev.Step(True, 0, 0))
    rehinted = run(moved, cmd.AskHint(T0 + 4_000, ME))
    assert rehinted.hint is not None
    undone = run(rehinted, cmd.Undo(T0 + 5_000, ME))
    assert (undone.now, undone.active_at, undone.hint) == (T0 + 5_000, T0 + 5_000, None)
    assert undone.path == (ev.Step(False, 1, 2), ev.Step(True, 0, 0))
    again = run(undone, cmd.AskHint(T0 + 6_000, ME))
    over = run(again, cmd.EndGame(T0 + 7_000, ME))
    assert (over.now, over.score, over.hint) == (T0 + 7_000, 1, None)


def test_only_number_matchs_events_are_folded():
    with pytest.raises(TypeError) as wrong:
        evolve(initial_state(), "x")  # type: ignore[arg-type]
    assert str(wrong.value) == "not an event of Number Match: 'x'"


def test_folding_the_end_records_the_events_score():
    state = started(SIX, SIX_WITNESS)
    over = evolve(state, ev.GameOver(T0 + 1, ME, ev.Outcome.GAVE_UP, 99, 1, 0, 0, ()))
    assert over.score == 99
