"""The referee's failure paths against a real nats-server and the real dealer (a process, so
it can be paused): a stale holder fenced, NATS paused in the middle of a turn, the dealer silent
during the last join and the reveal, a lease lost while a command waits, and a deadline kept by
the timer alone after a restart.

The referees run in this process, so the test can hold two of them on one table and read what
each believes. Time is the referee's own clock (``SteppedClock``): a test moves it on instead
of waiting for the wall clock, so nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client

from match.v1 import common_pb2, race_command_pb2, referee_pb2
from match_bus import subjects
from match_bus.clock import Clock
from match_bus.jetstream import TableLog, ensure_stream
from match_bus.service import BaseConfig
from match_launch.child import tied
from match_launch.natsserver import NatsServer
from match_rules import registry
from match_rules.race import events as ev
from match_rules.race.game import from_proto
from services.referee.config import RefereeConfig
from services.referee.leases import Leases, heartbeat_key, lease_bucket
from services.referee.service import Referee
from tests.services.ready import until_the_dealer_answers

TTL_S = 6.0  # longer than any pause here: a lease lost is one the test takes away
WINDOW_MS = 10_000  # the Ready window


class SteppedClock(Clock):
    """The wall clock, plus whatever the test has moved it on by."""

    def __init__(self) -> None:
        super().__init__(1.0, 0)
        self.offset_ms = 0

    def now_ms(self) -> int:
        return super().now_ms() + self.offset_ms


# A test's own setup waits as long for the dealer as a loaded machine may need; a test that
# silences the dealer gives up after DEALER_SILENT_S, so that it does not wait long for nothing.
DEALER_SETUP_S = 10.0
DEALER_SILENT_S = 0.5


async def halt(pid: int) -> None:
    """SIGSTOP ``pid`` and return once it is stopped: a signal is delivered a moment after
    kill returns, and a process not stopped yet may still answer what was sent meanwhile."""
    os.kill(pid, signal.SIGSTOP)
    stat = Path(f"/proc/{pid}/stat")
    for _ in range(200):
        if stat.read_text().rsplit(")", 1)[1].split()[0] in ("T", "t"):
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"process {pid} did not stop")


@contextlib.contextmanager
def silenced(referee: Referee, dealer: subprocess.Popen[bytes]) -> Iterator[None]:
    """The dealer stopped (SIGSTOP), with the referee's wait for it cut to DEALER_SILENT_S;
    then the dealer goes on (SIGCONT) and the wait is as it was."""
    waits = referee._config
    referee._config = dataclasses.replace(waits, dealer_timeout_s=DEALER_SILENT_S)
    os.kill(dealer.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(dealer.pid, signal.SIGCONT)
        referee._config = waits


def config(url: str, replica: str, frames: bool = True) -> RefereeConfig:
    return RefereeConfig(
        base=BaseConfig(
            nats_url=url,
            log_format="json",
            log_level="warning",
            metrics_port=0,
            replica_id=replica,
        ),
        fill_wait_ms=3_600_000,
        clock_rate=1.0,
        clock_anchor_ms=0,
        dealer_timeout_s=DEALER_SETUP_S,
        lease_ttl_s=TTL_S,
        forget_after_s=60.0,
        frames=frames,
    )


@pytest.fixture
def dealer(nats_server: NatsServer, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The real dealer, a process of its own: SIGSTOP makes it silent, SIGCONT brings it back."""
    env = dict(os.environ, NATS_URL=nats_server.url, METRICS_PORT="0", LOG_FORMAT="json")
    with open(tmp_path / "dealer.log", "wb") as out:
        process = subprocess.Popen(
            tied([sys.executable, "-m", "services.dealer"]),
            env=env,
            stdout=out,
            stderr=out,
        )
    try:
        yield process
    finally:
        os.kill(process.pid, signal.SIGCONT)
        process.terminate()
        process.wait(10)


