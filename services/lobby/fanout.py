"""Watch fan-out: one feed per watched table in this lobby, whatever its watchers.

A :class:`TableFeed` keeps one table's records from its first (a table's log is a game: a few
hundred records); every Watch of that table in this lobby reads the feed from its first record
at its own pace, and folds and redacts it for its own viewer (services.lobby.watch). Nothing per
viewer is shared: a feed holds the log's bytes, never a view. A feed goes away ``linger_s`` after
its last watcher left (a watcher that resumes meanwhile finds it still there).

How a feed follows its table: the lobby's copy of the log pushes every message it stores on core
NATS (the stream's RePublish: match_bus.jetstream), with its stream sequence and the sequence of
the message before it on the same subject in headers: a record published alone on
``match.live.p<NN>.<table>``, a partition's frame (several tables' records in one message,
match_bus.records) on ``match.live.p<NN>.frame``. The feed subscribes to its table's pushes, and
to its partition's frames through one subscription per partition that this lobby's feeds share
(:class:`FramePushes`, which hands each feed its table's entries only), then reads what the copy
already holds with an ordered consumer that it deletes once caught up, then takes each pushed
record that continues the one it kept last: on its table's subject by the sequence before it, in
a frame by its record number. One that does not (one was lost: a slow subscription, a
reconnection) sends it back to the copy to catch up from where it is, and so does a table quiet
for STALL_CHECK_S while the log holds a message the feed has not got. So a followed table costs
nats-server a subscription, not a consumer: the copy's consumers are taken only while feeds
catch up, and the tables a lobby can follow are bounded by its caps and its memory, not by the
copy's consumer limit.

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
from typing import TypeVar

import grpc  # type: ignore[import-untyped]
import nats.errors
import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, DeliverPolicy

from match_bus import subjects
from match_bus.jetstream import pushes_live, read_table_reach, stored_records, table_end
from match_bus.records import StoredRecord, numbers_of, unpack
from services.fairshare import FairShare
from services.lobby import metrics
from services.lobby.errors import RETRY_AFTER_KEY, ApiError
from services.lobby.limits import Counts, WatchLimits
from services.lobby.viewer import SharedFold

log = structlog.get_logger()
T = TypeVar("T")

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


class Signal:
    """Wakes every task waiting on it at once; a wait may end after a timeout instead. An
    ``asyncio.Event`` with ``asyncio.timeout`` around each wait did the same, but the timeout's
    context costs ~3.5 us a wait on top of the wait's own ~4 (a bare timer costs ~0.5, uvloop, a
    micro-benchmark), and a feed's viewers wait once per record each, its pushes once per push."""

    __slots__ = ("_waiters",)

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[bool]] = []

    def fire(self) -> None:
        """Wake every task waiting now (one that waits afterwards waits for the next)."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(True)

    async def wait(self, timeout_s: float) -> bool:
        """True once fired, False if ``timeout_s`` passed first."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiters.append(waiter)
        timer = loop.call_later(timeout_s, settle, waiter, False)
        try:
            return await waiter
        finally:
            timer.cancel()
            if waiter.cancelled() or not waiter.result():  # not fired: leave no waiter behind
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)

    @property
    def waiters(self) -> int:
        return len(self._waiters)


def settle(waiter: asyncio.Future[T], value: T) -> None:
    """Give ``waiter`` ``value`` unless it has its result already (a bare timer's callback: the
    wait ended another way first, or was cancelled)."""
    if not waiter.done():
        waiter.set_result(value)


