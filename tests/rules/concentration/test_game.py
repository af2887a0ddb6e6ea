"""Concentration behind the game seam (``match_rules.concentration.game.GAME``): settings with
defaults, the deal on the wire, the commands, presence, the codec, redaction, the snapshot, the
replies and the results."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match.v1 import common_pb2, concentration_command_pb2, concentration_pb2, race_pb2
from match_rules import registry
from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration.decide import IDLE_MS, TAKEOVER_MS
from match_rules.concentration.errors import ConcentrationCode
from match_rules.concentration.game import GAME, to_settings
from match_rules.concentration.settings import Matching, Pictures, Settings
from match_rules.deal import Strength
from match_rules.errors import Code, RuleError
from match_rules.game import SeatInfo, TableContext
from tests.rules.concentration.helpers import ANN, BOB, CARDS, CPU_SEED, PAIRS, SMALL, Game, T

Wire = concentration_pb2.ConcentrationSettings
View = concentration_pb2.ConcentrationView
Command = concentration_command_pb2.ConcentrationCommand
SEED = bytes(range(32))


def test_the_game_is_registered_under_its_kind_and_slug() -> None:
    assert registry.by_slug("concentration") is GAME
    assert registry.by_kind(common_pb2.GAME_KIND_CONCENTRATION) is GAME
    assert (GAME.min_seats, GAME.max_seats, GAME.cpu_fills) == (1, 6, True)
    assert GAME.deal_version == "concentration-deal-v1"


def test_unset_settings_take_the_defaults() -> None:
    resolved = GAME.settings(None)
    assert resolved == Wire(
        pictures=Wire.PICTURES_EMOJI, cards=52, matching=Wire.MATCHING_IDENTICAL
    )
    assert GAME.settings(Wire(cards=24)).cards == 24
    assert to_settings(GAME.settings(Wire())) == Settings()
    cards = Wire(pictures=Wire.PICTURES_PLAYING_CARDS, cards=36, jokers=True,
                 matching=Wire.MATCHING_RANK_AND_COLOUR, turn_limit_ms=60_000)  # fmt: skip
    assert to_settings(GAME.settings(cards)) == Settings(
        Pictures.PLAYING_CARDS, 36, True, Matching.RANK_AND_COLOUR, 60_000
    )


@pytest.mark.parametrize(
    ("wire", "code", "words"),
    [
        (Wire(cards=40), Code.INVALID_DECK_SIZE, "52, 36 or 24"),
        (Wire(jokers=True), ConcentrationCode.INVALID_JOKERS, "no jokers"),
        (
            Wire(matching=Wire.MATCHING_RANK),
            ConcentrationCode.INVALID_MATCHING,
            "identical picture",
        ),
        (Wire(turn_limit_ms=45_000), ConcentrationCode.INVALID_TURN_LIMIT, "none, 30 s or 60 s"),
        (Wire(turn_limit_ms=-1), ConcentrationCode.INVALID_TURN_LIMIT, "none, 30 s or 60 s"),
        (Wire(pictures=9), Code.INVALID_PICTURES, "emoji or playing cards"),
        (Wire(matching=9), ConcentrationCode.INVALID_MATCHING, "rank and colour"),
        (Wire.FromString(bytes([0x48, 0x05])), Code.INVALID_SETUP, "setting numbered [9]"),
        (race_pb2.RaceSettings(), Code.INVALID_SETUP, "takes ConcentrationSettings"),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_every_unknown_setting_is_refused_with_its_code_and_what_to_change(
    wire: object, code: Code, words: str
) -> None:
    with pytest.raises(RuleError) as refused:
        GAME.settings(wire)  # type: ignore[arg-type]
    assert refused.value.code is code and words in refused.value.message


def test_the_bad_settings_of_the_issue_each_have_their_own_code() -> None:
    codes = set()
    for wire in (Wire(cards=40), Wire(jokers=True), Wire(turn_limit_ms=45_000)):
        with pytest.raises(RuleError) as refused:
            GAME.settings(wire)
        codes.add(refused.value.code)
    assert len(codes) == 3 and Code.INVALID_SETUP not in codes


def test_the_deal_on_the_wire_and_into_the_state() -> None:
    dealt = GAME.deal(SEED, Wire(cards=24))
    assert len(dealt.cards) == 24 and dealt.cpu_strength in ("weak", "medium", "strong")
    assert len(dealt.cpu_seed) == 32
    state = GAME.initial_state(dealt)
    assert state.cards == tuple(dealt.cards) and state.cpu_seed == dealt.cpu_seed
    assert GAME.initial_state(None).cards is None


def test_a_deal_that_does_not_fit_is_refused() -> None:
    dealt = GAME.deal(SEED, Wire(cards=24))
    started = Game.started().state
    bad = [
        concentration_pb2.ConcentrationDeal(
            cards=dealt.cards, cpu_strength="fierce", cpu_seed=dealt.cpu_seed
        ),
        concentration_pb2.ConcentrationDeal(cards=dealt.cards, cpu_strength="weak"),
        concentration_pb2.ConcentrationDeal(cpu_strength="weak", cpu_seed=dealt.cpu_seed),
    ]
    for deal in bad:
        with pytest.raises(ValueError):
            GAME.with_deal(GAME.initial_state(None), deal)
    with pytest.raises(ValueError, match="36 cards"):
        GAME.with_deal(started, GAME.deal(SEED, Wire(cards=36)))
    with pytest.raises(ValueError, match="not a Concentration deal"):
        GAME.with_deal(started, race_pb2.RaceSettings())
    assert GAME.with_deal(started, dealt).cards == tuple(dealt.cards)


def test_the_start_seats_players_in_seat_order_and_bots_are_cpus() -> None:
    seats = [SeatInfo(2, BOB, "Bob", True), SeatInfo(1, ANN, "Ann", False)]
    start = GAME.start(T, seats, Wire(cards=24), "concentration-deal-v1")
    assert start == cmd.StartGame(T, (ANN, BOB), frozenset({BOB}), SMALL, "concentration-deal-v1")


def test_commands_from_the_wire() -> None:
    flip = Command(player_id=ANN, flip_card=Command.FlipCard(card=3))
    assert GAME.command(flip, T) == cmd.FlipCard(T, ANN, 3)
    for bad in (Command(player_id=ANN), race_pb2.RaceSettings()):
        with pytest.raises(RuleError) as refused:
            GAME.command(bad, T)
        assert refused.value.code is Code.MALFORMED_REQUEST
    assert GAME.presence(T, ANN, False) == cmd.PlayerAway(T, ANN)
    assert GAME.presence(T, ANN, True) == cmd.PlayerBack(T, ANN)
    assert GAME.tick(T) == cmd.Tick(T)


def test_the_decider_behind_the_seam() -> None:
    state = GAME.initial_state(GAME.deal(SEED, Wire(cards=24)))
    assert not GAME.is_started(state)
    steps = GAME.decide_steps(state, GAME.start(T, [SeatInfo(1, ANN, "Ann", False),
                                                   SeatInfo(2, BOB, "Bob", False)],
                                               Wire(cards=24), GAME.deal_version))  # fmt: skip
    for event, after in steps:
        state = GAME.evolve(state, event)
        assert state == after
    assert GAME.is_started(state) and not GAME.is_terminal(state)
    assert GAME.next_deadline(state) == T + IDLE_MS and GAME.clock(state) == T


def test_every_event_round_trips_through_the_codec() -> None:
    g = Game.started(cpus=frozenset({BOB}))
    g.when(cmd.PlayerAway(T, ANN))
    g.when(cmd.PlayerBack(T + 1, ANN))
    g.when(cmd.PlayerAway(T + 2, ANN))
    g.when(cmd.Tick(T + 3_600_000))
    kinds = {type(e) for e in g.log}
    assert kinds >= {ev.GameStarted, ev.PlayerDropped, ev.PlayerReturned, ev.SeatHandedToCpu,
                     ev.CardFlipped, ev.GameEnded, ev.TimeRanOut} - {ev.TimeRanOut}  # fmt: skip
    for event in [*g.log, ev.TimeRanOut(T, ANN, None, 0), ev.TimeRanOut(T, ANN, 3, 1)]:
        wire = GAME.encode(event)
        again = concentration_pb2.ConcentrationEvent.FromString(wire.SerializeToString())
        assert GAME.decode(again) == event
    with pytest.raises(ValueError):
        GAME.decode(race_pb2.RaceEvent())


def test_every_event_is_public_and_a_face_travels_only_with_its_own_flip() -> None:
    g = Game.started()
    g.flip(T, ANN, 1)
    for event in g.log:
        assert GAME.redact(g.state, event, BOB) is event
    with pytest.raises(ValueError, match="not its own"):
        GAME.redact(g.state, ev.CardFlipped(T, ANN, 1, "p7"), BOB)
    with pytest.raises(TypeError):
        GAME.redact(g.state, cmd.Tick(T), BOB)  # type: ignore[arg-type]
    projection = GAME.initial_state(None)
    assert GAME.redact(projection, ev.CardFlipped(T, ANN, 1, "p7"), BOB)  # nothing to check


def test_the_snapshot_shows_the_table_and_the_seed_only_when_over() -> None:
    g = Game.started(players=(ANN, BOB))
    g.flip(T, ANN, 1, 2)
    g.flip(T, ANN, 3)
    g.when(cmd.PlayerAway(T, BOB))
    table = TableContext("t-1", 9, T + 5, {ANN: "Ann", BOB: "Bob"}, "c0ffee", SEED)
    view = GAME.snapshot(g.state, BOB, table)
    assert (view.table_id, view.event_number, view.server_time_ms) == ("t-1", 9, T + 5)
    assert view.phase == View.PHASE_PLAYING and view.you == BOB and view.turn == ANN
    assert view.cards[0] == View.Card(card=1, state=View.CARD_STATE_TAKEN, face="p0", taken_by=ANN)
    assert view.cards[2] == View.Card(card=3, state=View.CARD_STATE_UP, face="p1")
    assert view.cards[3] == View.Card(card=4, state=View.CARD_STATE_DOWN)
    assert [(s.display_name, s.pairs, s.takeover_at_ms) for s in view.seats] == [
        ("Ann", 1, 0),
        ("Bob", 0, T + TAKEOVER_MS),
    ]
    assert view.deadline_ms == T + IDLE_MS and view.commitment == "c0ffee"
    assert not view.HasField("seed") and view.settings.cards == 24
    waiting = GAME.snapshot(GAME.initial_state(None), "", table)
    assert waiting.phase == View.PHASE_WAITING_FOR_PLAYERS and not waiting.cards
    solo = Game.started(players=(ANN,))
    for a, b in PAIRS:
        solo.flip(T, ANN, a, b)
    over = GAME.snapshot(solo.state, ANN, table)
    assert over.phase == View.PHASE_GAME_OVER and over.seed == SEED
    assert [(s.player, s.place, s.pairs, s.tries) for s in over.standings] == [(ANN, 1, 12, 12)]
    assert list(over.winners) == [ANN] and not over.draw
    unrevealed = GAME.snapshot(solo.state, ANN, replace(table, seed=None))
    assert not unrevealed.HasField("seed")


def test_the_replies() -> None:
    g = Game.started()
    events = g.flip(T, ANN, 1)
    envelopes = [
        common_pb2.EventEnvelope(table_id="t-1", event_number=7 + n, concentration=GAME.encode(e))
        for n, e in enumerate(events)
    ]
    reply = GAME.accepted(envelopes, g.state, ANN, T, 8)
    assert list(reply.accepted.events) == envelopes
    assert reply.accepted.view.table_id == "t-1" and reply.accepted.view.event_number == 8
    assert reply.accepted.view.cards[0].face == "p0"
    assert GAME.accepted([], g.state, ANN, T, 8).accepted.view.table_id == ""
    refusal = common_pb2.Refusal(code="not_your_turn", message="wait")
    assert GAME.reply_message(refusal=refusal).refusal == refusal


def test_results_place_every_player_and_say_pairs_and_tries() -> None:
    g = Game.started()
    assert GAME.results(g.state) is None
    g.flip(T, ANN, 1, 3)  # a miss
    at = T + 1_500
    g.when(cmd.Tick(at))
    for a, b in PAIRS:
        g.flip(at, BOB, a, b)
    results = GAME.results(g.state)
    assert results is not None and not results.draw
    assert [(s.player, s.place, s.score, s.summary) for s in results.standings] == [
        (BOB, 1, 12, "12 pairs, 12 tries"),
        (ANN, 2, 0, "0 pairs, 1 try"),
    ]
    one = Game.started(players=(ANN,))
    one.flip(T, ANN, *PAIRS[0])
    assert GAME.results(one.state) is None


def test_the_cpu_state_comes_from_the_deal() -> None:
    dealt = GAME.deal(SEED, Wire(cards=24))
    state = GAME.initial_state(dealt)
    assert state.cpu_strength is Strength(dealt.cpu_strength)
    assert Game.new(CARDS).state.cpu_seed == CPU_SEED
