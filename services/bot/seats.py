"""Which bot replica plays which seat: the seat book and the replicas' heartbeats, in JetStream KV.

Several bot replicas run side by side. Each seat a replica takes is recorded in the bucket
``MATCH_BOT_SEATS`` under ``<table_id>.<seat>`` (a :class:`SeatRecord`: the seat's player id and
token, its owner replica and that replica's incarnation, the strength the table showed). Each
replica renews its heartbeat, ``MATCH_BOT_REPLICAS`` key :func:`replica_key` (value: its
incarnation), every HEARTBEAT_S; the bucket's max age (REPLICA_TTL_S) removes the heartbeat of a
replica that stopped renewing it. A seat whose owner has no heartbeat, or a heartbeat of another
incarnation (the replica restarted), is an orphan: any replica may claim it with a
compare-and-set update (``kv.update`` with the record's last revision), so exactly one wins, and
plays it on with the stored token.

**Internal.** The seat book holds player tokens: only the bot reads it. Nothing here is ever sent
to a client, and a client never reaches NATS.

The decisions are pure functions (:func:`orphaned`, :func:`preferred`, :func:`may_fill`); the
:class:`SeatBook` is the thin port to the two buckets.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import secrets
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass, replace

import nats.errors
import structlog
from nats.js import JetStreamContext
from nats.js.errors import (
    APIError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
)
from nats.js.kv import KV_DEL, KV_PURGE, KeyValue

from match_bus.jetstream import open_bucket

SEATS_BUCKET = "MATCH_BOT_SEATS"
REPLICAS_BUCKET = "MATCH_BOT_REPLICAS"
HEARTBEAT_S = 1.0  # how often a replica renews its heartbeat
REPLICA_TTL_S = 5.0  # the heartbeat bucket's max age: a replica silent this long is gone
LEASE_MARGIN_S = 1.5  # a replica stops acting this long before its heartbeat could expire
SETTLE_BEATS = 2  # after its heartbeat lapsed, a replica waits this many beats before acting
TAKEOVER_S = 1.0  # how often a replica looks for orphaned seats
SEAT_TTL_S = 12 * 3600.0  # a seat record outlives any token (6 h) and any game
RECORD_VERSION = 1
WRONG_LAST_SEQUENCE = (10071, 10164)  # single replica, clustered
SCAN_TIMEOUT_S = 5.0  # a scan with no entry for this long fails (the next one tries again)
SCAN_QUIET_S = 0.5  # no update this long: ask the server whether anything is left to deliver
SCAN_GRACE_S = 0.05  # nothing left: a delivery already on its way has this long to arrive
# A seat given back leaves a delete marker in the bucket for SEAT_TTL_S, and every scan reads
# every marker: the scan that meets one removes it, this many at most (the rest at the next).
MARKERS_PER_SCAN = 1024
MARKERS_AT_ONCE = 64  # removals in flight at once
SWEEP_PAUSE_S = 60.0  # after a removal failed (NATS in trouble, or no right to purge yet)

_PLAIN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

log = structlog.get_logger()

# The NATS errors a KV call may end with when the server or the connection is in trouble.
KV_ERRORS: tuple[type[Exception], ...] = (nats.errors.Error, TimeoutError)


@dataclass(frozen=True, slots=True)
class Identity:
    """One bot process: its replica id (configured) and its incarnation (new at every start)."""

    replica: str
    incarnation: str

    @classmethod
    def new(cls, replica: str) -> Identity:
        return cls(replica, secrets.token_hex(6))

    @property
    def key(self) -> str:
        return replica_key(self.replica)


def replica_key(replica_id: str) -> str:
    """The heartbeat key of a replica: its id when that is a plain KV key, else ``x`` + hex."""
    if _PLAIN_ID.match(replica_id):
        return replica_id
    return "x" + replica_id.encode().hex()[:120]


def seat_key(table_id: str, seat: int) -> str:
    return f"{table_id}.{seat}"


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One seat a bot holds: enough to play it on from another process."""

    table_id: str
    seat: int
    player_id: str
    token: str  # the seat's player token: a secret
    owner: str  # the replica id playing it
    incarnation: str  # that replica's incarnation
    name: str = ""  # the seat's display name (logs)
    strength: str = ""  # what the table's BotsAssigned showed, once the owner saw it
    game: str = ""  # the table's game (its slug); "" in a record of an older bot: ask the lobby

    @property
    def key(self) -> str:
        return seat_key(self.table_id, self.seat)

    def owned_by(self, me: Identity) -> bool:
        return self.owner == me.replica and self.incarnation == me.incarnation

    def for_owner(self, me: Identity) -> SeatRecord:
        return replace(self, owner=me.replica, incarnation=me.incarnation)

    def encode(self) -> bytes:
        return json.dumps({"v": RECORD_VERSION, **asdict(self)}, sort_keys=True).encode()

    @classmethod
    def decode(cls, data: bytes) -> SeatRecord | None:
        """The record, or None for anything that is not one (it is then left alone)."""
        try:
            raw = json.loads(data)
            if not isinstance(raw, dict) or raw.pop("v", None) != RECORD_VERSION:
                return None
            record = cls(**raw)
        except (ValueError, TypeError):
            return None
        texts = (record.table_id, record.player_id, record.token, record.owner, record.incarnation)
        if not all(isinstance(t, str) and t for t in texts) or not isinstance(record.seat, int):
            return None
        if not all(isinstance(t, str) for t in (record.name, record.strength, record.game)):
            return None
        return record


