"""A checkpoint of the lobby's table listing, so a lobby that starts reads its copy of the log from
the last checkpoint on, not from the log's first record.

Without it a lobby's start grows with history: it folds every record ever stored to rebuild a
listing that holds only the tables not over and the last hour's finished ones
(docs/operations.md, "Durability"). With it, the start reads one object and the records
stored since it was written.

**Writing.** Every ``LOBBY_SNAPSHOT_EVERY_S`` (300 s; 0 turns snapshots off) a lobby that has
folded records since its last snapshot writes its whole listing (``TableDirectory.snapshot``, a
``match.v1.ListingSnapshot``, zlib-compressed) to the object ``listing`` of the object store
bucket ``MATCH_LOBBY_LISTING``, unless the object there already holds a later point of the same
copy of the log, in the same format (another lobby replica wrote it). Every replica folds the
same log the same way, so any replica's snapshot is every replica's. The listing is taken with
folding paused, since it must not change meanwhile, each table as its bytes (~3.5 us a table),
the loop let run every ``SNAPSHOT_SLICE`` tables; the message is built, encoded and compressed
in a thread.

**Reading.** At start, before it follows the log, a lobby reads the object and takes the listing
it holds, then follows its copy from the message after the snapshot's sequence. It reads the log
from its start, as without snapshots, whenever the snapshot cannot be trusted, and says why in
one log line:

- there is none, or the bucket or object cannot be read within ``LOAD_TIMEOUT_S`` (a NATS error,
  a digest that does not match, chunks removed by a write meanwhile);
- it is of another format version;
- it is of another copy of the log: the copy's stream was made again since (its creation time
  differs), or the snapshot is past the copy's last record;
- a record it folded was removed from the copy since (the copy begins after the first record
  it folded, or one of the sequences it folded is among the copy's removed ones): an
  operator's repair of a quarantined table (docs/operations.md "Quarantined tables"), which a
  listing must read again. A lobby running when that happens stores no snapshot from then on.

What a snapshot cannot carry: a table folded with its game's own projection (a record written
before the referee's fact headers) keeps snapshots from being written until its game is over.
A lobby started with a longer ``LOBBY_KEEP_FINISHED_S`` than the one that wrote the snapshot
lists only the finished tables the snapshot kept.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import zlib
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from hashlib import sha256

import structlog
from nats.js import JetStreamContext, api
from nats.js.errors import BadRequestError, NotFoundError, ObjectNotFoundError
from nats.js.object_store import ObjectStore

from match.v1 import lobby_listing_pb2
from match_bus import subjects
from services.lobby import metrics
from services.lobby.directory import TableDirectory, build_snapshot

log = structlog.get_logger()

# ListingSnapshot's format, and the listing's way of folding: bump it on any change to what a
# field means, and on any change to how TableDirectory folds a record into what a snapshot
# holds, so that a lobby of the new code folds the whole log again rather than going on from
# what the old code made of it.
VERSION = 1
BUCKET = subjects.LOBBY_LISTING_BUCKET
NAME = "listing"
# On the object's meta: the log's point it holds, of which copy of the log, in which format
SEQUENCE_HEADER = "Match-Listing-Sequence"
STREAM_HEADER = "Match-Listing-Stream-Created"
VERSION_HEADER = "Match-Listing-Version"
LOAD_TIMEOUT_S = 10.0  # reading a snapshot longer than this: read the log instead
WRITE_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Copy:
    """Where the lobby's copy of the log stands."""

    created: str  # the stream's creation time, as NATS reports it
    first_seq: int
    last_seq: int
    deleted: tuple[int, ...] = ()  # sequences removed from inside it, ascending


async def open_store(js: JetStreamContext, replicas: int) -> ObjectStore:
    """The bucket, made when missing (file storage, on ``replicas`` NATS nodes like the log; a
    lost snapshot only costs a longer start)."""
    try:
        return await js.object_store(BUCKET)
    except (NotFoundError, BadRequestError):
        pass
    config = api.ObjectStoreConfig(
        bucket=BUCKET,
        description="the lobbies' checkpoint of their table listing (services/lobby/snapshot.py)",
        storage=api.StorageType.FILE,
        replicas=replicas,
    )
    try:
        return await js.create_object_store(BUCKET, config)
    except BadRequestError:  # made meanwhile by another lobby, or by an operator: use it
        return await js.object_store(BUCKET)


async def copy_of_log(js: JetStreamContext) -> Copy:
    """The copy's state, with the sequences removed from inside it (STREAM.INFO's
    ``deleted_details``: none but an operator's repairs, and the log's own, which a mirror
    copies as it passes them)."""
    request = json.dumps({"deleted_details": True}).encode()
    reply = await js._api_request(  # nats-py's stream_info cannot ask for the details
        f"{js._prefix}.STREAM.INFO.{subjects.LOBBY_EVENTS}", request, timeout=js._timeout
    )
    info = api.StreamInfo.from_response(reply)
    created = info.created.isoformat() if isinstance(info.created, datetime) else str(info.created)
    state = info.state
    # An empty stream that never held a record says its first sequence is 0; its first
    # record's will be 1, and nothing was removed: the same.
    first = max(state.first_seq, 1)
    return Copy(created, first, state.last_seq, tuple(sorted(state.deleted or ())))


