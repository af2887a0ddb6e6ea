"""Watch: one ordered consumer on the table's subject, from its first record, for one viewer.

Catching up and following live are the same consumer, so no record falls between them. Every
record is folded (the view needs the whole history); what was folded up to the viewer's
``after_event_number`` is not sent again. A viewer more than MAX_RESUME_GAP events behind, or
ahead of the log (it knows another table's history), gets a snapshot instead of the backlog.
The stream ends with OK once the game is over and its seed is published: nothing can happen at
the table after that. A record that quarantines the table (match_bus.records) ends it with
FAILED_PRECONDITION, its slug ``table_quarantined``, and the record's stream sequence.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import grpc  # type: ignore[import-untyped]
import nats.errors
from nats.js import JetStreamContext
from nats.js.api import DeliverPolicy

from match.v1 import common_pb2, race_service_pb2
from match_bus import subjects
from match_bus.jetstream import TableLog
from match_bus.records import QUARANTINED, BadRecord
from services.lobby.errors import ApiError
from services.lobby.viewer import TableViewer

MAX_RESUME_GAP = 500  # further behind than this, a snapshot is cheaper than the events
# A new viewer (``after`` 0) gets the table's events from 1 while there are at most
# MAX_RESUME_GAP of them, as race_service.proto words it ("0 for none ... resumes with the next
# event when it can") and as the end-to-end tests expect; True sends a snapshot first instead.
SNAPSHOT_FIRST = False
EXPIRED = "table_expired"  # the referee's slug (services/referee/table.py)
CATCH_UP_TIMEOUT_S = 10.0
LIVE_POLL_S = 30.0

WatchResponse = race_service_pb2.WatchResponse


async def watch(
    js: JetStreamContext, table_id: str, viewer: str, after: int
) -> AsyncIterator[WatchResponse]:
    last = await TableLog(js).last(table_id)
    if last is None:
        raise ApiError(grpc.StatusCode.NOT_FOUND, f"table {table_id} has no records (yet)")
    caught_up_at = last[0]
    table = TableViewer(table_id, viewer)
    sub = await js.subscribe(
        subjects.events(table_id),
        stream=subjects.EVENTS_STREAM,  # named: no look-up of the stream by subject
        ordered_consumer=True,
        deliver_policy=DeliverPolicy.ALL,
    )
    try:
        backlog: list[common_pb2.EventEnvelope] | None = []  # None: send a snapshot instead
        while True:
            try:
                msg = await sub.next_msg(timeout=CATCH_UP_TIMEOUT_S)
            except nats.errors.TimeoutError:
                raise ApiError(
                    grpc.StatusCode.UNAVAILABLE, "the table log is not answering; watch again"
                ) from None
            for envelope in table.fold_record(msg.metadata.sequence.stream, msg.data):
                if backlog is not None and envelope.event_number > after:
                    backlog.append(envelope)
                    if len(backlog) > MAX_RESUME_GAP:
                        backlog = None
            if msg.metadata.sequence.stream >= caught_up_at:
                break
        if backlog is None or after > table.event_number or (after == 0 and SNAPSHOT_FIRST):
            yield WatchResponse(snapshot=table.snapshot())
        else:
            for envelope in backlog:
                yield WatchResponse(event=envelope)
        while not table.finished and not table.expired:
            try:
                msg = await sub.next_msg(timeout=LIVE_POLL_S)
            except nats.errors.TimeoutError:
                continue  # quiet table; the ordered consumer resets itself on lost heartbeats
            for envelope in table.fold_record(msg.metadata.sequence.stream, msg.data):
                yield WatchResponse(event=envelope)
        if table.expired:  # after its events: nothing more will ever happen there
            raise ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"table {table_id} expired: its game did not start in time; make a new table "
                "or join another",
                EXPIRED,
            )
    except BadRecord as bad:
        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, bad.message, QUARANTINED) from None
    finally:
        with contextlib.suppress(Exception):
            await sub.unsubscribe()
