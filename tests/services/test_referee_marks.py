"""A partition's mark: where its live tables begin on the log. The holder writes it; a replica
taking the partition on reads from there, not from the log's first record, and a finished table
begun before it is still answered, read back from the log (services/referee/marks.py)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

import nats
import pytest
from nats.aio.client import Client
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from match.v1 import race_command_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import TableLog, ensure_stream, open_bucket
from match_bus.records import StoredRecord
from match_launch.natsserver import NatsServer
from match_launch.stack import Stack
from services.referee.marks import Marks, NotHolding
from tests.conftest import running
from tests.services.test_referee import create
from tests.services.test_referee_games import SMALL, Settings, flip
from tests.services.test_referee_games import create as concentration
from tests.services.test_referee_replicas import (  # two: with this module's stack
    TTL_S,
    Referees,
    ask,
    holders,
    race,
    two,  # noqa: F401
)

MARK_EVERY_S = 0.3


async def test_reading_from_a_sequence_takes_only_the_records_from_there(
    nats_server: NatsServer,
) -> None:
    """A partition read from its mark gets what was stored from there on, and a mark past
    every record of the partition (the others busy since) returns at once."""
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        log = TableLog(js)
        table = "mark0000table"
        other = next(
            f"other{i:04d}table"
            for i in range(1000)
            if subjects.partition_of(f"other{i:04d}table") != subjects.partition_of(table)
        )
        first = await log.append(table, b"one", f"{table}:0:test", 0)
        second = await log.append(table, b"two", f"{table}:{first}:test", first)
        await log.append(other, b"busy", f"{other}:0:test", 0)
        partition = subjects.events_of_partition(subjects.partition_of(table))
        assert [r.data for _, r in await log.read_all(partition, start=second)] == [b"two"]
        assert [r.data for _, r in await log.read_all(partition, start=first)] == [b"one", b"two"]
        started = time.monotonic()
        assert await log.read_all(partition, start=second + 1) == []
        assert time.monotonic() - started < 2.0
        assert await log.last_sequence() == second + 1
    finally:
        await nc.close()


class Partitions:
    """What the referee tells its marks: the partitions it answers for, each one's unfinished
    tables' first records, and whether its lease is fresh."""

    def __init__(self) -> None:
        self.answering: set[int] = set()
        self.starts: dict[int, list[int]] = {}
        self.stale: set[int] = set()

    def marks(self, kv: KeyValue, log: TableLog) -> Marks:
        async def bucket() -> KeyValue:
            return kv

        return Marks(
            bucket,
            log,
            every_s=60,
            answering=lambda: self.answering,
            live_starts=lambda p: self.starts.get(p, []),
            fresh=lambda p: p not in self.stale,
        )


@pytest.fixture
async def five(nats_server: NatsServer) -> AsyncIterator[tuple[TableLog, KeyValue]]:
    """A table log of five records and the marks' bucket, on a real nats-server."""
    nc = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        log = TableLog(js)
        kv = await open_bucket(js, subjects.REFEREE_MARKS_BUCKET, "marks")
        for i in range(5):
            await log.append(f"t{i}aaaaaaaa", b"x", f"t{i}:0:test", 0)
        yield log, kv
    finally:
        await nc.close()


