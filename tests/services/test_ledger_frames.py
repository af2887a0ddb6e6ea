"""The ledger reads a partition's frames (several tables' records in one message, one fsync;
match_bus.records) as it reads records published alone: each record its own row and its own
leaf, at its place (stream sequence, entry in its frame), judged in its table's order; and a file
written before frames opens with its tree, checkpoints and quarantines as they were."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import nats
import pytest
from nats.aio.client import Client

from match.v1 import audit_pb2, audit_pb2_grpc, referee_pb2
from match_audit import merkle
from match_audit.note import Checkpoint, Verifier, open_checkpoint, sign_checkpoint
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_bus.records import fact_headers, pack
from match_launch.natsserver import NatsServer
from services.ledger.service import CatchUp
from services.ledger.store import Incoming, Store
from tests.services.test_ledger import (
    LedgerProcess,
    game_record,
    latest_checkpoint,
    records_of,
    signer,
)

# Two tables of one partition, and one of another.
ONE, TWO, ELSEWHERE = "frameone0001", "frametwo0000", "framefar0003"


def test_the_tables_are_where_the_tests_say() -> None:
    assert subjects.partition_of(ONE) == subjects.partition_of(TWO)
    assert subjects.partition_of(ELSEWHERE) != subjects.partition_of(ONE)


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    try:
        yield client
    finally:
        await client.close()


def framed(*records: tuple[str, bytes]) -> bytes:
    return pack(
        (table_id, data, fact_headers(referee_pb2.TableRecord.FromString(data), []))
        for table_id, data in records
    )


async def test_a_frames_records_are_stored_one_by_one_in_order_with_their_place(
    nats_server: NatsServer, nc: Client, tmp_path: Path
) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    partition = subjects.partition_of(ONE)
    # ONE's first record alone, then a frame with TWO's first and ONE's second, a record of
    # another partition's table alone, then a frame holding an entry no table of it can have.
    first = (await js.publish(subjects.events(ONE), game_record(ONE, 1))).seq
    frame = framed((TWO, game_record(TWO, 1)), (ONE, game_record(ONE, 2, ended=True)))
    second = (await js.publish(subjects.frames(partition), frame)).seq
    far = (await js.publish(subjects.events(ELSEWHERE), game_record(ELSEWHERE, 1))).seq
    stray = framed((ELSEWHERE, game_record(ELSEWHERE, 2)), (TWO, game_record(TWO, 2)))
    third = (await js.publish(subjects.frames(partition), stray)).seq

    ledger = LedgerProcess(nats_server.url, tmp_path / "var" / "ledger.db", tmp_path / "log")
    ledger.start()
    try:
        deadline = time.monotonic() + 15
        while len((await records_of(nc, TWO)).entries) < 2:
            assert time.monotonic() < deadline, "the ledger never stored TWO's records"
            await asyncio.sleep(0.05)
        places = {
            table: [(e.stream_sequence, e.frame_index, e.record) for e in answer.entries]
            for table in (ONE, TWO, ELSEWHERE)
            if (answer := await records_of(nc, table))
        }
        assert places == {
            ONE: [(first, 0, game_record(ONE, 1)), (second, 1, game_record(ONE, 2, ended=True))],
            TWO: [(second, 0, game_record(TWO, 1)), (third, 1, game_record(TWO, 2))],
            ELSEWHERE: [(far, 0, game_record(ELSEWHERE, 1))],  # not the one in the wrong frame
        }
        # Every record is a leaf, in stream order and in each frame's order; the entry that
        # names another partition's table is kept too, under the frame's subject.
        leaves = [
            game_record(ONE, 1),
            game_record(TWO, 1),
            game_record(ONE, 2, ended=True),
            game_record(ELSEWHERE, 1),
            game_record(ELSEWHERE, 2),
            game_record(TWO, 2),
        ]
        verifier = Verifier.parse((ledger.db.parent / "ledger.vkey").read_text())
        while open_checkpoint(await latest_checkpoint(ledger.addr), verifier).size < len(leaves):
            assert time.monotonic() < deadline, "no checkpoint of every record"
            await asyncio.sleep(0.05)
        note = await latest_checkpoint(ledger.addr)
        assert open_checkpoint(note, verifier).root == merkle.root_of_data(leaves)
        with sqlite3.connect(f"file:{ledger.db}?mode=ro", uri=True) as db:
            (kept,) = db.execute(
                "SELECT table_id FROM records WHERE stream_sequence = ? AND frame_index = 0",
                (third,),
            ).fetchone()
        assert kept == subjects.frames(partition)

        # The audit API serves a finished game's records with their places and proofs.
        async with grpc.aio.insecure_channel(ledger.addr) as channel:
            stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
            answer = await stub.GetGameRecords(audit_pb2.GetGameRecordsRequest(table_id=ONE))
        checkpoint = open_checkpoint(answer.checkpoint, verifier)
        assert [(e.leaf_index, e.stream_sequence, e.frame_index) for e in answer.entries] == [
            (0, first, 0),
            (2, second, 1),
        ]
        for e in answer.entries:
            merkle.verify_inclusion(
                e.leaf_index,
                checkpoint.size,
                merkle.leaf_hash(e.record),
                list(e.inclusion_proof),
                checkpoint.root,
            )
    finally:
        ledger.stop()


def test_a_frames_entry_that_breaks_its_tables_numbering_is_named_by_its_place(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path / "ledger.db", signer())
    outcomes = store.append(
        [
            Incoming(4, ONE, game_record(ONE, 1)),
            Incoming(9, TWO, game_record(TWO, 1), 0),
            Incoming(9, ONE, game_record(ONE, 1), 1),  # ONE created a second time
            Incoming(9, ONE, game_record(ONE, 2), 2),
        ]
    )
    assert [(o.sequence, o.index, o.inserted) for o in outcomes] == [
        (4, 0, True),
        (9, 0, True),
        (9, 1, True),
        (9, 2, True),
    ]
    bad = store.quarantine(ONE)
    assert bad is not None and (bad.sequence, bad.index) == (9, 1)
    assert bad.message == (
        f"table {ONE} is quarantined: record at stream sequence 9, entry 1 of its frame "
        "is record number 1 where 2 was due; an operator must repair its log"
    )
    assert store.quarantine(TWO) is None
    # A frame delivered again is stored once; other bytes at a stored place are a conflict.
    again = store.append([Incoming(9, TWO, game_record(TWO, 1), 0)])
    assert not again[0].inserted and not again[0].conflict
    (other,) = store.append([Incoming(9, ONE, b"other bytes", 2)])
    assert other.conflict and not other.inserted
    assert [(s, i) for s, i, _ in store.records(ONE)] == [(4, 0), (9, 1), (9, 2)]
    store.close()


# The ledger's schema before frames: records and leaves keyed by the stream sequence alone.
_BEFORE = """
CREATE TABLE records (stream_sequence INTEGER PRIMARY KEY, table_id TEXT NOT NULL,
    first_event_number INTEGER, event_count INTEGER, data BLOB NOT NULL,
    stored_at_ms INTEGER NOT NULL);
