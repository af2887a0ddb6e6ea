"""A watched table's feed over a real nats-server (services/lobby/fanout.py): the lobby's copy
of the log pushes each record it stores (RePublish), the feed subscribes to its table's pushes,
catches up from the copy with a consumer it deletes once caught up, and reads the copy again when
a push is missing, so it holds every record in stream order, and no consumer while it follows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import StreamConfig

from match_bus import subjects, upgrade
from match_bus.jetstream import copy_config, ensure_stream, pushes_live
from match_launch.natsserver import NatsServer
from services.lobby import fanout, metrics
from services.lobby.fanout import TableFeed, Watches
from services.lobby.limits import WatchLimits

TABLE, OTHER = "feed00000001", "feed00000002"


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    yield client
    await client.close()


async def append(nc: Client, table: str, n: int, tag: str = "r") -> list[int]:
    """``n`` records (their bytes name the table and their place) appended to the table's log;
    their stream sequences."""
    js = nc.jetstream()
    sequences = []
    for i in range(n):
        ack = await js.publish(subjects.events(table), f"{table}:{tag}{i}".encode())
        sequences.append(ack.seq)
    return sequences


async def held(feed: TableFeed, sequences: list[int], timeout_s: float = 10.0) -> None:
    """Wait until ``feed`` holds exactly the records at ``sequences``, in that order."""
    deadline = time.monotonic() + timeout_s
    while [s for s, _ in feed.records] != sequences:
        assert time.monotonic() < deadline, ([s for s, _ in feed.records], sequences)
        await asyncio.sleep(0.02)
    assert all(data.startswith(feed.table_id.encode()) for _, data in feed.records)


async def consumers(nc: Client) -> int:
    return int((await nc.jetstream().stream_info(subjects.LOBBY_EVENTS)).state.consumer_count)


def catch_ups(reason: str) -> float:
    return metrics.FEED_CATCH_UPS.labels(reason)._value.get()  # type: ignore[no-any-return]


def dropping(monkeypatch: pytest.MonkeyPatch, after: int) -> list[int]:
    """Lose the first push after stream sequence ``after``, as a slow subscription or a
    reconnection loses one: the feed never sees it. The sequences lost."""
    take = TableFeed._take
    lost: list[int] = []

    def take_or_lose(feed: TableFeed, msg: Msg) -> bool:
        sequence = int((msg.headers or {})[fanout.SEQUENCE_HEADER])
        if sequence > after and not lost:
            lost.append(sequence)
            return True  # as if it never came
        return take(feed, msg)

    monkeypatch.setattr(TableFeed, "_take", take_or_lose)
    return lost


async def test_a_feed_catches_up_then_takes_pushes_and_holds_no_consumer(nc: Client) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    before = await append(nc, TABLE, 5)
    await append(nc, OTHER, 3)
    started = catch_ups("start")
    feed = TableFeed(nc, js, TABLE)
    try:
        await held(feed, before)
        assert catch_ups("start") == started + 1
        deadline = time.monotonic() + 5
        while await consumers(nc) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert await consumers(nc) == 0  # caught up: the consumer is gone
        after = []
        for i in range(20):  # live, interleaved with another table's records
            after += await append(nc, TABLE, 1, f"live{i}")
            await append(nc, OTHER, 1, f"live{i}")
        await held(feed, before + after)
        assert await consumers(nc) == 0  # every one of them pushed, none read from the copy
        assert catch_ups("start") == started + 1
    finally:
        await feed.close()


@pytest.mark.parametrize(("pushed_after", "reason"), [(3, "gap"), (1, "quiet")])
async def test_a_lost_push_is_read_from_the_copy(
    nc: Client, monkeypatch: pytest.MonkeyPatch, pushed_after: int, reason: str
) -> None:
    """A push lost with more pushed after it: the next one shows the gap. The table's last push
    lost, nothing after it: the feed finds it when the table goes quiet."""
    if reason == "quiet":
        monkeypatch.setattr(fanout, "STALL_CHECK_S", 0.3)
    js = nc.jetstream()
    await ensure_stream(js)
    first = await append(nc, TABLE, 2)
    feed = TableFeed(nc, js, TABLE)
    try:
        await held(feed, first)
        lost = dropping(monkeypatch, after=first[-1])
        before = catch_ups(reason)
        more = await append(nc, TABLE, pushed_after)
        await held(feed, first + more)
        assert lost == [more[0]] and catch_ups(reason) == before + 1
    finally:
        await feed.close()


async def test_a_lobby_follows_more_tables_than_its_copy_has_consumers(nc: Client) -> None:
    """The copy's consumers are taken only while feeds catch up: with a cap of 3 (an operator's
    own copy), 12 tables are followed at once, each with every record, pushed ones too."""
    js = nc.jetstream()
    config = copy_config("lobby", subjects.LOBBY_EVENTS)
    config.max_consumers = 3
    await js.add_stream(StreamConfig(name=subjects.EVENTS_STREAM, subjects=[subjects.EVENTS_ALL]))
    await js.add_stream(config)
    tables = [f"many{i:08d}" for i in range(12)]
    written = {t: await append(nc, t, 4) for t in tables}
    watches = Watches(nc, js, WatchLimits(per_player=0, per_address=0, per_lobby=0, tables=0))
    try:
        feeds = [watches._join(t, None) for t in tables]  # followed, as a Watch joins them
        for feed in feeds:
            await held(feed, written[feed.table_id], timeout_s=30)
        for t in tables:
            written[t] += await append(nc, t, 2, "live")
        for feed in feeds:
            await held(feed, written[feed.table_id])
        assert await consumers(nc) <= 3
    finally:
        await watches.close()


async def test_a_copy_made_before_the_push_is_followed_by_consumer_until_it_gets_it(
    nats_server: NatsServer, nc: Client
) -> None:
    """An older deployment's copy does not push: the lobby follows its watched tables with a
    consumer kept open, as it did before, until the operator's upgrade adds the push (and
    changes nothing else of the copy); tables followed from then on are pushed."""
    js = nc.jetstream()
    old: Any = copy_config("lobby", subjects.LOBBY_EVENTS)
    old.republish = None
    old.max_consumers = 7  # an operator's own setting
    await js.add_stream(StreamConfig(name=subjects.EVENTS_STREAM, subjects=[subjects.EVENTS_ALL]))
    await js.add_stream(old)
    await ensure_stream(js)  # keeps an existing copy as it is
    assert not await pushes_live(js)
    watches = Watches(nc, js, WatchLimits(per_player=0, per_address=0, per_lobby=0, tables=0))
    try:
        before = watches._join(TABLE, None)
        written = await append(nc, TABLE, 3)
        await held(before, written)
        written += await append(nc, TABLE, 2, "live")
        await held(before, written)
        assert await consumers(nc) == 1  # the old way: one consumer per table followed

        assert await upgrade.live_push(nats_server.url, "") == (
            "added: the lobby's copy of the log now pushes its records on match.live.>"
        )
        info = await js.stream_info(subjects.LOBBY_EVENTS)
        assert info.config.max_consumers == 7 and await pushes_live(js)
        after = watches._join(OTHER, None)
        others = await append(nc, OTHER, 2) + await append(nc, OTHER, 2, "live")
        await held(after, others)
        written += await append(nc, TABLE, 1, "more")
        await held(before, written)  # the older feed goes on as it was
        assert await consumers(nc) == 1
        assert "nothing to do" in await upgrade.live_push(nats_server.url, "")
    finally:
        await watches.close()
    players = await js.stream_info(subjects.PLAYERS_EVENTS)
    assert players.config.republish is None  # only the lobby's copy pushes
