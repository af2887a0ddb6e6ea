"""A lobby stores a snapshot of its table listing, and a lobby that starts reads the log from it
(services/lobby/snapshot.py), through the real stack (nats-server with its permissions, dealer,
referee, lobby; real gRPC): the restarted lobby lists the tables made before the snapshot and
those made while it was down, having read only the records after the snapshot; a snapshot it
cannot trust (another format, not a snapshot at all) is set aside and the whole log read."""

from __future__ import annotations

import asyncio
import json
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest
from nats.aio.client import Client
from nats.js.api import ObjectMeta

from match.v1 import lobby_listing_pb2, lobby_pb2, lobby_pb2_grpc
from match_bus import subjects
from match_launch.stack import Stack
from services.lobby import snapshot
from tests.conftest import running
from tests.services.ready import until_the_referee_answers
from tests.services.test_lobby_rematch import md
from tests.services.test_referee_games import create, table_cmd

EVERY_S = 0.5
RESTORED = "listing restored from its snapshot"
WAIT_S = 20.0


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee", "lobby"),
        env={"LOBBY_SNAPSHOT_EVERY_S": str(EVERY_S)},
    )
    yield from running(s)
    assert "Traceback" not in s.log("lobby", tail=0), s.log("lobby")


async def listed(channel: grpc.aio.Channel) -> set[str]:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    reply = await lobby.ListTables(lobby_pb2.ListTablesRequest(page_size=100), metadata=md())
    return {t.table_id for t in reply.tables}


async def make(nc: Client, *table_ids: str) -> None:
    for table_id in table_ids:  # open Concentration tables of two, one seat free: listed
        made = await table_cmd(nc, table_id, "ann", **create(2))
        assert made.WhichOneof("result") == "accepted", made


async def until(check, timeout: float = WAIT_S):  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not (got := await check()):
        assert time.monotonic() < end, "not seen in time"
        await asyncio.sleep(0.1)
    return got


def lines(log: str) -> list[dict[str, Any]]:
    """The lobby's log lines (one JSON object each)."""
    return [json.loads(line) for line in log.splitlines() if line.startswith("{")]


def started(stack: Stack) -> str:
    """Start the (stopped) lobby; what its log says from then on."""
    before = len(stack.log("lobby", tail=0))
    stack.start_service("lobby")
    stack.wait_healthy()
    return stack.log("lobby", tail=0)[before:]


async def test_a_restarted_lobby_reads_the_log_from_its_snapshot(stack: Stack) -> None:
    nc = await stack.connect_nats()
    js = nc.jetstream()
    try:
        await until_the_referee_answers(nc)
        before = [f"a{i:015x}" for i in range(3)]
        await make(nc, *before)
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            await until(lambda: _has(channel, before))
        last = (await js.stream_info(subjects.EVENTS_STREAM)).state.last_seq

        async def stored() -> int:  # the snapshot's sequence, once it holds the tables made
            store = await js.object_store(subjects.LOBBY_LISTING_BUCKET)
            info = await store.get_info(snapshot.NAME)
            seq = int(info.headers[snapshot.SEQUENCE_HEADER])
            return seq if seq >= last else 0

        held = await until(lambda: _quiet(stored))
        stack.stop_service("lobby")
        during = [f"b{i:015x}" for i in range(2)]
        await make(nc, *during)  # the lobby is down: only the log has them
        after = (await js.stream_info(subjects.EVENTS_STREAM)).state.last_seq
        stack.start_service("lobby")
        stack.wait_healthy()
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            assert await until(lambda: _has(channel, before + during))
        said = stack.log("lobby", tail=0)
        restored = [line for line in lines(said) if line["event"] == RESTORED]
        assert len(restored) == 1, said
        sequence, behind = restored[0]["sequence"], restored[0]["behind"]
        assert held <= sequence <= after  # the snapshot, not the log's start
        assert behind == after - sequence and behind < after  # it read only what came after

        # A snapshot of another format is set aside: the whole log is read, and nothing lost.
        stack.stop_service("lobby")  # so it does not store a snapshot over the test's
        other = lobby_listing_pb2.ListingSnapshot(version=snapshot.VERSION + 1, sequence=1)
        await _put(nc, zlib.compress(other.SerializeToString()))
        said = started(stack)
        assert f"format version {snapshot.VERSION + 1}" in said, said
        assert RESTORED not in said
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            assert await until(lambda: _has(channel, before + during))

        # Not a snapshot at all: the same.
        stack.stop_service("lobby")
        await _put(nc, b"not a snapshot")
        said = started(stack)
        assert "cannot read the listing snapshot" in said, said
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            assert await until(lambda: _has(channel, before + during))

        # A running lobby stores over a snapshot of another copy of the log, whatever its
        # sequence; it leaves one of its own copy that holds more than it has read.
        copy = await snapshot.copy_of_log(js)
        ahead = str(copy.last_seq + 1_000)
        theirs = {snapshot.SEQUENCE_HEADER: ahead, snapshot.VERSION_HEADER: str(snapshot.VERSION)}
        await _put(nc, b"another copy's", {**theirs, snapshot.STREAM_HEADER: "another copy"})
        await make(nc, "d000000000000001")  # something new, so that it has more to store

        async def ours() -> bool:
            said = await _said(js)
            return said.get(snapshot.STREAM_HEADER) == copy.created

        assert await until(ours)
        await _put(nc, b"later", {**theirs, snapshot.STREAM_HEADER: copy.created})
        await make(nc, "d000000000000002")
        await asyncio.sleep(6 * EVERY_S)  # six chances to write over it
        assert (await _said(js))[snapshot.SEQUENCE_HEADER] == ahead
    finally:
        await nc.close()


