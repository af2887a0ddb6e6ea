"""A stream or bucket nats-server refuses to make (400) while it is not there: made on a later
try when the refusal passes, or a RuntimeError with the server's reason, not the bare
BucketNotFoundError a service used to exit with. Real nats-server, its account allowed one
stream, so the refusal is the server's own (maximum number of streams reached)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client
from nats.js.api import StreamConfig

from match_bus import jetstream
from match_launch.natsserver import NatsServer

ONE_STREAM = (
    "accounts {\n  A: { jetstream: { max_streams: 1 }, users: [{ user: a, password: a }] }\n}\n"
)


@pytest.fixture
async def nc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Client]:
    monkeypatch.setattr(jetstream, "MAKE_BACKOFF_S", 0.05)
    server = NatsServer(tmp_path / "nats", authorization=ONE_STREAM).start()
    try:
        client = await nats.connect(server.url, user="a", password="a")
        await client.jetstream().add_stream(StreamConfig(name="TAKEN", subjects=["taken"]))
        yield client
        await client.close()
    finally:
        server.stop()


async def test_a_refusal_that_lasts_says_the_servers_reason(nc: Client) -> None:
    with pytest.raises(RuntimeError) as refused:
        await jetstream.open_bucket(nc.jetstream(), "SEATS", "seats")
    assert str(refused.value) == (
        "nats-server refused to make the bucket SEATS, and it is not there: "
        "maximum number of streams reached"
    )
    with pytest.raises(RuntimeError, match="the stream MATCH_EVENTS, and it is not there"):
        await jetstream.ensure_stream(nc.jetstream())


async def test_a_refusal_that_passes_is_tried_again(nc: Client) -> None:
    js = nc.jetstream()

    async def free_the_slot() -> None:
        await asyncio.sleep(0.07)  # after the first refusal, before the last try
        await js.delete_stream("TAKEN")

    freeing = asyncio.create_task(free_the_slot())
    kv = await jetstream.open_bucket(js, "SEATS", "seats")
    await freeing
    await kv.put("k", b"v")
    assert (await kv.get("k")).value == b"v"
    assert [s.config.name for s in await js.streams_info()] == ["KV_SEATS"]