async def test_a_mark_is_the_first_live_table_or_the_floor_and_only_a_steady_holder_writes(
    five: tuple[TableLog, KeyValue],
) -> None:
    log, kv = five
    seen = Partitions()
    seen.answering = {1, 2, 3}
    marks = seen.marks(kv, log)

    async def mark(partition: int) -> int | None:
        try:
            entry = await kv.get(subjects.partition_name(partition))
        except KeyNotFoundError:
            return None
        return int((entry.value or b"").decode())

    await marks.step()  # no floor yet: nothing written
    assert [await mark(p) for p in (1, 2, 3)] == [None, None, None]
    await log.append("t5aaaaaaaa", b"x", "t5:0:test", 0)  # 6: stored after the floor
    seen.starts = {1: [4, 2], 2: [9]}
    seen.stale = {3}
    seen.answering = {1, 2, 4}  # 3 let go meanwhile, 4 gained meanwhile
    await marks.step()
    # 1: its first live table; 2: the floor (one past the 5 stored at the step before);
    # 3: not answered for any more; 4: not answered for since the step before.
    assert [await mark(p) for p in (1, 2, 3, 4)] == [2, 6, None, None]
    seen.starts = {}
    seen.answering = {1, 2, 3, 4}
    await marks.step()
    assert [await mark(p) for p in (1, 2, 4)] == [7, 7, 7]  # no live tables: the floor
    assert await mark(3) is None  # its lease not fresh: a paused holder writes nothing
    await kv.put(subjects.partition_name(1), b"99")  # a late put of a paused former holder
    await marks.step()  # written again, unchanged: the late put lasts one step
    assert [await mark(p) for p in (1, 2, 4)] == [7, 7, 7]
    # A replica taking partitions on reads them: none is 0 (the log's first record), and
    # so is a value that is not a number.
    await kv.put(subjects.partition_name(5), b"not a number")
    taker = Partitions().marks(kv, log)
    assert await taker.read([1, 3, 5]) == {1: 7, 3: 0, 5: 0}

    # A replica whose identity may not use the bucket yet (an authorization older than
    # marks) reads every partition from the log's first record, and keeps running.
    async def refused() -> KeyValue:
        raise nats.errors.TimeoutError

    blind = Marks(
        refused, log, every_s=60, answering=lambda: {1}, live_starts=lambda p: [], fresh=bool
    )
    assert await blind.read([1, 2]) == {1: 0, 2: 0}


class Flaky:
    """A bucket whose next put times out after storing (``fail`` True) or before it (False),
    whose next get times out (``fail_get``), and whose next put waits while ``held`` is clear
    (the puts after it do not)."""

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv
        self.fail: bool | None = None  # None: puts succeed; else whether the failing one lands
        self.fail_get = False
        self.held = asyncio.Event()
        self.held.set()
        self.waiting = asyncio.Event()  # a put is waiting for held

    async def get(self, key: str) -> Any:
        if self.fail_get:
            self.fail_get = False
            raise nats.errors.TimeoutError
        return await self.kv.get(key)

    async def put(self, key: str, value: bytes) -> int:
        if not self.held.is_set() and not self.waiting.is_set():
            self.waiting.set()
            await self.held.wait()
        landed, self.fail = self.fail, None
        if landed is None:
            return await self.kv.put(key, value)
        if landed:
            await self.kv.put(key, value)
        raise nats.errors.TimeoutError


