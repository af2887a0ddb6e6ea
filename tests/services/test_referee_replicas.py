"""Several referee replicas over real NATS: leases split the partitions, a killed replica's
tables move to another with every deadline kept, and a retried request id is applied once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.js.errors import KeyNotFoundError

from match.v1 import race_command_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import TableLog, ensure_stream
from match_launch.child import tied
from match_launch.natsserver import NatsServer
from match_launch.stack import Stack
from match_rules.race import events as ev
from match_rules.race.game import from_proto
from services.referee.leases import Leases, heartbeat_key, lease_bucket, share
from tests.conftest import running
from tests.services.test_referee import RATE, create, race_events

TTL_S = 1.5


def test_each_replica_aims_for_an_even_share() -> None:
    assert [share(16, n) for n in (0, 1, 2, 3, 16, 17)] == [16, 16, 8, 6, 1, 1]


class Holder:
    """A Leases with callbacks that record what it was told to serve."""

    def __init__(self, kv: Any, name: str) -> None:
        self.serving: set[int] = set()
        self.lost: list[int] = []  # every partition it was told to stop serving
        self.leases = Leases(kv, name, TTL_S, self.gain, self.lose, time.monotonic)

    async def gain(self, partitions: list[int]) -> None:
        assert not self.serving & set(partitions)
        self.serving |= set(partitions)

    async def lose(self, partition: int) -> None:
        self.serving.remove(partition)
        self.lost.append(partition)


async def rounds(*holders: Holder, n: int = 3) -> None:
    for _ in range(n):
        for h in holders:
            await h.leases.step()
            await h.leases.settled()  # partitions gained are loaded in their own task


async def test_leases_split_the_partitions_and_a_silent_holder_loses_them(
    nats_server: NatsServer,
) -> None:
    nc = await nats.connect(nats_server.url)
    try:
        kv = await lease_bucket(nc.jetstream(), TTL_S, 1)
        a = Holder(kv, "a")
        await rounds(a, n=1)
        assert a.serving == set(range(subjects.PARTITIONS))  # alone: everything
        b = Holder(kv, "b")
        await rounds(a, b)
        assert len(a.serving) == len(b.serving) == subjects.PARTITIONS // 2
        assert a.serving.isdisjoint(b.serving)
        for p in b.serving:  # the store agrees: one holder per partition
            entry = await kv.get(subjects.partition_name(p))
            assert entry.value == b"b"
        # a stops renewing (a paused or dead process): after one term b holds everything...
        await asyncio.sleep(TTL_S + 1.0)
        await rounds(b, n=2)
        assert b.serving == set(range(subjects.PARTITIONS))
        # ...and a, waking up, finds its leases gone and stops serving before it takes any back.
        await a.leases.step()
        assert not a.serving & b.serving
    finally:
        await nc.close()


async def test_a_clean_stop_hands_the_partitions_back_at_once(nats_server: NatsServer) -> None:
    nc = await nats.connect(nats_server.url)
    try:
        kv = await lease_bucket(nc.jetstream(), TTL_S, 1)
        a = Holder(kv, "a")
        await rounds(a, n=1)
        await a.leases.release_all()
        assert a.serving == set()
        with pytest.raises(KeyNotFoundError):
            await kv.get(subjects.partition_name(0))
        b = Holder(kv, "b")
        await rounds(b, n=1)  # no wait for a term
        assert b.serving == set(range(subjects.PARTITIONS))
    finally:
        await nc.close()


async def test_a_slow_look_at_who_is_alive_does_not_make_the_renewals_late(
    nats_server: NatsServer,
) -> None:
    """Renewing keeps its own schedule: a balancing round that takes two terms (under load,
    reading the heartbeats took over a second) must not let the leases run out meanwhile."""
    nc = await nats.connect(nats_server.url)
    try:
        kv = await lease_bucket(nc.jetstream(), TTL_S, 1)
        a = Holder(kv, "a")
        await rounds(a, n=1)
        live = a.leases._live

        async def slow_live() -> int:
            await asyncio.sleep(2 * TTL_S)
            return await live()

        a.leases._live = slow_live  # type: ignore[method-assign]
        running_leases = asyncio.create_task(a.leases.run())
        await asyncio.sleep(2.5 * TTL_S)
        running_leases.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running_leases
        assert a.lost == []  # none let go, even for a while
        assert a.serving == set(range(subjects.PARTITIONS))
        renewed = [sent for _, sent in a.leases.held.values()]
        assert time.monotonic() - min(renewed) < TTL_S / 3 + 0.5
    finally:
        await nc.close()


async def test_a_lease_let_go_while_its_key_still_names_the_holder_is_taken_back_at_once(
    nats_server: NatsServer,
) -> None:
    """A renewal that came late makes the holder let go (the watchdog's margin), but the key
    still names it until the term is over: the next round takes it back without waiting for
    the term, and another replica cannot take a key that names someone else."""
    nc = await nats.connect(nats_server.url)
    try:
        kv = await lease_bucket(nc.jetstream(), TTL_S, 1)
        a = Holder(kv, "a")
        await rounds(a, n=1)
        await a.leases._drop_all(list(a.leases.held))  # as the watchdog does
        assert a.serving == set()
        b = Holder(kv, "b")
        await rounds(b, n=1)
        assert b.serving == set()  # every key still names a
        await kv.delete(heartbeat_key("b"))  # b gone again: a's share is every partition
        started = time.monotonic()
        await rounds(a, n=1)
        assert time.monotonic() - started < TTL_S / 2  # not a term's wait
        assert a.serving == set(range(subjects.PARTITIONS))
        for p in range(subjects.PARTITIONS):
            assert (await kv.get(subjects.partition_name(p))).value == b"a"
    finally:
        await nc.close()


async def test_leases_let_go_together_are_handed_over_together(nats_server: NatsServer) -> None:
    """One hand-over can wait seconds for its commands in flight: the expired leases are all
    let go at once, none waiting behind another's hand-over."""
    nc = await nats.connect(nats_server.url)
    try:
        kv = await lease_bucket(nc.jetstream(), TTL_S, 1)
        now = [0.0]
        handing: set[int] = set()
        done = asyncio.Event()

        async def gain(partitions: list[int]) -> None:
            return None

        async def lose(partition: int) -> None:
            handing.add(partition)
            await done.wait()

        leases = Leases(kv, "w", TTL_S, gain, lose, lambda: now[0])
        await leases.step()
        now[0] = TTL_S
        dropping = asyncio.create_task(leases._drop_expired())
        for _ in range(100):
            if len(handing) == subjects.PARTITIONS:
                break
            await asyncio.sleep(0.01)
        assert handing == set(range(subjects.PARTITIONS))  # all begun, none finished
        assert not leases.held  # none answered for meanwhile
        done.set()
        await dropping
    finally:
        await nc.close()


# --- two referee processes -------------------------------------------------------------------


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    anchor = str(int(time.time() * 1000))
    s = Stack(
        tmp_path / "stack",
        services=("dealer",),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": anchor,
            "REFEREE_LEASE_TTL_S": str(TTL_S),
        },
    )
    yield from running(s)