# --- the decisions -------------------------------------------------------------------------


def orphaned(
    record: SeatRecord, live: Mapping[str, str], me: Identity, playing: Collection[str]
) -> bool:
    """Whether nobody plays the seat: its owner's heartbeat is gone or belongs to another
    incarnation (the owner restarted), or it is this process's own seat but no task plays it
    (a seat given up for a while, see Bot)."""
    if record.owned_by(me):
        return record.key not in playing
    return live.get(replica_key(record.owner)) != record.incarnation


def _weight(item: str, replica: str) -> bytes:
    return hashlib.sha256(f"{item}/{replica}".encode()).digest()


def preferred(item: str, replicas: Iterable[str]) -> str | None:
    """The replica (by heartbeat key) that should act on ``item`` first: rendezvous hashing, so
    every replica agrees, and an item moves only when its replica comes or goes."""
    return max(replicas, key=lambda r: _weight(item, r), default=None)


def may_fill(
    table_id: str, fill_at_ms: int, now_ms: int, live: Collection[str], me: str, grace_ms: int
) -> bool:
    """Whether this replica should take a table's free seats now: its preferred replica does at
    once; any replica does once ``grace_ms`` more have passed (the preferred one may be dead)."""
    return preferred(table_id, live) in (me, None) or now_ms >= fill_at_ms + grace_ms


# --- the buckets ---------------------------------------------------------------------------


def _gone(entry: KeyValue.Entry) -> bool:
    """Whether ``entry`` is a key's delete or purge marker: the key holds no value."""
    return entry.operation in (KV_DEL, KV_PURGE)