class Bus:
    """A NATS connection for the test, and the referees it starts (each with its own)."""

    def __init__(
        self, server: NatsServer, nc: Client, clock: SteppedClock, frames: bool = True
    ) -> None:
        self.server = server
        self.nc = nc
        self.clock = clock
        self.frames = frames
        self.referees: list[tuple[Referee, Client]] = []

    async def referee(self, name: str) -> Referee:
        rnc = await nats.connect(self.server.url, name=name)
        referee = Referee(rnc, config(self.server.url, name, self.frames), self.clock)
        self.referees.append((referee, rnc))
        await referee.start()
        return referee

    async def records(self, table: str) -> list[referee_pb2.TableRecord]:
        return [
            referee_pb2.TableRecord.FromString(r.data)
            for r in await TableLog(self.nc.jetstream()).read(table)
        ]

    async def race_events(self, table: str) -> list[Any]:
        return [
            from_proto(e.race)
            for r in await self.records(table)
            for e in r.events
            if e.HasField("race")
        ]


# Every failure twice: with group commit (the default: a table's later records in its
# partition's frames, fenced on the frame subject) and with every record appended alone
# (REFEREE_FRAMES=0, fenced on the table's subject).
@pytest.fixture(params=[True, False], ids=["frames", "alone"])
async def bus(
    nats_server: NatsServer, dealer: subprocess.Popen[bytes], request: pytest.FixtureRequest
) -> AsyncIterator[Bus]:
    nc = await nats.connect(nats_server.url)
    await ensure_stream(nc.jetstream())
    await until_the_dealer_answers(nc)
    b = Bus(nats_server, nc, SteppedClock(), request.param)
    yield b
    for referee, rnc in b.referees:
        await referee.stop()
        await rnc.close()
    await nc.close()


def create(seats: int = 2) -> referee_pb2.TableCommand:
    return referee_pb2.TableCommand(
        player_id="ann",
        create_table=referee_pb2.TableCommand.CreateTable(
            game_kind=common_pb2.GAME_KIND_MATCH_RACE,
            seats=seats,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name="Ann",
            race={"ready_window_ms": WINDOW_MS},
        ),
    )


def join(player: str) -> referee_pb2.TableCommand:
    return referee_pb2.TableCommand(player_id=player, join_table={"display_name": player})


async def table_cmd(
    referee: Referee, table: str, command: referee_pb2.TableCommand, request_id: str = ""
) -> referee_pb2.TableCommandReply:
    """One table command, judged by ``referee`` (its own handler: the test picks the holder)."""
    command.table_id = table
    command.request_id = request_id or f"{command.player_id}-{command.WhichOneof('command')}"
    data = await referee._table(table, command.SerializeToString(), referee._clock.now_ms())
    return referee_pb2.TableCommandReply.FromString(data)


async def race_cmd(
    referee: Referee, table: str, player: str, request_id: str = "", **command: Any
) -> race_command_pb2.RaceCommandReply:
    request = race_command_pb2.RaceCommand(
        table_id=table, player_id=player, request_id=request_id or f"{player}-{command}", **command
    )
    data = await referee._game(
        registry.by_slug("race"), table, request.SerializeToString(), referee._clock.now_ms()
    )
    return race_command_pb2.RaceCommandReply.FromString(data)


def accepted(reply: Any) -> Any:
    assert reply.WhichOneof("result") == "accepted", reply
    return reply


