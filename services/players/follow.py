"""Following the table log into the book: an ordered consumer from where the book stopped.

The book's own position is the only bookmark (no durable consumer): at start, and after any
failure, the consumer is made again from ``position + 1``. A record that reveals a seed makes
the follower read that table's records up to it, straight from the stream, and count the
game; every other record only moves the position. A table whose records do not fold (a
quarantined table) is logged, counted in a metric and passed over: no other table waits.
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
from prometheus_client import Counter, Gauge

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.jetstream import follow_copy, read_table
from match_bus.records import BadRecord, Numbering, facts_of, unpack
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

IDLE_CHECK_S = 2.0
FLUSH_EVERY = 512  # records between writes of the position when there is nothing to count
MAX_BACKOFF_S = 5.0


class Stalled(Exception):
    """The stream holds records past ours, and the consumer delivers none."""


class ShortRead(Exception):
    """Reading a table's records stopped before the record that revealed its seed (a node
    killed or a leader moving mid-read): nothing is wrong with the table; read it again."""


async def table_records(
    js: JetStreamContext, table_id: str, upto: int
) -> list[referee_pb2.TableRecord]:
    """A table's records up to stream sequence ``upto`` (the one that revealed its seed),
    checked against the table's numbering (BadRecord at the first that does not fit).

    A read that fails (NATS errors, time-outs) raises, and so does one that ends before
    ``upto`` (ShortRead): neither says anything about the table, so the caller must not pass
    its game over but read again."""
    stored = await read_table(js, table_id, subjects.PLAYERS_EVENTS, until=upto)
    if not stored or stored[-1].sequence != upto:
        reached = stored[-1].sequence if stored else 0
        raise ShortRead(f"read {table_id} to stream sequence {reached}, not to {upto}")
    numbering = Numbering(table_id)
    return [numbering.follow(r.sequence, r.data, r.index) for r in stored]


class Follower:
    def __init__(self, js: JetStreamContext, book: Book) -> None:
        self._js = js
        self._book = book
        self._taken = book.position
        self._unflushed = 0
        self.caught_up = asyncio.Event()

    @property
    def taken(self) -> int:
        return self._taken

    async def run(self) -> None:
        backoff = 0.25
        while True:
            start = self._taken
            try:
                await self._follow()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning(
                    "players consumer failed; re-creating it", error=repr(error), after=self._taken
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
        revealed = []
        for found in unpack(subject, data, headers):
            record = None
            facts = facts_of(found.headers)
            if found.table_id is not None and (facts is None or "seed_revealed" in facts):
                with contextlib.suppress(DecodeError):
                    record = referee_pb2.TableRecord.FromString(found.data)
            if record is not None and found.table_id is not None and has_reveal(record):
                revealed.append(found.table_id)
        if revealed:
            for i, table_id in enumerate(revealed):  # the position moves with the last
                await self._count(sequence, table_id, move=i == len(revealed) - 1)
        else:
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
            records = await table_records(self._js, table_id, sequence)
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
