"""The ledger's SQLite store: an append-only copy of every JetStream record, and the transparency
log over it.

* A record is where the stream holds it: its stream sequence, and its index in its message (0
  for a record published on its own; a partition's frame holds several, match_bus.records).
  ``INSERT OR IGNORE`` on that place: a redelivered record is stored once.
* Every stored record is the next leaf of an RFC 6962 Merkle tree (leaf ``i`` = the ``i``-th
  record stored, in stream order); the store keeps the hash of every perfect subtree (table
  ``nodes``), so any inclusion or consistency proof is a few lookups.
* A signed checkpoint (C2SP tlog-checkpoint) is stored at least every ``checkpoint_every``
  leaves, in the same transaction as the leaves it covers; :meth:`Store.checkpoint_if_new` signs
  one for whatever came since (the service calls it every few seconds).
* Triggers refuse every UPDATE and DELETE: nothing stored is ever changed.
* Every record is stored, whatever it holds. A record that does not decode or does not continue
  its table's numbering (match_bus.records) quarantines its table: a row in ``quarantined``, in
  the same transaction; the table's later records are stored and not judged again. A record on
  a subject that names no table is stored under that whole subject, which never names a table.
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

import structlog
from google.protobuf.message import DecodeError

from match.v1 import referee_pb2
from match_audit import merkle
from match_audit.note import Checkpoint, NoteError, Signer, open_checkpoint, sign_checkpoint
from match_bus import subjects
from match_bus.records import BadRecord, Numbering

log = structlog.get_logger()

# A record's row and its leaf: the same place in the stream.
_SAME_PLACE = "l.stream_sequence = r.stream_sequence AND l.frame_index = r.frame_index"
_APPEND_ONLY = "BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;"
# The columns of a record's row and of a leaf, keyed by the record's place in the stream.
_RECORDS = """(
    stream_sequence INTEGER NOT NULL,
    frame_index INTEGER NOT NULL DEFAULT 0,
    table_id TEXT NOT NULL,
    first_event_number INTEGER,
    event_count INTEGER,
    data BLOB NOT NULL,
    stored_at_ms INTEGER NOT NULL,
    PRIMARY KEY (stream_sequence, frame_index)
)"""
_LEAVES = """(
    leaf_index INTEGER PRIMARY KEY,
    stream_sequence INTEGER NOT NULL,
    frame_index INTEGER NOT NULL DEFAULT 0,
    UNIQUE (stream_sequence, frame_index)
)"""
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS records {_RECORDS};
CREATE INDEX IF NOT EXISTS records_of_table ON records (table_id, stream_sequence, frame_index);
CREATE TABLE IF NOT EXISTS leaves {_LEAVES};
CREATE TABLE IF NOT EXISTS nodes (
    level INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS quarantined (
    table_id TEXT PRIMARY KEY,
    stream_sequence INTEGER NOT NULL,
    problem TEXT NOT NULL,
    found_at_ms INTEGER NOT NULL,
    frame_index INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS checkpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tree_size INTEGER NOT NULL,
    root BLOB NOT NULL,
    note TEXT NOT NULL,
    signed_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS checkpoints_by_size ON checkpoints (tree_size);
CREATE TRIGGER IF NOT EXISTS records_no_update BEFORE UPDATE ON records {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS records_no_delete BEFORE DELETE ON records {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS leaves_no_update BEFORE UPDATE ON leaves {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS leaves_no_delete BEFORE DELETE ON leaves {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS nodes_no_update BEFORE UPDATE ON nodes {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS nodes_no_delete BEFORE DELETE ON nodes {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS quarantined_no_update BEFORE UPDATE ON quarantined {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS quarantined_no_delete BEFORE DELETE ON quarantined {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS checkpoints_no_update BEFORE UPDATE ON checkpoints {_APPEND_ONLY}
CREATE TRIGGER IF NOT EXISTS checkpoints_no_delete BEFORE DELETE ON checkpoints {_APPEND_ONLY}
"""


