"""The race played from the terminal: one seat's lines (``Game``), the full-screen view's model,
and ``match watch``'s printed stream."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from match.v1 import common_pb2, race_service_pb2
from match_client.client import MatchClient, Seat, is_rpc_error, status_name
from match_client.race import text, timing
from match_client.race.tracker import RaceView, ViewTracker
from match_client.seats import SeatStore
from match_client.session import GameSession
from match_client.terminal import (
    PERMANENT,
    SNAPSHOT,
    TICK_S,
    Out,
    Settings,
    audit_line,
    describe_error,
    line_mode,
)

BOARD_DELAY_S = 0.1


async def watch(
    client: MatchClient, table_id: str, token: str, after: int, out: Out, player: str = ""
) -> int:
    tracker = ViewTracker(player=player, table_id=table_id)
    session = GameSession(client, "race", table_id, token)
    if after:
        tracker.event_number = after
    async for item in session.watch(after):
        for line in print_item(tracker, item, quiet_opponents=False):
            out(line)
    return 0


def print_item(
    tracker: ViewTracker,
    item: race_service_pb2.WatchResponse,
    quiet_opponents: bool = True,
    pairs_seen: dict[tuple[str, int], int] | None = None,
) -> list[str]:
    """Apply one Watch item to the tracker and return what to print for it."""
    if item.HasField("snapshot"):
        tracker.apply_watch(item)
        return text.snapshot_lines(tracker)
    return events_lines(tracker, [item.event], quiet_opponents, pairs_seen)


def events_lines(
    tracker: ViewTracker,
    envelopes: Sequence[common_pb2.EventEnvelope],
    quiet_opponents: bool = True,
    pairs_seen: dict[tuple[str, int], int] | None = None,
) -> list[str]:
    """Apply events (each once) and return their lines, then the board after a change to the
    player's own tiles."""
    lines, own_change = tell(tracker, envelopes, quiet_opponents, pairs_seen)
    if own_change and not tracker.board_ended:
        lines += text.board_lines(tracker)
    return lines


def tell(
    tracker: ViewTracker,
    envelopes: Sequence[common_pb2.EventEnvelope],
    quiet_opponents: bool = True,
    pairs_seen: dict[tuple[str, int], int] | None = None,
) -> tuple[list[str], bool]:
    """Apply events (each once); their lines, and whether the player's own tiles changed.
    With ``quiet_opponents``, another player's move is told only when their pairs change (a
    line per turn of everybody is too much to listen to)."""
    lines: list[str] = []
    own_change = False
    seen = pairs_seen if pairs_seen is not None else {}
    # One at a time: each is told as things stood right after it.
    for env in (e for one in envelopes for e in tracker.apply_events([one])):
        race = env.race if env.HasField("race") else None
        kind = race.WhichOneof("event") if race is not None else None
        if race is not None and kind == "opponent_moved" and quiet_opponents:
            m = race.opponent_moved
            key = (m.player, m.board)
            if seen.get(key, 0) == m.pairs:
                continue
            seen[key] = m.pairs
        if kind in ("tile_turned", "pair_found", "tiles_turned_down"):
            own_change = True
        if kind == "board_started" and tracker.status == RaceView.STATUS_PLAYING:
            own_change = True  # a fresh board to play: show it
        lines += text.event_lines(env, tracker)
    return [line for line in lines if line], own_change