class Referees:
    """Referee processes by replica id (the Stack runs one per name)."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, replica: str) -> None:
        env = self.stack.service_env("referee")
        env["MATCH_REPLICA_ID"] = replica
        log = open(self.stack.workdir / "logs" / f"referee-{replica}.log", "ab")  # noqa: SIM115
        self.procs[replica] = subprocess.Popen(
            tied([sys.executable, "-m", "services.referee"]),
            env=env,
            stdout=log,
            stderr=log,
        )
        log.close()

    def kill(self, replica: str) -> None:
        proc = self.procs.pop(replica)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            proc.wait(10)


@pytest.fixture
async def two(stack: Stack) -> AsyncIterator[tuple[Referees, Client]]:
    refs = Referees(stack)
    refs.start("ra")
    refs.start("rb")
    nc = await stack.connect_nats()
    try:
        await until_split(nc)
        yield refs, nc
    finally:
        await nc.close()
        refs.stop()


async def holders(nc: Client) -> dict[int, str]:
    kv = await nc.jetstream().key_value(subjects.REFEREE_LEASES_BUCKET)
    out = {}
    for p in range(subjects.PARTITIONS):
        with contextlib.suppress(KeyNotFoundError):
            entry = await kv.get(subjects.partition_name(p))
            out[p] = (entry.value or b"").decode()
    return out


async def until_split(nc: Client, timeout: float = 30.0) -> dict[int, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            held = await holders(nc)
        except Exception:  # the bucket is not made yet
            held = {}
        if len(held) == subjects.PARTITIONS and set(held.values()) == {"ra", "rb"}:
            return held
        await asyncio.sleep(0.2)
    raise AssertionError(f"the partitions never split between two referees: {held}")


async def ask(nc: Client, subject: str, data: bytes, timeout: float = 20.0) -> bytes:
    """A request, repeated while nobody holds the partition or the holder is changing."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            msg = await nc.request(subject, data, 5)
        except nats.errors.NoRespondersError:
            msg = None
        if msg is not None:
            reply = race_command_pb2.RaceCommandReply.FromString(msg.data)
            if reply.refusal.code != "unavailable":
                return msg.data
        if time.monotonic() > deadline:
            raise AssertionError(f"no referee answered {subject}")
        await asyncio.sleep(0.1)


