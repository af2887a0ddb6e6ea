"""An answer goes back only over the connection its request came in on (match_bus.service.reply):
NATS refuses a reply sent through another server after a reconnect as a permission violation,
so the service drops it and the requester asks again."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from match_bus import service


@dataclass
class FakeClient:
    stats: dict[str, int] = field(default_factory=lambda: {"reconnects": 0})
    is_reconnecting: bool = False


@dataclass
class FakeMsg:
    _client: FakeClient
    subject: str = "match.dealer.deal"
    sent: list[bytes] = field(default_factory=list)

    async def respond(self, data: bytes) -> None:
        self.sent.append(data)


async def test_an_answer_over_the_same_connection_is_sent() -> None:
    msg = FakeMsg(FakeClient())
    service.received(msg)  # type: ignore[arg-type]
    assert await service.reply(msg, b"deal")  # type: ignore[arg-type]
    assert msg.sent == [b"deal"]


async def test_an_answer_after_a_reconnect_is_dropped_and_counted() -> None:
    client = FakeClient()
    msg = FakeMsg(client)
    before = service.DROPPED_REPLIES._value.get()

    async def work() -> bool:
        client.stats["reconnects"] += 1  # NATS went away and came back while it worked
        return await service.reply(msg, b"deal")  # type: ignore[arg-type]

    handled: list[Any] = []

    async def handler(m: Any) -> None:
        handled.append(await work())

    await service.spawn(handler)(msg)  # type: ignore[arg-type]
    for _ in range(10):
        await asyncio.sleep(0)
    assert handled == [False] and msg.sent == []
    assert service.DROPPED_REPLIES._value.get() == before + 1


async def test_each_request_is_judged_by_its_own_connection() -> None:
    client = FakeClient()
    first, second = FakeMsg(client), FakeMsg(client)
    results: list[bool] = []
    gate = asyncio.Event()

    async def handler(m: Any) -> None:
        if m is first:
            await gate.wait()  # still working on the first when the connection is lost
        results.append(await service.reply(m, b"x"))

    callback = service.spawn(handler)
    await callback(first)  # type: ignore[arg-type]
    client.stats["reconnects"] += 1
    await callback(second)  # type: ignore[arg-type]  # came in over the new connection
    gate.set()
    for _ in range(10):
        await asyncio.sleep(0)
    assert (first.sent, second.sent) == ([], [b"x"])
    assert sorted(results) == [False, True]


async def test_an_answer_while_reconnecting_is_dropped() -> None:
    """nats-py would keep it and send it over the next connection, where NATS refuses it (the
    reconnect is counted only once that connection is up)."""
    client = FakeClient()
    msg = FakeMsg(client)
    service.received(msg)  # type: ignore[arg-type]
    client.is_reconnecting = True  # a failover's move under way
    assert not await service.reply(msg, b"deal")  # type: ignore[arg-type]
    assert msg.sent == []