class TableFeed:
    """One table's records, in stream order from its first: pushed live, caught up from the
    lobby's copy of the log whenever a push is missing."""

    def __init__(
        self,
        nc: Client,
        js: JetStreamContext,
        table_id: str,
        pushes: Callable[[], Awaitable[bool]] | None = None,
        frames: FramePushes | None = None,
    ) -> None:
        self.table_id = table_id
        self.records: list[StoredRecord] = []  # its records, as the log holds them
        self.fold = SharedFold()  # what its viewers' folds share (services.lobby.viewer)
        self.watchers = 0
        self.failure: str | None = None
        self.linger: asyncio.TimerHandle | None = None
        self._js = js
        self._nc = nc
        # Whether the lobby's copy pushes its records (None: ask it each time a feed starts).
        self._pushes = pushes if pushes is not None else partial(pushes_live, js)
        # The partition's frames, shared with the lobby's other feeds of it (Watches' own);
        # a feed made on its own follows them alone.
        self._frames = frames if frames is not None else FramePushes(nc, table_id)
        self._through = 0  # every record of the table up to this stream sequence is held
        self._own_last = 0  # the sequence of the last one kept from the table's own subject
        self._live: _Pushes | None = None  # taking pushes (caught up), once following
        self._grown = Signal()  # fired when a record is kept, the feed caught up or failed
        self._failing_since: float | None = None  # loop time of the first error in a row
        self._task = asyncio.create_task(self._follow(), name=f"feed-{table_id}")

    async def record(self, index: int, timeout_s: float) -> StoredRecord:
        """The table's record number ``index`` (0: its first), waiting up to ``timeout_s`` for
        it (TimeoutError); FeedFailed if the feed broke."""
        while index >= len(self.records):
            await self._wait(timeout_s)
        return self.records[index]

    async def record_through(
        self, index: int, through: int, timeout_s: float
    ) -> StoredRecord | None:
        """The table's record number ``index``, or None once the feed holds every record up to
        stream sequence ``through`` and ``index`` is past them: a viewer's backlog. Waits up to
        ``timeout_s`` for either (TimeoutError); FeedFailed if the feed broke."""
        while index >= len(self.records):
            if self.through >= through:
                return None
            self._frames.waiting.add(self)  # woken by a frame, even one without its records
            try:
                await self._wait(timeout_s)
            finally:
                self._frames.waiting.discard(self)
        return self.records[index]

    async def _wait(self, timeout_s: float) -> None:
        if self.failure is not None:
            raise FeedFailed(self.failure)
        if not await self._grown.wait(timeout_s):  # a timer, not a task per record and viewer
            raise TimeoutError

    @property
    def through(self) -> int:
        """The stream sequence up to which the feed holds every record of its table: where it
        caught up to, or the last push it took; while it takes pushes and has none waiting, the
        last frame its partition pushed too (frames come in the order they were stored, each
        after the table's records before it)."""
        live = self._live
        if live is not None and not live.waiting():
            return max(self._through, self._frames.seen)
        return self._through

    def _keep(self, record: StoredRecord) -> None:
        self.records.append(record)
        if not record.framed:
            self._own_last = record.sequence
        self._wake()

    def _wake(self) -> None:
        self._grown.fire()

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
                        await self._frames.join(self, live)
                    self._live = None
                    await self._read_copy(reason)
                    self._failing_since = None
                    self._live = live
                    self._wake()  # caught up: a viewer waiting for where it got to may go on
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
                    self._live = None
                    if self._failing_since is None:
                        self._failing_since = loop.time()
                    if loop.time() - self._failing_since > GIVE_UP_S:  # tell the watchers
                        log.warning(
                            "cannot follow a table", table_id=self.table_id, error=repr(error)
                        )
                        self.failure = repr(error)
                        self._grown.fire()
                        return
                    log.info("following a table again", table_id=self.table_id, error=repr(error))
                    if live is not None:
                        await self._frames.leave(self)
                        await _unsubscribe(live.sub)
                        live = None
                    reason = "error"
                    await asyncio.sleep(0.5)
        finally:
            self._live = None
            if live is not None:
                await self._frames.leave(self)
                await _unsubscribe(live.sub)

    def _take(self, msg: Msg | _Framed | _Missed) -> bool:
        """Keep a pushed record if it continues the last one kept; False if one is missing in
        between (catch up from the copy). A push the feed has already is skipped."""
        if isinstance(msg, _Framed):
            return self._take_framed(msg)
        if isinstance(msg, _Missed):
            return self._through >= msg.upto  # frames up to it may not have come
        headers = msg.headers or {}
        try:
            sequence = int(headers[SEQUENCE_HEADER])
            previous = int(headers[PREVIOUS_HEADER])
        except (KeyError, ValueError):
            return False  # not a push as the copy makes them: read the copy instead
        if headers.get(STREAM_HEADER) != subjects.LOBBY_EVENTS:
            return False
        if sequence <= self._through:
            return True  # read from the copy while catching up
        if previous != self._own_last:
            return False
        self._keep(StoredRecord(sequence, msg.data, subjects.events(self.table_id), 0, headers))
        self._through = sequence
        return True

    def _take_framed(self, framed: _Framed) -> bool:
        """Keep the table's records of a pushed frame if the first continues the table's
        numbering (its record number the next one); False if one is missing in between."""
        if framed.sequence <= self._through:
            return True  # read from the copy while catching up
        for record in framed.records:
            numbers = numbers_of(record.headers)
            if numbers is None:
                return False  # no record number to tell: read the copy instead
            if numbers[0] <= len(self.records):
                continue  # held already
            if numbers[0] != len(self.records) + 1:
                return False
            self._keep(record)
        self._through = framed.sequence
        return True

    async def _read_copy(self, reason: str, forever: bool = False) -> None:
        """Read the table's records after those held from the lobby's copy, up to the log's
        end of the table now (its own subject's last record, or its partition's last frame;
        nothing, and nothing counted, if the feed has it), with an ordered consumer deleted once
        done. With ``forever`` (a copy that does not push) the consumer stays open, and the read
        ends only by an error or by Stalled: the consumer quiet while the log holds a record it
        did not deliver (an ordered consumer can go quiet after a NATS restart)."""
        if forever:
            await self._follow_copy()
            return
        end = await table_end(self._js, self.table_id)
        through = self.through
        if end <= through:
            return
        metrics.FEED_CATCH_UPS.labels(reason).inc()
        after = (through, _PAST) if through else None
        read, reach = await read_table_reach(
            self._js,
            self.table_id,
            subjects.LOBBY_EVENTS,  # the lobby's own copy of the log (same sequences)
            after=after,
            until=end,
        )
        for record in read:
            self._keep(record)
        # A copy behind the log ends the read where it was: the rest comes pushed.
        self._through = max(self._through, reach)
        self._wake()

    async def _behind(self) -> bool:
        """Whether the log holds a message with a record of the table after those held."""
        return await table_end(self._js, self.table_id) > self.through

    async def _follow_copy(self) -> None:
        """Follow the table on the copy with a consumer kept open (its own subject and its
        partition's frames), until an error or Stalled."""
        partition = subjects.partition_of(self.table_id)
        metrics.FEED_CATCH_UPS.labels("start").inc()
        if self._through:
            config = ConsumerConfig(
                deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=self._through + 1
            )
        else:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        config.filter_subjects = [subjects.events(self.table_id), subjects.frames(partition)]
        sub = await self._js.subscribe(
            subjects.events(self.table_id),
            stream=subjects.LOBBY_EVENTS,  # the lobby's own copy of the log (same sequences)
            ordered_consumer=True,
            config=config,
        )
        self._failing_since = None  # the copy answers: only errors in a row give up
        try:
            while True:
                try:
                    msg = await sub.next_msg(timeout=STALL_CHECK_S)
                except nats.errors.TimeoutError:
                    if await self._behind():
                        raise Stalled(f"the log has a record after {self.through}") from None
                    continue
                sequence = msg.metadata.sequence.stream
                if sequence <= self._through:
                    continue
                for table_id, record in stored_records(msg, sequence):
                    if table_id == self.table_id:
                        self._keep(record)
                self._through = sequence
                self._wake()
        finally:
            await _end(self._js, sub)

    async def close(self) -> None:
        if self.linger is not None:
            self.linger.cancel()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