async def test_a_lowering_is_stored_before_it_returns_and_a_put_timed_out_is_not_trusted(
    five: tuple[TableLog, KeyValue],
) -> None:
    log, kv = five
    flaky = Flaky(kv)

    seen = Partitions()
    seen.answering = {1}
    marks = seen.marks(cast(KeyValue, flaky), log)

    async def mark() -> int:
        return int(((await kv.get(subjects.partition_name(1))).value or b"").decode())

    await marks.step()
    await marks.step()  # the floor: one past the 5 records
    assert await mark() == 6
    assert marks.passes(1, 3) and not marks.passes(1, 6)
    await marks.lower(1, 3)  # a game left idle, begun at 3, is about to change
    assert await mark() == 3
    revision = (await kv.get(subjects.partition_name(1))).revision
    await marks.lower(1, 4)  # the mark is below it already: nothing written
    assert (await kv.get(subjects.partition_name(1))).revision == revision
    # The game holds the mark at the next step; without it (idle again), the floor.
    seen.starts = {1: [3]}
    await marks.step()
    assert await mark() == 3
    # A step's put that timed out may have stored the higher mark: the game is then
    # lowered to again, though the mark this replica last saw stored was below it.
    seen.starts = {}
    flaky.fail = True
    with pytest.raises(nats.errors.TimeoutError):
        await marks.step()
    assert await mark() == 6
    assert marks.passes(1, 3)
    flaky.fail = False  # a lowering whose put times out unstored: raised, tried again
    with pytest.raises(nats.errors.TimeoutError):
        await marks.lower(1, 3)
    assert await mark() == 6 and marks.passes(1, 3)
    await marks.lower(1, 3)
    assert await mark() == 3 and not marks.passes(1, 3)
    # A step and a lowering take turns: a step whose put is under way when a game left
    # idle wakes (its mark worked out without the game) is followed by the lowering, not
    # the other way round.
    seen.starts = {}
    flaky.held.clear()
    stepping = asyncio.create_task(marks.step())
    await flaky.waiting.wait()  # the step's put of the floor, 6, is under way
    lowering = asyncio.create_task(marks.lower(1, 3))
    await asyncio.sleep(0.05)
    flaky.held.set()
    await asyncio.gather(stepping, lowering)
    assert await mark() == 3
    # A mark that could not be read at a takeover may be past any table: the first wake of
    # a game left idle lowers it, to the first record of the oldest unfinished table the
    # replica holds (it read the whole partition) if that is lower: the bucket may have
    # held anything, below the game too.
    taker = seen.marks(cast(KeyValue, flaky), log)
    flaky.fail_get = True
    assert await taker.read([1]) == {1: 0}  # read from the log's first record
    assert taker.passes(1, 1_000_000)
    seen.starts = {1: [2, 5]}
    await taker.lower(1, 5)
    assert await mark() == 2 and not taker.passes(1, 2)
    # A replica that no longer answers for the partition, or whose lease is not fresh,
    # moves no mark: the partition's new holder keeps its own.
    seen.stale.add(1)
    with pytest.raises(NotHolding):
        await taker.lower(1, 1)
    seen.answering = set()
    seen.stale.clear()
    with pytest.raises(NotHolding):
        await taker.lower(1, 1)
    assert await mark() == 2


# --- two referee processes -------------------------------------------------------------------

RATE = 2  # the referee's clock runs twice as fast as the wall's
EXPIRY_MS = 10_000  # referee clock: 5 s at the stack's rate, long enough to make live first


@pytest.fixture
def stack(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Stack]:
    s = Stack(
        tmp_path / "stack",
        services=("dealer",),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_LEASE_TTL_S": str(TTL_S),
            "REFEREE_MARK_EVERY_S": str(MARK_EVERY_S),
            "REFEREE_TABLE_EXPIRY_MS": str(EXPIRY_MS),
            "REFEREE_FORGET_AFTER_S": "0.5",
            **getattr(request, "param", {}),  # a test's own settings
        },
    )
    yield from running(s)


async def mark_of(nc: Client, table: str) -> int:
    """The mark of the table's partition (0: none)."""
    kv = await nc.jetstream().key_value(subjects.REFEREE_MARKS_BUCKET)
    try:
        entry = await kv.get(subjects.partition_name(subjects.partition_of(table)))
    except KeyNotFoundError:
        return 0
    return int((entry.value or b"").decode())


async def table_command(
    nc: Client, table: str, player: str, request_id: str, **command: Any
) -> referee_pb2.TableCommandReply:
    request = referee_pb2.TableCommand(
        table_id=table, player_id=player, request_id=request_id, **command
    )
    data = await ask(nc, subjects.referee_table(table), request.SerializeToString())
    return referee_pb2.TableCommandReply.FromString(data)


