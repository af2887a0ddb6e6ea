"""Number Match's adapter at its edges: what the shells may hand it that it must refuse, the
replay's text for people, and the small answers the shells ask of it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match.v1 import (
    common_pb2,
    match_cards_pb2,
    number_match_command_pb2,
    number_match_pb2,
    number_match_service_pb2,
)
from match_rules.errors import Code, RuleError
from match_rules.game import ENDING, SeatInfo
from match_rules.number_match import commands as cmd
from match_rules.number_match import deal as dealing
from match_rules.number_match import events as ev
from match_rules.number_match import generate
from match_rules.number_match import witness as witnesses
from match_rules.number_match.board import Level
from match_rules.number_match.decide import decide_steps
from match_rules.number_match.errors import NumberMatchCode
from match_rules.number_match.game import GAME, to_settings
from match_rules.number_match.settings import Settings
from match_rules.number_match.solver import ADD, WitnessError
from tests.rules.number_match.helpers import ME, T0, events, pair, run, started, steps

Wire = number_match_pb2.NumberMatchSettings
Command = number_match_command_pb2.NumberMatchCommand
SIX = (1, 1, 2, 8, 3, 3)


class Teller:
    def name(self, player: str) -> str:
        return player.upper()

    def when(self, ms: int) -> str:
        return f"{ms} ms"


def test_the_shells_see_a_solo_game_with_no_bot_and_a_private_board():
    assert (GAME.min_seats, GAME.max_seats, GAME.bot) == (1, 1, None)
    assert not GAME.public_watch and not GAME.cpu_fills and GAME.watch_snapshots
    state = GAME.initial_state(None)
    assert not GAME.is_started(state) and GAME.next_deadline(state) is None
    assert GAME.presence(T0, ME, False) is None and GAME.tick(T0) == cmd.Tick(T0)
    assert GAME.proofs(state) == ()  # nothing to prove before the end


def test_settings_of_another_game_or_from_a_newer_client_are_refused():
    with pytest.raises(RuleError, match="takes NumberMatchSettings"):
        GAME.settings(match_cards_pb2.MatchCardsSettings())
    newer = Wire.FromString(Wire(level=Wire.LEVEL_HARD).SerializeToString() + b"\xf8\x01\x01")
    with pytest.raises(RuleError, match="numbered \\[31\\]"):
        GAME.settings(newer)
    with pytest.raises(RuleError, match="by its date alone"):
        GAME.settings(Wire(daily_date="2026-12-01", replay_seed=bytes(32)))


def test_the_wire_commands_and_the_ones_a_client_may_not_send():
    def command(**member: object) -> cmd.Command:
        return GAME.command(Command(player_id=ME, **member), T0)  # type: ignore[arg-type]

    assert command(pair_cells=Command.PairCells(first=3, second=12)) == cmd.PairCells(T0, ME, 3, 12)
    assert command(add_numbers=Command.AddNumbers()) == cmd.AddNumbers(T0, ME)
    assert command(ask_hint=Command.AskHint()) == cmd.AskHint(T0, ME)
    assert command(undo=Command.Undo()) == cmd.Undo(T0, ME)
    assert command(end_game=Command.EndGame()) == cmd.EndGame(T0, ME)
    for bad in (Command(player_id=ME), common_pb2.Refusal()):
        with pytest.raises(RuleError) as caught:
            GAME.command(bad, T0)
        assert caught.value.code is Code.MALFORMED_REQUEST


def test_the_edge_checks_a_cell_number_before_the_referee_sees_it():
    request = number_match_service_pb2.PairCellsRequest
    # a level's board may grow to 1152 cells (Medium's 36 numbers doubled by its 5 additions)
    assert GAME.check_request(request(table_id="t", first=1, second=1152)) is None
    for problem, says in (
        (GAME.check_request(request(first=1, second=1153)), "second is 1153"),
        (GAME.check_request(request(first=0, second=2)), "first is 0"),
    ):  # the referee's own refusal: the lobby answers it with its slug (issue 31, item 11)
        assert isinstance(problem, RuleError) and problem.code is NumberMatchCode.CELL_OUT_OF_RANGE
        assert says in problem.message
    assert GAME.check_request(number_match_service_pb2.UndoRequest()) is None
    refusal = common_pb2.Refusal(code="x")
    assert GAME.reply_message(refusal=refusal).refusal == refusal


def test_events_and_deals_of_another_kind_are_refused():
    with pytest.raises(ValueError, match="not a Number Match event"):
        GAME.decode(match_cards_pb2.MatchCardsEvent())
    with pytest.raises(TypeError):
        GAME.redact(GAME.initial_state(None), object(), ME)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a Number Match deal"):
        GAME.with_deal(GAME.initial_state(None), match_cards_pb2.MatchCardsDeal())


@pytest.mark.parametrize(
    ("board", "says"),
    [([], "1 to 540 numbers"), ([1, 0, 1], "1 to 540 numbers"), ([10, 10], "1 to 540 numbers")],
)
def test_a_malformed_deal_is_refused(board, says):
    with pytest.raises(ValueError, match=says):
        GAME.with_deal(GAME.initial_state(None), number_match_pb2.NumberMatchDeal(board=board))


def test_a_deal_that_is_not_the_started_games_is_refused():
    state = started(SIX, "1-2,3-4,5-6")
    other = number_match_pb2.NumberMatchDeal(board=[5, 5], additions=5)
    other.witness.add(first=1, second=2)
    with pytest.raises(ValueError, match="not the board the game started with"):
        GAME.with_deal(state, other)
    mine = number_match_pb2.NumberMatchDeal(board=SIX, additions=4)
    for a, b in ((1, 2), (3, 4), (5, 6)):
        mine.witness.add(first=a, second=b)
    with pytest.raises(ValueError, match="additions are not the ones"):
        GAME.with_deal(state, mine)
    mine.additions = 5
    assert GAME.with_deal(state, mine).witness == steps("1-2,3-4,5-6")


def test_the_referee_starts_the_game_with_the_dealt_board_and_the_seat():
    wire = GAME.settings(Wire(level=Wire.LEVEL_MEDIUM))
    deal = GAME.deal(bytes(32), wire)
    state = GAME.initial_state(deal)
    start = GAME.start(T0, [SeatInfo(1, ME, "Ann", False)], wire, GAME.deal_version)
    ((started_event, after),) = GAME.decide_steps(state, start)
    assert isinstance(started_event, ev.GameStarted) and started_event.board == tuple(deal.board)
    assert GAME.is_started(after) and GAME.clock(after) == T0
    assert GAME.evolve(state, started_event) == after
    with pytest.raises(RuleError) as caught:
        GAME.decide_steps(after, start)
    assert caught.value.code is Code.GAME_ALREADY_STARTED
    reply = GAME.accepted([], after, ME, T0, 1)
    assert list(reply.accepted.view.board) == list(deal.board)
    with pytest.raises(RuleError) as caught:
        GAME.decide_steps(GAME.initial_state(None), pair(1, 2))
    assert caught.value.code is Code.GAME_NOT_STARTED


def test_the_start_needs_the_deal_and_its_additions():
    with pytest.raises(ValueError, match="hold the deal"):
        GAME.decide_steps(GAME.initial_state(None), cmd.StartGame(T0, ME, Settings(), "v"))
    state = replace(GAME.initial_state(None), dealt=SIX, witness=(), dealt_additions=3)
    with pytest.raises(ValueError, match="the deal gives 3 additions"):
        GAME.decide_steps(state, cmd.StartGame(T0, ME, Settings(), "v"))


def test_time_never_runs_backwards():
    state = run(started(SIX, "1-2,3-4,5-6"), pair(1, 2, T0 + 5_000))
    assert decide_steps(state, cmd.Tick(T0 + 1)) == []
    with pytest.raises(RuleError) as caught:
        decide_steps(state, pair(3, 4, T0 + 1))
    assert caught.value.code is Code.STALE_TIME


def test_a_deal_needs_a_whole_seed_and_the_witness_cells_from_1():
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        dealing.deal(b"short", Settings())
    with pytest.raises(WitnessError, match="numbered from 1"):
        witnesses.check(SIX, 5, steps("0-1"))


def test_the_replay_tells_every_event_for_people():
    t = Teller()
    daily = Settings(Level.HARD, "2026-12-01", 60)
    cases = {
        ev.GameStarted(T0, ME, daily, "v1", SIX, 4, 3, "ab" * 32, "2026-12-01", False): (
            "the game starts for P1: the daily puzzle of 2026-12-01 (hard: 45 numbers, 4 "
            "additions); 6 numbers dealt with v1; witness committed as abababababababab…"
        ),
        ev.CellsPaired(T0, ME, 3, 13, 14, 1, 20): (
            "pairs cells 3 (row 1, column 3) and 13 (row 2, column 4): +14, 1 row removed = 20"
        ),
        ev.CellsPaired(T0, ME, 1, 2, 1, 0, 1): (
            "pairs cells 1 (row 1, column 1) and 2 (row 1, column 2): +1 = 1"
        ),
        ev.NumbersAdded(T0, ME, 7, 2): "adds numbers: 7 copied, 2 additions left",
        ev.NumbersAdded(T0, ME, 7, None): "adds numbers: 7 copied",
        ev.HintGiven(T0, ME, ev.HintKind.PAIR, 4, 5, 2): "a hint: cells 4 and 5 (2 hints left)",
        ev.HintGiven(T0, ME, ev.HintKind.ADD, 0, 0, 1): "a hint: time to add numbers (1 hint left)",
        ev.HintGiven(T0, ME, ev.HintKind.STUCK, 0, 0, 0): (
            "a hint: the board can no longer be cleared (0 hints left)"
        ),
        ev.MoveUndone(T0, ME, ev.Undone.ADD, 3, 1): "undoes the last add: score 3",
    }
    for event, text in cases.items():
        told = GAME.describe(event, t)
        assert told.text == text and told.after == ()
        assert GAME.place(event).part == 1
    over = ev.GameOver(T0, ME, ev.Outcome.NO_MOVES, 12, 61_500, 9, 2, steps("1-2,+,3-4"))
    told = GAME.describe(over, t)
    assert told.text == (
        "the game is over: no pair and no addition left; 12 points in 61.5 s, 9 moves, 2 hints used"
    )
    assert told.after == ("the witness (+ is an addition): 1-2, +, 3-4",)
    assert GAME.place(over).part == ENDING and GAME.place(cases_first(cases)).starts
    assert GAME.heading(1) == "play" and GAME.heading(ENDING).startswith("end of the game")
    with pytest.raises(TypeError):
        GAME.describe(object(), t)  # type: ignore[arg-type]


def cases_first(cases: dict[object, str]) -> ev.Event:
    return next(iter(cases))  # type: ignore[return-value]


def test_settings_and_commands_for_people():
    t = Teller()
    assert GAME.describe_settings(GAME.settings(None)) == "easy: 27 numbers, 5 additions"
    classic = GAME.settings(Wire(level=Wire.LEVEL_CLASSIC))
    assert GAME.describe_settings(classic) == "classic: 27 numbers, additions without limit"
    replay = GAME.settings(Wire(level=Wire.LEVEL_EXPERT, replay_seed=bytes(32)))
    assert GAME.describe_settings(replay).endswith("played again (not ranked)")
    assert to_settings(replay).replay
    said = {
        "pair_cells": (Command(player_id=ME, pair_cells=Command.PairCells(first=1, second=9))),
        "add_numbers": Command(player_id=ME, add_numbers=Command.AddNumbers()),
        "ask_hint": Command(player_id=ME, ask_hint=Command.AskHint()),
        "undo": Command(player_id=ME, undo=Command.Undo()),
        "end_game": Command(player_id=ME, end_game=Command.EndGame()),
        "": Command(player_id=ME),
    }
    texts = {k: GAME.describe_command(v, t) for k, v in said.items()}
    assert texts == {
        "pair_cells": "P1 pairs cells 1 and 9",
        "add_numbers": "P1 adds numbers",
        "ask_hint": "P1 asks for a hint",
        "undo": "P1 undoes",
        "end_game": "P1 ends the game",
        "": "P1 sends nothing",
    }


def test_the_accepted_reply_carries_its_events_and_the_view_at_the_last_of_them():
    state = started(SIX, "1-2,3-4,5-6")
    (paired,) = events(state, pair(1, 2))
    envelope = common_pb2.EventEnvelope(
        table_id="t-9", event_number=2, number_match=GAME.encode(paired)
    )
    after = run(state, pair(1, 2))
    reply = GAME.accepted([envelope], after, ME, T0 + 1_000, 2)
    assert list(reply.accepted.events) == [envelope]
    view = reply.accepted.view
    assert (view.table_id, view.event_number, view.server_time_ms) == ("t-9", 2, T0 + 1_000)
    assert view.you == ME and view.commitment == "" and list(view.board) == [0, 0, 2, 8, 3, 3]
    alone = GAME.accepted([], after, ME, T0 + 1_000, 2).accepted.view
    assert alone.table_id == "" and alone.commitment == "" and alone.event_number == 2


def test_the_refusals_of_another_games_event_name_what_they_got():
    with pytest.raises(ValueError) as caught:
        GAME.decode(match_cards_pb2.MatchCardsEvent())
    assert str(caught.value) == "not a Number Match event: MatchCardsEvent"
    with pytest.raises(TypeError) as wrong:
        GAME.redact(GAME.initial_state(None), "x", ME)  # type: ignore[arg-type]
    assert str(wrong.value) == "not an event of Number Match: 'x'"


def test_the_start_command_is_the_seats_player_with_the_tables_settings_and_deal_version():
    wire = Wire(level=Wire.LEVEL_HARD, replay_seed=bytes(32))
    start = GAME.start(T0, [SeatInfo(1, ME, "Ann", False)], wire, "v-test")
    assert start == cmd.StartGame(T0, ME, Settings(Level.HARD, replay_seed=bytes(32)), "v-test")


def test_a_game_is_terminal_once_it_is_over_and_not_before():
    state = started(SIX, "1-2,3-4,5-6")
    assert not GAME.is_terminal(GAME.initial_state(None)) and not GAME.is_terminal(state)
    assert GAME.is_terminal(run(state, cmd.EndGame(T0 + 1, ME)))


def test_the_refusals_of_malformed_wire_name_what_to_send():
    with pytest.raises(RuleError) as caught:
        GAME.command(common_pb2.Refusal(), T0)  # type: ignore[arg-type]
    assert caught.value.message == "a Number Match table takes NumberMatchCommand, not Refusal"
    with pytest.raises(RuleError) as caught:
        GAME.command(Command(player_id=ME), T0)
    assert caught.value.message == (
        "send one of pair_cells (with its two cells), add_numbers, ask_hint, undo or end_game"
    )
    with pytest.raises(ValueError) as wrong:
        GAME.with_deal(GAME.initial_state(None), match_cards_pb2.MatchCardsDeal())
    assert str(wrong.value) == "not a Number Match deal: MatchCardsDeal"


def test_a_replay_is_told_after_the_level_and_a_wrong_event_is_named():
    replay = GAME.settings(Wire(level=Wire.LEVEL_EXPERT, replay_seed=bytes(32)))
    assert GAME.describe_settings(replay) == (
        "expert: 54 numbers, 3 additions, the board of a finished game played again (not ranked)"
    )
    with pytest.raises(TypeError) as wrong:
        GAME.describe("x", Teller())  # type: ignore[arg-type]
    assert str(wrong.value) == "not an event of Number Match: 'x'"


def test_the_witness_steps_and_the_solvers_moves_convert_both_ways():
    moves = [(0, 1), ADD, (8, 17)]
    assert witnesses.to_steps(moves) == (
        ev.Step(False, 1, 2),
        ev.Step(True, 0, 0),
        ev.Step(False, 9, 18),
    )
    assert witnesses.to_moves(witnesses.to_steps(moves)) == moves


def test_the_witness_check_numbers_its_steps_from_1_and_holds_them_to_the_additions():
    assert witnesses.check((1, 1), 0, steps("2-1")) == 0  # cell 1 second is a cell
    with pytest.raises(WitnessError) as caught:
        witnesses.check((1, 1, 2, 2), 0, (ev.Step(False, 1, 2), ev.Step(False, 0, 1)))
    assert str(caught.value) == "step 2: cells are numbered from 1, not 0-1"
    assert witnesses.check((5,), 1, steps("+,1-2")) == 1
    with pytest.raises(WitnessError):
        witnesses.check((5,), 0, steps("+,1-2"))


def test_classic_is_dealt_as_classic_by_this_deal_version():
    dealt = generate.classic()
    assert (dealt.version, dealt.level, dealt.additions, dealt.attempt) == (
        "number-match-deal-v2",
        Level.CLASSIC,
        None,
        0,
    )
    with pytest.raises(ValueError) as caught:
        generate.candidate(bytes(32), Level.CLASSIC, 0)
    assert str(caught.value) == "Classic has one fixed board and no candidates"


def test_an_addition_step_is_an_addition_whatever_cells_it_carries():
    assert witnesses.to_moves((ev.Step(True, 3, 4),)) == [ADD]
