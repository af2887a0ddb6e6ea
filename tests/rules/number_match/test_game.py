"""Number Match behind the seam: settings and their defaults, the deal's checks, the codec, the
view (no witness before the end), results, and the audit's witness proof, which must fail on a
witness that was changed and on a board that cannot be cleared."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match.v1 import match_cards_pb2, number_match_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import TableContext
from match_rules.number_match import board as boards
from match_rules.number_match import commands as cmd
from match_rules.number_match import events as ev
from match_rules.number_match import generate
from match_rules.number_match import witness as witnesses
from match_rules.number_match.board import MAX_CELLS, Level
from match_rules.number_match.decide import IDLE_MS
from match_rules.number_match.game import GAME, to_settings
from match_rules.number_match.settings import Settings
from match_rules.number_match.solver import Solution, Status, solve
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


def test_a_changed_witness_is_named_by_both_hashes_first_16_hex_digits():
    state = folded(run(started(SIX, "1-2,3-4,5-6"), cmd.EndGame(T0 + 1, ME)))
    changed = steps("3-4,1-2,5-6")
    revealed = witnesses.commitment(SIX, 5, changed)
    with pytest.raises(ValueError) as caught:
        GAME.proofs(replace(state, revealed=changed))
    assert str(caught.value) == (
        "the witness revealed at the end is not the one committed at the start "
        f"(SHA-256 {revealed[:16]}…, committed {state.witness_commitment[:16]}…)"
    )


def test_the_proof_of_a_classic_board_says_no_limit_in_full():
    state = folded(run(started(SIX, "1-2,3-4,5-6", Level.CLASSIC), cmd.EndGame(T0 + 1, ME)))
    assert GAME.proofs(state) == (
        "witness: replayed; its 3 pairs and 0 additions (no limit) clear the 6-number board, "
        "and it is the one committed at the start: the board was solvable when it was dealt",
    )


def test_the_proof_holds_the_witness_to_the_games_additions():
    state = folded(run(started((5,), "+,1-2"), cmd.EndGame(T0 + 1, ME)))
    (line,) = GAME.proofs(state)
    assert line.startswith("witness: replayed; its 1 pairs and 1 additions (5 allowed)")
    none_left = replace(
        state, additions=0, witness_commitment=witnesses.commitment((5,), 0, steps("+,1-2"))
    )
    with pytest.raises(ValueError, match="does not clear"):
        GAME.proofs(none_left)


def test_the_view_field_by_field_while_playing_and_once_over():
    state = run(started(SIX, "1-2,3-4,5-6", Level.MEDIUM), pair(1, 2), cmd.AskHint(T0 + 2_000, ME))
    commitment = witnesses.commitment(SIX, 5, steps("1-2,3-4,5-6"))
    playing = View(
        table_id="t-1",
        event_number=3,
        server_time_ms=T0 + 2_500,
        phase=View.PHASE_PLAYING,
        you=ME,
        settings=Wire(level=Wire.LEVEL_MEDIUM),
        columns=9,
        board=[0, 0, 2, 8, 3, 3],
        additions_left=5,
        hints_left=2,
        score=1,
        moves=1,
        can_undo=True,
        started_at_ms=T0,
        idle_ends_at_ms=T0 + 2_000 + IDLE_MS,  # the hint was the last command
        hint=View.Hint(kind=number_match_pb2.NumberMatchEvent.HINT_KIND_PAIR, first=3, second=4),
        witness_commitment=commitment,
        commitment="c0ffee",
    )
    seed = b"s" * 32
    context = TableContext("t-1", 3, T0 + 2_500, {ME: "Ann"}, "c0ffee", seed)
    assert GAME.snapshot(state, ME, replace(context, seed=None)) == playing
    assert GAME.snapshot(state, ME, context) == playing  # the seed only once the game is over
    over = run(state, cmd.EndGame(T0 + 3_000, ME))
    ended = View(
        table_id="t-1",
        event_number=4,
        server_time_ms=T0 + 3_000,
        phase=View.PHASE_GAME_OVER,
        you=ME,
        settings=Wire(level=Wire.LEVEL_MEDIUM),
        columns=9,
        board=[0, 0, 2, 8, 3, 3],
        additions_left=5,
        hints_left=2,
        score=1,
        moves=1,
        started_at_ms=T0,
        outcome=number_match_pb2.NumberMatchEvent.OUTCOME_GAVE_UP,
        time_ms=3_000,
        witness_commitment=commitment,
        witness=[
            number_match_pb2.NumberMatchStep(first=a, second=b) for a, b in ((1, 2), (3, 4), (5, 6))
        ],
        commitment="c0ffee",
        seed=seed,
    )
    assert GAME.snapshot(over, ME, replace(context, event_number=4, server_time_ms=T0 + 3_000)) == (
        ended
    )


def test_the_view_of_a_replay_says_so():
    replayed = Settings(Level.MEDIUM, replay_seed=bytes(32))
    state = started(SIX, "1-2,3-4,5-6", Level.MEDIUM, settings=replayed)
    assert GAME.snapshot(state, ME, table(state)).replay
    assert not GAME.snapshot(started(SIX, "1-2,3-4,5-6"), ME, table(state)).replay


def test_the_deal_is_of_the_tables_level_and_says_which_candidate_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tried: list[tuple[int, ...]] = []

    def second_is_proven(board: tuple[int, ...], additions: int | None, budget: int) -> Solution:
        tried.append(board)
        return Solution(Status.UNKNOWN, (), budget) if len(tried) == 1 else solve(board, additions)

    monkeypatch.setattr(generate, "solve", second_is_proven)
    deal = GAME.deal(bytes(32), Wire(level=Wire.LEVEL_EXPERT))
    assert deal.attempt == 1 and deal.board == list(generate.candidate(bytes(32), Level.EXPERT, 1))
    assert len(deal.board) == 54 and deal.additions == 3


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        (
            Wire(daily_date="2026-12-01", level=Wire.LEVEL_EXPERT),
            "the daily puzzle is a hard board, not expert: leave level unset or set it to hard",
        ),
        (
            Wire(daily_date="2026-12-01", replay_seed=bytes(32)),
            "a daily puzzle is played again by its date alone: leave replay_seed unset",
        ),
        (
            Wire(utc_offset_minutes=60),
            "utc_offset_minutes goes with daily_date only: set both or neither",
        ),
        (
            Wire(level=Wire.LEVEL_CLASSIC, replay_seed=bytes(32)),
            "Classic always deals the same board: leave replay_seed unset",
        ),
        (
            match_cards_pb2.MatchCardsSettings(),
            "a Number Match table takes NumberMatchSettings, not MatchCardsSettings",
        ),
        (
            Wire.FromString(Wire(level=Wire.LEVEL_HARD).SerializeToString() + b"\xf8\x01\x01"),
            "this server knows no Number Match setting numbered [31]: leave them out "
            "(a newer client?)",
        ),
    ],
)
def test_bad_settings_are_refused_in_these_words(wire, message):
    with pytest.raises(RuleError) as caught:
        GAME.settings(wire)
    assert caught.value.message == message


@pytest.mark.parametrize("offset", [-720, 840])
def test_the_utc_offsets_at_either_end_are_time_zones(offset):
    wire = GAME.settings(Wire(daily_date="2026-12-01", utc_offset_minutes=offset))
    assert to_settings(wire).utc_offset_minutes == offset


def _greedy_witness(board: tuple[int, ...]) -> list[tuple[int, int]]:
    """The first pair, again and again, while there is one (1-based cells)."""
    out = []
    while pairs := boards.pair_moves(board):
        i, j = pairs[0]
        out.append((i + 1, j + 1))
        board, _ = boards.remove_pair(board, i, j)
    assert not board
    return out


def test_a_deal_of_a_whole_540_numbers_is_taken():
    full = number_match_pb2.NumberMatchDeal(board=[5] * MAX_CELLS)
    for a, b in _greedy_witness((5,) * MAX_CELLS):
        full.witness.add(first=a, second=b)
    assert GAME.with_deal(GAME.initial_state(None), full).dealt == (5,) * MAX_CELLS
    full.board.append(5)
    with pytest.raises(ValueError) as caught:
        GAME.with_deal(GAME.initial_state(None), full)
    assert str(caught.value) == "the deal's board must hold 1 to 540 numbers, each 1..9"


def test_a_classic_deal_has_no_limit_and_a_deal_is_held_to_its_additions():
    classic = GAME.initial_state(GAME.deal(bytes(32), Wire(level=Wire.LEVEL_CLASSIC)))
    assert classic.dealt_additions is None and classic.witness is not None
    assert any(s.add for s in classic.witness)
    none_left = number_match_pb2.NumberMatchDeal(board=[5], additions=0)
    none_left.witness.add(add=True)
    none_left.witness.add(first=1, second=2)
    with pytest.raises(ValueError, match="does not clear"):
        GAME.with_deal(GAME.initial_state(None), none_left)
    none_left.additions = 1
    assert GAME.with_deal(GAME.initial_state(None), none_left).dealt_additions == 1


def test_a_deal_not_the_started_games_is_refused_in_these_words():
    state = started(SIX, "1-2,3-4,5-6")
    other = number_match_pb2.NumberMatchDeal(board=[5, 5], additions=5)
    other.witness.add(first=1, second=2)
    with pytest.raises(ValueError) as caught:
        GAME.with_deal(state, other)
    assert str(caught.value) == "the deal's board is not the board the game started with"
    mine = number_match_pb2.NumberMatchDeal(board=SIX, additions=4)
    for a, b in ((1, 2), (3, 4), (5, 6)):
        mine.witness.add(first=a, second=b)
    with pytest.raises(ValueError) as caught:
        GAME.with_deal(state, mine)
    assert str(caught.value) == "the deal's additions are not the ones the game started with"


def test_results_and_the_revealed_witness_only_for_a_game_over_with_its_outcome():
    playing = started(SIX, "1-2,3-4,5-6")
    over = run(playing, cmd.EndGame(T0 + 1, ME))
    assert GAME.results(replace(playing, outcome=ev.Outcome.CLEARED)) is None
    assert GAME.results(replace(over, outcome=None)) is None
    early = replace(playing, revealed=steps("1-2"))
    assert not GAME.snapshot(early, ME, table(early)).witness


def test_a_game_decided_without_its_witness_reveals_none():
    playing = replace(started(SIX, "1-2,3-4,5-6"), witness=None)  # a projection of the log
    (over,) = GAME.decide_steps(playing, cmd.EndGame(T0 + 1, ME))
    assert over[0].witness == ()  # type: ignore[union-attr]
