"""Where each partition's unfinished tables begin on the log, so that taking a partition on
reads those tables, not the partition's whole history.

A replica that takes a partition on rebuilds the partition's tables from the table log. Without
a mark it read every record the partition ever stored, finished games included, so a takeover
(a referee crashed, or replicas were rebalanced) grew slower with every game played, the
partition's tables unanswered meanwhile (docs/operations.md, "Durability").

The holder of a partition writes its **mark** in the KV bucket ``MATCH_REFEREE_MARKS`` (key
``pNN``, the stream sequence as decimal text), every ``REFEREE_MARK_EVERY_S``: the lowest of

* the stream sequence of the first record of every table of the partition whose game is not
  finished (over with its seed out, or expired) nor left idle (below): those it holds in
  memory and those it keeps quarantined (the referee's ``_live_starts``), and
* one past the log's last sequence as it was at the step before (the **floor**).

A table whose first record is below the floor was stored a whole period ago, so the holder knows
it (its append was answered long since). So every unfinished table the holder knows begins at
or after the mark, and a replica taking the partition on reads from there: a table whose first
record it does not meet is finished, left on the log as a finished game always was, and read
back from it if a command comes. A table whose first append's outcome never came back to the
holder (a time-out after it was stored) is read back from the log by the holder itself
(``Referee._settle``), so it is in its memory too once the log answers.

A table whose game waits for its player and nothing else (no deadline: a solo game its player
left) stops holding the mark once it has been idle for ``REFEREE_MARK_IDLE_S`` (ten minutes):
its holder puts it out of memory, a replica taking the partition on does not load it, and a
command reads it back from the log, as it does a finished game. Otherwise one game left for
good would hold its partition's mark at its first record for ever. A command may give such a
game a deadline at any moment (a second card's time limit, a miss to turn down), and a replica
taking the partition on must then load it to keep that deadline. So before the holder appends
a record for a table the partition's mark has passed, it **lowers the mark** to the table's
first record and waits for the bucket to store it (``lower``; a bucket that does not answer
refuses the command, ``unavailable``, and nothing is appended), and the table holds the mark
again for at least the idle time. A step and a lowering of the same partition take turns (one
lock per partition), so a step cannot write a mark worked out before the lowering over it.

Only a holder whose lease was renewed within half a term writes (a replica paused past its
lease does not, whatever its memory says), and only for a partition it has answered for since
the step before. A mark a paused holder still writes was right when it was worked out, and
the tables made since by the partition's new holder begin after it. A game left idle that the
new holder woke is the one table such a late write can pass, and only until the new holder's
next write: a holder writes its marks at every step, changed or not. If a takeover came in that
window, a deadline of that game would fire when the next command for it reads it back, stamped
with the instant it was due. So would one on a replica whose NATS identity may not use the
bucket yet (an upgrade under way: docs/operations.md, "Upgrading"): it cannot lower a mark
another replica wrote. A replica that opened the bucket but could not read a partition's mark
takes the mark to be past every table, so its first wake of a game left idle lowers it (to
the first record of the oldest unfinished table it holds, since it read the whole partition).
All replicas must have the same ``REFEREE_MARK_IDLE_S``: a replica with a longer one may not
lower for a game another left out sooner.

A mark is a place to start reading and nothing more: the log is not cut, the copies, the
ledger and the auditors see every record as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

import structlog
from nats.errors import Error as NatsError
from nats.errors import TimeoutError as NatsTimeout
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue
from prometheus_client import Counter, Gauge

from match_bus import subjects
from match_bus.jetstream import TableLog

log = structlog.get_logger()

MARK = Gauge(
    "match_referee_partition_mark",
    "Where a partition's live tables begin on the log (stream sequence): a replica taking it "
    "on reads from there",
    ["partition"],
)
BEHIND = Gauge(
    "match_referee_partition_mark_behind_records",
    "Records stored on the log since a partition's mark: how far back a replica taking the "
    "partition on begins reading (its oldest table under way holds it there)",
    ["partition"],
)

UNKNOWN = 2**63 - 1  # a mark this replica could not read: it may be past any table


class NotHolding(Exception):
    """A mark lowered by a replica that no longer answers for the partition, or whose lease is
    not fresh."""


LOWERED = Counter(
    "match_referee_partition_mark_lowered_total",
    "Marks lowered at once: a command for a game left idle, which the mark had passed",
)


class Marks:
    """Each held partition's mark, written every ``every_s``; read when a partition is taken on."""

    def __init__(
        self,
        bucket: Callable[[], Awaitable[KeyValue]],
        log_: TableLog,
        *,
        every_s: float,
        answering: Callable[[], Iterable[int]],
        live_starts: Callable[[int], Iterable[int]],
        fresh: Callable[[int], bool],
    ) -> None:
        self._bucket = bucket  # opens (or makes) MATCH_REFEREE_MARKS
        self._kv: KeyValue | None = None
        self._log = log_
        self.every_s = every_s
        self._answering = answering  # the partitions this replica answers for now
        self._live_starts = live_starts  # first records of a partition's unfinished tables
        self._fresh = fresh  # whether the partition's lease was renewed lately
        self._floor: int | None = None  # one past the log's last sequence at the step before
        self._steady: set[int] = set()  # the partitions answered for at the step before
        # The highest mark the bucket may hold for each partition, as far as this replica
        # knows: what it read when it took the partition on (UNKNOWN if it could not read it),
        # raised by every put it began (one that timed out may have been stored)
        self._claimed: dict[int, int] = {}
        self._turns: dict[int, asyncio.Lock] = {}  # a step and a lowering, one at a time

    async def _open(self) -> KeyValue:
        """The bucket, opened at its first use: a replica whose NATS identity may not use it yet
        (an authorization older than this version: docs/operations.md, "Upgrading") runs, and
        reads every partition from its first record, as before marks."""
        if self._kv is None:
            self._kv = await self._bucket()
        return self._kv

    async def read(self, partitions: Iterable[int]) -> dict[int, int]:
        """Each partition's mark (0: none, read the partition from the log's first record). A
        bucket that does not answer gives 0: a slower takeover, never a table missed."""
        wanted = sorted(set(partitions))
        try:
            kv = await self._open()
        except (TimeoutError, NatsTimeout, NatsError) as error:
            log.warning(
                "could not open the partitions' marks; reading all of them", error=repr(error)
            )
            return dict.fromkeys(wanted, 0)

        async def one(partition: int) -> int:
            try:
                entry = await kv.get(subjects.partition_name(partition))
            except KeyNotFoundError:
                self._claimed[partition] = 0
                return 0
            except (TimeoutError, NatsTimeout, NatsError) as error:
                log.warning(
                    "could not read where the partition's live tables begin; reading all of it",
                    partition=partition,
                    error=repr(error),
                )
                self._claimed[partition] = UNKNOWN  # it may pass any table: lower at a wake
                return 0
            try:
                mark = int((entry.value or b"0").decode())
            except (UnicodeDecodeError, ValueError):
                log.error(
                    "a partition's mark is not a number; reading all of it",
                    partition=partition,
                )
                self._claimed[partition] = UNKNOWN
                return 0
            self._claimed[partition] = mark
            return max(mark, 0)

        marks = await asyncio.gather(*(one(p) for p in wanted))
        return dict(zip(wanted, marks, strict=True))

    async def run(self) -> None:
        """Until cancelled: a step every ``every_s`` (a failed one is logged, left to the next)."""
        while True:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # NATS down or a node restarting: the next step writes
                log.warning("partition marks not written", error=repr(error))
            await asyncio.sleep(self.every_s)

    async def step(self) -> None:
        """Write the mark of each partition answered for since the step before (while its lease
        is fresh), then take the log's last sequence for the next step's floor."""
        answering = set(self._answering())
        floor = self._floor
        kv = await self._open()
        if floor is not None:
            for partition in sorted(answering & self._steady):
                async with self._turn(partition):
                    if not self._fresh(partition):
                        continue
                    mark = min([floor, *self._live_starts(partition)])
                    # Written at every step, changed or not: a late put of the partition's
                    # previous holder (paused, or buffered over a reconnect) lasts one step.
                    await self._put(kv, partition, mark)
                MARK.labels(subjects.partition_name(partition)).set(mark)
                BEHIND.labels(subjects.partition_name(partition)).set(floor - mark)
        self._floor = await self._log.last_sequence() + 1
        self._steady = answering

    def passes(self, partition: int, first: int) -> bool:
        """Whether the partition's mark may be past a table that begins at ``first``."""
        return self._claimed.get(partition, 0) > first

    async def lower(self, partition: int, first: int) -> None:
        """Lower the partition's mark to ``first`` (a game left idle begins there, and a command
        is about to change it), or below it to the first record of another unfinished table
        (a mark this replica could not read may have been anywhere), and return once the
        bucket has stored it. Raises NotHolding for a partition this replica no longer answers
        for or whose lease is not fresh (its new holder's mark is not this replica's to move),
        and what the bucket raised; nothing may be appended then. A replica that has never
        opened the bucket (its NATS identity may not use it yet) read no mark, so none passes
        a table: it lowers nothing."""
        async with self._turn(partition):
            if not self.passes(partition, first):
                return  # lowered meanwhile, or a step counted the table
            if partition not in set(self._answering()) or not self._fresh(partition):
                raise NotHolding(partition)
            kv = await self._open()  # opened already: a mark was read from it (passes)
            mark = min([first, *self._live_starts(partition)])
            await self._put(kv, partition, mark)
            LOWERED.inc()
            MARK.labels(subjects.partition_name(partition)).set(mark)

    async def _put(self, kv: KeyValue, partition: int, mark: int) -> None:
        """Store a mark, under the partition's turn."""
        self._claimed[partition] = max(self._claimed.get(partition, 0), mark)
        await kv.put(subjects.partition_name(partition), str(mark).encode())
        self._claimed[partition] = mark  # stored: nothing higher from this replica

    def _turn(self, partition: int) -> asyncio.Lock:
        return self._turns.setdefault(partition, asyncio.Lock())
