"""The web edge's connection guard (services/webedge.py) on uvicorn's httptools protocol, one
guard at a time over real sockets: a request's headers trickled past the header timeout and its
body past the body timeout close the connection; an answer that takes longer than both is not
cut; the next request on a kept-alive connection owes its headers again; pipelined requests are
answered in order; a connection over its address's share is answered 503 with Retry-After."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from match_launch.natsserver import free_port
from services.webedge import CONNECTIONS_REFUSED, ConnectionLimits, serve_web

TIMEOUT_S = 0.5
LIMITS = ConnectionLimits(
    total=8, per_address=2, header_timeout_s=TIMEOUT_S, body_timeout_s=TIMEOUT_S, idle_timeout_s=5
)


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Reads the whole body; ``/slow`` answers after twice the timeouts."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["path"] == "/slow":
        await asyncio.sleep(2 * TIMEOUT_S)
    text = f"{scope['path']} {len(body)}".encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", str(len(text)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": text})


@pytest.fixture
async def edge() -> AsyncIterator[tuple[str, int]]:
    addr = f"127.0.0.1:{free_port()}"
    stop = await serve_web(app, addr, LIMITS)
    host, _, port = addr.rpartition(":")
    for _ in range(100):  # until uvicorn listens
        try:
            _, writer = await asyncio.open_connection(host, int(port))
            writer.close()
            break
        except OSError:
            await asyncio.sleep(0.02)
    await asyncio.sleep(0.05)  # the probe's connection is released
    try:
        yield host, int(port)
    finally:
        await stop()


def refused(reason: str) -> float:
    return CONNECTIONS_REFUSED.labels(reason)._value.get()  # type: ignore[no-any-return]


async def closed_after(reader: asyncio.StreamReader, within: float) -> float:
    """Seconds until the edge closes the connection (reading all it sends)."""
    start = time.monotonic()
    async with asyncio.timeout(within):
        while await reader.read(1024):
            pass
    return time.monotonic() - start


def request(path: str, body: bytes = b"") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


async def test_headers_trickled_past_the_timeout_close_the_connection(
    edge: tuple[str, int],
) -> None:
    before = refused("slow_headers")
    reader, writer = await asyncio.open_connection(*edge)
    start = time.monotonic()

    async def trickle() -> None:
        for byte in request("/"):  # a byte every 0.1 s: 30 s for the whole request
            writer.write(bytes([byte]))
            await asyncio.sleep(0.1)

    trickling = asyncio.create_task(trickle())
    try:
        await closed_after(reader, within=5)
    finally:
        trickling.cancel()
        writer.close()
    assert TIMEOUT_S * 0.9 < time.monotonic() - start < TIMEOUT_S + 1.5
    assert refused("slow_headers") == before + 1


async def test_a_body_trickled_past_the_timeout_closes_the_connection(
    edge: tuple[str, int],
) -> None:
    before = refused("slow_body")
    reader, writer = await asyncio.open_connection(*edge)
    writer.write(request("/", b"x" * 100)[:-90])  # the headers and 10 bytes of the body
    start = time.monotonic()

    async def trickle() -> None:
        for _ in range(90):
            await asyncio.sleep(0.1)
            writer.write(b"x")

    trickling = asyncio.create_task(trickle())
    try:
        assert await reader.read() == b""  # closed, never answered
    finally:
        trickling.cancel()
        writer.close()
    assert TIMEOUT_S * 0.9 < time.monotonic() - start < TIMEOUT_S + 1.5
    assert refused("slow_body") == before + 1


async def test_a_slow_answer_is_not_cut_and_the_next_request_owes_its_headers_again(
    edge: tuple[str, int],
) -> None:
    reader, writer = await asyncio.open_connection(*edge)
    try:
        writer.write(request("/slow", b"abc"))  # answered after twice the timeouts
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200 OK")
        assert await reader.readexactly(len(b"/slow 3")) == b"/slow 3"
        # Pipelined: two requests at once, answered in order.
        writer.write(request("/one", b"1") + request("/two", b"22"))
        answers = b""
        while answers.count(b"/") < 2:
            answers += await asyncio.wait_for(reader.read(1024), 5)
        assert answers.index(b"/one 1") < answers.index(b"/two 2")
        before = refused("slow_headers")
        writer.write(b"POST / HT")  # then the next request stalls in its headers
        waited = await closed_after(reader, within=5)
        assert TIMEOUT_S * 0.9 < waited < TIMEOUT_S + 1.5
        assert refused("slow_headers") == before + 1
    finally:
        writer.close()


async def test_a_connection_over_its_address_share_gets_503_and_retry_after(
    edge: tuple[str, int],
) -> None:
    before = refused("full")
    held = [await asyncio.open_connection(*edge) for _ in range(LIMITS.per_address)]
    try:
        reader, writer = await asyncio.open_connection(*edge)
        answer = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
        assert f"retry-after: {LIMITS.retry_after_s}\r\n".encode() in answer
        assert refused("full") == before + 1
        reader, writer = held[0]
        writer.write(request("/", b"ok"))  # those admitted are served
        assert (await asyncio.wait_for(reader.readuntil(b"/ 2"), 5)).startswith(b"HTTP/1.1 200")
    finally:
        for _, writer in held:
            writer.close()
