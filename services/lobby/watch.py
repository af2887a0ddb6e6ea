"""Watch: the table's records from its first, for one viewer, read from the table's feed.

The feed (services.lobby.fanout) is one ordered consumer per table in this lobby, shared by
every watcher of the table; each watcher folds and redacts the records for its own viewer with
its own TableViewer, so what one viewer may see never depends on another. Catching up and
following live are the same feed, read in order, so no record falls between them. Every
record is folded (the view needs the whole history); what was folded up to the viewer's
``after_event_number`` is not sent again. A viewer more than MAX_RESUME_GAP events behind, or
ahead of the log (it knows another table's history), gets a snapshot instead of the backlog.
The stream ends with OK once the game is over and its seed is published: nothing can happen at
the table after that. A record that quarantines the table (match_bus.records) ends it with
FAILED_PRECONDITION, its slug ``table_quarantined``, and the record's stream sequence.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc  # type: ignore[import-untyped]
from nats.js import JetStreamContext

from match.v1 import common_pb2
from match_bus.jetstream import table_end, table_start
from match_bus.records import QUARANTINED, BadRecord
from match_rules.game import Game
from services.lobby.errors import ApiError
from services.lobby.fanout import FeedFailed, TableFeed, Watches, settle
from services.lobby.games import kind_name
from services.lobby.viewer import TableViewer

MAX_RESUME_GAP = 500  # further behind than this, a snapshot is cheaper than the events
# A new viewer (``after`` 0) gets the table's events from 1 while there are at most
# MAX_RESUME_GAP of them, as race_service.proto words it ("0 for none ... resumes with the next
# event when it can") and as the end-to-end tests expect; True sends a snapshot first instead.
SNAPSHOT_FIRST = False
EXPIRED = "table_expired"  # the referee's slug (services/referee/table.py)
WRONG_GAME = "wrong_game"
CATCH_UP_TIMEOUT_S = 10.0
BATCH_MAX = 64  # events in one `events` item at most (common.proto, EventBatch)
LIVE_POLL_S = 30.0
# How long a view that leaves out what its stream's answers carried waits for the answer to a
# command whose record it has already read (the referee's reply is on its way; past this the
# view sends the record's events itself, and the answer, if it comes, repeats them).
ANSWER_WAIT_S = 5.0


@dataclass(frozen=True)
class Stream:
    """What one game's Watch sends: its response message (``snapshot`` or ``event``)."""

    game: Game
    response: Any  # the service's Watch response class
    # A snapshot once the game has started (after the record that started it, or after the
    # backlog when it had started already: the seats as the game has them) and one last one
    # once it is over and its seed out (the final standings and the seed), before the stream
    # ends. A game asks for them with its GAME's ``watch_snapshots`` (the race does not).
    snapshots: bool = False


def wrong_game(table_id: str, plays: int, game: Game) -> ApiError:
    return ApiError(
        grpc.StatusCode.FAILED_PRECONDITION,
        f"table {table_id} plays {kind_name(plays)}, not {kind_name(game.kind)}: use that "
        "game's service for it",
        WRONG_GAME,
    )


NOT_ANSWERING = "the table log is not answering; watch again"


async def watch(
    js: JetStreamContext,
    watches: Watches,
    table_id: str,
    viewer: str,
    after: int,
    address: str | None,
    stream: Stream,
    on_view: Any = None,
    batch: bool = False,
) -> AsyncIterator[Any]:
    """The stream for ``viewer``, counted against its caps (``address`` None: not by address)
    from before anything is read until it ends."""
    # A viewer's streams are counted per seat (a player at one table): a signed-in player keeps
    # one player id at every table, and each of their seats may follow its own table.
    with watches.admitted(seat_of(table_id, viewer), address):
        async for item in view(
            js, watches, table_id, viewer, after, address, stream, on_view, batch
        ):
            yield item


def seat_of(table_id: str, viewer: str) -> str | None:
    """What a viewer's streams are counted under: its seat; None for a spectator ("")."""
    return f"{viewer}@{table_id}" if viewer else None


async def view(
    js: JetStreamContext,
    watches: Watches,
    table_id: str,
    viewer: str,
    after: int,
    address: str | None,
    stream: Stream,
    on_view: Any = None,
    batch: bool = False,
    answers: Answers | None = None,
) -> AsyncIterator[Any]:
    """What ``watch`` sends, for a stream already admitted against the caps (a Watch, or a Play
    stream's view: services.lobby.playing; ``answers`` as for :func:`follow`)."""
    if not await table_start(js, table_id):
        raise ApiError(grpc.StatusCode.NOT_FOUND, f"table {table_id} has no records (yet)")
    last = await table_end(js, table_id)
    async with watches.feed(table_id, address) as feed:
        try:
            async for item in follow(
                feed, table_id, viewer, after, last, stream, on_view, batch, answers
            ):
                yield item
        except FeedFailed:
            raise ApiError(grpc.StatusCode.UNAVAILABLE, NOT_ANSWERING) from None


