"""The shape of every service's ``main``: configure, connect, serve until a signal, drain."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import contextvars
import gc
import itertools
import os
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg
from prometheus_client import REGISTRY, Counter, Metric
from prometheus_client.core import HistogramMetricFamily
from prometheus_client.registry import Collector

from match_bus.failover import FailoverSettings
from match_bus.jetstream import connect
from match_bus.secretfiles import SecretFileError, check_private
from match_bus.settings import whole
from match_obs import configure_logging, serve_metrics

# The services' event loop unless MATCH_EVENT_LOOP says otherwise: uvloop carried 12 % more turns
# at full speed for 11 % less CPU per turn than asyncio's own loop (docs/performance.md, "Levers").
DEFAULT_EVENT_LOOP = "uvloop"
EVENT_LOOPS = ("asyncio", "uvloop")


# The garbage collector's youngest generation is collected once this many more container objects
# were made than freed (CPython's default: 700). A turn makes many (messages, dataclasses,
# futures), nearly all freed by their reference counts a moment later; at 700 the collections
# came often and walked them while they were still alive: 7.7 % of the referee's samples at full
# speed. docs/performance.md, "The garbage collector".
GC_YOUNG_THRESHOLD = 20_000


class GcPauses(Collector):
    """Every collection stops the whole service for its length, and a turn in flight waits it
    out; prometheus_client's own collector counts collections and what they freed, not how long
    they took. This times each one (a ``gc.callbacks`` entry) and serves the histogram
    ``match_gc_pause_seconds{generation}`` (docs/operations.md, "The garbage collector").

    The callback takes no lock, so it keeps its counts itself rather than in a Histogram: a
    collection can begin in any thread at any allocation, also in one holding the lock of a
    metric's value (a scrape reading it), and a callback that then took that lock would wait
    for itself (prometheus/client_python#363, why that library dropped its own pause histogram).
    A scrape reads the counts as they are; one collection's figures may be half in it."""

    NAME = "match_gc_pause_seconds"
    HELP = "How long each garbage collection stopped the service, by generation (2: the full one)"
    BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._began = 0.0
        # per generation: how many pauses fell in each bucket (the last: over every bound)
        self._counts = [[0] * (len(self.BUCKETS) + 1) for _ in range(3)]
        self._sums = [0.0, 0.0, 0.0]

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = self._clock()
            return
        took = self._clock() - self._began
        generation = info["generation"]
        self._sums[generation] += took
        self._counts[generation][bisect.bisect_left(self.BUCKETS, took)] += 1

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self.NAME, self.HELP, labels=["generation"])
        bounds = [*(str(bound) for bound in self.BUCKETS), "+Inf"]
        for generation in range(3):
            cumulative = list(itertools.accumulate(self._counts[generation]))
            buckets = list(zip(bounds, cumulative, strict=True))
            family.add_metric([str(generation)], buckets, self._sums[generation])
        yield family


GC_PAUSES = GcPauses()  # served by every process that imports this; timing once tune_gc runs
REGISTRY.register(GC_PAUSES)


