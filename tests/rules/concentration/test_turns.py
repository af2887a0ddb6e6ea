"""Concentration, turn by turn: each rule of the seed, as given / when / then."""

from __future__ import annotations

from functools import reduce

from match_rules.concentration import Settings, decide, evolve, is_terminal, next_deadline
from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration.decide import IDLE_MS, MISS_SHOW_MS
from match_rules.concentration.errors import ConcentrationCode
from match_rules.concentration.settings import Matching, Pictures
from match_rules.concentration.state import Phase
from match_rules.errors import Code
from tests.rules.concentration.helpers import ANN, BOB, CARDS, CAT, PAIRS, SMALL, Game, T

# --- the start -------------------------------------------------------------------------------


def test_starting_the_game_gives_the_first_seat_the_first_turn() -> None:
    g = Game.new()
    events = g.when(cmd.StartGame(T, (ANN, BOB), frozenset(), SMALL, "v"))
    assert events == [
        ev.GameStarted(T, (ANN, BOB), frozenset(), SMALL, "v"),
        ev.TurnBegan(T, ANN, T + IDLE_MS),
    ]
    assert g.state.phase is Phase.PLAYING and g.state.turn == ANN


def test_a_game_starts_once() -> None:
    g = Game.started()
    g.refused(cmd.StartGame(T + 1, (ANN, BOB), frozenset(), SMALL, "v"), Code.GAME_ALREADY_STARTED)


def test_one_to_six_players_with_distinct_ids_and_seated_cpus() -> None:
    g = Game.new()
    for players, cpus in [
        ((), frozenset()),
        (tuple(f"p{i}" for i in range(7)), frozenset()),  # seven
        ((ANN, ANN), frozenset()),
        ((ANN, ""), frozenset()),
        ((ANN, BOB), frozenset({CAT})),  # a CPU without a seat
    ]:
        g.refused(cmd.StartGame(T, players, cpus, SMALL, "v"), Code.INVALID_SETUP)
    for size in (1, 6):
        players = tuple(f"p{i}" for i in range(size))
        assert Game.new().when(cmd.StartGame(T, players, frozenset(), SMALL, "v"))


def test_settings_that_make_no_deck_are_refused_each_with_its_code_and_what_to_change() -> None:
    g = Game.new()
    for settings, code, words in [
        (Settings(cards=30), Code.INVALID_DECK_SIZE, "52, 36 or 24"),
        (Settings(cards=24, jokers=True), ConcentrationCode.INVALID_JOKERS, "no jokers"),
        (
            Settings(cards=24, matching=Matching.RANK),
            ConcentrationCode.INVALID_MATCHING,
            "identical picture",
        ),
        (
            Settings(cards=24, turn_limit_ms=45_000),
            ConcentrationCode.INVALID_TURN_LIMIT,
            "none, 30 s or 60 s",
        ),
    ]:
        error = g.refused(cmd.StartGame(T, (ANN,), frozenset(), settings, "v"), code)
        assert words in error.message


def test_a_deal_of_another_size_than_the_settings_is_refused() -> None:
    g = Game.new()
    error = g.refused(
        cmd.StartGame(T, (ANN,), frozenset(), Settings(cards=36), "v"), Code.INVALID_SETUP
    )
    assert "24 cards" in error.message


def test_nothing_but_the_start_is_taken_before_the_game_starts() -> None:
    g = Game.new()
    g.refused(cmd.FlipCard(T, ANN, 1), Code.GAME_NOT_STARTED)
    assert g.when(cmd.Tick(T)) == []
    assert next_deadline(g.state) is None


# --- flipping --------------------------------------------------------------------------------


def test_everyone_sees_each_flip_and_the_second_card_is_awaited() -> None:
    g = Game.started()
    assert g.flip(T + 10, ANN, 5) == [
        ev.CardFlipped(T + 10, ANN, 5, "p2"),
        ev.SecondCardDue(T + 10, ANN, T + 10 + IDLE_MS),
    ]
    assert g.state.up == (5,)


def test_a_match_keeps_the_pair_and_the_same_player_flips_again() -> None:
    g = Game.started()
    events = g.flip(T + 10, ANN, 1, 2)
    assert events[-2:] == [
        ev.PairTaken(T + 10, ANN, (1, 2), 1, 1),
        ev.TurnBegan(T + 10, ANN, T + 10 + IDLE_MS),
    ]
    assert g.state.taken == {1: ANN, 2: ANN} and g.state.up == ()