# Past every entry of a frame: (sequence, _PAST) is a place after all of that message's records.
_PAST = 1 << 30


class _Framed:
    """A table's records of one pushed frame, as :class:`FramePushes` hands them to its feed."""

    __slots__ = ("records", "sequence")

    def __init__(self, sequence: int, records: list[StoredRecord]) -> None:
        self.sequence = sequence
        self.records = records


class _Missed:
    """Frames of the partition up to stream sequence ``upto`` may not have been pushed here (a
    push lost, or the first one since subscribing): a feed that does not hold its table up to
    there reads the copy."""

    __slots__ = ("upto",)

    def __init__(self, upto: int) -> None:
        self.upto = upto


class FramePushes:
    """A partition's pushed frames (``match.live.p<NN>.frame``) for this lobby's feeds of it:
    one subscription whoever watches, each frame unpacked once, and each feed handed its own
    table's records, in the order the pushes came (a feed's own pushes and its frames wait in one
    queue). ``seen`` is the last frame pushed: a feed with nothing waiting holds its table's
    records up to it. Each push names the partition's frame before it; one that is not the last
    seen here (a push lost) tells every feed, which reads the copy unless it holds its table up
    to there."""

    def __init__(self, nc: Client, table_id: str) -> None:
        self._nc = nc
        self.partition = subjects.partition_of(table_id)
        self.feeds: dict[str, tuple[TableFeed, _Pushes]] = {}
        self.waiting: set[TableFeed] = set()  # feeds a viewer waits on for where they got to
        self.seen = 0
        self._sub: Subscription | None = None
        self._lock = asyncio.Lock()

    async def join(self, feed: TableFeed, queue: _Pushes) -> None:
        """Hand ``feed`` its table's records of every frame pushed from now on, into ``queue``."""
        async with self._lock:
            self.feeds[feed.table_id] = (feed, queue)
            if self._sub is None:
                subject = subjects.live_frames(self.partition)
                self._sub = await self._nc.subscribe(subject, cb=self._on_frame)

    async def leave(self, feed: TableFeed) -> None:
        async with self._lock:
            if self.feeds.get(feed.table_id, (None,))[0] is feed:
                del self.feeds[feed.table_id]
            self.waiting.discard(feed)
            if not self.feeds and self._sub is not None:
                sub, self._sub = self._sub, None
                await _unsubscribe(sub)

    async def _on_frame(self, msg: Msg) -> None:
        headers = msg.headers or {}
        if headers.get(STREAM_HEADER) != subjects.LOBBY_EVENTS:
            return
        try:
            sequence = int(headers[SEQUENCE_HEADER])
            previous = int(headers[PREVIOUS_HEADER])  # the partition's frame before it
        except (KeyError, ValueError):
            return
        if sequence <= self.seen:
            return
        if previous != self.seen:  # one lost in between, or the first since subscribing
            for _, queue in self.feeds.values():
                queue.put(_Missed(previous))
        subject = subjects.frames(self.partition)
        mine: dict[str, list[StoredRecord]] = {}
        for record in unpack(subject, msg.data):
            if record.table_id in self.feeds:
                mine.setdefault(record.table_id, []).append(
                    StoredRecord(sequence, record.data, subject, record.index, record.headers)
                )
        for table_id, records in mine.items():
            self.feeds[table_id][1].put(_Framed(sequence, records))
        self.seen = sequence
        for feed in list(self.waiting):
            feed._wake()


