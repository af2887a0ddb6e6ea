"""A finished game's records as a readable timeline, board by board.

Times are on the referee's clock: the table's section counts from its first record, each board's
from the board's T0 (its BoardStarted; the Ready phase before it is negative), the end from the
last board's T0. The log is over, so every face turned is shown. Pure: records in, lines out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from match.v1 import common_pb2, race_pb2, referee_pb2

RaceEvent = race_pb2.RaceEvent

OUTCOME = {
    RaceEvent.OUTCOME_UNSPECIFIED: "still playing",
    RaceEvent.OUTCOME_CLEARED: "cleared",
    RaceEvent.OUTCOME_DISQUALIFIED: "disqualified (cleared in under 12 s)",
    RaceEvent.OUTCOME_OUT_OF_TURNS: "out of turns",
    RaceEvent.OUTCOME_RESIGNED: "resigned",
    RaceEvent.OUTCOME_BOARD_ENDED: "still playing when the board ended",
    RaceEvent.OUTCOME_OUT: "out of the game",
    RaceEvent.OUTCOME_NOT_PLAYED: "not played",
}
END = {
    RaceEvent.END_REASON_UNSPECIFIED: "?",
    RaceEvent.END_REASON_ALL_DONE: "everybody is done",
    RaceEvent.END_REASON_GRACE_OVER: "the grace after the first clear is over",
    RaceEvent.END_REASON_TIME_CAP: "the two minutes are up",
}


def _utc(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _n(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _tiles(tiles: Sequence[int]) -> str:
    return " and ".join(str(t) for t in tiles)


@dataclass
class _Section:
    title: str
    t0: int | None
    lines: list[tuple[int, str]] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)


class _Timeline:
    def __init__(self, records: Sequence[referee_pb2.TableRecord]) -> None:
        self.records = records
        self.names: dict[str, str] = {}
        self.t0: dict[int, int] = {}
        for record in records:
            for env in record.events:
                which = env.WhichOneof("body")
                if which == "table" and env.table.HasField("player_seated"):
                    seated = env.table.player_seated
                    bot = " (bot)" if seated.is_bot else ""
                    self.names[seated.player_id] = f"{seated.display_name}{bot}"
                elif which == "race" and env.race.HasField("board_started"):
                    self.t0[env.race.board_started.board] = env.race.board_started.at
        start = records[0].command.received_at_ms if records else 0
        self.table = _Section(f"table (times from {_utc(start)} UTC)", start)
        self.boards: dict[int, _Section] = {}
        last_t0 = max(self.t0.values(), default=start)
        self.end = _Section("end of the game (times from the last board's T0)", last_t0)
        self.current: _Section = self.table
        self.t0_now: int | None = start
        self.over = False

    def rel(self, ms: int) -> str:
        """An instant, relative to the T0 of the section being written."""
        return f"{ms - self.t0_now:+,d} ms" if self.t0_now is not None else f"{_utc(ms)} UTC"

    def name(self, player: str) -> str:
        return self.names.get(player, player or "?")

    def board(self, number: int) -> _Section:
        section = self.boards.get(number)
        if section is None:
            t0 = self.t0.get(number)
            at = f"T0 = {_utc(t0)} UTC" if t0 is not None else "never started"
            section = self.boards[number] = _Section(f"board {number} ({at})", t0)
        return section

    def add(self, section: _Section, at: int, text: str) -> None:
        section.lines.append((at, text))

    # --- one record -----------------------------------------------------------------------

    def record(self, record: referee_pb2.TableRecord) -> None:
        stamped = record.command
        at = stamped.received_at_ms
        if record.HasField("refusal"):
            section = self.current if not self.over else self.end
            self.add(
                section,
                at,
                f"{self.command(stamped)}: refused, {record.refusal.code} "
                f"({record.refusal.message})",
            )
            return
        for env in record.events:
            if env.HasField("race"):
                self.race(env.race, env.server_time_ms)
            elif env.HasField("table"):
                self.table_event(env.table, env.server_time_ms)

    def command(self, stamped: referee_pb2.StampedCommand) -> str:
        which = stamped.WhichOneof("command")
        if which == "race":
            race = stamped.race
            who = self.name(race.player_id)
            kind = race.WhichOneof("command")
            if kind == "turn_tile":
                return f"{who} turns tile {race.turn_tile.tile}"
            what = {"press_ready": "presses Ready", "resign": "resigns"}
            return f"{who} {what.get(kind or '', (kind or 'sends nothing').replace('_', ' '))}"
        if which == "table":
            table = stamped.table
            kind = table.WhichOneof("command") or "nothing"
            return f"{self.name(table.player_id)}: {kind.replace('_', ' ')}"
        return "timer"

    def table_event(self, event: common_pb2.TableEvent, at: int) -> None:
        which = event.WhichOneof("event")
        section = self.end if self.over else self.table
        if which == "table_created":
            made = event.table_created
            kind = "private" if made.visibility == common_pb2.VISIBILITY_PRIVATE else "open"
            text = f"{self.name(made.creator)} made the table: {made.seats} seats, {kind}"
            if made.HasField("race"):
                text += (
                    f", Ready window {made.race.ready_window_ms} ms, "
                    f"{made.race.hints_per_board} hints per board"
                )
        elif which == "player_seated":
            seated = event.player_seated
            text = f"{self.name(seated.player_id)} sits in seat {seated.seat}"
        elif which == "player_left":
            text = f"{self.name(event.player_left.player_id)} leaves seat {event.player_left.seat}"
        elif which == "seed_committed":
            committed = event.seed_committed
            text = f"seed committed ({committed.deal_version}): SHA-256 {committed.commitment}"
        elif which == "seed_revealed":
            text = f"seed revealed: {event.seed_revealed.seed.hex()}"
        elif which == "fill_requested":
            text = "the host asks for bots to fill the empty seats"
        elif which == "bots_assigned":
            text = f"the bots play {event.bots_assigned.strength}"
        else:
            text = f"{which}: {_short(event)}"
        self.add(section, at, text)

    def race(self, event: race_pb2.RaceEvent, at: int) -> None:
        which = event.WhichOneof("event") or ""
        body = getattr(event, which)
        board = getattr(body, "board", 0)
        if which == "game_started":
            section = self.table
        elif which == "game_ended":
            self.over = True
            section = self.end
        elif board:
            section = self.current = self.board(board)
        else:
            section = self.current
        self.t0_now = section.t0
        describe = _RACE.get(which)
        text = describe(self, body) if describe else f"{which}: {_short(body)}"
        self.add(section, getattr(body, "at", at) or at, text)
        if which == "board_revealed":
            section.footer += _revealed(self, body)
        elif which == "game_ended":
            section.footer += _standings(self, body)

    def lines(self) -> list[str]:
        for record in self.records:
            self.record(record)
        out: list[str] = []
        players = ", ".join(self.names.values()) or "nobody"
        out.append(f"players: {players}")
        sections = [self.table, *(self.boards[b] for b in sorted(self.boards)), self.end]
        for section in sections:
            if not section.lines and not section.footer:
                continue
            out.append("")
            out.append(section.title)
            for at, text in section.lines:
                offset = f"{at - section.t0:+,d} ms" if section.t0 is not None else _utc(at)
                out.append(f"  {offset:>12}  {text}")
            out += [f"  {line}" for line in section.footer]
        return out


def _short(message: Message) -> str:
    return text_format.MessageToString(message, as_one_line=True)


def _revealed(t: _Timeline, e: race_pb2.RaceEvent.BoardRevealed) -> list[str]:
    layout = list(e.layout)
    out = ["layout (tile:symbol, 4 across):"]
    for row in range(0, len(layout), 4):
        cells = [f"{row + i + 1:>2}:{s:<2}" for i, s in enumerate(layout[row : row + 4])]
        out.append("    " + "  ".join(cells))
    out.append("results:")
    for r in e.results:
        out.append(
            f"    {t.name(r.player)}: {OUTCOME.get(r.outcome, '?')}, {r.pairs} pairs, "
            f"{_n(r.turns, 'turn')}, {r.time_ms} ms, {_n(r.hints, 'hint')}"
        )
    return out


def _standings(t: _Timeline, e: race_pb2.RaceEvent.GameEnded) -> list[str]:
    out = ["standings:"]
    for s in e.standings:
        out_text = ", out" if s.out else ""
        out.append(
            f"    {s.place}. {t.name(s.player)}: {_n(s.pairs, 'pair')}, {s.time_ms} ms, "
            f"{_n(s.turns, 'turn')}, {_n(s.hints, 'hint')}{out_text}"
        )
    return out


def _player(verb: str) -> Callable[[_Timeline, Any], str]:
    return lambda t, e: f"{t.name(getattr(e, 'player', ''))} {verb}"


_RACE: dict[str, Callable[[_Timeline, Any], str]] = {
    "game_started": lambda t, e: (
        f"the game starts: {', '.join(t.name(p) for p in e.players)}; dealt with {e.deal_version}"
    ),
    "ready_opened": lambda t, e: f"Ready opens for board {e.board} until {t.rel(e.deadline)}",
    "player_ready": _player("is Ready"),
    "player_missed_ready": _player("missed Ready and is out"),
    "countdown_started": lambda t, e: f"countdown: the board starts at {t.rel(e.starts_at)}",
    "board_started": lambda t, e: "the board starts (T0)",
    "tiles_turned_down": lambda t, e: f"{t.name(e.player)}: tiles {_tiles(e.tiles)} turn face down",
    "tile_turned": lambda t, e: (
        f"{t.name(e.player)} turns tile {e.tile}: symbol {e.symbol} (turn {e.turn})"
    ),
    "pair_found": lambda t, e: (
        f"{t.name(e.player)} finds a pair: tiles {_tiles(e.tiles)}, symbol {e.symbol} "
        f"({e.pairs} pairs)"
    ),
    "attempt_missed": lambda t, e: (
        f"{t.name(e.player)} misses with tiles {_tiles(e.tiles)}: paused until "
        f"{t.rel(e.paused_until)}"
    ),
    "hint_given": lambda t, e: (
        f"{t.name(e.player)} gets a hint: tile {e.tile}'s partner is tile {e.partner} "
        f"({e.hints_used} used)"
    ),
    "turns_exhausted": _player("is out of turns"),
    "board_cleared": lambda t, e: f"{t.name(e.player)} clears the board in {e.elapsed_ms} ms",
    "clear_disqualified": lambda t, e: (
        f"{t.name(e.player)} clears in {e.elapsed_ms} ms: under 12 s, disqualified"
    ),
    "board_taken": lambda t, e: (
        f"{t.name(e.player)} takes the board; the others have until {t.rel(e.grace_until)}"
    ),
    "player_resigned": _player("resigns"),
    "board_ended": lambda t, e: f"board {e.board} ends: {END.get(e.reason, '?')}",
    "board_revealed": lambda t, e: f"board {e.board} is revealed",
    "game_ended": lambda t, e: "the game ends",
}


def timeline(game: str, records: Sequence[referee_pb2.TableRecord]) -> list[str]:
    """The readable timeline of a game's records (in order)."""
    return [f"game {game}: {len(records)} records", *_Timeline(records).lines()]