async def until(check: Callable[[], Awaitable[bool]], seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("never happened")


def numbered(records: list[referee_pb2.TableRecord]) -> None:
    """One history: records and events numbered without a gap or a repeat."""
    assert [r.record_number for r in records] == list(range(1, len(records) + 1))
    numbers = [e.event_number for r in records for e in r.events]
    assert numbers == list(range(1, len(numbers) + 1))


async def playing(bus: Bus, referee: Referee, table: str) -> None:
    """A two-seat race past its countdown: both pressed Ready, the clock moved past the start."""
    accepted(await table_cmd(referee, table, create()))
    accepted(await table_cmd(referee, table, join("bob")))
    await race_cmd(referee, table, "ann", press_ready={})
    ready = accepted(await race_cmd(referee, table, "bob", press_ready={}))
    (countdown,) = [
        from_proto(e.race)
        for e in ready.accepted.events
        if e.HasField("race") and isinstance(from_proto(e.race), ev.CountdownStarted)
    ]
    bus.clock.offset_ms += countdown.starts_at - bus.clock.now_ms() + 1


async def take_over(bus: Bus, name: str) -> Referee:
    """Another replica takes every partition as if the first one had stopped renewing (a
    paused process): its leases and heartbeat are gone from the bucket, and nobody told it."""
    kv = await lease_bucket(bus.nc.jetstream(), TTL_S, 1)
    for key in [*(subjects.partition_name(p) for p in range(subjects.PARTITIONS))]:
        await kv.purge(key)
    for referee, _ in bus.referees:
        await kv.purge(heartbeat_key(referee._writer))
    return await bus.referee(name)


def pause_leases(referee: Referee) -> None:
    """The replica's lease loop (and its watchdog) stop, as in a paused process: it goes on
    believing it holds its partitions."""
    for task in list(referee._tasks):
        task.cancel()


# --- two referees on one table ----------------------------------------------------------------


async def test_a_stale_holder_is_fenced_answers_unavailable_and_reads_the_log_again(
    bus: Bus,
) -> None:
    table = "fork00000001"
    a = await bus.referee("a")
    accepted(await table_cmd(a, table, create(seats=3)))
    pause_leases(a)
    b = await take_over(bus, "b")
    assert a.holds(table) and b.holds(table)  # both believe it is theirs
    bob = accepted(await table_cmd(b, table, join("bob")))
    assert bob.accepted.seat == 2

    stale = await table_cmd(a, table, join("cat"))  # a still thinks seat 2 is free
    assert (stale.refusal.code, stale.refusal.category) == (
        "unavailable",
        common_pb2.Refusal.CATEGORY_UNAVAILABLE,
    )
    assert a.tables[table].stale
    records = await bus.records(table)
    assert len(records) == 2  # created, bob: nothing forked
    numbered(records)
    seated = [e.table.player_seated.player_id for r in records for e in r.events]
    assert [p for p in seated if p] == ["ann", "bob"]

    again = accepted(await table_cmd(a, table, join("cat")))  # read again: bob is there
    assert again.accepted.seat == 3
    records = await bus.records(table)
    numbered(records)
    assert [e.table.player_seated.player_id for e in records[-1].events][:1] == ["cat"]


# --- NATS paused during a turn ---------------------------------------------------------------


async def test_nats_paused_during_a_turn_is_unavailable_and_the_retry_applies_once(
    bus: Bus,
) -> None:
    table = "stop00000001"
    referee = await bus.referee("a")
    await playing(bus, referee, table)
    referee._log._timeout = 0.3  # an ack lost: three tries fit in a couple of seconds
    for writer in referee._frames.values():
        writer._timeout_s = 0.3  # a frame's ack lost: one try, well within the lease's term
    before = await bus.records(table)
    # The countdown's end may be on its way to the log from the table's timer: under the
    # table's lock it has landed (or not started), so the count read here is the one to keep.
    async with referee._lock(table):
        held = referee.tables[table]
        turns_before = held.records
        assert bus.server.process is not None
        await halt(bus.server.process.pid)
    try:
        reply = await race_cmd(referee, table, "ann", "turn-1", turn_tile={"tile": 7})
    finally:
        os.kill(bus.server.process.pid, signal.SIGCONT)
    referee._log._timeout = 5.0  # the retries meet a live server, however slow it is
    for writer in referee._frames.values():
        writer._timeout_s = 5.0
    assert (reply.refusal.code, reply.refusal.category) == (
        "unavailable",
        common_pb2.Refusal.CATEGORY_UNAVAILABLE,
    )
    assert held.records == turns_before  # nothing folded in without an ack
    assert held.stale  # the append may have landed: read the log before judging again

    # The client retries while the answer is UNAVAILABLE. A retry judged before the paused
    # try shows up in the log appends other bytes under the same msg id: refused, not believed.
    for _ in range(5):
        retried = await race_cmd(referee, table, "ann", "turn-1", turn_tile={"tile": 7})
        if retried.refusal.code != "unavailable":
            break
    accepted(retried)
    assert retried.accepted.counters.turns == 1
    twice = accepted(await race_cmd(referee, table, "ann", "turn-1", turn_tile={"tile": 7}))
    assert twice == retried  # the first answer again, nothing appended
    records = await bus.records(table)
    numbered(records)
    turns = [r for r in records[len(before) :] if r.command.race.request_id == "turn-1"]
    assert len(turns) == 1  # applied exactly once, whether or not the paused try had landed
    turned = [e for e in await bus.race_events(table) if isinstance(e, ev.TileTurned)]
    assert [t.tile for t in turned] == [7]


async def test_a_table_stored_after_its_create_timed_out_is_held_and_expires_unasked(
    bus: Bus,
) -> None:
    """NATS pauses as a new table's first record is sent: the referee's three tries time out
    and the create is answered UNAVAILABLE, yet the record is stored once NATS goes on. Its
    creator never asks again. The referee reads the table back from the log by itself, so the
    table is held and expires on time: a takeover reading its partition from a mark would not
    meet it, and no command would come to load it."""
    table = "lost00000001"
    referee = await bus.referee("a")
    referee._config = dataclasses.replace(referee._config, table_expiry_ms=2_000)
    referee._log._timeout = 0.3  # three tries fit in a couple of seconds
    assert bus.server.process is not None
    server = bus.server.process.pid
    append = referee._log.append

    async def paused_append(*args: Any, **kwargs: Any) -> int:
        await halt(server)  # after the dealer's commitment, before the record
        return await append(*args, **kwargs)

    referee._log.append = paused_append  # type: ignore[method-assign]
    try:
        reply = await table_cmd(referee, table, create())
    finally:
        os.kill(server, signal.SIGCONT)
        referee._log.append = append  # type: ignore[method-assign]
        referee._log._timeout = 5.0
    assert reply.refusal.code == "unavailable", reply

    async def stored() -> bool:  # once NATS has read what waited in its socket
        return len(await bus.records(table)) == 1

    await until(stored)

    async def expired() -> bool:
        return any(
            e.table.WhichOneof("event") == "table_expired"
            for r in await bus.records(table)
            for e in r.events
        )

    await until(expired, seconds=15)
    assert table not in referee.tables  # expired: closed and out of memory
    numbered(await bus.records(table))


# --- the dealer silent -------------------------------------------------------------------------


async def test_the_dealer_silent_during_the_last_join_changes_nothing(
    bus: Bus, dealer: subprocess.Popen[bytes]
) -> None:
    table = "deal00000001"
    referee = await bus.referee("a")
    accepted(await table_cmd(referee, table, create()))
    before = await bus.records(table)
    with silenced(referee, dealer):
        silent = await table_cmd(referee, table, join("bob"))
    assert (silent.refusal.code, silent.refusal.category) == (
        "unavailable",
        common_pb2.Refusal.CATEGORY_UNAVAILABLE,
    )
    assert await bus.records(table) == before  # no seat without its deal
    assert not referee.tables[table].started
    assert [s.player for s in referee.tables[table].seated] == ["ann"]
    joined = accepted(await table_cmd(referee, table, join("bob")))
    assert joined.accepted.seat == 2
    events = await bus.race_events(table)
    assert [type(e) for e in events][:2] == [ev.GameStarted, ev.ReadyOpened]
    numbered(await bus.records(table))


async def test_the_dealer_silent_during_the_reveal_delays_the_seed_not_the_game(
    bus: Bus, dealer: subprocess.Popen[bytes]
) -> None:
    table = "deal00000002"
    referee = await bus.referee("a")
    accepted(await table_cmd(referee, table, create()))
    accepted(await table_cmd(referee, table, join("bob")))

    async def revealed() -> int:
        return sum(
            e.table.HasField("seed_revealed") for r in await bus.records(table) for e in r.events
        )

    with silenced(referee, dealer):
        accepted(await race_cmd(referee, table, "ann", resign={}))
        accepted(await race_cmd(referee, table, "bob", resign={}))  # the game is over
        assert referee.tables[table].game_over
        await asyncio.sleep(1.5)  # the referee asks, times out, and asks again
        assert await revealed() == 0

    async def once() -> bool:
        return await revealed() == 1

    await until(once)
    await asyncio.sleep(0.5)  # the late answers to the tries made while paused change nothing
    assert await revealed() == 1
    numbered(await bus.records(table))


# --- a lease lost in the middle of a command -------------------------------------------------


async def test_a_lease_lost_while_a_command_waits_leaves_one_holder_and_one_history(
    bus: Bus, dealer: subprocess.Popen[bytes]
) -> None:
    """The join of the last seat waits for the dealer; meanwhile the replica's lease goes to
    another, which reads the log. Had the join then appended (the fence lets it: nobody wrote
    since), the new holder's copy would be behind the log, and it would answer refusals such
    as "game_not_started" from memory, never fenced, until something it appends is. So a
    replica appends nothing for a partition it no longer holds."""
    table = "loss00000001"
    a = await bus.referee("a")
    accepted(await table_cmd(a, table, create()))
    partition = subjects.partition_of(table)
    assert a.leases is not None
    os.kill(dealer.pid, signal.SIGSTOP)
    a._config = dataclasses.replace(a._config, dealer_timeout_s=5.0)
    try:
        joining = asyncio.ensure_future(table_cmd(a, table, join("bob")))
        await asyncio.sleep(0.2)  # the join waits for the deal
        b = await take_over(bus, "b")
        await until(lambda: asyncio.sleep(0, not a.leases.holding(partition)))  # type: ignore[union-attr]
    finally:
        os.kill(dealer.pid, signal.SIGCONT)
    reply = await joining
    assert (reply.refusal.code, reply.refusal.category) == (
        "unavailable",
        common_pb2.Refusal.CATEGORY_UNAVAILABLE,
    )  # the deal came too late: the partition had gone, nothing was appended
    assert table not in a.tables and table not in a._timers  # a lets go of everything
    assert not a.holds(table)
    records = await bus.records(table)
    assert len(records) == 1  # created: b's copy is the log
    joined = accepted(await table_cmd(b, table, join("bob")))
    assert joined.accepted.seat == 2
    ready = accepted(await race_cmd(b, table, "ann", "ann-ready", press_ready={}))
    assert ready.accepted.counters is not None
    numbered(await bus.records(table))


# --- a deadline kept by the timer alone after a restart ---------------------------------------


async def test_a_restarted_referee_fires_a_missed_deadline_with_no_command(bus: Bus) -> None:
    """The previous test of this kind sent a command after the restart, and a command runs
    every deadline due: it passed even if the restarted referee armed no timer. Here nothing is
    sent: only the new referee's own timer can write the missed Ready."""
    table = "time00000001"
    a = await bus.referee("a")
    accepted(await table_cmd(a, table, create()))
    joined = accepted(await table_cmd(a, table, join("bob")))
    (opened,) = [
        from_proto(e.race)
        for e in joined.accepted.events
        if e.HasField("race") and isinstance(from_proto(e.race), ev.ReadyOpened)
    ]
    accepted(await race_cmd(a, table, "ann", press_ready={}))
    await a.stop()  # a clean stop: the leases are handed back
    bus.clock.offset_ms += opened.deadline - bus.clock.now_ms() + 1_000  # the deadline passes
    await bus.referee("b")

    async def missed() -> bool:
        return any(isinstance(e, ev.PlayerMissedReady) for e in await bus.race_events(table))

    await until(missed)
    events = [e for e in await bus.race_events(table) if isinstance(e, ev.PlayerMissedReady)]
    assert events == [ev.PlayerMissedReady(opened.deadline, 1, "bob")]  # at the deadline itself
    numbered(await bus.records(table))


async def test_a_turn_keeps_the_tables_timer_and_a_clock_step_sets_it_again(bus: Bus) -> None:
    """A turn that leaves the deadline where it was (the board's cap) keeps the timer set for
    it rather than setting it again; a clock that stepped since moves the instant the deadline
    falls at, and the timer is set again, for the same deadline, at the new instant."""
    table = "arms00000001"
    referee = await bus.referee("a")
    await playing(bus, referee, table)
    accepted(await race_cmd(referee, table, "ann", "turn-1", turn_tile={"tile": 1}))
    timer = referee._timers[table]
    assert not timer.fired and timer.handle is not None
    accepted(await race_cmd(referee, table, "bob", "turn-2", turn_tile={"tile": 2}))
    assert referee._timers[table] is timer  # the same deadline, the same instant: kept
    bus.clock.offset_ms += 5_000
    accepted(await race_cmd(referee, table, "ann", "turn-3", turn_tile={"tile": 3}))
    moved = referee._timers[table]
    assert moved is not timer and moved.deadline == timer.deadline
    assert timer.handle.cancelled() and not moved.fired
    assert 4.9 < timer.at - moved.at < 5.1  # the deadline comes 5 s sooner on the loop's clock


# --- the referee's own guards, each changed once and noticed --------------------------------


async def test_a_clock_that_steps_back_never_stamps_a_record_before_the_last(bus: Bus) -> None:
    """A command is stamped max(arrival, the table's clock): a clock stepped back (NTP, another
    replica's) must not stamp a record before the one it follows."""
    table = "back00000001"
    referee = await bus.referee("a")
    await playing(bus, referee, table)
    accepted(await race_cmd(referee, table, "ann", "turn-1", turn_tile={"tile": 7}))
    bus.clock.offset_ms -= 60_000
    accepted(await race_cmd(referee, table, "bob", "turn-2", turn_tile={"tile": 9}))
    stamps = [r.command.received_at_ms for r in await bus.records(table)]
    assert stamps[-1] >= stamps[-2]
    turned = [e for e in await bus.race_events(table) if isinstance(e, ev.TileTurned)]
    assert turned[1].at >= turned[0].at


async def test_nats_paused_shorter_than_three_tries_is_ridden_out(bus: Bus) -> None:
    """An ack lost once is not an error the player sees: the append is tried three times."""
    table = "blip00000001"
    referee = await bus.referee("a")
    await playing(bus, referee, table)
    referee._log._timeout = 0.3
    assert bus.server.process is not None
    await halt(bus.server.process.pid)
    turning = asyncio.ensure_future(
        race_cmd(referee, table, "ann", "turn-1", turn_tile={"tile": 7})
    )
    await asyncio.sleep(0.35)  # the first try's ack is lost; the second meets a live server
    referee._log._timeout = 5.0  # the tries from now on wait as a slow machine may need
    os.kill(bus.server.process.pid, signal.SIGCONT)
    turned = accepted(await turning)
    assert turned.accepted.counters.turns == 1
    numbered(await bus.records(table))


async def test_a_lease_not_renewed_is_let_go_before_its_term_ends(bus: Bus) -> None:
    """The watchdog lets go at 0.8 of a term: another replica may take the lease at 1.0, and
    the holder must have stopped answering by then (a margin for clocks and pauses)."""
    kv = await lease_bucket(bus.nc.jetstream(), TTL_S, 1)
    now = [0.0]
    lost: list[int] = []

    async def gain(partitions: list[int]) -> None:
        return None

    async def lose(partition: int) -> None:
        lost.append(partition)

    leases = Leases(kv, "w", TTL_S, gain, lose, lambda: now[0])
    await leases.step()
    assert len(leases.held) == subjects.PARTITIONS
    now[0] = TTL_S * 0.79
    await leases._drop_expired()
    assert not lost
    now[0] = TTL_S * 0.81
    await leases._drop_expired()
    assert sorted(lost) == list(range(subjects.PARTITIONS)) and not leases.held