# A file written before frames keyed records and leaves by the stream sequence alone: the same
# rows, each at index 0 of its message, in tables keyed by both (SQLite cannot change a key in
# place, so the two tables are copied). The rows, the tree and the checkpoints stay as they were.
# (A file from before the tree has no leaves yet: they are made from the records on opening.)
_RECORDS_FRAMED = f"""
CREATE TABLE records_framed {_RECORDS};
INSERT INTO records_framed
    (stream_sequence, frame_index, table_id, first_event_number, event_count, data, stored_at_ms)
    SELECT stream_sequence, 0, table_id, first_event_number, event_count, data, stored_at_ms
    FROM records ORDER BY stream_sequence;
DROP TABLE records;
ALTER TABLE records_framed RENAME TO records;
"""
_LEAVES_FRAMED = f"""
CREATE TABLE leaves_framed {_LEAVES};
INSERT INTO leaves_framed (leaf_index, stream_sequence, frame_index)
    SELECT leaf_index, stream_sequence, 0 FROM leaves ORDER BY leaf_index;
DROP TABLE leaves;
ALTER TABLE leaves_framed RENAME TO leaves;
"""
_QUARANTINED_FRAMED = "ALTER TABLE quarantined ADD COLUMN frame_index INTEGER NOT NULL DEFAULT 0;"


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _key_by_place(db: sqlite3.Connection) -> None:
    """Key a file written before frames by each record's place (sequence, index in its
    message), in one transaction; nothing to do for a new file or one keyed so already. The
    triggers that keep the tables append-only go with the old tables and are made again with
    the schema."""
    steps = [
        script
        for table, script in (
            ("records", _RECORDS_FRAMED),
            ("leaves", _LEAVES_FRAMED),
            ("quarantined", _QUARANTINED_FRAMED),
        )
        if (columns := _columns(db, table)) and "frame_index" not in columns
    ]
    if not steps:
        return
    (count,) = db.execute("SELECT count(*) FROM records").fetchone()
    log.info("keying the ledger's records by their place in the stream", records=count)
    try:
        db.executescript("BEGIN IMMEDIATE;\n" + "".join(steps) + "\nCOMMIT;")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class LedgerCorrupt(RuntimeError):
    """The stored tree does not match a stored checkpoint: the file was changed under us."""


@dataclass(frozen=True, slots=True)
class Incoming:
    """One record as JetStream delivered it."""

    sequence: int
    table_id: str  # its table (match_bus.records.unpack); else the whole subject
    data: bytes
    index: int = 0  # its place in its message: 0 unless a frame's later entry


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
    leaf_index: int | None = None  # the new leaf, when inserted
    stray: bool = False  # on a subject that names no table
    quarantine: BadRecord | None = None  # set when this record quarantined its table
    index: int = 0  # its place in its message


@dataclass(frozen=True, slots=True)
class StoredCheckpoint:
    size: int
    root: bytes
    note: str  # the signed note


@dataclass(frozen=True, slots=True)
class ProvedRecord:
    leaf_index: int
    sequence: int
    data: bytes
    proof: list[bytes]
    index: int = 0  # its place in its message