def test_a_miss_shows_both_cards_then_turns_them_down_and_passes_the_turn() -> None:
    g = Game.started()
    events = g.flip(T + 10, ANN, 1, 3)
    assert events[-1] == ev.AttemptMissed(T + 10, ANN, (1, 3), 1, T + 10 + MISS_SHOW_MS)
    assert next_deadline(g.state) == T + 10 + MISS_SHOW_MS
    g.refused(cmd.FlipCard(T + 10 + MISS_SHOW_MS - 1, BOB, 5), Code.PAUSED)
    assert g.when(cmd.Tick(T + 10 + MISS_SHOW_MS)) == [
        ev.CardsTurnedDown(T + 10 + MISS_SHOW_MS, (1, 3)),
        ev.TurnBegan(T + 10 + MISS_SHOW_MS, BOB, T + 10 + MISS_SHOW_MS + IDLE_MS),
    ]
    assert g.state.up == () and 1 not in g.state.faces


def test_a_flip_after_the_miss_turned_down_is_judged_after_it() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 3)
    events = g.flip(T + 5_000, BOB, 1)
    assert [type(e) for e in events] == [
        ev.CardsTurnedDown,
        ev.TurnBegan,
        ev.CardFlipped,
        ev.SecondCardDue,
    ]


def test_taken_cards_leave_a_gap_and_cannot_be_flipped() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 2)
    g.refused(cmd.FlipCard(T + 1, ANN, 1), ConcentrationCode.CARD_TAKEN)


def test_the_same_card_twice_is_refused() -> None:
    g = Game.started()
    g.flip(T, ANN, 7)
    g.refused(cmd.FlipCard(T + 1, ANN, 7), ConcentrationCode.CARD_FACE_UP)


def test_a_card_out_of_range_is_refused_on_both_sides() -> None:
    g = Game.started()
    g.refused(cmd.FlipCard(T, ANN, 0), Code.CARD_OUT_OF_RANGE)
    g.refused(cmd.FlipCard(T, ANN, 25), Code.CARD_OUT_OF_RANGE)
    assert g.flip(T, ANN, 24)
    g.refused(cmd.FlipCard(T, ANN, 25), Code.CARD_OUT_OF_RANGE)


def test_out_of_turn_and_unseated_flips_are_refused() -> None:
    g = Game.started()
    g.refused(cmd.FlipCard(T, BOB, 1), ConcentrationCode.NOT_YOUR_TURN)
    g.refused(cmd.FlipCard(T, CAT, 1), Code.NOT_SEATED)


def test_nothing_is_taken_after_the_game() -> None:
    g = Game.started(players=(ANN,))
    for a, b in PAIRS:
        g.flip(T, ANN, a, b)
    assert is_terminal(g.state)
    g.refused(cmd.FlipCard(T + 1, ANN, 1), Code.GAME_OVER)
    assert next_deadline(g.state) is None


def test_a_command_stamped_before_the_last_event_is_refused_a_late_tick_is_nothing() -> None:
    g = Game.started()
    g.flip(T + 100, ANN, 1)
    g.refused(cmd.FlipCard(T + 99, ANN, 3), Code.STALE_TIME)
    assert g.when(cmd.Tick(T + 99)) == []


# --- time --------------------------------------------------------------------------------------


def test_running_out_on_the_second_card_turns_the_first_back_counts_a_try_and_passes() -> None:
    g = Game.started(settings=Settings(cards=24, turn_limit_ms=30_000))
    assert g.flip(T + 5, ANN, 1)[-1] == ev.SecondCardDue(T + 5, ANN, T + 30_005)
    assert g.when(cmd.Tick(T + 30_004)) == []
    assert g.when(cmd.Tick(T + 30_005)) == [
        ev.TimeRanOut(T + 30_005, ANN, 1, 1),
        ev.TurnBegan(T + 30_005, BOB, T + 60_005),
    ]
    assert g.state.tries[ANN] == 1 and 1 not in g.state.faces


def test_running_out_on_the_first_card_passes_without_a_try() -> None:
    g = Game.started(settings=Settings(cards=24, turn_limit_ms=60_000))
    assert g.when(cmd.Tick(T + 60_000)) == [
        ev.TimeRanOut(T + 60_000, ANN, None, 0),
        ev.TurnBegan(T + 60_000, BOB, T + 120_000),
    ]


def test_without_a_limit_a_table_of_two_waits_two_minutes_a_flip() -> None:
    g = Game.started()
    assert next_deadline(g.state) == T + IDLE_MS
    assert g.when(cmd.Tick(T + IDLE_MS - 1)) == []
    assert [type(e) for e in g.when(cmd.Tick(T + IDLE_MS))] == [ev.TimeRanOut, ev.TurnBegan]


def test_a_solo_game_without_a_limit_waits_for_ever() -> None:
    g = Game.started(players=(ANN,))
    assert next_deadline(g.state) is None
    assert g.flip(T, ANN, 1)[-1] == ev.SecondCardDue(T, ANN, None)  # the second card too
    g.flip(T, ANN, 3)  # a miss: the turn comes back to the same player
    assert g.when(cmd.Tick(T + MISS_SHOW_MS))[-1] == ev.TurnBegan(T + MISS_SHOW_MS, ANN, None)