async def _latest(kv: KeyValue) -> dict[str, KeyValue.Entry]:
    """The latest entry of every key now in the bucket, markers of deleted keys included (one
    pass of an ordered consumer)."""
    # A short inactive threshold: the server drops the consumer soon after the watcher stops
    # (by default it would linger five minutes, one more for every scan).
    watcher = await kv.watchall(inactive_threshold=1.0)
    out: dict[str, KeyValue.Entry] = {}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SCAN_TIMEOUT_S
    try:
        while True:
            try:
                entry = await watcher.updates(timeout=SCAN_QUIET_S)  # type: ignore[no-untyped-call]
            except nats.errors.TimeoutError:
                # nats-py marks "caught up" only on an entry delivered with nothing pending
                # after it: an entry removed between the watcher's start and its delivery (a
                # heartbeat reaching the bucket's max age) leaves that marker never sent. (nats.go
                # met the same, nats-io/nats.go#1824, and ends a watch's first pass after a
                # quiet time-out.) So a quiet watcher asks the server what is left, and gives a
                # delivery on its way a moment to arrive.
                assert watcher._sub is not None  # set by watchall
                if (await watcher._sub.consumer_info()).num_pending:
                    if loop.time() >= deadline:
                        raise
                    continue
                try:
                    entry = await watcher.updates(timeout=SCAN_GRACE_S)  # type: ignore[no-untyped-call]
                except nats.errors.TimeoutError:
                    return out
            if entry is None:  # caught up
                return out
            deadline = loop.time() + SCAN_TIMEOUT_S  # it makes progress: the wait starts again
            out[entry.key] = entry
    finally:
        await watcher.stop()  # type: ignore[no-untyped-call]
        # ...and delete it now: a scan every second must not keep a consumer per scan.
        consumer = getattr(watcher._sub, "_consumer", None)  # nats-py keeps the name here only
        if consumer:
            with contextlib.suppress(*KV_ERRORS):
                await kv._js.delete_consumer(kv._stream, consumer)


