"""Concentration's log told for people (``match-audit replay``): one section, "play", whose
times count from the game's start; every flip with the face it showed (the log is over), the
pairs taken, the misses, time running out, drops, returns and the CPU taking a seat over; the
standings under the end. Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import Message

from match.v1 import concentration_command_pb2
from match_rules.concentration import events as ev
from match_rules.concentration.settings import Matching, Pictures, Settings
from match_rules.game import ENDING, Place, Teller, Told
from match_rules.words import count

PLAY = 1  # the one part of the game: from GameStarted (its T0) to GameEnded

_PICTURES = {Pictures.EMOJI: "emoji", Pictures.PLAYING_CARDS: "playing cards"}
_MATCHING = {
    Matching.IDENTICAL: "identical cards pair",
    Matching.RANK_AND_COLOUR: "cards of one rank and colour pair",
    Matching.RANK: "cards of one rank pair",
}


def _cards(cards: Sequence[int]) -> str:
    return " and ".join(str(c) for c in cards)


def place(event: Any) -> Place:
    if isinstance(event, ev.GameEnded):
        return Place(ENDING)
    return Place(PLAY, isinstance(event, ev.GameStarted))


def heading(part: int) -> str:
    return "end of the game (times from the start of play)" if part == ENDING else "play"


def settings_text(settings: Settings) -> str:
    limit = f"{settings.turn_limit_ms} ms a turn" if settings.turn_limit_ms else "no turn limit"
    jokers = " and 2 jokers" if settings.jokers else ""
    return (
        f"{settings.cards} cards of {_PICTURES[settings.pictures]}{jokers}, "
        f"{_MATCHING[settings.matching]}, {limit}"
    )


def _started(t: Teller, e: ev.GameStarted) -> str:
    order = ", ".join(t.name(p) for p in e.players)  # a CPU seat's name says "(bot)"
    return (
        f"the game starts: {order} in turn order; {settings_text(e.settings)}; "
        f"dealt with {e.deal_version}"
    )


def _turn(t: Teller, e: ev.TurnBegan) -> str:
    until = f", until {t.when(e.deadline)}" if e.deadline is not None else ""
    return f"{t.name(e.player)}'s turn{until}"


def _second(t: Teller, e: ev.SecondCardDue) -> str:
    until = f"until {t.when(e.deadline)}" if e.deadline is not None else "no time limit"
    return f"{t.name(e.player)} is to flip a second card: {until}"


def _ran_out(t: Teller, e: ev.TimeRanOut) -> str:
    who = t.name(e.player)
    if e.card is None:
        return f"{who}'s time runs out before a card is flipped"
    return (
        f"{who}'s time runs out: card {e.card} turns back down ({count(e.tries, 'try', 'tries')})"
    )


def _ended(t: Teller, e: ev.GameEnded) -> str:
    if e.draw:
        return "the game ends in a draw"
    return f"the game ends: {' and '.join(t.name(p) for p in e.winners)} won"


def _standings(t: Teller, e: ev.GameEnded) -> tuple[str, ...]:
    return (
        "standings:",
        *(
            f"    {s.place}. {t.name(s.player)}: {count(s.pairs, 'pair')}, "
            f"{count(s.tries, 'try', 'tries')}"
            for s in e.standings
        ),
    )


_TEXT: dict[type, Callable[[Teller, Any], str]] = {
    ev.GameStarted: _started,
    ev.TurnBegan: _turn,
    ev.CardFlipped: lambda t, e: f"{t.name(e.player)} flips card {e.card}: {e.face}",
    ev.SecondCardDue: _second,
    ev.PairTaken: lambda t, e: (
        f"{t.name(e.player)} takes the pair: cards {_cards(e.cards)} "
        f"({count(e.pairs, 'pair')}, {count(e.tries, 'try', 'tries')}) and flips again"
    ),
    ev.AttemptMissed: lambda t, e: (
        f"{t.name(e.player)} misses with cards {_cards(e.cards)} "
        f"({count(e.tries, 'try', 'tries')}): they show until {t.when(e.turn_down_at)}"
    ),
    ev.CardsTurnedDown: lambda t, e: f"cards {_cards(e.cards)} turn face down",
    ev.TimeRanOut: _ran_out,
    ev.PlayerDropped: lambda t, e: (
        f"{t.name(e.player)}'s connection drops: the CPU takes the seat at "
        f"{t.when(e.takeover_at)} unless they come back"
    ),
    ev.PlayerReturned: lambda t, e: f"{t.name(e.player)} is back",
    ev.SeatHandedToCpu: lambda t, e: f"the CPU plays {t.name(e.player)}'s seat from now on",
    ev.GameEnded: _ended,
}


def describe(event: Any, teller: Teller) -> Told:
    text = _TEXT.get(type(event))
    if text is None:
        raise TypeError(f"not an event of Concentration: {event!r}")
    after = _standings(teller, event) if isinstance(event, ev.GameEnded) else ()
    return Told(text(teller, event), after)


def describe_command(wire: Message, teller: Teller) -> str:
    assert isinstance(wire, concentration_command_pb2.ConcentrationCommand)
    who = teller.name(wire.player_id)
    if wire.WhichOneof("command") == "flip_card":
        return f"{who} flips card {wire.flip_card.card}"
    return f"{who} sends nothing"
