"""The ledger over a real nats-server: every record stored once, in order, across a kill -9."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError

from match.v1 import common_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_testing.natsserver import NatsServer
from services.ledger.service import answer_records
from services.ledger.store import Incoming, Store

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("tablea0000001", "tableb0000002")


class LedgerProcess:
    def __init__(self, url: str, db: Path, log: Path) -> None:
        self.db = db
        self.log = log
        self._env = {
            **os.environ,
            "NATS_URL": url,
            "METRICS_PORT": "0",
            "LOG_FORMAT": "json",
            "LEDGER_DB": str(db),
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, batch: int = 256) -> LedgerProcess:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "services.ledger"],
                cwd=ROOT,
                env={**self._env, "LEDGER_BATCH": str(batch)},
                stdout=log,
                stderr=log,
            )
        return self

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def stored(self) -> list[tuple[int, str, bytes]]:
        """The rows, read straight from the SQLite file."""
        if not self.db.exists():
            return []
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            try:
                rows = db.execute(
                    "SELECT stream_sequence, table_id, data FROM records ORDER BY stream_sequence"
                ).fetchall()
            except sqlite3.OperationalError:  # the schema is not there yet
                return []
        return [(int(s), str(t), bytes(d)) for s, t, d in rows]


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url, max_reconnect_attempts=-1, reconnect_time_wait=0.2)
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
def ledger(nats_server: NatsServer, tmp_path: Path) -> Iterator[LedgerProcess]:
    db = tmp_path / "var" / "ledger.db"  # the ledger makes var/
    process = LedgerProcess(nats_server.url, db, tmp_path / "ledger.log")
    try:
        yield process
    finally:
        process.stop()


def record(table_id: str, first: int, count: int) -> bytes:
    events = [
        common_pb2.EventEnvelope(
            table_id=table_id,
            event_number=first + i,
            server_time_ms=first + i,
            table=common_pb2.TableEvent(
                fill_requested=common_pb2.TableEvent.FillRequested(fill_at_ms=first + i)
            ),
        )
        for i in range(count)
    ]
    return referee_pb2.TableRecord(
        table_id=table_id, first_event_number=first, events=events
    ).SerializeToString()


class Publisher:
    """Appends records to each table with consecutive event numbers; remembers what it sent."""

    def __init__(self, nc: Client) -> None:
        self._js = nc.jetstream()
        self._next = dict.fromkeys(TABLES, 1)
        self.sent: dict[int, tuple[str, bytes]] = {}

    async def publish(self, n: int) -> None:
        for i in range(n):
            table = TABLES[i % 2]
            count = i % 3  # some records hold no event (a refusal would)
            data = record(table, self._next[table], count)
            self._next[table] += count
            ack = await self._js.publish(subjects.events(table), data)
            self.sent[ack.seq] = (table, data)


async def records_of(nc: Client, table_id: str) -> referee_pb2.LedgerRecordsResponse:
    data = referee_pb2.LedgerRecordsRequest(table_id=table_id).SerializeToString()
    return referee_pb2.LedgerRecordsResponse.FromString(await request(nc, data))


async def request(nc: Client, data: bytes) -> bytes:
    deadline = time.monotonic() + 10
    while True:
        try:
            return (await nc.request(subjects.LEDGER_RECORDS, data, timeout=2.0)).data
        except (NoRespondersError, NatsTimeoutError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def until(check: Callable[[], bool], within: float = 10.0, every: float = 0.02) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(every)


async def wait_for_all(nc: Client, sent: dict[int, tuple[str, bytes]]) -> None:
    deadline = time.monotonic() + 10
    for table in TABLES:
        expected = [(seq, data) for seq, (t, data) in sorted(sent.items()) if t == table]
        while True:
            entries = (await records_of(nc, table)).entries
            got = [(e.stream_sequence, e.record) for e in entries]
            if len(got) >= len(expected):
                assert got == expected  # in order, bytes identical, nothing more
                break
            assert time.monotonic() < deadline, f"{table}: {len(got)} of {len(expected)}"
            await asyncio.sleep(0.05)


async def test_the_ledger_process_serves_every_record_in_order(
    nc: Client, ledger: LedgerProcess
) -> None:
    await ensure_stream(nc.jetstream())
    publisher = Publisher(nc)
    await publisher.publish(12)
    ledger.start()
    await wait_for_all(nc, publisher.sent)

    await publisher.publish(7)  # and what comes while it runs
    await wait_for_all(nc, publisher.sent)

    for garbage in (b"\xff\xff\xff", b"\x0a\x02\xff\xfe"):
        assert await request(nc, garbage) == b""
    assert (await records_of(nc, "NOT.a.table")).entries == []
    assert (await records_of(nc, "unknowntable")).entries == []
    assert ledger.process is not None and ledger.process.poll() is None


async def test_a_ledger_killed_mid_batch_keeps_every_record_exactly_once(
    nc: Client, ledger: LedgerProcess
) -> None:
    ledger.start()  # before the stream exists: the ledger makes it
    await until_stream(nc)
    ledger.kill()
    publisher = Publisher(nc)
    await publisher.publish(500)

    ledger.start(batch=40)
    await until(lambda: len(ledger.stored()) > 0, every=0.002)
    ledger.kill()  # while it holds a fetched batch, committed or not, acked or not
    stored_at_kill = len(ledger.stored())

    await publisher.publish(100)
    ledger.start()
    await wait_for_all(nc, publisher.sent)

    rows = ledger.stored()
    assert [seq for seq, _, _ in rows] == list(range(1, 601))
    assert {seq: (table, data) for seq, table, data in rows} == publisher.sent
    info = await nc.jetstream().consumer_info(subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE)
    assert info.num_pending == 0
    assert "do not continue" not in ledger.log.read_text()
    assert 0 < stored_at_kill < 500


async def until_stream(nc: Client) -> None:
    deadline = time.monotonic() + 10
    while True:
        try:
            await nc.jetstream().stream_info(subjects.EVENTS_STREAM)
            return
        except Exception:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)


async def test_the_ledger_resumes_after_nats_restarts(
    nats_server: NatsServer, nc: Client, ledger: LedgerProcess
) -> None:
    await ensure_stream(nc.jetstream())
    publisher = Publisher(nc)
    await publisher.publish(5)
    ledger.start()
    await wait_for_all(nc, publisher.sent)

    reconnects = nc.stats["reconnects"]
    nats_server.stop()
    nats_server.start()
    await until(lambda: nc.stats["reconnects"] > reconnects and nc.is_connected)
    await publisher.publish(5)
    await wait_for_all(nc, publisher.sent)


def test_the_store_is_append_only_and_idempotent(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "a" / "b" / "ledger.db")
    table = TABLES[0]
    batch = [
        Incoming(1, table, record(table, 1, 2)),
        Incoming(2, table, record(table, 3, 0)),
        Incoming(3, table, record(table, 3, 1)),
    ]
    assert all(outcome.inserted for outcome in store.append(batch))
    again = store.append(batch)
    assert not any(outcome.inserted or outcome.conflict for outcome in again)
    (other,) = store.append([Incoming(2, table, b"other bytes")])
    assert other.conflict and not other.inserted
    assert store.records(table) == [(r.sequence, r.data) for r in batch]

    with sqlite3.connect(tmp_path / "a" / "b" / "ledger.db") as db:
        for statement in ("UPDATE records SET data = x'00'", "DELETE FROM records"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                db.execute(statement)
    assert store.last_sequence() == 3
    store.close()


def test_the_store_notices_a_gap_and_keeps_the_record(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "ledger.db")
    table = TABLES[0]
    store.append([Incoming(1, table, record(table, 1, 2))])
    (gap,) = store.append([Incoming(5, table, record(table, 7, 1))])
    assert gap.inserted
    assert (gap.first_event_number, gap.expected_first) == (7, 3)
    (late,) = store.append([Incoming(6, TABLES[1], record(TABLES[1], 2, 1))])
    assert late.expected_first == 1
    (fine,) = store.append([Incoming(7, table, record(table, 8, 1))])
    assert fine.expected_first is None
    (odd,) = store.append([Incoming(8, table, b"not a record")])
    assert odd.inserted and odd.event_count is None
    assert [seq for seq, _ in store.records(table)] == [1, 5, 7, 8]
    store.close()


async def test_a_records_request_answers_from_the_store(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "ledger.db")
    store.append([Incoming(4, TABLES[0], b"four"), Incoming(9, TABLES[0], b"nine")])
    answer = referee_pb2.LedgerRecordsResponse.FromString(
        await answer_records(
            store, referee_pb2.LedgerRecordsRequest(table_id=TABLES[0]).SerializeToString()
        )
    )
    assert [(e.stream_sequence, e.record) for e in answer.entries] == [(4, b"four"), (9, b"nine")]
    assert await answer_records(store, b"\xff") == b""
    store.close()
