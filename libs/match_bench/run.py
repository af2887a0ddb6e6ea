"""`python -m match_bench`: start the stack, load it, measure, write var/bench.json and .png.

First the event loop: short full-speed steps of the race on fresh stacks whose services run on
uvloop and asyncio in turn (A B A B, ``--loop-rounds``); the other loop wins only when every
one of its steps beat every step of the services' default (:func:`loop_winner`), and every stack
started after runs its services on the winner. Then the phases on the stack
as Match runs it (NATS with ``sync_interval: always``): full speed (a closed loop of
``--concurrency`` TurnTile calls, fed with as many tables as keep every slot busy), the bare
chain (same gRPC/NATS/JetStream, no game) at the same concurrency, a human-pace ramp (~1.3
turns/s per table, stepping until p99 passes ``--p99-ms``), then idle tables (created and
started, nobody turns) for memory per table. Then the same human-pace ramp on a second stack
whose NATS syncs every ``--group-sync`` (group commit), for the price of durability, and the
scripted load of every other game (match_bench.games) at full speed on a third. Ends with the
one ``bench:`` line.

On a stack of its own, full speed at ``--concurrency`` turns in flight, then with twice as
many, and twice again, until two doublings in a row gain nothing (``--saturate-to``,
``--saturate-gain``): ``turns_s`` and ``cpu_us_per_turn`` on the line are its step with the most
turns a second, ``fixed_turns_s`` and ``fixed_cpu_us_per_turn`` the main stack's full speed at
``--concurrency``, which the unary and view phases, the bare chain and the ratio match.

The race's commands go through a transport (match_bench.transport): each seat's ``Play``
stream (``turns_s``, the human-pace ramp, the loop steps and the other games), and, in the same
run right after it, the same full speed over one unary call per command (``unary_turns_s``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
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
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from nats.aio.client import Client

from match.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc
from match_bench import games, hops, procstat, transport
from match_bench.bare import METHOD
from match_bench.players import (
    Channels,
    Player,
    Sink,
    Stats,
    open_table,
    pause,
    play_tables,
)
from match_bus import subjects
from match_bus.service import DEFAULT_EVENT_LOOP, EVENT_LOOPS, tune_gc
from match_client.client import MatchClient
from match_launch.child import tied
from match_launch.natsserver import NatsServer, free_port
from match_launch.stack import ONE_ADDRESS_MANY_PLAYERS, Stack
from match_rules.race.settings import COUNTDOWN_MS

Job = Coroutine[Any, Any, None]
SERVICES = ("dealer", "ledger", "referee", "lobby", "players")
OTHER_LOOP = next(loop for loop in EVENT_LOOPS if loop != DEFAULT_EVENT_LOOP)
TRANSPORT = "play"  # every phase's; the unary path is measured beside it at full speed
UNARY = "unary"
VIEW = "view"  # full speed once more, every seat following its view (as the client apps do)
# Every game but the race (whose idle tables are started, 2-seat races), and its seats: one for
# a solo game (it starts at once), MATCH 5's least (three: its tables wait for players).
IDLE_GAMES = (
    (common_pb2.GAME_KIND_CONCENTRATION, 1),
    (common_pb2.GAME_KIND_MATCH_CARDS, 1),
    (common_pb2.GAME_KIND_NUMBER_MATCH, 1),
    (common_pb2.GAME_KIND_MATCH_FIVE, 3),
)
HUMAN_TURNS_PER_TABLE_S = 1.3
HUMAN_INTERVAL_S = 2 / HUMAN_TURNS_PER_TABLE_S  # between one player's turns (2 a table)
# A table just opened turns first after its spread (up to an interval), its players' Ready,
# the board's countdown and a first pause (up to 1.2 intervals): a human-pace window opens
# after that, so that it measures every table at its pace (~6.9 s).
HUMAN_FIRST_TURN_S = 2.2 * HUMAN_INTERVAL_S + COUNTDOWN_MS / 1000 + 0.5
# The phases profiled after their window (py-spy), by phase: the raw stacks' file prefix and
# the results' key. The view phase is how the client apps play, so it is profiled as well.
PROFILED = {"full_speed": ("prof", "profile"), "full_speed_view": ("prof-view", "profile_view")}


def pin(pid: int, cpus: set[int]) -> None:
    """What ``taskset -a -p`` does: every thread of ``pid`` may run on ``cpus`` only (a thread
    made later inherits its maker's set). A thread gone meanwhile is passed over."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(int(tid), cpus)


def two_cpus() -> tuple[int, int] | None:
    """Two CPUs this process may use (the stack's and the load's), or None on one."""
    mine = sorted(os.sched_getaffinity(0))
    return (mine[0], mine[1]) if len(mine) >= 2 else None


_windows = 0  # measuring windows open in this process (two stacks measure at once)


@contextlib.contextmanager
def driver_frozen() -> Iterator[None]:
    """While a window measures, the driver's own collector skips what the driver held when the
    window began (its tables, players, channels and latencies): a full collection of those
    stopped every turn in flight for 100-200 ms at 1,000 tables, a pause of the load
    generator, not of Match (docs/performance.md, "The garbage collector"). Freezing frees
    nothing and copies nothing; what it set aside is collected as usual once the last window
    ends."""
    global _windows
    if _windows == 0:
        gc.freeze()
    _windows += 1
    try:
        yield
    finally:
        _windows -= 1
        if _windows == 0:
            gc.unfreeze()


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
    via: str = TRANSPORT  # how the players send their commands (match_bench.transport)

    @contextlib.contextmanager
    def sending(self, via: str) -> Iterator[None]:
        """The players made meanwhile send over ``via`` (match_bench.transport), then over
        Play again."""
        self.via = via
        try:
            yield
        finally:
            self.via = TRANSPORT

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
                    opened.append(await open_table(channels, self.nc, n, self.via))
                except (grpc.aio.AioRpcError, TimeoutError) as error:
                    self.log(f"open table failed: {error!r:.200}")

        await asyncio.gather(*(worker() for _ in range(16)))
        return opened

    async def window(
        self, sink: Sink, seconds: float, during: Callable[[], Job] | None = None
    ) -> tuple[Stats, float, dict[str, float], float]:
        """Measure ``seconds`` of the players: (stats, seconds, CPU deltas, the time-weighted
        mean of the calls in flight)."""
        with driver_frozen():
            sink.stats = Stats()
            cpu0, t0, area0 = self.cpu(), time.monotonic(), sink.area()
            task = asyncio.create_task(during()) if during else None
            await asyncio.sleep(seconds)
            elapsed = time.monotonic() - t0
            flight = (sink.area() - area0) / max(elapsed, 1e-9)
            cpu1 = self.cpu()
            stats, sink.stats = sink.stats, Stats()
        if task is not None:
            await task
        delta = {k: round(cpu1[k] - cpu0.get(k, 0.0), 3) for k in cpu1}
        return stats, elapsed, delta, flight

    def figures(
        self, stats: Stats, elapsed: float, cpu: dict[str, float], in_flight: float
    ) -> dict[str, Any]:
        services = sum(cpu.get(k, 0.0) for k in SERVICES)
        # A window without a turn (a stalled step) has no cost per turn: 0, not all its CPU.
        per_turn = 1e6 / stats.accepted if stats.accepted else 0.0
        return {
            "turns": stats.accepted,
            "seconds": round(elapsed, 2),
            "turns_per_s": round(stats.accepted / elapsed, 1),
            "latency_ms": latency_ms(stats.latencies),
            "mean_in_flight": round(in_flight, 1),
            "refused": dict(stats.refused),
            "errors": dict(stats.errors),
            "cpu_s": cpu,
            "service_cpu_us_per_turn": round(services * per_turn),
            "nats_cpu_us_per_turn": round(cpu.get("nats", 0.0) * per_turn),
            "stack_cpu_us_per_turn": round((services + cpu.get("nats", 0.0)) * per_turn),
            "dealer_cpu_us_per_turn": round(cpu.get("dealer", 0.0) * per_turn),
            "driver_cpu_us_per_turn": round(cpu.get("driver", 0.0) * per_turn),
            "all_cpu_us_per_turn": round(sum(cpu.values()) * per_turn),
            "cpu_utilisation_cores": round(sum(cpu.values()) / elapsed, 2),
        }

    async def full_speed(
        self,
        channels: Channels,
        key: str = "full_speed",
        tables: int | None = None,
        warmup: float | None = None,
        seconds: float | None = None,
        concurrency: int | None = None,
    ) -> dict[str, Any]:
        """Every player turns as fast as replies come, at most ``concurrency`` (``--concurrency``)
        TurnTile calls in flight (a closed loop, like the bare chain's callers). A player's last
        pair of a board waits until 12.1 s after its first turn, so a fixed set of tables runs
        dry; a feeder opens more whenever fewer than twice ``concurrency`` players are queued for
        a slot, so the load offered stays above what the stack carries and the window measures
        the stack."""
        a = self.args
        tables = a.tables if tables is None else tables
        warmup = a.warmup if warmup is None else warmup
        seconds = a.full_seconds if seconds is None else seconds
        concurrency = a.concurrency if concurrency is None else concurrency
        sink, stop = Sink(limit=asyncio.Semaphore(concurrency)), asyncio.Event()
        tasks: list[asyncio.Task[None]] = []
        views = transport.Viewing.tally = transport.ViewTally()  # this phase's seats' views

        def launch(tables: list[tuple[Player, Player]], spread: float) -> None:
            for t in tables:
                n = len(tasks)
                play = play_tables(
                    channels, self.nc, t, n, sink, stop, 0.0, random.uniform(0, spread), True
                )
                tasks.append(asyncio.create_task(play))

        self.log(f"full speed: opening {tables} tables")
        t0 = time.monotonic()
        launch(await self.open_tables(channels, tables, a.create_budget), min(2.0, warmup))
        self.log(f"opened {len(tasks)} tables in {time.monotonic() - t0:.1f}s")
        feeder = asyncio.create_task(self.feed(channels, sink, stop, tasks, launch, concurrency))
        # Warm up for --warmup s, longer (up to three times) while the slots are not yet full.
        t0, area0 = time.monotonic(), sink.area()
        await asyncio.sleep(warmup)
        while time.monotonic() - t0 < 3 * warmup:
            t1, area1 = time.monotonic(), sink.area()
            await asyncio.sleep(1.0)
            if (sink.area() - area1) / (time.monotonic() - t1) >= 0.95 * concurrency:
                break
        warm = (sink.area() - area0) / (time.monotonic() - t0)
        self.log(
            f"warm after {time.monotonic() - t0:.1f}s: {len(tasks)} tables, {warm:.1f} in flight"
        )
        before, items, messages = len(tasks), views.items, views.messages
        stats, elapsed, cpu, flight = await self.window(sink, seconds)
        fig = self.figures(stats, elapsed, cpu, flight)
        fig["transport"] = self.via
        if self.via == VIEW:  # what came down the seats' streams besides the replies
            fig["view_items_per_turn"] = round((views.items - items) / max(fig["turns"], 1), 2)
            fig["view_messages_per_turn"] = round(
                (views.messages - messages) / max(fig["turns"], 1), 2
            )
        fig["tables"] = len(tasks)
        fig["tables_opened_in_window"] = len(tasks) - before
        fig["concurrency"] = concurrency
        self.results[key] = fig
        self.log(
            f"{key}: {fig['turns_per_s']} turns/s {fig['latency_ms']}, "
            f"{flight:.1f} of {concurrency} in flight, {len(tasks)} tables"
        )
        if a.profile and key in PROFILED:
            prefix, into = PROFILED[key]
            _, _, _, _ = await self.window(
                sink, 0.1, lambda: self.profile(a.profile_seconds, prefix, into)
            )
            split = hops.of_phase(self.results[into], fig)  # CPU per turn, hop by hop
            self.results[into]["hops_us"] = split
            for process, hop_us in split.items():
                self.log(f"{key}, {process} per turn: " + ", ".join(
                    f"{hop} {us} us" for hop, us in hop_us.items()
                ))  # fmt: skip
        stop.set()
        await feeder
        ended = await asyncio.gather(*tasks, return_exceptions=True)
        # A table whose players met an error they do not wait out (a stream refused over a
        # cap, say) stops playing: counted, so a phase that lost its tables says so.
        failed = [e for e in ended if isinstance(e, Exception)]
        fig["tables_failed"] = len(failed)
        if self.via == VIEW:
            fig["views_ended"] = dict(views.ended)  # "ok": the game over; else the status
        if failed:
            self.log(f"{key}: {len(failed)} tables stopped on an error, first {failed[0]!r:.200}")
        return fig

    async def saturate(self, channels: Channels) -> None:
        """Full speed over Play at ``--concurrency`` turns in flight, then at twice as many, and
        twice again (up to ``--saturate-to`` in flight), until two doublings in a row fail to
        beat the best step so far by ``--saturate-gain`` (one step alone may be a noisy
        moment): how many turns a second the stack carries when it is offered more than it can
        take, which a fixed ``--concurrency`` does not show (each process reads, judges,
        appends and acks more at a wake-up as its queues deepen). The steps go under
        ``saturation``; the best is ``turns_s`` on the line. Its own stack: the thousands of
        tables each step leaves behind would expire during the main stack's idle tables and
        hide their memory."""
        a = self.args
        steps: list[dict[str, Any]] = []
        best: dict[str, Any] | None = None
        concurrency, misses, gain = a.concurrency, 0, 0.0
        while True:
            fig = await self.full_speed(
                channels,
                "saturation_step",
                tables=min(a.max_tables, max(a.tables, 2 * concurrency)),
                concurrency=concurrency,
            )
            steps.append(self.results.pop("saturation_step"))
            if best is not None:
                gain = fig["turns_per_s"] / max(best["turns_per_s"], 1e-9) - 1
                misses = 0 if gain >= a.saturate_gain else misses + 1
                self.log(
                    f"saturation: {concurrency} in flight, {gain:+.1%} turns/s on the best "
                    f"before ({best['concurrency']} in flight)"
                )
            if best is None or fig["turns_per_s"] > best["turns_per_s"]:
                best = fig
            if misses >= 2:
                break
            if concurrency * 2 > a.saturate_to:
                if len(steps) > 1 and misses == 0 and gain > 0:  # the last doubling gained
                    self.log(f"saturation: stopped at --saturate-to {a.saturate_to}, still rising")
                break
            concurrency *= 2
        self.results["saturation"] = steps

    async def run_saturation(self) -> None:
        """The saturation ramp (:meth:`saturate`) on this fresh stack."""
        channels = Channels(self.stack.lobby_addr)
        try:
            await self.saturate(channels)
        finally:
            await channels.close()

    async def feed(
        self,
        channels: Channels,
        sink: Sink,
        stop: asyncio.Event,
        tasks: list[asyncio.Task[None]],
        launch: Callable[[list[tuple[Player, Player]], float], None],
        concurrency: int,
    ) -> None:
        """Open 16 more tables whenever fewer than twice ``concurrency`` players wait for a
        slot (up to ``--max-tables``): a new table's players queue only after Ready and the 3 s
        countdown, so the queue is kept deep enough to cover that."""
        a = self.args
        while not stop.is_set():
            if sink.waiting >= 2 * concurrency or len(tasks) >= a.max_tables:
                await pause(stop, 0.1)
                continue
            count = min(16, a.max_tables - len(tasks))
            batch = await self.open_tables(channels, count, 30.0, start_n=10_000 + len(tasks))
            launch(batch, 0.0)
            if not batch:
                await pause(stop, 1.0)

    async def profile(self, seconds: int, prefix: str = "prof", key: str = "profile") -> None:
        """py-spy on the referee, the lobby and the ledger for ``seconds``: the raw stacks in
        ``<prefix>-<service>.txt``, their top frames in the results under ``key``."""
        spy = Path(sys.executable).parent / "py-spy"
        if not spy.exists():
            self.results[key] = {"skipped": "py-spy is not installed: make install brings it"}
            return
        pids = self.pids()
        procs = {}
        for name in ("referee", "lobby", "ledger"):
            raw = self.out / f"{prefix}-{name}.txt"
            procs[name] = await asyncio.create_subprocess_exec(
                str(spy), "record", "-d", str(seconds), "-r", "100", "-p", str(pids[name]),
                "-f", "raw", "-o", str(raw),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
        summary: dict[str, Any] = {}
        for name, proc in procs.items():
            _, err = await proc.communicate()
            raw = self.out / f"{prefix}-{name}.txt"
            if proc.returncode != 0 or not raw.exists():
                summary[name] = {"error": err.decode(errors="replace")[-500:]}
                continue
            summary[name] = top_frames(raw)
            summary[name]["hops_pct"] = hops.split(raw.read_text(), name)
        self.results[key] = summary

    async def bare_chain(self, concurrency: int) -> None:
        a = self.args
        addr = f"127.0.0.1:{free_port()}"
        admin = str(self.stack.identities.seed_file("admin"))
        env = dict(os.environ, PYTHONUNBUFFERED="1", NATS_NKEY_FILE=admin)
        logs = self.stack.workdir / "logs"
        for argv in (["responder", self.stack.url], ["server", addr, self.stack.url]):
            proc = subprocess.Popen(
                tied([sys.executable, "-m", "match_bench.bare", *argv]),
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
                sink.enter()
                t0 = time.perf_counter()
                try:
                    await call(payload, timeout=30)
                except grpc.aio.AioRpcError as error:
                    stats.errors[error.code().name] += 1
                    continue
                finally:
                    sink.leave()
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

    async def human_pace(self, channels: Channels, key: str = "human_pace") -> tuple[int, int]:
        """Live tables at ~1.3 turns/s each, in steps: ``--human-tables`` / 4, / 2 and whole
        (always: the target's p99 is the ``bench:`` line's); halving from the first step while
        its p99 is over ``--p99-ms`` (at most twice); beyond the target in steps of half of it
        while the p99 stays under (up to ``--human-max-tables``). Writes the points under
        ``key``; returns (tables opened, bytes per table from the RSS growth of the referee and
        the lobby). A table taken out of the ramp stops turning and stays open."""
        a = self.args
        target = a.human_tables
        interval = HUMAN_INTERVAL_S  # each of the 2 players, so 1.3 per table
        sink = Sink()
        playing: list[tuple[asyncio.Event, asyncio.Task[None]]] = []
        stopped: list[asyncio.Task[None]] = []
        rss0 = self.rss()
        points: list[dict[str, Any]] = []
        opened = 0

        async def level(tables: int) -> bool:
            """Measure ``tables`` playing; False when they could not all be opened."""
            nonlocal opened
            need = tables - len(playing)
            t0 = time.monotonic()
            if need > 0:
                new = await self.open_tables(
                    channels, need, a.create_budget, start_n=100_000 + opened
                )
                opened += len(new)
                for t in new:
                    stop = asyncio.Event()
                    play = play_tables(
                        channels, self.nc, t, opened, sink, stop, interval,
                        random.uniform(0, interval), False, resign=False,
                    )  # fmt: skip
                    playing.append((stop, asyncio.create_task(play)))
            while len(playing) > tables:
                stop, task = playing.pop()
                stop.set()
                stopped.append(task)
            took = time.monotonic() - t0
            self.log(f"{key}: {len(playing)} tables playing ({need:+d} in {took:.1f}s)")
            settle = HUMAN_FIRST_TURN_S if need > 0 else 2 * interval
            await asyncio.sleep(min(settle, a.human_seconds))
            stats, elapsed, cpu, flight = await self.window(sink, a.human_seconds)
            fig = self.figures(stats, elapsed, cpu, flight)
            fig["tables"] = len(playing)
            points.append(fig)
            self.log(f"  {fig['turns_per_s']} turns/s {fig['latency_ms']}")
            if len(playing) < tables:
                self.log(f"  could only open {len(playing)} of {tables} in {a.create_budget}s")
                return False
            return True

        def under(point: dict[str, Any]) -> bool:
            return bool(point["latency_ms"]["p99"] < a.p99_ms)  # False for nan (no turns)

        steps = sorted({max(1, target // 4), max(1, target // 2), target})
        full = await level(steps[0])
        down = steps[0] // 2
        while full and not under(points[-1]) and down >= max(1, steps[0] // 4):
            full = await level(down)
            down //= 2
        for tables in steps[1:]:
            full = full and await level(tables)
        step = max(1, target // 2)
        tables = target + step
        while full and under(points[-1]) and tables <= a.human_max_tables:
            full = await level(tables)
            tables += step
        rss1 = self.rss()
        self.results[key] = points
        for stop, task in playing:
            stop.set()
            stopped.append(task)
        await asyncio.gather(*stopped, return_exceptions=True)
        per_table = (rss1 - rss0) // max(opened, 1)
        self.results[f"memory_{key}"] = {"tables": opened, "rss_delta": rss1 - rss0}
        return opened, per_table

    async def recovered(self, channels: Channels) -> float | None:
        """Seconds until a table opens again after the ramp (one try every 2 s, up to
        ``--recover-budget``), or None when none did. A ramp past what the stack carries leaves
        a backlog; memory per idle table means something only once it has drained."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < self.args.recover_budget:
            try:
                await open_table(channels, self.nc, 900_000 + int(time.monotonic() * 10))
            except (grpc.aio.AioRpcError, TimeoutError) as error:
                self.log(f"not yet open again: {error!r:.120}")
                await asyncio.sleep(2.0)
                continue
            return round(time.monotonic() - t0, 1)
        return None

    async def idle_tables(self, channels: Channels, live: int) -> tuple[int, int] | None:
        a = self.args
        if a.idle_tables <= 0:
            return None
        await asyncio.sleep(min(2.0, a.settle))
        recovered = await self.recovered(channels)
        self.results["recovered_after_s"] = recovered
        self.log(f"tables open again after the ramp: {recovered} s")
        if recovered is None:
            self.results["memory_idle"] = {"tables": 0, "refused": "no table opened"}
            return None
        rss0 = self.rss()
        t0 = time.monotonic()
        tables = await self.open_tables(channels, a.idle_tables, a.idle_budget, start_n=500_000)
        took = time.monotonic() - t0
        rss1 = self.rss()
        if len(tables) < min(100, a.idle_tables):
            self.log(f"idle: only {len(tables)} tables opened; memory from the ramp instead")
            self.results["memory_idle"] = {"tables": len(tables), "too_few": True}
            return None
        per = (rss1 - rss0) // len(tables)
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

    async def idle_games(self, channels: Channels) -> None:
        """Bytes per idle table of every other game: ``--idle-per-game`` private tables of each,
        one seat, the game's default settings (a solo game starts at once and holds its deal;
        MATCH 5 needs three players, so its tables wait for them), nobody plays."""
        if self.args.idle_per_game <= 0:
            return
        games = {}
        for kind, seats in IDLE_GAMES:
            name = common_pb2.GameKind.Name(kind)
            games[name] = fig = await self.idle_game(channels, kind, seats)
            self.log(f"idle {name}: {fig['tables']} tables, {fig['bytes_per_table']} bytes/table")
        self.results["memory_by_game"] = games

    async def idle_game(
        self, channels: Channels, kind: common_pb2.GameKind, seats: int
    ) -> dict[str, Any]:
        a = self.args
        made = 0

        async def one(n: int) -> None:
            nonlocal made
            lobby: Any = lobby_pb2_grpc.LobbyServiceStub(channels.pick())  # type: ignore[no-untyped-call, unused-ignore]
            request = lobby_pb2.CreateTableRequest(
                game_kind=kind, seats=seats, visibility=common_pb2.VISIBILITY_PRIVATE,
                display_name=f"idle{n}",
            )  # fmt: skip
            try:
                await lobby.CreateTable(request, timeout=30)
                made += 1
            except grpc.aio.AioRpcError as error:
                self.log(f"idle table failed: {error.code().name} {error.details()}")

        await asyncio.sleep(min(2.0, a.settle))
        rss0, t0 = self.rss(), time.monotonic()
        for start in range(0, a.idle_per_game, 16):
            await asyncio.gather(*(one(start + i) for i in range(min(16, a.idle_per_game - start))))
        await asyncio.sleep(min(2.0, a.settle))
        return {
            "tables": made,
            "seats": seats,
            "bytes_per_table": (self.rss() - rss0) // made if made else None,
            "seconds_to_open": round(time.monotonic() - t0, 1),
        }

    async def run(self) -> None:
        """The phases on the stack that fsyncs every append (how Match runs)."""
        a = self.args
        stop = asyncio.Event()
        sampler = asyncio.create_task(self.sample_ledger(stop))
        channels = Channels(self.stack.lobby_addr)
        try:
            await self.full_speed(channels)
            with self.sending(UNARY):  # the old path, on the same stack, right after
                await self.full_speed(channels, "full_speed_unary")
            with self.sending(VIEW):  # and as the apps play: every seat follows its view too
                await self.full_speed(channels, "full_speed_view")
            await self.bare_chain(a.concurrency)
            live, per_table = await self.human_pace(channels)
            idle = await self.idle_tables(channels, live)
            if idle is not None:
                live, per_table = idle
            await self.idle_games(channels)
        finally:
            await asyncio.sleep(a.settle)
            stop.set()
            await sampler
            await channels.close()
        self.results["ledger"] = self.ledger_summary()
        self.results["held"] = {"tables": live, "bytes_per_table": per_table}

    async def run_loop_step(self) -> None:
        """One step of the event loops' alternation: a short full speed on this fresh stack,
        whose services run on the loop its ``MATCH_EVENT_LOOP`` names."""
        a = self.args
        channels = Channels(self.stack.lobby_addr)
        try:
            await self.full_speed(
                channels, "loop_step", a.loop_tables, a.loop_warmup, a.loop_seconds
            )
        finally:
            await channels.close()
        fig = self.results.pop("loop_step")
        fig["loop"] = self.stack.env["MATCH_EVENT_LOOP"]
        self.results.setdefault("loop_steps", []).append(fig)

    async def run_games(self) -> None:
        """The scripted load of every game that has a script, one after the other."""
        channels = Channels(self.stack.lobby_addr)
        client = MatchClient(self.stack.lobby_addr, timeout=60)
        try:
            for slug in games.scripted_slugs():
                fig = await self.game_load(client, channels, slug)
                self.results.setdefault("games", {})[slug] = fig
        finally:
            await client.close()
            await channels.close()

    async def game_load(self, client: MatchClient, channels: Channels, slug: str) -> dict[str, Any]:
        """``slug``'s tables played by script at full speed (at most ``--concurrency`` commands
        in flight), measured for ``--game-seconds`` after a warm-up of ``--game-warmup`` (up to
        three times as long until 95 % of the slots are busy). A feeder adds tables (8 at a
        time, up to ``--max-tables``) while fewer commands wait for a slot, counting the tables
        being opened as waiting, than there are slots: the load offered stays above what the
        stack carries, and a slow stack is not flooded with new tables. Then ``--settle`` s for
        what the game's tables left (deals, records) before the next game."""
        a = self.args
        sink, stop = Sink(limit=asyncio.Semaphore(a.concurrency)), asyncio.Event()
        counts = games.Counts()
        tasks: list[asyncio.Task[None]] = []

        def opener(n: int) -> Any:
            return games.open_table(client, channels, self.nc, slug, n, self.via)

        def add(count: int) -> None:
            for _ in range(count):
                play = games.keep_playing(opener, len(tasks), sink, stop, counts)
                tasks.append(asyncio.create_task(play))

        async def feed() -> None:
            while not stop.is_set():
                pending = sink.waiting + counts.opening
                if pending < a.concurrency and len(tasks) < a.max_tables:
                    add(min(8, a.max_tables - len(tasks)))
                await pause(stop, 0.25)

        seats = games.script_of(slug).SEATS
        add(max(1, a.concurrency // seats))
        feeder = asyncio.create_task(feed())
        t0 = time.monotonic()
        await asyncio.sleep(a.game_warmup)
        while time.monotonic() - t0 < 3 * a.game_warmup:
            t1, area1 = time.monotonic(), sink.area()
            await asyncio.sleep(1.0)
            if (sink.area() - area1) / (time.monotonic() - t1) >= 0.95 * a.concurrency:
                break
        before = counts.tables
        stats, elapsed, cpu, flight = await self.window(sink, a.game_seconds)
        fig = self.figures(stats, elapsed, cpu, flight)
        stop.set()
        await feeder
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.sleep(a.settle)
        fig.update(
            transport=self.via,
            seats=seats,
            tables_playing=len(tasks),
            tables_opened_in_window=counts.tables - before,
            tables_finished=counts.finished,
            seats_given_up=counts.given_up,
            tables_failed_to_open=counts.failed_to_open,
            open_errors=counts.errors,
        )
        self.log(
            f"{slug}: {fig['turns_per_s']} commands/s, {fig['stack_cpu_us_per_turn']} us of "
            f"services + NATS per command (dealer {fig['dealer_cpu_us_per_turn']}) "
            f"{fig['latency_ms']}, {flight:.1f} in flight, "
            f"{len(tasks)} tables at once, refused {dict(stats.refused)}"
        )
        return fig

    async def run_peer(self, bare: bool) -> None:
        """``make bench-peer``'s phases on our stack: full speed, then (with ``bare``) full speed
        with every seat following its view (the peer pushes each turn's progress to the other
        player: this is the like-for-like figure) and the bare chain, then the human-pace ramp."""
        channels = Channels(self.stack.lobby_addr)
        try:
            await self.full_speed(channels)
            if bare:
                with self.sending(VIEW):
                    await self.full_speed(channels, "full_speed_view")
                await self.bare_chain(self.args.concurrency)
            await self.human_pace(channels)
        finally:
            await channels.close()

    async def run_group(self) -> None:
        """The human-pace ramp again, on a stack whose NATS syncs every ``--group-sync``."""
        channels = Channels(self.stack.lobby_addr)
        try:
            await self.human_pace(channels, key="human_pace_group")
        finally:
            await channels.close()

    async def run_pinned(self) -> None:
        """The stack (nats-server and the services) on one CPU, the load generator (this
        process) on the other: what one core of the stack holds when the load comes from
        another machine. Full speed over Play, then the human-pace ramp."""
        cpus = two_cpus()
        assert cpus is not None
        for pid in self.pids().values():
            pin(pid, {cpus[0]})
        mine = os.sched_getaffinity(0)
        pin(os.getpid(), {cpus[1]})
        channels = Channels(self.stack.lobby_addr)
        try:
            await self.full_speed(channels, "pinned_full_speed")
            await self.human_pace(channels, key="pinned_human_pace")
        finally:
            pin(os.getpid(), mine)
            await channels.close()

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


def at_tables(points: list[dict[str, Any]], tables: int) -> dict[str, Any]:
    """The point measured at ``tables`` (the last point when there is none)."""
    return next((p for p in points if p["tables"] == tables), points[-1])


def loop_sequence(rounds: int) -> list[str]:
    """The event loops' alternation: the services' default first, then the other, ``rounds``
    times (A B A B for 2)."""
    return [DEFAULT_EVENT_LOOP, OTHER_LOOP] * rounds


def loop_winner(steps: list[dict[str, Any]]) -> tuple[str, dict[str, dict[str, Any]]]:
    """The loop the stacks after run on, and each loop's figures: its steps' turns/s, their
    mean, and the mean CPU of services + NATS per turn. The services' default stays unless
    every step of the other loop made more turns/s than every step of the default: steps on
    this machine move by 10-25 % from one to the next, as much as the loops differ, so a higher
    mean from overlapping steps says nothing (docs/performance.md, "The event loop")."""
    by_loop: dict[str, dict[str, Any]] = {}
    for loop in EVENT_LOOPS:
        mine = [step for step in steps if step["loop"] == loop]
        if not mine:
            continue
        rates = [step["turns_per_s"] for step in mine]
        by_loop[loop] = {
            "turns_per_s": rates,
            "mean_turns_per_s": round(sum(rates) / len(rates), 1),
            "stack_cpu_us_per_turn": round(
                sum(step["stack_cpu_us_per_turn"] for step in mine) / len(mine)
            ),
        }
    default, other = by_loop.get(DEFAULT_EVENT_LOOP), by_loop.get(OTHER_LOOP)
    if other is None:
        return DEFAULT_EVENT_LOOP, by_loop
    if default is None or min(other["turns_per_s"]) > max(default["turns_per_s"]):
        return OTHER_LOOP, by_loop
    return DEFAULT_EVENT_LOOP, by_loop


def loop_verdict(loop: str) -> str:
    """How the log says which loop the stacks after run on: the other loop "won" only by
    beating every step of the default; else the default "stays", whichever mean was higher."""
    if loop == DEFAULT_EVENT_LOOP:
        return f"{loop} stays (the other loop did not beat every one of its steps)"
    return f"{loop} won (every one of its steps beat every step of {DEFAULT_EVENT_LOOP})"


def summary(results: dict[str, Any], args: argparse.Namespace) -> str:
    """Fill ``results["summary"]`` and return the ``bench:`` line."""
    full, bare = results["full_speed"], results["bare_chain"]
    human = results["human_pace"]
    p99_ms, max_tables = ramp_figures(human, args)
    best = saturated(results)
    s = results["summary"] = {
        "ratio": round(full["turns_per_s"] / bare["turns_per_s"], 3) if bare["turns_per_s"] else 0,
        "in_flight": best["mean_in_flight"],
        "p99_ms": p99_ms,
        "p99_tables": at_tables(human, args.human_tables)["tables"],
        "max_tables_50ms": max_tables,
        **results["held"],
    }
    if full["all_cpu_us_per_turn"]:  # the same ratio by CPU: a bare call's over a turn's
        s["cpu_ratio"] = round(bare["all_cpu_us_per_turn"] / full["all_cpu_us_per_turn"], 3)
    s["turns_s"] = round(best["turns_per_s"])
    s["cpu_us_per_turn"] = best["stack_cpu_us_per_turn"]
    # Full speed at --concurrency in flight, as the unary and view phases, the bare chain and
    # the ratio measure it: like beside like.
    s["fixed_in_flight"] = full["concurrency"]
    s["fixed_turns_s"] = round(full["turns_per_s"])
    s["fixed_cpu_us_per_turn"] = full["stack_cpu_us_per_turn"]
    # What the p99's tables cost: at human pace each turn wakes every process on its own (a
    # frame, a read, a delivery for one turn), so a turn costs more there than at full speed,
    # and the machine's cores, the driver's share with them, bound the p99.
    there = at_tables(human, args.human_tables)
    s["human_turns_s"] = round(there["turns_per_s"])
    # No turn in the window (a tiny run): no cost per turn to tell, rather than the window's CPU.
    s["human_cpu_us_per_turn"] = there.get("stack_cpu_us_per_turn", 0) if there["turns"] else 0
    s["human_cores"] = there.get("cpu_utilisation_cores", 0.0)
    unary = results.get("full_speed_unary", {})
    s["transport"] = full.get("transport", TRANSPORT)
    s["unary_turns_s"] = round(unary.get("turns_per_s", 0))
    s["unary_cpu_us_per_turn"] = unary.get("stack_cpu_us_per_turn", 0)
    viewing = results.get("full_speed_view")
    if viewing:
        s["view_turns_s"] = round(viewing["turns_per_s"])
        s["view_cpu_us_per_turn"] = viewing["stack_cpu_us_per_turn"]
        s["view_items_per_turn"] = viewing.get("view_items_per_turn", 0)
        s["view_messages_per_turn"] = viewing.get("view_messages_per_turn", 0)
        s["views_failed"] = sum(
            n for why, n in viewing.get("views_ended", {}).items() if why != "ok"
        )
    s["loop"], s["loops"] = loop_winner(results.get("loop_steps", []))
    s["games"] = {
        slug: {"cpu_us": fig["stack_cpu_us_per_turn"], "cmds_s": round(fig["turns_per_s"])}
        for slug, fig in results.get("games", {}).items()
    }
    group = results.get("human_pace_group")
    if group:
        s["group_sync"] = args.group_sync
        s["group_p99_ms"], s["group_max_tables_50ms"] = ramp_figures(group, args)
    spread = ""
    for key, (fast, ramp) in spread_phases(results).items():
        p99_ms, max_tables = ramp_figures(ramp, args)
        got = s[key] = {
            "turns_s": round(fast["turns_per_s"]),
            "cpu_us_per_turn": fast["stack_cpu_us_per_turn"],
            "p99_ms": p99_ms,
            "max_tables_50ms": max_tables,
        }
        spread += (
            f" {key}_turns_s={got['turns_s']} {key}_cpu_us_per_turn={got['cpu_us_per_turn']}"
            f" {key}_p99_ms={got['p99_ms']:.1f} {key}_max_tables_50ms={got['max_tables_50ms']}"
        )
    loops = " ".join(
        f"{loop}_turns_s={fig['mean_turns_per_s']:.0f}" for loop, fig in s["loops"].items()
    )
    per_game = " ".join(
        f"{slug}_cpu_us={fig['cpu_us']} {slug}_cmds_s={fig['cmds_s']}"
        for slug, fig in s["games"].items()
    )
    return " ".join(
        part
        for part in (
            f"bench: turns_s={s['turns_s']} cpu_us_per_turn={s['cpu_us_per_turn']} "
            f"in_flight={s['in_flight']:.0f} p99_ms={s['p99_ms']:.1f} "
            f"max_tables_50ms={s['max_tables_50ms']} unary_turns_s={s['unary_turns_s']} "
            f"unary_cpu_us_per_turn={s['unary_cpu_us_per_turn']} "
            f"fixed_in_flight={s['fixed_in_flight']} fixed_turns_s={s['fixed_turns_s']} "
            f"fixed_cpu_us_per_turn={s['fixed_cpu_us_per_turn']} "
            f"human_turns_s={s['human_turns_s']} "
            f"human_cpu_us_per_turn={s['human_cpu_us_per_turn']} "
            f"human_cores={s['human_cores']:.2f} transport={s['transport']} "
            f"loop={s['loop']}",
            (
                f"view_turns_s={s['view_turns_s']} view_cpu_us_per_turn={s['view_cpu_us_per_turn']}"
                f" view_items_per_turn={s['view_items_per_turn']} views_failed={s['views_failed']}"
                if "view_turns_s" in s
                else ""
            ),
            loops,
            per_game,
            f"ratio={s['ratio']:.3f} tables={s['tables']} bytes_per_table={s['bytes_per_table']}"
            + spread,
        )
        if part
    )


def saturated(results: dict[str, Any]) -> dict[str, Any]:
    """Full speed at its most turns a second: the saturation ramp's best step, all of them on
    one stack (its first at ``--concurrency``); without the ramp, the main full speed."""
    steps = results.get("saturation") or [results["full_speed"]]
    return max(steps, key=lambda fig: fig["turns_per_s"])


def ramp_figures(points: list[dict[str, Any]], args: argparse.Namespace) -> tuple[float, int]:
    """A human-pace ramp's p99 at ``--human-tables`` and the most tables it held under
    ``--p99-ms`` (0 if none)."""
    under = [p["tables"] for p in points if p["latency_ms"]["p99"] < args.p99_ms]
    return at_tables(points, args.human_tables)["latency_ms"]["p99"], max(under, default=0)


def spread_phases(
    results: dict[str, Any],
) -> dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The pinned phases that ran, by the line's prefix: (full speed, the human-pace ramp)."""
    phases = {}
    if "pinned_full_speed" in results:
        phases["pinned"] = (results["pinned_full_speed"], results["pinned_human_pace"])
    if "two_stacks" in results:
        two = results["two_stacks"]
        phases["two_stacks"] = (two["full_speed"], two["human_pace"])
    return phases


def aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]


def table_text(results: dict[str, Any], group_sync: str = "") -> str:
    head = ("phase", "tables", "turns/s", "p50 ms", "p95 ms", "p99 ms", "in flight", "us/turn")
    rows = [head]

    def row(name: str, fig: dict[str, Any], tables: Any, cpu: str = "") -> None:
        lat = fig["latency_ms"]
        cpu = cpu or f"{fig['service_cpu_us_per_turn']}/{fig['all_cpu_us_per_turn']}"
        rows.append(
            (name, str(tables), f"{fig['turns_per_s']:.0f}", f"{lat['p50']:.1f}",
             f"{lat['p95']:.1f}", f"{lat['p99']:.1f}", f"{fig['mean_in_flight']:.1f}", cpu)
        )  # fmt: skip

    for step in results.get("loop_steps", []):
        row(f"loop {step['loop']}", step, step["tables"])
    row("full speed", results["full_speed"], results["full_speed"]["tables"])
    for step in results.get("saturation", []):
        row(f"saturation c={step['concurrency']}", step, step["tables"])
    for key, name in (
        ("full_speed_unary", "full speed unary"),
        ("full_speed_view", "full speed view"),
    ):
        if key in results:
            row(name, results[key], results[key]["tables"])
    for slug, fig in results.get("games", {}).items():
        row(slug, fig, fig["tables_playing"])
    row("bare chain", results["bare_chain"], f"c={results['bare_chain']['concurrency']}")
    for point in results["human_pace"]:
        row("human pace", point, point["tables"])
    group = results.get("human_pace_group", [])
    for point in group:
        row(f"human {group_sync}", point, point["tables"])
    for key, (fast, ramp) in spread_phases(results).items():
        name, joined_up = key.replace("_", " "), key == "two_stacks"
        for phase, fig in (("full", fast), *(("human", p) for p in ramp)):
            # Two stacks measured as one (joined) have no per-process split: services + NATS.
            cpu = str(fig["stack_cpu_us_per_turn"]) if joined_up else ""
            row(f"{name} {phase}", fig, fig["tables"], cpu)
    lines = aligned(rows)
    lines.append(
        "us/turn: CPU of the four services / of everything (NATS, the driver, bare); a game's "
        "row: per command, its tables at once"
    )
    if "pinned_full_speed" in results:
        lines.append(
            "pinned: the stack on one CPU, the load generator on the other; two stacks: the load "
            "split over two stacks on a CPU each, the generator on both (us/turn: services + "
            "NATS; latencies: the worse stack's)"
        )
    if "pinned_skipped" in results:
        lines.append(f"pinned: skipped ({results['pinned_skipped']})")
    if group:
        lines.append("")
        lines.extend(side_by_side(results["human_pace"], group, group_sync))
    ledger = results.get("ledger", {})
    lines.append(
        f"ledger: {ledger.get('events_per_s_mean')} events/s mean, "
        f"{ledger.get('events_per_s_peak')} peak; lag max {ledger.get('lag_max_records')} "
        f"records, final {ledger.get('lag_final_records')}"
    )
    for key in ("memory_human_pace", "memory_idle"):
        if key in results:
            lines.append(f"{key}: {json.dumps(results[key])}")
    for name, fig in results.get("memory_by_game", {}).items():
        lines.append(
            f"idle {name}: {fig['tables']} tables ({fig['seats']} seat(s)), "
            f"{fig['bytes_per_table']} bytes/table"
        )
    if "recovered_after_s" in results:
        lines.append(f"tables open again {results['recovered_after_s']} s after the ramp")
    s = results.get("summary", {})
    if "cpu_ratio" in s:
        lines.append(
            f"ratio by CPU: {s['cpu_ratio']:.3f} (a bare call's CPU, all processes, over a "
            f"full-speed turn's); by throughput: {s['ratio']:.3f}"
        )
    if s.get("loops"):
        each = "; ".join(
            f"{loop} {fig['mean_turns_per_s']:.0f} turns/s (steps "
            f"{', '.join(f'{r:.0f}' for r in fig['turns_per_s'])}), "
            f"{fig['stack_cpu_us_per_turn']} us services + NATS per turn"
            for loop, fig in s["loops"].items()
        )
        lines.append(f"event loop: {loop_verdict(s['loop'])} ({each}); the stacks after ran on it")
    if s.get("games"):
        lines.append(
            "scripted games, full speed, services + NATS per command: "
            + ", ".join(
                f"{slug} {g['cpu_us']} us at {g['cmds_s']} commands/s"
                for slug, g in s["games"].items()
            )
        )
    if "turns_s" in s:
        lines.append(
            f"full speed over {s.get('transport', TRANSPORT)}: {s['turns_s']} turns/s, "
            f"{s['cpu_us_per_turn']} us services + NATS per turn, {s['in_flight']:.0f} in flight"
            f" (its most turns/s); at {s.get('fixed_in_flight', 0)} in flight "
            f"{s.get('fixed_turns_s', 0)} turns/s, {s.get('fixed_cpu_us_per_turn', 0)} us, and "
            f"over unary calls, same stack, right after: {s.get('unary_turns_s', 0)} turns/s, "
            f"{s.get('unary_cpu_us_per_turn', 0)} us"
        )
    if "human_turns_s" in s:
        each = s["human_turns_s"] / max(s["p99_tables"], 1)
        lines.append(
            f"human pace at {s['p99_tables']} tables: {s['human_turns_s']} turns/s ({each:.2f} a "
            f"table), {s['human_cpu_us_per_turn']} us services + NATS per turn (a turn wakes "
            f"every process on its own), {s['human_cores']:.2f} cores busy with the driver, "
            f"p99 {s['p99_ms']:.1f} ms"
        )
    if "view_turns_s" in s:
        lines.append(
            f"full speed with every seat following its view on its stream (as the apps play): "
            f"{s['view_turns_s']} turns/s, {s['view_cpu_us_per_turn']} us services + NATS per "
            f"turn, {s['view_items_per_turn']} view events per turn in "
            f"{s.get('view_messages_per_turn', 0)} messages, {s['views_failed']} views "
            "refused or broken"
        )
    if "group_p99_ms" in s:
        lines.append(
            f"group commit (sync_interval {s['group_sync']}): p99_ms={s['group_p99_ms']:.1f} "
            f"max_tables_50ms={s['group_max_tables_50ms']}"
        )
    return "\n".join(lines)


def side_by_side(
    always: list[dict[str, Any]], group: list[dict[str, Any]], group_sync: str
) -> list[str]:
    """The two human-pace ramps by table count: fsync on every append against group commit."""
    a, g = "fsync always", f"sync_interval {group_sync}"
    rows = [
        ("human pace", a, "", "", g, "", ""),
        ("tables", "turns/s", "p50 ms", "p99 ms", "turns/s", "p50 ms", "p99 ms"),
    ]

    def cells(points: list[dict[str, Any]], tables: int) -> tuple[str, str, str]:
        p = next((p for p in points if p["tables"] == tables), None)
        if p is None:
            return ("-", "-", "-")
        lat = p["latency_ms"]
        return (f"{p['turns_per_s']:.0f}", f"{lat['p50']:.1f}", f"{lat['p99']:.1f}")

    for tables in sorted({p["tables"] for p in always} | {p["tables"] for p in group}):
        rows.append((str(tables), *cells(always, tables), *cells(group, tables)))
    return aligned(rows)


def chart(results: dict[str, Any], path: Path, group_sync: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    human = sorted(results["human_pace"], key=lambda p: p["tables"])
    x = [p["turns_per_s"] for p in human]
    for q, style in (("p50", "o-"), ("p95", "s-"), ("p99", "^-")):
        ax.plot(x, [p["latency_ms"][q] for p in human], style, label=f"human pace {q}")
    for p in human:
        ax.annotate(f"{p['tables']} tables", (p["turns_per_s"], p["latency_ms"]["p99"]))
    group = sorted(results.get("human_pace_group", []), key=lambda p: p["tables"])
    if group:
        ax.plot([p["turns_per_s"] for p in group], [p["latency_ms"]["p99"] for p in group],
                "v--", label=f"human pace p99, sync_interval {group_sync}")  # fmt: skip
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


class GroupCommitNats(NatsServer):
    """A nats-server whose JetStream fsyncs every ``interval`` (group commit) instead of on
    every append: it acknowledges an append once it has written it to its file."""

    def __init__(self, store_dir: Path, interval: str, authorization: str) -> None:
        self._interval = interval
        super().__init__(store_dir, sync_always=False, authorization=authorization)

    def _configure(self, port: int) -> None:
        super()._configure(port)
        text = self._config.read_text()
        jetstream = "jetstream {\n"
        assert jetstream in text and "sync_interval" not in text
        self._config.write_text(
            text.replace(jetstream, f"{jetstream}  sync_interval: {self._interval}\n", 1)
        )


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m match_bench", description=__doc__)
    p.add_argument("--out", type=Path, default=Path("var"))
    p.add_argument("--tables", type=int, default=300, help="tables opened before full speed")
    p.add_argument(
        "--max-tables", type=int, default=5000, help="at most this many tables at full speed"
    )
    p.add_argument(
        "--concurrency", type=int, default=64, help="turns in flight at full speed (and bare)"
    )
    p.add_argument(
        "--saturate-to",
        type=int,
        default=2048,
        help="on a stack of its own, full speed at --concurrency, then at twice the turns in "
        "flight, and twice again, up to this many (the best is turns_s; under twice "
        "--concurrency: no ramp, no stack)",
    )
    p.add_argument(
        "--saturate-gain",
        type=float,
        default=0.05,
        help="the doubling stops after two steps in a row that beat the best before by less "
        "than this (0.05: 5%%)",
    )
    p.add_argument("--warmup", type=float, default=8.0, help="at least; up to 3x until full")
    p.add_argument("--full-seconds", type=float, default=20.0)
    p.add_argument("--bare-seconds", type=float, default=15.0)
    p.add_argument("--human-tables", type=int, default=1000, help="the p99 target's tables")
    p.add_argument("--human-max-tables", type=int, default=3000, help="the ramp's last step")
    p.add_argument("--human-seconds", type=float, default=15.0)
    p.add_argument("--p99-ms", type=float, default=50.0, help="the human-pace latency target")
    p.add_argument(
        "--group-sync",
        default="5ms",
        help="the human-pace ramp again with this JetStream sync_interval ('' to skip)",
    )
    p.add_argument(
        "--loop-rounds",
        type=int,
        default=2,
        help=f"{DEFAULT_EVENT_LOOP} then {OTHER_LOOP}, this many times, a short full speed each "
        "on a fresh stack; the winner runs the services after (0: the default, no steps)",
    )
    p.add_argument("--loop-tables", type=int, default=100, help="tables opened before a step")
    p.add_argument("--loop-warmup", type=float, default=4.0)
    p.add_argument("--loop-seconds", type=float, default=8.0)
    p.add_argument(
        "--games",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the scripted load of every other game (match_bench.games), on its own stack",
    )
    p.add_argument("--game-warmup", type=float, default=5.0)
    p.add_argument("--game-seconds", type=float, default=10.0)
    p.add_argument("--idle-tables", type=int, default=10_000)
    p.add_argument("--idle-per-game", type=int, default=1000, help="idle tables of each other game")
    p.add_argument("--idle-budget", type=float, default=70.0, help="seconds to open idle tables")
    p.add_argument(
        "--recover-budget", type=float, default=180.0, help="seconds to wait for tables to open"
    )
    p.add_argument("--create-budget", type=float, default=90.0, help="seconds per batch")
    p.add_argument("--settle", type=float, default=3.0, help="seconds for the ledger to catch up")
    p.add_argument(
        "--pinned",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="full speed and the human-pace ramp again with the stack on one CPU and the load "
        "on the other, then split over two stacks on a CPU each (needs two CPUs)",
    )
    p.add_argument("--profile", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--profile-seconds", type=int, default=10)
    p.add_argument(
        "--skip-answered",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the view phase's seats ask their views to leave out what their answers carried, "
        "as the terminal client does; --no-skip-answered sends every event down the view too",
    )
    return p.parse_args(argv)


def bench_stack(workdir: Path, group_sync: str = "", event_loop: str = DEFAULT_EVENT_LOOP) -> Stack:
    """The stack, not started: its NATS fsyncs every append, or every ``group_sync``; its
    services run on ``event_loop``."""
    stack = Stack(
        workdir,
        # Eight connections from one address carry thousands of players here: the
        # per-address limits, meant for one app, are off; every player's own limit stays on.
        # So is the budget of wrong invite codes per address (the bench never sends a wrong
        # one; a right code waits for the listing to catch up while the budget is held).
        # Every seat keeps its Play stream open for its game, and Play streams count against
        # the Watch caps: the address's cap (64) is one app's, and the replica's (2000) would
        # stop the ramp at 1,000 tables, so both are off here (docs/performance.md). The
        # seats that follow their views (full speed over ``view``) make the lobby follow each
        # of their tables: the address's share of those (16) and the replica's (400) are off
        # too; the lobby's copy of the log still takes at most 1,000 consumers.
        env={
            "REFEREE_FILL_WAIT_MS": "86400000",
            "LOBBY_INVITE_FAIL_BURST": "0",
            "LOBBY_MAX_WATCHES_PER_ADDRESS": "0",
            "LOBBY_MAX_WATCHES": "0",
            "LOBBY_MAX_WATCHED_TABLES_PER_ADDRESS": "0",
            "LOBBY_MAX_WATCHED_TABLES": "0",
            "MATCH_EVENT_LOOP": event_loop,
            **ONE_ADDRESS_MANY_PLAYERS,
        },
        services=SERVICES,
    )
    if group_sync:
        stack.nats = GroupCommitNats(
            workdir / "nats", group_sync, stack.identities.authorization()
        ).start()
        stack.nats_url = stack.nats.url
    return stack


async def on_stack(
    args: argparse.Namespace, stack: Stack, results: dict[str, Any], phases: str
) -> None:
    """Start ``stack``, run its ``phases`` (main: how Match runs; group: the group-commit ramp;
    loop_step: a short full speed for the loops' alternation; games: the scripted games; peer,
    peer_no_bare: ``make bench-peer``'s),
    stop."""
    bench: Bench | None = None
    try:
        stack.start()
        nc = await stack.connect_nats(name="match-bench")
        bench = Bench(args, stack, nc, args.out, results)
        group = isinstance(stack.nats, GroupCommitNats)
        sync = f"sync_interval {args.group_sync}" if group else "sync_interval always"
        loop = stack.env.get("MATCH_EVENT_LOOP", DEFAULT_EVENT_LOOP)
        bench.log(
            f"stack up at {stack.lobby_addr} ({len(stack.processes)} services, {sync}, {loop})"
        )
        runs: dict[str, Callable[[], Job]] = {
            "main": bench.run,
            "group": bench.run_group,
            "loop_step": bench.run_loop_step,
            "games": bench.run_games,
            "peer": functools.partial(bench.run_peer, bare=True),
            "peer_no_bare": functools.partial(bench.run_peer, bare=False),
            "pinned": bench.run_pinned,
            "saturation": bench.run_saturation,
        }
        await runs[phases]()
        await nc.close()
    finally:
        if bench is not None:
            for proc in bench.extra:
                proc.kill()
                proc.wait()
        stack.stop()


async def on_two_stacks(
    args: argparse.Namespace, workdir: Path, loop: str, results: dict[str, Any]
) -> None:
    """The same load split over two stacks, each pinned to a CPU of its own, the load generator
    on both: full speed (half the calls in flight at each) and the human-pace ramp (half the
    tables at each), at the same time. What a second stack buys when the tables are shared out
    between two (two machines, or two cores each holding one). The figures go under
    ``two_stacks``: turns summed, CPU per turn over both, the worse stack's latencies."""
    cpus = two_cpus()
    assert cpus is not None
    half = argparse.Namespace(
        **{
            **vars(args),
            "tables": max(1, args.tables // 2),
            "max_tables": max(1, args.max_tables // 2),
            "concurrency": max(1, args.concurrency // 2),
            "human_tables": max(1, args.human_tables // 2),
            "human_max_tables": max(1, args.human_tables // 2),
            "profile": False,
        }
    )
    stacks = [bench_stack(workdir / f"two-{i}", event_loop=loop) for i in range(2)]
    parts: list[dict[str, Any]] = [{}, {}]
    channels: list[Channels] = []
    try:
        benches = []
        for stack, cpu, part in zip(stacks, cpus, parts, strict=True):
            stack.start()
            bench = Bench(half, stack, await stack.connect_nats(name="match-bench"), args.out, part)
            for pid in bench.pids().values():
                pin(pid, {cpu})
            benches.append(bench)
            channels.append(Channels(stack.lobby_addr))
        benches[0].log(f"two stacks up, on CPUs {cpus[0]} and {cpus[1]}")
        pairs = list(zip(benches, channels, strict=True))
        await asyncio.gather(*(b.full_speed(c) for b, c in pairs))
        await asyncio.gather(*(b.human_pace(c) for b, c in pairs))
        for bench in benches:
            await bench.nc.close()
    finally:
        for c in channels:
            await c.close()
        for stack in stacks:
            stack.stop()
    results["two_stacks"] = {
        "cpus": list(cpus),
        "full_speed": joined([p["full_speed"] for p in parts]),
        "human_pace": [
            joined(list(points)) for points in zip(*(p["human_pace"] for p in parts), strict=False)
        ],
    }


def joined(figs: list[dict[str, Any]]) -> dict[str, Any]:
    """Figures of stacks measured at the same time as one: turns and tables summed, CPU per turn
    over all the turns, each latency percentile the worse stack's (an upper bound: the stacks'
    samples are not kept)."""
    turns = sum(f["turns"] for f in figs)
    stack_cpu = sum(f["stack_cpu_us_per_turn"] * f["turns"] for f in figs)
    return {
        "turns": turns,
        "turns_per_s": round(sum(f["turns_per_s"] for f in figs), 1),
        "tables": sum(f["tables"] for f in figs),
        "latency_ms": {q: max(f["latency_ms"][q] for f in figs) for q in figs[0]["latency_ms"]},
        "mean_in_flight": round(sum(f["mean_in_flight"] for f in figs), 1),
        "stack_cpu_us_per_turn": round(stack_cpu / max(turns, 1)),
        "each": figs,
    }


async def amain(args: argparse.Namespace) -> str:
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="match-bench-") as tmp:
        for i, loop in enumerate(loop_sequence(args.loop_rounds)):
            step = bench_stack(Path(tmp) / f"loop-{i}", event_loop=loop)
            await on_stack(args, step, results, "loop_step")
        loop, figures = loop_winner(results.get("loop_steps", []))
        if figures:
            said = ", ".join(f"{k} {v['mean_turns_per_s']:.0f} turns/s" for k, v in figures.items())
            verdict = loop_verdict(loop)
            print(f"event loop: {verdict} ({said}): the services run on it from here", flush=True)
        await on_stack(args, bench_stack(Path(tmp) / "stack", event_loop=loop), results, "main")
        if args.saturate_to >= 2 * args.concurrency:
            saturation = bench_stack(Path(tmp) / "saturation", event_loop=loop)
            await on_stack(args, saturation, results, "saturation")
        if args.pinned and two_cpus() is None:
            results["pinned_skipped"] = "one CPU here: nothing to pin apart"
        elif args.pinned:
            pinned = bench_stack(Path(tmp) / "pinned", event_loop=loop)
            await on_stack(args, pinned, results, "pinned")
            await on_two_stacks(args, Path(tmp), loop, results)
        if args.group_sync:
            group = bench_stack(Path(tmp) / "group", args.group_sync, loop)
            await on_stack(args, group, results, "group")
        if args.games:
            scripted = bench_stack(Path(tmp) / "games", event_loop=loop)
            await on_stack(args, scripted, results, "games")
    line = summary(results, args)
    results["settings"] = {k: str(v) for k, v in vars(args).items()}
    results["summary_line"] = line
    (args.out / "bench.json").write_text(json.dumps(results, indent=2))
    chart(results, args.out / "bench.png", args.group_sync)
    print(table_text(results, args.group_sync))
    return line


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    transport.Viewing.skip_answered = args.skip_answered
    tune_gc()  # the driver's collector as the services': young objects collected less often
    line = asyncio.run(amain(args))
    print(line, flush=True)


if __name__ == "__main__":
    main()
