"""The table log on JetStream: the stream, the fenced append, and reading a table back.

Every table has one subject, ``match.events.p<NN>.<table_id>``, and one writer, the referee
holding the partition. Each append is fenced with ``Nats-Expected-Last-Subject-Sequence`` (a
stale writer is refused) and carries a ``Nats-Msg-Id`` naming the writer and the sequence it
appends after (a retry whose ack was lost is not applied twice; a duplicate ack is believed
only after checking the stored record is byte for byte ours).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import NoReturn, TypeVar

import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.api import (
    ConsumerConfig,
    DeliverPolicy,
    KeyValueConfig,
    PersistMode,
    RawStreamMsg,
    RePublish,
    StorageType,
    StreamConfig,
    StreamSource,
)
from nats.js.errors import (
    APIError,
    BadRequestError,
    BucketNotFoundError,
    KeyNotFoundError,
    NotFoundError,
)
from nats.js.kv import KeyValue
from prometheus_client import Counter, Gauge

from match_bus import subjects
from match_bus.access import connect_options
from match_bus.failover import Chooser, Failover, FailoverSettings, reaches_quorum
from match_bus.records import StoredRecord, closes_table, unpack

WRONG_LAST_SEQUENCE = 10071  # single replica; a three-replica stream answers 10164
CLUSTER_WRONG_LAST_SEQUENCE = 10164
_log = structlog.get_logger()
T = TypeVar("T")
NATS_REFUSED = Counter(
    "match_nats_permission_denied_total",
    "Publishes and subscriptions NATS refused to this service (a missing grant, or a bug)",
)
NATS_CONNECTED = Gauge(
    "match_nats_connected",
    "1 while this process is connected to a NATS server, 0 while it is cut off and reconnecting",
)


class SequenceConflict(Exception):
    """Somebody else appended to the table since we last read it: catch up, then decide again."""


async def ensure_stream(js: JetStreamContext, replicas: int = 1) -> None:
    """Create the events stream if it is missing (file storage, never expires), and its
    readers' copies (:data:`subjects.EVENTS_COPIES`)."""
    config = StreamConfig(
        name=subjects.EVENTS_STREAM,
        subjects=[subjects.EVENTS_ALL],
        storage=StorageType.FILE,
        num_replicas=replicas,
        duplicate_window=120.0,
        allow_direct=True,
    )
    await _add_or_keep(js, config)
    for reader, name in subjects.EVENTS_COPIES.items():
        wanted = copy_config(reader, name, replicas)
        kept = await _add_or_keep(js, wanted)
        old = kept is not None and wanted.persist_mode and persist_mode_of(kept) is None
        if old and name not in _SAID_SYNCED:  # once a process: the ledger calls this again
            _SAID_SYNCED.add(name)
            _log.warning(
                "a copy of the log made by an older version is fsynced on every record; "
                "python -m match_bus.upgrade async-copies makes it again written in the "
                "background (docs/operations.md, Upgrading)",
                stream=name,
            )


# The copies a warning said were made by an older version (fsynced on every record).
_SAID_SYNCED: set[str] = set()

# Readers whose copy also pushes each record it stores on core NATS (subjects.LIVE_ALL).
LIVE_PUSH = {"lobby": RePublish(src=subjects.EVENTS_ALL, dest=subjects.LIVE_ALL)}


def copy_config(reader: str, name: str, replicas: int = 1) -> StreamConfig:
    """The copy of the log that ``reader`` makes its consumers on: a mirror (same records,
    same stream sequences; nobody publishes to it), file storage, at most
    :data:`subjects.COPY_MAX_CONSUMERS` consumers; the lobby's also pushes each record it
    stores on ``match.live.>`` (:data:`LIVE_PUSH`). At one replica it is written to disk in the
    background (:func:`copy_persist_mode`)."""
    return StreamConfig(
        name=name,
        description=f"the table log as the {reader} reads it (a mirror of MATCH_EVENTS)",
        mirror=StreamSource(name=subjects.EVENTS_STREAM),
        storage=StorageType.FILE,
        num_replicas=replicas,
        max_consumers=subjects.COPY_MAX_CONSUMERS[reader],
        republish=LIVE_PUSH.get(reader),
        persist_mode=copy_persist_mode(replicas),
    )


