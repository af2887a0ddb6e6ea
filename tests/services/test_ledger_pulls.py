"""The ledger's pull requests (``services.ledger.consumer.Pulls``): what the consumer has, at once
and in stream order, up to the batch; nothing after the time-out when nothing comes, but the
first records to come as soon as they come; the rest of a long log over the next requests.
Real nats-server, the ledger's own durable consumer."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import nats
import pytest
from nats.aio.client import Client

from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_launch.natsserver import NatsServer
from services.ledger.consumer import Pulls, consumer_config

DURABLE = "ledger"


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    js = client.jetstream()
    await ensure_stream(js)
    await js.add_consumer(subjects.EVENTS_STREAM, consumer_config(DURABLE))
    yield client
    await client.close()


async def append(nc: Client, count: int, start: int = 0) -> list[int]:
    js = nc.jetstream()
    subject = subjects.events("tablepull01")
    return [(await js.publish(subject, b"record %d" % n)).seq for n in range(start, start + count)]


async def test_what_the_consumer_has_comes_at_once_in_order(nc: Client) -> None:
    sequences = await append(nc, 10)
    pulls = await Pulls.open(nc, DURABLE)
    try:
        began = time.monotonic()
        got = await pulls.fetch(256, timeout=10.0)
        assert time.monotonic() - began < 9.0  # not the whole time-out for a short batch
        assert [m.metadata.sequence.stream for m in got] == sequences
        assert [m.data for m in got] == [b"record %d" % n for n in range(10)]
    finally:
        await pulls.close()


async def test_nothing_comes_empty_after_the_time_out_and_a_late_record_at_once(
    nc: Client,
) -> None:
    pulls = await Pulls.open(nc, DURABLE)
    try:
        began = time.monotonic()
        assert await pulls.fetch(256, timeout=0.5) == []
        assert 0.4 < time.monotonic() - began < 3.0

        async def later() -> list[int]:
            await asyncio.sleep(0.3)
            return await append(nc, 1)

        appending = asyncio.create_task(later())
        began = time.monotonic()
        got = await pulls.fetch(256, timeout=10.0)
        assert time.monotonic() - began < 9.0  # answered when the record came
        assert [m.metadata.sequence.stream for m in got] == await appending
    finally:
        await pulls.close()


async def test_a_long_log_comes_a_batch_at_a_time_each_acked(nc: Client) -> None:
    sequences = await append(nc, 300)
    pulls = await Pulls.open(nc, DURABLE)
    try:
        seen: list[int] = []
        while len(seen) < len(sequences):
            got = await pulls.fetch(128, timeout=10.0)
            assert got, f"the consumer stopped after {len(seen)} of {len(sequences)}"
            assert len(got) <= 128
            seen += [m.metadata.sequence.stream for m in got]
            await got[-1].ack_sync()  # AckPolicy.ALL: the batch's last acks it all (confirmed)
        assert seen == sequences
        info = await nc.jetstream().consumer_info(subjects.EVENTS_STREAM, DURABLE)
        assert info.num_pending == 0
        assert info.num_ack_pending == 0
    finally:
        await pulls.close()
