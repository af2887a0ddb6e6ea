"""`python -m match_bench`: start the stack, load it, measure, write var/bench.json and .png.

Phases, one run, one nats-server: full speed (K tables, every player turns as fast as replies
come), the bare chain (same gRPC/NATS/JetStream, no game) at the same concurrency, a human pace
ramp up to N live tables (~1.3 turns/s per table), then idle tables (created and started, nobody
turns) for memory per table. Ends with the one ``bench:`` line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from nats.aio.client import Client

from match_bench import procstat
from match_bench.bare import METHOD
from match_bench.players import Channels, Player, Sink, Stats, open_table, play_tables
from match_bus import subjects
from match_launch.natsserver import free_port
from match_launch.stack import ONE_ADDRESS_MANY_PLAYERS, Stack

Job = Coroutine[Any, Any, None]
SERVICES = ("dealer", "ledger", "referee", "lobby")
HUMAN_TURNS_PER_TABLE_S = 1.3


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def latency_ms(values: list[float]) -> dict[str, float]:
    return {f"p{q}": round(percentile(values, q) * 1000, 2) for q in (50, 95, 99)}


@dataclass
class Bench:
    args: argparse.Namespace
    stack: Stack
    nc: Client
    out: Path
    results: dict[str, Any] = field(default_factory=dict)
    ledger_samples: list[dict[str, float]] = field(default_factory=list)
    extra: list[subprocess.Popen[bytes]] = field(default_factory=list)
    t_start: float = field(default_factory=time.monotonic)

    def log(self, text: str) -> None:
        print(f"[{time.monotonic() - self.t_start:6.1f}s] {text}", flush=True)

    # --- process figures --------------------------------------------------------------------

    def pids(self) -> dict[str, int]:
        pids = {name: p.pid for name, p in self.stack.processes.items()}
        if self.stack.nats is not None and self.stack.nats.process is not None:
            pids["nats"] = self.stack.nats.process.pid
        return pids

    def cpu(self) -> dict[str, float]:
        cpu = {name: procstat.cpu_seconds(pid) for name, pid in self.pids().items()}
        cpu["driver"] = sum(os.times()[:2])
        for i, proc in enumerate(self.extra):
            cpu[f"bare{i}"] = procstat.cpu_seconds(proc.pid)
        return cpu

    def rss(self) -> int:
        pids = self.pids()
        return sum(procstat.rss_bytes(pids[name]) for name in ("referee", "lobby"))

    # --- the ledger -------------------------------------------------------------------------

    async def ledger_point(self) -> dict[str, float]:
        info = await self.nc.jetstream().stream_info(subjects.EVENTS_STREAM)
        db = self.stack.workdir / "ledger.sqlite3"
        stored, events = 0, 0
        if db.exists():
            with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
                row = conn.execute("SELECT count(*), coalesce(sum(event_count), 0) FROM records")
                stored, events = row.fetchone()
        last = int(info.state.last_seq)
        ours = last - self.bare_messages()
        return {
            "t": time.monotonic() - self.t_start,
            "stream_last": last,
            "stored": stored,
            "events": events,
            "lag": ours - stored,
        }

    def bare_messages(self) -> int:
        return 0  # the bare chain writes to its own stream, BENCH_BARE

    async def sample_ledger(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(Exception):
                self.ledger_samples.append(await self.ledger_point())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2.0)

    # --- phases -----------------------------------------------------------------------------

    async def open_tables(
        self, channels: Channels, count: int, budget_s: float, start_n: int = 0
    ) -> list[tuple[Player, Player]]:
        """Open up to ``count`` tables, 16 at a time, stopping at the time budget."""
        opened: list[tuple[Player, Player]] = []
        deadline = time.monotonic() + budget_s
        counter = iter(range(start_n, start_n + count))

        async def worker() -> None:
            for n in counter:
                if time.monotonic() > deadline:
                    return
                try:
                    opened.append(await open_table(channels, self.nc, n))
                except (grpc.aio.AioRpcError, TimeoutError) as error:
                    self.log(f"open table failed: {error!r:.200}")

        await asyncio.gather(*(worker() for _ in range(16)))
        return opened

    async def window(
        self, sink: Sink, seconds: float, during: Callable[[], Job] | None = None
    ) -> tuple[Stats, float, dict[str, float], float]:
        """Measure ``seconds`` of the players: (stats, seconds, CPU deltas, mean in flight)."""
        sink.stats = Stats()
        cpu0, t0 = self.cpu(), time.monotonic()
        samples: list[int] = []
        end = t0 + seconds
        task = asyncio.create_task(during()) if during else None
        while time.monotonic() < end:
            samples.append(sink.in_flight)
            await asyncio.sleep(0.05)
        elapsed = time.monotonic() - t0
        cpu1 = self.cpu()
        stats, sink.stats = sink.stats, Stats()
        if task is not None:
            await task
        delta = {k: round(cpu1[k] - cpu0.get(k, 0.0), 3) for k in cpu1}
        return stats, elapsed, delta, sum(samples) / max(len(samples), 1)

    def figures(
        self, stats: Stats, elapsed: float, cpu: dict[str, float], in_flight: float
    ) -> dict[str, Any]:
        services = sum(cpu.get(k, 0.0) for k in SERVICES)
        turns = max(stats.accepted, 1)
        return {
            "turns": stats.accepted,
            "seconds": round(elapsed, 2),
            "turns_per_s": round(stats.accepted / elapsed, 1),
            "latency_ms": latency_ms(stats.latencies),
            "mean_in_flight": round(in_flight, 1),
            "refused": dict(stats.refused),
            "errors": dict(stats.errors),
            "cpu_s": cpu,
            "service_cpu_us_per_turn": round(services / turns * 1e6),
            "nats_cpu_us_per_turn": round(cpu.get("nats", 0.0) / turns * 1e6),
            "driver_cpu_us_per_turn": round(cpu.get("driver", 0.0) / turns * 1e6),
            "all_cpu_us_per_turn": round(sum(cpu.values()) / turns * 1e6),
            "cpu_utilisation_cores": round(sum(cpu.values()) / elapsed, 2),
        }

    async def full_speed(self, channels: Channels) -> None:
        a = self.args
        self.log(f"full speed: opening {a.tables} tables")
        t0 = time.monotonic()
        tables = await self.open_tables(channels, a.tables, a.create_budget)
        self.log(f"opened {len(tables)} tables in {time.monotonic() - t0:.1f}s")
        sink, stop = Sink(limit=asyncio.Semaphore(a.concurrency)), asyncio.Event()
        spread = min(12.0, a.full_seconds / 2)
        tasks = [
            asyncio.create_task(
                play_tables(
                    channels, self.nc, t, i, sink, stop, 0.0, random.uniform(0, spread), True
                )
            )
            for i, t in enumerate(tables)
        ]
        await asyncio.sleep(a.warmup)
        stats, elapsed, cpu, flight = await self.window(sink, a.full_seconds)
        fig = self.figures(stats, elapsed, cpu, flight)
        fig["tables"] = len(tables)
        fig["concurrency"] = a.concurrency
        self.results["full_speed"] = fig
        self.log(f"full speed: {fig['turns_per_s']} turns/s {fig['latency_ms']}")
        if a.profile:
            _, _, _, _ = await self.window(sink, 0.1, lambda: self.profile(a.profile_seconds))
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def profile(self, seconds: int) -> None:
        spy = Path(sys.executable).parent / "py-spy"
        if not spy.exists():
            self.results["profile"] = {"skipped": "py-spy is not installed"}
            return
        pids = self.pids()
        procs = {}
        for name in ("referee", "lobby", "ledger"):
            raw = self.out / f"prof-{name}.txt"
            procs[name] = await asyncio.create_subprocess_exec(
                str(spy), "record", "-d", str(seconds), "-r", "100", "-p", str(pids[name]),
                "-f", "raw", "-o", str(raw),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
        summary: dict[str, Any] = {}
        for name, proc in procs.items():
            _, err = await proc.communicate()
            raw = self.out / f"prof-{name}.txt"
            if proc.returncode != 0 or not raw.exists():
                summary[name] = {"error": err.decode(errors="replace")[-500:]}
                continue
            summary[name] = top_frames(raw)
        self.results["profile"] = summary

    async def bare_chain(self, concurrency: int) -> None:
        a = self.args
        addr = f"127.0.0.1:{free_port()}"
        admin = str(self.stack.identities.seed_file("admin"))
        env = dict(os.environ, PYTHONUNBUFFERED="1", NATS_NKEY_FILE=admin)
        logs = self.stack.workdir / "logs"
        for argv in (["responder", self.stack.url], ["server", addr, self.stack.url]):
            proc = subprocess.Popen(
                [sys.executable, "-m", "match_bench.bare", *argv],
                env=env,
                stdout=subprocess.PIPE,
                stderr=open(logs / f"bare-{argv[0]}.log", "ab"),  # noqa: SIM115
            )
            self.extra.append(proc)
            assert proc.stdout is not None
            line = await asyncio.to_thread(proc.stdout.readline)
            if line.strip() != b"ready":
                raise RuntimeError(f"bare {argv[0]} did not start")
        channels = Channels(addr)
        sink, stop = Sink(), asyncio.Event()

        async def caller(n: int) -> None:
            call = channels.pick().unary_unary(METHOD)
            payload = os.urandom(120) + n.to_bytes(4, "big")
            while not stop.is_set():
                stats = sink.stats
                sink.in_flight += 1
                t0 = time.perf_counter()
                try:
                    await call(payload, timeout=30)
                except grpc.aio.AioRpcError as error:
                    stats.errors[error.code().name] += 1
                    continue
                finally:
                    sink.in_flight -= 1
                stats.latencies.append(time.perf_counter() - t0)

        tasks = [asyncio.create_task(caller(n)) for n in range(concurrency)]
        await asyncio.sleep(min(3.0, a.warmup, a.bare_seconds))
        stats, elapsed, cpu, flight = await self.window(sink, a.bare_seconds)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await channels.close()
        for proc in self.extra:
            proc.terminate()
            proc.wait(10)
        cpu_chain = sum(v for k, v in cpu.items() if k.startswith("bare") or k == "nats")
        fig = self.figures(stats, elapsed, cpu, flight)
        fig["concurrency"] = concurrency
        fig["chain_cpu_us_per_call"] = round(cpu_chain / max(stats.accepted, 1) * 1e6)
        self.results["bare_chain"] = fig
        self.extra = []
        self.log(f"bare chain: {fig['turns_per_s']} calls/s {fig['latency_ms']}")

    async def human_pace(self, channels: Channels) -> tuple[int, int]:
        """Ramp to ``--human-tables`` live tables at ~1.3 turns/s each; returns (tables, bytes
        per table from the RSS growth of the referee and the lobby)."""
        a = self.args
        target = a.human_tables
        levels = sorted({max(1, target // 4), max(1, target // 2), target})
        interval = 2 / HUMAN_TURNS_PER_TABLE_S  # each of the 2 players, so 1.3 per table
        sink, stop = Sink(), asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        live = 0
        rss0 = self.rss()
        points = []
        for level in levels:
            need = level - live
            t0 = time.monotonic()
            tables = await self.open_tables(channels, need, a.create_budget, start_n=100_000 + live)
            took = time.monotonic() - t0
            for i, t in enumerate(tables):
                tasks.append(
                    asyncio.create_task(
                        play_tables(
                            channels,
                            self.nc,
                            t,
                            live + i,
                            sink,
                            stop,
                            interval,
                            random.uniform(0, interval),
                            False,
                            resign=False,
                        )
                    )
                )
            live += len(tables)
            self.log(f"human pace: {live} live tables (+{len(tables)} in {took:.1f}s)")
            await asyncio.sleep(min(5.0, interval * 2, a.human_seconds))
            stats, elapsed, cpu, flight = await self.window(sink, a.human_seconds)
            fig = self.figures(stats, elapsed, cpu, flight)
            fig["tables"] = live
            points.append(fig)
            self.log(f"  {fig['turns_per_s']} turns/s {fig['latency_ms']}")
            if len(tables) < need:
                self.log(f"  could only open {len(tables)} of {need} in {a.create_budget}s")
                break
        rss1 = self.rss()
        self.results["human_pace"] = points
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        per_table = (rss1 - rss0) // max(live, 1)
        self.results["memory_human"] = {"tables": live, "rss_delta": rss1 - rss0}
        return live, per_table

    async def idle_tables(self, channels: Channels, live: int) -> tuple[int, int] | None:
        a = self.args
        if a.idle_tables <= 0:
            return None
        await asyncio.sleep(min(2.0, a.settle))
        rss0 = self.rss()
        t0 = time.monotonic()
        tables = await self.open_tables(channels, a.idle_tables, a.idle_budget, start_n=500_000)
        took = time.monotonic() - t0
        rss1 = self.rss()
        per = (rss1 - rss0) // max(len(tables), 1)
        self.results["memory_idle"] = {
            "tables": len(tables),
            "seconds_to_open": round(took, 1),
            "tables_per_s": round(len(tables) / took, 1),
            "rss_before": rss0,
            "rss_after": rss1,
            "bytes_per_table": per,
            "live_tables_total": live + len(tables),
        }
        self.log(f"idle: {len(tables)} more tables in {took:.1f}s, {per} bytes/table")
        return live + len(tables), per

    async def run(self) -> str:
        a = self.args
        stop = asyncio.Event()
        sampler = asyncio.create_task(self.sample_ledger(stop))
        channels = Channels(self.stack.lobby_addr)
        try:
            await self.full_speed(channels)
            await self.bare_chain(a.concurrency)
            live, per_table = await self.human_pace(channels)
            idle = await self.idle_tables(channels, live)
            if idle is not None:
                live, per_table = idle
        finally:
            await asyncio.sleep(a.settle)
            stop.set()
            await sampler
            await channels.close()
        self.results["ledger"] = self.ledger_summary()
        full = self.results["full_speed"]["turns_per_s"]
        bare = self.results["bare_chain"]["turns_per_s"]
        at_target = self.results["human_pace"][-1]
        self.results["summary"] = {
            "ratio": round(full / bare, 3) if bare else 0.0,
            "p99_ms": at_target["latency_ms"]["p99"],
            "p99_tables": at_target["tables"],
            "tables": live,
            "bytes_per_table": per_table,
        }
        s = self.results["summary"]
        return (
            f"bench: ratio={s['ratio']:.3f} p99_ms={s['p99_ms']:.1f} tables={s['tables']} "
            f"bytes_per_table={s['bytes_per_table']}"
        )

    def ledger_summary(self) -> dict[str, Any]:
        samples = self.ledger_samples
        if len(samples) < 2:
            return {"samples": len(samples)}
        first, last = samples[0], samples[-1]
        span = max(last["t"] - first["t"], 1e-9)
        rates = [
            (b["events"] - a["events"]) / max(b["t"] - a["t"], 1e-9)
            for a, b in itertools.pairwise(samples)
        ]
        return {
            "samples": len(samples),
            "records_stored": last["stored"],
            "events_stored": last["events"],
            "events_per_s_mean": round((last["events"] - first["events"]) / span, 1),
            "events_per_s_peak": round(max(rates), 1),
            "lag_max_records": max(s["lag"] for s in samples),
            "lag_final_records": last["lag"],
            "series": samples,
        }


def top_frames(raw: Path, n: int = 12) -> dict[str, Any]:
    """Self and inclusive sample shares of the top frames in py-spy's collapsed (raw) output."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count

    def share(counter: Counter[str]) -> list[tuple[str, float]]:
        return [(f, round(100 * c / max(total, 1), 1)) for f, c in counter.most_common(n)]

    return {"samples": total, "self_pct": share(own), "inclusive_pct": share(inclusive)}


