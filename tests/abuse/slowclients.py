"""Slow clients for tests/abuse/test_connections.py, in a process of their own (so that their
work does not slow the victim's measurements): ``python -m tests.abuse.slowclients HOST PORT N
SOURCE...`` keeps N slow connections to the web edge at HOST:PORT, each from one of the SOURCE
addresses in turn, each reopened REOPEN_S after it is closed, until its stdin closes; then prints
what it saw as one line of JSON."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from dataclasses import dataclass

REOPEN_S = 1.0  # an attacker's connection is opened again this long after it was closed

# What each kind of slow connection sends at once; then a byte every TRICKLE_S.
SLOW = (
    b"",  # nothing at all
    b"POST /match.v1.LobbyService/GetTable HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # half its headers
    b"POST /match.v1.LobbyService/GetTable HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # half its body
    b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
)
TRICKLE_S = 0.5


@dataclass
class Attack:
    opened: int = 0
    closed_by_lobby: int = 0
    refused_503: int = 0
    failed_to_connect: int = 0


async def slow_connection(host: str, port: int, source: str, kind: int, attack: Attack) -> None:
    """One slow connection, opened again REOPEN_S after the lobby closes it, until cancelled."""
    while True:
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
        except OSError:
            attack.failed_to_connect += 1
            await asyncio.sleep(REOPEN_S)
            continue
        attack.opened += 1
        try:
            writer.write(SLOW[kind])
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(200), TRICKLE_S)
                except TimeoutError:
                    if kind:
                        writer.write(b"x")  # one more byte: slow, never silent
                    continue
                if data.startswith(b"HTTP/1.1 503"):
                    attack.refused_503 += 1
                    continue  # the lobby closes it next
                if not data:
                    attack.closed_by_lobby += 1
                    break
        except OSError:
            attack.closed_by_lobby += 1
        finally:
            writer.close()
        await asyncio.sleep(REOPEN_S)


async def main(host: str, port: int, count: int, sources: list[str]) -> None:
    attack = Attack()
    tasks = [
        asyncio.create_task(
            slow_connection(host, port, sources[i % len(sources)], i % len(SLOW), attack)
        )
        for i in range(count)
    ]
    print("attacking", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the test closes it
    print(json.dumps(dataclasses.asdict(attack)), flush=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


if __name__ == "__main__":
    host, port, count, *sources = sys.argv[1:]
    asyncio.run(main(host, int(port), int(count), sources))
