"""Number Match behind the seam: settings and their defaults, the deal's checks, the codec, the
view (no witness before the end), results, and the audit's witness proof, which must fail on a
witness that was changed and on a board that cannot be cleared."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match.v1 import number_match_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import TableContext
from match_rules.number_match import commands as cmd
from match_rules.number_match import events as ev
from match_rules.number_match import witness as witnesses
from match_rules.number_match.board import Level
from match_rules.number_match.game import GAME, to_settings
from match_rules.number_match.state import NumberMatchState
from tests.rules.number_match.helpers import ME, T0, pair, run, started, steps

Wire = number_match_pb2.NumberMatchSettings
View = number_match_pb2.NumberMatchView
SIX = (1, 1, 2, 8, 3, 3)


def table(state: NumberMatchState, seed: bytes | None = None) -> TableContext:
    return TableContext("t-1", 1, state.now, {ME: "Ann"}, "c0ffee", seed)


def test_the_defaults_are_easy_and_a_daily_puzzle_is_hard():
    assert to_settings(GAME.settings(None)).level is Level.EASY
    daily = to_settings(GAME.settings(Wire(daily_date="2026-12-01", utc_offset_minutes=60)))
    assert daily.level is Level.HARD and daily.daily_date == "2026-12-01"


@pytest.mark.parametrize(
    ("wire", "says"),
    [
        (Wire(level=9), "easy, medium, hard, expert or classic"),
        (Wire(daily_date="2026-02-30"), "not a day of the calendar"),
        (Wire(daily_date="tomorrow"), "YYYY-MM-DD"),
        (Wire(daily_date="2026-12-01", level=Wire.LEVEL_EXPERT), "hard board"),
        (Wire(daily_date="2026-12-01", utc_offset_minutes=-721), "-720 to 840"),
        (Wire(utc_offset_minutes=60), "daily_date only"),
        (Wire(replay_seed=b"x" * 31), "32-byte seed"),
        (Wire(level=Wire.LEVEL_CLASSIC, replay_seed=bytes(32)), "Classic"),
    ],
)
def test_bad_settings_are_refused_with_a_message_a_person_can_act_on(wire, says):
    with pytest.raises(RuleError) as caught:
        GAME.settings(wire)
    assert caught.value.code is Code.INVALID_SETUP and says in caught.value.message


def test_every_event_survives_the_wire():
    for event in [
        ev.GameStarted(T0, ME, to_settings(GAME.settings(None)), "v", SIX, None, 3, "ab", "", True),
        ev.CellsPaired(T0, ME, 1, 2, 161, 1, 170),
        ev.NumbersAdded(T0, ME, 4, None),
        ev.NumbersAdded(T0, ME, 4, 0),
        ev.HintGiven(T0, ME, ev.HintKind.STUCK, 0, 0, 0),
        ev.MoveUndone(T0, ME, ev.Undone.ADD, 3, 2),
        ev.GameOver(T0, ME, ev.Outcome.IDLE, 9, 100, 2, 1, steps("1-2,+")),
    ]:
        assert GAME.decode(GAME.encode(event)) == event


def test_the_view_shows_the_board_and_hides_the_witness_and_seed_until_the_end():
    state = run(started(SIX, "1-2,3-4,5-6"), pair(1, 2), cmd.AskHint(T0 + 2_000, ME))
    view = GAME.snapshot(state, ME, table(state))
    assert list(view.board) == [0, 0, 2, 8, 3, 3] and view.columns == 9
    assert view.score == 1 and view.hints_left == 2 and view.can_undo and view.moves == 1
    assert view.hint.kind == number_match_pb2.NumberMatchEvent.HINT_KIND_PAIR
    assert (view.hint.first, view.hint.second) == (3, 4)  # the witness's next step
    assert not view.witness and not view.HasField("seed") and view.additions_left == 5
    over = run(state, cmd.EndGame(T0 + 3_000, ME))
    view = GAME.snapshot(over, ME, table(over, seed=b"s" * 32))
    assert view.phase == View.PHASE_GAME_OVER and len(view.witness) == 3 and view.seed == b"s" * 32
    assert not view.can_undo


def test_results_are_one_standing_and_a_replay_is_never_ranked():
    state = run(started(SIX, "1-2,3-4,5-6"), pair(1, 2), pair(3, 4), pair(5, 6, T0 + 61_000))
    results = GAME.results(state)
    assert results is not None and results.ranked and not results.draw
    (standing,) = results.standings
    assert standing.score == 163 and standing.summary.startswith("cleared: 163 points in 61.0 s")
    assert not GAME.results(replace(state, replay=True)).ranked  # type: ignore[union-attr]
    assert GAME.results(started(SIX, "")) is None


# --- the audit's proof -----------------------------------------------------------------------


def folded(state: NumberMatchState) -> NumberMatchState:
    """The state a log alone gives: its events folded, without the deal."""
    return replace(state, dealt=None, witness=None)


def test_the_proof_replays_the_revealed_witness():
    state = folded(run(started(SIX, "1-2,3-4,5-6"), cmd.EndGame(T0 + 1, ME)))
    (line,) = GAME.proofs(state)
    assert line.startswith("witness: replayed; its 3 pairs and 0 additions (5 allowed)")


def test_a_witness_changed_after_the_commitment_fails():
    state = folded(run(started(SIX, "1-2,3-4,5-6"), cmd.EndGame(T0 + 1, ME)))
    with pytest.raises(ValueError, match="not the one committed"):
        GAME.proofs(replace(state, revealed=steps("3-4,1-2,5-6")))


@pytest.mark.parametrize(
    ("board", "witness", "says"),
    [
        ((1, 2, 3, 4), "1-2,3-4", "step 1"),  # not pairs: this board has no clearing at all
        ((1, 1, 2, 3), "1-2", ""),  # a board left unclear
        ((1, 2, 1), "1-3", "step 1"),  # 1 and 1 with a 2 between: blocked
        ((5, 5), "+,1-2,1-2", ""),  # an addition more than allowed (Expert has 3: see below)
    ],
)
def test_a_witness_that_does_not_clear_its_board_fails_even_with_a_matching_commitment(
    board, witness, says
):
    additions = 0 if board == (5, 5) else 5
    state = folded(run(started(board, witness), cmd.EndGame(T0 + 1, ME)))
    committed = witnesses.commitment(board, additions, steps(witness))
    forged = replace(state, additions=additions, witness_commitment=committed)
    with pytest.raises(ValueError, match="does not clear") as caught:
        GAME.proofs(forged)
    assert says in str(caught.value)


def test_a_deal_whose_witness_does_not_clear_is_refused_by_the_referee():
    deal = number_match_pb2.NumberMatchDeal(board=[1, 2, 3, 4], additions=5)
    deal.witness.add(first=1, second=2)
    with pytest.raises(ValueError, match="does not clear"):
        GAME.with_deal(GAME.initial_state(None), deal)