async def test_a_replica_taking_a_partition_on_reads_it_from_its_mark(
    two: tuple[Referees, Client],  # noqa: F811 (the fixture, imported)
    stack: Stack,
) -> None:
    refs, nc = two
    held = await holders(nc)
    ours = [
        t for t in (f"mk{i:04d}tbl" for i in range(2000)) if held[subjects.partition_of(t)] == "ra"
    ]
    partition = subjects.partition_of(ours[0])
    old, live = [t for t in ours if subjects.partition_of(t) == partition][:2]
    others = [p for p in dict.fromkeys(subjects.partition_of(t) for t in ours) if p != partition]
    other, third = others[:2]
    quiet, later = [t for t in ours if subjects.partition_of(t) == other][:2]
    solo = next(t for t in ours if subjects.partition_of(t) == third)
    # old waits for a second player who never comes; live fills and starts at once. old then
    # expires: its last record is stored after live's first, so a read from live's first
    # record meets old without its beginning.
    assert (await table_command(nc, old, "cat", "old-cat", **create())).HasField("accepted")
    # A third partition: a solo Concentration game with one card up, which waits for its player
    # and holds its partition's mark. The other partition: a table that expires, and nothing
    # after (its mark passes its frame).
    made = await table_command(nc, solo, "ida", "solo-ida", **concentration(1))
    assert made.HasField("accepted"), made
    assert (await flip(nc, solo, "ida", 1)).HasField("accepted")
    assert (await table_command(nc, quiet, "eve", "quiet-eve", **create())).HasField("accepted")
    for player, command in (
        ("ann", create(window=120_000)),  # a minute at the stack's rate: no Ready is missed
        ("bob", {"join_table": {"display_name": "Bob"}}),
    ):
        reply = await table_command(nc, live, player, f"live-{player}", **command)
        assert reply.HasField("accepted"), reply
    log = TableLog(nc.jetstream())
    live_first = (await log.read(live))[0].sequence
    old_records: list[StoredRecord] = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        old_records = await log.read(old)
        if len(old_records) > 1 and len(await log.read(quiet)) > 1:
            break
        await asyncio.sleep(0.1)
    assert old_records[0].sequence < live_first < old_records[-1].sequence, "old never expired"
    deadline = time.monotonic() + 20
    quiet_last = (await log.read(quiet))[-1]
    solo_first = (await log.read(solo))[0].sequence
    assert quiet_last.framed, "quiet's expiry is in a frame"
    while time.monotonic() < deadline:
        if (
            await mark_of(nc, live) == live_first
            and await mark_of(nc, quiet) > quiet_last.sequence
            and await mark_of(nc, solo) == solo_first
        ):
            break
        await asyncio.sleep(0.1)
    mark = await mark_of(nc, live)
    assert mark == live_first, f"the mark is {mark}, not live's first record {live_first}"
    assert await mark_of(nc, quiet) > quiet_last.sequence
    assert await mark_of(nc, solo) == solo_first

    refs.kill("ra")
    ready = await ask(
        nc, subjects.referee_race(live), race(live, "ann", "live-ready", press_ready={})
    )
    assert race_command_pb2.RaceCommandReply.FromString(ready).HasField("accepted")
    assert (await holders(nc))[partition] == "rb"
    taken = [
        json.loads(line)
        for line in (stack.workdir / "logs" / "referee-rb.log").read_text().splitlines()
        if '"partitions taken on"' in line
    ]
    took = [t for t in taken if partition in t["partitions"]][-1]
    assert took["from_sequence"] > 0
    assert took["from_sequence"] <= live_first
    assert took["begun_before_mark"] >= 1  # old, met without its beginning, left on the log
    assert took["quarantined"] == 0
    # old is still answered as it is on the log: read back, expired, not quarantined.
    late = await table_command(nc, old, "dan", "old-dan", join_table={"display_name": "Dan"})
    assert late.refusal.code == "table_expired", late
    # A partition read from a mark past its last frame is fenced on that frame: a new table's
    # second record (its first framed one) is stored at the first try, not refused as stale.
    assert (await table_command(nc, later, "fay", "later-fay", **create())).HasField("accepted")
    join = referee_pb2.TableCommand(
        table_id=later, player_id="gus", request_id="later-gus", join_table={"display_name": "G"}
    )
    answer = await nc.request(subjects.referee_table(later), join.SerializeToString(), 10)
    joined = referee_pb2.TableCommandReply.FromString(answer.data)
    assert joined.HasField("accepted"), joined
    assert (await log.read(later))[-1].framed
    # The solo game, read whole from its partition's mark, goes on: the second card of the turn.
    second = await flip(nc, solo, "ida", 2)
    assert second.HasField("accepted"), second
    assert ("card_flipped", 2) in [
        (e.concentration.WhichOneof("event"), e.concentration.card_flipped.card)
        for e in second.accepted.events
    ]