class Game:
    """One seat played from the terminal: tells what the server sends, sends what is typed.

    The same for both views: ``out`` takes each line (printed in the line mode, appended to the
    event log in the full-screen view), ``show_boards`` prints the board after each own turn
    (the line mode; the full-screen view draws it), and ``changed`` is called after anything
    that may change the screen."""

    def __init__(
        self,
        client: MatchClient,
        seat: Seat,
        out: Out,
        *,
        settings: Settings | None = None,
        show_boards: bool = True,
        resumed: bool = False,
        store: SeatStore | None = None,
    ) -> None:
        self.settings = settings or Settings.from_env()
        self.client = client
        self.seat = seat
        self.session = GameSession.of(client, "race", seat)
        self.tracker = ViewTracker(player=seat.player_id, table_id=seat.table_id)
        self.clock = self.settings.server_clock()
        self.out = out
        self.show_boards = show_boards
        self.resumed = resumed
        self.store = store  # where the seat is kept for --resume (None: nowhere)
        self.changed: Callable[[], None] = lambda: None
        self.pairs_seen: dict[tuple[str, int], int] = {}
        self.said: set[tuple[str, int, int]] = set()
        self.confirm_resign = False
        self.ended = False
        # Set once the player has left the table before its game started: the client ends then
        # (the full-screen view checks it after each command; the line mode waits on it).
        self.left = asyncio.Event()
        self._board_soon: asyncio.TimerHandle | None = None

    def show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out(line)

    def now(self) -> int:
        return self.clock.now()

    async def run(self) -> int:
        """The line mode: stdin in a thread, the stream, and the clock's milestones."""
        return await line_mode(
            self.watch_until_left,
            lambda line: self.handle(text.parse_command(line)),
            self.out,
            ticks=self.ticks,
        )

    async def ticks(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            self.tick()

    def tick(self) -> None:
        """Say a clock milestone when one is due (Ready closing, the board's last minute...)."""
        self.show(timing.announcements(self.tracker, self.now(), self.said))

    def note_time(self, server_ms: int) -> None:
        self.clock.observe(server_ms)

    async def watch_until_left(self) -> None:
        """:meth:`watch` until the game is over or the player has left the table."""
        watching = asyncio.create_task(self.watch())
        leaving = asyncio.create_task(self.left.wait())
        try:
            await asyncio.wait({watching, leaving}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (watching, leaving):
                task.cancel()
            await asyncio.gather(watching, leaving, return_exceptions=True)

    @property
    def left_line(self) -> str:
        """What is said once the player has left the table ("" until then): when it happens,
        and again on the terminal once the full-screen view is gone (``run_game``)."""
        if not self.left.is_set():
            return ""
        return f"you left table {self.seat.table_id}; your seat there is free again"

    @property
    def waiting(self) -> bool:
        """The game has not started: the table still waits for players."""
        return self.tracker.phase == RaceView.PHASE_WAITING_FOR_PLAYERS

    async def watch(self) -> None:
        failures = 0
        while True:
            start = self.tracker.event_number or (SNAPSHOT if self.resumed else 0)
            try:
                async for item in self.session.watch(start, skip_answered=True):
                    failures = 0
                    if item.HasField("snapshot"):
                        self.tracker.apply_watch(item)
                        self.note_time(item.snapshot.server_time_ms)
                        self.show(text.snapshot_lines(self.tracker))
                        self.show(text.running_lines(self.tracker))
                        clock = timing.clock_line(self.tracker, self.now())
                        self.show([clock] if clock else [])
                        self.changed()
                    else:
                        self.take([item.event])
                    if self.tracker.game_over and self.tracker.seed is not None:
                        self.finish()
                        return
                if self.tracker.game_over:
                    self.finish()
                    return
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                if status_name(err) in PERMANENT:
                    self.out(f"cannot follow the table: {describe_error(err)}")
                    return
                failures += 1
                if failures == 1:
                    self.out("connection lost; reconnecting")
            await asyncio.sleep(min(0.5 * 2 ** min(failures, 4), 5.0))

    def finish(self) -> None:
        """The game is over: how anybody can check it."""
        if self.ended:
            return
        self.ended = True
        t = self.tracker
        if t.seed is not None:
            self.out("anybody can deal the three boards again from the seed and check them")
        self.out(self.audit_line)
        self.changed()

    @property
    def audit_line(self) -> str:
        t = self.tracker
        game = t.game_id or t.table_id
        return audit_line(game, self.settings)

    async def handle(self, command: text.Command) -> None:
        if command is None:
            return
        resign = isinstance(command, text.Simple) and command.name == "resign"
        if not resign:
            self.confirm_resign = False
        playing = isinstance(command, text.Turn) or (
            isinstance(command, text.Simple) and command.name in ("ready", "hint", "resign")
        )
        if playing and timing.is_out(self.tracker):
            self.out("you are out of the game: you can follow it, not play; Ctrl-D leaves")
        elif isinstance(command, text.Unknown):
            self.out(f"not a command: {command.text!r}. Type ? for help")
        elif isinstance(command, text.Turn):
            tile = command.tile
            await self.call(lambda: self.session.send("TurnTile", tile=tile))
        elif command.name == "help":
            self.out(text.HELP)
        elif command.name == "board":
            self.show(text.board_lines(self.tracker, self.now()))
        elif command.name == "scores":
            self.show(text.scores_lines(self.tracker))
        elif command.name == "time":
            self.out(timing.clock_line(self.tracker, self.now()) or "no clock is running now")
        elif command.name == "ready":
            await self.call(lambda: self.session.send("PressReady"))
        elif command.name == "hint":
            await self.call(lambda: self.session.send("RequestHint"))
        elif resign and not self.confirm_resign:
            self.confirm_resign = True
            if self.waiting:  # nothing to resign from yet: q gives the seat back instead
                self.out(
                    f"type q again to leave table {self.seat.table_id}: the game has not "
                    "started, and your seat goes back to the table"
                )
            else:
                self.out("type q again to resign: you will be out of the game")
        elif resign:
            self.confirm_resign = False
            if self.waiting:
                await self.leave()
            else:
                await self.call(lambda: self.session.send("Resign"))
        self.changed()

    async def leave(self) -> None:
        """Give the seat back before the game starts (LeaveTable), forget it where it is kept,
        then end the client. Refused (the last seat was taken meanwhile, and the game started),
        the game goes on."""
        try:
            await self.client.leave(self.seat.table_id, self.seat.token)
        except Exception as err:
            if not is_rpc_error(err):
                raise
            self.out(f"could not leave: {describe_error(err)}")
            return
        if self.store is not None:  # a seat given back is not one to resume
            with contextlib.suppress(OSError):  # left all the same: at worst a stale entry
                self.store.forget(self.seat.table_id, self.seat.player_id)
        self.left.set()
        self.out(self.left_line)

    async def call(self, send: Callable[[], Awaitable[Any]]) -> None:
        """Send a command; print the events of its reply, or the server's refusal."""
        try:
            reply = await send()
        except Exception as err:
            if not is_rpc_error(err):
                raise
            failed = status_name(err) in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN")
            self.out(f"{'error' if failed else 'refused'}: {describe_error(err)}")
            return
        self.take(reply.events)
        self.tracker.apply_counters(reply.counters)
        self.note_time(reply.counters.server_time_ms)

    def take(self, envelopes: Sequence[common_pb2.EventEnvelope]) -> None:
        """Tell new events now; the board a moment later, once for a whole turn (the reply and
        the Watch stream each bring a turn's events, in one piece or several)."""
        for env in envelopes:
            self.note_time(env.server_time_ms)
        lines, own_change = tell(self.tracker, envelopes, True, self.pairs_seen)
        self.show(lines)
        if own_change and self.show_boards and self._board_soon is None:
            self._board_soon = asyncio.get_running_loop().call_later(BOARD_DELAY_S, self.board_now)
        self.changed()

    def board_now(self) -> None:
        self._board_soon = None
        if not self.tracker.board_ended and self.tracker.status == RaceView.STATUS_PLAYING:
            self.show(text.board_lines(self.tracker, self.now()))