def copy_persist_mode(replicas: int) -> PersistMode | None:
    """How a copy of the log is written to disk: in the background (``async``: no fsync per
    record, whatever ``sync_interval`` says) at one replica; as the server's setting says (None)
    at more, where nats-server refuses ``async``.

    A copy needs no fsync of its own: the log is fsynced before the referee answers, and a copy
    that loses its last records in a crash fetches them from the log again, under the same
    sequences (a mirror resumes after the last record it holds). With ``sync_interval: always``
    each copy's fsync per record doubled nats-server's CPU per appended record (measured by
    ``tools/copy_persist_cost.py``; docs/performance.md)."""
    return PersistMode.ASYNC if replicas == 1 else None


async def _add_or_keep(js: JetStreamContext, config: StreamConfig) -> StreamConfig | None:
    """Make the stream; if it exists with another config, keep that one and return it."""
    assert config.name is not None
    name = config.name

    async def make() -> StreamConfig | None:
        await js.add_stream(config)
        return None

    async def kept() -> StreamConfig | None:
        return (await js.stream_info(name)).config

    return await _make_or_keep(f"the stream {name}", make, kept, NotFoundError)


# How often a refused make is tried again while what it makes is not there: nats-server answers
# a create with 400 and no stream for passing states (a cluster placing it), and the
# server's reason, said at the last try, is what an operator needs if it lasts.
MAKE_TRIES = 5
MAKE_BACKOFF_S = 0.2


async def _make_or_keep(
    what: str,
    make: Callable[[], Awaitable[T]],
    kept: Callable[[], Awaitable[T]],
    missing: type[Exception],
) -> T:
    """``make()``; refused (400), what already exists (``kept()``). Refused with nothing there
    (``missing``): tried again, then a RuntimeError with the server's reason."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return await make()
        except BadRequestError as refused:  # exists with another config: keep the operator's
            try:
                return await kept()
            except missing:
                reason = refused.description or repr(refused)
                if attempt == MAKE_TRIES:
                    raise RuntimeError(
                        f"nats-server refused to make {what}, and it is not there: {reason}"
                    ) from refused
                _log.warning("refused to make, not there; trying again", what=what, reason=reason)
        await asyncio.sleep(MAKE_BACKOFF_S * attempt)


async def pushes_live(js: JetStreamContext) -> bool:
    """Whether the lobby's copy of the log pushes each record it stores on ``match.live.>`` as
    :data:`LIVE_PUSH` says (a copy made before the push does not; services/lobby/fanout.py)."""
    push = (await js.stream_info(subjects.LOBBY_EVENTS)).config.republish
    want = LIVE_PUSH["lobby"]
    return (
        push is not None
        and (push.src, push.dest) == (want.src, want.dest)
        and not push.headers_only
    )


def persist_mode_of(config: StreamConfig) -> PersistMode | None:
    """A stream's persist mode as read back (nats-py leaves it a string), None when unset."""
    return None if config.persist_mode is None else PersistMode(config.persist_mode)


async def copies_to_rewrite(js: JetStreamContext) -> dict[str, tuple[StreamConfig, int]]:
    """The copies of the log made before they were written in the background
    (:func:`copy_persist_mode`) that could be: one replica, persist mode unset. Keyed by name,
    each with its config as it is, but for the persist mode it should have, and the consumers
    on it now; a copy that is missing (a step stopped between deleting and making it) as
    :func:`copy_config` makes it, with none."""
    out = {}
    for reader, name in subjects.EVENTS_COPIES.items():
        try:
            info = await js.stream_info(name)
        except NotFoundError:
            out[name] = (copy_config(reader, name), 0)
            continue
        config = info.config
        wanted = copy_persist_mode(config.num_replicas or 1)
        if wanted is not None and persist_mode_of(config) is None:
            config.persist_mode = wanted
            out[name] = (config, info.state.consumer_count or 0)
    return out


