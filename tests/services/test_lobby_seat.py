"""A Play stream's seat and its view (services/lobby/playing.py): the seat runs one view at a
time, and lets go of each once it is over, so that a cancelled view (the stream ended, or a new
view asked for) and its seat are freed by their reference counts, not left in a cycle with every
record the view's frames hold for the collector's slowest generation."""

from __future__ import annotations

import asyncio

from match_bus.records import StoredRecord
from services.lobby.playing import _Seat
from services.lobby.tokens import Claims
from tests import cycles


def a_seat() -> _Seat:
    return _Seat("table00001", Claims("table00001", "player-a", 0, 2**40), None, asyncio.Queue())


async def a_view(seat: _Seat, started: asyncio.Event) -> None:
    """What a view's frames hold while it waits: its seat and the table's records."""
    records = [StoredRecord(n, b"record", "match.events.p00.table00001", 0, {}) for n in range(9)]
    started.set()
    await asyncio.Event().wait()
    print(seat, records)  # never reached: a view runs until it is cancelled


async def settled(task: asyncio.Task[None]) -> None:
    """Until ``task`` is over and its done callbacks have run (without awaiting it: nobody
    awaits a view that a new one replaced)."""
    while not task.done():
        await asyncio.sleep(0)
    await asyncio.sleep(0)


async def test_a_cancelled_view_leaves_nothing_to_the_collector() -> None:
    cycles.collect_now()
    seat, started = a_seat(), asyncio.Event()
    seat.follow(view := asyncio.create_task(a_view(seat, started)))
    await started.wait()
    view.cancel()  # the stream ended
    await settled(view)
    assert seat.view is None
    del seat, view
    assert cycles.left_to_collector(_Seat, StoredRecord) == []


async def test_a_new_view_replaces_the_one_running() -> None:
    cycles.collect_now()
    seat, started, again = a_seat(), asyncio.Event(), asyncio.Event()
    seat.follow(first := asyncio.create_task(a_view(seat, started)))
    await started.wait()
    seat.follow(second := asyncio.create_task(a_view(seat, again)))
    await settled(first)
    assert first.cancelled()
    assert seat.view is second  # the old view's end does not take the new one's place
    await again.wait()
    second.cancel()
    await settled(second)
    assert seat.view is None
    del seat, first, second
    assert cycles.left_to_collector(_Seat, StoredRecord) == []
