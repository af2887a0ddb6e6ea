"""Match Cards' rules, one test per rule of the seed (docs/rules-match-cards.md)."""

from __future__ import annotations

import pytest

from match_rules.errors import Code, RuleError
from match_rules.match_cards import commands as cmd
from match_rules.match_cards import events as ev
from match_rules.match_cards.decide import (
    CAP_MS,
    COMPARE_MS,
    decide,
    is_terminal,
    next_deadline,
    rank,
)
from match_rules.match_cards.errors import MatchCardsCode
from match_rules.match_cards.settings import Difficulty, Mode, Settings
from match_rules.match_cards.state import Phase, initial_state
from tests.rules.match_cards.helpers import T0, Game


def refused(game: Game, command: cmd.Command) -> Code:
    before = game.state
    with pytest.raises(RuleError) as error:
        game.run(command)
    assert game.state is before
    assert error.value.message
    return error.value.code


def test_a_hidden_card_turns_and_shows_its_picture_to_its_player() -> None:
    game = Game()
    (event,) = game.turn(1)
    assert event == ev.CardTurned(T0, "ann", 1, game.cards[0], None)


def test_the_last_card_of_an_attempt_sets_the_compare_15_s_later() -> None:
    game = Game()
    game.turn(1)
    (event,) = game.turn(2, T0 + 100)
    assert isinstance(event, ev.CardTurned) and event.compare_at == T0 + 100 + COMPARE_MS
    assert next_deadline(game.state) == T0 + 100 + COMPARE_MS


def test_nothing_can_be_turned_during_the_compare() -> None:
    game = Game()
    game.turn(1)
    game.turn(2)
    assert refused(game, cmd.TurnCard(T0 + 1_499, "ann", 3)) is MatchCardsCode.COMPARING
    assert refused(game, cmd.TurnCard(T0 + 1_499, "ann", 1)) is MatchCardsCode.COMPARING


def test_identical_pictures_are_found_and_stay_up() -> None:
    game = Game()
    group = game.groups()[0]
    game.attempt(group, T0)
    found = [e for e in game.events if isinstance(e, ev.GroupFound)]
    assert found == [ev.GroupFound(T0 + COMPARE_MS, "ann", tuple(group), 1, False)]
    assert game.state.board("ann").found == set(group)
    assert refused(game, cmd.TurnCard(T0 + 2_000, "ann", group[0])) is MatchCardsCode.CARD_FOUND


def test_different_pictures_turn_down_in_place_and_count_as_failed() -> None:
    game = Game()
    cards = game.miss()
    game.attempt(cards, T0)
    assert game.events[-1] == ev.AttemptFailed(T0 + COMPARE_MS, "ann", tuple(cards), 1, False)
    board = game.state.board("ann")
    assert board.up == () and board.failed == 1 and not board.pictures


def test_a_card_already_turned_in_the_attempt_cannot_be_turned_again() -> None:
    game = Game()
    game.turn(1)
    assert refused(game, cmd.TurnCard(T0, "ann", 1)) is MatchCardsCode.CARD_TURNED


def test_cards_are_numbered_on_the_board() -> None:
    game = Game()
    assert refused(game, cmd.TurnCard(T0, "ann", 13)) is Code.CARD_OUT_OF_RANGE
    assert refused(game, cmd.TurnCard(T0, "ann", 0)) is Code.CARD_OUT_OF_RANGE


def test_triples_need_all_three_two_identical_are_not_enough() -> None:
    game = Game(Settings(Mode.TRIPLES, 12))
    groups = game.groups()
    assert all(len(g) == 3 for g in groups)
    two_and_one = [*groups[0][:2], groups[1][0]]
    game.turn(two_and_one[0])
    assert game.turn(two_and_one[1])[0].compare_at is None  # type: ignore[union-attr]
    game.turn(two_and_one[2])
    assert refused(game, cmd.TurnCard(T0 + 10, "ann", groups[2][0])) is MatchCardsCode.COMPARING
    game.run(cmd.Tick(T0 + COMPARE_MS))
    assert isinstance(game.events[-1], ev.AttemptFailed)
    assert game.state.board("ann").up == ()


def test_the_last_group_found_wins() -> None:
    game = Game()
    at = T0
    for group in game.groups():
        at = game.attempt(group, at)
    finished, ended = game.events[-2:]
    assert finished == ev.PlayerFinished(at, "ann", True, 6, 0, at - T0)
    assert isinstance(ended, ev.GameEnded) and ended.code == game.code and not ended.replay
    assert is_terminal(game.state) and next_deadline(game.state) is None
    assert refused(game, cmd.TurnCard(at + 1, "ann", 1)) is Code.GAME_OVER


def test_failed_attempts_reaching_the_limit_lose() -> None:
    settings = Settings(difficulty=Difficulty.HARD)
    game = Game(settings)
    assert game.state.limit == 11
    at = T0
    for _ in range(11):
        at = game.attempt(game.miss(), at)
    finished = game.events[-2]
    assert finished == ev.PlayerFinished(at, "ann", False, 0, 11, at - T0)
    assert game.state.phase is Phase.OVER


def test_hard_tells_same_or_different_after_every_attempt_until_turned_off() -> None:
    game = Game(Settings(difficulty=Difficulty.HARD))
    at = game.attempt(game.miss(), T0)
    assert game.events[-1].notice  # type: ignore[union-attr]
    assert game.state.board("ann").last == (tuple(game.miss()), False)
    counters = (game.state.board("ann").failed, game.state.board("ann").groups)
    (off,) = game.run(cmd.TurnOffNotice(at, "ann"))
    assert off == ev.NoticeTurnedOff(at, "ann")
    assert (game.state.board("ann").failed, game.state.board("ann").groups) == counters
    assert refused(game, cmd.TurnOffNotice(at, "ann")) is MatchCardsCode.NOTICE_ALREADY_OFF
    game.attempt(game.groups()[0], at)
    assert not game.events[-1].notice  # type: ignore[union-attr]