async def add_live_push(js: JetStreamContext) -> bool:
    """Give a lobby copy made before the push the push, and change nothing else of its config
    (an operator's replicas or limits stay); True if it was added. For the operator's identity:
    no service may change a stream (docs/operations.md, "Upgrading")."""
    info = await js.stream_info(subjects.LOBBY_EVENTS)
    if info.config.republish is not None:
        return False
    info.config.republish = LIVE_PUSH["lobby"]
    await js.update_stream(info.config)
    return True


async def open_bucket(
    js: JetStreamContext,
    bucket: str,
    description: str,
    ttl_s: float | None = None,
    replicas: int = 1,
) -> KeyValue:
    """A KV bucket, made when missing (file storage, one value per key, ``ttl_s`` max age).
    Idempotent; a bucket made meanwhile by another replica, or by an operator with other
    settings, is used as it is."""
    try:
        return await js.key_value(bucket)
    except BucketNotFoundError:
        pass
    config = KeyValueConfig(
        bucket=bucket,
        description=description,
        history=1,
        ttl=ttl_s,
        storage=StorageType.FILE,
        replicas=replicas,
    )

    async def make() -> KeyValue:
        return await js.create_key_value(config)

    async def kept() -> KeyValue:  # made meanwhile with another config: keep it
        return await js.key_value(bucket)

    return await _make_or_keep(f"the bucket {bucket}", make, kept, BucketNotFoundError)


async def live_keys(kv: KeyValue, prefix: str = "") -> list[str]:
    """The keys of ``kv`` that start with ``prefix`` and hold a value now (not deleted or
    purged), read without a consumer: the bucket's subjects from STREAM.INFO, then each
    matching key's last value (a direct get). ``kv.keys()`` would leave an ordered consumer
    behind on the bucket for five minutes every call."""
    # nats-py keeps the bucket's stream and subject prefix on the KeyValue only.
    stream, pre = kv._stream, kv._pre
    info = await kv._js.stream_info(stream, subjects_filter=f"{pre}>")
    keys = sorted(s[len(pre) :] for s in (info.state.subjects or {}) if s.startswith(pre))
    keys = [k for k in keys if k.startswith(prefix)]
    found = await asyncio.gather(*(kv.get(k) for k in keys), return_exceptions=True)
    out = []
    for key, entry in zip(keys, found, strict=True):
        if isinstance(entry, KeyNotFoundError):
            continue  # deleted or purged (a marker is left), or gone since the listing
        if isinstance(entry, BaseException):
            raise entry
        out.append(key)
    return out


