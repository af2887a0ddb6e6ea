"""Match Cards' log told for people (``match-audit replay``): one section, "play", whose times
count from the game's start; every card turned with its picture's name (the log is over), every
compare, the notices, each player finishing; the standings and the code under the end. Pure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from match.v1 import match_cards_command_pb2
from match_rules.game import ENDING, Place, Teller, Told
from match_rules.match_cards import events as ev
from match_rules.match_cards.settings import PICTURES, Settings, columns
from match_rules.words import count

PLAY = 1


def where(card: int, cards: int) -> str:
    """ "row 1, column 2" of ``card`` on a board of ``cards``."""
    row, column = divmod(card - 1, columns(cards))
    return f"row {row + 1}, column {column + 1}"


def picture_name(picture: str) -> str:
    known = PICTURES.get(picture)
    return picture if known is None else known.name


def place(event: Any) -> Place:
    if isinstance(event, ev.GameEnded):
        return Place(ENDING)
    return Place(PLAY, isinstance(event, ev.GameStarted))


def heading(part: int) -> str:
    return "end of the game (times from the start of play)" if part == ENDING else "play"


def settings_text(settings: Settings) -> str:
    replay = f", a replay of {settings.code}" if settings.code else ""
    return (
        f"{settings.cards} cards in {settings.mode.value}, {settings.difficulty.value}, "
        f"{settings.pictures}, {settings.limit} failed attempts lose{replay}"
    )


def _cards(cards: tuple[int, ...]) -> str:
    return ", ".join(str(c) for c in cards)


def _notice(e: ev.GroupFound | ev.AttemptFailed, same: bool) -> str:
    if not e.notice:
        return ""
    return ' (told "Same picture")' if same else ' (told "Different pictures")'


_TEXT: dict[type, Callable[[Teller, Any], str]] = {
    ev.GameStarted: lambda t, e: (
        f"the game starts for {', '.join(t.name(p) for p in e.players)}: "
        f"{settings_text(e.settings)}; dealt with {e.deal_version}"
    ),
    ev.CardTurned: lambda t, e: (
        f"{t.name(e.player)} turns card {e.card}: {picture_name(e.picture)}"
        + (f"; compared at {t.when(e.compare_at)}" if e.compare_at is not None else "")
    ),
    ev.GroupFound: lambda t, e: (
        f"{t.name(e.player)} finds cards {_cards(e.cards)} ({e.groups} found)" + _notice(e, True)
    ),
    ev.AttemptFailed: lambda t, e: (
        f"{t.name(e.player)}'s cards {_cards(e.cards)} differ and turn down "
        f"({count(e.failed, 'failed attempt')})" + _notice(e, False)
    ),
    ev.NoticeTurnedOff: lambda t, e: f"{t.name(e.player)} turns the notice off",
    ev.PlayerFinished: lambda t, e: (
        f"{t.name(e.player)} {'wins' if e.won else 'loses'}: {e.groups} found, "
        f"{count(e.failed, 'failed attempt')}, {e.time_ms / 1000:.1f} s"
    ),
    ev.GameEnded: lambda t, e: (
        f"the game ends; its code is {e.code}" + (" (a replay, not ranked)" if e.replay else "")
    ),
}


def describe(event: Any, teller: Teller) -> Told:
    text = _TEXT.get(type(event))
    if text is None:
        raise TypeError(f"not an event of Match Cards: {event!r}")
    after: tuple[str, ...] = ()
    if isinstance(event, ev.GameEnded):
        after = (
            "standings:",
            *(
                f"    {s.place}. {teller.name(s.player)}: {s.groups} found, "
                f"{count(s.failed, 'failed attempt')}, {s.time_ms / 1000:.1f} s"
                for s in event.standings
            ),
        )
    return Told(text(teller, event), after)


def describe_command(wire: Message, teller: Teller) -> str:
    assert isinstance(wire, match_cards_command_pb2.MatchCardsCommand)
    who = teller.name(wire.player_id)
    which = wire.WhichOneof("command")
    if which == "turn_card":
        return f"{who} turns card {wire.turn_card.card}"
    if which == "turn_off_notice":
        return f"{who} turns the notice off"
    return f"{who} sends nothing"