def test_a_found_group_on_hard_is_told_same_picture() -> None:
    game = Game(Settings(difficulty=Difficulty.HARD))
    game.attempt(game.groups()[0], T0)
    assert game.state.board("ann").last == (tuple(game.groups()[0]), True)


def test_only_hard_has_the_notice() -> None:
    game = Game()
    assert refused(game, cmd.TurnOffNotice(T0, "ann")) is MatchCardsCode.NO_NOTICE


def test_a_challenge_table_plays_one_deal_on_a_copy_each_and_ends_when_all_finish() -> None:
    game = Game(players=("ann", "bob"))
    at = T0
    for group in game.groups():
        at = game.attempt(group, at, "ann")
    assert game.state.phase is Phase.PLAYING
    assert refused(game, cmd.TurnCard(at, "ann", 1)) is MatchCardsCode.PLAYER_FINISHED
    at = game.attempt(game.miss(), at, "bob")
    for group in game.groups():
        at = game.attempt(group, at, "bob")
    ended = game.events[-1]
    assert isinstance(ended, ev.GameEnded)
    assert [(s.player, s.place, s.failed) for s in ended.standings] == [
        ("ann", 1, 0),
        ("bob", 2, 1),
    ]


def test_ranking_groups_then_fewer_failed_then_time_and_ties_share() -> None:
    rows = [
        ("a", False, 3, 1, 9),
        ("b", True, 6, 4, 50),
        ("c", True, 6, 4, 40),
        ("d", True, 6, 4, 40),
    ]
    assert [(s.player, s.place) for s in rank(rows)] == [("c", 1), ("d", 1), ("b", 3), ("a", 4)]
    # fewer failed attempts come before less time
    slower = [("e", True, 6, 5, 30), ("f", True, 6, 3, 60)]
    assert [(s.player, s.place) for s in rank(slower)] == [("f", 1), ("e", 2)]


def test_the_cap_ends_the_game_for_whoever_has_not_finished() -> None:
    game = Game(players=("ann", "bob"))
    at = T0
    for group in game.groups():
        at = game.attempt(group, at, "ann")
    game.turn(1, at, "bob")
    game.run(cmd.Tick(T0 + CAP_MS))
    assert game.events[-2] == ev.PlayerFinished(T0 + CAP_MS, "bob", False, 0, 0, CAP_MS)
    assert game.state.phase is Phase.OVER


def test_a_compare_due_at_the_cap_s_instant_is_judged_before_the_cap() -> None:
    """The last pair, compared at the very instant of the cap: found, and the game won."""
    game = Game()
    *first, last = game.groups()
    at = T0
    for group in first:
        at = game.attempt(group, at)
    for card in last:
        game.turn(card, T0 + CAP_MS - COMPARE_MS)
    game.run(cmd.Tick(T0 + CAP_MS))
    assert game.events[-2] == ev.PlayerFinished(T0 + CAP_MS, "ann", True, 6, 0, CAP_MS)


def test_a_compare_due_after_the_cap_is_never_judged_and_nothing_is_left_pending() -> None:
    game = Game()
    for card in game.groups()[0]:
        game.turn(card, T0 + CAP_MS - 1_000)  # compared half a second after the cap
    assert game.state.board("ann").compare_at == T0 + CAP_MS + 500
    game.run(cmd.Tick(T0 + CAP_MS))
    assert game.events[-2] == ev.PlayerFinished(T0 + CAP_MS, "ann", False, 0, 0, CAP_MS)
    assert game.state.phase is Phase.OVER and game.state.board("ann").compare_at is None
    assert decide(game.state, cmd.Tick(T0 + CAP_MS + 500)) == []


def test_the_clock_does_not_run_backwards_and_a_late_tick_is_nothing() -> None:
    game = Game()
    game.turn(1, T0 + 10)
    assert refused(game, cmd.TurnCard(T0, "ann", 2)) is Code.STALE_TIME
    assert decide(game.state, cmd.Tick(T0)) == []


def test_before_the_start_and_strangers_are_refused() -> None:
    game = Game()
    assert refused(game, cmd.TurnCard(T0, "eve", 1)) is Code.NOT_SEATED
    fresh = initial_state(game.cards, game.code)
    with pytest.raises(RuleError) as error:
        decide(fresh, cmd.TurnCard(T0, "ann", 1))
    assert error.value.code is Code.GAME_NOT_STARTED
    assert refused(game, cmd.StartGame(T0, ("ann",), Settings(), "v")) is Code.GAME_ALREADY_STARTED


@pytest.mark.parametrize(
    ("players", "settings"),
    [
        ((), Settings()),
        (("a", "b", "c", "d", "e"), Settings()),
        (("a", "a"), Settings()),
        (("a", ""), Settings()),
        (("a",), Settings(cards=20)),
    ],
)
def test_a_game_that_cannot_start_is_refused(players: tuple[str, ...], settings: Settings) -> None:
    fresh = initial_state(Game().cards)
    with pytest.raises(RuleError) as error:
        decide(fresh, cmd.StartGame(T0, players, settings, "v"))
    assert error.value.code is Code.INVALID_SETUP


def test_a_projection_holds_no_deal() -> None:
    with pytest.raises(ValueError, match="no deal"):
        initial_state().picture(1)