def tune_gc() -> None:
    """A service's collector, before its loop starts: what start-up made (modules, descriptors,
    configuration; never garbage) is frozen out of every later collection, and the youngest
    generation is collected every :data:`GC_YOUNG_THRESHOLD` objects. Cycles are still found:
    later, not never. Each collection's pause is measured (``match_gc_pause_seconds``)."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, oldest)
    if GC_PAUSES not in gc.callbacks:
        gc.callbacks.append(GC_PAUSES)


def event_loop_from_env(env: Mapping[str, str] = os.environ) -> str:
    """``MATCH_EVENT_LOOP``, or the default when it is unset or blank (not checked here)."""
    return env.get("MATCH_EVENT_LOOP", "").strip() or DEFAULT_EVENT_LOOP


@dataclass(frozen=True, slots=True)
class BaseConfig:
    """Read once at start-up; handlers never read the environment."""

    nats_url: str
    log_format: str
    log_level: str
    metrics_port: int
    stream_replicas: int = 1  # JetStream replicas of the streams and buckets a service creates
    replica_id: str = ""  # this process among its service's replicas (logs, leases, durables)
    nats_seed_file: str = ""  # the service's NATS identity (an NKey seed file, mode 0600)
    metrics_host: str = "127.0.0.1"  # METRICS_HOST: 0.0.0.0 in a pod, so Prometheus can scrape
    event_loop: str = DEFAULT_EVENT_LOOP  # MATCH_EVENT_LOOP: uvloop (libuv's), or asyncio's
    # MATCH_NATS_PROBE_S, _TIMEOUT_S, _MISSES: when to leave a node cut off from the quorum
    failover: FailoverSettings = field(default_factory=FailoverSettings)

    @classmethod
    def from_env(cls, default_metrics_port: int) -> BaseConfig:
        return cls(
            nats_url=os.environ.get("NATS_URL", "nats://127.0.0.1:4222"),
            log_format=os.environ.get("LOG_FORMAT", "auto"),
            log_level=os.environ.get("LOG_LEVEL", "info"),
            metrics_port=whole(os.environ, "METRICS_PORT", default_metrics_port, 0),
            stream_replicas=whole(os.environ, "MATCH_STREAM_REPLICAS", 1, 1),
            replica_id=os.environ.get("MATCH_REPLICA_ID")
            or f"{socket.gethostname()}-{os.getpid()}",
            nats_seed_file=os.environ.get("NATS_NKEY_FILE", ""),
            metrics_host=os.environ.get("METRICS_HOST", "127.0.0.1"),
            event_loop=event_loop_from_env(),
            failover=FailoverSettings.from_env(),
        )


def answerable(msg: Msg) -> bool:
    """Whether ``msg`` is a request whose answer goes to an inbox (``_INBOX.``). A service
    answers nowhere else, and judges nothing else: a reply subject is chosen by the sender,
    and an answer published there carries the service's own rights (the referee's may write
    to the table log), so a request naming any other subject is dropped and logged."""
    if msg.reply.startswith("_INBOX."):
        return True
    structlog.get_logger().warning(
        "request dropped: its answer would not go to an inbox",
        subject=msg.subject,
        reply=msg.reply,
    )
    return False


# Which connection (the client's reconnect count) the request being handled came in on: set in
# the subscription's callback, copied into the task that does the work.
_RECEIVED_ON: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "match_received_on", default=None
)
DROPPED_REPLIES = Counter(
    "match_replies_dropped_total",
    "Answers not sent because the request came over a connection since lost (asked again)",
)


def _connection(msg: Msg) -> int:
    return int(msg._client.stats["reconnects"])


GIVE_UP_HEADER = "Match-Give-Up-At-Ms"


def give_up_headers(timeout_s: float, now_ms: float | None = None) -> dict[str, str]:
    """The header a request carries saying when its sender stops waiting for the answer (wall
    time, Unix ms): see :func:`given_up`."""
    now = time.time() * 1000 if now_ms is None else now_ms
    return {GIVE_UP_HEADER: str(int(now + timeout_s * 1000))}


def given_up(msg: Msg, now_ms: float | None = None) -> bool:
    """Whether ``msg``'s sender had stopped waiting before it arrived. Such a request is not
    judged: its sender told its caller to try again (with the same request id), and a copy
    held up in a cut link (a NATS partition) can arrive after that retry was judged and after
    many newer commands, past what the referee remembers of a player's answers; judging it
    then would make one move twice. Without the header (an older sender), it is judged."""
    headers = msg.headers or {}
    at = headers.get(GIVE_UP_HEADER)
    if at is None:
        return False
    try:
        deadline = int(at)
    except ValueError:
        return False
    now = time.time() * 1000 if now_ms is None else now_ms
    return now > deadline


def received(msg: Msg) -> None:
    """Note the connection ``msg`` came in on. Call it in the subscription's callback, before
    the task that answers is made (the task keeps a copy); ``spawn`` does."""
    _RECEIVED_ON.set(_connection(msg))


async def reply(msg: Msg, data: bytes) -> bool:
    """Answer ``msg``, unless the connection it came in on has been lost since. NATS lets a
    service answer a request (``allow_responses``) only through the server that delivered it,
    on that connection: an answer sent after a reconnect is refused as a permission violation.
    So it is not sent; the requester's timeout and retry cover it (every request the services
    answer is idempotent). Nor is it sent while the client is reconnecting: nats-py keeps what
    is published then and sends it over the next connection, before that connection counts as
    a reconnect (a failover's move away from a node, match_bus.failover, made a chaos run see
    the referee refused so). False when dropped."""
    came = _RECEIVED_ON.get()
    lost = came is not None and came != _connection(msg)
    if lost or msg._client.is_reconnecting:
        DROPPED_REPLIES.inc()
        structlog.get_logger().info(
            "answer dropped: the request came over a connection lost since; it will be asked again",
            subject=msg.subject,
        )
        return False
    await msg.respond(data)
    return True


def spawn(handler: Callable[[Msg], Coroutine[Any, Any, None]]) -> Callable[[Msg], Awaitable[None]]:
    """A subscription callback that does each message's work in its own task (the callback
    itself runs one message at a time), keeping a reference so the task is not collected."""
    tasks: set[asyncio.Task[None]] = set()
    log = structlog.get_logger()

    async def callback(msg: Msg) -> None:
        received(msg)
        task = asyncio.create_task(handler(msg))
        tasks.add(task)

        def done(t: asyncio.Task[None]) -> None:
            tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("handler failed", subject=msg.subject, exc_info=t.exception())

        task.add_done_callback(done)

    return callback


async def wait_for_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


T = TypeVar("T")


def configured(name: str, read: Callable[[], T]) -> T:
    """A service's settings from ``read()``; a ValueError there (a setting it cannot use, said
    by name: match_bus.settings) stops the service before anything starts, with one line."""
    try:
        return read()
    except ValueError as error:
        sys.exit(f"{name}: {error}")


def refuse_unknown_loop(name: str, event_loop: str) -> None:
    """Stop the service before anything starts unless ``event_loop`` is one it can run on."""
    if event_loop not in EVENT_LOOPS:
        choices = " or ".join(EVENT_LOOPS)
        sys.exit(f"{name}: MATCH_EVENT_LOOP must be {choices}, not {event_loop!r}")


def run(
    name: str,
    config: BaseConfig,
    serve: Callable[[Client], Awaitable[Callable[[], Awaitable[None]] | None]],
) -> None:
    """Run a service: ``serve(nc)`` registers everything and may return a clean-up coroutine."""
    configure_logging(name, config.log_format, config.log_level)
    log = structlog.get_logger()
    if config.nats_seed_file:
        try:
            check_private(Path(config.nats_seed_file))
        except SecretFileError as error:  # refused before anything starts
            sys.exit(f"{name}: NATS_NKEY_FILE: {error}")
    refuse_unknown_loop(name, config.event_loop)
    serve_metrics(config.metrics_port, config.metrics_host)

    async def main() -> None:
        nc = await connect(config.nats_url, name, config.nats_seed_file, config.failover)
        log.info("connected", nats=config.nats_url)
        cleanup = await serve(nc)
        log.info("serving")
        await wait_for_signal()
        log.info("stopping")
        if cleanup is not None:
            await cleanup()
        with contextlib.suppress(Exception):
            await nc.drain()
        log.info("stopped")

    tune_gc()
    run_loop(config.event_loop, main())


def run_loop(event_loop: str, main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` on uvloop (libuv's loop, which spends less CPU per message; see
    docs/performance.md) or on asyncio's own loop, as ``MATCH_EVENT_LOOP`` says."""
    if event_loop == "uvloop":
        import uvloop

        uvloop.run(main)
    else:
        asyncio.run(main)