class TableLog:
    def __init__(self, js: JetStreamContext, timeout: float = 5.0) -> None:
        self._js = js
        self._timeout = timeout

    async def append(
        self,
        table_id: str,
        data: bytes,
        msg_id: str,
        expected_last: int,
        headers: Mapping[str, str] | None = None,
    ) -> int:
        """Append one record after stream sequence ``expected_last`` (0: the table is new), with
        ``headers`` besides the fence's (match_bus.records.fact_headers).

        Returns the record's stream sequence. Raises SequenceConflict when the table has moved
        on. A retry of an append whose ack was lost returns the sequence it got the first time.
        """
        subject = subjects.events(table_id)
        sent = {
            **(headers or {}),
            "Nats-Msg-Id": msg_id,
            "Nats-Expected-Last-Subject-Sequence": str(expected_last),
        }
        try:
            ack = await self._js.publish(subject, data, timeout=self._timeout, headers=sent)
            if ack.duplicate and not await self._is_ours(ack.seq, data):
                raise SequenceConflict(f"table {table_id}: msg id {msg_id} names another record")
        except APIError as error:
            if error.err_code not in (WRONG_LAST_SEQUENCE, CLUSTER_WRONG_LAST_SEQUENCE):
                raise
            last = await self._last_message(table_id)
            if last is not None and last.data == data:
                assert last.seq is not None
                return last.seq  # our earlier try landed; its ack was lost
            raise SequenceConflict(
                f"table {table_id} moved past sequence {expected_last}"
            ) from error
        except NatsTimeoutError:  # a node cut off from the quorum, maybe: its watch judges
            await timed_out(self._js._nc, "append timed out")
            raise
        return ack.seq

    async def _is_ours(self, sequence: int, data: bytes) -> bool:
        try:
            stored = await self._js.get_msg(subjects.EVENTS_STREAM, sequence)
        except NotFoundError:
            return False
        return stored.data == data

    async def _last_message(self, table_id: str) -> RawStreamMsg | None:
        try:
            return await self._js.get_last_msg(subjects.EVENTS_STREAM, subjects.events(table_id))
        except NotFoundError:
            return None

    async def holds(self, sequence: int) -> bool:
        """Whether the stream still holds the record at ``sequence`` (False: never, or removed)."""
        try:
            await self._js.get_msg(subjects.EVENTS_STREAM, sequence)
        except NotFoundError:
            return False
        return True

    async def read(self, table_id: str) -> list[StoredRecord]:
        """Every record of one table, in order: on its own subject and in its partition's
        frames (:func:`read_table`). The read ends at the record that closes the table (its
        seed revealed, or the table expired, as its headers say): nothing follows it, and a
        game long over is not read past into the frames of the partition's later games."""
        return await read_table(self._js, table_id, enough=closes)

    async def read_all(
        self, subject: str = subjects.EVENTS_ALL, start: int = 0
    ) -> list[tuple[str | None, StoredRecord]]:
        """Every record under ``subject`` (all tables, or one partition's), in stream order,
        from stream sequence ``start`` (0: the first), each with its table (None: it names
        none), a frame's records one by one: how a referee rebuilds the tables it takes on."""
        whole = subject == subjects.EVENTS_ALL  # (a filter would list every table's subject)
        info = await self._js.stream_info(
            subjects.EVENTS_STREAM, subjects_filter=None if whole else subject
        )
        if info.state.messages == 0 or not (whole or info.state.subjects):
            return []  # nothing under this subject: a consumer would wait for nothing
        if start > 1:  # an ordered consumer with nothing to deliver would wait for nothing
            try:
                await self._js.get_msg(
                    subjects.EVENTS_STREAM, seq=start, subject=subject, next=True
                )
            except NotFoundError:
                return []
        return await consume_until(self._js, subject, info.state.last_seq, start=start)

    async def last_sequence(self) -> int:
        """The stream sequence of the log's last record (0: none yet)."""
        return (await self._js.stream_info(subjects.EVENTS_STREAM)).state.last_seq or 0


def stored_records(msg: Msg | RawStreamMsg, sequence: int) -> list[tuple[str | None, StoredRecord]]:
    """The records of one message of the log at ``sequence``, each with its table (None: it
    names none): one, or a frame's entries (match_bus.records.unpack)."""
    subject = msg.subject or ""
    return [
        (r.table_id, StoredRecord(sequence, r.data, subject, r.index, r.headers))
        for r in unpack(subject, msg.data or b"", msg.headers)
    ]


YIELD_EVERY_MESSAGES = 256  # a long read lets the loop run this often (consume_until)


