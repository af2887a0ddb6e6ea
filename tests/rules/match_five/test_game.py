"""MATCH 5 behind the seam: settings and their defaults, the deal and its checks, the codec,
redaction (a link is its author's until read), the view, and results with the shared victory."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match.v1 import common_pb2, match_five_command_pb2, match_five_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import SeatInfo, TableContext
from match_rules.match_five import commands as cmd
from match_rules.match_five import events as ev
from match_rules.match_five.deal import Deal, check, deal
from match_rules.match_five.game import GAME, to_settings
from match_rules.match_five.settings import Settings
from match_rules.match_five.state import MatchFiveState
from match_rules.match_five.view import player_view
from match_rules.registry import by_kind, by_slug
from tests.rules.match_five.helpers import ANN, BOB, CY, SEED, T0, WRITING_MS, Table, every_event

Wire = match_five_pb2.MatchFiveSettings
View = match_five_pb2.MatchFiveView
Command = match_five_command_pb2.MatchFiveCommand


def table_context(state: MatchFiveState, seed: bytes | None = None) -> TableContext:
    return TableContext("t-1", 9, state.now, {ANN: "Ann", BOB: "Bob"}, "c0ffee", seed)


def snapshot(state: MatchFiveState, viewer: str, seed: bytes | None = None) -> View:
    return GAME.snapshot(state, viewer, table_context(state, seed))


def test_registered_as_the_fifth_game_with_no_bot_and_private_links():
    assert by_slug("match_five") is GAME is by_kind(common_pb2.GAME_KIND_MATCH_FIVE)
    assert (GAME.title, GAME.min_seats, GAME.max_seats, GAME.bot) == ("MATCH 5", 2, 8, None)
    assert not GAME.cpu_fills and not GAME.public_watch and GAME.watch_snapshots
    state = GAME.initial_state(None)
    assert not GAME.is_started(state) and GAME.next_deadline(state) is None
    assert GAME.results(state) is None and GAME.proofs(state) == ()


def test_the_defaults_are_the_sand_timers_3_minutes_and_45_s_a_vote():
    assert to_settings(GAME.settings(None)) == Settings(180, 45)
    assert to_settings(GAME.settings(Wire(vote_seconds=20))) == Settings(180, 20)
    assert GAME.settings(GAME.settings(None)) == GAME.settings(None)


@pytest.mark.parametrize(
    ("wire", "says"),
    [
        (Wire(writing_seconds=29), "30 to 600"),
        (Wire(writing_seconds=601), "30 to 600"),
        (Wire(vote_seconds=9), "10 to 300"),
        (Wire(vote_seconds=301), "10 to 300"),
        (common_pb2.Refusal(), "takes MatchFiveSettings"),
        (Wire.FromString(b"\xf8\x01\x01"), "numbered \\[31\\]"),
    ],
)
def test_bad_settings_are_refused_with_a_message_a_person_can_act_on(wire, says):
    with pytest.raises(RuleError, match=says) as caught:
        GAME.settings(wire)
    assert caught.value.code is Code.INVALID_SETUP


def test_the_deal_is_the_seeds_and_the_referee_checks_it():
    wire = GAME.deal(SEED, GAME.settings(None))
    dealt = deal(SEED)
    assert (tuple(wire.dice), tuple(wire.faces_1), tuple(wire.faces_2)) == (
        dealt.dice,
        *dealt.faces,
    )
    assert GAME.initial_state(wire).deal == dealt
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        GAME.deal(b"short", GAME.settings(None))


@pytest.mark.parametrize(
    ("deal_wire", "says"),
    [
        (common_pb2.Refusal(), "not a MATCH 5 deal"),
        (match_five_pb2.MatchFiveDeal(), "one die"),
        (match_five_pb2.MatchFiveDeal(dice=[1, 2, 3, 1, 1]), "one die"),
        (match_five_pb2.MatchFiveDeal(dice=[1] * 5, faces_1=[1] * 5), "a face"),
        (match_five_pb2.MatchFiveDeal(dice=[1] * 5, faces_1=[1] * 5, faces_2=[7] * 5), "a face"),
        (match_five_pb2.MatchFiveDeal(dice=[1] * 5, faces_1=[1] * 4, faces_2=[1] * 5), "a face"),
    ],
)
def test_a_deal_that_does_not_fit_is_refused(deal_wire, says):
    with pytest.raises(ValueError, match=says):
        GAME.initial_state(deal_wire)


def test_a_deal_that_is_not_the_started_games_is_refused():
    state = Table().state
    mine = GAME.deal(SEED, GAME.settings(None))
    assert GAME.with_deal(replace(state, deal=None), mine).deal == deal(SEED)
    other_dice = match_five_pb2.MatchFiveDeal()
    other_dice.CopyFrom(mine)
    other_dice.dice[0] = 3 - mine.dice[0]
    with pytest.raises(ValueError, match="dice are not"):
        GAME.with_deal(state, other_dice)
    other_roll = match_five_pb2.MatchFiveDeal()
    other_roll.CopyFrom(mine)
    other_roll.faces_1[0] = mine.faces_1[0] % 6 + 1
    with pytest.raises(ValueError, match="not the one round 1 shows"):
        GAME.with_deal(state, other_roll)


def test_the_referee_starts_the_game_from_the_seats_in_seat_order():
    settings = GAME.settings(None)
    state = GAME.initial_state(GAME.deal(SEED, settings))
    seats = [SeatInfo(2, BOB, "Bob", False), SeatInfo(1, ANN, "Ann", False)]
    start = GAME.start(T0, seats, settings, GAME.deal_version)
    steps = GAME.decide_steps(state, start)
    started, rolled = (event for event, _ in steps)
    assert isinstance(started, ev.GameStarted) and started.players == (ANN, BOB)
    after = steps[-1][1]
    assert GAME.evolve(GAME.evolve(state, started), rolled) == after
    assert GAME.is_started(after) and not GAME.is_terminal(after) and GAME.clock(after) == T0
    assert GAME.next_deadline(after) == T0 + WRITING_MS
    assert GAME.tick(T0 + 1).now == T0 + 1 and GAME.presence(T0, ANN, False) is None


def test_every_event_survives_the_wire():
    for event in every_event():
        wire = type(GAME.encode(event)).FromString(GAME.encode(event).SerializeToString())
        assert GAME.decode(wire) == event
    with pytest.raises(ValueError, match="not a MATCH 5 event"):
        GAME.decode(common_pb2.Refusal())


def test_a_link_written_or_erased_reaches_only_its_author_the_others_see_a_count():
    table = Table()
    table.write(ANN, 1, "Shark")
    (written,) = table.write(ANN, 2, "Whale", T0 + 4)
    assert GAME.redact(table.state, written, ANN) is written
    for viewer in (BOB, ""):
        assert GAME.redact(table.state, written, viewer) == ev.WritingProgress(T0 + 4, ANN, 2)
    (erased,) = table.erase(ANN, 1, T0 + 5)
    assert GAME.redact(table.state, erased, BOB) == ev.WritingProgress(T0 + 5, ANN, 1)
    progress = GAME.redact(table.state, erased, BOB)
    assert GAME.redact(table.state, progress, CY) is progress  # idempotent
    assert GAME.redact(GAME.initial_state(None), progress, "") is progress
    (done,) = table.done(ANN)
    assert GAME.redact(table.state, done, BOB) is done
    with pytest.raises(TypeError):
        GAME.redact(table.state, object(), ANN)  # type: ignore[arg-type]


def test_while_writing_a_player_sees_their_own_links_and_the_others_counts():
    table = Table()
    table.write(ANN, 1, "Secret")
    table.write(BOB, 2, "Mine")
    table.done(ANN)
    view = snapshot(table.state, BOB)
    assert view.phase == View.PHASE_WRITING and view.you == BOB and view.round == 1
    assert [c.your_link for c in view.combinations][:3] == ["", "Mine", ""]
    assert view.combinations[0].colours == ["red", "yellow"]
    assert list(view.combinations[0].categories) == list(table.state.categories[:2])
    assert list(view.combinations[9].colours) == ["blue", "purple"]
    assert list(view.categories) == list(table.state.categories)
    players = [(p.player, p.display_name, p.links, p.done, p.total) for p in view.players]
    assert players == [(ANN, "Ann", 1, True, 0), (BOB, "Bob", 1, False, 0), (CY, "", 0, False, 0)]
    assert view.deadline_ms == T0 + WRITING_MS and view.commitment == "c0ffee"
    assert "Secret" not in str(view) and not view.ballots and not view.read
    spectator = snapshot(table.state, "")
    assert all(c.your_link == "" for c in spectator.combinations)


def test_the_reading_shows_the_open_ballots_with_your_vote_and_the_count():
    table = Table()
    table.write(ANN, 1, "Actor")
    table.write(BOB, 1, "Aktor")
    table.everybody_done()
    table.vote(BOB, 1, True)
    table.vote(CY, 1, False)
    table.vote(BOB, 2, False)
    table.call(ANN, 2)
    view = snapshot(table.state, BOB)
    assert view.phase == View.PHASE_READING and view.combination == 1
    assert view.deadline_ms == table.opened().votes_end_at
    ballots = [(b.ballot, b.player, b.text, b.own, b.target, b.your_vote, b.votes)
               for b in view.ballots]  # fmt: skip
    assert ballots == [
        (1, ANN, "Actor", 0, 0, 1, 2),
        (2, BOB, "Aktor", 0, 0, 2, 1),
        (3, ANN, "", 1, 2, 0, 0),
    ]
    assert [link.text for link in view.read[0].links] == ["Actor", "Aktor"]
    table.everybody_done()
    view = snapshot(table.state, "")
    assert view.phase == View.PHASE_WRITING and view.round == 2 and len(view.closed) == 10
    assert len(view.read) == 10 and view.rounds[0].round == 1
    assert [p.total for p in view.players] == [1, 0, 0]  # Bob contested his own link
    assert list(view.categories) != [] and not view.ballots


def test_round_2s_categories_only_once_round_2_has_started():
    table = Table()
    round_2 = deal(SEED).categories(2)
    assert list(snapshot(table.state, ANN).categories) != list(round_2)
    table.tick(T0 + WRITING_MS + 45_000)
    assert list(snapshot(table.state, ANN).categories) == list(round_2)


def test_before_the_start_the_view_is_empty_and_the_seed_only_once_over():
    state = GAME.initial_state(None)
    view = snapshot(state, ANN, seed=b"s" * 32)
    assert view.phase == View.PHASE_WAITING_FOR_PLAYERS and not view.combinations
    assert not view.HasField("seed") and view.deadline_ms == 0
    table = Table()
    assert not snapshot(table.state, ANN, seed=b"s" * 32).HasField("seed")
    table.tick(T0 + 10**9)
    over = snapshot(table.state, ANN, seed=b"s" * 32)
    assert over.phase == View.PHASE_GAME_OVER and over.seed == b"s" * 32
    assert len(over.standings) == 3 and over.deadline_ms == 0
    assert not snapshot(table.state, ANN).HasField("seed")


def test_the_reply_to_an_accepted_command_carries_the_senders_view():
    table = Table()
    envelope = common_pb2.EventEnvelope(table_id="t-9", event_number=3)
    reply = GAME.accepted([envelope], table.state, ANN, T0, 3)
    assert reply.accepted.view.table_id == "t-9" and reply.accepted.view.event_number == 3
    assert GAME.accepted([], table.state, ANN, T0, 3).accepted.view.table_id == ""
    refusal = common_pb2.Refusal(code="link_empty")
    assert GAME.reply_message(refusal=refusal).refusal == refusal


def test_results_rank_by_points_then_matching_links_and_a_full_tie_is_a_shared_victory():
    table = Table()
    table.write(ANN, 1, "Sun")
    table.write(BOB, 1, "sun")
    table.write(CY, 2, "Moon")
    table.tick(T0 + 10**9)
    results = GAME.results(table.state)
    assert results is not None and results.ranked and not results.draw
    summaries = [(s.player, s.place, s.score, s.summary) for s in results.standings]
    assert summaries == [
        (ANN, 1, 2, "2 points, 1 matching link"),
        (BOB, 1, 2, "2 points, 1 matching link"),
        (CY, 3, 1, "1 point, 0 matching links"),
    ]
    tied = Table(players=(ANN, BOB))
    tied.tick(T0 + 10**9)
    shared = GAME.results(tied.state)
    assert shared is not None and shared.draw
    assert [s.summary for s in shared.standings] == ["0 points, 0 matching links"] * 2


def test_the_accepted_reply_carries_its_events_and_the_senders_view_at_that_instant():
    table = Table()
    table.write(ANN, 1, "Shark")
    envelope = common_pb2.EventEnvelope(
        table_id="t-9", event_number=3, match_five=GAME.encode(table.events[-1])
    )
    reply = GAME.accepted([envelope], table.state, ANN, T0 + 5, 3)
    assert list(reply.accepted.events) == [envelope]
    view = reply.accepted.view
    assert (view.table_id, view.event_number, view.server_time_ms) == ("t-9", 3, T0 + 5)
    assert view.you == ANN and view.commitment == "" and view.combinations[0].your_link == "Shark"
    assert GAME.accepted([], table.state, ANN, T0, 3).accepted.view.commitment == ""


def test_the_view_field_by_field():
    table = Table(settings=Settings(writing_seconds=60, vote_seconds=20))
    table.write(ANN, 1, "Shark")
    view = GAME.snapshot(table.state, ANN, TableContext("t-1", 4, T0 + 7, {}, "c0ffee", None))
    assert (view.table_id, view.event_number, view.server_time_ms) == ("t-1", 4, T0 + 7)
    assert view.settings == Wire(writing_seconds=60, vote_seconds=20)
    assert [c.combination for c in view.combinations] == list(range(1, 11))
    assert [p.display_name for p in view.players] == ["", "", ""]


def test_the_players_view_itself_while_writing_reading_and_over():
    table = Table()
    table.write(ANN, 1, "Shark")
    table.write(BOB, 1, "shark!")
    table.write(CY, 1, "Fin")
    writing = player_view(table.state, ANN)
    assert writing.you == ANN and writing.deadline == T0 + WRITING_MS
    assert [(c.combination, c.your_link) for c in writing.combinations[:2]] == [
        (1, "Shark"),
        (2, ""),
    ]
    table.everybody_done()
    reading = player_view(table.state, "")
    assert [(b.ballot, b.player, b.text, b.group) for b in reading.ballots] == [
        (1, ANN, "Shark", 1),
        (2, BOB, "shark!", 1),
        (3, CY, "Fin", 0),
    ]
    assert reading.you == "" and all(c.your_link == "" for c in reading.combinations)
    table.tick(T0 + 10**9)
    assert player_view(table.state, ANN).deadline == 0
    assert player_view(GAME.initial_state(None), ANN).deadline == 0


def test_the_refusals_of_another_games_messages_name_what_they_got():
    with pytest.raises(RuleError) as caught:
        GAME.settings(common_pb2.Refusal())
    assert caught.value.message == "a MATCH 5 table takes MatchFiveSettings, not Refusal"
    newer = Wire.FromString(Wire().SerializeToString() + b"\xf8\x01\x01")
    with pytest.raises(RuleError) as caught:
        GAME.settings(newer)
    assert caught.value.message == (
        "this server knows no MATCH 5 setting numbered [31]: leave them out (a newer client?)"
    )
    with pytest.raises(ValueError) as wrong:
        GAME.with_deal(GAME.initial_state(None), common_pb2.Refusal())
    assert str(wrong.value) == "not a MATCH 5 deal: Refusal"
    with pytest.raises(ValueError) as wrong:
        GAME.decode(common_pb2.Refusal())
    assert str(wrong.value) == "not a MATCH 5 event: Refusal"
    with pytest.raises(TypeError) as wrong:
        GAME.redact(Table().state, "x", ANN)  # type: ignore[arg-type]
    assert str(wrong.value) == "not an event of MATCH 5: 'x'"


def test_the_deal_refuses_bad_settings_and_another_roll_is_named():
    with pytest.raises(RuleError) as caught:
        GAME.deal(SEED, Wire(writing_seconds=5))
    assert caught.value.code is Code.INVALID_SETUP
    state = Table().state
    other = GAME.deal(SEED, GAME.settings(None))
    other.dice[0] = 3 - other.dice[0]
    with pytest.raises(ValueError) as wrong:
        GAME.with_deal(state, other)
    assert str(wrong.value) == "the deal's dice are not the ones the game started with"


def test_the_start_command_carries_the_tables_settings_and_deal_version():
    seats = [SeatInfo(1, ANN, "Ann", False), SeatInfo(2, BOB, "Bob", False)]
    wire = Wire(writing_seconds=60, vote_seconds=20)
    assert GAME.start(T0, seats, wire, "v-test") == cmd.StartGame(
        T0, (ANN, BOB), Settings(60, 20), "v-test"
    )


def test_a_face_of_six_is_a_face_and_seven_is_not():
    check(Deal((1, 2, 1, 2, 1), ((6,) * 5, (1, 6, 1, 6, 1))))
    with pytest.raises(ValueError, match="a face"):
        check(Deal((1, 2, 1, 2, 1), ((6,) * 5, (1, 7, 1, 6, 1))))
