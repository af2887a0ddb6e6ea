"""`make chaos-partition`: network partitions of the NATS cluster while race and Concentration
tables play through it, then the chaos run's checks (match_chaos.check, ``match-audit verify``).

Each nats-server runs in a network namespace of its own (match_launch.netns); the services and
the players stay in the root namespace and reach the nodes through a bridge. One fault at a
time, in this order (:func:`schedule`), each after a calm moment and followed by time to heal:

* ``leader``: the node leading the events stream (MATCH_EVENTS, asked of JetStream) is cut off
  from both other nodes; its clients still reach it.
* ``minority``: a follower is cut off from both other nodes the same way.
* ``flapping``: the link between the leader and a follower goes down and up again, again.
* ``slow``: the leader's link is slow and lossy (``tc netem`` delay and loss; where the kernel
  has no netem, a narrow ``tbf`` link and random drops: see match_launch.netns).

What is checked, beyond the chaos run's own checks of every game (nothing a player was sent is
missing from the table's log, nothing decided twice, every game verifies):

* a **probe** stream (``CHAOS_PROBE``, three replicas) is written through every node on its
  own, four times a second, during every fault: while a node is cut off from the others, it
  must acknowledge nothing (``minority_acked`` 0: the minority refuses); the majority side
  must acknowledge again (its first acknowledgement's delay is reported); after the run every
  acknowledged probe must be in the stream at the sequence number it was acknowledged with,
  once (``probe lost``/``duplicated``);
* **unavailability**, per fault: for every table whose player made a move (any call) during the
  fault or the time after it, the longest the player waited for an answer (from the first try
  to the answer, retries included: the gap a player saw); p50 and p99 over the tables, beside
  the same measure in a calm moment before the first fault; and what the players were answered
  meanwhile (errors by gRPC status). The time between events is no measure of it: a race
  table is quiet for seconds between boards by its rules;
* **majority-side tables play on**: how many tables got events while the fault was in force,
  beside which service processes were connected to the cut-off node (``ss``) when it was cut
  off and which still were when it healed (a service leaves a node that does not reach
  JetStream's quorum within a few seconds: match_bus.failover).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from match_bus import subjects
from match_bus.clock import Clock
from match_chaos.games import concentration_settings
from match_chaos.player import ChaosPlayer, ChaosSeat, ConcentrationChaosPlayer
from match_chaos.run import (
    CONCENTRATION,
    RACE,
    GameResult,
    Options,
    check_all,
    player_key,
    say,
    stack_env,
)
from match_client.client import is_rpc_error, refusal_code, status_name
from match_launch import netns
from match_launch.natscluster import NatsCluster, NodeSpec
from match_launch.natsserver import nats_server_binary
from match_launch.stack import SERVICES, Stack

T = TypeVar("T")

PROBE_STREAM, PROBE_SUBJECT = "CHAOS_PROBE", "chaos.probe"
LEADER, MINORITY, FLAPPING, SLOW, CALM = "leader", "minority", "flapping", "slow", "calm"


# --- the schedule (pure) ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scenario:
    """One fault: ``kind``, in force for ``fault_s`` (a flapping link: down ``down_s``, up
    ``up_s``, over and over within it), then ``heal_s`` to recover before the next one."""

    kind: str
    fault_s: float
    heal_s: float = 12.0
    down_s: float = 0.0
    up_s: float = 0.0
    delay_ms: int = 0
    loss_percent: int = 0

    def flaps(self) -> list[tuple[float, float]]:
        """(down at, up at) offsets from the fault's start; one cut for the whole fault when
        the link does not flap. Every cut ends by ``fault_s``."""
        if self.kind != FLAPPING:
            return [(0.0, self.fault_s)] if self.kind in (LEADER, MINORITY) else []
        out, at = [], 0.0
        while at + self.down_s <= self.fault_s + 1e-9:
            out.append((round(at, 3), round(at + self.down_s, 3)))
            at += self.down_s + self.up_s
        return out


def schedule(scale: float = 1.0) -> list[Scenario]:
    """The faults of a run, in order (``scale`` stretches every duration)."""
    return [
        Scenario(LEADER, 15.0 * scale, 12.0 * scale),
        Scenario(MINORITY, 15.0 * scale, 12.0 * scale),
        Scenario(FLAPPING, 20.0 * scale, 12.0 * scale, down_s=2.0 * scale, up_s=2.0 * scale),
        Scenario(SLOW, 20.0 * scale, 12.0 * scale, delay_ms=200, loss_percent=10),
    ]


# --- what players saw (pure) -----------------------------------------------------------------


def longest_wait(calls: Sequence[tuple[float, float]], start: float, end: float) -> float | None:
    """The longest of the ``calls`` (first try, answer) that overlaps [start, end]; None when
    none does (the player did not move then)."""
    waits = [b - a for a, b in calls if a < end and b > start]
    return max(waits) if waits else None


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil
    return ordered[int(min(rank, len(ordered))) - 1]


@dataclass
class Window:
    """One scenario as it ran (monotonic times) and what was measured in it."""

    kind: str
    detail: str = ""
    start: float = 0.0
    healed: float = 0.0
    end: float = 0.0  # healed + the time to recover
    cut_off: int | None = None  # the node cut off from both others (leader, minority)
    gaps_ms: list[float] = field(default_factory=list)  # per table that moved: its longest wait
    progressed: int = 0  # tables with events while the fault was in force
    in_play: int = 0  # tables that made a call in the window
    on_cut_off: list[str] = field(default_factory=list)  # processes connected to the cut node
    still_on: list[str] = field(default_factory=list)  # ... of them, still there at the heal
    errors: Counter[str] = field(default_factory=Counter)  # calls answered with an error
    minority_acked: int = 0  # probes the cut-off node acknowledged while cut off
    minority_refused: int = 0
    majority_acked: int = 0
    majority_first_ack_ms: float | None = None  # from the fault's start

    @property
    def p50_ms(self) -> float:
        return percentile(self.gaps_ms, 50)

    @property
    def p99_ms(self) -> float:
        return percentile(self.gaps_ms, 99)

    def line(self) -> str:
        errors = ", ".join(f"{k} {v}" for k, v in sorted(self.errors.items())) or "none"
        probe = (
            f"; probe: cut-off node acked {self.minority_acked}, refused "
            f"{self.minority_refused}, majority acked {self.majority_acked} (first after "
            f"{_ms(self.majority_first_ack_ms)})"
            if self.cut_off is not None
            else f"; probe acked {self.majority_acked}"
        )
        connected = (
            f"; connected to it: {' '.join(self.on_cut_off) or 'nothing'}"
            f" (at the heal: {' '.join(self.still_on) or 'nothing'})"
            if self.cut_off is not None
            else ""
        )
        return (
            f"  {self.kind}: {self.detail}; tables moving {self.in_play}, with events during "
            f"the fault {self.progressed}; longest wait per table p50 {self.p50_ms:.0f} ms p99 "
            f"{self.p99_ms:.0f} ms; players were answered: {errors}{probe}{connected}"
        )


def _ms(value: float | None) -> str:
    return "never" if value is None else f"{value:.0f} ms"


def measure(window: Window, games: Sequence[GameTimes]) -> None:
    """Fill ``window``'s gaps and counts from the games' timings (pure)."""
    window.gaps_ms, window.progressed, window.in_play, window.errors = [], 0, 0, Counter()
    for game in games:
        if any(window.start <= t <= window.healed for t in game.arrivals):
            window.progressed += 1
        wait = longest_wait(game.calls, window.start, window.end)
        if wait is not None:
            window.in_play += 1
            window.gaps_ms.append(wait * 1000)
        for t, status in game.errors:
            if window.start <= t <= window.end:
                window.errors[status] += 1


@dataclass(frozen=True, slots=True)
class Probe:
    """One write to the probe stream through one node."""

    node: int
    payload: str
    sent: float
    done: float
    seq: int = 0  # the acknowledged stream sequence; 0: not acknowledged
    error: str = ""


def judge_probes(window: Window, probes: Sequence[Probe], grace_s: float = 0.5) -> None:
    """The probe counts of ``window`` (pure). A write to the cut-off node sent after the cut
    (plus ``grace_s`` for one in flight) and answered before the heal must not be acked."""
    for p in probes:
        if not window.start <= p.sent <= window.end:
            continue
        during = window.start + grace_s <= p.sent and p.done <= window.healed
        if window.cut_off is not None and p.node == window.cut_off:
            if during:
                window.minority_acked += bool(p.seq)
                window.minority_refused += not p.seq
            continue
        if p.seq:
            window.majority_acked += 1
            if p.sent <= window.healed:
                after = (p.done - window.start) * 1000
                first = window.majority_first_ack_ms
                window.majority_first_ack_ms = after if first is None else min(first, after)


def stored_check(probes: Sequence[Probe], stored: dict[int, str]) -> tuple[list[str], list[str]]:
    """Acknowledged probes missing from the stream (``seq payload``), and payloads stored more
    than once (pure). ``stored``: sequence -> payload, as the stream holds them."""
    lost = [f"{p.seq} {p.payload}" for p in probes if p.seq and stored.get(p.seq) != p.payload]
    counts = Counter(stored.values())
    doubled = [f"{payload} x{n}" for payload, n in sorted(counts.items()) if n > 1]
    return lost, doubled


@dataclass
class Summary:
    scenarios: int = 0
    games: int = 0
    lost: int = 0
    duplicated: int = 0
    verified: int = 0
    unavailable_p50_ms: float = 0.0
    unavailable_p99_ms: float = 0.0
    probe_lost: int = 0
    probe_duplicated: int = 0
    minority_acked: int = 0

    def line(self) -> str:
        return (
            f"chaos-partition: scenarios={self.scenarios} games={self.games} lost={self.lost} "
            f"duplicated={self.duplicated} verified={self.verified} "
            f"unavailable_p50_ms={self.unavailable_p50_ms:.0f} "
            f"p99_ms={self.unavailable_p99_ms:.0f} probe_lost={self.probe_lost} "
            f"probe_duplicated={self.probe_duplicated} minority_acked={self.minority_acked}"
        )


def summarize(
    windows: Sequence[Window], games: int, lost: int, duplicated: int, verified: int
) -> Summary:
    """The run's line from its fault windows (the calm one aside) and the games' checks."""
    faults = [w for w in windows if w.kind != CALM]
    gaps = [g for w in faults for g in w.gaps_ms]
    return Summary(
        scenarios=len(faults),
        games=games,
        lost=lost,
        duplicated=duplicated,
        verified=verified,
        unavailable_p50_ms=percentile(gaps, 50),
        unavailable_p99_ms=percentile(gaps, 99),
        minority_acked=sum(w.minority_acked for w in faults),
    )


def problems(summary: Summary, windows: Sequence[Window]) -> list[str]:
    """Why the run failed (empty: it passed) (pure)."""
    out = []
    if summary.games == 0 or summary.verified != summary.games:
        out.append(f"{summary.games - summary.verified} of {summary.games} games not verified")
    if summary.lost or summary.duplicated:
        out.append(f"games: {summary.lost} events lost, {summary.duplicated} duplicated")
    if summary.probe_lost or summary.probe_duplicated:
        out.append(f"probe: {summary.probe_lost} lost, {summary.probe_duplicated} duplicated")
    for w in windows:
        if w.kind == CALM:
            continue
        if w.cut_off is not None and w.minority_acked:
            out.append(f"{w.kind}: the cut-off node acknowledged {w.minority_acked} writes")
        if w.cut_off is not None and not w.minority_refused:
            out.append(f"{w.kind}: no write to the cut-off node was tried")
        if not w.majority_acked:
            out.append(f"{w.kind}: the majority side acknowledged no write")
    return out


# --- players that keep the time of what they saw ---------------------------------------------


@dataclass
class GameTimes:
    """When a player received each new event, and when a call or stream failed (and how)."""

    arrivals: list[float] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)
    calls: list[tuple[float, float]] = field(default_factory=list)  # first try, answer


def _status(err: BaseException) -> str:
    """``UNAVAILABLE``, ``FAILED_PRECONDITION not_your_turn`` (with the refusal's code), or the
    exception's type."""
    if not is_rpc_error(err):
        return type(err).__name__
    code = refusal_code(err)
    return f"{status_name(err)} {code}" if code else status_name(err)


class Timed:
    """Mixed into a chaos player: stamps every first arrival of an event number and every
    failed call or Watch stream."""

    times: GameTimes

    def record(self, envelope: Any) -> None:
        seen = self.received.events  # type: ignore[attr-defined]
        if envelope.event_number not in seen:
            self.times.arrivals.append(time.monotonic())
        super().record(envelope)  # type: ignore[misc]

    async def retried(self, call: Callable[[str], Awaitable[T]]) -> T:
        async def stamped(request_id: str) -> T:
            try:
                return await call(request_id)
            except Exception as err:
                self.times.errors.append((time.monotonic(), _status(err)))
                raise

        began = time.monotonic()
        try:
            return await super().retried(stamped)  # type: ignore[misc, no-any-return]
        finally:
            self.times.calls.append((began, time.monotonic()))

    def stream(self, after: int) -> AsyncIterator[Any]:
        inner = super().stream(after)  # type: ignore[misc]

        async def stamped() -> AsyncIterator[Any]:
            try:
                async for item in inner:
                    yield item
            except Exception as err:
                self.times.errors.append((time.monotonic(), "Watch " + _status(err)))
                raise
            finally:
                close = getattr(inner, "aclose", None)
                if close is not None:
                    await close()

        return stamped()


class TimedRacePlayer(Timed, ChaosPlayer):
    times: GameTimes


class TimedConcentrationPlayer(Timed, ConcentrationChaosPlayer):
    times: GameTimes


async def play_one(
    index: int, addr: str, clock: Clock, rng: random.Random, opts: Options
) -> tuple[GameResult, GameTimes]:
    """One game as match_chaos.run plays it, by a player that keeps the times."""
    game = opts.game_of(index)
    result, times = GameResult(index, game), GameTimes()
    seats = rng.choice((2, 3))
    player: ChaosSeat
    started = time.monotonic()
    if game == CONCENTRATION:
        cplayer = TimedConcentrationPlayer(addr, f"Partition {index}", clock, rng)
        cplayer.times = times
        player, play = cplayer, cplayer.play_game(seats, concentration_settings(rng))
    else:
        race = TimedRacePlayer(addr, f"Partition {index}", clock, rng)
        race.times = times
        player, play = race, race.play_game(seats, opts.ready_window_ms)
    player.key = player_key(index % 6)
    try:
        await asyncio.wait_for(play, opts.game_timeout_s)
        result.finished = player.finished
    except Exception as error:  # the game is then not verified: the run fails
        result.error = repr(error)[:500]
    finally:
        await player.close()
    result.table_id, result.player_id = player.table_id, player.player_id
    result.received, result.tally = player.received, player.tally
    result.seconds = time.monotonic() - started
    return result, times


async def play_while(
    stack: Stack, clock: Clock, rng: random.Random, opts: Options, done: asyncio.Event
) -> list[tuple[GameResult, GameTimes]]:
    """Games ``opts.concurrency`` at a time until ``done`` is set (at least ``opts.games``)."""
    slots = asyncio.Semaphore(opts.concurrency)
    tasks: list[asyncio.Task[tuple[GameResult, GameTimes]]] = []

    async def one(index: int) -> tuple[GameResult, GameTimes]:
        try:
            result, times = await play_one(
                index, stack.lobby_addr, clock, random.Random(rng.random()), opts
            )
        finally:
            slots.release()
        state = "finished" if result.finished else f"NOT finished: {result.error}"
        say(f"game {index} ({result.game}) {result.table_id} {state} in {result.seconds:.0f}s")
        return result, times

    index = 0
    while index < opts.games or not done.is_set():
        await slots.acquire()
        if done.is_set() and index >= opts.games:
            slots.release()
            break
        tasks.append(asyncio.create_task(one(index)))
        index += 1
        await asyncio.sleep(rng.uniform(0.3, 1.0))
    return list(await asyncio.gather(*tasks))


# --- the probe ---------------------------------------------------------------------------------


class Prober:
    """Writes to the probe stream through each node on its own connection."""

    def __init__(self, stack: Stack, cluster: NatsCluster) -> None:
        self.stack, self.cluster = stack, cluster
        self.conns: list[Any] = []
        self.probes: list[Probe] = []
        self.count = 0

    async def open(self) -> None:
        import nats
        from nats.js.api import StorageType, StreamConfig

        for node in self.cluster.nodes:
            self.conns.append(
                await nats.connect(
                    [node.url],
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.5,
                    name=f"chaos-probe-{node.name}",
                    **self.stack.nats_options(),
                )
            )
        js = self.conns[0].jetstream(timeout=10)
        await js.add_stream(
            StreamConfig(
                name=PROBE_STREAM,
                subjects=[PROBE_SUBJECT],
                num_replicas=self.cluster.size,
                storage=StorageType.FILE,
            )
        )

    async def close(self) -> None:
        for nc in self.conns:
            await nc.close()

    async def write(self, node: int, tag: str) -> None:
        self.count += 1
        payload = f"{tag}:{self.cluster.nodes[node].name}:{self.count}"
        sent = time.monotonic()
        try:
            ack = (
                await self.conns[node]
                .jetstream(timeout=1.5)
                .publish(PROBE_SUBJECT, payload.encode())
            )
            probe = Probe(node, payload, sent, time.monotonic(), seq=ack.seq)
        except Exception as err:
            probe = Probe(node, payload, sent, time.monotonic(), error=type(err).__name__)
        self.probes.append(probe)

    async def run(self, tag: str, until: asyncio.Event) -> None:
        """Every node, four times a second, until ``until`` is set."""
        writers: set[asyncio.Task[None]] = set()
        while not until.is_set():
            for node in range(self.cluster.size):
                task = asyncio.create_task(self.write(node, tag))
                writers.add(task)
                task.add_done_callback(writers.discard)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(until.wait(), 0.25)
        if writers:
            await asyncio.gather(*writers)

    async def stored(self) -> dict[int, str]:
        """The probe stream as stored: sequence -> payload."""
        js = self.conns[0].jetstream(timeout=10)
        info = await js.stream_info(PROBE_STREAM)
        out: dict[int, str] = {}
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            try:
                msg = await js.get_msg(PROBE_STREAM, seq)
            except Exception:  # a sequence with nothing (deleted): absent
                continue
            out[seq] = (msg.data or b"").decode()
        return out


async def stream_leader(stack: Stack, cluster: NatsCluster, stream: str) -> int:
    """The index of the node leading ``stream`` (asked of JetStream until one answers)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            nc = await stack.connect_nats()
            try:
                info = await nc.jetstream(timeout=5).stream_info(stream)
            finally:
                await nc.close()
            leader = info.cluster.leader if info.cluster else None
            names = [n.name for n in cluster.nodes]
            if leader in names:
                return names.index(leader)
        except Exception:
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise RuntimeError(f"no leader for {stream} within 60 s")
        await asyncio.sleep(0.5)


# --- the run -------------------------------------------------------------------------------------


@dataclass
class Chaos:
    stack: Stack
    cluster: NatsCluster
    lab: netns.NetLab
    prober: Prober
    rng: random.Random
    windows: list[Window] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def note(self, what: str) -> None:
        say(f"partition {time.monotonic() - self.started:7.1f}s  {what}")

    async def calm(self, seconds: float) -> None:
        window = Window(CALM, "no fault", start=time.monotonic())
        until = asyncio.Event()
        probing = asyncio.create_task(self.prober.run(CALM, until))
        await asyncio.sleep(seconds)
        window.healed = window.end = time.monotonic()
        until.set()
        await probing
        self.windows.append(window)

    async def scenario(self, sc: Scenario) -> None:
        leader = await stream_leader(self.stack, self.cluster, subjects.EVENTS_STREAM)
        probe_leader = await stream_leader(self.stack, self.cluster, PROBE_STREAM)
        others = [i for i in range(self.cluster.size) if i != leader]
        name = self.cluster.nodes
        window = Window(sc.kind)
        until = asyncio.Event()
        probing = asyncio.create_task(self.prober.run(sc.kind, until))
        window.start = time.monotonic()
        if sc.kind in (LEADER, MINORITY):
            target = leader if sc.kind == LEADER else self.rng.choice(others)
            window.cut_off = target
            window.on_cut_off = processes_on(self.stack, self.cluster.nodes[target])
            window.detail = (
                f"{name[target].name} ({'the' if target == leader else 'not the'} events "
                f"stream leader) cut off from both others for {sc.fault_s:.0f} s"
            )
            self.lab.isolate(target)
            self.note(f"{sc.kind}: cut {name[target].name} off")
            await asyncio.sleep(sc.fault_s)
            window.still_on = processes_on(self.stack, self.cluster.nodes[target])
            self.lab.heal_all()
        elif sc.kind == FLAPPING:
            peer = self.rng.choice(others)
            window.detail = (
                f"link {name[leader].name} (leader)-{name[peer].name} down {sc.down_s:.0f} s, "
                f"up {sc.up_s:.0f} s, for {sc.fault_s:.0f} s"
            )
            self.note(f"{sc.kind}: {window.detail}")
            for down, up in sc.flaps():
                await asyncio.sleep(max(0.0, window.start + down - time.monotonic()))
                self.lab.cut(leader, peer)
                await asyncio.sleep(max(0.0, window.start + up - time.monotonic()))
                self.lab.heal(leader, peer)
            await asyncio.sleep(max(0.0, window.start + sc.fault_s - time.monotonic()))
        elif sc.kind == SLOW:
            applied = self.lab.slow(leader, sc.delay_ms, sc.loss_percent)
            window.detail = f"{name[leader].name} (leader) slow for {sc.fault_s:.0f} s: {applied}"
            self.note(f"{sc.kind}: {window.detail}")
            await asyncio.sleep(sc.fault_s)
            self.lab.unslow(leader)
        window.healed = time.monotonic()
        window.detail += f" (the probe stream led by {name[probe_leader].name})"
        self.note(f"{sc.kind}: healed; {sc.heal_s:.0f} s to recover")
        await asyncio.sleep(sc.heal_s)
        window.end = time.monotonic()
        until.set()
        await probing
        self.windows.append(window)

    async def run(self, scenarios: Sequence[Scenario], done: asyncio.Event) -> None:
        try:
            await asyncio.sleep(8.0)  # games under way
            await self.calm(10.0)
            for sc in scenarios:
                await self.scenario(sc)
        finally:
            self.lab.heal_all()
            for i in range(self.cluster.size):
                self.lab.unslow(i)
            done.set()


def connected_to(port: int, host: str, names: dict[int, str], ss_output: str) -> list[str]:
    """The processes (``names``: pid -> name) with a TCP connection to ``host:port``, from the
    output of ``ss -tnpH`` (pure)."""
    found = set()
    for line in ss_output.splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[4] != f"{host}:{port}":
            continue
        for pid in re.findall(r"pid=(\d+)", line):
            if int(pid) in names:
                found.add(names[int(pid)])
    return sorted(found)


def processes_on(stack: Stack, node: NodeSpec) -> list[str]:
    """The stack's processes connected to ``node`` now."""
    out = subprocess.run(["ss", "-tnpH"], capture_output=True, text=True, check=False).stdout
    names = {proc.pid: name for name, proc in stack.processes.items()}
    return connected_to(node.port, node.host, names, out)


def nats_version() -> str:
    done = subprocess.run(
        [nats_server_binary(), "--version"], capture_output=True, text=True, check=False
    )
    return (done.stdout or done.stderr).strip()


async def run(opts: Options, scale: float = 1.0) -> int:
    lacking = netns.missing_tools()
    if lacking:
        print(f"chaos-partition: cannot run here: it needs {', '.join(lacking)}", file=sys.stderr)
        return 2
    swept = netns.sweep()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    workdir = (opts.out / "chaos-partition" / stamp).resolve()
    seed = opts.seed if opts.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    anchor = int(time.time() * 1000)
    clock = Clock(opts.rate, anchor)
    version = nats_version()
    say(f"chaos-partition: seed {seed}, {version}, data and logs in {workdir}")
    if swept:
        say(f"chaos-partition: removed what runs that are gone left: {' '.join(swept)}")
    lab = netns.NetLab()
    scenarios = schedule(scale)
    try:
        lab.up()
        cluster = NatsCluster(
            workdir / "nats",
            ports=[4222] * 3,
            cluster_ports=[6222] * 3,
            hosts=lab.hosts,
            monitor_ports=[8222] * 3,
            command=lab.command,
        )
        stack = Stack(
            workdir / "stack",
            cluster=cluster,
            replicas=dict.fromkeys(SERVICES, opts.replicas),
            env=stack_env(opts.rate, anchor),
        )
        prober = Prober(stack, cluster)
        try:
            await asyncio.to_thread(stack.start, 120.0)
            say(f"chaos-partition: up on NATS {cluster.urls}, namespaces {lab.tag}n1-3")
            await prober.open()
            chaos = Chaos(stack, cluster, lab, prober, random.Random(rng.random()))
            done = asyncio.Event()
            faults = asyncio.create_task(chaos.run(scenarios, done))
            try:
                played = await play_while(stack, clock, rng, opts, done)
            finally:
                done.set()
                faults.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await faults
            lines: list[str] = []
            summary_games, checks = await check_all(stack, [r for r, _ in played], lines.append)
            stored = await prober.stored()
            await prober.close()
        finally:
            await asyncio.to_thread(stack.stop)
    finally:
        lab.down()
    left = lab.leftovers()
    results = [r for r, _ in played]
    windows = chaos.windows
    for w in windows:
        measure(w, [t for _, t in played])
        judge_probes(w, prober.probes)
    summary = summarize(
        windows, len(results), summary_games.lost, summary_games.duplicated, summary_games.verified
    )
    probe_lost, probe_doubled = stored_check(prober.probes, stored)
    summary.probe_lost, summary.probe_duplicated = len(probe_lost), len(probe_doubled)
    if summary.lost or probe_lost or summary.duplicated or probe_doubled:
        print(f"LOSS OR DUPLICATION FOUND on {version} (seed {seed}):")
        for item in probe_lost:
            print(f"  probe acknowledged but not stored: seq {item}")
        for item in probe_doubled:
            print(f"  probe stored more than once: {item}")
        for c in checks:
            if c.lost or c.duplicated:
                print(f"  table {c.table_id}: lost {c.lost}, duplicated {c.duplicated}: {c.notes}")
    for line in lines:
        print(line)
    acked = sum(1 for p in prober.probes if p.seq)
    print(
        f"  probe: {len(prober.probes)} writes, {acked} acknowledged, {len(stored)} stored, "
        f"{len(probe_lost)} acknowledged and missing, {len(probe_doubled)} stored twice"
    )
    for w in windows:
        print(w.line())
    print(f"  namespaces and links left after the run: {left or 'none'}")
    why = problems(summary, windows)
    if not summary_games.ledgers_identical or not summary_games.players_identical:
        why.append("the ledger or players replicas differ")
    for reason in why:
        print(f"  FAILED: {reason}")
    report = {
        "seed": seed,
        "nats": version,
        "summary": asdict(summary),
        "scenarios": [
            {
                **{k: v for k, v in asdict(w).items() if k != "errors"},
                "errors": dict(w.errors),
                "p50_ms": w.p50_ms,
                "p99_ms": w.p99_ms,
            }
            for w in windows
        ],
        "games": [
            {
                "index": r.index,
                "game": r.game,
                "table_id": r.table_id,
                "finished": r.finished,
                "error": r.error,
                "seconds": round(r.seconds, 1),
            }
            for r in results
        ],
        "probes": [asdict(p) for p in prober.probes],
    }
    (workdir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"  report: {workdir / 'report.json'}")
    print(summary.line(), flush=True)
    return 0 if not why and not left else 1


def main(argv: list[str] | None = None) -> int:
    import argparse

    defaults = Options()
    parser = argparse.ArgumentParser(
        prog="python -m match_chaos.partition",
        description="Play games while the NATS cluster's links are cut, flapped and slowed.",
    )
    parser.add_argument("--out", type=Path, default=defaults.out, help="runs go to OUT/")
    parser.add_argument("--games", type=int, default=12, help="at least this many")
    parser.add_argument("--concurrency", type=int, default=defaults.concurrency)
    parser.add_argument("--rate", type=float, default=defaults.rate)
    parser.add_argument("--replicas", type=int, default=defaults.replicas, help="per service")
    parser.add_argument("--scale", type=float, default=1.0, help="stretch every fault's time")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    options = Options(
        out=args.out,
        games=args.games,
        kinds=(RACE, CONCENTRATION),  # the two games this run's players play, in turn
        concurrency=args.concurrency,
        rate=args.rate,
        replicas=args.replicas,
        seed=args.seed,
    )
    # SIGTERM ends the run as Ctrl-C does: through the finally blocks that stop the processes
    # and remove the namespaces (SIGKILL cannot be caught: the next run's sweep removes them).
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return asyncio.run(run(options, args.scale))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