class SeatBook:
    """The seat records and the heartbeats, for one bot process (``me``)."""

    def __init__(
        self,
        seats: KeyValue,
        replicas: KeyValue,
        me: Identity,
        replica_ttl_s: float = REPLICA_TTL_S,
    ) -> None:
        self._seats = seats
        self._replicas = replicas
        self.me = me
        self.replica_ttl_s = replica_ttl_s  # the heartbeat bucket's max age, as it is
        self._beat_revision = 0
        self._sweep_after = 0.0  # the loop's clock: no removal before (one failed)

    @classmethod
    async def open(
        cls,
        js: JetStreamContext,
        me: Identity,
        replicas: int = 1,
        replica_ttl_s: float = REPLICA_TTL_S,
    ) -> SeatBook:
        seats = await open_bucket(
            js,
            SEATS_BUCKET,
            "Match bot: the seats each bot replica plays, with their tokens (internal)",
            SEAT_TTL_S,
            replicas,
        )
        beats = await open_bucket(
            js,
            REPLICAS_BUCKET,
            "Match bot: one heartbeat per live bot replica",
            replica_ttl_s,
            replicas,
        )
        ttl = (await beats.status()).stream_info.config.max_age or 0.0
        if not ttl:
            log.warning(
                "MATCH_BOT_REPLICAS has no max age: a dead replica's seats are never taken over"
            )
        return cls(seats, beats, me, ttl or replica_ttl_s)

    # --- heartbeats ------------------------------------------------------------------------

    async def beat(self) -> bool:
        """Renew this replica's heartbeat. True when it renewed an unbroken one; False when the
        heartbeat had to be made again (the first beat, or it expired or was overwritten in
        between: another replica may have claimed this replica's seats meanwhile)."""
        value = self.me.incarnation.encode()
        key = self.me.key
        if self._beat_revision:
            try:
                self._beat_revision = await self._replicas.update(
                    key, value, last=self._beat_revision
                )
                return True
            except KeyWrongLastSequenceError:
                log.warning("the heartbeat lapsed; checking which seats are still ours")
        try:
            self._beat_revision = await self._replicas.create(key, value)
        except KeyWrongLastSequenceError:
            entry = await self._replicas.get(key)
            if self._beat_revision and entry.value != value:
                log.error(
                    "another live bot process uses this MATCH_REPLICA_ID; give each its own",
                    replica=self.me.replica,
                )
            self._beat_revision = await self._replicas.update(key, value, last=entry.revision)
        return False

    async def retire(self) -> None:
        """Remove this replica's heartbeat: the others take its seats over at once."""
        if self._beat_revision:
            await self._replicas.delete(self.me.key, last=self._beat_revision)
            self._beat_revision = 0

    async def alive(self, replica: str, incarnation: str) -> bool:
        """Whether that incarnation of that replica has a heartbeat now (read just before a
        claim: the scan it was decided on may be a moment old)."""
        try:
            entry = await self._replicas.get(replica_key(replica))
        except KeyNotFoundError:
            return False
        return (entry.value or b"").decode(errors="replace") == incarnation

    async def live(self) -> dict[str, str]:
        """Heartbeat key -> incarnation of every live replica."""
        entries = await _latest(self._replicas)
        return {
            k: (e.value or b"").decode(errors="replace") for k, e in entries.items() if not _gone(e)
        }

    # --- seats -----------------------------------------------------------------------------

    async def seats(self) -> list[tuple[int, SeatRecord]]:
        """(revision, record) of every seat recorded now (unreadable values are skipped)."""
        out = []
        latest = await _latest(self._seats)
        gone = [(e.key, e.revision) for e in latest.values() if _gone(e) and e.revision]
        if gone and asyncio.get_running_loop().time() >= self._sweep_after:
            await self._sweep(gone[:MARKERS_PER_SCAN])
        for entry in latest.values():
            if _gone(entry):
                continue
            record = SeatRecord.decode(entry.value or b"")
            if record is None or record.key != entry.key:
                log.warning("an unreadable seat record; left alone", key=entry.key)
                continue
            assert entry.revision is not None
            out.append((entry.revision, record))
        return out

    async def _sweep(self, markers: list[tuple[str, int]]) -> None:
        """Remove ``markers`` (key and revision, of seats given back) from the bucket. A
        marker stays for SEAT_TTL_S, and every scan, every second, reads every marker: left
        alone, a day's games against bots would make each scan of each replica take most of a
        second of CPU (docs/bot.md, "Replicas and seat takeover"). Each removal is a purge of
        the key's subject up to and including its marker only, so a record written to the key
        since (a later sequence) stays; a key with no message reads as one deleted. Once a
        removal fails, the rest wait SWEEP_PAUSE_S: a server that refuses the purge (its
        permissions older than this bot) answers nothing, and each try would hold the scan up
        for the request's whole time-out."""
        kv = self._seats
        for start in range(0, len(markers), MARKERS_AT_ONCE):
            done = await asyncio.gather(
                *(
                    kv._js.purge_stream(kv._stream, subject=kv._pre + key, seq=revision + 1)
                    for key, revision in markers[start : start + MARKERS_AT_ONCE]
                ),
                return_exceptions=True,
            )
            failed = [d for d in done if isinstance(d, BaseException)]
            for error in failed:
                if not isinstance(error, KV_ERRORS):
                    raise error
            if failed:
                self._sweep_after = asyncio.get_running_loop().time() + SWEEP_PAUSE_S
                log.warning(
                    "markers of seats given back not removed; trying again in a minute",
                    failed=len(failed),
                    left=len(markers) - start - len(done) + len(failed),
                    error=repr(failed[0]),
                )
                return

    async def get(self, key: str) -> tuple[int, SeatRecord] | None:
        try:
            entry = await self._seats.get(key)
        except KeyNotFoundError:
            return None
        record = SeatRecord.decode(entry.value or b"")
        if record is None or entry.revision is None:
            return None
        return entry.revision, record

    async def record(self, record: SeatRecord) -> int:
        """Write a seat just taken; its revision."""
        return await self._seats.put(record.key, record.encode())

    async def replace(self, revision: int, record: SeatRecord) -> int | None:
        """Write ``record`` over the one at ``revision``: its new revision, or None when the
        record changed since (another replica claimed the seat first)."""
        try:
            return await self._seats.update(record.key, record.encode(), last=revision)
        except KeyWrongLastSequenceError:
            return None

    async def release(self, key: str, revision: int) -> bool:
        """Forget a seat whose game is over (only if the record is still the one at
        ``revision``)."""
        try:
            await self._seats.delete(key, last=revision)
        except APIError as error:  # delete does not translate a wrong last sequence
            if error.err_code not in WRONG_LAST_SEQUENCE:
                raise
            return False
        return True
