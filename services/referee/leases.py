"""Which referee replica holds which partition of the tables: leases in a JetStream KV bucket.

The bucket ``MATCH_REFEREE_LEASES`` has a max age of one lease term (``ttl_s``). Key ``pNN`` names
the replica holding partition NN; key ``replica-<id>`` is each replica's heartbeat. A holder
renews its leases every third of a term with a compare-and-set (``update`` with the last
revision), so the value vanishes one term after its holder stops renewing, and only one
``create`` can win a free partition. Each replica aims for ``ceil(PARTITIONS / live
replicas)`` partitions: it takes free ones up to that share and hands back any surplus (the
newest replica takes them), so tables spread out as replicas come and go.

Renewing, balancing and the watchdog each keep their own schedule: a slow look at who is alive
never makes a renewal late, and a slow hand-over never holds up another. Under load (2,048
commands in flight on two cores) a round that did both in turn took up to 2.2 s before its
pause, so a renewal came 4 s after the last one and the replica let every lease go: all its
tables went unanswered for about nine seconds (docs/performance.md).

A replica that let a lease go (its renewal came too late) and finds the key still holding its
own name takes it back at its next round, with a compare-and-set on that revision: nobody took
it since, so its tables need not wait out the rest of the term with nobody answering.

A lease is a promise about time, and clocks and pauses break promises, so nothing relies on it
alone: the table log's sequence fence refuses the append of a writer that lost its lease (see
match_bus.jetstream). The lease keeps writers apart; the fence makes a stale one harmless.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import zlib
from collections.abc import Awaitable, Callable

import structlog
from nats.js import JetStreamContext
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue
from prometheus_client import Counter, Gauge

from match_bus import subjects
from match_bus.jetstream import live_keys, open_bucket

log = structlog.get_logger()

HELD = Gauge("match_referee_partitions_held", "Partitions this replica holds the lease of")
MOVES = Counter("match_referee_partition_moves_total", "Partitions gained or lost", ["change"])
PARTITIONS = Gauge(
    "match_referee_partitions",
    "Partitions the tables are split into: each needs one holder (alerts compare the held sum)",
)

_KEY_SAFE = re.compile(r"[^-_a-zA-Z0-9]")


def heartbeat_key(replica_id: str) -> str:
    return "replica-" + _KEY_SAFE.sub("_", replica_id)


def share(partitions: int, live: int) -> int:
    """How many partitions one replica aims to hold when ``live`` replicas are alive."""
    return math.ceil(partitions / max(live, 1))


async def lease_bucket(js: JetStreamContext, ttl_s: float, replicas: int) -> KeyValue:
    return await open_bucket(
        js,
        subjects.REFEREE_LEASES_BUCKET,
        "Match: which referee replica holds which partition of the tables",
        ttl_s,
        replicas,
    )


async def _round(work: Awaitable[None], failed: str) -> None:
    """One round of a lease loop; a failure (NATS down or a node restarting) is logged as
    ``failed`` and left to the next round."""
    try:
        await work
    except asyncio.CancelledError:
        raise
    except Exception as error:
        log.warning(failed, error=repr(error))
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        # Cancelled while a request's answer came: nats-py waits with wait_for, which on 3.11
        # returns the answer and drops the cancellation. The loop stops all the same.
        raise asyncio.CancelledError


class Leases:
    """Holds partitions for one replica. ``gain(ps)`` loads the partitions and starts answering
    for them; it runs in its own task, so leases keep being renewed while it reads the log, and
    it must check ``holding(p)`` before it starts answering for ``p``. ``lose(p)`` runs when the
    replica must stop (surplus, or a renewal it could not make in time)."""

    def __init__(
        self,
        kv: KeyValue,
        replica_id: str,
        ttl_s: float,
        gain: Callable[[list[int]], Awaitable[None]],
        lose: Callable[[int], Awaitable[None]],
        monotonic: Callable[[], float],
        partitions: int = subjects.PARTITIONS,
    ) -> None:
        self._kv = kv
        self.replica_id = replica_id
        self._me = replica_id.encode()
        self._ttl_s = ttl_s
        self._gain = gain
        self._lose = lose
        self._now = monotonic
        self._partitions = partitions
        PARTITIONS.set(partitions)
        # partition -> (revision, when the request that renewed it was sent)
        self.held: dict[int, tuple[int, float]] = {}
        self._loading: set[asyncio.Task[None]] = set()
        # Held while renewals are in flight: a release reads a revision no renewal will change.
        self._renewing = asyncio.Lock()

    @property
    def period_s(self) -> float:
        return self._ttl_s / 3

    def holding(self, partition: int) -> bool:
        return partition in self.held

    def fresh(self, partition: int) -> bool:
        """Held, and renewed within half a term: nobody else can hold it yet."""
        held = self.held.get(partition)
        return held is not None and held[1] >= self._now() - self._ttl_s / 2

    async def run(self) -> None:
        """Until cancelled: renew every third of a term (:meth:`_keep`), balance every third of a
        term, and a watchdog that lets go of any lease not renewed in time, each on its own
        schedule: however long a round of one takes, the others keep theirs."""
        helpers = [asyncio.create_task(self._watchdog()), asyncio.create_task(self._keep())]
        try:
            while True:
                await _round(self._balance(), "lease round failed")
                await asyncio.sleep(self.period_s)
        finally:
            for helper in helpers:
                helper.cancel()
            await asyncio.gather(*helpers, return_exceptions=True)

    async def _keep(self) -> None:
        """Renew the leases and the heartbeat every third of a term from when the last renewal
        was sent (at once, if it took longer)."""
        while True:
            sent = self._now()
            await _round(self._renew_all(), "lease renewal failed")
            await asyncio.sleep(max(0.0, sent + self.period_s - self._now()))

    async def _watchdog(self) -> None:
        while True:
            await asyncio.sleep(self._ttl_s / 10)
            await self._drop_expired()

    async def step(self) -> None:
        """One round of both: renew, then balance (the first round, and tests)."""
        await self._renew_all()
        await self._balance()

    async def _renew_all(self) -> None:
        """The heartbeat and every lease at once: under load one round trip, not seventeen."""
        await asyncio.gather(self._kv.put(heartbeat_key(self.replica_id), self._me), self._renew())

    async def _balance(self) -> None:
        """Look at who is alive, and take or hand back partitions to hold an even share."""
        target = share(self._partitions, await self._live())
        if len(self.held) > target:
            for partition in sorted(self.held, reverse=True)[: len(self.held) - target]:
                await self.release(partition)
        elif len(self.held) < target:
            await self._acquire(target - len(self.held))
        HELD.set(len(self.held))

    async def _live(self) -> int:
        """Replicas with a heartbeat now, read without a consumer: a round leaves nothing
        behind on the bucket (``kv.keys()`` left an ordered consumer for five minutes)."""
        return max(1, len(await live_keys(self._kv, heartbeat_key(""))))

    async def _renew(self) -> None:
        lost = []
        async with self._renewing:
            sent = self._now()  # a lease runs from when its renewal was sent, not answered
            held = list(self.held.items())
            answers = await asyncio.gather(
                *(
                    self._kv.update(subjects.partition_name(p), self._me, last=revision)
                    for p, (revision, _) in held
                ),
                return_exceptions=True,
            )
            for (partition, _), answer in zip(held, answers, strict=True):
                if isinstance(answer, KeyWrongLastSequenceError):
                    log.warning("lease lost", partition=partition)
                    lost.append(partition)
                elif isinstance(answer, BaseException):
                    log.warning("lease not renewed", partition=partition, error=repr(answer))
                elif partition in self.held:
                    self.held[partition] = (answer, sent)
        await self._drop_all(lost)
        await self._drop_expired()

    async def _drop_expired(self) -> None:
        """A lease not renewed within its term may belong to someone else by now: stop."""
        deadline = self._now() - self._ttl_s * 0.8
        expired = [p for p, (_, renewed) in self.held.items() if renewed < deadline]
        for partition in expired:
            log.warning("lease not renewed in time; letting go", partition=partition)
        await self._drop_all(expired)

    async def _acquire(self, wanted: int) -> None:
        gained: list[int] = []
        start = zlib.crc32(self._me) % self._partitions  # replicas start their search apart
        for i in range(self._partitions):
            if len(gained) == wanted:
                break
            partition = (start + i) % self._partitions
            if partition in self.held:
                continue
            sent = self._now()
            revision = await self._take(partition)
            if revision is None:
                continue  # somebody holds it
            self.held[partition] = (revision, sent)
            gained.append(partition)
        if gained:
            MOVES.labels("gained").inc(len(gained))
            log.info("partitions gained", partitions=gained)
            task = asyncio.create_task(self._load(gained))
            self._loading.add(task)
            task.add_done_callback(self._loading.discard)

    async def _take(self, partition: int) -> int | None:
        """The lease of a free partition, or of one whose key still names this replica (let go
        when a renewal came late, and nobody has taken it since): its revision; None if another
        replica holds it."""
        key = subjects.partition_name(partition)
        try:
            return int(await self._kv.create(key, self._me))
        except KeyWrongLastSequenceError:
            pass
        try:
            entry = await self._kv.get(key)
        except KeyNotFoundError:
            return None  # gone since: free next round
        if entry.value != self._me or entry.revision is None:
            return None
        try:  # only if it is still that revision: nobody took it in between
            return int(await self._kv.update(key, self._me, last=entry.revision))
        except KeyWrongLastSequenceError:
            return None

    async def _load(self, gained: list[int]) -> None:
        try:
            await self._gain(gained)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # could not load them: give them back
            log.error("could not take partitions on; handing them back", error=repr(error))
            for partition in gained:
                if partition in self.held:
                    await self.release(partition)

    async def settled(self) -> None:
        """Until every partition being loaded is loaded (or given back)."""
        while self._loading:
            await asyncio.gather(*self._loading, return_exceptions=True)

    async def release(self, partition: int) -> None:
        """Stop answering for ``partition``, then free its lease for another replica."""
        async with self._renewing:  # no renewal of it in flight: ``revision`` stays the key's
            revision = self._forget(partition)
        if revision is None:
            return  # let go meanwhile
        await self._lose(partition)
        with contextlib.suppress(Exception):  # it expires by itself anyway
            await self._kv.delete(subjects.partition_name(partition), last=revision)

    async def release_all(self) -> None:
        for task in list(self._loading):
            task.cancel()
        await asyncio.gather(*(self.release(p) for p in list(self.held)))
        with contextlib.suppress(Exception):
            await self._kv.delete(heartbeat_key(self.replica_id))

    def _forget(self, partition: int) -> int | None:
        """No longer held (so no longer renewed): its revision, None if it was not held."""
        held = self.held.pop(partition, None)
        if held is None:
            return None
        MOVES.labels("lost").inc()
        HELD.set(len(self.held))
        return held[0]

    async def _drop_all(self, partitions: list[int]) -> None:
        """Stop answering for every one of ``partitions`` at once: each stops being held first,
        then all are handed over together (one hand-over can wait seconds for its commands in
        flight, and an expired lease must not wait behind another's)."""
        forgotten = [p for p in partitions if self._forget(p) is not None]
        if not forgotten:
            return
        outcomes = await asyncio.gather(*(self._lose(p) for p in forgotten), return_exceptions=True)
        for partition, outcome in zip(forgotten, outcomes, strict=True):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            if isinstance(outcome, BaseException):
                log.error("hand-over failed", partition=partition, error=repr(outcome))
