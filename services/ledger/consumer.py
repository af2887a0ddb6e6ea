"""The durable pull consumer on MATCH_EVENTS (``ledger``, or ``LEDGER_DURABLE``: one per ledger
replica): fetch a batch, store it, then ack it.

Acking only after the batch is committed means a ledger killed at any instant loses nothing:
what it had not acked comes again, and the store ignores what it already holds. The consumer acks
all (``AckPolicy.ALL``): one ack, the batch's last record's, acks the whole batch, instead of one
message to nats-server per record. A consumer made before that (``AckPolicy.EXPLICIT``; a
consumer's ack policy cannot be changed) is still acked record by record, and a warning says how
to have it made anew (docs/operations.md).

A message is a record, or a partition's frame of several tables' records (match_bus.records):
each record is stored as its own row and leaf, at its place (the message's sequence, its index
in it), so the Merkle log is over records whichever way they were appended.

Records are stored in stream order, with no hole: a record whose stream sequence is above the
next one expected while that one exists on the stream (a delivery lost with a subscription, or
a redelivery racing new records) is not stored; the consumer is reset to the missing sequence
and the records come again in order. So every replica's leaves are the stream, in order, and
two replicas' Merkle trees are the same tree.

Whatever a record holds, it is stored and the consumer goes on: a record that quarantines its
table, or that belongs to no table, is counted and logged once (services/ledger/store.py).

The batches are pulled with JetStream's own pull requests on an inbox of the ledger's (``Pulls``),
not nats-py's ``fetch``, which spends a task per record. A pull subscription can go quiet after
the server restarts, so the subscription is made again after a reconnect, after any error, and
when the consumer reports pending records that never arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json

import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, Header, StatusCode
from nats.js.errors import APIError, NotFoundError
from prometheus_client import Counter, Gauge

from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_bus.records import unpack
from services.ledger.store import Incoming, Outcome, Store

RECORDS = Counter("match_ledger_records_total", "Records stored (redeliveries not counted)")
FRAMES = Counter("match_ledger_frames_total", "Frames stored (several tables' records in one)")
EVENTS = Counter("match_ledger_events_total", "Events in the records stored")
GAPS = Counter(
    "match_ledger_gaps_total", "Records whose event numbers do not continue their table's"
)
REDELIVERED = Counter("match_ledger_redelivered_total", "Records delivered again, ignored")
OUT_OF_ORDER = Counter(
    "match_ledger_out_of_order_total", "Deliveries that skipped a record; fetched again in order"
)
CONFLICTS = Counter(
    "match_ledger_conflicts_total", "Records whose sequence is stored with other bytes (kept)"
)
MALFORMED = Counter("match_ledger_malformed_records_total", "Stored records that don't parse")
QUARANTINED = Gauge(
    "match_ledger_quarantined_tables",
    "Tables quarantined: a record stored does not decode or does not continue the table's",
)
STRAY = Counter(
    "match_ledger_stray_records_total", "Records stored from a subject that names no table"
)
LAG = Gauge("match_ledger_lag_records", "Records on the stream the ledger has not fetched yet")
LAST_SEQUENCE = Gauge("match_ledger_last_stream_sequence", "Highest stream sequence stored")

log = structlog.get_logger()


def consumer_config(durable: str = subjects.LEDGER_DURABLE) -> ConsumerConfig:
    return ConsumerConfig(
        durable_name=durable,
        filter_subject=subjects.EVENTS_ALL,
        ack_policy=AckPolicy.ALL,  # one ack per batch: its last record's
        deliver_policy=DeliverPolicy.ALL,
        ack_wait=30.0,
        max_ack_pending=1024,
    )


class Ingest:
    def __init__(
        self,
        nc: Client,
        store: Store,
        batch: int = 256,
        fetch_timeout: float = 1.0,
        linger_s: float = 0.0,
        check_every: int = 5,
        durable: str = subjects.LEDGER_DURABLE,
        stream_replicas: int = 1,
    ) -> None:
        self._nc = nc
        self._durable = durable
        self._stream_replicas = stream_replicas
        self._js: JetStreamContext = nc.jetstream()
        self._store = store
        self._batch = batch
        # A batch costs a transaction, an fsync and a thread hop whatever its size: under load,
        # waiting a little after a short batch stores more records per batch (the lag grows by
        # at most this long; nothing waits for the ledger).
        self._linger_s = linger_s
        self._fetch_timeout = fetch_timeout
        self._check_every = check_every  # idle fetches between two looks at the consumer
        self._last_sequence = 0  # the highest stream sequence stored
        self._stopped = False
        # Whether the consumer acks all up to a record (AckPolicy.ALL): read when subscribing.
        self._ack_all = False
        self._warned_explicit = False

    @property
    def last_sequence(self) -> int:
        """The highest stream sequence stored: every record up to it is stored."""
        return self._last_sequence

    def stop(self) -> None:
        """Make :meth:`run` return. Cancelling the task alone is not enough: nats-py can turn a
        cancellation inside ``fetch`` into a TimeoutError while NATS is down, and the loop would
        take it for a failure and subscribe again."""
        self._stopped = True

    async def run(self) -> None:
        """Consume until stopped; every failure ends in a fresh subscription a moment later."""
        self._last_sequence = await asyncio.to_thread(self._store.last_sequence)
        LAST_SEQUENCE.set(self._last_sequence)
        while not self._stopped:
            subscription = None
            try:
                await ensure_stream(self._js, self._stream_replicas)
                subscription = await self._js.pull_subscribe(
                    subjects.EVENTS_ALL,
                    durable=self._durable,
                    stream=subjects.EVENTS_STREAM,
                    config=consumer_config(self._durable),
                )
                self._ack_all = await self._acks_all(subscription)
                await self._redeliver_unacked()
                log.info("consuming", consumer=self._durable, ack_per_batch=self._ack_all)
                pulls = await Pulls.open(self._nc, self._durable)
                try:
                    await self._pull(subscription, pulls)
                finally:
                    await pulls.close()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if self._stopped:
                    return
                log.warning("consumer failed; subscribing again", error=repr(error))
                await asyncio.sleep(0.5)
            finally:
                if subscription is not None:
                    with contextlib.suppress(Exception):
                        await subscription.unsubscribe()

    async def _acks_all(self, subscription: JetStreamContext.PullSubscription) -> bool:
        """Whether one ack acks every record delivered before it: the consumer's own ack policy
        (a durable made before one ack per batch keeps ``EXPLICIT``, and is acked per record)."""
        info = await subscription.consumer_info()
        if info.config.ack_policy == AckPolicy.ALL:
            return True
        if not self._warned_explicit:
            self._warned_explicit = True
            log.warning(
                "the ledger's consumer acks record by record (made before one ack per batch);"
                " to have it made anew, delete it while every ledger replica using it is stopped",
                consumer=self._durable,
                ack_policy=str(info.config.ack_policy),
            )
        return False

    async def _redeliver_unacked(self) -> None:
        """Have the records delivered but never acked (by a ledger killed mid-batch, or to a
        subscription lost in a reconnect) delivered again now, not after ``ack_wait``.

        ADR-60 consumer reset (nats-server >= 2.14): the consumer resumes at the record after the
        last one stored. Only one ledger process consumes each durable, and it holds nothing
        unacked here.
        """
        await self._nc.flush()  # acks still buffered go out first
        try:
            reset = await self._js.reset_consumer(
                subjects.EVENTS_STREAM, self._durable, seq=self._last_sequence + 1
            )
        except APIError as error:  # an older server: redelivery waits for ack_wait
            log.warning("could not reset the consumer", error=repr(error))
            return
        log.info("consumer reset", next_sequence=reset.reset_seq)

    async def _pull(self, subscription: JetStreamContext.PullSubscription, pulls: Pulls) -> None:
        """Fetch and store until the subscription needs making again."""
        reconnects = self._nc.stats["reconnects"]
        idle = 0
        while not self._stopped:
            if self._nc.stats["reconnects"] != reconnects:
                log.info("reconnected to NATS; subscribing again")
                return
            messages = await pulls.fetch(self._batch, self._fetch_timeout)
            if messages:
                idle = 0
                await self._handle(messages)
                if len(messages) < self._batch and self._linger_s:
                    await asyncio.sleep(self._linger_s)
                continue
            await asyncio.sleep(0.05)  # a status message (e.g. 409) can end a fetch at once
            idle += 1
            if idle % self._check_every == 0:
                info = await subscription.consumer_info()
                LAG.set(info.num_pending or 0)
                if info.num_pending:
                    log.warning("records pending but none fetched; subscribing again")
                    return

    async def _handle(self, messages: list[Msg]) -> None:
        """Store the batch's records up to the first one that skips a record, ack them; if one
        did skip, raise OutOfOrder (the loop subscribes again from the record missing)."""
        batch: list[Incoming] = []
        expected = self._last_sequence + 1
        for m in messages:
            sequence = m.metadata.sequence.stream
            if sequence > expected and await self._exists(expected):
                OUT_OF_ORDER.inc()
                log.warning("a record was skipped; fetching again in order", missing=expected)
                messages = messages[: len(batch)]
                break
            for record in unpack(m.subject, m.data):  # one, or a frame's entries
                table_id = record.table_id or m.subject
                batch.append(Incoming(sequence, table_id, record.data, record.index))
            expected = max(expected, sequence + 1)
        else:
            await self._store_and_ack(messages, batch)
            return
        if batch:
            await self._store_and_ack(messages, batch)
        raise OutOfOrder(f"stream sequence {expected} was skipped")

    async def _exists(self, sequence: int) -> bool:
        """Whether the stream holds ``sequence`` (False: it was never there, or deleted)."""
        try:
            await self._js.get_msg(subjects.EVENTS_STREAM, sequence)
        except NotFoundError:
            return False
        return True

    async def _store_and_ack(self, messages: list[Msg], batch: list[Incoming]) -> None:
        try:
            outcomes = await asyncio.to_thread(self._store.append, batch)
        except Exception:
            for message in messages:  # deliver them again now rather than after ack_wait
                with contextlib.suppress(Exception):
                    await message.nak()
            raise
        if self._ack_all:  # acks every record delivered before it too: the whole batch
            await messages[-1].ack()
        else:
            for message in messages:
                await message.ack()
        for outcome in outcomes:
            _account(outcome)
        FRAMES.inc(sum(1 for m in messages if subjects.partition_of_frames(m.subject) is not None))
        self._last_sequence = max(self._last_sequence, max(r.sequence for r in batch))
        LAST_SEQUENCE.set(self._last_sequence)
        LAG.set(messages[-1].metadata.num_pending)


class Pulls:
    """The consumer's pull requests, answered on an inbox of the ledger's own whose callback
    collects the records. nats-py's ``fetch`` takes each record of a batch with ``next_msg`` (a
    task, a ``uuid4`` and a ``wait_for`` each): 20-23 us a record against 6 this way
    (docs/performance.md, "The log's readers without a task per record").

    One request at a time, as ``fetch`` makes them: up to ``batch`` records, answered at once
    with what the consumer has, else with the first records to come within ``timeout``; the
    server ends it with a status (404: it has no more; 408: nothing came in time; 409: the
    consumer went away or moved) unless it sent the whole batch. A record that comes after its
    request ended is kept for the next fetch: the consumer delivers in order either way."""

    def __init__(self, nc: Client, durable: str) -> None:
        self._nc = nc
        self._next = f"$JS.API.CONSUMER.MSG.NEXT.{subjects.EVENTS_STREAM}.{durable}"
        self._inbox = nc.new_inbox()  # under the ledger's own inbox prefix (match_bus.access)
        self._sub: Subscription | None = None
        self._request = ""  # the reply subject of the request being answered
        self._records: list[Msg] = []
        self._enough = 0  # the batch asked for
        self._answered = asyncio.Event()

    @classmethod
    async def open(cls, nc: Client, durable: str) -> Pulls:
        pulls = cls(nc, durable)
        pulls._sub = await nc.subscribe(f"{pulls._inbox}.*", cb=pulls._on_message)
        return pulls

    async def close(self) -> None:
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.unsubscribe()

    async def fetch(self, batch: int, timeout: float) -> list[Msg]:
        """Up to ``batch`` records in stream order; none if none came within ``timeout``."""
        if len(self._records) < batch:
            self._enough = batch
            self._request = f"{self._inbox}.{next(_REQUESTS)}"
            self._answered.clear()
            more = batch - len(self._records)
            wanted = {"batch": more, "expires": int(timeout * 1e9), "no_wait": True}
            await self._nc.publish(self._next, json.dumps(wanted).encode(), reply=self._request)
            # The server ends the request by ``timeout``; a second more for a lost answer.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout + 1.0):
                    await self._answered.wait()
        taken, self._records = self._records[:batch], self._records[batch:]
        return taken

    async def _on_message(self, msg: Msg) -> None:
        status = msg.headers.get(Header.STATUS) if msg.headers else None
        if status is None:  # a record
            self._records.append(msg)
            if len(self._records) >= self._enough:
                self._answered.set()
            return
        if status == StatusCode.CONTROL_MESSAGE:  # a heartbeat
            return
        if status not in (StatusCode.NO_MESSAGES, StatusCode.REQUEST_TIMEOUT):
            log.warning(
                "a pull request ended early",
                status=status,
                description=msg.headers.get(Header.DESCRIPTION, "") if msg.headers else "",
            )
        if msg.subject == self._request:  # not a late end of an earlier request
            self._answered.set()


_REQUESTS = itertools.count(1)


class OutOfOrder(Exception):
    """A delivery skipped a record that exists: subscribe again from it."""


def _account(outcome: Outcome) -> None:
    if not outcome.inserted:
        REDELIVERED.inc()
        if outcome.conflict:
            CONFLICTS.inc()
            log.error(
                "a stored sequence came again with other bytes; the stored record is kept",
                sequence=outcome.sequence,
                frame_index=outcome.index,
                table_id=outcome.table_id,
            )
        return
    RECORDS.inc()
    if outcome.event_count is None:
        MALFORMED.inc()
    else:
        EVENTS.inc(outcome.event_count)
    if outcome.expected_first is not None:
        GAPS.inc()
    if outcome.stray:
        STRAY.inc()
        log.error(
            "stored a record from a subject that names no table",
            subject=outcome.table_id,
            sequence=outcome.sequence,
            frame_index=outcome.index,
        )
    elif outcome.quarantine is not None:
        QUARANTINED.inc()
        log.error(
            "table quarantined: its log holds a record that does not fit",
            table_id=outcome.table_id,
            sequence=outcome.sequence,
            frame_index=outcome.index,
            problem=outcome.quarantine.problem,
        )
    elif outcome.event_count is None or outcome.expected_first is not None:
        log.warning(  # the table was quarantined by an earlier record
            "stored another unusable record of a quarantined table",
            table_id=outcome.table_id,
            sequence=outcome.sequence,
            frame_index=outcome.index,
        )