class _Pushes:
    """A table's pushed records, in the order they came, taken by its feed without a task each:
    nats-py's ``next_msg`` makes a task, a ``uuid4`` and a ``wait_for`` for every message (14 us
    against under 1 for its callback; docs/performance.md, "The log's readers without a task per
    record"). Records pushed while the feed catches up wait here, as they would in the
    subscription's queue."""

    sub: Subscription  # set by subscribe, the only way one is made

    def __init__(self) -> None:
        self._waiting: collections.deque[Msg | _Framed | _Missed] = collections.deque()
        self._arrived = Signal()

    @classmethod
    async def subscribe(cls, nc: Client, subject: str) -> _Pushes:
        pushes = cls()
        pushes.sub = await nc.subscribe(subject, cb=pushes._push)
        return pushes

    async def _push(self, msg: Msg) -> None:
        self.put(msg)

    def put(self, item: Msg | _Framed | _Missed) -> None:
        self._waiting.append(item)
        self._arrived.fire()

    def waiting(self) -> bool:
        """Whether pushes came that the feed has not taken yet."""
        return bool(self._waiting)

    async def next(self, timeout_s: float) -> Msg | _Framed | _Missed | None:
        """The next push (a record, or a frame's records of the table), or None if none came
        within ``timeout_s``."""
        while not self._waiting:
            if not await self._arrived.wait(timeout_s):
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
        self._frames: dict[int, FramePushes] = {}  # the partitions' frames its feeds follow
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
            partition = subjects.partition_of(table_id)
            frames = self._frames.get(partition)
            if frames is None:
                frames = self._frames[partition] = FramePushes(self._nc, table_id)
            feed = self.feeds[table_id] = TableFeed(
                self._nc, self._js, table_id, self.copy_pushes, frames
            )
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
