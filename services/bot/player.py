"""One bot seat: watch the table, press Ready, play the board at a human pace, stop at the end.

The seat plays at the strength the table's ``BotsAssigned`` event names (drawn from the seed by
the deal, public to everybody), or at ``BOT_FORCE_STRENGTH`` when the operator set one. What it
remembers, what it turns and how long it thinks are the race's pure ``match_rules.race.bot``.

A seat taken over from another bot replica (``resume=True``, services/bot/seats.py) starts from a
snapshot of the table, not its history: the faces the dead replica saw are forgotten, as a person
who loses their train of thought forgets them; it knows what is up on its board now and nothing
more. While its replica may not act (``may_act``: its heartbeat could lapse, so another replica
may take the seat) it sends nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

import structlog

from match.v1 import common_pb2, race_service_pb2, views_pb2
from match_client.client import (
    PlayerSession,
    Seat,
    error_details,
    is_rpc_error,
    new_request_id,
    refusal_code,
    status_name,
)
from match_client.clock import ServerClock
from match_client.tracker import RaceView, ViewTracker
from match_rules.deal import Strength
from match_rules.race import bot
from services.bot import metrics

# Statuses after which watching again cannot help: the seat is gone or was never ours.
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
# Statuses that say nothing about whether a command took effect.
UNKNOWN_OUTCOME = {"UNAVAILABLE", "DEADLINE_EXCEEDED", "UNKNOWN", "INTERNAL", "CANCELLED"}
MIN_SLEEP_S = 0.05  # every loop sleeps at least this long: never a tight loop
RETRY_SLEEP_S = 0.3
MAX_WATCH_FAILURES = 60
# Watch after an event number beyond any table's last: the lobby answers with a snapshot.
FORGET_AFTER = 2**63 - 1


class SeatEnd(Enum):
    """Why a seat's task ended."""

    GAME_OVER = "game_over"
    OUT = "out"  # out of the game: nothing left to do
    REFUSED = "refused"  # the lobby refuses the seat for good (token, table)
    GAVE_UP = "gave_up"  # the Watch stream kept failing; the seat may be played again later
    HANDED_OVER = "handed_over"  # another replica plays it now


def _always() -> bool:
    return True


