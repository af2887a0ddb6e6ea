"""Reading one table back from the log when some of its records came in its partition's frames
(match_bus.jetstream.read_table), over a real nats-server: its records and only its, in order,
with their places, from its first record (always on its own subject) or after a place."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import nats
import pytest
from nats.aio.client import Client

from match_bus import subjects
from match_bus.jetstream import closes, ensure_stream, read_table, table_end, table_start
from match_bus.records import FACTS_HEADER, StoredRecord, pack
from match_launch.natsserver import NatsServer
from tests.bus.test_frames import tables_of_partition


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    try:
        yield client
    finally:
        await client.close()


async def test_a_tables_records_are_read_from_its_subject_and_its_partitions_frames(
    nc: Client,
) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    one, two = tables_of_partition(7, 2)
    frames = subjects.frames(7)
    assert await table_start(js, one) == 0 and await read_table(js, one) == []
    await js.publish(subjects.events(two), b"two 1")
    first = (await js.publish(subjects.events(one), b"one 1")).seq
    a = (await js.publish(frames, pack([(two, b"two 2", {}), (one, b"one 2", {})]))).seq
    b = (await js.publish(frames, pack([(two, b"two 3", {})]))).seq
    c = (await js.publish(subjects.events(one), b"one 3")).seq
    d = (await js.publish(frames, pack([(one, b"one 4", {}), (two, b"two 4", {})]))).seq
    last = (await js.publish(subjects.frames(8), pack([(one, b"not its partition", {})]))).seq

    assert await table_start(js, one) == first
    assert await table_end(js, one) == d
    read = await read_table(js, one)
    assert [(r.sequence, r.index, r.data, r.framed) for r in read] == [
        (first, 0, b"one 1", False),
        (a, 1, b"one 2", True),
        (c, 0, b"one 3", False),
        (d, 0, b"one 4", True),
    ]
    after = await read_table(js, one, after=(a, 1))
    assert [r.data for r in after] == [b"one 3", b"one 4"]
    assert await read_table(js, one, after=(d, 0)) == []
    assert [r.data for r in await read_table(js, one, until=b)] == [b"one 1", b"one 2"]
    enough = await read_table(js, one, enough=lambda r: r.data == b"one 3")
    assert [r.data for r in enough] == [b"one 1", b"one 2", b"one 3"]
    # The lobby's copy of the log holds the same records under the same sequences.
    async with asyncio.timeout(10):
        while (await js.stream_info(subjects.LOBBY_EVENTS)).state.last_seq < last:
            await asyncio.sleep(0.02)
    copied = await read_table(js, one, subjects.LOBBY_EVENTS)
    assert [(r.sequence, r.index, r.data) for r in copied] == [
        (r.sequence, r.index, r.data) for r in read
    ]


def test_a_record_closes_its_table_when_its_headers_say_the_seed_is_out_or_it_expired() -> None:
    def said(facts: str | None) -> StoredRecord:
        return StoredRecord(1, b"", headers=None if facts is None else {FACTS_HEADER: facts})

    assert closes(said("seed_revealed")) and closes(said("game_over,table_expired"))
    assert not closes(said("none")) and not closes(said("game_over")) and not closes(said(None))