def gone(first: int, gaps: Iterable[tuple[int, int]], folded: int, copy: Copy) -> str | None:
    """Whether the copy lost a record the listing folded (its sequences ``first`` to
    ``folded`` but the ``gaps`` it read past): the copy begins after ``first``, or one of them
    was removed since (an operator's repair). None if the copy holds them all."""
    if not first:
        return None  # it folded nothing
    if copy.first_seq > first:
        return (
            f"the copy begins at {copy.first_seq}, past {first}, the first record the listing "
            "folded"
        )
    seen = sorted(gaps)
    at = 0
    for seq in copy.deleted:
        if seq < first:
            continue
        if seq > folded:
            break
        while at < len(seen) and seen[at][1] < seq:
            at += 1
        if at == len(seen) or seen[at][0] > seq:
            return (
                f"record {seq}, which the listing folded, was removed from the copy since (a "
                "repair: what it quarantined must be read again)"
            )
    return None


def missed(gaps: Iterable[tuple[int, int]], copy: Copy) -> str | None:
    """Whether the listing read past a record the copy holds: a sequence of one of its
    ``gaps`` that is neither removed from the copy nor before its first. A gap is meant to be
    a record removed before the listing read past it; one the copy holds is a record it
    missed (a message lost on its way), and a listing that goes on from it would never fold
    it. None if every gap is a removal."""
    for first, last in gaps:
        start = max(first, copy.first_seq)
        if start > last:
            continue  # before the copy's first record
        held = bisect_right(copy.deleted, last) - bisect_left(copy.deleted, start)
        if held < last - start + 1:
            return (
                f"the listing read past sequences {first}-{last} as removed, and the copy holds "
                "some of them (a record it missed)"
            )
    return None


def mismatch(first: int, gaps: list[tuple[int, int]], folded: int, copy: Copy) -> str | None:
    """Why a listing that folded ``first`` to ``folded`` but its ``gaps`` does not hold what
    ``copy`` holds (:func:`gone`, :func:`missed`); None if it does."""
    return gone(first, gaps, folded, copy) or missed(gaps, copy)


def unusable(snap: lobby_listing_pb2.ListingSnapshot, copy: Copy) -> str | None:
    """Why the snapshot cannot start a listing that follows ``copy``; None if it can."""
    if snap.version != VERSION:
        return f"format version {snap.version}, this lobby reads {VERSION}"
    if snap.stream_created != copy.created:
        return (
            f"of a copy of the log made at {snap.stream_created}; "
            f"this one was made at {copy.created}"
        )
    if snap.sequence > copy.last_seq:
        return f"holds the log up to {snap.sequence}, past its copy's last record {copy.last_seq}"
    if snap.sequence and not snap.first_sequence:
        return "it does not say where its listing began"
    gaps = [(gap.first, gap.last) for gap in snap.gaps]
    return mismatch(snap.first_sequence, gaps, snap.sequence, copy)


async def restore(
    js: JetStreamContext, new: Callable[[], TableDirectory], replicas: int = 1
) -> TableDirectory:
    """A directory (``new()``) started from the stored snapshot if one can be trusted (module
    docstring); else, with one log line saying why, an empty one that reads the log from its
    start."""
    started = time.monotonic()
    try:
        async with asyncio.timeout(LOAD_TIMEOUT_S):
            store = await open_store(js, replicas)
            try:
                stored = await read(js, store)
            except ObjectNotFoundError:
                log.info("no listing snapshot yet: reading the log from its start")
                return new()
            copy = await copy_of_log(js)  # after the object: it holds at least as much
        data = await asyncio.to_thread(zlib.decompress, stored)
        snap = lobby_listing_pb2.ListingSnapshot.FromString(data)
    except Exception as error:  # any failure: the log itself is always there to read
        metrics.LISTING_SNAPSHOT_UNUSED.inc()
        log.warning(
            "cannot read the listing snapshot: reading the log from its start", error=repr(error)
        )
        return new()
    why = unusable(snap, copy)
    if why is not None:
        metrics.LISTING_SNAPSHOT_UNUSED.inc()
        log.warning("listing snapshot not used: reading the log from its start", why=why)
        return new()
    directory = new()
    try:
        directory.restore(snap)
    except Exception as error:  # a snapshot this code cannot take: none of it is kept
        metrics.LISTING_SNAPSHOT_UNUSED.inc()
        log.warning("listing snapshot not used: reading the log from its start", why=repr(error))
        return new()
    log.info(
        "listing restored from its snapshot",
        sequence=snap.sequence,
        tables=len(snap.tables),
        behind=copy.last_seq - snap.sequence,
        bytes=len(stored),
        seconds=round(time.monotonic() - started, 3),
    )
    return directory


