"""Watch fan-out: one NATS consumer per watched table in this lobby, whatever its watchers.

A :class:`TableFeed` reads one table's records with one ordered consumer, from the first, and
keeps them (a table's log is a game: a few hundred records); every Watch of that table in this
lobby reads the feed from its first record at its own pace, and folds and redacts it for its own
viewer (services.lobby.watch). Nothing per viewer is shared: a feed holds the log's bytes, never
a view. A feed goes away ``linger_s`` after its last watcher left (a watcher that resumes
meanwhile finds it still there); its consumer is deleted then.

:class:`Watches` admits each stream against the caps of :class:`WatchLimits` (per player, per
client address, per lobby, tables followed at once): over one, the stream ends
RESOURCE_EXHAUSTED with ``retry-after-ms`` before anything is read. So the consumers on the
events stream grow with the tables watched, never with the watchers. The tables followed are a
pool shared fairly between client addresses (services.lobby.limits.FairShare): an address that
watches many distinct tables may start following another only while the pool has room for its
share, and one that watches none always may while any room is left, so a few dozen addresses
cannot shut the others out.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import grpc  # type: ignore[import-untyped]
import nats.errors
import structlog
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, DeliverPolicy

from match_bus import subjects
from match_bus.jetstream import TableLog
from services.fairshare import FairShare
from services.lobby import metrics
from services.lobby.errors import RETRY_AFTER_KEY, ApiError
from services.lobby.limits import Counts, WatchLimits
from services.lobby.viewer import SharedFold

log = structlog.get_logger()

# How long the consumer may stay silent before the feed asks the log whether it missed a record
# (one direct get): an ordered consumer can go quiet after a NATS restart.
STALL_CHECK_S = 5.0
GIVE_UP_S = 30.0  # a consumer that cannot be made for this long fails the feed's watchers


class Stalled(Exception):
    """The consumer went quiet while the log grew: follow the table again."""


class FeedFailed(Exception):
    """The feed's consumer could not be made or broke: its watchers end, a new Watch retries."""


