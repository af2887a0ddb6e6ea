"""Whether a table's game is over, read from the table log (``MATCH_EVENTS``) and folded by
the game's own rules: the dealer's check before it reveals a seed (services/dealer), and what
``make bench-reveal`` measures (match_bench.reveal)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import nats.errors
from google.protobuf.message import DecodeError
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.errors import NotFoundError

from match.v1 import common_pb2, referee_pb2
from match_bus import subjects
from match_bus.records import begins_table, closes_table, unpack
from match_rules import registry
from match_rules.game import Game


def _game_events(data: bytes) -> list[common_pb2.EventEnvelope]:
    """The events of one record as stored; none for bytes that are not a record."""
    try:
        return list(referee_pb2.TableRecord.FromString(data).events)
    except DecodeError:
        return []


@dataclass
class Fold:
    """How far one table's records have been folded: the game and state after every record
    taken (``broken`` once they cannot be a game). A fold the partition's scan feeds (it saw the
    table's first record) has no reading of its own; any other reads its table alone, from
    ``next_seq``."""

    next_seq: int = 1
    game: Game | None = None
    state: Any = None
    broken: bool = False
    scanned: bool = False


QUIET_MAX = 3  # a quiet partition is read at least every 2**3 rounds

# Folds kept: more than the live tables a deployment holds, so that no live table's fold is
# forgotten (the dealer folds every table as its records come). A fold took 2,392 bytes on
# average, measured over a bench's 22,034 tables of every game (~160 MB for all 65,536). With
# 4,096 kept and 9,000 unplayed games ending in a minute, every reveal read its table again
# and evicted another waiting one: no seed came out for minutes (docs/performance.md).
KEEP = 65_536


@dataclass
class Scan:
    """One partition's messages (its tables' subjects and its frames, ``match.events.p<NN>.>``)
    read once, in stream order, from ``next_seq`` (0: not begun)."""

    next_seq: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    begun: int = 0  # readings begun so far
    read: int = 0  # the last reading that read to the end: its number (of ``begun``)
    quiet: int = 0  # background readings in a row that found nothing new (at most QUIET_MAX)
    due: float = 0.0  # when the next background reading is due (the loop's clock)


@dataclass
class Alone:
    """One partition's tables its scan does not feed (begun before it, or forgotten), asked
    about and not yet read: the next reading reads them all, from the earliest one's place."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    asked: dict[str, Fold] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Message:
    sequence: int
    subject: str
    data: bytes
    headers: Mapping[str, str] | None


