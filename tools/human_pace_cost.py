"""What a turn costs at human pace, and what the stack costs doing nothing. One fresh stack
(the bench's): each process's CPU, in ms a second, over ``SECONDS`` with no table; then with
``TABLES`` tables opened and seated and nobody turning; then with every seat's Play stream open
(a turn the lobby's edge refuses, a tile off the board, opens it and changes nothing); then with
those tables playing at human pace (each player turning every 2/1.3 s while a board is in play,
as ``make bench``'s ramp), with each process's CPU per turn beside the p50 / p95 / p99. So the
cost of a turn at human pace is told apart from a fixed cost of the stack's heartbeats, polls and
open streams (docs/performance.md, "A turn at human pace"). The idle states have no board in
play: a board's own timers are not among them.

``.venv/bin/python tools/human_pace_cost.py [TABLES] [SECONDS] [PROFILE_DIR]`` from the
checkout (500 and 10 by default, SECONDS at most 40: a table's Ready window, 120 s, has to
outlast both idle spells): a quick figure, not a test. With ``PROFILE_DIR``, py-spy then
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
from match_bench.players import Channels, Player, Sink, play_tables
from match_client.client import refusal_code

MAX_SECONDS = 40.0
WAITING = {"epoll_wait", "epoll_pwait", "epoll_pwait2"}
SYSTEM_CALLS = {
    "sendmsg", "sendto", "send", "write", "writev", "read", "readv", "recv", "recvmsg",
    "recvfrom", "syscall", "getpid", "epoll_ctl", "futex", "clock_gettime", "eventfd_write",
}  # fmt: skip


def per_second(before: dict[str, float], after: dict[str, float], seconds: float) -> str:
    return " ".join(f"{k}={(after[k] - before[k]) / seconds * 1000:.0f}" for k in after)


def kinds(raw: Path) -> str:
    """A native profile's samples by the function at the leaf: waiting in epoll, a system
    call (the socket's reads and writes among them), Python, or other C code (the
    interpreter's own, protobuf's, uvloop's, gRPC's); shares of the samples not waiting."""
    count: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        leaf = stack.rsplit(";", 1)[-1]
        name = leaf.split(" (", 1)[0]
        if name in WAITING:
            kind = "waiting"
        elif ".py:" in leaf:
            kind = "python"
        elif name in SYSTEM_CALLS:
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
    if not spy.exists():
        print("no py-spy beside this Python: `make install` brings it; no profile taken")
        return
    into.mkdir(parents=True, exist_ok=True)
    pids = bench.pids()
    raws = {name: into / f"human-{name}.txt" for name in ("lobby", "referee")}
    spies = []
    for name, raw in raws.items():
        argv = [str(spy), "record", "--native", "-d", "15", "-r", "100", "-p", str(pids[name])]
        argv += ["-f", "raw", "-o", str(raw)]
        spies.append(
            await asyncio.create_subprocess_exec(
                *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
            )
        )
    for (name, raw), proc in zip(raws.items(), spies, strict=True):
        _, err = await proc.communicate()
        if proc.returncode == 0 and raw.exists():
            print(f"{name}, samples not waiting in epoll: {kinds(raw)} ({raw})")
        else:
            print(f"{name}: py-spy failed (ptrace allowed?): {err.decode(errors='replace')[-300:]}")


async def open_streams(opened: list[tuple[Player, Player]]) -> None:
    """Open every seat's Play stream with a turn the lobby's edge refuses (a tile off the
    board): nothing reaches the referee, nothing changes, the stream stays open."""
    off_board = race_service_pb2.TurnTileRequest(tile=0)
    answers = await asyncio.gather(
        *(p.send("TurnTile", off_board) for pair in opened for p in pair), return_exceptions=True
    )
    codes = Counter(
        refusal_code(a) if isinstance(a, grpc.aio.AioRpcError) else repr(a) for a in answers
    )
    if set(codes) != {"tile_out_of_range"}:
        raise SystemExit(f"the streams did not open as meant: {dict(codes)}")


async def measure(
    bench: run.Bench, channels: Channels, tables: int, seconds: float, profile: Path | None
) -> None:
    async def idle(what: str) -> None:
        before, t0 = bench.cpu(), time.monotonic()
        await asyncio.sleep(seconds)
        print(f"{what}: CPU ms/s {per_second(before, bench.cpu(), time.monotonic() - t0)}")

    await asyncio.sleep(3)  # the services' start-up done
    await idle("no table")
    opened = await bench.open_tables(channels, tables, 120)
    await asyncio.sleep(3)
    await idle(f"{len(opened)} tables seated, no turn")
    await open_streams(opened)
    await asyncio.sleep(3)
    await idle(f"{len(opened)} tables, their {2 * len(opened)} Play streams open, no turn")
    sink, stop = Sink(), asyncio.Event()
    interval = run.HUMAN_INTERVAL_S  # each of the 2 players
    playing = []
    for n, pair in enumerate(opened):
        delay = random.uniform(0, interval)  # the tables' turns spread over the interval
        again = False  # one game a table
        play = play_tables(
            channels, bench.nc, pair, n, sink, stop, interval, delay, again, resign=False
        )
        playing.append(asyncio.create_task(play))
    try:
        await asyncio.sleep(run.HUMAN_FIRST_TURN_S)  # every table's first turn behind it
        stats, elapsed, cpu, flight = await bench.window(sink, seconds)
        fig = bench.figures(stats, elapsed, cpu, flight)
        turns = max(stats.accepted, 1)
        each = " ".join(f"{k}={v * 1e6 / turns:.0f}" for k, v in cpu.items())
        print(
            f"{len(opened)} tables at human pace: {fig['turns_per_s']} turns/s, "
            f"{fig['stack_cpu_us_per_turn']} us services + NATS a turn ({each}), "
            f"{fig['cpu_utilisation_cores']} cores, latency ms {fig['latency_ms']}, "
            f"refused {fig['refused']}, errors {fig['errors']}"
        )
        if profile is not None:
            await native_profiles(bench, profile)
    finally:
        stop.set()
        await asyncio.gather(*playing, return_exceptions=True)


async def main(tables: int, seconds: float, profile: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="human-cost-") as tmp:
        args = run.parse(["--out", tmp])
        stack = run.bench_stack(Path(tmp) / "s")
        try:
            stack.start()
            nc = await stack.connect_nats(name="human-cost")
            channels = Channels(stack.lobby_addr)
            try:
                bench = run.Bench(args, stack, nc, args.out, {})
                await measure(bench, channels, tables, seconds, profile)
            finally:
                await channels.close()
                await nc.close()
        finally:
            stack.stop()


if __name__ == "__main__":
    argv = sys.argv[1:]
    count = int(argv[0]) if argv else 500
    window = float(argv[1]) if len(argv) > 1 else 10.0
    if not 0 < window <= MAX_SECONDS:
        raise SystemExit(f"SECONDS from 1 to {MAX_SECONDS:g}: a table's Ready window is 120 s")
    asyncio.run(main(count, window, Path(argv[2]) if len(argv) > 2 else None))