def test_a_solo_game_with_a_limit_times_only_the_second_card() -> None:
    g = Game.started(players=(ANN,), settings=Settings(cards=24, turn_limit_ms=30_000))
    assert g.log[-1] == ev.TurnBegan(T, ANN, None)  # nobody to pass to: the first card waits
    assert g.when(cmd.Tick(T + 10 * 60_000)) == []
    assert g.flip(T + 10, ANN, 1)[-1] == ev.SecondCardDue(T + 10, ANN, T + 30_010)
    assert g.when(cmd.Tick(T + 30_010)) == [
        ev.TimeRanOut(T + 30_010, ANN, 1, 1),
        ev.TurnBegan(T + 30_010, ANN, None),
    ]
    assert g.flip(T + 30_020, ANN, 1, 2)[-1] == ev.TurnBegan(T + 30_020, ANN, None)  # a pair


def test_a_late_tick_fires_each_deadline_at_the_instant_it_was_due() -> None:
    g = Game.started(players=(ANN, BOB, CAT), settings=Settings(cards=24, turn_limit_ms=30_000))
    events = g.when(cmd.Tick(T + 95_000))
    assert [(type(e).__name__, e.at) for e in events] == [
        ("TimeRanOut", T + 30_000),
        ("TurnBegan", T + 30_000),
        ("TimeRanOut", T + 60_000),
        ("TurnBegan", T + 60_000),
        ("TimeRanOut", T + 90_000),
        ("TurnBegan", T + 90_000),
    ]
    assert g.state.turn == ANN  # round the table


# --- the end ----------------------------------------------------------------------------------


def test_the_game_ends_when_every_card_is_taken_and_most_pairs_wins() -> None:
    g = Game.started()
    for a, b in PAIRS[:7]:
        g.flip(T, ANN, a, b)
    g.flip(T, ANN, 15, 17)  # a miss: Bob's turn
    g.when(cmd.Tick(T + MISS_SHOW_MS))
    at = T + MISS_SHOW_MS
    for a, b in PAIRS[7:]:
        events = g.flip(at, BOB, a, b)
    assert events[-1] == ev.GameEnded(
        at, (ev.Standing(ANN, 1, 7, 8), ev.Standing(BOB, 2, 5, 5)), (ANN,), False
    )
    assert is_terminal(g.state) and g.state.winners == (ANN,)


def test_everyone_tied_for_the_most_pairs_wins_and_all_tied_is_a_draw() -> None:
    g = Game.started(players=(ANN, BOB))
    at = T
    for i, (a, b) in enumerate(PAIRS):
        player = ANN if i < 6 else BOB
        if i == 6:
            g.flip(at, ANN, 13, 15)  # Ann misses: Bob's turn
            at += MISS_SHOW_MS
            g.when(cmd.Tick(at))
        events = g.flip(at, player, a, b)
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    assert end.winners == (ANN, BOB) and end.draw
    assert [s.place for s in end.standings] == [1, 1]


def test_a_tie_for_the_most_pairs_is_no_draw_when_someone_has_fewer() -> None:
    g = Game.started(players=(ANN, BOB, CAT))
    at, plan = T, [(ANN, 5), (BOB, 5), (CAT, 2)]
    pairs = iter(PAIRS)
    for n, (player, count) in enumerate(plan):
        for _ in range(count):
            a, b = next(pairs)
            events = g.flip(at, player, a, b)
        if n < 2:
            g.flip(at, player, 23, 21)  # a miss: the next seat
            at += MISS_SHOW_MS
            g.when(cmd.Tick(at))
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    assert end.winners == (ANN, BOB) and not end.draw
    assert [(s.player, s.place) for s in end.standings] == [(ANN, 1), (BOB, 1), (CAT, 3)]


def test_solo_play_records_the_tries() -> None:
    g = Game.started(players=(ANN,))
    g.flip(T, ANN, 1, 3)  # one miss
    g.when(cmd.Tick(T + MISS_SHOW_MS))
    for a, b in PAIRS:
        events = g.flip(T + MISS_SHOW_MS, ANN, a, b)
    end = events[-1]
    assert isinstance(end, ev.GameEnded)
    assert end.standings == (ev.Standing(ANN, 1, 12, 13),) and not end.draw


# --- the decider ------------------------------------------------------------------------------


def test_the_decider_folds_what_it_decided() -> None:
    g = Game.started(settings=Settings(pictures=Pictures.EMOJI, cards=24))
    g.flip(T, ANN, 1, 3)
    g.when(cmd.Tick(T + 10_000))
    again = reduce(evolve, g.log[1:], evolve(Game.new(CARDS).state, g.log[0]))
    assert again == g.state
    assert decide(g.state, cmd.Tick(T + 10_000)) == []
    assert next_deadline(g.state) == g.state.deadline
    assert not is_terminal(g.state)
