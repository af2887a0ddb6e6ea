"""The ledger over a real nats-server: every record stored once, in order, across a kill -9, as
the leaves of a Merkle tree with signed checkpoints, served to auditors over gRPC."""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import grpc
import nats
import nats.aio.msg
import nats.js.errors
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from grpc_health.v1 import health_pb2, health_pb2_grpc
from nats.aio.client import Client
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import AckPolicy

from match.v1 import audit_pb2, audit_pb2_grpc, common_pb2, race_pb2, referee_pb2
from match_audit import keys, merkle
from match_audit.note import Signer, Verifier, open_checkpoint
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_launch.child import tied
from match_launch.natsserver import NatsServer, free_port
from services.ledger.audit import NOT_OVER
from services.ledger.consumer import Ingest, OutOfOrder, consumer_config
from services.ledger.service import CatchUp, answer_records, serve_audit
from services.ledger.store import Incoming, LedgerCorrupt, Store
from tests.bus.records import created

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("tablea0000001", "tableb0000002")


class LedgerProcess:
    def __init__(self, url: str, db: Path, log: Path, **env: str) -> None:
        self.db = db
        self.log = log
        self._env = {
            **os.environ,
            "NATS_URL": url,
            "METRICS_PORT": "0",
            "LOG_FORMAT": "json",
            "LEDGER_DB": str(db),  # the key goes next to it: <dir>/ledger.key, ledger.vkey
            "LEDGER_ADDR": f"127.0.0.1:{free_port()}",
            "LEDGER_CHECKPOINT_EVERY": "50",
            "LEDGER_CHECKPOINT_S": "0.2",
            **env,
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, batch: int = 256) -> LedgerProcess:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                tied([sys.executable, "-m", "services.ledger"]),
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

    @property
    def addr(self) -> str:
        return self._env["LEDGER_ADDR"]

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
    await assert_the_tree_holds(ledger, [data for _, (_, data) in sorted(publisher.sent.items())])


async def acks_while_storing(nc: Client, ledger: LedgerProcess, records: int) -> list[str]:
    """The acks the ledger sends while it stores ``records`` records, in batches of 40."""
    acks: list[str] = []

    async def heard(msg: nats.aio.msg.Msg) -> None:
        acks.append(msg.subject)

    sub = await nc.subscribe(f"$JS.ACK.{subjects.EVENTS_STREAM}.>", cb=heard)
    try:
        await nc.flush()
        ledger.start(batch=40)
        await until(lambda: len(ledger.stored()) == records)
        info = await nc.jetstream().consumer_info(subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE)
        deadline = time.monotonic() + 10
        while info.ack_floor.stream_seq != records:  # the last ack follows the last commit
            assert time.monotonic() < deadline, info
            await asyncio.sleep(0.05)
            info = await nc.jetstream().consumer_info(
                subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE
            )
        assert info.num_ack_pending == 0 and info.num_redelivered == 0
    finally:
        await sub.unsubscribe()
    return acks


async def test_the_ledger_acks_a_batch_with_one_ack(nc: Client, ledger: LedgerProcess) -> None:
    await ensure_stream(nc.jetstream())
    publisher = Publisher(nc)
    await publisher.publish(200)
    acks = await acks_while_storing(nc, ledger, 200)
    info = await nc.jetstream().consumer_info(subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE)
    assert info.config.ack_policy == AckPolicy.ALL
    assert 5 <= len(acks) <= 20, acks  # one per fetched batch of at most 40, not one per record
    await wait_for_all(nc, publisher.sent)
    await assert_the_tree_holds(ledger, [data for _, (_, data) in sorted(publisher.sent.items())])


