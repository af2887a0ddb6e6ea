"""Number Match's log told for people (``match-audit replay``): one section, "play", whose
times count from the game's start; every pair with its numbers' places, every addition, hint
and undo; the outcome and the revealed witness under the end. Pure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from match.v1 import number_match_command_pb2
from match_rules.game import ENDING, Place, Teller, Told
from match_rules.number_match import events as ev
from match_rules.number_match.board import WIDTH
from match_rules.number_match.settings import Settings
from match_rules.words import count

PLAY = 1


def where(cell: int) -> str:
    """ "row 1, column 2" of ``cell`` (1-based)."""
    row, column = divmod(cell - 1, WIDTH)
    return f"row {row + 1}, column {column + 1}"


def place(event: Any) -> Place:
    if isinstance(event, ev.GameOver):
        return Place(ENDING)
    return Place(PLAY, isinstance(event, ev.GameStarted))


def heading(part: int) -> str:
    return "end of the game (times from the start of play)" if part == ENDING else "play"


def additions_text(additions: int | None) -> str:
    return "additions without limit" if additions is None else count(additions, "addition")


def settings_text(settings: Settings) -> str:
    level = settings.level
    text = f"{level.name.lower()}: {level.numbers} numbers, {additions_text(level.additions)}"
    if settings.daily:
        text = f"the daily puzzle of {settings.daily_date} ({text})"
    if settings.replay:
        text += ", the board of a finished game played again (not ranked)"
    return text


def _hint(e: ev.HintGiven) -> str:
    if e.kind is ev.HintKind.PAIR:
        said = f"cells {e.first} and {e.second}"
    elif e.kind is ev.HintKind.ADD:
        said = "time to add numbers"
    else:
        said = "the board can no longer be cleared"
    return f"a hint: {said} ({count(e.hints_left, 'hint')} left)"


_OUTCOMES = {
    ev.Outcome.CLEARED: "the board is clear",
    ev.Outcome.NO_MOVES: "no pair and no addition left",
    ev.Outcome.GAVE_UP: "the player ended it",
    ev.Outcome.IDLE: "nothing was played for 30 minutes",
}

_TEXT: dict[type, Callable[[Teller, Any], str]] = {
    ev.GameStarted: lambda t, e: (
        f"the game starts for {t.name(e.player)}: {settings_text(e.settings)}; "
        f"{len(e.board)} numbers dealt with {e.deal_version}; witness committed as "
        f"{e.witness_commitment[:16]}…"
    ),
    ev.CellsPaired: lambda t, e: (
        f"pairs cells {e.first} ({where(e.first)}) and {e.second} ({where(e.second)}): "
        f"+{e.points}"
        + (f", {count(e.rows_removed, 'row')} removed" if e.rows_removed else "")
        + f" = {e.score}"
    ),
    ev.NumbersAdded: lambda t, e: (
        f"adds numbers: {e.count} copied"
        + ("" if e.additions_left is None else f", {count(e.additions_left, 'addition')} left")
    ),
    ev.HintGiven: lambda t, e: _hint(e),
    ev.MoveUndone: lambda t, e: f"undoes the last {e.undone.value}: score {e.score}",
    ev.GameOver: lambda t, e: (
        f"the game is over: {_OUTCOMES[e.outcome]}; {e.score} points in "
        f"{e.time_ms / 1000:.1f} s, {count(e.moves, 'move')}, {count(e.hints_used, 'hint')} used"
    ),
}


def describe(event: Any, teller: Teller) -> Told:
    text = _TEXT.get(type(event))
    if text is None:
        raise TypeError(f"not an event of Number Match: {event!r}")
    after: tuple[str, ...] = ()
    if isinstance(event, ev.GameOver):
        steps = ", ".join("+" if s.add else f"{s.first}-{s.second}" for s in event.witness)
        after = (f"the witness (+ is an addition): {steps}",)
    return Told(text(teller, event), after)


def describe_command(wire: Message, teller: Teller) -> str:
    assert isinstance(wire, number_match_command_pb2.NumberMatchCommand)
    who = teller.name(wire.player_id)
    which = wire.WhichOneof("command")
    if which == "pair_cells":
        return f"{who} pairs cells {wire.pair_cells.first} and {wire.pair_cells.second}"
    texts = {
        "add_numbers": "adds numbers",
        "ask_hint": "asks for a hint",
        "undo": "undoes",
        "end_game": "ends the game",
    }
    # pragma: no mutate start (equivalent: no key is '' or any other str)
    return f"{who} {texts.get(which or '', 'sends nothing')}"
    # pragma: no mutate end
