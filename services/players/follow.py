"""Following the table log into the book: an ordered consumer from where the book stopped.

The book's own position is the only bookmark (no durable consumer): at start, and after any
failure, the consumer is made again from ``position + 1``. A record that reveals a seed makes
the follower count the table's game from its records up to it; every other record only moves
the position. A table whose records do not fold (a quarantined table) is logged, counted in a
metric and passed over: no other table waits.

The follower keeps each table's records as they pass, from the table's first record to its
reveal (up to ``gather_bytes`` in all; the oldest tables are let go past that), so a finished
game is counted from what it already took. Only a table it did not see begin (one begun before
the follower last started, or let go) is read back from the stream. Reading back means reading
its partition's frames since the table began (group commit: each holds records of many tables),
so at a thousand tables on sixteen partitions it reads some sixty times the game's own records.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import NoReturn

import structlog
from google.protobuf.message import DecodeError
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.errors import NotFoundError
from prometheus_client import Counter, Gauge

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.jetstream import follow_copy, read_table
from match_bus.records import (
    BadRecord,
    Numbering,
    StoredRecord,
    Unpacked,
    begins_table,
    closing,
    facts_of,
    unpack,
)
from services.players.book import Book
from services.players.facts import NotAGame, finished, has_reveal

log = structlog.get_logger()

GAMES = Counter("match_players_games_total", "Finished games counted into the read models")
PASSED = Counter(
    "match_players_unreadable_games_total",
    "Games whose seed was revealed but whose records the rules could not fold (not counted)",
)
POSITION = Gauge("match_players_last_stream_sequence", "The last stream sequence taken")
LAG = Gauge("match_players_lag_records", "Records on the stream the players service has not taken")
READ_BACK = Counter(
    "match_players_tables_read_total",
    "Finished tables read back from the log to be counted (not kept from their first record)",
)
KEPT_BYTES = Gauge("match_players_kept_bytes", "Bytes of unfinished tables' records kept")

IDLE_CHECK_S = 2.0
# Unfinished tables' records kept, at most (a race: ~20 KiB), unless PLAYERS_KEEP_MIB says
GATHER_BYTES = 64 * 1024 * 1024
FLUSH_EVERY = 512  # records between writes of the position when there is nothing to count
MAX_BACKOFF_S = 5.0
# At a deployment's first start the players service may come up before the service that makes
# its copy of the log: waited for quietly this long, then warned about.
COPY_GRACE_S = 30.0
STREAM_NOT_FOUND = 10059  # JetStream's error code


def _missing_copy(error: NotFoundError, since: float | None, now: float) -> float:
    """Its copy of the log is not made yet (a deployment's first start, the players service up
    before the referee and the ledger, which make it): said quietly at first, warned about once
    it has been missing COPY_GRACE_S, and again after as long. Returns when it was last said."""
    if since is None:
        log.info("waiting for the players' copy of the log to be made", error=repr(error))
        return now
    if now - since < COPY_GRACE_S:
        return since
    log.warning(
        "the players' copy of the log is still missing: the referee and the ledger make it when "
        "they start; is either running?",
        copy=subjects.PLAYERS_EVENTS,
        waited_s=round(COPY_GRACE_S),
    )
    return now


class Stalled(Exception):
    """The stream holds records past ours, and the consumer delivers none."""


class ShortRead(Exception):
    """Reading a table's records stopped before the record that revealed its seed (a node
    killed or a leader moving mid-read): nothing is wrong with the table; read it again."""


async def table_records(
    js: JetStreamContext, table_id: str, upto: int, kept: list[StoredRecord] | None = None
) -> list[referee_pb2.TableRecord]:
    """A table's records up to stream sequence ``upto`` (the one that revealed its seed),
    checked against the table's numbering (BadRecord at the first that does not fit): those
    ``kept`` from its first, or else read back from the stream.

    A read that fails (NATS errors, time-outs) raises, and so does one that ends before
    ``upto`` (ShortRead): neither says anything about the table, so the caller must not pass
    its game over but read again."""
    stored = kept
    if stored is None:
        READ_BACK.inc()
        stored = await read_table(js, table_id, subjects.PLAYERS_EVENTS, until=upto)
    if not stored or stored[-1].sequence != upto:
        reached = stored[-1].sequence if stored else 0
        raise ShortRead(f"read {table_id} to stream sequence {reached}, not to {upto}")
    numbering = Numbering(table_id)
    return [numbering.follow(r.sequence, r.data, r.index) for r in stored]


class Kept:
    """Each unfinished table's records, as the follower took them, from the table's first
    record on: what counting its game needs, without reading it back. At most ``limit`` bytes
    in all; past that the tables kept longest are let go (read back if they finish)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._tables: dict[str, list[StoredRecord]] = {}  # in the order they began
        self._bytes = 0

    def take(self, sequence: int, subject: str, found: Unpacked) -> None:
        assert found.table_id is not None
        kept = self._tables.get(found.table_id)
        if kept is None:
            if not begins_table(found.data, found.headers):
                return  # a table begun before the follower started (or let go): read back
            kept = self._tables[found.table_id] = []
        elif (kept[-1].sequence, kept[-1].index) >= (sequence, found.index):
            return  # taken again after a failure: kept already
        kept.append(StoredRecord(sequence, found.data, subject, found.index, found.headers))
        self._bytes += len(found.data)
        while self._bytes > self._limit and self._tables:
            self.drop(next(iter(self._tables)))
        KEPT_BYTES.set(self._bytes)

    def records(self, table_id: str) -> list[StoredRecord] | None:
        return self._tables.get(table_id)

    def drop(self, table_id: str) -> None:
        records = self._tables.pop(table_id, None) or []
        self._bytes -= sum(len(r.data) for r in records)
        KEPT_BYTES.set(self._bytes)