CREATE INDEX records_by_table ON records (table_id);
CREATE TABLE leaves (leaf_index INTEGER PRIMARY KEY, stream_sequence INTEGER NOT NULL UNIQUE);
CREATE TABLE nodes (level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT NULL,
    PRIMARY KEY (level, idx)) WITHOUT ROWID;
CREATE TABLE quarantined (table_id TEXT PRIMARY KEY, stream_sequence INTEGER NOT NULL,
    problem TEXT NOT NULL, found_at_ms INTEGER NOT NULL);
CREATE TABLE checkpoints (id INTEGER PRIMARY KEY AUTOINCREMENT, tree_size INTEGER NOT NULL,
    root BLOB NOT NULL, note TEXT NOT NULL, signed_at_ms INTEGER NOT NULL);
CREATE TRIGGER records_no_delete BEFORE DELETE ON records
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
"""


def test_a_file_written_before_frames_keeps_its_tree_and_takes_frames(tmp_path: Path) -> None:
    key = signer()
    path = tmp_path / "ledger.db"
    before = [(1, ONE, game_record(ONE, 1)), (2, TWO, game_record(TWO, 1)), (3, ONE, b"junk")]
    frontier = merkle.Frontier()
    with sqlite3.connect(path) as db:
        db.executescript(_BEFORE)
        for leaf, (sequence, table_id, data) in enumerate(before):
            db.execute(
                "INSERT INTO records VALUES (?, ?, NULL, NULL, ?, 0)", (sequence, table_id, data)
            )
            db.execute("INSERT INTO leaves VALUES (?, ?)", (leaf, sequence))
            db.executemany(
                "INSERT INTO nodes VALUES (?, ?, ?)", frontier.append(merkle.leaf_hash(data))
            )
        db.execute(
            "INSERT INTO quarantined VALUES (?, 3, 'does not decode as a TableRecord', 0)", (ONE,)
        )
        note = sign_checkpoint(Checkpoint(key.name, 3, frontier.root()), key)
        db.execute("INSERT INTO checkpoints VALUES (1, 3, ?, ?, 0)", (frontier.root(), note))

    store = Store.open(path, key)  # checks the stored tree against the checkpoint
    assert store.tree_size() == 3 and store.latest_checkpoint() is not None
    assert store.latest_checkpoint().note == note  # type: ignore[union-attr]
    assert store.records(ONE) == [(1, 0, game_record(ONE, 1)), (3, 0, b"junk")]
    bad = store.quarantine(ONE)
    assert bad is not None and (bad.sequence, bad.index) == (3, 0)
    store.append(
        [Incoming(5, TWO, game_record(TWO, 2), 0), Incoming(5, ONE, game_record(ONE, 2), 1)]
    )
    stored = [d for _, _, d in before] + [game_record(TWO, 2), game_record(ONE, 2)]
    assert store.root_at(5) == merkle.root_of_data(stored)
    assert store.quarantine(TWO) is None
    store.close()

    with sqlite3.connect(path) as db:  # still append-only, on the tables made anew too
        for table in ("records", "leaves", "quarantined"):
            for statement in (f"UPDATE {table} SET rowid = rowid", f"DELETE FROM {table}"):
                with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                    db.execute(statement)
    reopened = Store.open(path, key)  # nothing left to change: opens as it is
    assert reopened.tree_size() == 5 and reopened.root_at(5) == merkle.root_of_data(stored)
    reopened.close()


async def test_a_replica_waits_for_the_partitions_last_frame_before_answering_for_a_table(
    nc: Client, tmp_path: Path
) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    alone = (await js.publish(subjects.events(ONE), game_record(ONE, 1))).seq
    frame = framed((ONE, game_record(ONE, 2, ended=True)))
    in_frame = (await js.publish(subjects.frames(subjects.partition_of(ONE)), frame)).seq
    await js.publish(subjects.events(ELSEWHERE), game_record(ELSEWHERE, 1))  # not ONE's
    store = Store.open(tmp_path / "ledger.db", signer())
    store.append([Incoming(alone, ONE, game_record(ONE, 1))])
    catch_up = CatchUp(nc, store.last_sequence, wait_s=0.2)
    assert await catch_up.stream_last(ONE) == in_frame
    assert await catch_up.ready(ONE) == (False, alone, in_frame)  # its last record is framed
    store.append([Incoming(in_frame, ONE, game_record(ONE, 2, ended=True), 0)])
    assert await catch_up.ready(ONE) == (True, in_frame, in_frame)
    assert await catch_up.stream_last("unknowntable") == 0
    store.close()
