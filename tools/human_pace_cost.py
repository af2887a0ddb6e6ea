"""What a turn costs at human pace, and what the stack costs doing nothing. One fresh stack
(the bench's): each process's CPU, in ms a second, over ``SECONDS`` with no table; then with
``TABLES`` tables opened and seated and nobody turning; then with every seat's Play stream open
(a turn the rules refuse, before the board starts, opens it); then with those tables playing at
human pace (1.3 turns/s a table, as ``make bench``'s ramp), with each process's CPU per turn
beside the p50 / p95 / p99. So the cost of a turn at human pace is told apart from a fixed cost
of the stack's timers, heartbeats, polls and open streams (docs/performance.md, "A turn at
human pace").

``.venv/bin/python tools/human_pace_cost.py [TABLES] [SECONDS] [PROFILE_DIR]`` from the
checkout (500 and 10 by default): a quick figure, not a test. With ``PROFILE_DIR``, py-spy then
records the lobby and the referee for 15 s while the tables play, native frames included
(``human-<service>.txt`` there, raw stacks), and prints what their samples ran: a system call,
Python, or other C code, leaving out those waiting in epoll."""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import grpc  # type: ignore[import-untyped, unused-ignore]

from match.v1 import race_service_pb2
from match_bench import run
from match_bench.players import Channels, Sink, play_tables


def per_second(before: dict[str, float], after: dict[str, float], seconds: float) -> str:
    return " ".join(f"{k}={(after[k] - before[k]) / seconds * 1000:.0f}" for k in after)


def kinds(raw: Path) -> str:
    """A native profile's samples by what runs at the leaf: waiting in epoll, a system call
    (socket reads and writes), Python, or other C code (the interpreter's own, protobuf's,
    uvloop's, gRPC's); shares of the samples not waiting."""
    count: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        leaf = stack.rsplit(";", 1)[-1]
        if "epoll" in leaf:
            kind = "waiting"
        elif ".py:" in leaf:
            kind = "python"
        elif any(call in leaf for call in ("sendmsg", "write", "read", "recv", "syscall")):
            kind = "system calls"
        else:
            kind = "other C"
        count[kind] += int(n)
    busy = sum(n for kind, n in count.items() if kind != "waiting") or 1
    return ", ".join(
        f"{kind} {100 * n / busy:.0f} %" for kind, n in count.most_common() if kind != "waiting"
    )


async def native_profiles(bench: run.Bench, into: Path) -> None:
    """py-spy, native frames included, on the lobby and the referee for 15 s."""
    spy = Path(sys.executable).parent / "py-spy"
    into.mkdir(parents=True, exist_ok=True)
    pids = bench.pids()
    raws = {name: into / f"human-{name}.txt" for name in ("lobby", "referee")}
    spies = [
        await asyncio.create_subprocess_exec(
            str(spy), "record", "--native", "-d", "15", "-r", "100", "-p", str(pids[name]),
            "-f", "raw", "-o", str(raw),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        for name, raw in raws.items()
    ]
    for proc in spies:
        await proc.wait()
    for name, raw in raws.items():
        if raw.exists():
            print(f"{name}, samples not waiting in epoll: {kinds(raw)} ({raw})")
        else:
            print(f"{name}: py-spy wrote nothing (is py-spy installed? ptrace allowed?)")


async def measure(bench: run.Bench, tables: int, seconds: float, profile: Path | None) -> None:
    async def idle(what: str) -> None:
        before, t0 = bench.cpu(), time.monotonic()
        await asyncio.sleep(seconds)
        print(f"{what}: CPU ms/s {per_second(before, bench.cpu(), time.monotonic() - t0)}")

    channels = Channels(bench.stack.lobby_addr)
    await asyncio.sleep(3)  # the services' start-up done
    await idle("no table")
    opened = await bench.open_tables(channels, tables, 120)
    await asyncio.sleep(3)
    await idle(f"{len(opened)} tables seated, no turn")
    # Each seat's Play stream opened by a turn the rules refuse (the board has not started):
    # the stream stays open, the table unchanged.
    early = race_service_pb2.TurnTileRequest(tile=0)
    refused = await asyncio.gather(
        *(p.send("TurnTile", early) for pair in opened for p in pair), return_exceptions=True
    )
    assert all(isinstance(r, grpc.aio.AioRpcError) for r in refused), refused[:3]
    await asyncio.sleep(3)
    await idle(f"{len(opened)} tables, their {2 * len(opened)} Play streams open, no turn")
    sink, stop = Sink(), asyncio.Event()
    interval = 2 / run.HUMAN_TURNS_PER_TABLE_S  # each of the 2 players
    playing = [
        asyncio.create_task(
            play_tables(
                channels, bench.nc, pair, n, sink, stop, interval,
                random.uniform(0, interval), False, resign=False,
            )  # fmt: skip
        )
        for n, pair in enumerate(opened)
    ]
    await asyncio.sleep(min(5.0, 2 * interval))  # every table's first turn is behind it
    stats, elapsed, cpu, flight = await bench.window(sink, seconds)
    fig = bench.figures(stats, elapsed, cpu, flight)
    turns = max(stats.accepted, 1)
    each = " ".join(f"{k}={v * 1e6 / turns:.0f}" for k, v in cpu.items())
    print(
        f"{len(opened)} tables at human pace: {fig['turns_per_s']} turns/s, "
        f"{fig['stack_cpu_us_per_turn']} us services + NATS a turn ({each}), "
        f"{fig['cpu_utilisation_cores']} cores, latency ms {fig['latency_ms']}"
    )
    if profile is not None:
        await native_profiles(bench, profile)
    stop.set()
    await asyncio.gather(*playing, return_exceptions=True)
    await channels.close()


async def main(tables: int, seconds: float, profile: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="human-cost-") as tmp:
        args = run.parse(["--out", tmp])
        stack = run.bench_stack(Path(tmp) / "s")
        try:
            stack.start()
            nc = await stack.connect_nats(name="human-cost")
            await measure(run.Bench(args, stack, nc, args.out, {}), tables, seconds, profile)
            await nc.close()
        finally:
            stack.stop()


if __name__ == "__main__":
    argv = sys.argv[1:]
    asyncio.run(
        main(
            int(argv[0]) if argv else 500,
            float(argv[1]) if len(argv) > 1 else 10.0,
            Path(argv[2]) if len(argv) > 2 else None,
        )
    )
