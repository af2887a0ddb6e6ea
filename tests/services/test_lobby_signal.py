"""fanout.Signal, what a feed's viewers and its pushes wait on: every waiter wakes at once, a
wait times out on its own timer, and a wait that ends without the signal leaves nothing behind.
Pure asyncio, no NATS."""

from __future__ import annotations

import asyncio

from services.lobby.fanout import Signal


async def test_a_fire_wakes_every_waiter_and_only_those_waiting() -> None:
    signal = Signal()
    first = asyncio.create_task(signal.wait(5.0))
    second = asyncio.create_task(signal.wait(5.0))
    await asyncio.sleep(0)
    assert signal.waiters == 2
    signal.fire()
    assert await first is True and await second is True
    assert signal.waiters == 0
    late = asyncio.create_task(signal.wait(5.0))  # a wait after the fire waits for the next
    await asyncio.sleep(0.01)
    assert not late.done()
    signal.fire()
    assert await late is True


async def test_a_wait_times_out_and_leaves_no_waiter() -> None:
    signal = Signal()
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await signal.wait(0.05) is False
    assert loop.time() - started >= 0.04
    assert signal.waiters == 0
    signal.fire()  # nobody is waiting: nothing to wake, nothing breaks


async def test_a_cancelled_wait_leaves_no_waiter_and_the_others_still_wake() -> None:
    signal = Signal()
    gone = asyncio.create_task(signal.wait(5.0))
    stays = asyncio.create_task(signal.wait(5.0))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)
    assert signal.waiters == 1
    signal.fire()
    assert await stays is True