async def follow(
    feed: TableFeed,
    table_id: str,
    viewer: str,
    after: int,
    caught_up_at: int,
    stream: Stream,
    on_view: Any = None,
    batch: bool = False,
    answers: Answers | None = None,
) -> AsyncIterator[Any]:
    """Fold the feed for ``viewer``: the backlog after ``after`` (or a snapshot), every record up
    to stream sequence ``caught_up_at``, then every event live until the game is over and its
    seed out. ``on_view(table)`` is called once caught up (the viewer's TableViewer). ``batch``: the
    events come in ``events`` items, a record's together (:func:`items`). ``answers``: what a
    Play stream's answers carried, left out here (:class:`Answers`); every event is still
    folded, only not sent twice."""
    WatchResponse = stream.response
    table = TableViewer(table_id, viewer, feed.fold)
    index = 0
    try:
        backlog: list[common_pb2.EventEnvelope] | None = []  # None: send a snapshot instead
        while True:
            try:
                record = await feed.record_through(index, caught_up_at, CATCH_UP_TIMEOUT_S)
            except TimeoutError:
                raise ApiError(grpc.StatusCode.UNAVAILABLE, NOT_ANSWERING) from None
            if record is None:
                break  # every record up to where the table was when the view began
            index += 1
            folded = table.fold_record(record.sequence, record.data, record.index)
            if table.game is not None and table.game.kind != stream.game.kind:
                raise wrong_game(table_id, table.game.kind, stream.game)
            for envelope in folded:
                if backlog is not None and envelope.event_number > after:
                    backlog.append(envelope)
                    if len(backlog) > MAX_RESUME_GAP:
                        backlog = None
        if on_view is not None:
            on_view(table)
        fresh = False  # the last item sent was a snapshot of the table as it is
        if backlog is None or after > table.event_number or (after == 0 and SNAPSHOT_FIRST):
            yield WatchResponse(snapshot=table.snapshot())
            fresh = True
        else:
            if answers is not None:
                backlog = unanswered(backlog, answers.numbers)
            for item in items(WatchResponse, backlog, batch):
                yield item
            if stream.snapshots and table.started and not table.finished:
                yield WatchResponse(snapshot=table.snapshot())
                fresh = True
        while not table.finished and not table.expired:
            try:
                live = await feed.record(index, LIVE_POLL_S)
            except TimeoutError:
                continue  # a quiet table
            index += 1
            started = table.started
            folded = table.fold_record(live.sequence, live.data, live.index)
            if folded:
                fresh = False
                if answers is not None:
                    folded = await answers.leave_out(folded, table.request_id)
                for item in items(WatchResponse, folded, batch):
                    yield item
            if stream.snapshots and not started and table.started:
                yield WatchResponse(snapshot=table.snapshot())
                fresh = True
        if table.finished and stream.snapshots and not fresh:
            yield WatchResponse(snapshot=table.snapshot())
        if table.expired:  # after its events: nothing more will ever happen there
            raise ApiError(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"table {table_id} expired: its game did not start in time; make a new table "
                "or join another",
                EXPIRED,
            )
    except BadRecord as bad:
        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, bad.message, QUARANTINED) from None


class Answers:
    """What one Play stream's answers carried, for its view that leaves it out (the watch
    request's ``skip_answered``): each event then comes down the stream once.

    The referee answers a command once its record is stored, and the lobby's copy of the log
    brings the same record to the view: either may reach the lobby first. So the stream says
    which command it is answering (:meth:`expect`, then :meth:`settle` once its answer, or
    refusal, is queued), and a view that meets that command's record waits for the answer
    (at most ANSWER_WAIT_S) before it leaves out what the answer carried. An answer that never
    came leaves nothing out: the view sends the record's events as it always would."""

    def __init__(self) -> None:
        self.numbers: set[int] = set()  # carried by an answer, not yet passed by the view
        self._waiting: dict[str, asyncio.Future[None]] = {}  # request id -> its answer queued

    def expect(self, request_id: str) -> None:
        """The stream is answering ``request_id``."""
        self._waiting[request_id] = asyncio.get_running_loop().create_future()

    def carried(self, envelopes: Iterable[common_pb2.EventEnvelope]) -> None:
        """An answer about to be queued holds ``envelopes``."""
        self.numbers.update(envelope.event_number for envelope in envelopes)

    def settle(self, request_id: str) -> None:
        """The answer to ``request_id`` (or its refusal) is queued, or will not be."""
        waiting = self._waiting.pop(request_id, None)
        if waiting is not None:
            settle(waiting, None)

    async def leave_out(
        self, envelopes: list[common_pb2.EventEnvelope], request_id: str
    ) -> list[common_pb2.EventEnvelope]:
        """``envelopes``, a record of ``request_id``'s, but what the answers carried."""
        waiting = self._waiting.get(request_id) if request_id else None
        if waiting is not None and not waiting.done():  # settled in a finally: ends with it
            # A bare timer, not asyncio.timeout's context (~3.5 us more a wait: fanout.Signal);
            # past it the view goes on, leaving out only what the answers carried
            timer = asyncio.get_running_loop().call_later(ANSWER_WAIT_S, settle, waiting, None)
            try:
                await waiting
            finally:
                timer.cancel()
        return unanswered(envelopes, self.numbers)


def unanswered(
    envelopes: list[common_pb2.EventEnvelope], answered: set[int]
) -> list[common_pb2.EventEnvelope]:
    """``envelopes`` (in number order) but those whose numbers are in ``answered``. The view
    never comes back to a number it has passed, so every number up to the last of
    ``envelopes`` leaves the set, kept or not (one a snapshot covered, too)."""
    if not answered or not envelopes:
        return envelopes
    kept = [envelope for envelope in envelopes if envelope.event_number not in answered]
    last = envelopes[-1].event_number
    answered.difference_update([number for number in answered if number <= last])
    return kept


def items(
    WatchResponse: Any, envelopes: list[common_pb2.EventEnvelope], batch: bool
) -> Iterator[Any]:
    """The view's items for ``envelopes``: one ``event`` each, or (``batch``) ``events`` of
    up to BATCH_MAX together. Sending a record's events in one message spares the lobby and
    the client a stream message per event (docs/performance.md)."""
    if not batch:
        for envelope in envelopes:
            yield WatchResponse(event=envelope)
        return
    for start in range(0, len(envelopes), BATCH_MAX):
        chunk = envelopes[start : start + BATCH_MAX]
        yield WatchResponse(events=common_pb2.EventBatch(events=chunk))