async def test_a_consumer_made_before_batch_acks_is_still_acked_record_by_record(
    nc: Client, ledger: LedgerProcess
) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    old = consumer_config()
    old.ack_policy = AckPolicy.EXPLICIT  # as the ledger made its consumer before
    await js.add_consumer(subjects.EVENTS_STREAM, old)
    publisher = Publisher(nc)
    await publisher.publish(120)
    acks = await acks_while_storing(nc, ledger, 120)
    assert len(acks) == 120  # every record acked: none would come again after ack_wait
    info = await js.consumer_info(subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE)
    assert info.config.ack_policy == AckPolicy.EXPLICIT  # kept: an ack policy cannot change
    assert "acks record by record" in ledger.log.read_text()
    await wait_for_all(nc, publisher.sent)


async def assert_the_tree_holds(ledger: LedgerProcess, published: list[bytes]) -> None:
    """Every record is a leaf in stream order; every checkpoint ever signed verifies with the
    ledger's verifier key and has the root of the records it covers; the API serves the last."""
    verifier = Verifier.parse((ledger.db.parent / "ledger.vkey").read_text())
    deadline = time.monotonic() + 10
    while True:
        note = await latest_checkpoint(ledger.addr)
        if open_checkpoint(note, verifier).size == len(published):
            break
        assert time.monotonic() < deadline, "no checkpoint of every record"
        await asyncio.sleep(0.1)
    with sqlite3.connect(f"file:{ledger.db}?mode=ro", uri=True) as db:
        leaves = db.execute(
            "SELECT r.data FROM leaves l JOIN records r USING (stream_sequence, frame_index)"
            " ORDER BY l.leaf_index"
        ).fetchall()
        notes = [n for (n,) in db.execute("SELECT note FROM checkpoints ORDER BY id")]
    assert [bytes(d) for (d,) in leaves] == published
    sizes = []
    for signed in notes:
        checkpoint = open_checkpoint(signed, verifier)
        assert checkpoint.root == merkle.root_of_data(published[: checkpoint.size])
        sizes.append(checkpoint.size)
    assert sizes == sorted(sizes) and sizes[-1] == len(published)
    assert any(b - a == 50 for a, b in itertools.pairwise(sizes))  # every 50 leaves


async def latest_checkpoint(addr: str) -> str:
    deadline = time.monotonic() + 10
    async with grpc.aio.insecure_channel(addr) as channel:
        stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
        while True:
            try:
                answer = await stub.GetCheckpoint(audit_pb2.GetCheckpointRequest())
                return str(answer.checkpoint)
            except grpc.aio.AioRpcError:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.1)


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
    assert store.records(table) == [(r.sequence, 0, r.data) for r in batch]

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
    assert [seq for seq, _, _ in store.records(table)] == [1, 5, 7, 8]
    store.close()


async def test_a_records_request_answers_from_the_store(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "ledger.db")
    store.append([Incoming(4, TABLES[0], b"four"), Incoming(9, TABLES[0], b"nine")])
    answered = await answer_records(
        store, referee_pb2.LedgerRecordsRequest(table_id=TABLES[0]).SerializeToString()
    )
    assert answered is not None
    answer = referee_pb2.LedgerRecordsResponse.FromString(answered)
    assert [(e.stream_sequence, e.record) for e in answer.entries] == [(4, b"four"), (9, b"nine")]
    assert await answer_records(store, b"\xff") == b""
    store.close()


# --- the transparency log -------------------------------------------------------------------


def signer() -> Signer:
    return Signer("match.test/ledger", Ed25519PrivateKey.generate())


def game_record(table_id: str, number: int, ended: bool = False) -> bytes:
    """The table's record ``number``: 1 creates it (events 1-3), 2 is one race event (4)."""
    if number == 1:
        return created(table_id).SerializeToString()
    race = race_pb2.RaceEvent(
        game_ended=race_pb2.RaceEvent.GameEnded(at=4) if ended else None,
        board_started=None if ended else race_pb2.RaceEvent.BoardStarted(at=4, board=1),
    )
    event = common_pb2.EventEnvelope(table_id=table_id, event_number=4, race=race)
    return referee_pb2.TableRecord(
        table_id=table_id, first_event_number=4, events=[event], record_number=2
    ).SerializeToString()


