"""Scripted client players for chaos runs, one per game: one seat at an open table, played
through ``match_client`` with a perfect memory, recording every event the server sent it.
:class:`ChaosPlayer` plays the race (the bots fill the other seats);
:class:`ConcentrationChaosPlayer` plays Concentration (StartTable seats CPU players, which the
rules play on the referee's timers, so they keep playing across failovers).

Every call is retried while the system is failing over: on UNAVAILABLE, CANCELLED,
DEADLINE_EXCEEDED, a lost connection, or a rate limit (after its ``retry-after-ms``), with the
same ``x-request-id``, so the referee answers a retry of a command it already decided with its
first answer instead of deciding it again. A refusal the referee gave (it carries a refusal code)
is an answer, except one in the UNAVAILABLE category ("nothing changed, try again"), which is
asked again as a new request. The Watch stream is resumed after the last event applied; a
snapshot counts as covering the events before it only when it opens a stream (a stream that
starts with a snapshot instead of the events). At a Concentration table the stream is the
player's presence: a resumed stream is their return, and the player also drops once on purpose
(its stream closed for a moment, well under the CPU's takeover time) and comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import match_client.client as client_module
from match.v1 import common_pb2, concentration_pb2, lobby_pb2, race_pb2
from match_bus.clock import Clock
from match_chaos.unavailable import WATCH, Outage
from match_client.client import (
    MatchClient,
    Seat,
    is_rpc_error,
    new_request_id,
    refusal_code,
    retry_after_ms,
    status_name,
)
from match_client.clock import ServerClock
from match_client.concentration import ConcentrationTracker
from match_client.race.tracker import RaceView, ViewTracker
from match_client.session import GameSession

T = TypeVar("T")

TILES = 20
CLEAR_NOT_BEFORE_MS = 12_500  # never a clear faster than a person could
RETRYABLE = frozenset({"UNAVAILABLE", "CANCELLED", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"})
# A call that ends with these and no refusal code comes from the transport (a lobby killed
# mid-call, a connection reset), not from the server's judgement: it is asked again too.
TRANSPORT = frozenset({"UNKNOWN", "INTERNAL"})


@dataclass(frozen=True, slots=True)
class Rpc(Generic[T]):
    """A call a player makes, ``call(request_id)``, named for the outages it may suffer."""

    name: str
    call: Callable[[str], Awaitable[T]]

    def __call__(self, request_id: str) -> Awaitable[T]:
        return self.call(request_id)


class GaveUp(Exception):
    """A call kept failing for longer than the player retries."""


@dataclass
class Received:
    """Everything one player got from the server, by event number (replies and Watch)."""

    events: dict[int, list[common_pb2.EventEnvelope]] = field(default_factory=dict)
    snapshots: list[int] = field(default_factory=list)  # event numbers snapshots were taken at

    def contiguous(self) -> int:
        """The last event number up to which nothing is missing (received, or before a snapshot
        that opened a stream): where a resumed stream must start. A reply can bring events past
        one the stream has not sent yet (a drop's own PlayerDropped, a timer's), so the last
        event *applied* may be beyond a hole."""
        last = max(self.snapshots, default=0)
        while last + 1 in self.events:
            last += 1
        return last

    def add(self, envelope: common_pb2.EventEnvelope) -> None:
        copy = common_pb2.EventEnvelope()
        copy.CopyFrom(envelope)
        self.events.setdefault(envelope.event_number, []).append(copy)


@dataclass
class Tally:
    calls: int = 0
    retries: int = 0  # the same request asked again
    fresh: int = 0  # asked again as a new request after an UNAVAILABLE refusal
    refused: int = 0
    gave_up: int = 0
    watches: int = 0  # Watch streams opened (1 + resumptions)
    drops: int = 0  # streams closed on purpose, to come back (Concentration)
    taken_over: int = 0  # seats the CPU took over because the player was away too long


def _message(err: BaseException) -> str:
    """What a failed call said, short: its details, on one line."""
    details = getattr(err, "details", None)
    text = str(details() if callable(details) else err) or status_name(err)
    return " ".join(text.split())[:120]


class RetryingClient(MatchClient):
    """``MatchClient`` whose table calls take the request id, so a retry can reuse it, on a
    connection of its own.

    gRPC shares one TCP connection between the channels of a process that have the same target
    and arguments, so every player would reach the same lobby replica (the kernel spreads
    connections, not calls, over the replicas bound to the port). A local subchannel pool gives
    each player its own connection. MatchClient takes no channel options, so its module's
    CHANNEL_OPTIONS is widened for the duration of the constructor (single-threaded).
    """

    def __init__(self, address: str, timeout: float) -> None:
        usual = client_module.CHANNEL_OPTIONS
        client_module.CHANNEL_OPTIONS = [*usual, ("grpc.use_local_subchannel_pool", 1)]
        try:
            super().__init__(address, timeout)
        finally:
            client_module.CHANNEL_OPTIONS = usual

    async def create_table_as(
        self, request_id: str, seats: int, display_name: str, ready_window_ms: int
    ) -> Seat:
        request = lobby_pb2.CreateTableRequest(
            game_kind=common_pb2.GAME_KIND_MATCH_RACE,
            seats=seats,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name=display_name,
            race=race_pb2.RaceSettings(ready_window_ms=ready_window_ms, hints_per_board=0),
        )
        session = await self.session_token()  # a signed-in player's table is the key's
        r = await self._create(
            request, timeout=self.timeout, metadata=self.metadata(session, request_id)
        )
        return Seat(r.table_id, r.player_id, r.player_token, r.seat, r.invite_code)

    async def start_table_as(self, request_id: str, table_id: str, token: str) -> lobby_pb2.Table:
        request = lobby_pb2.StartTableRequest(table_id=table_id)
        r = await self._start(
            request, timeout=self.timeout, metadata=self.metadata(token, request_id)
        )
        return r.table


class ChaosSeat:
    """One person at one table, any game: the retried calls, the Watch stream followed and
    resumed, everything received recorded. A game's player adds its table and its play."""

    def __init__(
        self,
        addr: str,
        name: str,
        clock: Clock,
        rng: random.Random,
        retry_for_s: float = 90.0,
        call_timeout_s: float = 8.0,
    ) -> None:
        self.client = RetryingClient(addr, timeout=call_timeout_s)
        self.name = name
        self.clock = ServerClock(clock.now_ms, clock.rate)
        self.rng = rng
        self.retry_for_s = retry_for_s
        self.received = Received()
        self.tally = Tally()
        self.changed = asyncio.Event()
        self.drop_after: int | None = None  # close the stream once past this event, come back
        self.drop_for_s = 0.0
        self.key: Ed25519PrivateKey | None = None  # play as this player key (signed in first)
        self.game = ""  # the game kind, for the outages
        self.outages: list[Outage] = []  # what failing calls and streams cost this player

    async def sign_in(self) -> None:
        """Sign in with ``key`` (if any), retried through the faults like every call."""
        key = self.key
        if key is not None:
            await self.retried(Rpc("SignIn", lambda _rid: self.client.sign_in(key)))

    # --- what a game's player gives ------------------------------------------------------------

    @property
    def table_id(self) -> str:
        raise NotImplementedError

    @property
    def player_id(self) -> str:
        raise NotImplementedError

    @property
    def event_number(self) -> int:
        """The last event applied."""
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        """The game is over and its seed is out."""
        raise NotImplementedError

    def stream(self, after: int) -> AsyncIterator[Any]:
        """The table's Watch stream from after ``after``: items with a snapshot or an event."""
        raise NotImplementedError

    def apply_snapshot(self, view: Any) -> None:
        raise NotImplementedError

    def take(self, events: list[common_pb2.EventEnvelope]) -> None:
        """Record and apply events (a reply's or the stream's)."""
        raise NotImplementedError

    async def close(self) -> None:
        await self.client.close()

    # --- calls ---------------------------------------------------------------------------------

    async def retried(self, call: Callable[[str], Awaitable[T]]) -> T:
        """``call(request_id)`` until it answers; the same request id while it may have been
        applied. Raises the refusal (an AioRpcError with a refusal code), or GaveUp. A call
        that failed before it was answered is noted as an outage (named by its Rpc, if any)."""
        name = call.name if isinstance(call, Rpc) else "call"
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.retry_for_s
        request_id = new_request_id()
        pause = 0.2
        self.tally.calls += 1
        failing: float | None = None  # when the first attempt that failed was sent
        noticed = 0.0  # and when its failure came back
        seen: list[str] = []
        example = ""

        def outage(gave_up: bool = False) -> None:
            if failing is not None:
                self.outages.append(
                    Outage(
                        failing, time.monotonic(), name, tuple(seen), self.game,
                        self.table_id_or_none(), gave_up, example, noticed,
                    )
                )  # fmt: skip

        while True:
            sent = time.monotonic()
            try:
                answer = await call(request_id)
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                status, code = status_name(err), refusal_code(err)
                if code is not None and status != "UNAVAILABLE":
                    outage()
                    raise  # the referee's answer
                if code is None and status not in RETRYABLE | TRANSPORT:
                    outage()
                    raise
                if failing is None:
                    failing, noticed = sent, time.monotonic()
                seen.append(f"{status} ({code})" if code else status)
                example = example or _message(err)
                if loop.time() > give_up:
                    self.tally.gave_up += 1
                    outage(gave_up=True)
                    raise GaveUp(f"{status} for {self.retry_for_s} s: {err}") from err
                if code is not None:  # refused as unavailable: nothing changed; a new request
                    request_id = new_request_id()
                    self.tally.fresh += 1
                else:
                    self.tally.retries += 1
                wait_ms = retry_after_ms(err)
                await asyncio.sleep(wait_ms / 1000 if wait_ms else pause)
                pause = min(pause * 2, 2.0)
            else:
                outage()
                return answer

    def table_id_or_none(self) -> str:
        try:
            return self.table_id
        except (AssertionError, AttributeError, NotImplementedError):
            return ""

    async def answered(self, call: Callable[[str], Awaitable[T]]) -> T | None:
        """``retried``, with a refusal (or giving up) counted and None."""
        try:
            return await self.retried(call)
        except GaveUp:
            return None
        except Exception as err:
            if not is_rpc_error(err) or refusal_code(err) is None:
                raise
            self.tally.refused += 1
            return None

    def record(self, envelope: common_pb2.EventEnvelope) -> None:
        self.received.add(envelope)

    # --- the stream ----------------------------------------------------------------------------

    async def watch(self) -> None:
        """Follow the table's Watch stream until it ends after the seed; resume after a failure
        (or a drop) from the last event received with none missing before it. A snapshot that
        opens a stream stands for the events before it (they are not sent); one later in a
        stream (Concentration's last) does not. A stream that broke is an outage until the
        next item a resumed stream brings."""
        pause = 0.2
        broke: float | None = None  # when the stream last broke, until an item comes again
        seen: list[str] = []
        example = ""
        while not self.finished:
            self.tally.watches += 1
            dropping = False
            failed = ""
            try:
                items = self.stream(self.received.contiguous())
                try:
                    first = True
                    async for item in items:
                        pause = 0.2
                        if broke is not None:
                            self.outages.append(
                                Outage(
                                    broke, time.monotonic(), WATCH, tuple(seen), self.game,
                                    self.table_id_or_none(), example=example,
                                )
                            )  # fmt: skip
                            broke, seen, example = None, [], ""
                        if item.HasField("snapshot"):
                            if first:
                                self.received.snapshots.append(item.snapshot.event_number)
                            self.apply_snapshot(item.snapshot)
                            self.clock.observe(item.snapshot.server_time_ms)
                            self.changed.set()
                        else:
                            self.take([item.event])
                        first = False
                        if self.drop_after is not None and self.event_number >= self.drop_after:
                            dropping = True
                            break
                finally:  # breaking out must end the call: that is the drop
                    close = getattr(items, "aclose", None)
                    if close is not None:
                        await close()
                failed = "" if dropping else "ended before the game"
            except Exception as err:
                if not is_rpc_error(err) or status_name(err) not in RETRYABLE | TRANSPORT:
                    raise
                failed = status_name(err)
                example = example or _message(err)
            if self.finished:
                break
            if dropping:  # away for a moment: the lobby tells the table; back on the next stream
                self.drop_after = None
                self.tally.drops += 1
                await asyncio.sleep(self.drop_for_s)
                continue
            if broke is None:
                broke = time.monotonic()
            seen.append(failed)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 2.0)

    async def wait_change(self, timeout: float) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)