async def consume_until(
    js: JetStreamContext,
    subject: str,
    until: int,
    timeout: float = 10.0,
    stream: str = subjects.EVENTS_STREAM,
    *,
    also: tuple[str, ...] = (),
    start: int = 0,
    enough: Callable[[str | None, StoredRecord], bool] | None = None,
) -> list[tuple[str | None, StoredRecord]]:
    """Read ``subject`` (and the subjects ``also``) from the start, or from stream sequence
    ``start``, up to stream sequence ``until`` with an ordered consumer on ``stream`` (the log,
    or a reader's copy of it: the same sequences); each record with its table (None: it names
    none), a frame's records one by one. The read ends early after a record ``enough`` says is
    the last one wanted. nats-py's TimeoutError when nothing comes for ``timeout``. The records
    are taken as a callback subscription's (``follow_copy`` says why: 14 us a record less than
    a ``next_msg`` loop)."""
    out: list[tuple[str | None, StoredRecord]] = []
    done: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()
    taken = 0

    async def on_record(msg: Msg) -> None:
        nonlocal taken
        if done.done():
            return
        taken += 1
        if taken % YIELD_EVERY_MESSAGES == 0:
            # nats-py runs a subscription's callbacks back to back while messages wait, without
            # giving the loop a turn: a read of a long history held every other task of the
            # process for seconds (a referee's lease renewals timed out, and it let go of the
            # partitions it was reading).
            await asyncio.sleep(0)
            if done.done():  # the reader gave up meanwhile
                return
        try:
            seq = msg.metadata.sequence.stream
            records = stored_records(msg, seq)
            out.extend(records)
            if (
                seq >= until
                or msg.metadata.num_pending == 0
                or (enough is not None and any(enough(t, r) for t, r in records))
            ):
                done.set_result(None)
        except Exception as error:
            done.set_result(error)

    if start > 1:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=start)
    else:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
    if also:
        config.filter_subjects = [subject, *also]
    sub = await js.subscribe(
        subject,
        stream=stream,  # named: no look-up of the stream by subject
        ordered_consumer=True,
        config=config,
        cb=on_record,
    )
    try:
        while True:
            before = len(out)
            await asyncio.wait((done,), timeout=timeout)
            if done.done():
                error = done.result()
                if error is not None:
                    raise error
                return out
            if len(out) == before:
                raise NatsTimeoutError  # as ``next_msg`` said it: nothing came in time
    finally:
        if not done.done():
            done.set_result(None)  # nothing more is taken
        await sub.unsubscribe()
        # nats-py's subscription, its consumer's state and ``on_record`` are a cycle that only
        # the collector frees: it must not carry what was read (docs/performance.md). What is
        # returned was taken before this runs.
        out = []
        # Deleted at once: else the server keeps an ephemeral consumer a few seconds after its
        # last interest, and a copy's consumers are capped (subjects.COPY_MAX_CONSUMERS).
        consumer = getattr(sub, "_consumer", None)  # nats-py keeps the current name here only
        if consumer:
            with contextlib.suppress(Exception):
                await js.delete_consumer(stream, consumer)


def closes(record: StoredRecord) -> bool:
    """Whether the record's headers say it is its table's last: the seed revealed after the
    game, or the table expired before one."""
    return closes_table(record.headers)


async def table_end(
    js: JetStreamContext, table_id: str, stream: str = subjects.EVENTS_STREAM
) -> int:
    """The stream sequence by which ``stream`` holds every record of the table now: the later
    of its last message on its own subject and its partition's last frame (0: neither)."""
    last = 0
    for subject in (subjects.events(table_id), subjects.frames(subjects.partition_of(table_id))):
        try:
            message = await js.get_last_msg(stream, subject)
        except NotFoundError:
            continue
        last = max(last, message.seq or 0)
    return last


async def table_start(
    js: JetStreamContext, table_id: str, stream: str = subjects.EVENTS_STREAM
) -> int:
    """The stream sequence of the table's first record (0: no such table). A table's first
    record (``TableCreated``) is always published on the table's own subject, never in a frame,
    so its subject says where the table begins."""
    try:
        message = await js.get_msg(stream, seq=1, subject=subjects.events(table_id), next=True)
    except NotFoundError:
        return 0
    return message.seq or 0