class TableFeed:
    """One table's records, in stream order from its first, read by one ordered consumer."""

    def __init__(self, js: JetStreamContext, table_id: str) -> None:
        self.table_id = table_id
        self.records: list[tuple[int, bytes]] = []  # (stream sequence, TableRecord bytes)
        self.fold = SharedFold()  # what its viewers' folds share (services.lobby.viewer)
        self.watchers = 0
        self.failure: str | None = None
        self.linger: asyncio.TimerHandle | None = None
        self._js = js
        self._grown = asyncio.Event()
        self._task = asyncio.create_task(self._follow(), name=f"feed-{table_id}")

    async def record(self, index: int, timeout_s: float) -> tuple[int, bytes]:
        """The table's record number ``index`` (0: its first), waiting up to ``timeout_s`` for
        it (TimeoutError); FeedFailed if the feed broke."""
        while index >= len(self.records):
            if self.failure is not None:
                raise FeedFailed(self.failure)
            grown = self._grown
            await asyncio.wait_for(grown.wait(), timeout_s)
        return self.records[index]

    def _wake(self) -> None:
        self._grown.set()
        self._grown = asyncio.Event()

    async def _follow(self) -> None:
        """Follow the table for as long as anybody watches it. A consumer that broke, or that
        went quiet while the log grew (as after a NATS restart), is made again from the record
        after the last one kept; only one that cannot be made for GIVE_UP_S fails the feed."""
        loop = asyncio.get_running_loop()
        failing_since: float | None = None
        while True:
            sub = None
            try:
                sub = await self._subscribe()
                failing_since = None
                while True:
                    try:
                        msg = await sub.next_msg(timeout=STALL_CHECK_S)
                    except nats.errors.TimeoutError:
                        await self._check_not_stalled()
                        continue
                    sequence = msg.metadata.sequence.stream
                    if self.records and sequence <= self.records[-1][0]:
                        continue  # delivered again after a re-subscription
                    self.records.append((sequence, msg.data))
                    self._wake()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                failing_since = failing_since if failing_since is not None else loop.time()
                if loop.time() - failing_since > GIVE_UP_S:  # tell the watchers
                    log.warning("cannot follow a table", table_id=self.table_id, error=repr(error))
                    self.failure = repr(error)
                    self._wake()
                    return
                log.info("following a table again", table_id=self.table_id, error=repr(error))
                await asyncio.sleep(0.5)
            finally:
                if sub is not None:
                    await _end(self._js, sub)

    async def _subscribe(self) -> JetStreamContext.PushSubscription:
        if self.records:
            config = ConsumerConfig(
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
                opt_start_seq=self.records[-1][0] + 1,
            )
        else:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        return await self._js.subscribe(
            subjects.events(self.table_id),
            stream=subjects.LOBBY_EVENTS,  # the lobby's own copy of the log (same sequences)
            ordered_consumer=True,
            config=config,
        )

    async def _check_not_stalled(self) -> None:
        """A quiet consumer is fine while the log is quiet too; raise Stalled when the table's
        last record is one the feed has not got."""
        last = await TableLog(self._js).last(self.table_id)
        kept = self.records[-1][0] if self.records else 0
        if last is not None and last[0] > kept:
            raise Stalled(f"the log is at {last[0]}, the feed at {kept}")

    async def close(self) -> None:
        if self.linger is not None:
            self.linger.cancel()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def _end(js: JetStreamContext, sub: JetStreamContext.PushSubscription) -> None:
    """Unsubscribe, then delete the consumer at once (else the server keeps an ephemeral one a
    few seconds after its last interest)."""
    with contextlib.suppress(Exception):
        await sub.unsubscribe()
    consumer = getattr(sub, "_consumer", None)  # nats-py keeps the current name here only
    if consumer:
        with contextlib.suppress(Exception):
            await js.delete_consumer(subjects.LOBBY_EVENTS, consumer)


def exhausted(what: str, limits: WatchLimits) -> ApiError:
    wait = limits.retry_after_ms
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"too many Watch streams open {what}: close one, or wait {wait} ms and try again",
        trailers=((RETRY_AFTER_KEY, str(wait)),),
        quiet=True,
    )