def test_the_store_is_a_merkle_tree_with_signed_checkpoints(tmp_path: Path) -> None:
    key = signer()
    path = tmp_path / "ledger.db"
    store = Store.open(path, key, checkpoint_every=4)
    data = [record(TABLES[i % 2], i + 1, 1) for i in range(10)]
    outcomes = store.append([Incoming(i + 1, TABLES[i % 2], d) for i, d in enumerate(data[:7])])
    assert [o.leaf_index for o in outcomes] == list(range(7))
    assert [c.size for c in store.checkpoints()] == [4]  # every 4 leaves, inside the batch
    store.append([Incoming(i + 1, TABLES[i % 2], d) for i, d in enumerate(data[7:], start=7)])
    assert [c.size for c in store.checkpoints()] == [4, 8]
    assert store.checkpoint_if_new() is not None
    assert store.checkpoint_if_new() is None  # nothing new: no new checkpoint
    checkpoints = store.checkpoints()
    assert [c.size for c in checkpoints] == [4, 8, 10]
    for stored in checkpoints:
        opened = open_checkpoint(stored.note, key.verifier)
        assert opened.root == stored.root == merkle.root_of_data(data[: stored.size])
    latest = checkpoints[-1]
    checkpoint, proved = store.proved_records(TABLES[0])
    assert checkpoint == latest
    assert [p.leaf_index for p in proved] == [0, 2, 4, 6, 8]
    for p in proved:
        merkle.verify_inclusion(
            p.leaf_index, latest.size, merkle.leaf_hash(p.data), p.proof, latest.root
        )
    for a in checkpoints:
        for b in checkpoints:
            if a.size <= b.size:
                proof = store.consistency_proof(a.size, b.size)
                merkle.verify_consistency(a.size, b.size, a.root, b.root, proof)
    with pytest.raises(IndexError):
        store.consistency_proof(1, 11)
    store.close()

    with sqlite3.connect(path) as db:
        for table in ("leaves", "nodes", "checkpoints"):
            for statement in (f"UPDATE {table} SET rowid = rowid", f"DELETE FROM {table}"):
                if table == "nodes":
                    statement = statement.replace("rowid = rowid", "level = level")
                with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                    db.execute(statement)

    again = Store.open(path, key, checkpoint_every=4)  # the tree goes on where it was
    assert again.tree_size() == 10 and again.latest_checkpoint() == latest
    more = [record(TABLES[0], 20 + i, 1) for i in range(4)]
    again.append([Incoming(20 + i, TABLES[0], d) for i, d in enumerate(more)])
    assert again.root_at(14) == merkle.root_of_data(data + more)
    assert [c.size for c in again.checkpoints()] == [4, 8, 10, 14]  # 4 after the last one
    again.close()


def test_a_ledger_file_from_before_the_tree_gets_its_leaves_in_stream_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # the schema of the ledger before it was a tree
        db.execute(
            "CREATE TABLE records (stream_sequence INTEGER PRIMARY KEY, table_id TEXT NOT NULL,"
            " first_event_number INTEGER, event_count INTEGER, data BLOB NOT NULL,"
            " stored_at_ms INTEGER NOT NULL)"
        )
        for sequence in (7, 3, 5):
            db.execute(
                "INSERT INTO records VALUES (?, ?, 1, 0, ?, 0)",
                (sequence, TABLES[0], f"record {sequence}".encode()),
            )
    key = signer()
    store = Store.open(path, key)
    latest = store.latest_checkpoint()
    assert latest is not None and latest.size == 3
    assert latest.root == merkle.root_of_data([b"record 3", b"record 5", b"record 7"])
    store.close()