IDLE_RATE = 10  # 30 s of a turn's time limit pass in 3 s


@pytest.mark.parametrize(
    "stack",
    [{"REFEREE_MARK_IDLE_S": "1", "REFEREE_CLOCK_RATE": str(IDLE_RATE)}],
    indirect=True,
)
async def test_a_game_left_idle_lets_the_mark_pass_and_a_command_lowers_it_first(
    two: tuple[Referees, Client],  # noqa: F811 (the fixture, imported)
    stack: Stack,
) -> None:
    """A solo game nobody plays and with no deadline stops holding its partition's mark. A
    flip that gives it a deadline lowers the mark before the flip is stored, so a replica
    taking the partition on loads the game and keeps that deadline, with no further command."""
    refs, nc = two
    held = await holders(nc)
    solo = next(
        t
        for t in (f"idle{i:04d}tbl" for i in range(2000))
        if held[subjects.partition_of(t)] == "ra"
    )
    limited = Settings()
    limited.CopyFrom(SMALL)
    limited.turn_limit_ms = 30_000  # the second card within 30 s
    made = await table_command(nc, solo, "ida", "solo-ida", **concentration(1, limited))
    assert made.HasField("accepted"), made
    log = TableLog(nc.jetstream())
    first = (await log.read(solo))[0].sequence
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and await mark_of(nc, solo) <= first:
        await asyncio.sleep(0.1)
    assert await mark_of(nc, solo) > first, "the idle game still holds its partition's mark"
    # ra has put it away (out of memory), as a takeover leaves it: the flip reads it back.
    ra_log = stack.workdir / "logs" / "referee-ra.log"

    def said(what: str) -> int:
        return sum(what in line and solo in line for line in ra_log.read_text().splitlines())

    async def put_away(times: int) -> int:
        """Wait until ra has put the game away ``times`` times; the lowest mark seen meanwhile."""
        lowest = await mark_of(nc, solo)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and said('"games left idle put away"') < times:
            lowest = min(lowest, await mark_of(nc, solo))
            await asyncio.sleep(0.05)
        assert said('"games left idle put away"') >= times
        return lowest

    await put_away(1)
    # Ida's app reconnects: a presence report reads the game back and changes nothing. It
    # stays idle (active as of its latest event): put away again, the mark never back on it.
    back = await table_command(nc, solo, "ida", "solo-back", presence={"present": True})
    assert back.HasField("accepted"), back
    assert said('"table read again from the log"') == 1
    assert await put_away(2) > first

    flipped = await flip(nc, solo, "ida", 1)  # the second card is due 30 s on
    assert flipped.HasField("accepted"), flipped
    assert said('"table read again from the log"') == 2
    assert await mark_of(nc, solo) == first  # lowered before the flip was stored
    refs.kill("ra")
    deadline = time.monotonic() + 30
    timed_out: list[str] = []
    while time.monotonic() < deadline and "time_ran_out" not in timed_out:
        timed_out = [
            e.concentration.WhichOneof("event")
            for r in await log.read(solo)
            for e in referee_pb2.TableRecord.FromString(r.data).events
        ]
        await asyncio.sleep(0.2)
    assert "time_ran_out" in timed_out, "the replica taking over never loaded the woken game"
    assert (await holders(nc))[subjects.partition_of(solo)] == "rb"
