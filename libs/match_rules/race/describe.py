"""The race's log told for people (``match-audit replay``): one section per board, whose times
count from the board's T0 (its BoardStarted; the Ready phase before it is negative), the layout
and the results under each board once it is revealed, the standings under the end. Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import Message

from match.v1 import race_command_pb2, race_pb2
from match_rules.game import ENDING, OPENING, PLAYING, Place, Teller, Told
from match_rules.race import events as ev
from match_rules.words import count

OUTCOME = {
    ev.Outcome.CLEARED: "cleared",
    ev.Outcome.DISQUALIFIED: "disqualified (cleared in under 12 s)",
    ev.Outcome.OUT_OF_TURNS: "out of turns",
    ev.Outcome.RESIGNED: "resigned",
    ev.Outcome.BOARD_ENDED: "still playing when the board ended",
    ev.Outcome.OUT: "out of the game",
    ev.Outcome.NOT_PLAYED: "not played",
}
END = {
    ev.EndReason.ALL_DONE: "everybody is done",
    ev.EndReason.GRACE_OVER: "the grace after the first clear is over",
    ev.EndReason.TIME_CAP: "the two minutes are up",
}


def _tiles(tiles: Sequence[int]) -> str:
    return " and ".join(str(t) for t in tiles)


def place(event: Any) -> Place:
    if isinstance(event, ev.GameStarted):
        return Place(OPENING)
    if isinstance(event, ev.GameEnded):
        return Place(ENDING)
    board = getattr(event, "board", 0)  # pragma: no mutate: every event left has a board
    return Place(board, isinstance(event, ev.BoardStarted)) if board else Place(PLAYING)


def heading(part: int) -> str:
    return "end of the game (times from the last board's T0)" if part == ENDING else f"board {part}"


def _revealed(t: Teller, e: ev.BoardRevealed) -> tuple[str, ...]:
    layout = list(e.layout)
    out = ["layout (tile:symbol, 4 across):"]
    for row in range(0, len(layout), 4):
        cells = [f"{row + i + 1:>2}:{s:<2}" for i, s in enumerate(layout[row : row + 4])]
        out.append("    " + "  ".join(cells))
    out.append("results:")
    for r in e.results:
        out.append(
            f"    {t.name(r.player)}: {OUTCOME.get(r.outcome, '?')}, {r.pairs} pairs, "
            f"{count(r.turns, 'turn')}, {r.time_ms} ms, {count(r.hints, 'hint')}"
        )
    return tuple(out)


def _standings(t: Teller, e: ev.GameEnded) -> tuple[str, ...]:
    out = ["standings:"]
    for s in e.standings:
        out_text = ", out" if s.out else ""
        out.append(
            f"    {s.place}. {t.name(s.player)}: {count(s.pairs, 'pair')}, {s.time_ms} ms, "
            f"{count(s.turns, 'turn')}, {count(s.hints, 'hint')}{out_text}"
        )
    return tuple(out)


def _player(verb: str) -> Callable[[Teller, Any], str]:
    return lambda t, e: f"{t.name(e.player)} {verb}"


_TEXT: dict[type, Callable[[Teller, Any], str]] = {
    ev.GameStarted: lambda t, e: (
        f"the game starts: {', '.join(t.name(p) for p in e.players)}; dealt with {e.deal_version}"
    ),
    ev.ReadyOpened: lambda t, e: f"Ready opens for board {e.board} until {t.when(e.deadline)}",
    ev.PlayerReady: _player("is Ready"),
    ev.PlayerMissedReady: _player("missed Ready and is out"),
    ev.CountdownStarted: lambda t, e: f"countdown: the board starts at {t.when(e.starts_at)}",
    ev.BoardStarted: lambda t, e: "the board starts (T0)",
    ev.TilesTurnedDown: lambda t, e: f"{t.name(e.player)}: tiles {_tiles(e.tiles)} turn face down",
    ev.TileTurned: lambda t, e: (
        f"{t.name(e.player)} turns tile {e.tile}: symbol {e.symbol} (turn {e.turn})"
    ),
    ev.PairFound: lambda t, e: (
        f"{t.name(e.player)} finds a pair: tiles {_tiles(e.tiles)}, symbol {e.symbol} "
        f"({e.pairs} pairs)"
    ),
    ev.AttemptMissed: lambda t, e: (
        f"{t.name(e.player)} misses with tiles {_tiles(e.tiles)}: paused until "
        f"{t.when(e.paused_until)}"
    ),
    ev.HintGiven: lambda t, e: (
        f"{t.name(e.player)} gets a hint: tile {e.tile}'s partner is tile {e.partner} "
        f"({e.hints_used} used)"
    ),
    ev.TurnsExhausted: _player("is out of turns"),
    ev.BoardCleared: lambda t, e: f"{t.name(e.player)} clears the board in {e.elapsed_ms} ms",
    ev.ClearDisqualified: lambda t, e: (
        f"{t.name(e.player)} clears in {e.elapsed_ms} ms: under 12 s, disqualified"
    ),
    ev.BoardTaken: lambda t, e: (
        f"{t.name(e.player)} takes the board; the others have until {t.when(e.grace_until)}"
    ),
    ev.PlayerResigned: _player("resigns"),
    ev.BoardEnded: lambda t, e: f"board {e.board} ends: {END.get(e.reason, '?')}",
    ev.BoardRevealed: lambda t, e: f"board {e.board} is revealed",
    ev.GameEnded: lambda t, e: "the game ends",
}


def describe(event: Any, teller: Teller) -> Told:
    text = _TEXT.get(type(event))
    if text is None:  # an opponent's move, as a player was told it: never in the log
        return Told(repr(event))
    after: tuple[str, ...] = ()
    if isinstance(event, ev.BoardRevealed):
        after = _revealed(teller, event)
    elif isinstance(event, ev.GameEnded):
        after = _standings(teller, event)
    return Told(text(teller, event), after)


def describe_command(wire: Message, teller: Teller) -> str:
    assert isinstance(wire, race_command_pb2.RaceCommand)
    who = teller.name(wire.player_id)
    kind = wire.WhichOneof("command")
    if kind == "turn_tile":
        return f"{who} turns tile {wire.turn_tile.tile}"
    what = {"press_ready": "presses Ready", "resign": "resigns"}
    return f"{who} {what.get(kind or '', (kind or 'sends nothing').replace('_', ' '))}"


def describe_settings(settings: Message) -> str:
    assert isinstance(settings, race_pb2.RaceSettings)
    return f"Ready window {settings.ready_window_ms} ms, {settings.hints_per_board} hints per board"
