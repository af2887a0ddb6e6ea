"""Watch fan-out: one feed per watched table in this lobby, whatever its watchers.

A :class:`TableFeed` keeps one table's records from its first (a table's log is a game: a few
hundred records); every Watch of that table in this lobby reads the feed from its first record
at its own pace, and folds and redacts it for its own viewer (services.lobby.watch). Nothing per
viewer is shared: a feed holds the log's bytes, never a view. A feed goes away ``linger_s`` after
its last watcher left (a watcher that resumes meanwhile finds it still there).

How a feed follows its table: the lobby's copy of the log pushes every record it stores on core
NATS (``match.live.p<NN>.<table>``, the stream's RePublish: match_bus.jetstream), with its stream
sequence and the sequence of the table's record before it in headers. The feed subscribes there
first, then reads what the copy already holds with an ordered consumer that it deletes once
caught up, then takes each pushed record that continues the one it kept last. A push that does
not (one was lost: a slow subscription, a reconnection) sends it back to the copy to catch up
from the last record it kept, and so does a table quiet for STALL_CHECK_S while the log holds a
record the feed has not got. So a followed table costs nats-server a subscription, not a
consumer: the copy's consumers are taken only while feeds catch up, and the tables a lobby can
follow are bounded by its caps and its memory, not by the copy's consumer limit.

:class:`Watches` admits each stream against the caps of :class:`WatchLimits` (per player, per
client address, per lobby, tables followed at once): over one, the stream ends
RESOURCE_EXHAUSTED with ``retry-after-ms`` before anything is read. The tables followed are a
pool shared fairly between client addresses (services.lobby.limits.FairShare): an address that
watches many distinct tables may start following another only while the pool has room for its
share, and one that watches none always may while any room is left, so a few dozen addresses
cannot shut the others out.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import partial

import grpc  # type: ignore[import-untyped]
import nats.errors
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, DeliverPolicy

from match_bus import subjects
from match_bus.jetstream import TableLog, pushes_live
from services.fairshare import FairShare
from services.lobby import metrics
from services.lobby.errors import RETRY_AFTER_KEY, ApiError
from services.lobby.limits import Counts, WatchLimits
from services.lobby.viewer import SharedFold

log = structlog.get_logger()

# How long a feed may hear nothing before it asks the log whether it missed a record (one
# direct get): a push lost with nothing pushed after it is found this way.
STALL_CHECK_S = 5.0
CATCH_UP_S = 10.0  # the copy must deliver the next record of a catch-up within this
GIVE_UP_S = 30.0  # a table that cannot be followed for this long fails the feed's watchers
# A copy of the log made before it pushed (see Watches.copy_pushes) holds a consumer per table
# followed, and takes 1,000 for every lobby replica together: until it pushes, a replica follows
# at most this many tables, whatever its cap says (two replicas and their listings fit).
OLD_COPY_TABLES = 400
# The headers nats-server puts on a pushed record (RePublish).
STREAM_HEADER = "Nats-Stream"
SEQUENCE_HEADER = "Nats-Sequence"
PREVIOUS_HEADER = "Nats-Last-Sequence"  # the table's record before it (0: none)


class TableFeed:
    """One table's records, in stream order from its first: pushed live, caught up from the
    lobby's copy of the log whenever a push is missing."""

    def __init__(
        self,
        nc: Client,
        js: JetStreamContext,
        table_id: str,
        pushes: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.table_id = table_id
        self.records: list[tuple[int, bytes]] = []  # (stream sequence, TableRecord bytes)
        self.fold = SharedFold()  # what its viewers' folds share (services.lobby.viewer)
        self.watchers = 0
        self.failure: str | None = None
        self.linger: asyncio.TimerHandle | None = None
        self._js = js
        self._nc = nc
        # Whether the lobby's copy pushes its records (None: ask it each time a feed starts).
        self._pushes = pushes if pushes is not None else partial(pushes_live, js)
        self._grown = asyncio.Event()
        self._failing_since: float | None = None  # loop time of the first error in a row
        self._task = asyncio.create_task(self._follow(), name=f"feed-{table_id}")

    async def record(self, index: int, timeout_s: float) -> tuple[int, bytes]:
        """The table's record number ``index`` (0: its first), waiting up to ``timeout_s`` for
        it (TimeoutError); FeedFailed if the feed broke."""
        while index >= len(self.records):
            if self.failure is not None:
                raise FeedFailed(self.failure)
            grown = self._grown
            async with asyncio.timeout(timeout_s):  # a timer, not a task per record and viewer
                await grown.wait()
        return self.records[index]

    @property
    def kept(self) -> int:
        """The stream sequence of the last record kept (0: none yet)."""
        return self.records[-1][0] if self.records else 0

    def _keep(self, sequence: int, data: bytes) -> None:
        self.records.append((sequence, data))
        self._grown.set()
        self._grown = asyncio.Event()

    async def _follow(self) -> None:
        """Follow the table for as long as anybody watches it: catch up from the copy, then take
        the pushes while each continues the last record kept; catch up again when one does not.
        A copy that does not push (made before the push) is followed with the consumer kept
        open instead. Only a table that cannot be followed for GIVE_UP_S fails the feed."""
        loop = asyncio.get_running_loop()
        live: _Pushes | None = None
        reason = "start"
        try:
            while True:
                try:
                    if not await self._pushes():
                        await self._read_copy(reason, forever=True)
                    if live is None:  # first, so that nothing stored meanwhile falls between
                        live = await _Pushes.subscribe(self._nc, subjects.live(self.table_id))
                    await self._read_copy(reason)
                    self._failing_since = None
                    while True:
                        msg = await live.next(STALL_CHECK_S)
                        if msg is None:
                            reason = "quiet"  # read the copy if the log grew meanwhile
                            break
                        if not self._take(msg):
                            reason = "gap"
                            break
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    if self._failing_since is None:
                        self._failing_since = loop.time()
                    if loop.time() - self._failing_since > GIVE_UP_S:  # tell the watchers
                        log.warning(
                            "cannot follow a table", table_id=self.table_id, error=repr(error)
                        )
                        self.failure = repr(error)
                        self._grown.set()
                        return
                    log.info("following a table again", table_id=self.table_id, error=repr(error))
                    if live is not None:
                        await _unsubscribe(live.sub)
                        live = None
                    reason = "error"
                    await asyncio.sleep(0.5)
        finally:
            if live is not None:
                await _unsubscribe(live.sub)

    def _take(self, msg: Msg) -> bool:
        """Keep a pushed record if it continues the last one kept; False if one is missing in
        between (catch up from the copy). A push the feed has already is skipped."""
        headers = msg.headers or {}
        try:
            sequence = int(headers[SEQUENCE_HEADER])
            previous = int(headers[PREVIOUS_HEADER])
        except (KeyError, ValueError):
            return False  # not a push as the copy makes them: read the copy instead
        if headers.get(STREAM_HEADER) != subjects.LOBBY_EVENTS:
            return False
        if sequence <= self.kept:
            return True  # read from the copy while catching up
        if previous != self.kept:
            return False
        self._keep(sequence, msg.data)
        return True

    async def _behind(self) -> bool:
        """Whether the log holds a record of the table after the last one kept."""
        last = await TableLog(self._js).last(self.table_id)
        return last is not None and last[0] > self.kept

    async def _read_copy(self, reason: str, forever: bool = False) -> None:
        """Read the table's records after the last one kept from the lobby's copy, up to the
        log's last record of the table now (nothing, and nothing counted, if the feed has it),
        with an ordered consumer deleted once done. With
        ``forever`` (a copy that does not push) the consumer stays open, and the read ends only
        by an error or by Stalled: the consumer quiet while the log holds a record it did not
        deliver (an ordered consumer can go quiet after a NATS restart)."""
        last = await TableLog(self._js).last(self.table_id)
        if not forever and (last is None or last[0] <= self.kept):
            return
        metrics.FEED_CATCH_UPS.labels(reason).inc()
        if self.records:
            config = ConsumerConfig(
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=self.kept + 1
            )
        else:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        sub = await self._js.subscribe(
            subjects.events(self.table_id),
            stream=subjects.LOBBY_EVENTS,  # the lobby's own copy of the log (same sequences)
            ordered_consumer=True,
            config=config,
        )
        if forever:
            self._failing_since = None  # the copy answers: only errors in a row give up
        try:
            while forever or last is None or self.kept < last[0]:
                try:
                    msg = await sub.next_msg(timeout=STALL_CHECK_S if forever else CATCH_UP_S)
                except nats.errors.TimeoutError:
                    if not forever:
                        raise
                    if await self._behind():
                        raise Stalled(f"the log has a record after {self.kept}") from None
                    continue
                sequence = msg.metadata.sequence.stream
                if sequence > self.kept:
                    self._keep(sequence, msg.data)
        finally:
            await _end(self._js, sub)

    async def close(self) -> None:
        if self.linger is not None:
            self.linger.cancel()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class _Pushes:
    """A table's pushed records, in the order they came, taken by its feed without a task each:
    nats-py's ``next_msg`` makes a task, a ``uuid4`` and a ``wait_for`` for every message (14 us
    against under 1 for its callback; docs/performance.md, "The log's readers without a task per
    record"). Records pushed while the feed catches up wait here, as they would in the
    subscription's queue."""

    sub: Subscription  # set by subscribe, the only way one is made

    def __init__(self) -> None:
        self._waiting: collections.deque[Msg] = collections.deque()
        self._arrived = asyncio.Event()

    @classmethod
    async def subscribe(cls, nc: Client, subject: str) -> _Pushes:
        pushes = cls()
        pushes.sub = await nc.subscribe(subject, cb=pushes._push)
        return pushes

    async def _push(self, msg: Msg) -> None:
        self._waiting.append(msg)
        self._arrived.set()

    async def next(self, timeout_s: float) -> Msg | None:
        """The next pushed record, or None if none came within ``timeout_s``."""
        while not self._waiting:
            self._arrived.clear()
            try:
                async with asyncio.timeout(timeout_s):
                    await self._arrived.wait()
            except TimeoutError:
                return None
        return self._waiting.popleft()


class FeedFailed(Exception):
    """The table could not be followed: its watchers end, a new Watch retries."""


class Stalled(Exception):
    """The copy's consumer went quiet while the log grew: follow the table again."""


async def _unsubscribe(sub: Subscription) -> None:
    with contextlib.suppress(Exception):
        await sub.unsubscribe()


async def _end(js: JetStreamContext, sub: JetStreamContext.PushSubscription) -> None:
    """Unsubscribe, then delete the consumer at once (else the server keeps an ephemeral one a
    few seconds after its last interest)."""
    await _unsubscribe(sub)
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

    def __init__(self, nc: Client, js: JetStreamContext, limits: WatchLimits) -> None:
        self._nc = nc
        self._js = js
        self.limits = limits
        self._players = Counts(limits.per_player)
        self._addresses = Counts(limits.per_address)
        self._lobby = Counts(limits.per_lobby)
        self._fair = FairShare(limits.tables, limits.tables_per_address)
        # client address -> table id -> its streams of that table now
        self._watched_by: dict[str, dict[str, int]] = {}
        self.feeds: dict[str, TableFeed] = {}
        self._pushing = False  # the lobby's copy of the log pushes its records (once known)
        self._told = False

    @property
    def tables_cap(self) -> int:
        """The tables this replica may follow at once (0: no cap): its limit, and at most
        OLD_COPY_TABLES until its copy of the log is known to push."""
        if self._pushing:
            return self.limits.tables
        return min(self.limits.tables or OLD_COPY_TABLES, OLD_COPY_TABLES)

    async def copy_pushes(self) -> bool:
        """Whether the lobby's copy of the log pushes its records; asked again until it does
        (an operator may add the push to a copy made before it while the lobby runs)."""
        if not self._pushing:
            try:
                self._pushing = await pushes_live(self._js)
            except Exception as error:  # not made yet, or NATS away: ask again next time
                log.info("cannot tell whether the copy of the log pushes", error=repr(error))
                return False
            if not self._pushing and not self._told:
                self._told = True
                log.warning(
                    "the lobby's copy of the log was made before it pushed its records: each "
                    "watched table holds a consumer on it, 1,000 at most for all the lobbies; "
                    "add the push with `python -m match_bus.upgrade live-push` as the admin "
                    'identity (docs/operations.md, "Upgrading")',
                    stream=subjects.LOBBY_EVENTS,
                )
        return self._pushing

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
            cap = self.tables_cap
            if cap and len(self.feeds) >= cap:
                idle = next((f for f in self.feeds.values() if f.watchers == 0), None)
                if idle is None:
                    metrics.LIMITED.labels("watch_tables").inc()
                    what = f"for distinct tables on this lobby ({cap} at most)"
                    raise exhausted(what, self.limits)
                self._drop(idle)  # a lingering feed makes room
            feed = self.feeds[table_id] = TableFeed(self._nc, self._js, table_id, self.copy_pushes)
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
        cap = self.tables_cap
        if cap and used >= cap:
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
        """Forget ``feed``; it stops following the table now unless a watcher still reads it."""
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
