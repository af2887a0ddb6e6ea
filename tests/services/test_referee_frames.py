"""Group commit (REFEREE_FRAMES=1) over real NATS with the real referee and dealer: a table's
first record alone on its subject, every later one in its partition's frames, several tables'
records to a frame when they come while one is being stored; everything read back in order,
after a restart too; and a frame another writer appended behind the referee's back fences it
for the partition, which it reads again and goes on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.jetstream import TableLog, read_table
from match_bus.records import pack, unpack
from match_launch.stack import Stack
from tests.conftest import running
from tests.services.ready import until_the_referee_answers
from tests.services.test_referee import RATE, create, same_partition, table_cmd

TABLES = ["t8frames01"] + [same_partition("t8frames01", f"t8frame{n}") for n in range(1, 6)]


@pytest.fixture
def stack(tmp_path: Path) -> Any:
    anchor = str(int(time.time() * 1000))
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee"),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": anchor,
            "REFEREE_FRAMES": "1",
        },
    )
    yield from running(s)


@pytest.fixture
async def nc(stack: Stack) -> AsyncIterator[Client]:
    client = await stack.connect_nats()
    await until_the_referee_answers(client)
    yield client
    await client.close()


async def frames_of(nc: Client, partition: int) -> list[list[str]]:
    """The tables of each frame of the partition, in order."""
    js = nc.jetstream()
    out = []
    info = await js.stream_info(subjects.EVENTS_STREAM)
    for seq in range(1, info.state.last_seq + 1):
        msg = await js.get_msg(subjects.EVENTS_STREAM, seq)
        if msg.subject == subjects.frames(partition):
            out.append([r.table_id or "" for r in unpack(msg.subject, msg.data or b"")])
    return out


async def test_records_after_a_tables_first_go_in_frames_and_read_back(
    nc: Client, stack: Stack
) -> None:
    js = nc.jetstream()
    partition = subjects.partition_of(TABLES[0])
    for table in TABLES:
        made = await table_cmd(nc, table, "ann", **create(seats=4))
        assert made.WhichOneof("result") == "accepted", made
    assert await frames_of(nc, partition) == []  # a table's first record is alone
    for player in ("bob", "carol"):  # every table at once: they share frames
        joined = await asyncio.gather(
            *(table_cmd(nc, t, player, join_table={"display_name": player}) for t in TABLES)
        )
        assert all(j.WhichOneof("result") == "accepted" for j in joined), joined
    frames = await frames_of(nc, partition)
    assert sorted(t for frame in frames for t in frame) == sorted(TABLES * 2)
    assert any(len(frame) > 1 for frame in frames), frames  # group commit happened
    for table in TABLES:
        records = await TableLog(js).read(table)
        assert [r.framed for r in records] == [False, True, True]
        decoded = [referee_pb2.TableRecord.FromString(r.data) for r in records]
        assert [r.record_number for r in decoded] == [1, 2, 3]
        assert [e.event_number for r in decoded for e in r.events] == list(
            range(1, sum(len(r.events) for r in decoded) + 1)
        )

    stack.stop_service("referee")
    stack.start_service("referee")  # rebuilds the tables from their records and frames
    left = await table_cmd(nc, TABLES[0], "carol", leave_table={})
    assert left.WhichOneof("result") == "accepted", left
    assert [r.framed for r in await TableLog(js).read(TABLES[0])] == [False, True, True, True]


async def test_a_frame_appended_behind_the_referees_back_fences_it_until_it_reads_again(
    nc: Client, stack: Stack
) -> None:
    js = nc.jetstream()
    table, other = TABLES[0], TABLES[1]
    for t in (table, other):
        assert (await table_cmd(nc, t, "ann", **create(seats=4))).WhichOneof("result") == (
            "accepted"
        )
    joined = await table_cmd(nc, table, "bob", join_table={"display_name": "Bob"})
    assert joined.WhichOneof("result") == "accepted", joined
    # Another writer (a replica that still thinks it holds the partition) appends a frame: a
    # record of the other table, as the referee would have written it.
    source = (await read_table(js, table))[1]
    record = referee_pb2.TableRecord.FromString(source.data)
    record.table_id = other
    for env in record.events:
        env.table_id = env.game_id = other
    frame = pack([(other, record.SerializeToString(), dict(source.headers or {}))])
    await js.publish(subjects.frames(subjects.partition_of(table)), frame)
    # The referee's next frame is fenced (it did not know that one): refused, nothing changed;
    # it reads the fence and the table again, and the next try is accepted.
    for player, t in (("carol", table), ("dave", other)):
        reply = await table_cmd(nc, t, player, join_table={"display_name": player})
        assert reply.WhichOneof("result") == "accepted", reply
    seats = {
        t: [
            e.table.player_seated.player_id
            for r in await read_table(js, t)
            for e in referee_pb2.TableRecord.FromString(r.data).events
            if e.table.HasField("player_seated")
        ]
        for t in (table, other)
    }
    assert seats == {table: ["ann", "bob", "carol"], other: ["ann", "bob", "dave"]}
    for t in (table, other):  # each table's records numbered with no gap or repeat
        numbers = [
            referee_pb2.TableRecord.FromString(r.data).record_number
            for r in await read_table(js, t)
        ]
        assert numbers == [1, 2, 3], (t, numbers)