async def read_table(
    js: JetStreamContext,
    table_id: str,
    stream: str = subjects.EVENTS_STREAM,
    *,
    after: tuple[int, int] | None = None,
    until: int | None = None,
    enough: Callable[[StoredRecord], bool] | None = None,
) -> list[StoredRecord]:
    """The table's records in order, from its first (or the ones after the place ``after``,
    (stream sequence, entry)), through stream sequence ``until`` (default: :func:`table_end`,
    asked now), or through the first record ``enough`` says is the last one wanted: those on
    its own subject and its entries in its partition's frames, with one ordered consumer on
    both subjects of ``stream`` (the log, or a reader's copy: the same sequences). From frames
    a read takes the partition's frames since the table began, so it starts at the table's
    first record (:func:`table_start`), never at the stream's. Where the table begins and ends
    is asked of the log itself (its leader), whichever stream is read."""
    records, _ = await read_table_reach(
        js, table_id, stream, after=after, until=until, enough=enough
    )
    return records


async def read_table_reach(
    js: JetStreamContext,
    table_id: str,
    stream: str = subjects.EVENTS_STREAM,
    *,
    after: tuple[int, int] | None = None,
    until: int | None = None,
    enough: Callable[[StoredRecord], bool] | None = None,
) -> tuple[list[StoredRecord], int]:
    """:func:`read_table`, and the stream sequence up to which it read both subjects: every
    record of the table up to it is in the list (less than ``until`` when a copy behind the
    log had nothing more, or ``enough`` ended it)."""
    if until is None:
        until = await table_end(js, table_id)
    # A frame is stored whole, so a reader that has a record of it has all of the table's.
    if after is not None and after[0] >= until:
        return [], after[0]
    start = after[0] + 1 if after is not None else await table_start(js, table_id)
    if not start or not until:
        return [], 0
    partition = subjects.partition_of(table_id)

    def mine(found: str | None, record: StoredRecord) -> bool:
        return found == table_id and (after is None or (record.sequence, record.index) > after)

    def last_wanted(found: str | None, record: StoredRecord) -> bool:
        return enough is not None and mine(found, record) and enough(record)

    read = await consume_until(
        js,
        subjects.events(table_id),
        until,
        stream=stream,
        also=(subjects.frames(partition),),
        start=start,
        enough=last_wanted if enough is not None else None,
    )
    out = []
    reach = start - 1
    for found, record in read:
        if record.sequence > until:
            break
        reach = record.sequence
        if mine(found, record):
            out.append(record)
            if last_wanted(found, record):
                break
    return out, reach


async def follow_copy(
    js: JetStreamContext,
    stream: str,
    after: int,
    take: Callable[[Msg], Awaitable[None]],
    quiet: Callable[[], Awaitable[None]],
    idle_s: float,
) -> NoReturn:
    """Follow ``stream`` (the log, or a reader's copy of it) from the record after stream
    sequence ``after``, with an ordered consumer, until something fails: each record goes to
    ``take`` in stream order; ``quiet()`` runs after every ``idle_s`` in which none came and
    none was being taken, and raises to end the follow (e.g. the stream holds records
    the consumer does not deliver). Raises what ``take`` or ``quiet`` raised; the caller makes
    the consumer again from where it got to.

    The records are handed over as nats-py hands a callback subscription's messages, straight
    from its queue: a loop of ``next_msg`` makes a task, a ``uuid4`` (a ``getrandom`` call) and
    a ``wait_for`` for every message, 14 us a record against under 1 (docs/performance.md,
    "The log's readers without a task per record")."""
    failed: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()
    turn = asyncio.Lock()  # a take or the quiet check, never both at once
    arrived = 0

    async def on_record(msg: Msg) -> None:
        nonlocal arrived
        if failed.done():
            return  # the follow is ending: the next consumer delivers this one again
        arrived += 1
        try:
            async with turn:
                await take(msg)
        except Exception as error:
            failed.set_result(error)

    if after:
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=after + 1
        )
    else:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
    sub = await js.subscribe(
        subjects.EVENTS_ALL,
        stream=stream,  # named: no look-up of the stream by subject
        ordered_consumer=True,
        config=config,
        idle_heartbeat=2.0,
        cb=on_record,
    )
    try:
        while True:
            before = arrived
            await asyncio.wait((failed,), timeout=idle_s)
            if failed.done():
                raise failed.result()
            if arrived == before and not turn.locked():  # a long take is not a quiet spell
                async with turn:
                    await quiet()
    finally:
        if not failed.done():
            failed.set_result(RuntimeError("the follow ended"))  # no take after this
        with contextlib.suppress(Exception):
            await sub.unsubscribe()


