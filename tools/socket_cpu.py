"""The lobby's CPU per command over the web edge: a Connect unary call against a message on the
seat's WebSocket (Play), on one stack: a quick comparison, not the bench (make bench).
``.venv/bin/python tools/socket_cpu.py [TABLES] [ROUNDS]`` from the checkout.

Two kinds of command, each over both paths, the paths alternating within one run:

- ``turn``: TABLES race tables of two people, the first player's first board turned pair by
  pair from the deal (a test's privilege, as tests/e2e reads it): 20 accepted turns per table,
  all tables at once, each answered by the referee (the lobby's NATS round trip and leak check
  included, the same on both paths). A new set of tables each round.
- ``refused``: the same seats send 50 turns of tile 99 each, refused by the game's own check at
  the lobby (INVALID_ARGUMENT) before any NATS: what the edge itself costs per command.

Connect: binary protobuf POSTs (``application/proto``) over keep-alive HTTP/1.1 connections, as
connect-web sends them; the socket: one per seat, opened before the clock starts (a seat's
socket opens once). The lobby's CPU (utime + stime of its process, from /proc) is read around
the commands only; the rate limits and per-address caps are off."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from match_bench.procstat import cpu_seconds
from match_bus.clock import Clock
from match_launch.stack import Stack
from tests.e2e.play import PlayChannel
from tests.e2e.players_race import Player, fetch_deal, pairs_of
from tests.e2e.socket import SocketChannel

REFUSED_PER_SEAT = 50


class ConnectChannel:
    """A channel whose unary calls are Connect POSTs to the web edge (binary protobuf)."""

    def __init__(self, channel: Any, web: httpx.AsyncClient) -> None:
        self._channel = channel
        self._web = web

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)

    def unary_unary(
        self, path: str, request_serializer: Any = None, response_deserializer: Any = None, **_: Any
    ) -> Any:
        async def call(request: Any, timeout: Any = None, metadata: Any = None, **__: Any) -> Any:
            headers = {"content-type": "application/proto", "connect-protocol-version": "1"}
            headers.update({k: str(v) for k, v in metadata or ()})
            answer = await self._web.post(
                path, content=request_serializer(request), headers=headers
            )
            if answer.status_code != 200:
                raise grpc.aio.AioRpcError(
                    grpc.StatusCode.UNKNOWN,
                    grpc.aio.Metadata(),
                    grpc.aio.Metadata(),
                    details=answer.text,
                )
            return response_deserializer(answer.content)

        return call


async def seat_tables(raw: Any, clock: Clock, nc: Any, k: int) -> tuple[list[Player], list[Any]]:
    players, others = [], []
    for i in range(k):
        p, o = Player(f"P{i}", raw, clock), Player(f"O{i}", raw, clock)
        await p.create(seats=2, window=120_000)
        await o.join(p.table_id)  # full: the game starts
        players.append(p)
        others.append(o)
    for p in players:
        p.watch()
    for p, o in zip(players, others, strict=True):
        await p.wait_for("game_started", timeout=60)
        await p.ready()
        await o.ready()
    for p in players:
        await p.wait_for("board_started", board=1, timeout=60)
    deals = [await fetch_deal(nc, p.table_id) for p in players]
    for p in players:
        await p.stop_watch()
    return players, deals


async def run_path(
    stack: Stack, clock: Clock, nc: Any, k: int, socket: bool
) -> dict[str, tuple[int, float]]:
    """Both kinds of command over one path: {kind: (commands, lobby CPU s)}."""
    async with (
        grpc.aio.insecure_channel(stack.lobby_addr) as raw,
        httpx.AsyncClient(base_url=stack.web_url, timeout=30.0) as web,
    ):
        players, deals = await seat_tables(raw, clock, nc, k)
        ch: Any = (
            PlayChannel(SocketChannel(raw, stack.web_url)) if socket else ConnectChannel(raw, web)
        )
        turners = []
        for p, layouts in zip(players, deals, strict=True):
            q = Player(p.name, ch, clock)
            q.table_id, q.player_id, q.token = p.table_id, p.player_id, p.token
            turners.append((q, pairs_of(layouts[0])))

        async def refused(q: Player, n: int) -> None:
            for _ in range(n):
                try:
                    await q.turn(99)
                except grpc.aio.AioRpcError as error:
                    assert "tile" in (error.details() or ""), error.details()

        # Warm up: every socket open, every HTTP connection made, before the clock starts.
        await asyncio.gather(*(refused(q, 1) for q, _ in turners))
        pid = stack.processes["lobby"].pid
        out = {}

        before = cpu_seconds(pid)
        await asyncio.gather(*(refused(q, REFUSED_PER_SEAT) for q, _ in turners))
        out["refused"] = (k * REFUSED_PER_SEAT, cpu_seconds(pid) - before)

        turns = 0

        async def turn_all(q: Player, pairs: list[tuple[int, int]]) -> None:
            nonlocal turns
            for a, b in pairs:
                await q.turn(a)
                await q.turn(b)
                turns += 2

        before = cpu_seconds(pid)
        await asyncio.gather(*(turn_all(q, pairs) for q, pairs in turners))
        out["turn"] = (turns, cpu_seconds(pid) - before)
        if socket:
            await ch.close()
        return out


async def main() -> None:
    k = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    with tempfile.TemporaryDirectory() as tmp:
        anchor = int(time.time() * 1000)
        stack = Stack(
            Path(tmp) / "stack",
            env={
                "REFEREE_CLOCK_RATE": "2",
                "REFEREE_CLOCK_ANCHOR_MS": str(anchor),
                "REFEREE_FILL_WAIT_MS": "3600000",
                "BOT_PACE": "1.0",
                "LOBBY_RATE_CREATE": "0",
                "LOBBY_RATE_ADDR": "0",
                "LOBBY_RATE_PLAYER": "0",
                "LOBBY_MAX_WATCHED_TABLES_PER_ADDRESS": "0",
                "LOBBY_MAX_WATCHES_PER_ADDRESS": "0",
                "LOBBY_WEB_MAX_CONNECTIONS_PER_ADDRESS": "0",
            },
        )
        stack.start(timeout=180)
        try:
            clock = Clock(2.0, anchor)
            nc = await stack.connect_nats()
            for r in range(rounds):
                for socket in (False, True):
                    got = await run_path(stack, clock, nc, k, socket)
                    name = "socket " if socket else "connect"
                    print(
                        f"round {r + 1} {name}: "
                        + ", ".join(
                            f"{kind} {n} in lobby CPU {used:.2f} s = {used / n * 1e6:.0f} us each"
                            for kind, (n, used) in got.items()
                        ),
                        flush=True,
                    )
            await nc.close()
        finally:
            stack.stop()


asyncio.run(main())
