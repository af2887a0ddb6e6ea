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
from match_bus.records import FACTS_HEADER, NO_FACTS, NUMBERS_HEADER, pack
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
    while [r.sequence for r in feed.records] != sequences:
        assert time.monotonic() < deadline, ([r.sequence for r in feed.records], sequences)
        await asyncio.sleep(0.02)
    assert all(r.data.startswith(feed.table_id.encode()) for r in feed.records)


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


# --- frames: several tables' records of a partition in one message (group commit) -------------


def partition_mates(table: str, count: int) -> list[str]:
    partition = subjects.partition_of(table)
    return [
        t
        for n in range(10_000)
        if subjects.partition_of(t := f"mate{n:08d}") == partition and t != table
    ][:count]


class Framer:
    """Appends records to tables, the first of each alone on its subject and the others in
    the partition's frames, each with its record number as the referee's headers say it."""

    def __init__(self, nc: Client) -> None:
        self._js = nc.jetstream()
        self.numbers: dict[str, int] = {}

    def _entry(self, table: str, tag: str) -> tuple[str, bytes, dict[str, str]]:
        number = self.numbers[table] = self.numbers.get(table, 0) + 1
        headers = {FACTS_HEADER: NO_FACTS, NUMBERS_HEADER: f"{number} {number} 0"}
        return table, f"{table}:{tag}{number}".encode(), headers

    async def first(self, table: str) -> int:
        _, data, headers = self._entry(table, "first")
        return (await self._js.publish(subjects.events(table), data, headers=headers)).seq

    async def frame(self, *tables: str, tag: str = "f") -> int:
        partition = subjects.partition_of(tables[0])
        entries = [self._entry(t, tag) for t in tables]
        return (await self._js.publish(subjects.frames(partition), pack(entries))).seq


async def held_places(feed: TableFeed, places: list[tuple[int, int]], within: float = 10) -> None:
    deadline = time.monotonic() + within
    while [(r.sequence, r.index) for r in feed.records] != places:
        got = [(r.sequence, r.index) for r in feed.records]
        assert time.monotonic() < deadline, (got, places)
        await asyncio.sleep(0.02)
    assert all(r.data.startswith(feed.table_id.encode()) for r in feed.records)


async def test_a_feed_takes_its_tables_records_from_its_partitions_frames(nc: Client) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    framer = Framer(nc)
    (mate,) = partition_mates(TABLE, 1)
    places = [(await framer.first(TABLE), 0)]
    await framer.first(mate)
    places.append((await framer.frame(mate, TABLE), 1))
    watches = Watches(nc, js, WatchLimits(per_player=0, per_address=0, per_lobby=0, tables=0))
    try:
        feed, other = watches._join(TABLE, None), watches._join(mate, None)
        await held_places(feed, places)
        started = catch_ups("start")
        for i in range(10):  # live: pushed frames, its entries anywhere in them
            seq = await framer.frame(TABLE, mate) if i % 2 else await framer.frame(mate, TABLE)
            places.append((seq, 1 - i % 2))
        await held_places(feed, places)
        await held_places(other, [(r.sequence, r.index) for r in other.records][:12])
        assert len(other.records) == 12
        assert catch_ups("start") == started and await consumers(nc) == 0  # all pushed
        # One subscription to the partition's frames for both feeds.
        (frames,) = watches._frames.values()
        assert set(frames.feeds) == {TABLE, mate} and frames._sub is not None
        # A frame without its records: the feed holds everything up to it all the same.
        end = await framer.frame(mate)
        assert await feed.record_through(len(feed.records), end, 5.0) is None
        assert feed.through >= end
    finally:
        await watches.close()
    assert frames.feeds == {} and frames._sub is None  # no feed: no subscription


@pytest.mark.parametrize(
    ("pushed_after", "mate_after", "reason"), [(3, 0, "gap"), (1, 1, "gap"), (1, 0, "quiet")]
)
async def test_a_lost_frame_is_read_from_the_copy(
    nc: Client,
    monkeypatch: pytest.MonkeyPatch,
    pushed_after: int,
    mate_after: int,
    reason: str,
) -> None:
    """A frame with the table's record lost, more pushed after it, with the table's records or
    only another table's: the next frame names the one before it, which the partition's
    subscription did not get. The partition's last frame lost: the feed finds it when the table
    goes quiet."""
    if reason == "quiet":
        monkeypatch.setattr(fanout, "STALL_CHECK_S", 0.3)
    js = nc.jetstream()
    await ensure_stream(js)
    framer = Framer(nc)
    lost: list[int] = []
    losing = False
    on_frame = fanout.FramePushes._on_frame

    async def take_or_lose(frames: fanout.FramePushes, msg: Msg) -> None:
        if losing and not lost:  # the partition's subscription never gets it
            lost.append(int((msg.headers or {})[fanout.SEQUENCE_HEADER]))
            return
        await on_frame(frames, msg)

    monkeypatch.setattr(fanout.FramePushes, "_on_frame", take_or_lose)
    places = [(await framer.first(TABLE), 0), (await framer.frame(TABLE), 0)]
    feed = TableFeed(nc, js, TABLE)
    try:
        await held_places(feed, places)
        losing = True
        before = catch_ups(reason)
        more = [(await framer.frame(TABLE), 0) for _ in range(pushed_after)]
        for mate in partition_mates(TABLE, mate_after):
            await framer.first(mate)
            await framer.frame(mate)
        await held_places(feed, places + more)
        assert lost == [more[0][0]] and catch_ups(reason) == before + 1
    finally:
        await feed.close()
