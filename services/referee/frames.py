"""Group commit per partition: the records the referee judged while its partition's last frame
was being stored go into the next frame, one JetStream message (one write, one fsync) on the
partition's frame subject, ``match.events.p<NN>.frame`` (match_bus.records: a ``RecordFrame``,
each record exactly the ``TableRecord`` it would be alone).

One frame in flight per partition. The first record comes with nobody waiting and is sent at
once (no linger): a frame grows only while the one before it is being stored, so a slow disk
makes larger frames, not a longer wait. Nothing is answered before its frame is acknowledged:
"accepted" still means "on disk" under ``sync_interval: always``.

Each frame is fenced on the frame subject with ``Nats-Expected-Last-Subject-Sequence`` (the
partition's last frame as this writer knows it) and carries ``Nats-Msg-Id:
p<NN>:<that sequence>:<writer>``: a stale writer (its lease lost) is refused for the whole
partition, and a retried frame is not stored twice. A refusal means another writer appended to
the partition: it fails the frame and every record waiting for the next one, and ``fenced``
makes every table of the partition be read again from the log before it judges anything else
(any of them may have changed), before any other code runs. An unknown outcome (a time-out)
fails the frame's records, whose tables are read again. Either way the fence is read again from
the stream before the next frame.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import structlog
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.api import RawStreamMsg
from nats.js.errors import APIError, NotFoundError
from prometheus_client import Histogram

from match_bus import subjects
from match_bus.jetstream import CLUSTER_WRONG_LAST_SEQUENCE, WRONG_LAST_SEQUENCE, SequenceConflict
from match_bus.records import pack

log = structlog.get_logger()

FRAME_RECORDS = Histogram(
    "match_referee_frame_records",
    "Records per frame the referee appended (group commit)",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128),
)


class FrameWriter:
    """One partition's frames, appended one at a time."""

    def __init__(
        self,
        js: JetStreamContext,
        partition: int,
        writer: str,
        fenced: Callable[[int], None],
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
        self.last: int | None = None  # the partition's last frame as known here (None: ask)

    async def append(self, table_id: str, data: bytes, headers: Mapping[str, str]) -> int:
        """Append one record (``headers``: match_bus.records.fact_headers) in the partition's
        next frame; the frame's stream sequence once it is stored. SequenceConflict when another
        writer holds the partition's frames; NATS' errors when the outcome is unknown."""
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append((table_id, data, headers, done))
        if self._flushing is None:
            self._flushing = asyncio.create_task(self._flush(), name=f"frames-{self.partition}")
        return await done

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
                except SequenceConflict as error:  # another writer: nothing judged here stands
                    self._fail(batch + self._take(), error)
                    self._fenced(self.partition)
                    continue
                except Exception as error:
                    self._fail(batch, error)
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
        if self.last is None:
            self.last = await self._last_frame_sequence()
        expected = self.last
        headers = {
            "Nats-Msg-Id": f"{subjects.partition_name(self.partition)}:{expected}:{self._writer}",
            "Nats-Expected-Last-Subject-Sequence": str(expected),
        }
        try:
            ack = await self._js.publish(
                self._subject, data, timeout=self._timeout_s, headers=headers
            )
        except APIError as error:
            self.last = None
            if error.err_code not in (WRONG_LAST_SEQUENCE, CLUSTER_WRONG_LAST_SEQUENCE):
                raise
            stored = await self._last_frame()
            if stored is not None and stored.data == data and stored.seq is not None:
                self.last = int(stored.seq)
                return self.last  # our earlier try landed; its ack was lost
            raise SequenceConflict(
                f"partition {self.partition}'s frames moved past sequence {expected}"
            ) from error
        except NatsTimeoutError:
            self.last = None  # stored or not: the stream says, next time
            raise
        if ack.duplicate:
            try:
                stored_msg = await self._js.get_msg(subjects.EVENTS_STREAM, ack.seq)
            except NotFoundError:
                stored_msg = None
            if stored_msg is None or stored_msg.data != data:
                self.last = None
                msg_id = headers["Nats-Msg-Id"]
                raise SequenceConflict(f"partition {self.partition}: {msg_id} is another frame")
        self.last = ack.seq
        return ack.seq

    async def _last_frame(self) -> RawStreamMsg | None:
        try:
            return await self._js.get_last_msg(subjects.EVENTS_STREAM, self._subject)
        except NotFoundError:
            return None

    async def _last_frame_sequence(self) -> int:
        last = await self._last_frame()
        return (last.seq or 0) if last is not None else 0