def table_text(results: dict[str, Any]) -> str:
    head = ("phase", "tables", "turns/s", "p50 ms", "p95 ms", "p99 ms", "in flight", "us/turn")
    rows = [head]

    def row(name: str, fig: dict[str, Any], tables: Any) -> None:
        lat = fig["latency_ms"]
        rows.append(
            (name, str(tables), f"{fig['turns_per_s']:.0f}", f"{lat['p50']:.1f}",
             f"{lat['p95']:.1f}", f"{lat['p99']:.1f}", f"{fig['mean_in_flight']:.0f}",
             f"{fig['service_cpu_us_per_turn']}/{fig['all_cpu_us_per_turn']}")
        )  # fmt: skip

    row("full speed", results["full_speed"], results["full_speed"]["tables"])
    row("bare chain", results["bare_chain"], f"c={results['bare_chain']['concurrency']}")
    for point in results["human_pace"]:
        row("human pace", point, point["tables"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.append("us/turn: CPU of the four services / of everything (NATS, the driver, bare)")
    ledger = results.get("ledger", {})
    lines.append(
        f"ledger: {ledger.get('events_per_s_mean')} events/s mean, "
        f"{ledger.get('events_per_s_peak')} peak; lag max {ledger.get('lag_max_records')} "
        f"records, final {ledger.get('lag_final_records')}"
    )
    for key in ("memory_human", "memory_idle"):
        if key in results:
            lines.append(f"{key}: {json.dumps(results[key])}")
    return "\n".join(lines)


def chart(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    human = results["human_pace"]
    x = [p["turns_per_s"] for p in human]
    for q, style in (("p50", "o-"), ("p95", "s-"), ("p99", "^-")):
        ax.plot(x, [p["latency_ms"][q] for p in human], style, label=f"human pace {q}")
    for p in human:
        ax.annotate(f"{p['tables']} tables", (p["turns_per_s"], p["latency_ms"]["p99"]))
    for name, marker in (("full_speed", "X"), ("bare_chain", "D")):
        f = results[name]
        ax.scatter([f["turns_per_s"]], [f["latency_ms"]["p99"]], marker=marker, s=80,
                   label=f"{name.replace('_', ' ')} p99")  # fmt: skip
    ax.set_xlabel("accepted turns (calls) per second")
    ax.set_ylabel("client-side latency, ms")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title("Match: turn latency against load (2 cores)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m match_bench", description=__doc__)
    p.add_argument("--out", type=Path, default=Path("var"))
    p.add_argument("--tables", type=int, default=200, help="tables at full speed")
    p.add_argument(
        "--concurrency", type=int, default=64, help="turns in flight at full speed (and bare)"
    )
    p.add_argument("--warmup", type=float, default=8.0)
    p.add_argument("--full-seconds", type=float, default=20.0)
    p.add_argument("--bare-seconds", type=float, default=15.0)
    p.add_argument("--human-tables", type=int, default=1000)
    p.add_argument("--human-seconds", type=float, default=15.0)
    p.add_argument("--idle-tables", type=int, default=10_000)
    p.add_argument("--idle-budget", type=float, default=70.0, help="seconds to open idle tables")
    p.add_argument("--create-budget", type=float, default=90.0, help="seconds per batch")
    p.add_argument("--settle", type=float, default=3.0, help="seconds for the ledger to catch up")
    p.add_argument("--profile", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--profile-seconds", type=int, default=10)
    return p.parse_args(argv)


async def amain(args: argparse.Namespace) -> str:
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="match-bench-") as tmp:
        stack = Stack(
            Path(tmp) / "stack",
            # Eight connections from one address carry thousands of players here: the
            # per-address limits, meant for one app, are off; every player's own limit stays on.
            env={"REFEREE_FILL_WAIT_MS": "86400000", **ONE_ADDRESS_MANY_PLAYERS},
            services=SERVICES,
        )
        stack.start()
        bench: Bench | None = None
        try:
            nc = await stack.connect_nats(name="match-bench")
            bench = Bench(args, stack, nc, args.out)
            bench.log(f"stack up at {stack.lobby_addr} ({len(stack.processes)} services)")
            line = await bench.run()
            await nc.close()
        finally:
            if bench is not None:
                for proc in bench.extra:
                    proc.kill()
                    proc.wait()
            stack.stop()
    results = bench.results
    results["settings"] = {k: str(v) for k, v in vars(args).items()}
    results["summary_line"] = line
    (args.out / "bench.json").write_text(json.dumps(results, indent=2))
    chart(results, args.out / "bench.png")
    print(table_text(results))
    return line


def main(argv: list[str] | None = None) -> None:
    line = asyncio.run(amain(parse(argv)))
    print(line, flush=True)


if __name__ == "__main__":
    main()
