"""Which referee replica holds which partition of the tables: leases in a JetStream KV bucket.

The bucket ``MATCH_REFEREE_LEASES`` has a max age of one lease term (``ttl_s``). Key ``pNN`` names
the replica holding partition NN; key ``replica-<id>`` is each replica's heartbeat. A holder
renews its leases every third of a term with a compare-and-set (``update`` with the last
revision), so the value vanishes one term after its holder stops renewing, and only one
``create`` can win a free partition. Each replica aims for ``ceil(PARTITIONS / live replicas)``
partitions: it takes free ones up to that share and hands back any surplus (the newest
replica takes them), so tables spread out as replicas come and go.

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
from nats.js.errors import KeyWrongLastSequenceError
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

    @property
    def period_s(self) -> float:
        return self._ttl_s / 3

    def holding(self, partition: int) -> bool:
        return partition in self.held

    async def run(self) -> None:
        """Renew, balance, repeat every third of a term, until cancelled; meanwhile a watchdog
        lets go of any lease not renewed in time, however long a round takes."""
        watchdog = asyncio.create_task(self._watchdog())
        try:
            while True:
                try:
                    await self.step()
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # NATS down or a node restarting: next round
                    log.warning("lease round failed", error=repr(error))
                await asyncio.sleep(self.period_s)
        finally:
            watchdog.cancel()

    async def _watchdog(self) -> None:
        while True:
            await asyncio.sleep(self._ttl_s / 10)
            await self._drop_expired()

    async def step(self) -> None:
        """Renew first (all leases at once: under load one round trip, not sixteen), then look
        at who is alive and balance."""
        await asyncio.gather(self._kv.put(heartbeat_key(self.replica_id), self._me), self._renew())
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
                await self._drop(partition)
            elif isinstance(answer, BaseException):
                log.warning("lease not renewed", partition=partition, error=repr(answer))
            elif partition in self.held:
                self.held[partition] = (answer, sent)
        await self._drop_expired()

    async def _drop_expired(self) -> None:
        """A lease not renewed within its term may belong to someone else by now: stop."""
        deadline = self._now() - self._ttl_s * 0.8
        for partition, (_, renewed) in list(self.held.items()):
            if renewed < deadline:
                log.warning("lease not renewed in time; letting go", partition=partition)
                await self._drop(partition)

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
            try:
                revision = await self._kv.create(subjects.partition_name(partition), self._me)
            except KeyWrongLastSequenceError:
                continue  # somebody holds it
            self.held[partition] = (revision, sent)
            gained.append(partition)
        if gained:
            MOVES.labels("gained").inc(len(gained))
            log.info("partitions gained", partitions=gained)
            task = asyncio.create_task(self._load(gained))
            self._loading.add(task)
            task.add_done_callback(self._loading.discard)

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
        revision, _ = self.held[partition]
        await self._drop(partition)
        with contextlib.suppress(Exception):  # it expires by itself anyway
            await self._kv.delete(subjects.partition_name(partition), last=revision)

    async def release_all(self) -> None:
        for task in list(self._loading):
            task.cancel()
        for partition in list(self.held):
            await self.release(partition)
        with contextlib.suppress(Exception):
            await self._kv.delete(heartbeat_key(self.replica_id))

    async def _drop(self, partition: int) -> None:
        if self.held.pop(partition, None) is None:
            return
        MOVES.labels("lost").inc()
        HELD.set(len(self.held))
        await self._lose(partition)