class Follower:
    def __init__(self, js: JetStreamContext, book: Book, gather_bytes: int = GATHER_BYTES) -> None:
        self._js = js
        self._book = book
        self._kept = Kept(gather_bytes)
        self._taken = book.position
        self._unflushed = 0
        self.caught_up = asyncio.Event()

    @property
    def taken(self) -> int:
        return self._taken

    async def run(self) -> None:
        backoff = 0.25
        loop = asyncio.get_running_loop()
        missing_since: float | None = None  # when its copy of the log was first found missing
        while True:
            start = self._taken
            try:
                await self._follow()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if isinstance(error, NotFoundError) and error.err_code == STREAM_NOT_FOUND:
                    missing_since = _missing_copy(error, missing_since, loop.time())
                else:
                    log.warning(
                        "players consumer failed; re-creating it",
                        error=repr(error),
                        after=self._taken,
                    )
            backoff = 0.25 if self._taken > start else min(backoff * 2, MAX_BACKOFF_S)
            await asyncio.sleep(backoff)

    async def _follow(self) -> NoReturn:
        try:
            await follow_copy(
                self._js,
                subjects.PLAYERS_EVENTS,  # its own copy of the log (same sequences)
                self._taken,
                self._take_message,
                self._quiet,
                IDLE_CHECK_S,
            )
        finally:
            self._flush()

    async def _take_message(self, msg: Msg) -> None:
        assert msg.metadata.sequence is not None
        await self.take(msg.metadata.sequence.stream, msg.subject, msg.data, msg.headers)
        if msg.metadata.num_pending is not None:
            LAG.set(msg.metadata.num_pending)  # what is left after this one

    async def _quiet(self) -> None:
        """Nothing came for a while: write the position, and re-create the consumer if the
        log holds records it did not deliver; else the follower has caught up."""
        self._flush()
        info = await self._js.stream_info(subjects.EVENTS_STREAM)
        LAG.set(max(info.state.last_seq - self._taken, 0))
        if info.state.last_seq > self._taken:
            raise Stalled(f"stream at {info.state.last_seq}, taken {self._taken}")
        self.caught_up.set()

    def _flush(self) -> None:
        self._book.flush()
        self._unflushed = 0

    async def take(
        self, sequence: int, subject: str, data: bytes, headers: Mapping[str, str] | None = None
    ) -> None:
        """One message of the stream, in stream order: a record, or a frame of records
        (match_bus.records.unpack). A record whose headers name its facts
        (match_bus.records.fact_headers) is decoded only if they say it reveals the seed."""
        if sequence <= self._taken:
            return
        revealed, closed = [], []
        for found in unpack(subject, data, headers):
            if found.table_id is None:
                continue
            self._kept.take(sequence, subject, found)
            record = None
            facts = facts_of(found.headers)
            if facts is None or "seed_revealed" in facts:
                with contextlib.suppress(DecodeError):
                    record = referee_pb2.TableRecord.FromString(found.data)
            reveals = record is not None and has_reveal(record)
            if reveals:
                revealed.append(found.table_id)
            if reveals or closing(facts):
                closed.append(found.table_id)
        if revealed:
            for i, table_id in enumerate(revealed):  # the position moves with the last
                await self._count(sequence, table_id, move=i == len(revealed) - 1)
        for table_id in closed:  # nobody counts it again
            self._kept.drop(table_id)
        if not revealed:
            self._book.skip(sequence)
            self._unflushed += 1
            if self._unflushed >= FLUSH_EVERY:
                self._flush()
        self._taken = sequence
        POSITION.set(sequence)

    async def _count(self, sequence: int, table_id: str, move: bool = True) -> None:
        # Reading may fail for reasons that say nothing about the table (a NATS node killed, a
        # leader moving, a time-out): those raise out of here, the position stays before this
        # record, and run() makes the consumer again from it, so the game is read again and
        # counted. Only records that were read whole and do not fold pass the game over.
        try:
            records = await table_records(
                self._js, table_id, sequence, self._kept.records(table_id)
            )
        except BadRecord as error:
            PASSED.inc()
            log.warning("a finished game not counted", table_id=table_id, why=str(error))
            self._book.skip(sequence)
            return
        try:
            game = finished(records)
        except NotAGame as error:
            PASSED.inc()
            log.warning("a finished game not counted", table_id=table_id, why=str(error))
            self._book.skip(sequence)
            return
        except Exception as error:  # the rules could not fold it: this table only
            PASSED.inc()
            log.error("a finished game not counted", table_id=table_id, exc_info=error)
            self._book.skip(sequence)
            return
        if self._book.count(sequence, game, move):
            GAMES.inc()
            log.info("game counted", table_id=table_id, game=game.game.slug)
