"""A finished game's records as a readable timeline, part by part (the race's boards).

The table's game (its TableCreated, through :mod:`match_rules.registry`) tells its own events
(:meth:`match_rules.game.Game.describe`) and says where each goes (``place``): with the table,
in a numbered part of the game with its own T0 (a board), or at the end. Times are on the
referee's clock: the table's section counts from its first record, each part's from its T0 (the
event the game says starts it; anything before is negative), the end from the last part's T0.
The log is over, so every face turned is shown. Pure: records in, lines out.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from match.v1 import common_pb2, referee_pb2
from match_audit.rerun import TableError, table_game
from match_rules.game import ENDING, OPENING, PLAYING, Game, Place
from match_rules.words import count


def _utc(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _short(message: Message) -> str:
    return text_format.MessageToString(message, as_one_line=True)


@dataclass
class _Section:
    title: str
    t0: int | None
    lines: list[tuple[int, str]] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Event:
    """A game event of the log: decoded (None when the game cannot read it), and its wire."""

    event: Any
    wire: Message
    at: int


class _Timeline:
    def __init__(self, records: Sequence[referee_pb2.TableRecord]) -> None:
        self.records = records
        self.game: Game | None = None
        with contextlib.suppress(TableError):  # else no game tells its events: wire text
            self.game = table_game(records).game
        self.names: dict[str, str] = {}
        self.t0: dict[int, int] = {}
        for record in records:
            for env in record.events:
                if env.WhichOneof("body") == "table" and env.table.HasField("player_seated"):
                    seated = env.table.player_seated
                    bot = " (bot)" if seated.is_bot else ""
                    self.names[seated.player_id] = f"{seated.display_name}{bot}"
                event = self.game_event(env)
                if event is not None and event.event is not None:
                    place = self.place(event)
                    if place.starts and place.part > 0:
                        self.t0[place.part] = event.at
        start = records[0].command.received_at_ms if records else 0
        self.table = _Section(f"table (times from {_utc(start)} UTC)", start)
        self.parts: dict[int, _Section] = {}
        last_t0 = max(self.t0.values(), default=start)
        ending = self.game.heading(ENDING) if self.game is not None else "end of the game"
        self.end = _Section(ending, last_t0)
        self.current: _Section = self.table
        self.t0_now: int | None = start
        self.over = False

    # --- what the game is asked ----------------------------------------------------------

    def game_event(self, env: common_pb2.EventEnvelope) -> _Event | None:
        """The envelope's event of the table's game, or None for a table event (or another
        game's, which only a forged log holds)."""
        if self.game is None or env.WhichOneof("body") != self.game.slug:
            return None
        wire = getattr(env, self.game.slug)
        try:
            event = self.game.decode(wire)
        except Exception:  # the replay is not the verifier: show what the game cannot read
            event = None
        at = getattr(event, "at", 0)
        return _Event(event, wire, (at if isinstance(at, int) else 0) or env.server_time_ms)

    def place(self, event: _Event) -> Place:
        assert self.game is not None and event.event is not None
        return self.game.place(event.event)

    # --- the Teller ----------------------------------------------------------------------

    def when(self, ms: int) -> str:
        """An instant, relative to the T0 of the section being written."""
        return f"{ms - self.t0_now:+,d} ms" if self.t0_now is not None else f"{_utc(ms)} UTC"

    def name(self, player: str) -> str:
        return self.names.get(player, player or "?")

    # --- sections ------------------------------------------------------------------------

    def part(self, number: int) -> _Section:
        section = self.parts.get(number)
        if section is None:
            assert self.game is not None
            t0 = self.t0.get(number)
            at = f"T0 = {_utc(t0)} UTC" if t0 is not None else "never started"
            section = self.parts[number] = _Section(f"{self.game.heading(number)} ({at})", t0)
        return section

    def add(self, section: _Section, at: int, text: str) -> None:
        section.lines.append((at, text))

    # --- one record ----------------------------------------------------------------------

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
            event = self.game_event(env)
            if event is not None:
                self.game_line(event)
            elif env.HasField("table"):
                self.table_event(env.table, env.server_time_ms)
            else:
                self.add(self.current, env.server_time_ms, _short(env))

    def command(self, stamped: referee_pb2.StampedCommand) -> str:
        which = stamped.WhichOneof("command")
        if self.game is not None and which == self.game.slug:
            return self.game.describe_command(getattr(stamped, which), self)
        if which == "table":
            table = stamped.table
            kind = table.WhichOneof("command") or "nothing"
            return f"{self.name(table.player_id)}: {kind.replace('_', ' ')}"
        if which == "tick":
            return "timer"
        return f"{which or 'nothing'}: {_short(stamped)}"

    def table_event(self, event: common_pb2.TableEvent, at: int) -> None:
        which = event.WhichOneof("event")
        section = self.end if self.over else self.table
        if which == "table_created":
            made = event.table_created
            kind = "private" if made.visibility == common_pb2.VISIBILITY_PRIVATE else "open"
            text = f"{self.name(made.creator)} made the table: {count(made.seats, 'seat')}, {kind}"
            member = made.WhichOneof("settings")
            if self.game is not None and member == self.game.slug:
                text += f", {self.game.describe_settings(getattr(made, member))}"
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

    def game_line(self, event: _Event) -> None:
        if event.event is None:
            self.t0_now = self.current.t0
            self.add(self.current, event.at, f"unreadable: {_short(event.wire)}")
            return
        assert self.game is not None
        place = self.place(event)
        if place.part == OPENING:
            section = self.table
        elif place.part == ENDING:
            self.over = True
            section = self.end
        elif place.part == PLAYING:
            section = self.current
        else:
            section = self.current = self.part(place.part)
        self.t0_now = section.t0
        told = self.game.describe(event.event, self)
        self.add(section, event.at, told.text)
        section.footer += told.after

    def story(self) -> tuple[str, list[Part]]:
        """The players line and the parts that say anything, in order."""
        for record in self.records:
            self.record(record)
        players = ", ".join(self.names.values()) or "nobody"
        numbered = [(0, self.table), *((p, self.parts[p]) for p in sorted(self.parts))]
        out: list[Part] = []
        for number, section in [*numbered, (0, self.end)]:
            if not section.lines and not section.footer:
                continue
            lines: list[str] = []
            for at, text in section.lines:
                offset = f"{at - section.t0:+,d} ms" if section.t0 is not None else _utc(at)
                lines.append(f"{offset:>12}  {text}")
            lines += section.footer
            out.append(Part(number, section.title, tuple(lines)))
        return f"players: {players}", out


@dataclass(frozen=True)
class Part:
    """One part of the timeline: the table before the game (``number`` 0), a numbered part of
    the game (a board: 1, 2, ...), or the end (0, last); its lines without the indentation the
    printed timeline gives them."""

    number: int
    title: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Story:
    """A game's timeline, structured: the heading lines and the parts."""

    heading: tuple[str, ...]  # "game <id>: <n> records", "players: ..."
    parts: tuple[Part, ...]


def story(game: str, records: Sequence[referee_pb2.TableRecord]) -> Story:
    """The timeline of a game's records (in order), part by part."""
    players, parts = _Timeline(records).story()
    return Story((f"game {game}: {len(records)} records", players), tuple(parts))


def timeline(game: str, records: Sequence[referee_pb2.TableRecord]) -> list[str]:
    """The readable timeline of a game's records (in order)."""
    told = story(game, records)
    out = list(told.heading)
    for part in told.parts:
        out += ["", part.title, *(f"  {line}" for line in part.lines)]
    return out
