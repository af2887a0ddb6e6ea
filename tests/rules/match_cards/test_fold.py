"""Folding Match Cards' events (match_rules.match_cards.state.evolve): what the state keeps of
the start, and the Same/Different notice only on Hard, only until the next card is turned or the
player turns it off (docs/rules-match-cards.md)."""

from __future__ import annotations

from match_rules.match_cards import commands as cmd
from match_rules.match_cards.deal import DEAL_VERSION
from match_rules.match_cards.settings import Difficulty, Settings
from tests.rules.match_cards.helpers import CODE, T0, Game


def test_the_start_keeps_the_deal_version_and_whether_it_is_a_replay() -> None:
    fresh = Game()
    assert fresh.state.deal_version == DEAL_VERSION and not fresh.state.replay
    replay = Game(Settings(code=CODE))
    assert replay.state.deal_version == DEAL_VERSION and replay.state.replay


def test_the_notice_shows_the_last_attempt_on_hard_until_the_next_card() -> None:
    game = Game(Settings(difficulty=Difficulty.HARD))
    miss = game.miss()
    at = game.attempt(miss, T0)
    assert game.state.board("ann").last == (tuple(miss), False)
    pair = game.groups()[3]
    game.turn(pair[0], at)
    assert game.state.board("ann").last is None
    at = game.attempt(pair[1:], at)
    assert game.state.board("ann").last == (tuple(pair), True)
    game.run(cmd.TurnOffNotice(at, "ann"))
    board = game.state.board("ann")
    assert board.last is None and not board.notice


def test_without_the_notice_no_attempt_is_kept() -> None:
    game = Game()  # Easy: no notice
    at = game.attempt(game.miss(), T0)
    assert game.state.board("ann").last is None
    game.attempt(game.groups()[3], at)
    assert game.state.board("ann").last is None and game.state.board("ann").groups == 1