async def connect(
    url: str, name: str, seed_file: str = "", failover: FailoverSettings | None = None
) -> Client:
    """Connect with reconnects forever: services ride out a NATS restart. ``url`` may list
    several servers, comma-separated (the nodes of a cluster). With ``seed_file`` (an NKey
    seed, readable by its owner only) it connects as identity ``name``, whose replies and
    deliveries arrive under its own inbox prefix (see match_bus.access). A subject NATS
    refuses is logged and counted, never silent. The connection leaves a node that cannot
    reach JetStream's quorum for another one of the cluster (match_bus.failover)."""
    import nats

    servers = [part.strip() for part in url.split(",") if part.strip()]  # a cluster: a, b, c
    options = connect_options(seed_file, name) if seed_file else {}
    settings = failover if failover is not None else FailoverSettings()

    async def healthy(other: str) -> bool:
        return await reaches_quorum(other, settings.timeout_s, {"name": name, **options})

    watch = Failover(settings, Chooser(reconnect_wait_s=RECONNECT_WAIT_S), healthy)

    async def reconnected() -> None:
        watch.reconnected()
        await _on_reconnected()

    if not seed_file:
        _log.warning("connecting to NATS without an identity (NATS_NKEY_FILE is not set)")
    nc = await nats.connect(
        servers,
        name=name,
        max_reconnect_attempts=-1,
        reconnect_time_wait=RECONNECT_WAIT_S,
        connect_timeout=5,
        error_cb=_on_error,
        disconnected_cb=_on_disconnected,
        reconnected_cb=reconnected,
        closed_cb=_on_disconnected,
        reconnect_to_server_handler=watch.chooser,
        **options,
    )
    NATS_CONNECTED.set(1)
    watch.nc = nc
    if settings.interval_s > 0:  # 0: the failover is off, the appends' timeouts too
        _WATCHES[nc] = watch
        task = asyncio.create_task(watch.run())
        _PROBES.add(task)
        task.add_done_callback(_PROBES.discard)
    return nc


RECONNECT_WAIT_S = 0.5
# Each connection's watch, and the probing tasks (kept: a task nobody holds may be collected).
_WATCHES: weakref.WeakKeyDictionary[Client, Failover] = weakref.WeakKeyDictionary()
_PROBES: set[asyncio.Task[None]] = set()


async def timed_out(nc: Client, what: str) -> None:
    """A JetStream call through ``nc`` got no answer in time: one miss for its watch (a
    connection not made by :func:`connect` has none)."""
    watch = _WATCHES.get(nc)
    if watch is not None:
        await watch.missed(what)


async def _on_disconnected() -> None:
    NATS_CONNECTED.set(0)


async def _on_reconnected() -> None:
    NATS_CONNECTED.set(1)


async def _on_error(error: Exception) -> None:
    if "permissions violation" in str(error):
        NATS_REFUSED.inc()
        _log.error("NATS refused a subject to this service", error=str(error))
    else:
        _log.warning("NATS connection error", error=repr(error))