class ChaosPlayer(ChaosSeat):
    """One person at a race table: creates it, starts it (the bots fill the rest), plays it
    out."""

    def __init__(
        self,
        addr: str,
        name: str,
        clock: Clock,
        rng: random.Random,
        retry_for_s: float = 90.0,
        call_timeout_s: float = 8.0,
    ) -> None:
        super().__init__(addr, name, clock, rng, retry_for_s, call_timeout_s)
        self.tracker = ViewTracker()
        self.session: GameSession | None = None
        self.memory: dict[int, int] = {}
        self.memory_board = 0
        self.readied: set[int] = set()

    @property
    def table_id(self) -> str:
        return self.tracker.table_id

    @property
    def player_id(self) -> str:
        return self.tracker.player

    @property
    def event_number(self) -> int:
        return self.tracker.event_number

    @property
    def finished(self) -> bool:
        return self.tracker.game_over and self.tracker.seed is not None

    @property
    def seat(self) -> GameSession:
        assert self.session is not None, "no seat yet"
        return self.session

    def stream(self, after: int) -> AsyncIterator[Any]:
        return self.seat.watch(after)

    def apply_snapshot(self, view: Any) -> None:
        self.tracker.apply_snapshot(view)

    async def command(self, call: Callable[[str], Awaitable[Any]]) -> None:
        """A race command: its events are recorded and applied; a refusal is only counted."""
        reply = await self.answered(call)
        if reply is None:
            return
        self.take(list(reply.events))
        self.tracker.apply_counters(reply.counters)

    def take(self, events: list[common_pb2.EventEnvelope]) -> None:
        for envelope in events:
            self.record(envelope)
        for envelope in self.tracker.apply_events(events):
            self.clock.observe(envelope.server_time_ms)
            race = envelope.race
            if envelope.HasField("race") and race.HasField("tile_turned"):
                turned = race.tile_turned
                if turned.player == self.tracker.player:
                    self.remember(turned.board, turned.tile, turned.symbol)
        self.changed.set()

    # --- the game ------------------------------------------------------------------------------

    async def play_game(self, seats: int, ready_window_ms: int) -> None:
        """Create an open table, start it, play until the game is over and the seed is out."""
        await self.sign_in()
        seat = await self.retried(
            Rpc(
                "CreateTable",
                lambda rid: self.client.create_table_as(rid, seats, self.name, ready_window_ms),
            )
        )
        self.tracker = ViewTracker(player=seat.player_id, table_id=seat.table_id)
        self.session = GameSession.of(self.client, "race", seat)
        async with asyncio.TaskGroup() as group:  # either failing ends both
            group.create_task(self.watch())
            group.create_task(self._start_and_play(seat))

    async def _start_and_play(self, seat: Seat) -> None:
        table = await self.retried(
            Rpc(
                "StartTable", lambda rid: self.client.start_table_as(rid, seat.table_id, seat.token)
            )
        )
        self.tracker.note_table(table)
        await self.play()

    async def play(self) -> None:
        while not self.tracker.game_over:
            t = self.tracker
            if (
                t.phase == RaceView.PHASE_READY
                and t.status == RaceView.STATUS_WAITING
                and t.board not in self.readied
            ):
                board = t.board
                await asyncio.sleep(self.clock.local_delay_s(self.clock.now() + 500))
                await self.command(
                    Rpc("PressReady", lambda rid: self.seat.send("PressReady", request_id=rid))
                )
                self.readied.add(board)
                continue
            if t.phase == RaceView.PHASE_PLAYING and t.status == RaceView.STATUS_PLAYING:
                await self.turn()
                continue
            await self.wait_change(0.5)

    def remember(self, board: int, tile: int, symbol: int) -> None:
        if board != self.memory_board:
            self.memory_board, self.memory = board, {}
        self.memory[tile] = symbol

    def next_tile(self) -> int:
        """A perfect memory of the player's own turns: a known pair first, else a new tile."""
        t = self.tracker
        found, showing = t.found, t.showing
        if t.board != self.memory_board:
            self.memory_board, self.memory = t.board, {}
        seen = {k: v for k, v in self.memory.items() if k not in found}
        down = [n for n in range(1, TILES + 1) if n not in found and n not in showing]
        unseen = [n for n in down if n not in seen]
        if len(showing) == 1:
            partner = [k for k, v in seen.items() if k != showing[0] and v == seen.get(showing[0])]
            return partner[0] if partner else self.rng.choice(unseen or down)
        by_symbol: dict[int, list[int]] = {}
        for k, v in sorted(seen.items()):
            by_symbol.setdefault(v, []).append(k)
        for tiles in by_symbol.values():
            free = [k for k in tiles if k not in showing]
            if len(tiles) == 2 and free:
                return free[0]
        return self.rng.choice(unseen or down)

    async def turn(self) -> None:
        t = self.tracker
        board, found, showing = t.board, t.found, t.showing
        tile = self.next_tile()
        at = self.clock.now() + self.rng.randint(1000, 2500)  # thinking, in game time
        if t.paused_until_ms:
            at = max(at, t.paused_until_ms + 50)
        if len(found) >= TILES - 2:
            at = max(at, t.starts_at_ms + CLEAR_NOT_BEFORE_MS)
        await asyncio.sleep(max(self.clock.local_delay_s(at), 0.02))
        if (t.board, t.found, t.showing) != (board, found, showing):
            return
        if t.status != RaceView.STATUS_PLAYING:
            return
        await self.command(
            Rpc("TurnTile", lambda rid: self.seat.send("TurnTile", request_id=rid, tile=tile))
        )


