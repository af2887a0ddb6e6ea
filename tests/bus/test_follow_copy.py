"""``match_bus.jetstream.follow_copy``, how the lobby's table listing and the players service
follow the log: every record handed over in stream order from where the follower got to, the
quiet check when nothing comes (never in the middle of a record), and the follow ended by the
first failure of either. And ``consume_until``, how a table's records are read back. Both take
records as a callback subscription does. Real nats-server, the streams as the services make
them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import nats
import nats.errors
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg

from match_bus import jetstream, subjects
from match_bus.records import StoredRecord
from match_launch.natsserver import NatsServer
from tests import cycles

TABLES = ("tablezero0", "tableone11", "tabletwo22")


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    await jetstream.ensure_stream(client.jetstream())
    yield client
    await client.close()


async def append(nc: Client, count: int) -> list[int]:
    js = nc.jetstream()
    return [
        (await js.publish(subjects.events(TABLES[n % 3]), b"record %d" % n)).seq
        for n in range(count)
    ]


class Quiet(Exception):
    pass


async def test_every_record_in_stream_order_from_where_it_got_to(nc: Client) -> None:
    sequences = await append(nc, 30)
    seen: list[tuple[int, str, bytes]] = []
    quiet_after: list[int] = []

    async def take(msg: Msg) -> None:
        seen.append((msg.metadata.sequence.stream, msg.subject, msg.data))

    async def quiet() -> None:
        quiet_after.append(len(seen))
        if len(seen) == 20:  # the copy (a mirror) may lag the log by a moment
            raise Quiet()

    with pytest.raises(Quiet):  # the lobby's copy, from after the 10th record
        await jetstream.follow_copy(
            nc.jetstream(), subjects.LOBBY_EVENTS, sequences[9], take, quiet, idle_s=0.5
        )
    assert [s for s, _, _ in seen] == sequences[10:]
    assert [d for _, _, d in seen] == [b"record %d" % n for n in range(10, 30)]
    assert seen[0][1] == subjects.events(TABLES[1])  # record 10: 10 % 3
    assert quiet_after[-1] == 20  # only once nothing more came


async def test_quiet_runs_each_idle_spell_and_never_during_a_record(nc: Client) -> None:
    js = nc.jetstream()
    await append(nc, 3)
    busy = False
    seen: list[int] = []
    quiet_runs: list[bool] = []

    async def take(msg: Msg) -> None:
        nonlocal busy
        busy = True
        await asyncio.sleep(0.4)  # longer than idle_s: the quiet check must wait for it
        seen.append(msg.metadata.sequence.stream)
        busy = False

    async def quiet() -> None:
        quiet_runs.append(busy)
        if len(quiet_runs) == 1:
            await js.publish(subjects.events(TABLES[0]), b"late")  # the follow goes on
        elif len(quiet_runs) == 3:
            raise Quiet()

    with pytest.raises(Quiet):
        await jetstream.follow_copy(js, subjects.EVENTS_STREAM, 0, take, quiet, idle_s=0.25)
    assert seen == [1, 2, 3, 4]
    assert quiet_runs == [False, False, False]


async def test_a_failing_record_ends_the_follow_and_nothing_after_it_is_taken(
    nc: Client,
) -> None:
    await append(nc, 10)
    seen: list[int] = []

    async def take(msg: Msg) -> None:
        sequence = msg.metadata.sequence.stream
        if sequence == 4:
            raise ValueError("record 4 does not fit")
        seen.append(sequence)

    async def quiet() -> None:  # pragma: no cover - the failure ends the follow first
        raise AssertionError("quiet before the failure was seen")

    with pytest.raises(ValueError, match="record 4 does not fit"):
        await jetstream.follow_copy(
            nc.jetstream(), subjects.PLAYERS_EVENTS, 0, take, quiet, idle_s=5.0
        )
    await asyncio.sleep(0.2)  # a record still queued is not handed over after the end
    assert seen == [1, 2, 3]


async def test_a_table_is_read_up_to_the_sequence_asked_or_its_last_record(nc: Client) -> None:
    sequences = await append(nc, 30)  # tables 0, 1, 2 in turn
    js = nc.jetstream()
    table_one = sequences[1::3]
    read = await jetstream.consume_until(js, subjects.events(TABLES[1]), table_one[4])
    assert [r.sequence for _, r in read] == table_one[:5]
    assert {t for t, _ in read} == {TABLES[1]}
    assert [r.data for _, r in read] == [b"record %d" % n for n in range(1, 14, 3)]
    whole = await jetstream.consume_until(js, subjects.events(TABLES[1]), 10**9)
    assert [r.sequence for _, r in whole] == table_one  # the last one there: no wait for more
    for _ in range(100):  # the copy is a mirror: it may lag the log by a moment
        if (await js.stream_info(subjects.PLAYERS_EVENTS)).state.last_seq == sequences[-1]:
            break
        await asyncio.sleep(0.05)
    copy = await jetstream.consume_until(
        js, subjects.events(TABLES[2]), sequences[-1], stream=subjects.PLAYERS_EVENTS
    )
    assert [r.sequence for _, r in copy] == sequences[2::3]


async def test_reading_a_subject_that_stays_empty_times_out(nc: Client) -> None:
    await append(nc, 3)
    with pytest.raises(nats.errors.TimeoutError):
        await jetstream.consume_until(nc.jetstream(), subjects.events("tablenone0"), 1, timeout=0.5)


async def test_a_read_leaves_nothing_it_read_to_the_collector(nc: Client) -> None:
    """nats-py's subscription, its consumer's state and the read's callback make a cycle: the
    records read must not be in it, or every table read back stays in memory until the
    collector's slowest generation runs, and that collection walks them all."""
    await append(nc, 9)
    cycles.collect_now()
    read = await jetstream.consume_until(nc.jetstream(), subjects.events(TABLES[1]), 10**9)
    assert len(read) == 3
    del read
    assert cycles.left_to_collector(StoredRecord) == []