class Watches:
    """Every Watch stream of this lobby replica: the caps, and the feeds they share."""

    def __init__(self, js: JetStreamContext, limits: WatchLimits) -> None:
        self._js = js
        self.limits = limits
        self._players = Counts(limits.per_player)
        self._addresses = Counts(limits.per_address)
        self._lobby = Counts(limits.per_lobby)
        self._fair = FairShare(limits.tables, limits.tables_per_address)
        # client address -> table id -> its streams of that table now
        self._watched_by: dict[str, dict[str, int]] = {}
        self.feeds: dict[str, TableFeed] = {}

    @property
    def open(self) -> int:
        return self._lobby["lobby"]

    @contextlib.contextmanager
    def admitted(self, player: str | None, address: str | None) -> Iterator[None]:
        """Count one stream for ``player`` (None: a spectator, counted by address only) from
        ``address`` (None: not counted by address, the bot service) while the block runs;
        RESOURCE_EXHAUSTED over a cap, counting nothing."""
        for counts, key, kind, what in (
            (self._players, player, "watch_player", "for this player"),
            (self._addresses, address, "watch_address", "from this address"),
            (self._lobby, "lobby", "watch_lobby", "on this lobby"),
        ):
            if key is not None and counts.full(key):
                metrics.LIMITED.labels(kind).inc()
                cap = counts.cap
                raise exhausted(f"{what} ({cap} at most)", self.limits)
        if player is not None:
            self._players.add(player)
        if address is not None:
            self._addresses.add(address)
        self._lobby.add("lobby")
        try:
            yield
        finally:
            if player is not None:
                self._players.remove(player)
            if address is not None:
                self._addresses.remove(address)
            self._lobby.remove("lobby")

    def tables_of(self, address: str) -> int:
        """How many distinct tables ``address`` watches now."""
        return len(self._watched_by.get(address, ()))

    @contextlib.asynccontextmanager
    async def feed(self, table_id: str, address: str | None = None) -> AsyncIterator[TableFeed]:
        """The table's feed (made if needed) for one watcher from ``address`` (None: not
        counted by address, the bot service) while the block runs."""
        feed = self._join(table_id, address)
        tables = self._watched_by.setdefault(address, {}) if address is not None else None
        if tables is not None:
            tables[table_id] = tables.get(table_id, 0) + 1
        try:
            yield feed
        finally:
            if tables is not None and address is not None:
                left = tables[table_id] - 1
                if left:
                    tables[table_id] = left
                else:
                    del tables[table_id]
                    if not tables:
                        self._watched_by.pop(address, None)
            feed.watchers -= 1
            if feed.watchers == 0 and self.feeds.get(table_id) is feed:
                loop = asyncio.get_running_loop()
                feed.linger = loop.call_later(self.limits.linger_s, self._expire, feed)
            elif feed.watchers == 0:
                await feed.close()  # failed and replaced meanwhile

    def _join(self, table_id: str, address: str | None) -> TableFeed:
        feed = self.feeds.get(table_id)
        if feed is not None and feed.failure is not None:
            self._drop(feed)  # a broken feed serves nobody new: follow the table again
            feed = None
        if feed is None:
            if address is not None:
                self._admit_table(address)
            if self.limits.tables and len(self.feeds) >= self.limits.tables:
                idle = next((f for f in self.feeds.values() if f.watchers == 0), None)
                if idle is None:
                    metrics.LIMITED.labels("watch_tables").inc()
                    what = f"for distinct tables on this lobby ({self.limits.tables} at most)"
                    raise exhausted(what, self.limits)
                self._drop(idle)  # a lingering feed makes room
            feed = self.feeds[table_id] = TableFeed(self._js, table_id)
            metrics.WATCHED_TABLES.set(len(self.feeds))
        if feed.linger is not None:
            feed.linger.cancel()
            feed.linger = None
        feed.watchers += 1
        return feed

    def _admit_table(self, address: str) -> None:
        """RESOURCE_EXHAUSTED when ``address`` may not have one more table followed: past its
        share of the pool (lingering feeds, which make room, are not counted as taken)."""
        held = self.tables_of(address)
        used = sum(1 for f in self.feeds.values() if f.watchers > 0)
        if self._fair.allows(held, 1, used):
            return
        if self.limits.tables and used >= self.limits.tables:
            return  # the pool is full: the caller's refusal says so
        metrics.LIMITED.labels("watch_address_tables").inc()
        share = max(int(self._fair.share(used)), 1)
        raise exhausted(
            f"from this address for distinct tables (it watches {held}; while this lobby "
            f"follows {used} of its {self.limits.tables} tables, an address may watch {share})",
            self.limits,
        )

    def _expire(self, feed: TableFeed) -> None:
        if feed.watchers == 0 and self.feeds.get(feed.table_id) is feed:
            self._drop(feed)

    def _drop(self, feed: TableFeed) -> None:
        """Forget ``feed``; its consumer goes now unless a watcher still reads it."""
        if self.feeds.get(feed.table_id) is feed:
            del self.feeds[feed.table_id]
            metrics.WATCHED_TABLES.set(len(self.feeds))
        if feed.watchers == 0:
            task = asyncio.get_running_loop().create_task(feed.close())
            _closing.add(task)
            task.add_done_callback(_closing.discard)

    async def close(self) -> None:
        for feed in list(self.feeds.values()):
            await feed.close()
        self.feeds.clear()


_closing: set[asyncio.Task[None]] = set()  # feeds being closed (a task must be referenced)
