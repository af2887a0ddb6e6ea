"""The ledger's SQLite store: append-only, one row per JetStream record, keyed by its sequence.

* ``INSERT OR IGNORE`` on the stream sequence: a redelivered record is stored once.
* Triggers refuse every UPDATE and DELETE: nothing stored is ever changed.
* WAL with ``synchronous=FULL``: a committed batch survives a crash, so the consumer acks only
  after :meth:`Store.append` returns.

Blocking; the service calls it through ``asyncio.to_thread``. One connection, one lock.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from google.protobuf.message import DecodeError

from match.v1 import referee_pb2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    stream_sequence INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    first_event_number INTEGER,
    event_count INTEGER,
    data BLOB NOT NULL,
    stored_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_table ON records (table_id);
CREATE TRIGGER IF NOT EXISTS records_no_update BEFORE UPDATE ON records
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER IF NOT EXISTS records_no_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
"""


@dataclass(frozen=True, slots=True)
class Incoming:
    """One record as JetStream delivered it."""

    sequence: int
    table_id: str  # from the subject, match.events.<table_id>
    data: bytes


@dataclass(frozen=True, slots=True)
class Outcome:
    """What storing one record did."""

    sequence: int
    table_id: str
    inserted: bool  # False: stored before (a redelivery)
    conflict: bool  # stored before with other bytes: the stream was remade under us
    event_count: int | None  # None: not a TableRecord
    first_event_number: int | None
    expected_first: int | None  # set when the event numbers do not continue the table's


class Store:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> Store:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(_SCHEMA)
        return cls(db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def append(self, batch: Sequence[Incoming]) -> list[Outcome]:
        """Store a batch in one transaction; returns once it is on disk."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                outcomes = [self._insert(record) for record in batch]
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return outcomes

    def _insert(self, record: Incoming) -> Outcome:
        first: int | None
        count: int | None
        try:
            parsed = referee_pb2.TableRecord.FromString(record.data)
            first, count = parsed.first_event_number, len(parsed.events)
        except DecodeError:
            first = count = None
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO records"
            " (stream_sequence, table_id, first_event_number, event_count, data, stored_at_ms)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (record.sequence, record.table_id, first, count, record.data, _now_ms()),
        )
        inserted = cursor.rowcount == 1
        expected = self._expected_first(record) if inserted and first is not None else None
        return Outcome(
            sequence=record.sequence,
            table_id=record.table_id,
            inserted=inserted,
            conflict=not inserted and self._stored_data(record.sequence) != record.data,
            event_count=count,
            first_event_number=first,
            expected_first=expected if expected != first else None,
        )

    def _stored_data(self, sequence: int) -> bytes:
        (data,) = self._db.execute(
            "SELECT data FROM records WHERE stream_sequence = ?", (sequence,)
        ).fetchone()
        return bytes(data)

    def _expected_first(self, record: Incoming) -> int | None:
        """The event number the table's previous record says comes next (1 for a new table)."""
        row = self._db.execute(
            "SELECT first_event_number, event_count FROM records"
            " WHERE table_id = ? AND stream_sequence < ?"
            " ORDER BY stream_sequence DESC LIMIT 1",
            (record.table_id, record.sequence),
        ).fetchone()
        if row is None:
            return 1
        first, count = row
        if first is None or count is None:
            return None  # the previous record was not a TableRecord: nothing to compare
        return int(first) + int(count)

    def records(self, table_id: str) -> list[tuple[int, bytes]]:
        """A table's records, (stream sequence, bytes as published), in stream order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT stream_sequence, data FROM records WHERE table_id = ?"
                " ORDER BY stream_sequence",
                (table_id,),
            ).fetchall()
        return [(int(sequence), bytes(data)) for sequence, data in rows]

    def last_sequence(self) -> int:
        with self._lock:
            (last,) = self._db.execute("SELECT max(stream_sequence) FROM records").fetchone()
        return int(last or 0)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