class ConcentrationChaosPlayer(ChaosSeat):
    """One person at a Concentration table: creates it, starts it (CPU players take the other
    seats, played by the rules on the referee's timers), and plays its turns with a perfect
    memory of every face flipped at the table: a pair it knows, else a card it never saw."""

    def __init__(
        self,
        addr: str,
        name: str,
        clock: Clock,
        rng: random.Random,
        retry_for_s: float = 90.0,
        call_timeout_s: float = 8.0,
    ) -> None:
        super().__init__(addr, name, clock, rng, retry_for_s, call_timeout_s)
        self.tracker = ConcentrationTracker()
        self.session: GameSession | None = None

    @property
    def table_id(self) -> str:
        return self.tracker.table_id

    @property
    def player_id(self) -> str:
        return self.tracker.player

    @property
    def event_number(self) -> int:
        return self.tracker.event_number

    @property
    def finished(self) -> bool:
        return self.tracker.game_over and self.tracker.seed is not None

    @property
    def seat(self) -> GameSession:
        assert self.session is not None, "no seat yet"
        return self.session

    def stream(self, after: int) -> AsyncIterator[Any]:
        return self.seat.watch(after)

    def apply_snapshot(self, view: Any) -> None:
        self.tracker.apply_snapshot(view)

    def take(self, events: list[common_pb2.EventEnvelope]) -> None:
        for envelope in events:
            self.record(envelope)
        for envelope in self.tracker.apply_events(events):
            self.clock.observe(envelope.server_time_ms)
            game = envelope.concentration
            handed = envelope.HasField("concentration") and game.HasField("seat_handed_to_cpu")
            if handed and game.seat_handed_to_cpu.player == self.tracker.player:
                self.tally.taken_over += 1
        self.changed.set()

    # --- the game ------------------------------------------------------------------------------

    async def play_game(
        self, seats: int, settings: concentration_pb2.ConcentrationSettings | None = None
    ) -> None:
        """Create an open table, start it, play until the game is over and the seed is out."""
        await self.sign_in()
        seat = await self.retried(
            Rpc(
                "CreateTable",
                lambda rid: self.client.create_table(
                    settings or concentration_pb2.ConcentrationSettings(),
                    seats=seats,
                    display_name=self.name,
                    request_id=rid,
                ),
            )
        )
        self.tracker = ConcentrationTracker(player=seat.player_id, table_id=seat.table_id)
        self.session = GameSession.of(self.client, "concentration", seat)
        async with asyncio.TaskGroup() as group:  # either failing ends both
            group.create_task(self.watch())
            group.create_task(self._start_and_play(seat))

    async def _start_and_play(self, seat: Seat) -> None:
        table = await self.retried(
            Rpc(
                "StartTable",
                lambda rid: self.client.start_table(seat.table_id, seat.token, request_id=rid),
            )
        )
        self.tracker.note_table(table)
        await self.play()

    async def play(self) -> None:
        t = self.tracker
        while not t.game_over:
            if t.started and t.my_turn and not t.i_am_cpu and len(t.up) < 2:
                await self.turn()
                continue
            await self.wait_change(0.5)

    def next_card(self) -> int | None:
        """The perfect memory: the partner of a face showing, a pair already seen, else a card
        nobody flipped yet, else any face-down card."""
        t = self.tracker
        up = t.up
        if up:
            partner = t.partner_of(up[0])
            if partner is not None:
                return partner
        elif (known := t.known_pair()) is not None:
            return known[0]
        choices = t.unknown(besides=up) or t.face_down(besides=up)
        return self.rng.choice(choices) if choices else None

    async def turn(self) -> None:
        t = self.tracker
        before = t.event_number
        card = self.next_card()
        if card is None:
            await self.wait_change(0.5)
            return
        at = self.clock.now() + self.rng.randint(300, 1500)  # thinking, in game time
        await asyncio.sleep(max(self.clock.local_delay_s(at), 0.02))
        if t.event_number != before or not t.my_turn or t.i_am_cpu:
            return  # something happened meanwhile (a timer, a drop): look again
        reply = await self.answered(
            Rpc("FlipCard", lambda rid: self.seat.send("FlipCard", request_id=rid, card=card))
        )
        if reply is not None:
            self.take(list(reply.events))
        elif t.event_number == before:
            await self.wait_change(0.5)  # refused: wait for the stream to say why