async def read(js: JetStreamContext, store: ObjectStore) -> bytes:
    """The object's bytes, their digest checked. ``ObjectStore.get`` would look the bucket's
    stream up by subject, which takes a grant to list every stream's name; this names it."""
    info = await store.get_info(NAME)
    if not info.size:
        return b""
    digest = sha256()
    data = bytearray()
    sub = await js.subscribe(
        f"$O.{BUCKET}.C.{info.nuid}", stream=f"OBJ_{BUCKET}", ordered_consumer=True
    )
    try:
        while True:
            msg = await sub.next_msg(timeout=LOAD_TIMEOUT_S)
            data += msg.data
            digest.update(msg.data)
            if msg.metadata.num_pending == 0:
                break
    finally:
        await sub.unsubscribe()
    _, _, expected = (info.digest or "").partition("=")  # "SHA-256=<base64url>"
    if base64.urlsafe_b64decode(expected) != digest.digest():
        raise ValueError("the snapshot's chunks do not match its digest")
    return bytes(data)


class Snapshots:
    """Writes the listing's snapshot every ``every_s`` while the lobby runs."""

    def __init__(
        self, js: JetStreamContext, directory: TableDirectory, every_s: float, replicas: int = 1
    ) -> None:
        self._js = js
        self._replicas = replicas
        self._directory = directory
        self._every_s = every_s
        self._written = directory.folded  # a restored listing is stored already
        self._stopped = False  # a record it folded was removed: it stores none any more

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self._every_s)
            try:
                async with asyncio.timeout(WRITE_TIMEOUT_S):
                    await self.write()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the next one may work; the log is the truth
                metrics.LISTING_SNAPSHOT_FAILED.inc()
                log.warning("cannot write the listing snapshot", error=repr(error))

    def _mismatch(self, first: int, gaps: list[tuple[int, int]], folded: int, copy: Copy) -> bool:
        """Whether the listing no longer holds what the copy does (:func:`mismatch`): then it
        stores no snapshot until the lobby restarts, which reads the copy again."""
        why = mismatch(first, gaps, folded, copy)
        if why is None:
            return False
        log.error("this lobby stores no listing snapshot until it restarts", why=why)
        self._stopped = True
        metrics.LISTING_SNAPSHOT_STOPPED.set(1)
        return True

    async def write(self) -> bool:
        """Store the listing as it stands, if it moved since the last write and no later one is
        stored; whether it wrote."""
        directory = self._directory
        if self._stopped:
            return False
        copy = await copy_of_log(self._js)
        # Every time, even with nothing to store: the gauge tells an operator to restart it.
        if self._mismatch(directory.first_folded, directory.gaps, directory.folded, copy):
            return False
        if directory.folded <= self._written:
            return False
        if not directory.can_snapshot():
            log.info("listing snapshot skipped: a table is folded without the referee's headers")
            return False
        store = await open_store(self._js, self._replicas)
        try:
            said = (await store.get_info(NAME)).headers or {}
        except ObjectNotFoundError:
            said = {}
        # A later snapshot of this copy, in this format, is there: nothing to add. One of another
        # copy or format is no use to a lobby like this one, whatever its sequence.
        if (
            said.get(STREAM_HEADER) == copy.created
            and said.get(VERSION_HEADER) == str(VERSION)
            and int(said.get(SEQUENCE_HEADER, "0")) >= directory.folded
        ):
            self._written = directory.folded
            return False
        parts = await directory.snapshot_parts_paused()  # nothing folded meanwhile
        # Read after the listing was taken: a record removed before, that it folded, is seen
        # here; one removed after is seen by the lobby that reads the snapshot.
        copy = await copy_of_log(self._js)
        if self._mismatch(parts.first_sequence, parts.gaps, parts.sequence, copy):
            return False

        def encode() -> tuple[lobby_listing_pb2.ListingSnapshot, bytes]:
            snap = build_snapshot(parts)
            snap.version = VERSION
            snap.stream_created = copy.created
            return snap, zlib.compress(snap.SerializeToString(), 6)

        snap, data = await asyncio.to_thread(encode)
        meta = api.ObjectMeta(
            name=NAME,
            description=f"the table listing up to sequence {snap.sequence} of the lobby's copy",
            headers={
                SEQUENCE_HEADER: str(snap.sequence),
                STREAM_HEADER: copy.created,
                VERSION_HEADER: str(VERSION),
            },
        )
        await store.put(NAME, data, meta)
        self._written = snap.sequence
        metrics.LISTING_SNAPSHOT_WRITTEN.inc()
        metrics.LISTING_SNAPSHOT_BYTES.set(len(data))
        log.info(
            "listing snapshot written",
            sequence=snap.sequence,
            tables=len(snap.tables),
            bytes=len(data),
        )
        return True