async def _has(channel: grpc.aio.Channel, table_ids: list[str]) -> bool:
    try:
        return set(table_ids) <= await listed(channel)
    except grpc.aio.AioRpcError:  # the lobby is starting
        return False


async def _quiet(check):  # type: ignore[no-untyped-def]
    try:
        return await check()
    except Exception:  # not stored yet
        return 0


async def _put(nc: Client, data: bytes, headers: dict[str, str] | None = None) -> None:
    """Store ``data`` as the listing's snapshot, its meta saying ``headers``."""
    store = await nc.jetstream().object_store(subjects.LOBBY_LISTING_BUCKET)
    await store.put(snapshot.NAME, data, ObjectMeta(name=snapshot.NAME, headers=headers))


async def _said(js: Any) -> dict[str, str]:
    """What the stored snapshot's meta says of it."""
    store = await js.object_store(subjects.LOBBY_LISTING_BUCKET)
    return (await store.get_info(snapshot.NAME)).headers or {}


def test_a_snapshot_is_trusted_only_for_the_copy_of_the_log_it_was_taken_from() -> None:
    copy = snapshot.Copy(created="2026-12-07T10:00:00+00:00", first_seq=1, last_seq=500)
    good = lobby_listing_pb2.ListingSnapshot(
        version=snapshot.VERSION, sequence=400, stream_created=copy.created, first_sequence=1
    )
    assert snapshot.unusable(good, copy) is None
    at_the_end = lobby_listing_pb2.ListingSnapshot()
    at_the_end.CopyFrom(good)
    at_the_end.sequence = 500
    assert snapshot.unusable(at_the_end, copy) is None
    for field, value, why in (
        ("version", snapshot.VERSION + 1, "format version"),
        ("stream_created", "2026-12-08T10:00:00+00:00", "made at"),
        ("sequence", 501, "past its copy's last record"),
    ):
        bad = lobby_listing_pb2.ListingSnapshot()
        bad.CopyFrom(good)
        setattr(bad, field, value)
        assert why in (snapshot.unusable(bad, copy) or ""), field
    # Records removed since it was stored (an operator's repair): the log is read again.
    trimmed = snapshot.Copy(copy.created, first_seq=3, last_seq=500)
    assert "begins at 3, past 1" in (snapshot.unusable(good, trimmed) or "")
    repaired = snapshot.Copy(copy.created, first_seq=1, last_seq=500, deleted=(7,))
    assert "record 7, which the listing folded" in (snapshot.unusable(good, repaired) or "")