async def table_in(nc: Client, partition_of: str, held: dict[int, str], name: str) -> str:
    """A table id whose partition ``partition_of`` holds, seated by ann and bob (request ids
    ``<table>-ann`` and ``<table>-bob``)."""
    for i in range(1000):
        table = f"{name}{i:04d}xyz"
        if held[subjects.partition_of(table)] == partition_of:
            break
    for player, command in (
        ("ann", create(window=60_000)),
        ("bob", {"join_table": {"display_name": "Bob"}}),
    ):
        request = referee_pb2.TableCommand(
            table_id=table, player_id=player, request_id=f"{table}-{player}", **command
        )
        data = await ask(nc, subjects.referee_table(table), request.SerializeToString())
        assert referee_pb2.TableCommandReply.FromString(data).WhichOneof("result") == "accepted"
    return table


def race(table: str, player: str, request_id: str, **command: Any) -> bytes:
    return race_command_pb2.RaceCommand(
        table_id=table, player_id=player, request_id=request_id, **command
    ).SerializeToString()


async def records(nc: Client, table: str) -> list[referee_pb2.TableRecord]:
    stored = await TableLog(nc.jetstream()).read(table)
    return [referee_pb2.TableRecord.FromString(r.data) for r in stored]


async def test_a_killed_replicas_tables_move_and_keep_their_deadlines(
    two: tuple[Referees, Client],
) -> None:
    refs, nc = two
    held = await holders(nc)
    table = await table_in(nc, "ra", held, "kill")
    other = await table_in(nc, "rb", held, "live")
    ready = await ask(
        nc, subjects.referee_race(table), race(table, "ann", "r-ann-ready-1", press_ready={})
    )
    opened = [
        from_proto(e.race)
        for r in await records(nc, table)
        for e in r.events
        if e.HasField("race") and isinstance(from_proto(e.race), ev.ReadyOpened)
    ]
    assert race_command_pb2.RaceCommandReply.FromString(ready).WhichOneof("result") == "accepted"
    refs.kill("ra")
    # rb's own tables never stop answering while ra's are without a referee.
    reply = await ask(
        nc, subjects.referee_race(other), race(other, "ann", "r-other-1", press_ready={}), 2
    )
    assert race_command_pb2.RaceCommandReply.FromString(reply).WhichOneof("result") == "accepted"
    # A retry of ann's Ready reaches rb, rebuilt from the log: the first answer, applied once.
    again = await ask(
        nc, subjects.referee_race(table), race(table, "ann", "r-ann-ready-1", press_ready={})
    )
    assert again == ready
    assert (await holders(nc))[subjects.partition_of(table)] == "rb"
    log = await records(nc, table)
    assert sum(1 for r in log if r.command.race.request_id == "r-ann-ready-1") == 1
    # The Ready deadline, set by ra, fires on rb at the very instant it was due.
    (deadline,) = [o.deadline for o in opened]
    waited = time.monotonic() + 30
    while time.monotonic() < waited:
        missed = [
            from_proto(e.race)
            for r in await records(nc, table)
            for e in r.events
            if e.HasField("race") and isinstance(from_proto(e.race), ev.PlayerMissedReady)
        ]
        if missed:
            break
        await asyncio.sleep(0.2)
    assert missed == [ev.PlayerMissedReady(deadline, 1, "bob")]
    numbers = [e.event_number for r in await records(nc, table) for e in r.events]
    assert numbers == list(range(1, len(numbers) + 1))