class _Nodes:
    """Perfect subtree hashes read from the ``nodes`` table, memoised for one request."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._memo: dict[tuple[int, int], bytes] = {}

    def hash_of(self, level: int, index: int) -> bytes:
        key = (level, index)
        found = self._memo.get(key)
        if found is None:
            row = self._db.execute(
                "SELECT hash FROM nodes WHERE level = ? AND idx = ?", key
            ).fetchone()
            if row is None:
                raise LedgerCorrupt(f"the tree has no node at level {level}, index {index}")
            found = self._memo[key] = bytes(row[0])
        return found


class Store:
    def __init__(
        self,
        connection: sqlite3.Connection,
        signer: Signer | None = None,
        checkpoint_every: int = 64,
    ) -> None:
        self._db = connection
        self._lock = threading.Lock()
        self._signer = signer
        self._every = max(1, checkpoint_every)
        self._frontier = merkle.Frontier()
        self._checkpoint: StoredCheckpoint | None = None

    @classmethod
    def open(cls, path: Path, signer: Signer | None = None, checkpoint_every: int = 64) -> Store:
        """Open (or make) the file. Records stored before the ledger was a transparency log
        become leaves now, in stream order; with a signer, the latest checkpoint is made good."""
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        _key_by_place(db)
        db.executescript(_SCHEMA)
        store = cls(db, signer, checkpoint_every)
        store._load()
        return store

    # --- start-up ------------------------------------------------------------------------

    def _load(self) -> None:
        (size,) = self._db.execute("SELECT count(*) FROM leaves").fetchone()
        nodes = _Nodes(self._db)
        self._frontier = merkle.Frontier(
            size, [nodes.hash_of(level, index) for level, index in merkle.Frontier.levels(size)]
        )
        row = self._db.execute(
            "SELECT tree_size, root, note FROM checkpoints ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is not None:
            self._checkpoint = StoredCheckpoint(int(row[0]), bytes(row[1]), str(row[2]))
            at = merkle.subtree_root(nodes, 0, self._checkpoint.size)
            if at != self._checkpoint.root:
                raise LedgerCorrupt(
                    f"the stored tree's root at size {self._checkpoint.size} is not the one "
                    "its checkpoint signed"
                )
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                missing = self._db.execute(
                    "SELECT r.stream_sequence, r.frame_index, r.data FROM records r"
                    f" LEFT JOIN leaves l ON {_SAME_PLACE}"
                    " WHERE l.leaf_index IS NULL ORDER BY r.stream_sequence, r.frame_index"
                ).fetchall()
                for sequence, index, data in missing:
                    self._add_leaf(int(sequence), int(index), bytes(data))
                if missing:
                    log.info("records made leaves", count=len(missing))
                if (
                    self._signer is not None
                    and self._frontier.size > 0
                    and not self._checkpoint_is_current_key()
                ):
                    self._sign()
            except BaseException:
                self._db.execute("ROLLBACK")
                self._reload_after_rollback()
                raise
            self._db.execute("COMMIT")

    def _checkpoint_is_current_key(self) -> bool:
        """The latest checkpoint verifies with this ledger's key and origin."""
        assert self._signer is not None
        if self._checkpoint is None:
            return False
        try:
            open_checkpoint(self._checkpoint.note, self._signer.verifier)
        except NoteError:
            return False
        return True

    def _reload_after_rollback(self) -> None:
        """The in-memory frontier and checkpoint follow the file again."""
        frontier, checkpoint = self._frontier, self._checkpoint
        try:
            (size,) = self._db.execute("SELECT count(*) FROM leaves").fetchone()
            nodes = _Nodes(self._db)
            self._frontier = merkle.Frontier(
                size, [nodes.hash_of(lv, ix) for lv, ix in merkle.Frontier.levels(size)]
            )
            row = self._db.execute(
                "SELECT tree_size, root, note FROM checkpoints ORDER BY id DESC LIMIT 1"
            ).fetchone()
            self._checkpoint = (
                None if row is None else StoredCheckpoint(int(row[0]), bytes(row[1]), str(row[2]))
            )
        except Exception:  # keep what we had; the next append fails loudly if it is wrong
            self._frontier, self._checkpoint = frontier, checkpoint

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- writing -------------------------------------------------------------------------

    def append(self, batch: Sequence[Incoming]) -> list[Outcome]:
        """Store a batch in one transaction (records, leaves, nodes, and a checkpoint every
        ``checkpoint_every`` leaves); returns once it is on disk."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                outcomes = [self._insert(record) for record in batch]
            except BaseException:
                self._db.execute("ROLLBACK")
                self._reload_after_rollback()
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
            "INSERT OR IGNORE INTO records (stream_sequence, frame_index, table_id,"
            " first_event_number, event_count, data, stored_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (record.sequence, record.index, record.table_id, first, count, record.data, _now_ms()),
        )
        inserted = cursor.rowcount == 1
        leaf = self._add_leaf(record.sequence, record.index, record.data) if inserted else None
        if inserted and self._signer is not None and self._due():
            self._sign()
        stray = not subjects.valid_table_id(record.table_id)
        expected = quarantine = None
        if inserted and not stray:
            previous = self._previous(record)
            expected = _expected_first(previous) if first is not None else None
            quarantine = self._judge(record, previous)
        return Outcome(
            sequence=record.sequence,
            table_id=record.table_id,
            inserted=inserted,
            conflict=not inserted and self._stored_data(record) != record.data,
            event_count=count,
            first_event_number=first,
            expected_first=expected if expected != first else None,
            leaf_index=leaf,
            stray=inserted and stray,
            quarantine=quarantine,
            index=record.index,
        )

    def _add_leaf(self, sequence: int, index: int, data: bytes) -> int:
        leaf = self._frontier.size
        self._db.execute(
            "INSERT INTO leaves (leaf_index, stream_sequence, frame_index) VALUES (?, ?, ?)",
            (leaf, sequence, index),
        )
        self._db.executemany(
            "INSERT INTO nodes (level, idx, hash) VALUES (?, ?, ?)",
            self._frontier.append(merkle.leaf_hash(data)),
        )
        return leaf

    def _due(self) -> bool:
        signed = self._checkpoint.size if self._checkpoint is not None else 0
        return self._frontier.size - signed >= self._every

    def _sign(self) -> StoredCheckpoint:
        """Sign and store a checkpoint of the tree as it is now (inside a transaction)."""
        assert self._signer is not None
        size, root = self._frontier.size, self._frontier.root()
        note = sign_checkpoint(Checkpoint(self._signer.name, size, root), self._signer)
        self._db.execute(
            "INSERT INTO checkpoints (tree_size, root, note, signed_at_ms) VALUES (?, ?, ?, ?)",
            (size, root, note, _now_ms()),
        )
        self._checkpoint = StoredCheckpoint(size, root, note)
        return self._checkpoint

    def checkpoint_if_new(self) -> StoredCheckpoint | None:
        """Sign a checkpoint when leaves came since the last one; returns it, else None."""
        with self._lock:
            return self._checkpoint_if_new()

    def _checkpoint_if_new(self) -> StoredCheckpoint | None:
        if self._signer is None:
            return None
        if self._checkpoint is not None and self._checkpoint.size >= self._frontier.size:
            return None
        self._db.execute("BEGIN IMMEDIATE")
        try:
            made = self._sign()
        except BaseException:
            self._db.execute("ROLLBACK")
            self._reload_after_rollback()
            raise
        self._db.execute("COMMIT")
        return made

    def _stored_data(self, record: Incoming) -> bytes:
        (data,) = self._db.execute(
            "SELECT data FROM records WHERE stream_sequence = ? AND frame_index = ?",
            (record.sequence, record.index),
        ).fetchone()
        return bytes(data)

    def _previous(self, record: Incoming) -> _Previous | None:
        """The table's record before ``record``, if it has one."""
        row = self._db.execute(
            "SELECT stream_sequence, frame_index, first_event_number, event_count, data"
            " FROM records WHERE table_id = ? AND (stream_sequence, frame_index) < (?, ?)"
            " ORDER BY stream_sequence DESC, frame_index DESC LIMIT 1",
            (record.table_id, record.sequence, record.index),
        ).fetchone()
        if row is None:
            return None
        sequence, index, first, count, data = row
        return _Previous(int(sequence), int(index), first, count, bytes(data))

    def _judge(self, record: Incoming, previous: _Previous | None) -> BadRecord | None:
        """Quarantine the table when ``record`` does not fit after the table's records before
        it (all good, or the table would be quarantined already); the BadRecord, if it did."""
        if self._quarantine_of(record.table_id) is not None:
            return None  # stored, not judged again
        numbering = Numbering(record.table_id)
        try:
            if previous is not None:
                numbering.resume(
                    _decoded(record.table_id, previous.sequence, previous.index, previous.data)
                )
            numbering.follow(record.sequence, record.data, record.index)
        except BadRecord as bad:
            self._db.execute(
                "INSERT INTO quarantined"
                " (table_id, stream_sequence, frame_index, problem, found_at_ms)"
                " VALUES (?, ?, ?, ?, ?)",
                (bad.table_id, bad.sequence, bad.index, bad.problem, _now_ms()),
            )
            return bad
        return None

    # --- reading -------------------------------------------------------------------------

    def records(self, table_id: str) -> list[tuple[int, int, bytes]]:
        """A table's records, (stream sequence, index in its message, bytes as published), in
        stream order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT stream_sequence, frame_index, data FROM records WHERE table_id = ?"
                " ORDER BY stream_sequence, frame_index",
                (table_id,),
            ).fetchall()
        return [(int(sequence), int(index), bytes(data)) for sequence, index, data in rows]

    def quarantine(self, table_id: str) -> BadRecord | None:
        """The record that quarantined the table, if one did."""
        with self._lock:
            return self._quarantine_of(table_id)

    def _quarantine_of(self, table_id: str) -> BadRecord | None:
        row = self._db.execute(
            "SELECT stream_sequence, problem, frame_index FROM quarantined WHERE table_id = ?",
            (table_id,),
        ).fetchone()
        return None if row is None else BadRecord(table_id, int(row[0]), str(row[1]), int(row[2]))

    def quarantined(self) -> list[BadRecord]:
        """Every quarantined table, in the order they were found."""
        with self._lock:
            rows = self._db.execute(
                "SELECT table_id, stream_sequence, problem, frame_index FROM quarantined"
                " ORDER BY stream_sequence, frame_index"
            ).fetchall()
        return [BadRecord(str(t), int(s), str(p), int(i)) for t, s, p, i in rows]

    def last_sequence(self) -> int:
        with self._lock:
            (last,) = self._db.execute("SELECT max(stream_sequence) FROM records").fetchone()
        return int(last or 0)

    def tree_size(self) -> int:
        with self._lock:
            return self._frontier.size

    def latest_checkpoint(self) -> StoredCheckpoint | None:
        with self._lock:
            return self._checkpoint

    def checkpoints(self) -> list[StoredCheckpoint]:
        """Every checkpoint signed, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT tree_size, root, note FROM checkpoints ORDER BY id"
            ).fetchall()
        return [StoredCheckpoint(int(s), bytes(r), str(n)) for s, r, n in rows]

    def proved_records(
        self,
        table_id: str,
        *,
        size: int | None = None,
        after_leaf: int = -1,
        limit: int | None = None,
    ) -> tuple[StoredCheckpoint, list[ProvedRecord]]:
        """A table's records in leaf order (which is stream order) with their leaf indexes and
        inclusion proofs against a checkpoint that holds all of them (signed now if the latest
        does not). One page: the records after leaf ``after_leaf``, at most ``limit`` of them,
        proved against the checkpoint of ``size`` leaves (a page after the first keeps the
        first page's checkpoint; LookupError when no checkpoint has that size)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT l.leaf_index, r.stream_sequence, r.data, r.frame_index FROM records r"
                f" JOIN leaves l ON {_SAME_PLACE}"
                " WHERE r.table_id = ? AND l.leaf_index > ? ORDER BY l.leaf_index"
                + (" LIMIT ?" if limit is not None else ""),
                (table_id, after_leaf, *((limit,) if limit is not None else ())),
            ).fetchall()
            if size is not None:
                checkpoint = self._checkpoint_of(size)
                if any(int(leaf) >= size for leaf, _, _, _ in rows):
                    raise LookupError(f"the checkpoint of {size} leaves does not hold the page")
            else:  # a checkpoint that holds every record of the table, for every page
                (last,) = self._db.execute(
                    "SELECT max(l.leaf_index) FROM records r"
                    f" JOIN leaves l ON {_SAME_PLACE}"
                    " WHERE r.table_id = ?",
                    (table_id,),
                ).fetchone()
                last_leaf = -1 if last is None else int(last)
                if self._checkpoint is None or self._checkpoint.size <= last_leaf:
                    self._checkpoint_if_new()
                checkpoint = self._checkpoint
            if checkpoint is None:
                raise LookupError("the ledger has no checkpoint yet")
            nodes = _Nodes(self._db)
            proved = [
                ProvedRecord(
                    int(leaf),
                    int(sequence),
                    bytes(data),
                    merkle.inclusion_proof(nodes, int(leaf), checkpoint.size),
                    int(index),
                )
                for leaf, sequence, data, index in rows
            ]
        return checkpoint, proved

    def _checkpoint_of(self, size: int) -> StoredCheckpoint | None:
        row = self._db.execute(
            "SELECT tree_size, root, note FROM checkpoints WHERE tree_size = ?"
            " ORDER BY id DESC LIMIT 1",
            (size,),
        ).fetchone()
        return None if row is None else StoredCheckpoint(int(row[0]), bytes(row[1]), str(row[2]))

    def consistency_proof(self, first: int, second: int) -> list[bytes]:
        """The proof that the tree of ``first`` leaves is a prefix of the tree of ``second``."""
        with self._lock:
            if second > self._frontier.size:
                raise IndexError(f"the tree has {self._frontier.size} leaves, not {second}")
            return merkle.consistency_proof(_Nodes(self._db), first, second)

    def root_at(self, size: int) -> bytes:
        with self._lock:
            if size > self._frontier.size:
                raise IndexError(f"the tree has {self._frontier.size} leaves, not {size}")
            return merkle.subtree_root(_Nodes(self._db), 0, size)


@dataclass(frozen=True, slots=True)
class _Previous:
    sequence: int
    index: int
    first_event_number: int | None
    event_count: int | None
    data: bytes


def _expected_first(previous: _Previous | None) -> int | None:
    """The event number the table's previous record says comes next (1 for a new table)."""
    if previous is None:
        return 1
    first, count = previous.first_event_number, previous.event_count
    if first is None or count is None:
        return None  # the previous record was not a TableRecord: nothing to compare
    return int(first) + int(count)


def _decoded(table_id: str, sequence: int, index: int, data: bytes) -> referee_pb2.TableRecord:
    """A record stored before, judged good then; BadRecord if it does not even decode (a file
    written before records were judged)."""
    try:
        return referee_pb2.TableRecord.FromString(data)
    except DecodeError:
        raise BadRecord(table_id, sequence, "does not decode as a TableRecord", index) from None


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
