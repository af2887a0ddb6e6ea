"""What the readers' copies of the log cost nats-server per appended record, fsynced on every
record (as copies were made before match_bus.jetstream.copy_persist_mode) against written in the
background (as they are made now). One nats-server per round (``sync_interval: always``, the
streams made by ``match_bus.jetstream.ensure_stream``), ``RECORDS`` records appended 64 at a time
over ``TABLES`` tables, until both copies hold them; nats-server's CPU per record from /proc, its
fsyncs counted with perf (left out, and said, when perf is missing), records per second, the
rounds alternating. ``.venv/bin/python tools/copy_persist_cost.py [ROUNDS]`` from the checkout;
a quick figure, not a test."""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "libs"))
from match_bench.procstat import cpu_seconds as cpu_s
from match_bus import jetstream, subjects
from match_launch.natsserver import NatsServer

TABLES, RECORDS, IN_FLIGHT = 200, 6_000, 64


def counting_fsyncs(pid: int) -> subprocess.Popen[str] | None:
    """perf counting ``pid``'s fsync and fdatasync calls (kernel tracepoints: no cost to the
    server, unlike strace, whose ptrace stops doubled the server's CPU); None without perf."""
    if shutil.which("perf") is None:
        return None
    events = "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync"
    return subprocess.Popen(
        ["perf", "stat", "-x", ",", "-e", events, "-p", str(pid)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def fsyncs(perf: subprocess.Popen[str] | None) -> int | None:
    if perf is None:
        return None
    perf.send_signal(signal.SIGINT)
    summary = perf.communicate()[1]
    counts = [line.split(",")[0] for line in summary.splitlines() if "sys_enter_f" in line]
    return sum(int(c) for c in counts if c.isdigit()) if counts else None


async def one_round(how: str, workdir: Path) -> tuple[float, int | None, float]:
    """nats-server's CPU (us) and fsyncs per record, and records/s, with the copies ``how``."""
    server = NatsServer(workdir).start()
    made = jetstream.copy_config

    def copy_config(reader: str, name: str, replicas: int = 1):  # type: ignore[no-untyped-def]
        config = made(reader, name, replicas)
        if how == "synced":
            config.persist_mode = None  # as before copy_persist_mode
        return config

    try:
        nc = await nats.connect(server.url)
        js = nc.jetstream()
        jetstream.copy_config = copy_config
        try:
            await jetstream.ensure_stream(js)
        finally:
            jetstream.copy_config = made
        tables = [f"cost{i:08d}" for i in range(TABLES)]
        pid = server.process.pid  # type: ignore[union-attr]
        perf = counting_fsyncs(pid)
        await asyncio.sleep(0.5)  # perf attached
        before, started = cpu_s(pid), time.monotonic()
        for start in range(0, RECORDS, IN_FLIGHT):
            await asyncio.gather(
                *(
                    js.publish(subjects.events(tables[i % TABLES]), b"r" * 200)
                    for i in range(start, min(start + IN_FLIGHT, RECORDS))
                )
            )
        for name in subjects.EVENTS_COPIES.values():
            while (await js.stream_info(name)).state.last_seq < RECORDS:
                await asyncio.sleep(0.01)
        spent, took = cpu_s(pid) - before, time.monotonic() - started
        counted = fsyncs(perf)
        await nc.close()
        return spent / RECORDS * 1e6, counted, RECORDS / took
    finally:
        server.stop()


async def main(rounds: int) -> None:
    results: dict[str, list[tuple[float, int | None, float]]] = {"synced": [], "background": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for how in results:
                results[how].append(await one_round(how, Path(tmp) / f"{how}-{r}"))
    for how, got in results.items():
        us = " ".join(f"{u:.0f}" for u, _, _ in got)
        per = " ".join("?" if f is None else f"{f / RECORDS:.2f}" for _, f, _ in got)
        rate = " ".join(f"{r:.0f}" for _, _, r in got)
        print(
            f"copies {how}: nats-server {us} us per record; fsyncs per record {per}; "
            f"records/s {rate}"
        )
    print(
        f"({TABLES} tables, {RECORDS} records, {IN_FLIGHT} in flight, {rounds} alternating rounds;"
        " the log fsynced on every record in both; '?': no perf)"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
