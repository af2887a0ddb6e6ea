"""Leaving a NATS node that cannot reach JetStream's quorum.

A node cut off from the rest of its cluster keeps its clients' TCP connections: nats-py sees a
healthy link and never moves, while every JetStream call through that node times out for as
long as the cut lasts. So each service's connection is watched (:class:`Failover`): every
``interval_s`` it asks JetStream for the account's info (``$JS.API.INFO``, answered by the
meta leader, so only through a node in touch with the cluster's quorum) with a short timeout,
and the referee's appends report their timeouts too (:meth:`Failover.missed`). ``misses`` in a
row without an answer, the node asked once more (an append also times out while a stream
elects a leader on a healthy node), another server seen answering, and the connection moves:
nats-py's own ``force_reconnect`` (the subscriptions are sent again on the new connection, as
after any reconnect; JetStream consumers live on the servers and follow), with
:class:`Chooser` picking the server seen answering, the node just left tried last.

It must not flap, nor leave a node it cannot do without:

* one slow answer is not a reason: it takes ``misses`` in a row, and any answer starts the
  count again;
* a connection with no other server in its pool (one node, as under `make run`) never moves;
* it moves only to a server seen answering the probe (an election answers 503 on every node
  for a moment: nobody moves then), and each further try after one waits twice as many
  misses as the one before (up to :data:`MAX_BACKOFF` times), until a probe is answered.

The decisions (:class:`Judge`, :class:`Chooser`) are pure; :class:`Failover` does the I/O.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog
from nats.aio.client import Client, Server
from nats.errors import Error as NatsError
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError
from prometheus_client import Counter

PROBE_SUBJECT = "$JS.API.INFO"
MAX_BACKOFF = 8
AVOID_PENALTY = 2  # the node just left is tried after every other has failed this many times
_log = structlog.get_logger()
MOVES = Counter(
    "match_nats_failovers_total",
    "Times this process left a NATS node that could not reach JetStream's quorum",
)


@dataclass(frozen=True, slots=True)
class FailoverSettings:
    """How a service watches its NATS node (read once at start-up, see BaseConfig)."""

    interval_s: float = 1.0  # MATCH_NATS_PROBE_S: time between probes; 0: no probing
    timeout_s: float = 1.0  # MATCH_NATS_PROBE_TIMEOUT_S: a probe unanswered this long misses
    misses: int = 3  # MATCH_NATS_PROBE_MISSES: misses in a row that move the connection

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> FailoverSettings:
        """The settings, or a ValueError naming the variable that is wrong."""
        default = cls()
        interval = _number(env, "MATCH_NATS_PROBE_S", default.interval_s)
        timeout = _number(env, "MATCH_NATS_PROBE_TIMEOUT_S", default.timeout_s)
        misses = _number(env, "MATCH_NATS_PROBE_MISSES", default.misses)
        if interval < 0:
            raise ValueError(f"MATCH_NATS_PROBE_S must be 0 (off) or more, not {interval}")
        if timeout <= 0:
            raise ValueError(f"MATCH_NATS_PROBE_TIMEOUT_S must be more than 0, not {timeout}")
        if misses < 1 or misses != int(misses):
            raise ValueError(f"MATCH_NATS_PROBE_MISSES must be a whole number >= 1, not {misses}")
        return cls(interval, timeout, int(misses))


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {raw!r}") from None


@dataclass
class Judge:
    """When to leave the node (pure): ``misses`` unanswered probes or timed-out JetStream
    calls in a row, never with nowhere else to go, and more patiently after each move that
    brought no answer."""

    misses: int
    count: int = 0
    backoff: int = 1

    def answered(self) -> None:
        """The node reached JetStream: all is well, the next move needs the full count only."""
        self.count = 0
        self.backoff = 1

    def reconnected(self) -> None:
        """A new connection: its node is judged afresh (the backoff is kept)."""
        self.count = 0

    def missed(self, elsewhere: int) -> bool:
        """One more miss; True when the connection should move now. ``elsewhere``: how many
        other servers the connection could go to (0: it stays, whatever happens)."""
        self.count += 1
        if elsewhere == 0 or self.count < self.misses * self.backoff:
            return False
        self.count = 0
        self.backoff = min(self.backoff * 2, MAX_BACKOFF)
        return True


@dataclass
class Chooser:
    """Which server a reconnect goes to (nats-py's ``reconnect_to_server_handler``): the one
    that failed least, the node last left counting :data:`AVOID_PENALTY` failures more until
    ``avoid_s`` have passed; ties in the pool's (shuffled) order. It waits
    ``reconnect_wait_s`` before a server that failed its last try, none otherwise."""

    reconnect_wait_s: float
    avoid_s: float = 60.0
    clock: Callable[[], float] = time.monotonic
    avoided: dict[str, float] = field(default_factory=dict)  # netloc -> until when
    preferred: str | None = None  # tried first, once: a server seen reaching the quorum

    def avoid(self, netloc: str, prefer: str | None = None) -> None:
        self.avoided = {netloc: self.clock() + self.avoid_s}
        self.preferred = prefer

    def __call__(self, servers: list[Server], info: dict[str, Any]) -> tuple[Server | None, float]:
        if not servers:
            return None, self.reconnect_wait_s
        now = self.clock()
        preferred, self.preferred = self.preferred, None

        def cost(server: Server) -> int:
            if server.uri.netloc == preferred:
                return -1
            until = self.avoided.get(server.uri.netloc)
            return server.reconnects + (AVOID_PENALTY if until is not None and now < until else 0)

        chosen = min(servers, key=cost)  # min keeps the first of equals
        return chosen, self.reconnect_wait_s if chosen.reconnects > 0 else 0.0


def elsewhere(nc: Client) -> int:
    """How many servers in the connection's pool are not the one it is connected to."""
    here = nc.connected_url.netloc if nc.connected_url is not None else None
    return len({s.uri.netloc for s in nc.server_pool} - {here})


Healthy = Callable[[str], Awaitable[bool]]


@dataclass
class Failover:
    """One connection's watch: the judge, the chooser, and the move itself. ``healthy(url)``
    asks another server, on a connection of its own, whether it reaches the quorum: the
    connection moves only to a server that does (when none does, the whole cluster is without
    one, an election say, and moving would only drop the answers in flight)."""

    settings: FailoverSettings
    chooser: Chooser
    healthy: Healthy
    ask: Callable[[Client, float], Awaitable[str | None]] = field(default=lambda nc, t: ask(nc, t))
    judge: Judge = field(init=False)
    nc: Client | None = None
    moving: bool = False

    def __post_init__(self) -> None:
        self.judge = Judge(self.settings.misses)

    def answered(self) -> None:
        self.judge.answered()

    def reconnected(self) -> None:
        self.judge.reconnected()
        self.moving = False

    async def missed(self, why: str) -> None:
        """A probe or a JetStream call got no answer in time through this connection."""
        nc = self.nc
        if nc is None or self.moving or not nc.is_connected:
            return
        if not self.judge.missed(elsewhere(nc)):
            return
        left = nc.connected_url
        assert left is not None
        self.moving = True
        try:
            if await self.ask(nc, self.settings.timeout_s) is None:
                # this node reaches the meta leader: the timeouts were a stream's election
                self.moving = False
                self.judge.answered()
                return
            others = [s.uri for s in nc.server_pool if s.uri.netloc != left.netloc]
            answers = await asyncio.gather(*(self.healthy(uri.geturl()) for uri in others))
            better = [uri for uri, ok in zip(others, answers, strict=True) if ok]
        except BaseException:
            self.moving = False
            raise
        if not better or not nc.is_connected:
            self.moving = False
            _log.info(
                "NATS node does not reach JetStream's quorum, nor does any other: staying",
                node=left.netloc,
                last=why,
            )
            return
        self.chooser.avoid(left.netloc, prefer=better[0].netloc)
        MOVES.inc()
        _log.warning(
            "leaving a NATS node that does not reach JetStream's quorum",
            node=left.netloc,
            to=better[0].netloc,
            misses=self.settings.misses,
            last=why,
        )
        await nc.force_reconnect()

    async def probe(self) -> None:
        """Ask once; an answer (even an error that is not 'unavailable') is an answer."""
        nc = self.nc
        if nc is None or not nc.is_connected:
            return
        why = await self.ask(nc, self.settings.timeout_s)
        if why is None:
            self.answered()
        elif why != GONE:
            await self.missed(why)

    async def run(self) -> None:
        """Probe every ``interval_s`` (from the start of one probe to the next: a probe that
        times out does not slow the count down) until the connection closes."""
        nc = self.nc
        assert nc is not None
        loop = asyncio.get_running_loop()
        due = loop.time()
        while not nc.is_closed:
            due = max(due + self.settings.interval_s, loop.time())
            await asyncio.sleep(due - loop.time())
            with contextlib.suppress(Exception):
                await self.probe()


GONE = "the connection is going or gone"  # not the node's fault: the reconnect will tell


async def ask(nc: Client, timeout_s: float) -> str | None:
    """Ask JetStream for the account's info through ``nc``: None when it answered, else why
    not."""
    try:
        msg = await nc.request(PROBE_SUBJECT, b"", timeout=timeout_s)
    except (NatsTimeoutError, TimeoutError):
        return "probe timed out"
    except NoRespondersError:
        return "no JetStream on this node"
    except NatsError:
        return GONE
    return "JetStream unavailable" if unavailable(msg.data) else None


async def reaches_quorum(url: str, timeout_s: float, options: Mapping[str, Any]) -> bool:
    """Whether the server at ``url`` answers the probe, asked on a connection of its own
    (made and closed here, ``options`` as the service's own: its identity)."""
    import nats

    try:
        nc = await nats.connect(
            [url],
            connect_timeout=timeout_s,
            allow_reconnect=False,
            max_reconnect_attempts=0,
            **options,
        )
    except (OSError, NatsError, TimeoutError):
        return False
    try:
        return await ask(nc, timeout_s) is None
    finally:
        with contextlib.suppress(Exception):
            await nc.close()


def unavailable(data: bytes) -> bool:
    """Whether a JetStream API answer says JetStream is unavailable here (HTTP-like 503)."""
    try:
        answer = json.loads(data)
    except ValueError:
        return False
    error = answer.get("error") if isinstance(answer, dict) else None
    return isinstance(error, dict) and error.get("code") == 503
