"""Waiting for a service a test started to answer, however slow the machine is."""

from __future__ import annotations

import asyncio

import nats.errors
from nats.aio.client import Client

from match_bus import subjects


async def until_the_referee_answers(client: Client, seconds: float = 60.0) -> None:
    """Once this returns, a referee has subscribed and answers (a ping for a table that does
    not exist gets a reply). A referee just started on a busy machine may take seconds: each
    ask waits 5 s, and the whole wait fails the test after ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    attempt = 0
    while True:
        try:
            await client.request(subjects.referee_race("ping0000"), b"", 5)
            return
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
            if loop.time() >= deadline:
                raise AssertionError(f"no referee answered within {seconds:g} s") from None
        attempt += 1
        await asyncio.sleep(min(0.05 * attempt, 1.0))