def test_a_failed_batch_leaves_the_tree_as_it_was(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "ledger.db", signer(), checkpoint_every=2)
    store.append([Incoming(1, TABLES[0], b"one")])
    with pytest.raises(TypeError):  # the second record is not bytes: the batch rolls back
        store.append([Incoming(2, TABLES[0], b"two"), Incoming(3, TABLES[0], None)])  # type: ignore[arg-type]
    # the checkpoint signed at leaf 2 inside the batch went with it
    assert store.tree_size() == 1 and store.latest_checkpoint() is None
    store.append([Incoming(2, TABLES[0], b"two"), Incoming(3, TABLES[0], b"three")])
    assert store.root_at(3) == merkle.root_of_data([b"one", b"two", b"three"])
    assert [c.size for c in store.checkpoints()] == [2]
    store.close()


def test_a_file_whose_tree_was_changed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    store = Store.open(path, signer())
    store.append([Incoming(1, TABLES[0], b"one"), Incoming(2, TABLES[0], b"two")])
    assert store.checkpoint_if_new() is not None
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER nodes_no_update")
        db.execute("UPDATE nodes SET hash = ? WHERE level = 1 AND idx = 0", (bytes(32),))
    with pytest.raises(LedgerCorrupt, match="not the one its checkpoint signed"):
        Store.open(path, signer())


def test_the_key_is_made_once_private_and_its_verifier_written(tmp_path: Path) -> None:
    key_file = tmp_path / "var" / "ledger.key"
    first = keys.load_or_create(key_file, "match.local/ledger")
    assert key_file.stat().st_mode & 0o777 == 0o600
    vkey = (tmp_path / "var" / "ledger.vkey").read_text().strip()
    assert vkey == str(first.verifier) and vkey.startswith("match.local/ledger+")
    second = keys.load_or_create(key_file, "match.local/ledger")
    assert second.verifier == first.verifier
    (tmp_path / "bad.key").write_text("not a key")
    with pytest.raises(keys.KeyFileError):
        keys.load_or_create(tmp_path / "bad.key", "x")


