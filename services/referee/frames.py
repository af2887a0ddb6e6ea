"""Group commit per partition: the records the referee judged while its partition's last frame
was being stored go into the next frame, one JetStream message (one write, one fsync) on the
partition's frame subject, ``match.events.p<NN>.frame`` (match_bus.records: a ``RecordFrame``,
each record exactly the ``TableRecord`` it would be alone).

One frame in flight per partition. The first record comes with nobody waiting and is sent at
once (no linger): a frame grows only while the one before it is being stored, so a slow disk
makes larger frames, not a longer wait. Nothing is answered before its frame is acknowledged:
"accepted" still means "on disk" under ``sync_interval: always``.

Each frame is fenced on the frame subject with ``Nats-Expected-Last-Subject-Sequence`` and
carries ``Nats-Msg-Id: p<NN>:<that sequence>:<writer>``: a stale writer (its lease lost) is
refused for the whole partition, and a retried frame is not stored twice. The fence, ``last``,
is a frame that every table the referee holds in memory for the partition has read: the last
frame of the rebuild that took the partition on, then each frame this writer stored. It is never
read from the stream at the moment of appending: a frame another writer stored after a table
was read would pass that fence, and the record judged without it would fork the table.

A frame whose acknowledgement does not come in time (or that finds no responder: a stream
electing its leader) is looked up: if the partition's last frame is it (same msg id, same bytes),
it was stored and only its acknowledgement was lost. If not, it is sent again as it was, with the
same fence and msg id, up to ``PUBLISH_ATTEMPTS`` sends in all. The fence lets one send at most
in (nats-server checks the fence before the msg id, so a send after one that was stored is
refused, and the look-up then finds the stored one), so a slow disk or a moment without a
leader costs the partition a wait, not its fence. Any failure after that (a refusal: another
writer appended to the partition; an outcome still unknown after the last attempt) fails the
frame and every record waiting for the next one, forgets the fence, moves
``epoch`` on, and ``fenced`` marks every table of the partition to be read again before it judges
anything, before any other code runs. The referee reads the fence again (:meth:`refresh`) before
it reads a table again, so every table read afterwards has read that frame; a table read under
an earlier epoch is not trusted.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping

import structlog
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js import JetStreamContext
from nats.js.errors import APIError, NotFoundError
from prometheus_client import Counter, Histogram

from match_bus import subjects
from match_bus.jetstream import CLUSTER_WRONG_LAST_SEQUENCE, WRONG_LAST_SEQUENCE, SequenceConflict
from match_bus.records import pack

log = structlog.get_logger()

PUBLISH_ATTEMPTS = 3  # a frame's sends, the first included, before its outcome counts as unknown
RETRY_PAUSE_S = 0.2  # times the attempt's number, before sending a frame again

FRAME_RECORDS = Histogram(
    "match_referee_frame_records",
    "Records per frame the referee appended (group commit)",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128),
)
FRAME_RETRIES = Counter(
    "match_referee_frame_retries_total",
    "Frames the referee sent again because their acknowledgement did not come in time",
)


class FrameWriter:
    """One partition's frames, appended one at a time."""

    def __init__(
        self,
        js: JetStreamContext,
        partition: int,
        writer: str,
        fenced: Callable[[int], None],
        last: int,
        timeout_s: float = 5.0,
    ) -> None:
        self._js = js
        self._fenced = fenced
        self.partition = partition
        self._writer = writer
        self._timeout_s = timeout_s
        self._subject = subjects.frames(partition)
        self._pending: list[tuple[str, bytes, Mapping[str, str], asyncio.Future[int]]] = []
        self._flushing: asyncio.Task[None] | None = None
        # A frame every table held for the partition has read (None: unknown, read it again).
        self.last: int | None = last
        self.epoch = 0  # moves on at each failure: tables read before it are not trusted

    async def append(self, table_id: str, data: bytes, headers: Mapping[str, str]) -> int:
        """Append one record (``headers``: match_bus.records.fact_headers) in the partition's
        next frame; the frame's stream sequence once it is stored. SequenceConflict when another
        writer holds the partition's frames; NATS' errors when the outcome is unknown."""
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append((table_id, data, headers, done))
        if self._flushing is None:
            self._flushing = asyncio.create_task(self._flush(), name=f"frames-{self.partition}")
        return await done

    async def refresh(self) -> int:
        """The fence, read from the stream if it is unknown: call before reading a table again,
        so that the table read has read the frame the next one is fenced on. The epoch it
        belongs to."""
        if self.last is None:
            epoch = self.epoch
            last = await last_frame(self._js, self.partition)
            if self.epoch == epoch and self.last is None:
                self.last = last
        return self.epoch

    async def close(self) -> None:
        """Stop (the partition was handed over): records not yet sent fail as unknown."""
        task, self._flushing = self._flushing, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._fail(self._take(), ConnectionError("the partition was handed over"))

    def _take(self) -> list[tuple[str, bytes, Mapping[str, str], asyncio.Future[int]]]:
        batch, self._pending = self._pending, []
        return batch

    @staticmethod
    def _fail(
        batch: list[tuple[str, bytes, Mapping[str, str], asyncio.Future[int]]],
        error: BaseException,
    ) -> None:
        for *_, done in batch:
            if not done.done():
                done.set_exception(error)

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch = self._take()
                try:
                    sequence = await self._publish([(t, d, h) for t, d, h, _ in batch])
                except asyncio.CancelledError:
                    self._fail(batch, ConnectionError("the partition was handed over"))
                    raise
                except Exception as error:
                    # Another writer, or a frame that may have landed: nothing judged on what
                    # the tables were before stands, waiting or not.
                    self.last = None
                    self.epoch += 1
                    self._fail(batch + self._take(), error)
                    self._fenced(self.partition)
                    continue
                FRAME_RECORDS.observe(len(batch))
                for *_, done in batch:
                    if not done.done():
                        done.set_result(sequence)
        finally:
            if self._flushing is asyncio.current_task():
                self._flushing = None

    async def _publish(self, records: list[tuple[str, bytes, Mapping[str, str]]]) -> int:
        data = pack(records)
        expected = self.last
        if expected is None:  # judged before a failure the tables have not been read since
            raise SequenceConflict(f"partition {self.partition}'s fence is not known")
        msg_id = f"{subjects.partition_name(self.partition)}:{expected}:{self._writer}"
        headers = {"Nats-Msg-Id": msg_id, "Nats-Expected-Last-Subject-Sequence": str(expected)}
        sequence = await self._send(data, headers, expected)
        self.last = sequence
        return sequence

    async def _send(self, data: bytes, headers: dict[str, str], expected: int) -> int:
        """Store the frame: its sequence. While no acknowledgement comes, the frame is looked up
        (the partition's last frame is it: stored) and else sent again as it was, up to
        ``PUBLISH_ATTEMPTS`` sends; the fence lets only one of them in. SequenceConflict when
        another frame moved the partition on; the last send's error when the outcome is still
        unknown after the last."""
        msg_id = headers["Nats-Msg-Id"]
        for attempt in range(1, PUBLISH_ATTEMPTS + 1):
            try:
                ack = await self._js.publish(
                    self._subject, data, timeout=self._timeout_s, headers=headers
                )
            except APIError as error:
                if error.err_code not in (WRONG_LAST_SEQUENCE, CLUSTER_WRONG_LAST_SEQUENCE):
                    raise
                if attempt > 1:  # an earlier send may be what moved it on
                    stored = await self._stored(data, msg_id, expected)
                    if stored is not None:
                        return stored
                raise SequenceConflict(
                    f"partition {self.partition}'s frames moved past sequence {expected}"
                ) from error
            except (TimeoutError, NatsTimeout, NoRespondersError) as error:
                with contextlib.suppress(TimeoutError, NatsTimeout, NoRespondersError):
                    stored = await self._stored(data, msg_id, expected)
                    if stored is not None:
                        return stored
                if attempt == PUBLISH_ATTEMPTS:
                    raise
                FRAME_RETRIES.inc()
                log.warning(
                    "frame not acknowledged; sending it again",
                    partition=self.partition,
                    attempt=attempt,
                    error=repr(error),
                )
                await asyncio.sleep(RETRY_PAUSE_S * attempt)
                continue
            if ack.duplicate:  # a copy of one JetStream stored: that one must be this frame
                try:
                    found = await self._js.get_msg(subjects.EVENTS_STREAM, ack.seq)
                except NotFoundError:
                    found = None
                if found is None or found.data != data:
                    raise SequenceConflict(f"partition {self.partition}: {msg_id} is another frame")
            return ack.seq
        raise AssertionError("unreachable")  # pragma: no cover

    async def _stored(self, data: bytes, msg_id: str, expected: int) -> int | None:
        """The sequence of this frame if it is the partition's last, stored after ``expected``
        (a send whose acknowledgement was lost); None if the last frame is another."""
        try:
            async with asyncio.timeout(self._timeout_s):
                last = await self._js.get_last_msg(subjects.EVENTS_STREAM, self._subject)
        except NotFoundError:
            return None
        sequence, headers = last.seq or 0, last.headers or {}
        if sequence > expected and headers.get("Nats-Msg-Id") == msg_id and last.data == data:
            return sequence
        return None


async def last_frame(js: JetStreamContext, partition: int) -> int:
    """The stream sequence of the partition's last frame (0: none yet)."""
    try:
        last = await js.get_last_msg(subjects.EVENTS_STREAM, subjects.frames(partition))
    except NotFoundError:
        return 0
    return last.seq or 0
