"""The whole system for end-to-end tests: embedded NATS and all five services as processes.

The system's clock runs ten times faster here (REFEREE_CLOCK_RATE=10, shared by every process
that times anything), so a 120 s board lasts 12 s of wall time. The rules never know.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import nats
import pytest
from nats.aio.client import Client

from match_bus.clock import Clock
from match_testing.stack import Stack

RATE = 10.0


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    anchor = int(time.time() * 1000)
    s = Stack(
        tmp_path / "stack",
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(anchor),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "1.0",  # a person's pace on the wall clock: slow on this fast clock
        },
    )
    s.start()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def clock(stack: Stack) -> Clock:
    return Clock(float(stack.env["REFEREE_CLOCK_RATE"]), int(stack.env["REFEREE_CLOCK_ANCHOR_MS"]))


@pytest.fixture
async def channel(stack: Stack) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as ch:
        yield ch


@pytest.fixture
async def nc(stack: Stack) -> AsyncIterator[Client]:
    client = await nats.connect(stack.url)
    yield client
    await client.close()
