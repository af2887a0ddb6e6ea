"""Scripted 2-player private tables over the real gRPC API, for load.

A player knows its boards' layouts from the dealer's internal subject (the bench's privilege, as
in the end-to-end tests), so it turns pairs and never misses: no pause, every turn is accepted.
It never turns a face-up tile. The rules disqualify a clear under 12 s, so the last pair of a
board waits until 12.1 s after the player's first turn on it.

Like a client app that watches its table, a player waits for Ready to open and for the board's
T0 instead of asking again and again (each refused command costs the referee an appended record):
the two players of a table share what their replies said (``Signals``), and fall back to asking
every poll interval when no reply said it (a board ended by a timer).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from nats.aio.client import Client

from match.v1 import (
    common_pb2,
    dealer_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_pb2,
    race_service_pb2,
)
from match_bench import transport
from match_bus import subjects
from match_client.client import refusal_code

LAST_PAIR_NOT_BEFORE_MS = 12_100  # FASTEST_HONEST_CLEAR_MS + margin, from the first turn
READY_WINDOW_MS = 120_000


@dataclass
class Stats:
    """What one measurement window saw (latencies of accepted TurnTile calls, in seconds)."""

    latencies: list[float] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0

    @property
    def accepted(self) -> int:
        return len(self.latencies)


@dataclass
class Sink:
    """Where players record: the bench swaps ``stats`` at window boundaries.

    ``in_flight`` is the number of calls under way; ``flight_area`` integrates it over time
    (call-seconds), so a window's time-weighted mean is its growth over the window's length.
    """

    stats: Stats = field(default_factory=Stats)
    in_flight: int = 0
    flight_area: float = 0.0
    _changed: float = field(default_factory=time.perf_counter)
    # At full speed: at most this many TurnTile calls in flight (a closed loop, like the bare
    # chain's callers); a player that finds them all taken waits here, outside the latency.
    limit: asyncio.Semaphore | None = None
    waiting: int = 0  # players ready to turn, queued for a slot of ``limit``

    def area(self) -> float:
        """Call-seconds in flight so far."""
        now = time.perf_counter()
        self.flight_area += self.in_flight * (now - self._changed)
        self._changed = now
        return self.flight_area

    def enter(self) -> None:
        self.area()
        self.in_flight += 1

    def leave(self) -> None:
        self.area()
        self.in_flight -= 1

    async def slot(self) -> None:
        """Wait for a slot of ``limit`` (at full speed); counted in ``waiting`` meanwhile."""
        if self.limit is None:
            return
        self.waiting += 1
        try:
            await self.limit.acquire()
        finally:
            self.waiting -= 1

    def free(self) -> None:
        if self.limit is not None:
            self.limit.release()


class Channels:
    """A few gRPC connections, round-robin: one HTTP/2 connection would cap the concurrency.
    (Channels with the same settings share one connection unless each has its own subchannel
    pool.)"""

    def __init__(self, addr: str, count: int = 8) -> None:
        options = [("grpc.use_local_subchannel_pool", 1)]
        self.channels = [grpc.aio.insecure_channel(addr, options=options) for _ in range(count)]
        self._next = itertools.cycle(range(count))

    def pick(self) -> grpc.aio.Channel:
        return self.channels[next(self._next)]

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()


def pairs_of(layout: list[int]) -> list[int]:
    """The tiles in an order that only ever pairs: a1, b1, a2, b2, ..."""
    where: dict[int, list[int]] = {}
    for tile, symbol in enumerate(layout, start=1):
        where.setdefault(symbol, []).append(tile)
    return [t for tiles in where.values() for t in tiles]


async def fetch_layouts(nc: Client, table_id: str) -> list[list[int]]:
    request = dealer_pb2.DealRequest(
        table_id=table_id, game_id=table_id, game_kind=common_pb2.GAME_KIND_MATCH_RACE
    )
    msg = await nc.request(subjects.DEALER_DEAL, request.SerializeToString(), 10)
    deal = dealer_pb2.DealResponse.FromString(msg.data).deal
    return [list(b.layout) for b in deal.race.boards]


async def pause(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, or less when ``stop`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


class Signals:
    """What the replies of a table's players said about its boards: Ready opened, and T0."""

    def __init__(self) -> None:
        self.opened: dict[int, asyncio.Event] = {}
        self.started: dict[int, asyncio.Event] = {}
        self.starts_at_ms: dict[int, int] = {}

    def event(self, kind: dict[int, asyncio.Event], board: int) -> asyncio.Event:
        return kind.setdefault(board, asyncio.Event())

    def note(self, events: Any) -> None:
        for envelope in events:
            if not envelope.HasField("race"):
                continue
            which = envelope.race.WhichOneof("event")
            if which == "ready_opened":
                self.event(self.opened, envelope.race.ready_opened.board).set()
            elif which == "countdown_started":
                body = envelope.race.countdown_started
                self.starts_at_ms[body.board] = body.starts_at
                self.event(self.started, body.board).set()

    async def wait(self, kind: dict[int, asyncio.Event], board: int, stop: asyncio.Event) -> bool:
        """Until the signal or ``stop``, at most 5 s; False when it did not come."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                waiting = asyncio.ensure_future(self.event(kind, board).wait())
                stopping = asyncio.ensure_future(stop.wait())
                try:
                    await asyncio.wait((waiting, stopping), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waiting.cancel()
                    stopping.cancel()
        return self.event(kind, board).is_set()


class Player:
    """One seat of a race table. It makes or joins its table with the lobby's stub and sends
    its game's commands (PressReady, TurnTile, Resign) through its seat's transport
    (match_bench.transport, ``via``: "play" or "unary")."""

    def __init__(self, name: str, channel: grpc.aio.Channel, via: str = "unary") -> None:
        self.name = name
        self.channel = channel
        self.via = via
        self.lobby: Any = lobby_pb2_grpc.LobbyServiceStub(channel)  # type: ignore[no-untyped-call, unused-ignore]
        self.seat: transport.Transport | None = None  # once seated
        self.table_id = ""
        self.token = ""
        self.layouts: list[list[int]] = []
        self.board = 1
        self.signals = Signals()

    def seated(self, table_id: str, token: str) -> None:
        self.table_id, self.token = table_id, token
        self.seat = transport.make(self.via, self.channel, "race", token)

    async def send(self, rpc: str, request: Any) -> Any:
        assert self.seat is not None, "not seated"
        return await self.seat.send(rpc, request)

    async def create(self) -> str:
        reply = await self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=common_pb2.GAME_KIND_MATCH_RACE,
                seats=2,
                visibility=common_pb2.VISIBILITY_PRIVATE,
                display_name=self.name,
                race=race_pb2.RaceSettings(ready_window_ms=READY_WINDOW_MS, hints_per_board=0),
            ),
            timeout=60,
        )
        self.seated(reply.table_id, reply.player_token)
        return str(reply.invite_code)

    async def join(self, invite_code: str) -> None:
        reply = await self.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(display_name=self.name, invite_code=invite_code), timeout=60
        )
        self.seated(reply.table_id, reply.player_token)

    async def ready(self, stop: asyncio.Event, poll: float) -> bool:
        """Press Ready for the next board once it opens; False when the game is over."""
        await self.signals.wait(self.signals.opened, self.board, stop)
        while not stop.is_set():
            try:
                reply = await self.send(
                    "PressReady", race_service_pb2.PressReadyRequest(table_id=self.table_id)
                )
                self.signals.note(reply.events)
                return True
            except grpc.aio.AioRpcError as error:
                code = refusal_code(error)
                if code == "already_ready":
                    return True
                if code in ("game_over", "player_out", "not_seated"):
                    return False
                if code != "ready_not_open" and error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise
            await asyncio.sleep(poll)
        return False

    async def play_board(self, sink: Sink, stop: asyncio.Event, interval: float) -> bool:
        """Clear the current board; False when the game is over for this player."""
        order = pairs_of(self.layouts[self.board - 1])
        first_ms = 0
        poll = max(interval, 0.05)
        i = 0
        if await self.signals.wait(self.signals.started, self.board, stop):
            await pause(stop, self.signals.starts_at_ms[self.board] / 1000 - time.time())
        while i < len(order) and not stop.is_set():
            if interval:
                await pause(stop, interval * random.uniform(0.8, 1.2))
            if i == len(order) - 2 and first_ms:
                wait = (first_ms + LAST_PAIR_NOT_BEFORE_MS) / 1000 - time.time()
                if wait > 0:
                    await pause(stop, wait)
            if stop.is_set():
                break
            await sink.slot()
            stats = sink.stats
            sink.enter()
            t0 = time.perf_counter()
            code: str | None = None
            try:
                reply = await self.send(
                    "TurnTile",
                    race_service_pb2.TurnTileRequest(table_id=self.table_id, tile=order[i]),
                )
            except grpc.aio.AioRpcError as error:
                reply, code = None, refusal_code(error)
                if code is None:
                    stats.errors[error.code().name] += 1
                else:
                    stats.refused[code] += 1
            finally:
                sink.leave()
                sink.free()
            if reply is None:  # refused or failed: the wait is outside the slot and the count
                if code in ("game_over", "player_out"):
                    return False
                if code == "board_over":
                    break
                if code == "tile_face_up":
                    i += 1
                    continue
                await asyncio.sleep(poll)  # board_not_started, paused, or an error
                continue
            stats.latencies.append(time.perf_counter() - t0)
            self.signals.note(reply.events)
            first_ms = first_ms or reply.counters.server_time_ms
            i += 1
        self.board += 1
        return self.board <= len(self.layouts)

    async def play(self, sink: Sink, stop: asyncio.Event, interval: float, poll: float) -> None:
        while not stop.is_set():
            if not await self.ready(stop, poll):
                return
            if not await self.play_board(sink, stop, interval):
                return

    async def resign(self) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError):  # already over
            await self.send("Resign", race_service_pb2.ResignRequest(table_id=self.table_id))

    async def done(self) -> None:
        """The seat sends nothing more: its transport is closed (a Play stream ends)."""
        if self.seat is not None:
            await self.seat.close()


async def open_table(
    channels: Channels, nc: Client, n: int, via: str = "unary"
) -> tuple[Player, Player]:
    """A private 2-player table, created, joined by invite and started (the deal is known);
    its players send their commands ``via`` that transport."""
    host, guest = Player(f"h{n}", channels.pick(), via), Player(f"g{n}", channels.pick(), via)
    guest.signals = host.signals
    invite = await host.create()
    await guest.join(invite)
    host.signals.event(host.signals.opened, 1).set()  # the last seat starts the game
    layouts = await fetch_layouts(nc, host.table_id)
    host.layouts = guest.layouts = layouts
    return host, guest


async def play_tables(
    channels: Channels,
    nc: Client,
    first: tuple[Player, Player],
    n: int,
    sink: Sink,
    stop: asyncio.Event,
    interval: float,
    delay: float,
    again: bool,
    resign: bool = True,
) -> None:
    """Play the table's game (and, with ``again``, a new table after each game) until ``stop``;
    then resign, so that the referee is left with no timers of ours."""
    await pause(stop, delay)
    pair = first
    poll = 0.05 if interval == 0 else 0.5
    while True:
        await asyncio.gather(*(p.play(sink, stop, interval, poll) for p in pair))
        if stop.is_set() or not again:
            break
        await asyncio.gather(*(p.done() for p in pair))
        pair = await open_table(channels, nc, n, pair[0].via)
    if resign:
        await asyncio.gather(*(p.resign() for p in pair))
    await asyncio.gather(*(p.done() for p in pair))