async def test_the_audit_api_serves_finished_games_with_proofs_and_refuses_live_ones(
    tmp_path: Path,
) -> None:
    key = signer()
    store = Store.open(tmp_path / "ledger.db", key, checkpoint_every=1000)
    over, live, bad = "overgame01", "livegame01", "badgame001"
    store.append(
        [
            Incoming(1, over, game_record(over, 1)),
            Incoming(2, live, game_record(live, 1)),
            Incoming(3, over, game_record(over, 2, ended=True)),
            Incoming(4, bad, game_record(bad, 1)),
            Incoming(5, bad, b"forged"),
            Incoming(6, bad, game_record(bad, 2, ended=True)),
        ]
    )
    addr = f"127.0.0.1:{free_port()}"
    stop = await serve_audit(store, addr, str(key.verifier))
    try:
        async with grpc.aio.insecure_channel(addr) as channel:
            stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
            health = health_pb2_grpc.HealthStub(channel)
            answer = await health.Check(health_pb2.HealthCheckRequest(service=""))
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            served_key = await stub.GetVerifierKey(audit_pb2.GetVerifierKeyRequest())
            assert served_key.verifier_key == str(key.verifier)

            records = await stub.GetGameRecords(audit_pb2.GetGameRecordsRequest(table_id=over))
            checkpoint = open_checkpoint(records.checkpoint, key.verifier)  # signed on demand
            assert checkpoint.size == 6
            assert [(e.leaf_index, e.stream_sequence) for e in records.entries] == [(0, 1), (2, 3)]
            for e in records.entries:
                merkle.verify_inclusion(
                    e.leaf_index,
                    checkpoint.size,
                    merkle.leaf_hash(e.record),
                    list(e.inclusion_proof),
                    checkpoint.root,
                )
            latest = await stub.GetCheckpoint(audit_pb2.GetCheckpointRequest())
            assert latest.checkpoint == records.checkpoint

            for table_id, code, message in (
                (live, grpc.StatusCode.FAILED_PRECONDITION, NOT_OVER),
                ("unknowngame1", grpc.StatusCode.NOT_FOUND, "no game"),
                (
                    bad,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"table {bad} is quarantined: record at stream sequence 5 does not decode",
                ),
                ("NOT.valid", grpc.StatusCode.INVALID_ARGUMENT, "lowercase"),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stub.GetGameRecords(audit_pb2.GetGameRecordsRequest(table_id=table_id))
                assert refused.value.code() == code
                assert message in (refused.value.details() or "")

            proof = await stub.GetConsistencyProof(
                audit_pb2.GetConsistencyProofRequest(first_size=1, second_size=3)
            )
            merkle.verify_consistency(1, 3, store.root_at(1), store.root_at(3), list(proof.proof))
            for first, second, code in ((2, 1, grpc.StatusCode.INVALID_ARGUMENT),
                                        (1, 7, grpc.StatusCode.OUT_OF_RANGE)):  # fmt: skip
                with pytest.raises(grpc.aio.AioRpcError) as bad:
                    await stub.GetConsistencyProof(
                        audit_pb2.GetConsistencyProofRequest(first_size=first, second_size=second)
                    )
                assert bad.value.code() == code
    finally:
        await stop()
        store.close()


async def test_an_empty_ledger_has_no_checkpoint_yet(tmp_path: Path) -> None:
    key = signer()
    store = Store.open(tmp_path / "ledger.db", key)
    addr = f"127.0.0.1:{free_port()}"
    stop = await serve_audit(store, addr, str(key.verifier))
    try:
        async with grpc.aio.insecure_channel(addr) as channel:
            stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as empty:
                await stub.GetCheckpoint(audit_pb2.GetCheckpointRequest())
            assert empty.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await stop()
        store.close()


def test_ledgers_starting_at_once_make_one_key_between_them(tmp_path: Path) -> None:
    key_file = tmp_path / "var" / "ledger.key"
    start = threading.Barrier(12)

    def replica() -> str:
        start.wait()
        return str(keys.load_or_create(key_file, "match.local/ledger").verifier)

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        made = list(pool.map(lambda _: replica(), range(12)))
    assert len(set(made)) == 1  # one key, and nobody read a half-written file
    assert (tmp_path / "var" / "ledger.vkey").read_text().strip() == made[0]
    assert sorted(p.name for p in key_file.parent.iterdir()) == ["ledger.key", "ledger.vkey"]
    assert key_file.stat().st_mode & 0o777 == 0o600


# --- replicas: one copy each, the same tree ----------------------------------------------------


async def test_two_ledger_replicas_keep_the_same_tree(
    nats_server: NatsServer, nc: Client, tmp_path: Path
) -> None:
    await ensure_stream(nc.jetstream())
    var = tmp_path / "var"
    shared = {"LEDGER_KEY_FILE": str(var / "ledger.key")}
    one = LedgerProcess(
        nats_server.url,
        var / "ledger-1.db",
        tmp_path / "l1.log",
        LEDGER_DURABLE="ledger-1",
        **shared,
    )
    two = LedgerProcess(
        nats_server.url,
        var / "ledger-2.db",
        tmp_path / "l2.log",
        LEDGER_DURABLE="ledger-2",
        **shared,
    )
    try:
        publisher = Publisher(nc)
        await publisher.publish(120)
        one.start()
        two.start(batch=25)  # both at once: they make one key between them
        await until(lambda: len(two.stored()) > 0, every=0.002)
        two.kill()  # one replica down a while: the other goes on alone
        await publisher.publish(130)
        two.start()
        await publisher.publish(30)
        await until(lambda: len(one.stored()) == len(two.stored()) == 280, within=20)

        published = [data for _, (_, data) in sorted(publisher.sent.items())]
        await assert_the_tree_holds(one, published)
        await assert_the_tree_holds(two, published)
        assert tree_of(one.db) == tree_of(two.db)  # leaf by leaf, node by node
        js = nc.jetstream()
        for durable in ("ledger-1", "ledger-2"):  # a consumer each, each read to the end
            info = await js.consumer_info(subjects.EVENTS_STREAM, durable)
            assert info.num_pending == 0 and info.delivered.stream_seq == 280
        with pytest.raises(nats.js.errors.NotFoundError):
            await js.consumer_info(subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE)
    finally:
        one.stop()
        two.stop()


def tree_of(db: Path) -> tuple[list[tuple[int, int]], list[tuple[int, int, bytes]]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        leaves = conn.execute(
            "SELECT leaf_index, stream_sequence FROM leaves ORDER BY 1"
        ).fetchall()
        nodes = conn.execute("SELECT level, idx, hash FROM nodes ORDER BY 1, 2").fetchall()
    return leaves, nodes


async def test_a_delivery_that_skips_a_record_is_fetched_again_in_order(
    nc: Client, tmp_path: Path
) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    publisher = Publisher(nc)
    await publisher.publish(8)
    await js.delete_msg(subjects.EVENTS_STREAM, 7)  # a hole the stream really has
    probe = await js.pull_subscribe(
        subjects.EVENTS_ALL, durable="probe", stream=subjects.EVENTS_STREAM
    )
    got = await probe.fetch(7, timeout=5)
    assert [m.metadata.sequence.stream for m in got] == [1, 2, 3, 4, 5, 6, 8]
    store = Store.open(tmp_path / "ledger.db", signer())
    ingest = Ingest(nc, store)
    await ingest._handle(got[:3])
    with pytest.raises(OutOfOrder):  # 5 came before 4: 5 is not stored
        await ingest._handle([got[4], got[3], got[5]])
    assert [seq for seq, _, _ in store.records(TABLES[0]) + store.records(TABLES[1])] == [1, 3, 2]
    await ingest._handle(got[3:])  # 4, 5, 6 in order, then 8 (7 is not on the stream)
    assert ingest.last_sequence == 8 and store.tree_size() == 7
    published = [data for seq, (_, data) in sorted(publisher.sent.items()) if seq != 7]
    assert store.root_at(7) == merkle.root_of_data(published)
    store.close()


async def test_a_replica_behind_the_stream_waits_and_then_does_not_answer(
    nc: Client, tmp_path: Path
) -> None:
    await ensure_stream(nc.jetstream())
    publisher = Publisher(nc)
    await publisher.publish(6)  # table a: 1, 3, 5; table b: 2, 4, 6
    key = signer()
    store = Store.open(tmp_path / "ledger.db", key)
    sent = sorted(publisher.sent.items())
    store.append([Incoming(seq, table, data) for seq, (table, data) in sent[:3]])
    catch_up = CatchUp(nc, store.last_sequence, wait_s=0.3)

    def ask(table_id: str) -> bytes:
        return referee_pb2.LedgerRecordsRequest(table_id=table_id).SerializeToString()

    assert await catch_up.ready(TABLES[0]) == (False, 3, 5)
    assert await answer_records(store, ask(TABLES[0]), catch_up) is None  # not 2 of its 3
    unknown = await answer_records(store, ask("unknowntable"), catch_up)
    assert unknown is not None and not referee_pb2.LedgerRecordsResponse.FromString(unknown).entries

    addr = f"127.0.0.1:{free_port()}"
    stop = await serve_audit(store, addr, str(key.verifier), catch_up)
    try:
        async with grpc.aio.insecure_channel(addr) as channel:
            stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as behind:
                await stub.GetGameRecords(audit_pb2.GetGameRecordsRequest(table_id=TABLES[1]))
            assert behind.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "stored up to stream sequence 3, the game's last record is 6" in str(
                behind.value.details()
            )
    finally:
        await stop()

    async def the_rest_arrives() -> None:
        await asyncio.sleep(0.1)
        store.append([Incoming(seq, table, data) for seq, (table, data) in sent[3:]])

    arriving = asyncio.create_task(the_rest_arrives())
    answered = await answer_records(store, ask(TABLES[0]), catch_up)  # waits, then answers
    await arriving
    assert answered is not None
    entries = referee_pb2.LedgerRecordsResponse.FromString(answered).entries
    assert [e.stream_sequence for e in entries] == [1, 3, 5]
    store.close()