def test_only_a_record_the_listing_folded_and_the_copy_lost_since_sets_a_snapshot_aside() -> None:
    created = "2026-12-07T10:00:00+00:00"

    def copy(first: int, *deleted: int) -> snapshot.Copy:
        return snapshot.Copy(created, first_seq=first, last_seq=900, deleted=deleted)

    # The listing folded 3..500, reading past 9-10 and 40 (removed before it read them).
    gaps = [(9, 10), (40, 40)]
    assert snapshot.gone(3, gaps, 500, copy(3, 9, 10, 40)) is None
    assert snapshot.gone(3, gaps, 500, copy(1, 2, 9, 10, 40)) is None  # a mirror filling
    assert snapshot.gone(3, gaps, 500, copy(3, 9, 10, 40, 501, 700)) is None  # not folded yet
    assert snapshot.gone(0, [], 0, copy(50, 60)) is None  # nothing folded
    assert "record 41" in (snapshot.gone(3, gaps, 500, copy(3, 9, 10, 40, 41)) or "")
    assert "record 500" in (snapshot.gone(3, gaps, 500, copy(3, 500)) or "")
    assert "record 3" in (snapshot.gone(3, gaps, 500, copy(1, 3)) or "")
    assert "begins at 4" in (snapshot.gone(3, gaps, 500, copy(4)) or "")
    # A gap the copy holds is a record the listing missed: no snapshot goes on from it.
    assert snapshot.missed(gaps, copy(3, 9, 10, 40)) is None
    assert snapshot.missed([(1, 2), *gaps], copy(3, 9, 10, 40)) is None  # before the first
    assert "9-10" in (snapshot.missed(gaps, copy(3, 9, 40)) or "")
    assert "40-40" in (snapshot.missed(gaps, copy(3, 9, 10)) or "")
    assert snapshot.mismatch(3, gaps, 500, copy(3, 9, 40)) is not None


def test_a_snapshot_that_does_not_say_where_its_listing_began_is_set_aside() -> None:
    copy = snapshot.Copy(created="2026-12-07T10:00:00+00:00", first_seq=1, last_seq=500)
    snap = lobby_listing_pb2.ListingSnapshot(
        version=snapshot.VERSION, sequence=400, stream_created=copy.created
    )
    assert "where its listing began" in (snapshot.unusable(snap, copy) or "")


async def test_a_repaired_log_is_read_again_and_not_stored_over(stack: Stack) -> None:
    """An operator removes the record that quarantined a table (docs/operations.md, "Quarantined
    tables"): the running lobby, which folded it, stores no snapshot from then on, and a lobby
    restarted reads the whole log and lists the table again."""
    nc = await stack.connect_nats()
    js = nc.jetstream()
    try:
        await until_the_referee_answers(nc)
        good, bad = "c000000000000001", "c000000000000002"
        await make(nc, good, bad)
        ack = await js.publish(subjects.events(bad), b"\xff not a record")  # the admin may
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            await until(lambda: _has(channel, [good]))
            assert bad not in await listed(channel)  # quarantined

        async def holds_it() -> bool:  # a snapshot with the quarantine is stored
            return int((await _said(js)).get(snapshot.SEQUENCE_HEADER, "0")) >= ack.seq

        await until(lambda: _quiet(holds_it))
        for stream in (subjects.EVENTS_STREAM, subjects.LOBBY_EVENTS):
            await js.delete_msg(stream, ack.seq)  # the repair
        await make(nc, "c000000000000003")  # something new to store
        refusing = "this lobby stores no listing snapshot until it restarts"
        await until(lambda: _logged(stack, refusing))
        stored = (await _said(js))[snapshot.SEQUENCE_HEADER]
        await make(nc, "c000000000000004")
        await asyncio.sleep(4 * EVERY_S)  # four more chances: it stores nothing over it
        assert (await _said(js))[snapshot.SEQUENCE_HEADER] == stored

        stack.stop_service("lobby")
        said = started(stack)
        assert f"record {ack.seq}, which the listing folded, was removed" in said, said
        made = [good, bad, "c000000000000003", "c000000000000004"]
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            assert await until(lambda: _has(channel, made))  # the repaired table listed again
        # The lobby that read the repaired log stores its own, which a start takes.
        assert await until(lambda: _quiet(lambda: _newer(js, stored)))
        stack.stop_service("lobby")
        said = started(stack)
        assert RESTORED in said, said
        async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
            assert await until(lambda: _has(channel, made))
    finally:
        await nc.close()


async def _logged(stack: Stack, text: str) -> bool:
    return text in stack.log("lobby", tail=0)


async def _newer(js: Any, than: str) -> bool:
    said = await _said(js)
    return said[snapshot.SEQUENCE_HEADER] != than
