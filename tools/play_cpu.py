"""The lobby's CPU per race turn, unary against Play, on one stack: a quick comparison, not the
bench (make bench). ``.venv/bin/python tools/play_cpu.py [TABLES] [ROUNDS]`` from the checkout.

TABLES tables of two people (the lobby's rate limits and per-address caps off), the first
player's first board turned pair by pair from the deal (a test's privilege, as tests/e2e reads
it): 20 accepted turns per table, all tables at once; each seat follows its table with Watch in
both paths. The lobby's CPU (utime + stime of its process, from /proc) is read around the turns
only, unary and Play alternating within one run, a new set of tables each time."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from match_bench.procstat import cpu_seconds
from match_bus.clock import Clock
from match_launch.stack import Stack
from tests.e2e.play import PlayChannel
from tests.e2e.players_race import Player, fetch_deal, pairs_of


async def seat_tables(raw: Any, clock: Clock, nc: Any, k: int) -> tuple[list[Player], list[Any]]:
    players = []
    others = []
    for i in range(k):
        p, o = Player(f"P{i}", raw, clock), Player(f"O{i}", raw, clock)
        await p.create(seats=2, window=120_000)
        p.watch()
        await o.join(p.table_id)  # full: the game starts
        players.append(p)
        others.append(o)
    for p, o in zip(players, others, strict=True):
        await p.wait_for("game_started", timeout=60)
        await p.ready()
        await o.ready()
    for p in players:
        await p.wait_for("board_started", board=1, timeout=60)
    deals = [await fetch_deal(nc, p.table_id) for p in players]
    return players, deals


async def run_path(
    stack: Stack, clock: Clock, nc: Any, k: int, play: bool
) -> tuple[int, float, float]:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        players, deals = await seat_tables(raw, clock, nc, k)
        ch: Any = PlayChannel(raw) if play else raw
        turners = []
        for p, layouts in zip(players, deals, strict=True):
            q = Player(p.name, ch, clock)
            q.table_id, q.player_id, q.token = p.table_id, p.player_id, p.token
            turners.append((q, pairs_of(layouts[0])))
        if play:  # open each stream before the clock starts (a seat's stream opens once)
            await asyncio.gather(*(q.turn(99) for q, _ in turners), return_exceptions=True)
        pid = stack.processes["lobby"].pid
        before, t0 = cpu_seconds(pid), time.perf_counter()
        turns = 0

        async def turn_all(q: Player, pairs: list[tuple[int, int]]) -> None:
            nonlocal turns
            for a, b in pairs:
                await q.turn(a)
                await q.turn(b)
                turns += 2

        await asyncio.gather(*(turn_all(q, pairs) for q, pairs in turners))
        used, wall = cpu_seconds(pid) - before, time.perf_counter() - t0
        for p in players:
            await p.stop_watch()
        if play:
            await ch.close()
        return turns, used, wall


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
            },
        )
        stack.start(timeout=180)
        try:
            clock = Clock(2.0, anchor)
            nc = await stack.connect_nats()
            for r in range(rounds):
                for play in (False, True):
                    turns, used, wall = await run_path(stack, clock, nc, k, play)
                    name = "play " if play else "unary"
                    print(
                        f"round {r + 1} {name}: {turns} turns in {wall:.2f} s, lobby CPU "
                        f"{used:.2f} s = {used / turns * 1e6:.0f} us/turn",
                        flush=True,
                    )
            await nc.close()
        finally:
            stack.stop()


asyncio.run(main())