async def test_a_retry_is_answered_once_with_the_first_answer(
    two: tuple[Referees, Client],
) -> None:
    _, nc = two
    held = await holders(nc)
    table = await table_in(nc, "rb", held, "once")
    subject = subjects.referee_race(table)
    first = await ask(nc, subject, race(table, "bob", "r-bob-ready-1", press_ready={}))
    concurrent = await asyncio.gather(
        *(ask(nc, subject, race(table, "bob", "r-bob-ready-1", press_ready={})) for _ in range(5))
    )
    assert set(concurrent) == {first}
    # The same command with a new request id is a new command (and refused: already ready).
    fresh = race_command_pb2.RaceCommandReply.FromString(
        await ask(nc, subject, race(table, "bob", "r-bob-ready-2", press_ready={}))
    )
    assert fresh.WhichOneof("result") == "refusal"
    log = await records(nc, table)
    assert sum(1 for r in log if r.command.race.request_id == "r-bob-ready-1") == 1

    # Table commands too: the lobby retrying bob's JoinTable gets his seat back, as first
    # answered (the game started in that record), and a new request id is judged afresh.
    def join(request_id: str) -> bytes:
        return referee_pb2.TableCommand(
            table_id=table,
            player_id="bob",
            request_id=request_id,
            join_table={"display_name": "Bob"},
        ).SerializeToString()

    retried = referee_pb2.TableCommandReply.FromString(
        await ask(nc, subjects.referee_table(table), join(f"{table}-bob"))
    )
    assert retried.accepted.seat == 2
    assert [type(e) for e in race_events(retried)] == [ev.GameStarted, ev.ReadyOpened]
    refused = referee_pb2.TableCommandReply.FromString(
        await ask(nc, subjects.referee_table(table), join("r-bob-join-2"))
    )
    assert refused.refusal.code == "table_started"
    seated = [e for r in log for e in r.events if e.table.HasField("player_seated")]
    assert [e.table.player_seated.player_id for e in seated] == ["ann", "bob"]


async def test_reading_an_empty_partition_of_a_busy_stream_returns_at_once(
    nats_server: NatsServer,
) -> None:
    """A replica that takes on a partition with no tables must not wait for records that
    will never come (while other partitions hold many)."""
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        log = TableLog(js)
        busy = "busy0000table"
        await log.append(busy, b"record", f"{busy}:0:test", 0)
        empty = next(p for p in range(subjects.PARTITIONS) if p != subjects.partition_of(busy))
        started = time.monotonic()
        assert await log.read_all(subjects.events_of_partition(empty)) == []
        assert time.monotonic() - started < 2.0
        (only,) = await log.read_all(subjects.events_of_partition(subjects.partition_of(busy)))
        assert only[0] == busy and only[1].data == b"record"
    finally:
        await nc.close()
