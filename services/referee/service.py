"""The referee service: stamps every command on arrival, decides, appends (fenced), replies.

A handler reads like the pattern: load -> decide -> append with the expected sequence ->
evolve -> reply. Each table has a lock (its commands are judged one at a time, in arrival order)
and at most one timer, armed from ``next_deadline``.

Replicas share the tables by partition (services/referee/leases.py): a replica answers
``match.referee.pNN.>`` only while it holds partition NN's lease, and rebuilds that partition's
tables from the stream before it does. A request that repeats a request id the table already
answered gets that first answer again and changes nothing.

A table whose log holds a record that does not decode or does not continue its numbering
(match_bus.records) is quarantined: never loaded, every command for it refused with
``table_quarantined``, until an operator removes the record; every other table goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
from google.protobuf.message import DecodeError, Message
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import Error as NatsError
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js.kv import KeyValue
from prometheus_client import Counter, Gauge, Histogram

from match.v1 import common_pb2, dealer_pb2, referee_pb2
from match_bus import subjects
from match_bus.clock import Clock
from match_bus.jetstream import SequenceConflict, TableLog, ensure_stream, open_bucket
from match_bus.records import BadRecord, StoredRecord, begins_table, fact_headers
from match_bus.service import answerable, given_up, received
from match_bus.service import reply as respond
from match_rules import registry
from match_rules.errors import Category, RuleError
from match_rules.game import Game
from services.referee.config import RefereeConfig
from services.referee.frames import FrameWriter, last_frame
from services.referee.leases import Leases, lease_bucket
from services.referee.marks import Marks, NotHolding
from services.referee.table import (
    EXPIRED as EXPIRED_CODE,
)
from services.referee.table import (
    Quarantined,
    Seat,
    Table,
    TableRefusal,
    accepted_reply,
    at_of,
    bot_strength,
    check_create,
    check_join,
    check_leave,
    check_presence,
    check_start,
    cpu_seats,
    kind_of,
    load,
    number_events,
    redacted_for,
    redacted_steps,
    refusal,
    table_facts,
)

log = structlog.get_logger()

# A table's timer set for the same deadline within this of the instant worked out again now is
# kept: game time is whole milliseconds, so the same instant comes out up to 1 ms apart.
TIMER_SLACK_S = 0.002
COMMANDS = Counter("match_referee_commands_total", "Commands judged", ["kind", "outcome"])
APPEND_SECONDS = Histogram("match_referee_append_seconds", "JetStream append with ack")
TIMER_LATE_MS = Histogram(
    "match_referee_timer_late_ms",
    "How late a timer fired (referee clock ms)",
    buckets=(1, 2, 5, 10, 25, 50, 100, 250, 1000, 5000),
)
LIVE_TABLES = Gauge(
    "match_referee_live_tables",
    "Tables whose game is not over, in memory (a game left idle is put away)",
)
PUT_AWAY = Counter(
    "match_referee_idle_games_put_away_total",
    "Games left idle (no deadline, untouched for REFEREE_MARK_IDLE_S) taken out of memory",
)
RETRIES = Counter("match_referee_retries_total", "Requests answered again from memory", ["kind"])
REBUILD_SECONDS = Histogram("match_referee_rebuild_seconds", "Taking on partitions from the log")
REBUILD_RECORDS = Counter(
    "match_referee_rebuild_records_total",
    "Records read from the log to take partitions on (from each partition's mark)",
)
QUARANTINED = Gauge(
    "match_referee_quarantined_tables",
    "Tables of this replica's partitions refused: their log holds a record it cannot use",
)
EXPIRED = Counter(
    "match_referee_tables_expired_total",
    "Tables closed because their game did not start before their expiry",
)
LATE_REFUSALS = Counter(
    "match_referee_late_refusals_total",
    "Commands refused after their game was over: answered, not appended",
)
STRAY = Counter(
    "match_referee_stray_records_total",
    "Records on a subject under match.events.> that names no table, skipped",
)


# Taking partitions on folds their tables one after another: it lets the loop run every so many,
# or a long history (hundreds of thousands of records) held it for seconds and the leases'
# renewals came too late, and the replica let go of the partitions it was taking on.
YIELD_EVERY_TABLES = 64


# How long a game loaded at a takeover is active at least, however old its latest event: the
# previous holder's last append may not have been read yet (REFEREE_MARK_IDLE_S if shorter).
TAKEOVER_GRACE_S = 60.0

# How many times a table whose first append's outcome is unknown is looked for on the log
# (waits of 0.5, 1, 2, 4, 8, then 16 s): a minute and a half of the log not answering.
SETTLE_TRIES = 10


class Unavailable(Exception):
    """A dependency (the dealer, JetStream) did not answer: nothing changed."""


class Referee:
    def __init__(self, nc: Client, config: RefereeConfig, clock: Clock) -> None:
        self._nc = nc
        self._js = nc.jetstream()
        self._log = TableLog(self._js)
        self._config = config
        self._clock = clock
        self.tables: dict[str, Table] = {}
        # table -> the record that quarantines it (its partition held here; see _quarantine),
        # and the stream sequence of the table's first record: a quarantined table holds its
        # partition's mark (a taking-over replica reads it whole and quarantines it again)
        self.quarantined: dict[str, tuple[BadRecord, int]] = {}
        # (table or subject, stream sequence, entry in its frame) already logged
        self._reported: set[tuple[str, int, int]] = set()
        self._locks: dict[str, asyncio.Lock] = {}
        self._timers: dict[str, _Timer] = {}  # each table's armed timer
        self._tasks: set[asyncio.Task[Any]] = set()
        self._subs: dict[int, Subscription] = {}
        self._frames: dict[int, FrameWriter] = {}  # each partition's group commit, held here
        self._writer = config.base.replica_id
        self.leases: Leases | None = None
        self.marks: Marks | None = None

    # --- start and stop ---------------------------------------------------------------------

    async def start(self) -> None:
        """Create the stream and the lease bucket, take a share of the partitions (rebuilding
        their tables), then keep the leases in the background."""
        replicas = self._config.base.stream_replicas
        for attempt in range(60):  # a new cluster may not have elected the leaders yet
            try:
                await ensure_stream(self._js, replicas)
                ttl = self._config.lease_ttl_s
                # Lease calls time out well within a term: a slow answer must not outlast it.
                leases_js = self._nc.jetstream(timeout=max(ttl / 3, 0.2))
                kv = await lease_bucket(leases_js, ttl, replicas)
                kept = (await kv.status()).ttl  # an existing bucket keeps its own term
                if kept and abs(kept - ttl) > 1e-3:
                    log.warning("the lease bucket's term wins", configured=ttl, bucket=kept)
                    ttl = kept
                self.leases = Leases(kv, self._writer, ttl, self._gain, self._lose, time.monotonic)
                self.marks = Marks(
                    self._marks_bucket,
                    self._log,
                    every_s=self._config.mark_every_s,
                    answering=lambda: list(self._subs),
                    live_starts=self._live_starts,
                    fresh=self.leases.fresh,
                )
                await self.leases.step()
                await self.leases.settled()
                break
            except (TimeoutError, NatsTimeout, NoRespondersError, NatsError) as error:
                log.warning("JetStream not ready; trying again", attempt=attempt, error=repr(error))
                await asyncio.sleep(0.5)
        else:
            raise RuntimeError("JetStream did not answer for 30 s")
        self._spawn(self.leases.run())
        self._spawn(self.marks.run())
        self._spawn(self._put_away_idle())

    async def _marks_bucket(self) -> KeyValue:
        """The partitions' marks. Its calls are never urgent: one that times out reads a
        partition from the log's first record (a takeover) or is left to the next step."""
        return await open_bucket(
            self._nc.jetstream(timeout=2.0),
            subjects.REFEREE_MARKS_BUCKET,
            "Match: where each partition's live tables begin on the table log",
            None,
            self._config.base.stream_replicas,
        )

    async def stop(self) -> None:
        """Hand every partition back at once (a clean stop), so another replica need not wait
        for the leases to run out."""
        for handle in self._timers.values():
            handle.cancel()
        for task in list(self._tasks):
            task.cancel()
        if self.leases is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.leases.release_all(), timeout=5)

    def holds(self, table_id: str) -> bool:
        return subjects.partition_of(table_id) in self._subs

    async def _gain(self, partitions: list[int]) -> None:
        """Rebuild the partitions' tables from the stream, re-arm every deadline, then answer
        (for each partition whose lease is still held once its tables are loaded)."""
        wanted = set(partitions)
        started = time.perf_counter()
        assert self.marks is not None
        marks = await self.marks.read(wanted)
        ordered = sorted(wanted)
        # Read from a mark, a partition may have no frame since. Its fence is then its last
        # frame before the read, which holds no record of a table the read loads (they all
        # begin after it); never one read after, which another writer may have stored.
        before: dict[int, int] = {}
        if self._config.frames and any(marks.values()):
            lasts = await asyncio.gather(*(last_frame(self._js, p) for p in ordered))
            before = {p: last for p, last in zip(ordered, lasts, strict=True) if marks[p]}
        records: list[tuple[str | None, StoredRecord]] = []
        if any(marks.values()):  # each partition from its own mark: one old table holds one back
            for part in await asyncio.gather(
                *(
                    self._log.read_all(subjects.events_of_partition(p), start=marks[p])
                    for p in ordered
                )
            ):
                records.extend(part)
        elif len(wanted) == 1:
            records = await self._log.read_all(subjects.events_of_partition(partitions[0]))
        else:
            records = await self._log.read_all()
        REBUILD_RECORDS.inc(len(records))
        by_table: dict[str, list[StoredRecord]] = {}
        fences: dict[int, int] = {}  # each partition's last frame read: its writer's fence
        for table_id, stored in records:
            framed = subjects.partition_of_frames(stored.subject)
            if framed is not None:
                fences[framed] = max(fences.get(framed, 0), stored.sequence)
            if table_id is None:
                self._stray(stored)
            elif subjects.partition_of(table_id) in wanted:
                by_table.setdefault(table_id, []).append(stored)
        fresh: dict[str, Table] = {}
        bad: list[tuple[BadRecord, int]] = []  # each with its table's first record
        idle_s = self._config.mark_idle_s
        grace = time.monotonic() - idle_s + min(idle_s, TAKEOVER_GRACE_S)
        before_mark = 0
        for n, (table_id, table_records) in enumerate(by_table.items()):
            if n % YIELD_EVERY_TABLES == YIELD_EVERY_TABLES - 1:
                await asyncio.sleep(0)  # the leases' renewals keep their schedule meanwhile
            first = table_records[0]
            marked = marks[subjects.partition_of(table_id)]
            if marked and not begins_table(first.data, first.headers):
                before_mark += 1  # begun before the mark: finished (marks.py)
                continue
            try:
                table = load(table_id, table_records)
            except Quarantined as error:  # that table only: every other one goes on
                bad.append((error.bad, first.sequence))
                continue
            if table is not None:  # a finished game is read again from the log if anyone asks
                # One left idle goes on being so, after a grace for an append of the holder
                # before whose outcome this read may not have seen
                table.active_at = max(self._last_active(table), grace)
                fresh[table_id] = table
        assert self.leases is not None
        kept = {p for p in wanted if self.leases.holding(p)}  # lost meanwhile: not ours
        for record, begins in bad:
            if subjects.partition_of(record.table_id) in kept:
                self._quarantine(record, begins)
        for table_id, table in fresh.items():
            if subjects.partition_of(table_id) not in kept:
                continue
            self.tables[table_id] = table
            if table.started and not table.game_over:
                self._spawn(self._resume(table_id))
            elif table.game_over and not table.seed_revealed:
                self._spawn(self._reveal(table_id))
            elif not table.started:
                self._arm(table)  # its expiry; a deadline already past fires at once
        for partition in sorted(kept):
            if self._config.frames:
                last = fences.get(partition, before.get(partition, 0))
                self._frames[partition] = FrameWriter(
                    self._js, partition, self._writer, self._fenced, last
                )
            self._subs[partition] = await self._nc.subscribe(
                subjects.referee_partition(partition), cb=self._on_message
            )
        self._count_live()
        took = time.perf_counter() - started
        REBUILD_SECONDS.observe(took)
        log.info(
            "partitions taken on",
            seconds=round(took, 3),
            partitions=sorted(wanted),
            tables=len(fresh),
            quarantined=len(bad),
            from_sequence=min(marks.values()),
            records=len(records),
            begun_before_mark=before_mark,
        )

    def _live_starts(self, partition: int) -> list[int]:
        """Where each table of the partition whose game is not finished begins on the log:
        those held in memory, but for a game left idle (below), and those quarantined. The
        partition's mark may not pass them (services/referee/marks.py)."""
        idle_since = time.monotonic() - self._config.mark_idle_s
        starts = [
            table.first_sequence
            for table_id, table in self.tables.items()
            if table.first_sequence
            and not table.finished
            and subjects.partition_of(table_id) == partition
            and not self._left_idle(table, idle_since)
        ]
        starts.extend(
            first
            for table_id, (_, first) in self.quarantined.items()
            if subjects.partition_of(table_id) == partition
        )
        return starts

    async def _put_away_idle(self) -> None:
        """Until cancelled, every REFEREE_MARK_EVERY_S: games left idle leave memory, as a
        finished game does (a command reads one back from the log). A takeover does not load
        them either, so no replica keeps the games its players left for good."""
        while True:
            await asyncio.sleep(self._config.mark_every_s)
            try:
                await self._put_away()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # never the end of the sweeps
                log.warning("games left idle not put away", error=repr(error))

    async def _put_away(self) -> None:
        """One sweep: every game left idle out of memory, the loop let run every
        YIELD_EVERY_TABLES (a takeover that read partitions whole may have loaded thousands
        of games left for good at once), the live-tables gauge counted once at the end."""
        idle_since = time.monotonic() - self._config.mark_idle_s
        idle = [t for t in self.tables.values() if self._left_idle(t, idle_since)]
        put: list[str] = []
        for n, table in enumerate(idle):
            if n % YIELD_EVERY_TABLES == YIELD_EVERY_TABLES - 1:
                await asyncio.sleep(0)  # the leases' renewals keep their schedule meanwhile
            if self.tables.get(table.table_id) is not table or not self._left_idle(
                table, idle_since
            ):
                continue  # woken, reloaded or let go meanwhile
            self._unload(table)
            put.append(table.table_id)
        if put:
            self._count_live()
            PUT_AWAY.inc(len(put))
            log.info("games left idle put away", count=len(put), tables=put[:20])

    def _last_active(self, table: Table) -> float:
        """When a game read from the log was last active, on this process's monotonic clock:
        at its latest event. Read back for a command that changes nothing (a presence report
        of a solo game), a game left idle stays idle; one that changes it is active from its
        append on (_hold_mark)."""
        if not table.started or table.game_over:
            return time.monotonic()
        return time.monotonic() - self._quiet_s(table)

    def _quiet_s(self, table: Table) -> float:
        """Wall seconds since the game's latest event."""
        return self._clock.wall_seconds(self._clock.now_ms() - table.clock)

    def _left_idle(self, table: Table, idle_since: float) -> bool:
        """A game under way that waits for its players and nothing else, untouched since
        ``idle_since`` (no append begun, not taken into memory) and not being judged now: it
        stops holding its partition's mark. Never a table with a deadline (an expiry, a turn's
        time) or one whose seed is still to be revealed. One whose last append's outcome is
        unknown held the mark for the idle time after that append began, as any other."""
        lock = self._locks.get(table.table_id)
        return (
            table.active_at < idle_since
            and table.started
            and not table.game_over
            and (lock is None or not lock.locked())
            and self._due(table) is None
        )

    async def _hold_mark(self, table: Table) -> None:
        """Before an append for ``table``: it holds its partition's mark from now on (for the
        idle time at least), and a mark that passed it is lowered to its first record first,
        so a replica taking the partition on loads it with whatever deadline this append gives
        it. The bucket not answering refuses the command (Unavailable): nothing appended.

        Only a game under way whose latest event is older than half the idle time can have
        been left out of a mark as idle (by this replica or the partition's holder before):
        any holder saw it idle no sooner than that, since its last append began after that
        event. Only such a game is lowered for, so a partition whose mark could not be read
        at its takeover (taken to be past every table) is not refused every command while the
        bucket is down, only a wake of a game left idle."""
        table.active_at = time.monotonic()
        partition = subjects.partition_of(table.table_id)
        first = table.first_sequence
        if (
            self.marks is None
            or not first
            or not table.started
            or table.game_over
            or not self.holds(table.table_id)  # refused after this: moved
            or not self.marks.passes(partition, first)
        ):
            return
        if self._quiet_s(table) < self._config.mark_idle_s / 2:
            return
        try:
            await self.marks.lower(partition, first)
        except NotHolding:
            raise Unavailable(_MOVED) from None
        except (TimeoutError, NatsTimeout, NoRespondersError, NatsError) as error:
            log.warning("could not lower the partition's mark", error=repr(error))
            raise Unavailable("the table log's marks are not answering; try again") from None
        log.info("partition mark lowered for a game left idle", partition=partition, at=first)

    def _stray(self, stored: StoredRecord) -> None:
        """A record that names no table (its subject, or its frame's entry): no table's, so
        skipped; logged once."""
        key = (stored.subject, stored.sequence, stored.index)
        if key in self._reported:
            return
        self._reported.add(key)
        STRAY.inc()
        log.error(
            "skipped a record on a subject that names no table",
            subject=stored.subject,
            sequence=stored.sequence,
            frame_index=stored.index,
        )

    def _quarantine(self, bad: BadRecord, begins: int) -> None:
        """Stop serving the table: out of memory, no timer, every command refused (see
        ``_check_quarantine``); logged once per bad record."""
        table_id = bad.table_id
        if not self.holds(table_id):
            return  # handed over meanwhile: the new holder finds it for itself
        self.quarantined[table_id] = (bad, begins)
        self.tables.pop(table_id, None)
        handle = self._timers.pop(table_id, None)
        if handle is not None:
            handle.cancel()
        QUARANTINED.set(len(self.quarantined))
        self._count_live()
        if (table_id, bad.sequence, bad.index) not in self._reported:
            self._reported.add((table_id, bad.sequence, bad.index))
            log.error(
                "table quarantined: its log holds a record the referee cannot use",
                table_id=table_id,
                sequence=bad.sequence,
                frame_index=bad.index,
                problem=bad.problem,
            )

    async def _check_quarantine(self, table_id: str) -> None:
        """Raise Quarantined while the record that caused it is on the stream. Once an operator
        has removed it (``nats stream rmm``, or a purge of the table's subject) the quarantine
        is lifted and the caller reads the table again."""
        quarantined = self.quarantined.get(table_id)
        if quarantined is None:
            return
        bad = quarantined[0]
        try:
            still = await self._log.holds(bad.sequence)
        except (TimeoutError, NatsTimeout, NoRespondersError, NatsError) as error:
            raise Unavailable("the event store is not answering; try again") from error
        if still:
            raise Quarantined(bad)
        del self.quarantined[table_id]
        QUARANTINED.set(len(self.quarantined))
        log.info(
            "quarantine lifted: the record is gone from the stream",
            table_id=table_id,
            sequence=bad.sequence,
        )

    async def _lose(self, partition: int) -> None:
        """Stop answering for the partition, let commands in flight finish, forget its tables."""
        sub = self._subs.pop(partition, None)
        if sub is not None:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        gone = [t for t in self.tables if subjects.partition_of(t) == partition]
        for table_id in [t for t in self.quarantined if subjects.partition_of(t) == partition]:
            del self.quarantined[table_id]
        QUARANTINED.set(len(self.quarantined))
        for table_id in gone:  # from now on no timer, reveal or handler touches them
            handle = self._timers.pop(table_id, None)
            if handle is not None:
                handle.cancel()
            self.tables.pop(table_id, None)

        async def drained(table_id: str) -> None:
            async with self._lock(table_id):
                pass

        with contextlib.suppress(TimeoutError):  # commands in flight finish (or are fenced)
            async with asyncio.timeout(2):
                await asyncio.gather(*(drained(t) for t in gone))
        for table_id in gone:
            if table_id not in self.tables:
                self._locks.pop(table_id, None)
        frames = self._frames.pop(partition, None)
        if frames is not None:
            await frames.close()
        self._count_live()
        log.info("partition handed over", partition=partition, tables=len(gone))

    async def _resume(self, table_id: str) -> None:
        async with self._lock(table_id):
            table = self.tables.get(table_id)
            if table is None:
                return
            while table.deal is None and self.tables.get(table_id) is table:
                try:
                    await self._load_deal(table)
                except Unavailable:
                    await asyncio.sleep(1)
            self._arm(table)

    # --- NATS ---------------------------------------------------------------------------------

    async def _on_message(self, msg: Msg) -> None:
        stamp = self._clock.now_ms()  # the arrival, before anything else
        if given_up(msg):  # its sender told the player to try again: judging it could double a move
            COMMANDS.labels(_subject_kind(msg.subject), "given_up").inc()
            log.warning("command dropped: it came after its sender gave up", subject=msg.subject)
            return
        if answerable(msg):
            received(msg)  # the task made next keeps it: no answer over a later connection
            self._spawn(self._handle(msg, stamp))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("task failed", exc_info=t.exception())

        task.add_done_callback(done)

    async def _handle(self, msg: Msg, stamp: int) -> None:
        parts = msg.subject.split(".")  # match.referee.pNN.<table or a game's slug>.<table_id>
        table_id = parts[-1]
        kind = parts[3] if len(parts) == 5 else "?"
        reply: bytes
        if kind == "table":
            reply = await self._table(table_id, msg.data, stamp)
        elif kind in registry.slugs():
            reply = await self._game(registry.by_slug(kind), table_id, msg.data, stamp)
        else:
            reply = referee_pb2.TableCommandReply(
                refusal=refusal("unknown_subject", Category.INVALID_ARGUMENT, msg.subject)
            ).SerializeToString()
        await respond(msg, reply)

    def _lock(self, table_id: str) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    # --- a game's commands -----------------------------------------------------------------

    async def _game(self, game: Game, table_id: str, data: bytes, stamp: int) -> bytes:
        """A player's command of ``game`` (the subject's slug), for the table ``table_id``."""

        def refused(code: str, category: Category, message: str) -> bytes:
            COMMANDS.labels(game.slug, code).inc()
            return game.reply_message(refusal=refusal(code, category, message)).SerializeToString()

        try:
            request: Any = game.command_message.FromString(data)
        except DecodeError:
            name = game.command_message.DESCRIPTOR.name
            return refused("malformed_request", Category.INVALID_ARGUMENT, f"not a {name}")
        which = request.WhichOneof("command")
        try:
            sent = game.command(request, stamp)  # one a client may send? (pure)
        except RuleError as error:
            return refused(error.code.slug, error.code.category, error.message)
        if not subjects.valid_table_id(table_id):
            return refused("unknown_table", Category.NOT_FOUND, f"no table {table_id!r}")
        if not self.holds(table_id):
            return refused("unavailable", Category.UNAVAILABLE, _MOVED)
        structlog.contextvars.bind_contextvars(table_id=table_id, player_id=request.player_id)
        async with self._lock(table_id):
            try:
                table = await self._current(table_id)
            except Quarantined as error:
                return refused(error.code, error.category, error.message)
            except Unavailable as error:
                return refused("unavailable", Category.UNAVAILABLE, str(error))
            if table is None:
                if not self.holds(table_id):  # the partition moved while we waited
                    return refused("unavailable", Category.UNAVAILABLE, _MOVED)
                return refused("unknown_table", Category.NOT_FOUND, f"no table {table_id!r}")
            if table.game is not game:
                plays = table.game.slug if table.game is not None else "no game"
                return refused(
                    "wrong_game",
                    Category.INVALID_ARGUMENT,
                    f"table {table_id} plays {plays}, not {game.slug}: send its commands "
                    f"to {subjects.referee_game(plays, table_id)}",
                )
            answered = table.answer(request.player_id, request.request_id)
            if answered is not None:
                RETRIES.labels(game.slug).inc()
                return answered
            now = max(stamp, table.clock)
            try:
                await self._pass_time(table, now)
                command = sent if now == stamp else game.command(request, now)
                if table.expired:
                    return refused(EXPIRED_CODE, Category.FAILED_PRECONDITION, _EXPIRED)
                try:
                    steps = game.decide_steps(table.state, command) if table.started else None
                except RuleError as error:
                    rejection = refusal(error.code.slug, error.code.category, error.message)
                    if table.game_over:
                        # Nothing can change any more: the log of a finished game keeps the
                        # size it had at its end. The refusal is answered, and counted.
                        LATE_REFUSALS.inc()
                    else:
                        await self._append(table, _record(table, request, now, [], rejection))
                    COMMANDS.labels(which, error.code.slug).inc()
                    data = game.reply_message(refusal=rejection).SerializeToString()
                    table.remember(request.player_id, request.request_id, data)
                    return data
                if steps is None:
                    return refused(
                        "game_not_started",
                        Category.FAILED_PRECONDITION,
                        "the game starts when every seat is taken",
                    )
                envelopes = number_events(table, [(at_of(e, now), e) for e, _ in steps])
                seen = redacted_steps(game, envelopes, steps, request.player_id)
                record = _record(table, request, now, envelopes, None)
                await self._append(table, record, steps[-1][1] if steps else None)
            except Unavailable as error:
                return refused("unavailable", Category.UNAVAILABLE, str(error))
            COMMANDS.labels(which, "accepted").inc()
            self._after(table)
            reply = accepted_reply(table, seen, request.player_id, now)
            data = reply.SerializeToString()
            table.remember(request.player_id, request.request_id, data)
            return data

    async def _pass_time(self, table: Table, now: int) -> None:
        """Fire every deadline due by ``now`` as its own record (a Tick), before a command: the
        game's, or a waiting table's expiry."""
        expiry = table.expiry_due(self._config.table_expiry_ms)
        if expiry is not None and expiry <= now:
            await self._expire(table, expiry, now)
            return
        if not table.started or table.game_over:
            return
        await self._ensure_deal(table)
        game = table.game
        assert game is not None
        due = game.next_deadline(table.state)
        if due is None or due > now:
            return  # time alone changes nothing before the next deadline (the conformance suite)
        steps = game.decide_steps(table.state, game.tick(now))
        if steps:
            envelopes = number_events(table, [(at_of(e, now), e) for e, _ in steps])
            tick = referee_pb2.StampedCommand(received_at_ms=now)
            tick.tick.SetInParent()
            record = referee_pb2.TableRecord(
                table_id=table.table_id, first_event_number=table.next_event, command=tick
            )
            record.events.extend(envelopes)
            await self._append(table, record, steps[-1][1])
            self._after(table)

    async def _expire(self, table: Table, due: int, now: int) -> None:
        """Close a table whose game did not start by ``due``: one record, a Tick noticed at
        ``now`` whose TableExpired is stamped with the instant it was due; then forget it (it is
        read back from the log if a command comes for it, and a restart does not load it)."""
        body = common_pb2.TableEvent()
        body.table_expired.SetInParent()
        tick = referee_pb2.StampedCommand(received_at_ms=now)
        tick.tick.SetInParent()
        record = referee_pb2.TableRecord(
            table_id=table.table_id, first_event_number=table.next_event, command=tick
        )
        record.events.extend(number_events(table, [(due, body)]))
        await self._append(table, record)
        EXPIRED.inc()
        log.info("table expired", table_id=table.table_id, due=due, seated=len(table.seated))
        self._retire(table)

    def _retire(self, table: Table) -> None:
        """Forget a closed table now: out of memory, no timer, its lock dropped once free."""
        if self.tables.get(table.table_id) is not table:
            return
        self._unload(table)
        self._count_live()

    def _unload(self, table: Table) -> None:
        """Out of memory (the table held), no timer, its lock dropped once free."""
        del self.tables[table.table_id]
        handle = self._timers.pop(table.table_id, None)
        if handle is not None:
            handle.cancel()
        asyncio.get_running_loop().call_soon(self._drop_lock, table.table_id)

    def _count_live(self) -> None:
        LIVE_TABLES.set(sum(map(_live, self.tables.values())))

    def _drop_lock(self, table_id: str) -> None:
        lock = self._locks.get(table_id)
        if table_id not in self.tables and lock is not None and not lock.locked():
            del self._locks[table_id]

    # --- table commands -----------------------------------------------------------------------

    async def _table(self, table_id: str, data: bytes, stamp: int) -> bytes:
        try:
            request = referee_pb2.TableCommand.FromString(data)
        except DecodeError:
            request = None
        which = request.WhichOneof("command") if request is not None else None
        if request is None or which is None:
            return _table_refused(
                "malformed_request",
                Category.INVALID_ARGUMENT,
                "not a TableCommand with a command set",
            )
        if not subjects.valid_table_id(table_id):
            return _table_refused(
                "invalid_table_id",
                Category.INVALID_ARGUMENT,
                "table ids are 8 to 32 lowercase letters and digits",
            )
        if not request.player_id:
            return _table_refused("malformed_request", Category.INVALID_ARGUMENT, "no player")
        if not self.holds(table_id):
            return _table_refused("unavailable", Category.UNAVAILABLE, _MOVED)
        structlog.contextvars.bind_contextvars(table_id=table_id, player_id=request.player_id)
        async with self._lock(table_id):
            if not self.holds(table_id):  # the partition moved while we waited
                return _table_refused("unavailable", Category.UNAVAILABLE, _MOVED)
            try:
                table = await self._current(table_id)
            except Quarantined as error:
                return _table_refused(error.code, error.category, error.message)
            except Unavailable as error:
                return _table_refused("unavailable", Category.UNAVAILABLE, str(error))
            if which != "create_table" and table is None:
                return _table_refused("unknown_table", Category.NOT_FOUND, f"no table {table_id!r}")
            # A create or join answer becomes a seat token in the lobby, and once the game is
            # over its request id is public (the ledger publishes finished games): from then on
            # such a request is judged again (and refused), never answered from memory.
            if table is not None and not table.game_over:
                answered = table.answer(request.player_id, request.request_id)
                if answered is not None:
                    RETRIES.labels("table").inc()
                    return answered
            now = max(stamp, table.clock) if table is not None else stamp
            try:
                if which == "create_table":
                    return await self._create(table_id, request, now)
                assert table is not None
                await self._pass_time(table, now)  # a table past its expiry closes first
                if which == "join_table":
                    return await self._join(table, request, now)
                if which == "leave_table":
                    seat = check_leave(table, request.player_id)
                    body = common_pb2.TableEvent()
                    body.player_left.seat, body.player_left.player_id = seat.number, seat.player
                    return await self._accept(table, request, now, [(now, body)], seat.number)
                if which == "presence":
                    return await self._presence(table, request, now)
                check_start(table, request.player_id)
                assert table.game is not None
                if table.game.cpu_fills:  # a CPU player in every empty seat, and the game starts
                    cpus = cpu_seats(table)
                    items: list[tuple[int, Any]] = [(now, _seated(s)) for s in cpus]
                    seats = sorted([*table.seated, *cpus], key=lambda s: s.number)
                    items += await self._start(table, seats, now, table.deal_version)
                    return await self._accept(table, request, now, items, 0)
                body = common_pb2.TableEvent()
                body.fill_requested.fill_at_ms = now
                return await self._accept(table, request, now, [(now, body)], 0)
            except TableRefusal as error:
                COMMANDS.labels(which, error.code).inc()
                return referee_pb2.TableCommandReply(refusal=error.to_proto()).SerializeToString()
            except Unavailable as error:
                COMMANDS.labels(which, "unavailable").inc()
                return _table_refused("unavailable", Category.UNAVAILABLE, str(error))

    async def _create(self, table_id: str, request: referee_pb2.TableCommand, now: int) -> bytes:
        create = request.create_table
        game, settings = check_create(self.tables.get(table_id), create)
        commitment = await self._dealer(
            subjects.DEALER_COMMIT,
            dealer_pb2.CommitSeedRequest(
                table_id=table_id, game_id=table_id, game_kind=kind_of(game)
            ),
            dealer_pb2.CommitSeedResponse,
        )
        if commitment.WhichOneof("result") != "commitment":
            raise Unavailable(f"the dealer refused: {commitment.refusal.message}")
        created = common_pb2.TableEvent()
        body = created.table_created
        body.seats, body.visibility, body.creator = (
            create.seats,
            create.visibility,
            request.player_id,
        )
        body.invite_code = create.invite_code
        if create.visibility == common_pb2.VISIBILITY_OPEN:
            body.fill_at_ms = now + self._config.fill_wait_ms
        body.expires_at_ms = now + self._config.table_expiry_ms
        getattr(body, game.slug).CopyFrom(settings)
        committed = common_pb2.TableEvent()
        committed.seed_committed.commitment = commitment.commitment.commitment
        committed.seed_committed.deal_version = commitment.commitment.deal_version
        host = Seat(1, request.player_id, create.display_name, False)
        table = Table(table_id, seats=create.seats, settings=settings)
        table.plays(game)
        items: list[tuple[int, Any]] = [(now, created), (now, committed), (now, _seated(host))]
        if create.seats == 1:  # the host fills the table: deal and start in the same record
            items += await self._start(table, [host], now, committed.seed_committed.deal_version)
        try:
            reply = await self._accept(table, request, now, items, 1)
        except SequenceConflict as error:
            # Taken: maybe by this very request, an earlier try whose answer was lost.
            stored = await self._read_table(table_id)
            if stored is not None and self.holds(table_id):
                self._hold(stored)  # its expiry armed: nothing else may load it (marks.py)
                answered = stored.answer(request.player_id, request.request_id)
                if answered is not None and not stored.game_over:
                    return answered
            raise TableRefusal(
                "table_exists", Category.FAILED_PRECONDITION, "that table id is taken"
            ) from error
        except Unavailable:
            self._spawn(self._settle(table_id))  # the first record may be stored all the same
            raise
        if not self.holds(table_id):
            raise Unavailable(_MOVED)  # appended, but the partition moved: the new holder has it
        self.tables[table_id] = table
        LIVE_TABLES.inc()
        self._arm(table)  # its expiry, or the game's first deadline
        return reply

    async def _settle(self, table_id: str) -> None:
        """A new table's first append whose outcome never came back (the event store did not
        answer in time, or refused a retry): read the table back from the log once the log
        answers, so a table stored all the same is held here, its expiry armed, though its
        creator never asks again. A takeover that reads the partition from its mark may not
        meet it: without this, only a command for it would load it and let it expire."""
        try:
            for attempt in range(SETTLE_TRIES):
                await asyncio.sleep(min(0.5 * 2**attempt, 16.0))
                if table_id in self.tables or not self.holds(table_id):
                    return  # loaded meanwhile (its creator asked again), or not ours any more
                async with self._lock(table_id):
                    try:
                        if await self._current(table_id) is not None:
                            return
                    except Quarantined:
                        return
                    except Exception as error:  # the log still not answering: look again
                        log.info("new table not found yet", table_id=table_id, error=repr(error))
                # Not found: with the log replicated, a record proposed but not yet committed
                # is not read yet, and may still be stored; look again until the tries end.
        finally:
            if table_id not in self.tables:
                asyncio.get_running_loop().call_soon(self._drop_lock, table_id)

    async def _join(self, table: Table, request: referee_pb2.TableCommand, now: int) -> bytes:
        join = request.join_table
        number = check_join(table, request.player_id, join)
        seat = Seat(number, request.player_id, join.display_name, join.is_bot)
        items: list[tuple[int, Any]] = [(now, _seated(seat))]
        if len(table.seated) + 1 < table.seats:
            return await self._accept(table, request, now, items, number)
        # The last seat: deal and start the game in the same record.
        seats = sorted([*table.seated, seat], key=lambda s: s.number)
        items += await self._start(table, seats, now, table.deal_version)
        return await self._accept(table, request, now, items, number)

    async def _start(
        self, table: Table, seats: list[Seat], now: int, deal_version: str
    ) -> list[tuple[int, Any]]:
        """The events that start the game once every seat is taken: the dealer's deal, the
        bots' strength when the bot service plays a seat, then the game's own start. The
        table's state takes the deal."""
        game = table.game
        assert game is not None and table.settings is not None
        deal = await self._fetch_deal(table)
        items: list[tuple[int, Any]] = []
        strength = bot_strength(deal)
        if strength is not None and not game.cpu_fills and any(s.is_bot for s in seats):
            assigned = common_pb2.TableEvent()
            assigned.bots_assigned.strength = strength
            items.append((now, assigned))
        try:
            start = game.start(now, seats, table.settings, deal_version)
            steps = game.decide_steps(game.with_deal(table.state, deal), start)
        except RuleError as error:  # the game cannot start so (nothing appended)
            raise TableRefusal.of(error) from None
        items.extend((at_of(event, now), event) for event, _ in steps)
        table.with_deal(deal)
        return items

    async def _presence(self, table: Table, request: referee_pb2.TableCommand, now: int) -> bytes:
        """The lobby reports a seated player's connection: the game decides what it means
        (nothing, for a game whose ``presence`` is None: answered, nothing appended)."""
        seat = check_presence(table, request.player_id)
        game = table.game
        assert game is not None
        command = game.presence(now, request.player_id, request.presence.present)
        steps: list[tuple[Any, Any]] = []
        if command is not None:
            await self._ensure_deal(table)
            try:
                steps = game.decide_steps(table.state, command)
            except RuleError as error:
                raise TableRefusal.of(error) from None
        reply = referee_pb2.TableCommandReply()
        reply.accepted.seat = seat.number
        if steps:
            envelopes = number_events(table, [(at_of(e, now), e) for e, _ in steps])
            stamped = referee_pb2.StampedCommand(received_at_ms=now)
            stamped.table.CopyFrom(request)
            record = referee_pb2.TableRecord(
                table_id=table.table_id, first_event_number=table.next_event, command=stamped
            )
            record.events.extend(envelopes)
            await self._append(table, record, steps[-1][1])
            self._after(table)
            reply.accepted.events.extend(redacted_steps(game, envelopes, steps, request.player_id))
        COMMANDS.labels("presence", "accepted").inc()
        data = reply.SerializeToString()
        if steps:
            table.remember(request.player_id, request.request_id, data)
        return data

    async def _accept(
        self,
        table: Table,
        request: referee_pb2.TableCommand,
        now: int,
        items: list[tuple[int, Any]],
        seat: int,
    ) -> bytes:
        envelopes = number_events(table, items)
        seen = redacted_for(table, envelopes, request.player_id)
        stamped = referee_pb2.StampedCommand(received_at_ms=now)
        stamped.table.CopyFrom(request)
        record = referee_pb2.TableRecord(
            table_id=table.table_id, first_event_number=table.next_event, command=stamped
        )
        record.events.extend(envelopes)
        await self._append(table, record)
        COMMANDS.labels(request.WhichOneof("command") or "?", "accepted").inc()
        self._after(table)
        reply = referee_pb2.TableCommandReply()
        reply.accepted.seat = seat
        reply.accepted.events.extend(seen)
        data = reply.SerializeToString()
        table.remember(request.player_id, request.request_id, data)
        return data

    # --- appending, timers, the dealer -----------------------------------------------------

    async def _append(
        self, table: Table, record: referee_pb2.TableRecord, state_after: Any = None
    ) -> None:
        """Append one record after the table's last, then fold it in. Nothing changes unless
        the append is acknowledged; a retry after a lost ack is recognised by its msg id."""
        await self._hold_mark(table)  # may wait for the marks' bucket: the lease is checked after
        if not self.holds(table.table_id):
            # The lease went while this command waited (for the dealer, say): the new holder
            # read the log without this record and will not be fenced by a refusal it answers
            # from memory. Nothing is appended; the client asks again, of the new holder.
            raise Unavailable(_MOVED)
        record.record_number = table.records + 1
        data = record.SerializeToString()
        headers = fact_headers(record, table_facts(table, record, state_after))
        if self._config.frames and table.records > 0:  # a table's first record goes alone
            await self._append_framed(table, record, data, headers, state_after)
            return
        msg_id = f"{table.table_id}:{table.last_sequence}:{self._writer}"
        for attempt in range(3):
            try:
                with APPEND_SECONDS.time():
                    sequence = await self._log.append(
                        table.table_id, data, msg_id, table.last_sequence, headers
                    )
                break
            except SequenceConflict:
                if table.last_sequence == 0:
                    raise
                table.stale = True  # another writer moved it on: read it again before judging
                raise Unavailable("the table changed under us; try again") from None
            except (TimeoutError, NatsTimeout, NoRespondersError) as error:
                log.warning("append failed", attempt=attempt, error=repr(error))
                await asyncio.sleep(0.2 * (attempt + 1))
            except NatsError as error:  # e.g. a retry overlapping a publish still in process
                log.warning("append failed", attempt=attempt, error=repr(error))
                table.stale = True
                raise Unavailable("the event store refused the append; try again") from None
        else:
            # The outcome is unknown (the append may have landed): read the table again first.
            table.stale = True
            raise Unavailable("the event store is not answering; try again")
        table.apply(record, sequence, state_after)

    def _fenced(self, partition: int) -> None:
        """A frame of the partition failed: refused (another writer appended to the partition's
        frames) or its outcome unknown. Every table of it may have changed, so each is read
        again from the log before it judges anything."""
        for table_id, table in self.tables.items():
            if subjects.partition_of(table_id) == partition:
                table.stale = True
        log.warning("a frame failed: the partition's tables are read again", partition=partition)

    async def _append_framed(
        self,
        table: Table,
        record: referee_pb2.TableRecord,
        data: bytes,
        headers: dict[str, str],
        state_after: Any,
    ) -> None:
        """Append the record in its partition's next frame (services/referee/frames.py), then
        fold it in. A refused or unknown frame leaves the table to be read again first."""
        frames = self._frames.get(subjects.partition_of(table.table_id))
        if frames is None:
            raise Unavailable(_MOVED)
        if table.stale:  # a frame failed since it was judged: its table must be read again
            raise Unavailable("the table changed under us; try again")
        try:
            with APPEND_SECONDS.time():
                await frames.append(table.table_id, data, headers)
        except SequenceConflict:
            table.stale = True  # another writer holds the partition's frames: read it again
            raise Unavailable("the table changed under us; try again") from None
        except (TimeoutError, NatsTimeout, NoRespondersError, NatsError, ConnectionError) as error:
            log.warning("append failed", error=repr(error))
            table.stale = True  # the frame may have landed: read the table again first
            raise Unavailable("the event store is not answering; try again") from None
        table.apply(record, None, state_after)  # its own subject's fence stays where it was

    def _install(self, table: Table) -> None:
        self.tables[table.table_id] = table
        if table.finished:
            asyncio.get_running_loop().call_later(self._config.forget_after_s, self._forget, table)

    def _forget(self, table: Table) -> None:
        """A finished game leaves memory (a command for it reads it again from the log)."""
        if self.tables.get(table.table_id) is table and table.finished:
            del self.tables[table.table_id]
            lock = self._locks.get(table.table_id)
            if lock is not None and not lock.locked():
                del self._locks[table.table_id]

    async def _read_table(self, table_id: str) -> Table | None:
        """The table as its log has it (None: no such table); raises Unavailable, and
        Quarantined (having quarantined it) when a record of the log does not fit."""
        try:
            stored = await self._log.read(table_id)
        except (TimeoutError, NatsTimeout, NoRespondersError, NatsError) as error:
            raise Unavailable("the event store is not answering; try again") from error
        if not stored:
            return None
        try:
            return load(table_id, stored, finished_too=True)
        except Quarantined as error:
            self._quarantine(error.bad, stored[0].sequence)
            raise

    async def _current(self, table_id: str) -> Table | None:
        """Under the table's lock: the table, read again from the log when the last append's
        outcome is unknown, or loaded when this replica holds its partition but not the table
        (created by the previous holder after this one read the log). Raises Unavailable, and
        Quarantined for a table whose log holds a record that does not fit."""
        table = self.tables.get(table_id)
        if table is not None and not table.stale:
            return table
        if not self.holds(table_id):
            return None
        await self._check_quarantine(table_id)
        frames = self._frames.get(subjects.partition_of(table_id))
        try:
            epoch = await frames.refresh() if frames is not None else 0  # the fence, then the table
        except (TimeoutError, NatsTimeout, NoRespondersError, NatsError) as error:
            raise Unavailable("the event store is not answering; try again") from error
        fresh = await self._read_table(table_id)
        if fresh is None:
            return None
        if fresh.started:
            if table is not None and table.deal is not None:
                fresh.with_deal(table.deal)
            else:
                await self._load_deal(fresh)
        if not self.holds(table_id):
            return None
        if frames is not None and (
            frames.epoch != epoch or self._frames.get(frames.partition) is not frames
        ):  # a frame failed while the table was read: what it read may predate the fence
            raise Unavailable("the table changed under us; try again")
        self._hold(fresh)
        log.info("table read again from the log", table_id=table_id)
        return fresh

    def _hold(self, table: Table) -> None:
        """A table read from the log, held from now on: in memory, its timer armed, its seed
        revealed if its game is over without it."""
        held = self.tables.get(table.table_id)
        # The live-tables gauge: a game put away and read back counts again (its end
        # decrements), a stale one read back over no longer does.
        LIVE_TABLES.inc(_live(table) - (held is not None and _live(held)))
        # Active as of its latest event, or since the append that made a table stale began
        # (that append may be stored yet, with a deadline the read did not see).
        table.active_at = self._last_active(table)
        if held is not None:
            table.active_at = max(table.active_at, held.active_at)
        self._install(table)
        self._arm(table)
        if table.game_over and not table.seed_revealed:
            self._spawn(self._reveal(table.table_id))

    def _after(self, table: Table) -> None:
        """After every append: re-arm the timer; at the end of the game, reveal the seed."""
        if self.tables.get(table.table_id) is not table:
            return  # handed over meanwhile: the new holder keeps its timers
        self._arm(table)
        if table.game_over and not table.seed_revealed:
            LIVE_TABLES.dec()
            self._spawn(self._reveal(table.table_id))

    def _arm(self, table: Table) -> None:
        """Set the table's timer for its next deadline. A timer already set for the same
        deadline and instant (within TIMER_SLACK_S), not gone off, stays: most turns leave the
        deadline where it was (the race's board cap), and cancelling a timer and setting it
        again cost ~10 us a turn (docs/performance.md). A clock that stepped since (the wall
        clock set by NTP, a test's) moves the instant, and the timer is set again."""
        if self.tables.get(table.table_id) is not table:
            return
        deadline = self._due(table)
        armed = self._timers.get(table.table_id)
        if deadline is None:
            if armed is not None:
                armed.cancel()
                del self._timers[table.table_id]
            return
        loop = asyncio.get_running_loop()
        at = loop.time() + self._clock.wall_seconds(deadline - self._clock.now_ms())
        if armed is not None:
            if (
                armed.deadline == deadline
                and not armed.fired
                and abs(armed.at - at) < TIMER_SLACK_S
            ):
                return
            armed.cancel()
        self._timers[table.table_id] = self._set_timer(table.table_id, deadline, at)

    def _set_timer(self, table_id: str, deadline: int, at: float) -> _Timer:
        """A timer that runs ``_on_timer`` for ``deadline`` at loop time ``at``."""
        timer = _Timer(deadline, at)

        def fire() -> None:
            timer.fired = True
            self._spawn(self._on_timer(table_id, deadline))

        timer.handle = asyncio.get_running_loop().call_at(at, fire)
        return timer

    def _due(self, table: Table) -> int | None:
        """The table's next deadline: the game's, or a waiting table's expiry."""
        if table.started:
            assert table.game is not None
            return table.game.next_deadline(table.state)
        return table.expiry_due(self._config.table_expiry_ms)

    async def _on_timer(self, table_id: str, deadline: int) -> None:
        if table_id not in self.tables:
            return  # handed over to another replica, which keeps the deadline
        async with self._lock(table_id):
            try:
                table = await self._current(table_id)
                if table is None:
                    return
                now = max(self._clock.now_ms(), table.clock)
                due = self._due(table)
                if due is None:
                    return
                if due > now:  # woke early (clock rounding): sleep again
                    self._arm(table)
                    return
                TIMER_LATE_MS.observe(now - due)
                await self._pass_time(table, now)
            except Quarantined:
                return  # the table stopped: no timer until an operator repairs its log
            except Exception as error:  # a timer must never die: the game would stall
                log.warning("timer could not fire; retrying", error=repr(error))
                if table_id in self.tables:
                    armed = self._timers.pop(table_id, None)
                    if armed is not None:
                        armed.cancel()
                    at = asyncio.get_running_loop().time() + 0.5
                    self._timers[table_id] = self._set_timer(table_id, deadline, at)

    async def _reveal(self, table_id: str) -> None:
        """Publish the seed once the game is over (the dealer checks the log says so)."""
        delay = 0.2
        while True:
            if table_id not in self.tables:
                return  # handed over: the new holder reveals
            async with self._lock(table_id):
                try:
                    table = await self._current(table_id)
                    if table is None or table.seed_revealed:
                        return
                    answer = await self._dealer(
                        subjects.DEALER_REVEAL,
                        dealer_pb2.RevealSeedRequest(table_id=table_id, game_id=table_id),
                        dealer_pb2.RevealSeedResponse,
                    )
                    if answer.WhichOneof("result") == "seed":
                        now = max(self._clock.now_ms(), table.clock)
                        body = common_pb2.TableEvent()
                        body.seed_revealed.seed = answer.seed.seed
                        body.seed_revealed.deal_version = answer.seed.deal_version
                        record = referee_pb2.TableRecord(
                            table_id=table_id,
                            first_event_number=table.next_event,
                            command=referee_pb2.StampedCommand(received_at_ms=now),
                        )
                        record.events.extend(number_events(table, [(now, body)]))
                        await self._append(table, record)
                        log.info("seed revealed", table_id=table_id)
                        loop = asyncio.get_running_loop()
                        loop.call_later(self._config.forget_after_s, self._forget, table)
                        return
                    log.warning("dealer refused to reveal", refusal=answer.refusal.message)
                except Quarantined:
                    return  # the table stopped; the reveal waits for the repair
                except Exception as error:  # keep trying: the seed must come out
                    log.warning("reveal failed; retrying", error=repr(error))
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _ensure_deal(self, table: Table) -> None:
        if table.started and table.deal is None:
            await self._load_deal(table)

    async def _load_deal(self, table: Table) -> None:
        table.with_deal(await self._fetch_deal(table))

    async def _fetch_deal(self, table: Table) -> Message:
        """The table's deal from the dealer: the ``Deal.game`` member of its game."""
        game = table.game
        assert game is not None and table.settings is not None
        request = dealer_pb2.DealRequest(
            table_id=table.table_id, game_id=table.table_id, game_kind=kind_of(game)
        )
        getattr(request, game.slug).CopyFrom(table.settings)
        answer = await self._dealer(subjects.DEALER_DEAL, request, dealer_pb2.DealResponse)
        if answer.WhichOneof("result") != "deal":
            raise Unavailable(f"the dealer refused the deal: {answer.refusal.message}")
        if answer.deal.WhichOneof("game") != game.slug:
            raise Unavailable(f"the dealer dealt another game than {game.slug}")
        deal: Message = getattr(answer.deal, game.slug)
        return deal

    async def _dealer(self, subject: str, request: Any, response_type: Callable[[], Any]) -> Any:
        try:
            msg = await self._nc.request(
                subject, request.SerializeToString(), timeout=self._config.dealer_timeout_s
            )
        except (TimeoutError, NatsTimeout, NoRespondersError) as error:
            raise Unavailable("the dealer is not answering; try again") from error
        answer = response_type()
        answer.ParseFromString(msg.data)
        return answer


