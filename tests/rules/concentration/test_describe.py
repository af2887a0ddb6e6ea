"""Concentration tells its log for the replay: one part, "play", from the start (its T0) to the
end; every flip with its face, pairs, misses, time running out, drops, returns, the CPU taking a
seat over, the end with the standings; the command and the settings for people."""

from __future__ import annotations

import pytest

from match.v1 import concentration_command_pb2, concentration_pb2
from match_rules.concentration import events as ev
from match_rules.concentration.game import GAME
from match_rules.concentration.settings import Matching, Pictures, Settings
from match_rules.game import ENDING, Place, Told

SETTINGS = Settings(cards=24)


class Teller:
    def name(self, player: str) -> str:
        return player.title()

    def when(self, ms: int) -> str:
        return f"@{ms}"


T = Teller()


def test_play_is_one_part_from_the_start_to_the_end() -> None:
    started = ev.GameStarted(1, ("ann",), frozenset(), SETTINGS, "v")
    assert GAME.place(started) == Place(1, starts=True)
    assert GAME.place(ev.CardFlipped(2, "ann", 1, "apple")) == Place(1)
    assert GAME.place(ev.GameEnded(3, (), ("ann",), False)) == Place(ENDING)
    assert GAME.heading(1) == "play"
    assert GAME.heading(ENDING) == "end of the game (times from the start of play)"


def test_every_event_is_one_line() -> None:
    cases: dict[ev.Event, str] = {
        ev.GameStarted(1, ("ann", "bob"), frozenset({"bob"}), SETTINGS, "concentration-deal-v1"): (
            "the game starts: Ann, Bob in turn order; 24 cards of emoji, identical cards pair, "
            "no turn limit; dealt with concentration-deal-v1"
        ),
        ev.TurnBegan(1, "ann", 9): "Ann's turn, until @9",
        ev.TurnBegan(1, "ann", None): "Ann's turn",
        ev.CardFlipped(1, "ann", 7, "apple"): "Ann flips card 7: apple",
        ev.SecondCardDue(1, "ann", 9): "Ann is to flip a second card: until @9",
        ev.SecondCardDue(1, "ann", None): "Ann is to flip a second card: no time limit",
        ev.PairTaken(1, "ann", (3, 4), 2, 5): (
            "Ann takes the pair: cards 3 and 4 (2 pairs, 5 tries) and flips again"
        ),
        ev.AttemptMissed(1, "ann", (3, 5), 1, 8): (
            "Ann misses with cards 3 and 5 (1 try): they show until @8"
        ),
        ev.CardsTurnedDown(1, (3, 5)): "cards 3 and 5 turn face down",
        ev.TimeRanOut(1, "ann", None, 0): "Ann's time runs out before a card is flipped",
        ev.TimeRanOut(1, "ann", 3, 2): "Ann's time runs out: card 3 turns back down (2 tries)",
        ev.PlayerDropped(1, "ann", 30_001): (
            "Ann's connection drops: the CPU takes the seat at @30001 unless they come back"
        ),
        ev.PlayerReturned(1, "ann"): "Ann is back",
        ev.SeatHandedToCpu(1, "ann"): "the CPU plays Ann's seat from now on",
    }
    for event, text in cases.items():
        assert GAME.describe(event, T) == Told(text), event


def test_the_end_names_the_winners_or_a_draw_and_shows_the_standings() -> None:
    standings = (ev.Standing("ann", 1, 7, 9), ev.Standing("bob", 2, 5, 1))
    assert GAME.describe(ev.GameEnded(1, standings, ("ann",), False), T) == Told(
        "the game ends: Ann won",
        ("standings:", "    1. Ann: 7 pairs, 9 tries", "    2. Bob: 5 pairs, 1 try"),
    )
    tied = (ev.Standing("ann", 1, 6, 9), ev.Standing("bob", 1, 6, 8))
    told = GAME.describe(ev.GameEnded(1, tied, ("ann", "bob"), True), T)
    assert told.text == "the game ends in a draw" and told.after[1:] == (
        "    1. Ann: 6 pairs, 9 tries",
        "    1. Bob: 6 pairs, 8 tries",
    )


def test_what_is_no_event_of_concentration_is_refused() -> None:
    with pytest.raises(TypeError, match="not an event of Concentration"):
        GAME.describe(object(), T)  # type: ignore[arg-type]


def test_commands_and_settings() -> None:
    flip = concentration_command_pb2.ConcentrationCommand(player_id="ann", flip_card={"card": 4})
    assert GAME.describe_command(flip, T) == "Ann flips card 4"
    empty = concentration_command_pb2.ConcentrationCommand(player_id="ann")
    assert GAME.describe_command(empty, T) == "Ann sends nothing"
    wire = concentration_pb2.ConcentrationSettings
    cards = GAME.settings(
        wire(
            pictures=wire.PICTURES_PLAYING_CARDS,
            cards=36,
            jokers=True,
            matching=wire.MATCHING_RANK_AND_COLOUR,
            turn_limit_ms=30_000,
        )
    )
    assert GAME.describe_settings(cards) == (
        "36 cards of playing cards and 2 jokers, cards of one rank and colour pair, 30000 ms a turn"
    )
    rank = GAME.settings(wire(pictures=wire.PICTURES_PLAYING_CARDS, matching=wire.MATCHING_RANK))
    assert (
        GAME.describe_settings(rank)
        == "52 cards of playing cards, cards of one rank pair, no turn limit"
    )
    assert Pictures.EMOJI and Matching.IDENTICAL  # the defaults, told above
