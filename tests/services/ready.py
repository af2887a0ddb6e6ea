"""Waiting for a service a test started to answer, however slow the machine is."""

from __future__ import annotations

import asyncio

import nats.errors
from nats.aio.client import Client

from match_bus import subjects


async def until_it_answers(client: Client, subject: str, who: str, seconds: float = 60.0) -> None:
    """Once this returns, ``who`` has subscribed to ``subject`` and answers an empty request
    (with a reply or a refusal: either says it is there). A service just started on a busy
    machine may take seconds: each ask waits 5 s, and the whole wait fails the test after
    ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    attempt = 0
    while True:
        try:
            await client.request(subject, b"", 5)
            return
        except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
            if loop.time() >= deadline:
                raise AssertionError(f"no {who} answered within {seconds:g} s") from None
        attempt += 1
        await asyncio.sleep(min(0.05 * attempt, 1.0))


async def until_the_referee_answers(client: Client, seconds: float = 60.0) -> None:
    """A referee answers: a ping for a table that does not exist gets a reply."""
    await until_it_answers(client, subjects.referee_race("ping0000"), "referee", seconds)


async def until_the_dealer_answers(client: Client, seconds: float = 60.0) -> None:
    """The dealer answers: an empty commit request gets a refusal."""
    await until_it_answers(client, subjects.DEALER_COMMIT, "dealer", seconds)