class TableFolds:
    """Whether a table's game is over, from the table's records on MATCH_EVENTS: its game's
    events folded by the game's own rules (``is_terminal``). The dealer may read messages, never
    make a consumer: it reads by Direct Get, ``batch`` messages a request (one request, up to
    ``batch`` answers). Any server holding the stream or a copy of it may answer, and one behind
    answers a prefix of the log, never a gap; a reading for a question ends with a look-up at
    the stream's leader, so that it has read every record stored before it began
    (:meth:`_read_on`). A reveal asked after the game's last record was stored finds it.

    A table's records are on its own subject and, under group commit, in its partition's frames
    (several tables' records in one message, match_bus.records). Reading the frames table by
    table would read each frame once per table in it (at 1,000 tables on 16 partitions, about
    60 times the table's own records; measured: the dealer busy for seconds per reveal). So a
    partition is read once, for all its tables: a :class:`Scan` reads every message of the
    partition from where it stopped and folds each table whose first record it has seen. It
    begins where the log ended when the dealer started (:meth:`begin`), and goes on when a
    reveal asks and, with :meth:`keep_up`, every few seconds: the records are folded once either
    way, but read only when asked, a partition's first reveal after a busy spell read all of it
    (at a saturation step's end, seconds of folding while thousands of reveals waited and timed
    out). Reveals asked while a reading is under way share the next one. A table that began
    before it (under way when the dealer started), or whose fold was forgotten, is read from
    its first record by a separate reading of its partition, which every such table of the
    partition asked about meanwhile shares.

    Folds are kept (the last ``keep`` tables) and continued: a reveal asked again reads only
    the messages appended since. Under load a reveal can outlast the referee's wait, and the
    referee asks again; reading every record from the first on every retry kept the dealer
    busy on reveals nobody waited for any more (measured: most of a core for minutes after a
    burst of game ends, with new tables refused meanwhile). Records are only ever appended, so
    a kept fold stays true."""

    def __init__(
        self, nc: Client, keep: int = KEEP, batch: int = 256, timeout_s: float = 5.0
    ) -> None:
        self._nc = nc
        self._js = nc.jetstream()
        self._keep = keep
        self._batch = batch
        self._timeout_s = timeout_s
        self._folds: OrderedDict[str, Fold] = OrderedDict()
        self._scans: dict[int, Scan] = {}
        self._alones: dict[int, Alone] = {}
        self._asking: dict[str, asyncio.Future[Game | None]] = {}  # answers under way
        self._origin = 0  # where every partition's scan begins (0: at the first table asked)
        self.reads = 0  # records folded (tests and curiosity)
        self.requests = 0  # Direct Get requests made for them
        self.checks = 0  # look-ups at the stream's leader: did a reading read to the end?

    async def begin(self) -> None:
        """Begin every partition's scan after the log's last message now: each table that
        begins from here on is folded by its partition's scan. Without it, a partition's scan
        begins at the first table asked about, and a table begun before that one (the tables of
        a burst) is read alone. The dealer calls it as it starts."""
        try:
            last = await self._js.get_last_msg(subjects.EVENTS_STREAM, subjects.EVENTS_ALL)
            self._origin = (last.seq or 0) + 1
        except NotFoundError:
            self._origin = 1
        for partition in range(subjects.PARTITIONS):
            self._scans.setdefault(partition, Scan(self._origin))

    async def keep_up(self, every_s: float = 1.0) -> None:
        """Until cancelled: every ``every_s``, read each begun partition's new messages, so
        that a burst of game ends finds at most that long's records still to fold. A partition
        that had nothing new is read half as often, down to every ``2**QUIET_MAX * every_s``
        (an idle dealer makes an eighth of the requests), and every ``every_s`` again
        once it has. A reading that fails is left to the next round (or to the next reveal,
        which reads too)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every_s)
            for partition, scan in list(self._scans.items()):
                if scan.next_seq == 0 or scan.lock.locked() or loop.time() < scan.due:
                    continue  # not begun, being read for a reveal already, or quiet
                before = scan.next_seq
                with contextlib.suppress(nats.errors.Error, TimeoutError):
                    async with scan.lock:
                        await self._read_to_end(partition, scan)
                scan.quiet = 0 if scan.next_seq != before else min(scan.quiet + 1, QUIET_MAX)
                scan.due = loop.time() + every_s * (2**scan.quiet - 0.5)

    async def _read_to_end(self, partition: int, scan: Scan, complete: bool = False) -> None:
        """Read ``partition`` to the end (its lock held): a reading, numbered as it begins. With
        ``complete`` (a reading for a question) it reads to the end of the log as the stream's
        leader holds it, and is noted as the last complete one once it has (:meth:`_read_on`);
        a background reading reads what the answering server holds, and is not."""
        scan.begun += 1
        reading = scan.begun
        await self._scan(partition, scan, complete)
        if complete:
            scan.read = reading

    async def ended(self, game_id: str) -> Game | None:
        """The table's game if its records show it over, else None. Asked again while an
        answer is under way (the referee retries a reveal that outlasts its wait), the
        question shares that answer: retries do not queue up work of their own."""
        running = self._asking.get(game_id)
        if running is None or running.done():
            running = asyncio.ensure_future(self._ended(game_id))
            self._asking[game_id] = running

            def answered(done: asyncio.Future[Game | None]) -> None:
                if self._asking.get(game_id) is done:
                    del self._asking[game_id]
                if not done.cancelled():
                    done.exception()  # retrieved: every asker may have gone

            running.add_done_callback(answered)
        return await asyncio.shield(running)

    async def _ended(self, game_id: str) -> Game | None:
        fold = self._folds.get(game_id)
        if fold is None or fold.scanned:
            fold = await self._scanned(game_id)
        if fold is None:
            return None  # no such table yet (or not on this replica yet)
        self._folds.move_to_end(game_id)
        if not fold.scanned:
            await self._alone(game_id, fold)
        if fold.broken or fold.game is None or not fold.game.is_terminal(fold.state):
            return None
        return fold.game

    def _keep_fold(self, game_id: str, fold: Fold) -> Fold:
        self._folds[game_id] = fold
        while len(self._folds) > self._keep:
            self._folds.popitem(last=False)
        return fold

    async def _scanned(self, game_id: str) -> Fold | None:
        """The table's fold after its partition's scan has read to the log's end: fed by the
        scan if the scan saw the table begin, else one of its own (None: no such table)."""
        scan = self._scans.setdefault(subjects.partition_of(game_id), Scan(self._origin))
        asked = scan.begun  # readings begun before this question
        # Where a table without a fold begins, looked up before the partition's turn: forgotten
        # tables asked about together then join one reading of theirs (_alone).
        first = None if game_id in self._folds else await self._first(game_id)
        async with scan.lock:  # one reading of a partition at a time; the next asks on from it
            start = 0
            known = self._folds.get(game_id)
            if known is not None and known.scanned and scan.read > asked:
                # A reading begun after the question read to the end: it saw every record
                # stored before the question (a reveal is asked once the last one is stored).
                # A burst of game ends in a partition makes one reading, not one each.
                return known
            if game_id not in self._folds:
                start = await self._first(game_id) if first is None else first
                if start == 0:
                    return None
                if scan.next_seq == 0:
                    scan.next_seq = start
                elif start < scan.next_seq:  # begun before the scan, or its fold forgotten
                    return self._keep_fold(game_id, Fold(next_seq=start))
            await self._read_to_end(subjects.partition_of(game_id), scan, complete=True)
            fold = self._folds.get(game_id)
            if fold is None and 0 < start < scan.next_seq:
                # read past its beginning without taking it for one (a first record that is
                # not numbered as one), or forgotten since: read alone, as a table begun before
                return self._keep_fold(game_id, Fold(next_seq=start))
        # None if the answering server does not hold the table's first record yet: asked
        # again, it will.
        return fold

    async def _first(self, game_id: str) -> int:
        """The stream sequence of the table's first record (0: none yet). It is always on the
        table's own subject, never in a frame (the referee's rule)."""
        subject = subjects.events(game_id)
        found = await self._read(subject, 1, batch=1)
        if found:
            return found[0].sequence
        first = await self._leader_next(subject, 1)  # the answering server may be behind
        return first.sequence if first is not None else 0

    async def _scan(self, partition: int, scan: Scan, complete: bool) -> None:
        """Read the partition's messages from ``scan.next_seq`` to the end, folding each record
        into its table's fold: a table's first record begins a fold the scan feeds, a record
        whose facts close its table ends it."""

        def take(message: _Message) -> None:
            for record in unpack(message.subject, message.data, message.headers):
                if record.table_id is not None:
                    self._take(record.table_id, record.data, record.headers)
            scan.next_seq = message.sequence + 1

        await self._read_on(subjects.events_of_partition(partition), scan.next_seq, complete, take)

    def _take(self, table_id: str, data: bytes, headers: Mapping[str, str] | None) -> None:
        fold = self._folds.get(table_id)
        if fold is None:
            if not begins_table(data, headers):
                return  # a table the scan did not see begin: read alone if asked about
            fold = self._keep_fold(table_id, Fold(scanned=True))
        elif not fold.scanned:
            return  # read alone, from its own reading
        if not fold.broken:
            self.reads += 1
            fold_record(fold, data)
        if closes_table(headers):  # nobody asks about it again: the first fold to forget
            self._folds.move_to_end(table_id, last=False)

    async def _alone(self, game_id: str, fold: Fold) -> None:
        """Fold a table its partition's scan does not feed, from ``fold.next_seq`` to the end of
        the partition. Such tables asked about together share one reading of the partition,
        from the earliest one's place: the dealer forgets the oldest folds beyond ``keep``
        (every live table has one), and a burst of their games' ends read one by one read the
        partition's frames once each (measured: the dealer busy for minutes, new tables
        refused meanwhile)."""
        partition = subjects.partition_of(game_id)
        waiting = self._alones.setdefault(partition, Alone())
        waiting.asked[game_id] = fold
        async with waiting.lock:
            if waiting.asked.get(game_id) is not fold:
                return  # read by a reading begun after it was asked
            folds, waiting.asked = waiting.asked, {}
            try:
                await self._read_alone(partition, folds)
            except BaseException:
                for table_id, asked in folds.items():  # the next in line reads them again
                    waiting.asked.setdefault(table_id, asked)
                raise

    async def _read_alone(self, partition: int, folds: dict[str, Fold]) -> None:
        """Read ``partition``'s messages from the earliest of ``folds`` to the end of the log,
        folding each table's records from its own place. A fold's place moves past each message
        it took a record from, so a reading that fails part way is taken up again without
        folding a record twice."""
        end = min(fold.next_seq for fold in folds.values())

        def take(message: _Message) -> None:
            nonlocal end
            took: list[Fold] = []
            for record in unpack(message.subject, message.data, message.headers):
                fold = folds.get(record.table_id) if record.table_id is not None else None
                if fold is None or fold.broken or message.sequence < fold.next_seq:
                    continue
                self.reads += 1
                fold_record(fold, record.data)
                took.append(fold)
            for fold in took:  # after the whole message: a frame may hold two of its records
                fold.next_seq = message.sequence + 1
            end = message.sequence + 1

        await self._read_on(subjects.events_of_partition(partition), end, True, take)
        for fold in folds.values():
            fold.next_seq = max(fold.next_seq, end)

    async def _read_on(
        self, subject: str, start: int, complete: bool, take: Callable[[_Message], None]
    ) -> None:
        """Hand ``take`` each message of ``subject`` (a wildcard allowed) from stream sequence
        ``start`` on, in stream order, ``batch`` a Direct Get request, to the end of what the
        answering server holds.

        Every server holding the stream answers its Direct Gets: its replicas, and the readers'
        copies too (nats-server sets ``mirror_direct`` on a mirror of a stream that allows
        direct gets, and the copies are mirrors: match_bus.jetstream.copy_config). One that is
        behind answers a prefix of the log, never a gap: measured, 3 to 4 answers in 3,000
        missed the message just acknowledged on an idle single server with two such copies.
        So with ``complete`` a reading that stops short of a full batch asks the stream's
        leader, which alone answers a message get, for the next message after it: none, and
        the reading has read the whole log as stored when it began; one, and it is taken and
        the reading goes on from it (each look-up moves it on by a message at least)."""
        while True:
            messages = await self._read(subject, start)
            for message in messages:
                take(message)
                start = message.sequence + 1
            if len(messages) == self._batch:
                continue
            if not complete:
                return
            missed = await self._leader_next(subject, start)
            if missed is None:
                return
            take(missed)
            start = missed.sequence + 1

    async def _leader_next(self, subject: str, start: int) -> _Message | None:
        """The first message of ``subject`` (a wildcard allowed) from stream sequence ``start``
        as the stream's leader holds it (None: there is none)."""
        self.checks += 1
        try:
            found = await self._js.get_msg(
                subjects.EVENTS_STREAM, seq=start, subject=subject, next=True
            )
        except NotFoundError:
            return None
        return _Message(
            found.seq or start, found.subject or subject, found.data or b"", found.headers
        )

    async def _read(self, subject: str, start: int, batch: int | None = None) -> list[_Message]:
        """Up to ``batch`` messages of ``subject`` (a wildcard allowed) from stream sequence
        ``start``: one Direct Get request, its answers ended by the server's end-of-batch status
        (204; 404 if none). Collected by the subscription's callback: a ``next_msg`` per answer
        costs a timer each."""
        out: list[_Message] = []
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def answer(msg: Msg) -> None:
            if done.done():
                return
            headers = msg.headers or {}
            status = headers.get("Status")
            if status in ("204", "404"):
                done.set_result(None)
            elif status:
                reason = f"{status} {headers.get('Description', '')}".strip()
                done.set_exception(nats.errors.Error(f"reading the table log failed: {reason}"))
            else:
                sequence = int(headers["Nats-Sequence"])
                found = headers.get("Nats-Subject", subject)
                out.append(_Message(sequence, found, msg.data or b"", headers))

        sub = await self._nc.subscribe(self._nc.new_inbox(), cb=answer)
        self.requests += 1
        try:
            request = {"seq": start, "next_by_subj": subject, "batch": batch or self._batch}
            await self._nc.publish(
                f"$JS.API.DIRECT.GET.{subjects.EVENTS_STREAM}",
                json.dumps(request).encode(),
                reply=sub.subject,
            )
            # Not wait_for: on 3.11 it returns the answer and drops a cancellation that comes
            # as the answer does, and keep_up's loop then never ends.
            async with asyncio.timeout(self._timeout_s):
                await done
            return out
        finally:
            await sub.unsubscribe()


def fold_record(fold: Fold, data: bytes) -> None:
    for envelope in _game_events(data):
        which = envelope.WhichOneof("body")
        if which is None or which == "table":
            continue
        try:
            if fold.game is None:
                fold.game = registry.by_slug(which)
                fold.state = fold.game.initial_state(None)
            if which != fold.game.slug:
                fold.broken = True  # two games at one table: not a log to reveal on
                return
            fold.state = fold.game.evolve(fold.state, fold.game.decode(getattr(envelope, which)))
        except Exception:  # an event its game cannot fold: not the end of anything
            fold.broken = True
            return
