"""One bot seat of any game with a bot player: watch the table, play it, stop at the end.

What the seat does and when is the game's pure :class:`match_rules.game.BotSeat` (``game.bot``);
this is its I/O: it feeds it the seat's Watch stream and the replies of its commands, keeps the
server's clock, sleeps as each :class:`~match_rules.game.BotCall` says and sends it to the
game's service (match_client.session), retrying a call whose outcome is unknown under the same
request id.

A seat taken over from another bot replica (``resume=True``, services/bot/seats.py) starts from a
snapshot of the table, not its history: the faces the dead replica saw are forgotten, as a person
who loses their train of thought forgets them; it knows what is up now and nothing more. While
its replica may not act (``may_act``: its heartbeat could lapse, so another replica may take the
seat) it sends nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from enum import Enum
from typing import Protocol

import structlog
from google.protobuf.message import Message

from match_client.client import (
    Seat,
    error_details,
    is_rpc_error,
    new_request_id,
    refusal_code,
    status_name,
)
from match_client.clock import ServerClock
from match_rules.deal import Strength
from match_rules.game import BotCall, BotEnd, BotSeat, Reaction
from services.bot import metrics

# Statuses after which watching again cannot help: the seat is gone or was never ours.
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
# Statuses that say nothing about whether a command took effect.
UNKNOWN_OUTCOME = {"UNAVAILABLE", "DEADLINE_EXCEEDED", "UNKNOWN", "INTERNAL", "CANCELLED"}
MIN_SLEEP_S = 0.05  # every loop sleeps at least this long: never a tight loop
RETRY_SLEEP_S = 0.3
PAUSE_SLEEP_S = 0.2
MAX_WATCH_FAILURES = 60
# Watch after an event number beyond any table's last: the lobby answers with a snapshot.
FORGET_AFTER = 2**63 - 1


class Session(Protocol):
    """One seat's calls to its game's service (match_client.session.GameSession: over the
    seat's Play stream, one per bot seat, closed when the seat's task ends)."""

    def watch(
        self, after_event_number: int = 0, skip_answered: bool = False
    ) -> AsyncIterator[Message]: ...

    async def call(self, rpc: str, request: Message, request_id: str | None = None) -> Message: ...


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
        session: Session,
        seat: Seat,
        policy: BotSeat,
        *,
        poll_s: float = 0.5,
        clock: ServerClock | None = None,
        resume: bool = False,
        may_act: Callable[[], bool] = _always,
        on_strength: Callable[[str], None] | None = None,
        forced: bool = False,
    ) -> None:
        self.session = session
        self.seat = seat
        self.policy = policy
        self.poll_s = poll_s
        self.clock = clock or ServerClock()
        self.finished = False
        self.ended: SeatEnd | None = None
        self.resume = resume
        self.may_act = may_act
        self.on_strength = on_strength
        self.forced = forced  # the operator's BOT_FORCE_STRENGTH: played whatever is shown
        self._changed = asyncio.Event()
        self.log = structlog.get_logger().bind(table=seat.table_id, player=seat.player_id)
        self.shown: str | None = None
        self._strength_news()  # what the table showed, as the seat's record kept it

    @property
    def strength(self) -> Strength:
        return self.policy.strength

    # --- what the bot learns -------------------------------------------------------------

    def observe(self, item: Message) -> None:
        """One item of the seat's Watch stream."""
        self.clock.observe(self.policy.observe(item))
        self._strength_news()
        self._changed.set()

    def _answered(self, call: BotCall, reply: Message) -> None:
        self.clock.observe(self.policy.answered(call, reply))
        self._strength_news()
        self._changed.set()

    def _strength_news(self) -> None:
        """Pass on the strength the table's BotsAssigned showed, once."""
        shown = self.policy.shown
        if shown is None or shown == self.shown:
            return
        self.shown = shown
        if self.on_strength is not None:
            self.on_strength(shown)
        playing = self.policy.strength.value
        if self.forced:
            self.log.info("strength forced", strength=playing, drawn=shown)
        elif playing != shown.strip().lower():
            self.log.warning(
                "no strength shown; playing the default", shown=shown, strength=playing
            )
        else:
            self.log.info("strength", strength=playing)

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
            close = getattr(self.session, "close", None)  # the seat's Play stream, if open
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()
        ended = self.ended.value if self.ended is not None else None
        game_over = self.policy.ended() is BotEnd.GAME_OVER
        self.log.info("seat done", game_over=game_over, ended=ended)

    async def watch(self) -> None:
        """Follow the table; when the stream breaks, resume after the last event seen."""
        failures = 0
        while not self.finished:
            after = self.policy.event_number
            if not after and self.resume:
                after = FORGET_AFTER  # a snapshot: what is up now, not the faces seen before
            try:
                # The view leaves out what the seat's own replies carried: the policy folds the
                # replies' events with the view's, in number order, each once (docs/client.md)
                async for item in self.session.watch(after, skip_answered=True):
                    failures = 0
                    self.observe(item)
                if self.policy.ended() is BotEnd.GAME_OVER:
                    return
                self.log.info("watch ended early; resuming", after=self.policy.event_number)
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
        while not self.finished:
            ended = self.policy.ended()
            if ended is BotEnd.GAME_OVER:
                metrics.GAMES_FINISHED.inc()
                self.log.info("game over")
                self.end(SeatEnd.GAME_OVER)
                return
            if ended is BotEnd.OUT:
                self.log.info("out of the game")
                self.end(SeatEnd.OUT)
                return
            if not self.may_act():
                await self.wait_change(self.poll_s)  # the replica's lease is in doubt
                continue
            call = self.policy.decide(self.clock.now())
            if call is None:
                await self.wait_change(self.poll_s)
            else:
                await self.play(call)

    async def play(self, call: BotCall) -> None:
        """Wait as ``call`` says, then send it if it still holds."""
        if call.at_ms:
            await asyncio.sleep(max(self.clock.local_delay_s(call.at_ms), MIN_SLEEP_S))
        else:
            await asyncio.sleep(call.after_ms / 1000)
        if self.finished or not self.may_act():
            return
        if not self.policy.still(call, self.clock.now()):
            return  # something changed while thinking: decide again
        await self.send(call)

    async def send(self, call: BotCall) -> None:
        request_id = new_request_id()
        for attempt in range(call.attempts):
            if self.finished or not self.may_act():
                return
            try:
                reply = await self.session.call(call.rpc, call.request, request_id=request_id)
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                if await self._failed(call, err, attempt):
                    continue
                return
            if call.move:
                metrics.TURNS.inc()
            self._answered(call, reply)
            return

    async def _failed(self, call: BotCall, err: BaseException, attempt: int) -> bool:
        """Log a failed call and wait as the game says; True to send the same call again."""
        code = refusal_code(err)
        status = status_name(err)
        if code is None and status in UNKNOWN_OUTCOME and attempt < call.attempts - 1:
            # The call may or may not have landed: send it again under the same request id.
            self.log.info("command unanswered; retrying", rpc=call.rpc, status=status)
            await asyncio.sleep(RETRY_SLEEP_S)
            return True
        if code is None:
            self.log.info("command failed", rpc=call.rpc, status=status, message=error_details(err))
        else:
            self.log.info("command refused", rpc=call.rpc, code=code, message=error_details(err))
        reaction = self.policy.refused(call, code, status)
        if reaction is Reaction.PAUSE:
            await asyncio.sleep(PAUSE_SLEEP_S)
        elif reaction is Reaction.WAIT:
            await self.wait_change(self.poll_s)
        elif reaction is Reaction.STOP:
            self.end(SeatEnd.REFUSED)
        else:
            await self.wait_change(RETRY_SLEEP_S)
        return False