@dataclass(slots=True)
class _Timer:
    """A table's armed timer: the deadline and the instant it is set for, and whether it has
    gone off."""

    deadline: int
    at: float  # the loop's time it goes off at
    handle: asyncio.TimerHandle | None = None
    fired: bool = False

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()


def _record(
    table: Table,
    request: Any,
    now: int,
    envelopes: list[common_pb2.EventEnvelope],
    rejection: common_pb2.Refusal | None,
) -> referee_pb2.TableRecord:
    """The record of a player's game command, stamped ``now``: in the member of its game."""
    assert table.game is not None
    stamped = referee_pb2.StampedCommand(received_at_ms=now)
    getattr(stamped, table.game.slug).CopyFrom(request)
    record = referee_pb2.TableRecord(
        table_id=table.table_id, first_event_number=table.next_event, command=stamped
    )
    record.events.extend(envelopes)
    if rejection is not None:
        record.refusal.CopyFrom(rejection)
    return record


def _table_refused(code: str, category: Category, message: str) -> bytes:
    COMMANDS.labels("table", code).inc()
    return referee_pb2.TableCommandReply(
        refusal=refusal(code, category, message)
    ).SerializeToString()


_EXPIRED = "this table expired: its game did not start in time; make a new table or join another"
_MOVED = "this table's referee is changing (a restart or a rebalance); try again in a moment"


def _live(table: Table) -> bool:
    """Whether the table counts in the live-tables gauge: its game not over, nor expired."""
    return not table.game_over and not table.expired


def _seated(seat: Seat) -> common_pb2.TableEvent:
    event = common_pb2.TableEvent()
    body = event.player_seated
    body.seat, body.player_id = seat.number, seat.player
    body.display_name, body.is_bot = seat.name, seat.is_bot
    return event


async def serve(nc: Client, config: RefereeConfig) -> Callable[[], Awaitable[None]]:
    referee = Referee(nc, config, Clock(config.clock_rate, config.clock_anchor_ms))
    await referee.start()
    return referee.stop


def _subject_kind(subject: str) -> str:
    """A command subject's game slug, or ``table`` (match.referee.pNN.<kind>.<table_id>)."""
    parts = subject.split(".")
    return parts[3] if len(parts) == 5 else "?"