class TrackedSeat(ChaosSeat):
    """A seat whose table is folded by one of match_client's trackers (a ``TableFollower``:
    ``table_id``, ``player``, ``event_number``, ``game_over``, ``seed``, ``apply_events``,
    ``apply_snapshot``) and whose session has ``watch(after)``: what every game's chaos player
    beyond the race and Concentration shares. A game's module sets ``tracker`` and ``session``
    once it has its seat, and plays."""

    tracker: Any
    session: Any = None

    @property
    def table_id(self) -> str:
        return str(self.tracker.table_id)

    @property
    def player_id(self) -> str:
        return str(self.tracker.player)

    @property
    def event_number(self) -> int:
        return int(self.tracker.event_number)

    @property
    def finished(self) -> bool:
        return bool(self.tracker.game_over) and self.tracker.seed is not None

    def stream(self, after: int) -> AsyncIterator[Any]:
        assert self.session is not None, "no seat yet"
        return self.session.watch(after)  # type: ignore[no-any-return]

    def apply_snapshot(self, view: Any) -> None:
        self.tracker.apply_snapshot(view)

    def take(self, events: list[common_pb2.EventEnvelope]) -> None:
        """The stream's events (in order): recorded and folded."""
        for envelope in events:
            self.record(envelope)
        for envelope in self.tracker.apply_events(events):
            self.clock.observe(envelope.server_time_ms)
        self.changed.set()

    async def think(self, low_ms: int, high_ms: int) -> None:
        """A person's pause before a move, in game time."""
        at = self.clock.now() + self.rng.randint(low_ms, high_ms)
        await asyncio.sleep(max(self.clock.local_delay_s(at), 0.02))

    async def follow_and_play(self, play: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """The stream and the play together until the game is over and its seed out; either
        failing ends both."""
        async with asyncio.TaskGroup() as group:
            group.create_task(self.watch())
            group.create_task(play())