class SeatPlayer:
    def __init__(
        self,
        session: PlayerSession,
        seat: Seat,
        *,
        pace: float = 1.0,
        poll_s: float = 0.5,
        rng: random.Random | None = None,
        memory_rng: random.Random | None = None,
        clock: ServerClock | None = None,
        force_strength: Strength | None = None,
        resume: bool = False,
        strength: str = "",
        may_act: Callable[[], bool] = _always,
        on_strength: Callable[[str], None] | None = None,
    ) -> None:
        self.session = session
        self.seat = seat
        self.pace = pace
        self.poll_s = poll_s
        # Seeded per seat and game (a table holds one game): choices and thinking times from
        # one stream, forgetting from another, so what is forgotten depends only on the turns.
        self.rng = rng or bot.seat_rng(seat.table_id, seat.player_id, "play")
        self.clock = clock or ServerClock()
        self.tracker = ViewTracker(player=seat.player_id, table_id=seat.table_id)
        self.forced = force_strength
        self.shown: str | None = None  # what the table's BotsAssigned said, once seen
        self.strength = force_strength or bot.DEFAULT_STRENGTH
        self.memory = bot.Memory(
            profile=bot.PROFILES[self.strength],
            rng=memory_rng or bot.seat_rng(seat.table_id, seat.player_id, "memory"),
        )
        self.readied: set[int] = set()
        self.finished = False
        self.ended: SeatEnd | None = None
        self.resume = resume
        self.may_act = may_act
        self.on_strength = on_strength
        self._changed = asyncio.Event()
        self.log = structlog.get_logger().bind(table=seat.table_id, player=seat.player_id)
        if strength:  # what the table showed, as the seat's record kept it
            self.assign(strength)

    # --- what the bot learns -------------------------------------------------------------

    def observe_watch(self, item: race_service_pb2.WatchResponse) -> None:
        if item.HasField("snapshot"):
            self.tracker.apply_watch(item)
            self.clock.observe(item.snapshot.server_time_ms)
            # Faces of turns whose events were missed are not remembered; what is up now is
            # seen again at every decision (the tracker holds it).
            self.memory.catch_up(self.tracker.board, self.tracker.turns)
        else:
            self.observe_events([item.event])
        self._changed.set()

    def observe_events(
        self,
        events: Iterable[common_pb2.EventEnvelope],
        counters: views_pb2.RaceCounters | None = None,
    ) -> None:
        events = list(events)
        for env in events:
            self.clock.observe(env.server_time_ms)
            if env.HasField("race") and env.race.HasField("tile_turned"):
                e = env.race.tile_turned
                if e.player == self.seat.player_id:
                    self.memory.see(e.board, e.tile, e.symbol, e.turn)
            elif env.HasField("table") and env.table.HasField("bots_assigned"):
                self.assign(env.table.bots_assigned.strength)
        self.tracker.apply_events(events)
        if counters is not None:
            self.clock.observe(counters.server_time_ms)
            self.tracker.apply_counters(counters)
        self._changed.set()

    def assign(self, shown: str) -> None:
        """The table's BotsAssigned: the strength every bot at the table plays this game."""
        if shown == self.shown:
            return  # the reply and the stream both carry it
        self.shown = shown
        if self.on_strength is not None:
            self.on_strength(shown)
        drawn = bot.parse_strength(shown)
        if self.forced is not None:
            self.log.info("strength forced", strength=self.forced.value, drawn=shown)
        elif drawn is None:
            self.log.warning(
                "no strength shown; playing the default", shown=shown, strength=self.strength.value
            )
        else:
            self.log.info("strength", strength=drawn.value)
            self.strength = drawn
            self.memory.profile = bot.PROFILES[drawn]

    def end(self, why: SeatEnd) -> None:
        """Stop playing the seat (the first reason given is kept)."""
        if self.ended is None:
            self.ended = why
        self.finished = True
        self._changed.set()

    def hand_over(self) -> None:
        """Another replica plays the seat now: stop at once, send nothing more."""
        self.log.warning("seat taken over by another replica; stopping")
        self.end(SeatEnd.HANDED_OVER)

    async def wait_change(self, timeout: float) -> None:
        """Until something new arrives, or ``timeout`` seconds (at least a little while)."""
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), max(timeout, MIN_SLEEP_S))

    # --- the tasks -----------------------------------------------------------------------

    async def run(self) -> None:
        """Play the seat until the game is over (or the seat is lost)."""
        self.log.info("seat taken", seat=self.seat.seat, resumed=self.resume)
        watcher = asyncio.create_task(self.watch())
        try:
            await self.act()
        finally:
            self.finished = True
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher
        ended = self.ended.value if self.ended is not None else None
        self.log.info("seat done", game_over=self.tracker.game_over, ended=ended)

    async def watch(self) -> None:
        """Follow the table; when the stream breaks, resume after the last event seen."""
        failures = 0
        while not self.finished:
            after = self.tracker.event_number
            if not after and self.resume:
                after = FORGET_AFTER  # a snapshot: what is up now, not the faces seen before
            try:
                async for item in self.session.watch(after):
                    failures = 0
                    self.observe_watch(item)
                if self.tracker.game_over:
                    return
                self.log.info("watch ended early; resuming", after=self.tracker.event_number)
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                status = status_name(err)
                if status in PERMANENT or refusal_code(err) == "table_expired":
                    self.log.warning("watch refused; giving up the seat", status=status)
                    self.end(SeatEnd.REFUSED)
                    return
                failures += 1
                self.log.info("watch broke; resuming", status=status, failures=failures)
                if failures >= MAX_WATCH_FAILURES:
                    self.log.warning("watch keeps failing; giving up the seat")
                    self.end(SeatEnd.GAVE_UP)
                    return
            await asyncio.sleep(min(0.2 * 2 ** min(failures, 5), 5.0))

    async def act(self) -> None:
        finished_counted = False
        while not self.finished:
            t = self.tracker
            if t.game_over:
                if not finished_counted:
                    metrics.GAMES_FINISHED.inc()
                    finished_counted = True
                self.log.info("game over", standings=[(s.player, s.place) for s in t.standings])
                self.end(SeatEnd.GAME_OVER)
                return
            if t.status == RaceView.STATUS_OUT:
                self.log.info("out of the game")
                self.end(SeatEnd.OUT)
                return
            if not self.may_act():
                await self.wait_change(self.poll_s)  # the replica's lease is in doubt
            elif (
                t.phase == RaceView.PHASE_READY
                and t.status == RaceView.STATUS_WAITING
                and t.board not in self.readied
            ):
                await self.press_ready(t.board)
            elif t.phase == RaceView.PHASE_PLAYING and t.status == RaceView.STATUS_PLAYING:
                await self.play_turn()
            else:
                await self.wait_change(self.poll_s)

    async def press_ready(self, board: int) -> None:
        await asyncio.sleep(bot.ready_delay_ms(self.rng, self.pace) / 1000)
        if self.finished or not self.may_act():
            return
        try:
            reply = await self.session.press_ready()
        except Exception as err:
            if not is_rpc_error(err):
                raise
            code = refusal_code(err)
            self.log.info("ready refused", code=code, message=error_details(err))
            if code == "already_ready":
                self.readied.add(board)
            await self.wait_change(RETRY_SLEEP_S)
            return
        self.readied.add(board)
        self.observe_events(reply.events, reply.counters)

    async def play_turn(self) -> None:
        t = self.tracker
        board = t.board
        self.memory.start(board)
        found, turned = t.found, t.showing
        visible = {n: v.symbol for n, v in t.tiles.items() if v.up and v.symbol is not None}
        known = bot.known_faces(self.memory.recall(), visible)
        move = bot.next_move(known, found, turned, self.rng, self.memory.profile.slip)
        if move is None:
            await self.wait_change(self.poll_s)
            return
        clearing = bot.may_clear(found)
        if clearing and not t.starts_at_ms:  # T0 unknown: never risk a clear under 12 s
            await self.wait_change(self.poll_s)
            return
        think = bot.think_ms(self.rng, self.pace, bot.think_kind(turned, move))
        at = bot.earliest_turn_ms(
            now_ms=self.clock.now(),
            think=self.clock.server_ms(think),  # a person's pace on the wall clock
            starts_at_ms=t.starts_at_ms,
            paused_until_ms=t.paused_until_ms,
            clearing=clearing,
        )
        await asyncio.sleep(max(self.clock.local_delay_s(at), MIN_SLEEP_S))
        if (
            self.finished
            or not self.may_act()
            or t.board != board
            or t.status != RaceView.STATUS_PLAYING
            or t.found != found
            or t.showing != turned
        ):
            return  # something changed while thinking: decide again
        if clearing and self.clock.now() < t.starts_at_ms + bot.CLEAR_NOT_BEFORE_MS:
            return  # never finish a board under 12.5 s after T0
        await self.send_turn(move.tile)

    async def send_turn(self, tile: int) -> None:
        request_id = new_request_id()
        for attempt in range(3):
            if self.finished or not self.may_act():
                return
            try:
                reply = await self.session.turn(tile, request_id=request_id)
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                if await self._turn_failed(err, tile, attempt):
                    continue
                return
            metrics.TURNS.inc()
            self.observe_events(reply.events, reply.counters)
            return

    async def _turn_failed(self, err: Any, tile: int, attempt: int) -> bool:
        """Log a failed turn and wait a little; True to send the same turn again."""
        code = refusal_code(err)
        status = status_name(err)
        if code is None and status in UNKNOWN_OUTCOME and attempt < 2:
            # The turn may or may not have landed: send it again under the same request id.
            self.log.info("turn unanswered; retrying", tile=tile, status=status)
            await asyncio.sleep(RETRY_SLEEP_S)
            return True
        if code is None:
            self.log.info("turn failed", tile=tile, status=status, message=error_details(err))
        else:
            self.log.info("turn refused", tile=tile, code=code, message=error_details(err))
        if code == "paused":
            await asyncio.sleep(0.2)
        elif code in ("board_over", "board_not_started", "game_over", "player_out"):
            await self.wait_change(self.poll_s)
        elif code == "not_seated" or status in PERMANENT - {"INVALID_ARGUMENT"}:
            self.end(SeatEnd.REFUSED)
        else:
            await self.wait_change(RETRY_SLEEP_S)
        return False
