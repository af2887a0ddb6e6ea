"""The chaos itself: SIGKILL a random service replica at a random moment, start it again a little
later; once in the run, stop one NATS node and start it again.

The first kills go to each service in turn (in a random order), so every service is killed at
least once; after that the service is drawn at random, and the replica too. One fault at a time:
a killed replica is started again before the next kill, so each service always has a replica
running unless it runs only one.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from match_chaos.unavailable import Window
from match_launch.stack import Stack, split_name

NATS_NODE = "NATS node"  # the kind of a NATS node's stop, in the unavailability report


def kill_kind(service: str) -> str:
    """The kind of a replica's kill, in the unavailability report: ``kill lobby``."""
    return f"kill {service}"


@dataclass
class Faults:
    stack: Stack
    rng: random.Random
    say: Callable[[str], None]
    min_kills: int = 10
    gap_s: tuple[float, float] = (3.0, 8.0)  # between one fault's end and the next kill
    down_s: tuple[float, float] = (1.0, 4.0)  # a killed replica stays down this long
    nats_down_s: tuple[float, float] = (5.0, 10.0)
    nats_after: int = 3  # the NATS node goes down after this many kills
    kills: int = 0
    nats_stops: int = 0
    killed: Counter[str] = field(default_factory=Counter)  # by service
    crashed: list[str] = field(default_factory=list)  # processes that died without being killed
    started: float = field(default_factory=time.monotonic)
    windows: list[Window] = field(default_factory=list)  # each fault, from kill to start again

    @property
    def satisfied(self) -> bool:
        """At least ``min_kills`` kills, every service killed, and the NATS node stopped once
        (``min_kills`` 0: no faults at all, a baseline run)."""
        if self.min_kills <= 0:
            return True
        every = all(self.killed[s] for s in self.stack.services)
        return self.kills >= self.min_kills and every and self.nats_stops >= 1

    def _note(self, what: str) -> None:
        self.say(f"chaos {time.monotonic() - self.started:7.1f}s  {what}")

    async def run(self, stop: asyncio.Event) -> None:
        """Fault after fault until ``stop`` is set; everything is running again on return."""
        order = list(self.stack.services)
        self.rng.shuffle(order)
        while self.min_kills > 0 and not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), self.rng.uniform(*self.gap_s))
                break
            except TimeoutError:
                pass
            await self.revive_crashed()
            if self.kills >= self.nats_after and not self.nats_stops:
                await self.stop_a_nats_node()
                continue
            service = order.pop() if order else self.rng.choice(self.stack.services)
            await self.kill_one(service)
        await stop.wait()
        await self.restore()

    async def kill_one(self, service: str) -> None:
        name = self.rng.choice(self.stack.names(service))
        began = time.monotonic()
        await asyncio.to_thread(self.stack.stop_service, name, signal.SIGKILL)
        self.kills += 1
        self.killed[split_name(name)[0]] += 1
        down = self.rng.uniform(*self.down_s)
        self._note(f"killed {name} (kill {self.kills}); back in {down:.1f}s")
        await asyncio.sleep(down)
        await asyncio.to_thread(self.stack.start_service, name)
        self.windows.append(Window(kill_kind(split_name(name)[0]), name, began, time.monotonic()))
        self._note(f"started {name}")

    async def stop_a_nats_node(self) -> None:
        cluster = self.stack.cluster
        if cluster is None:
            self.nats_stops += 1  # nothing to stop on a single server
            return
        index = self.rng.randrange(cluster.size)
        began = time.monotonic()
        await asyncio.to_thread(cluster.stop_node, index, signal.SIGKILL)
        self.nats_stops += 1
        down = self.rng.uniform(*self.nats_down_s)
        self._note(f"killed NATS node {cluster.nodes[index].name}; back in {down:.1f}s")
        await asyncio.sleep(down)
        await asyncio.to_thread(cluster.start_node, index)
        await asyncio.to_thread(cluster.wait_jetstream)
        self.windows.append(Window(NATS_NODE, cluster.nodes[index].name, began, time.monotonic()))
        self._note(f"started NATS node {cluster.nodes[index].name}")

    async def revive_crashed(self) -> None:
        """Start again any process that exited by itself (and note it: that is a finding)."""
        for name in self.stack.names():
            proc = self.stack.processes.get(name)
            if proc is not None and proc.poll() is not None:
                self.crashed.append(f"{name} (exit {proc.returncode})")
                self._note(f"{name} had exited by itself with {proc.returncode}; starting it")
                await asyncio.to_thread(self.stack.start_service, name)

    async def restore(self) -> None:
        """Every node and every process running again."""
        cluster = self.stack.cluster
        if cluster is not None:
            for index in range(cluster.size):
                if not cluster.running(index):
                    await asyncio.to_thread(cluster.start_node, index)
        await self.revive_crashed()
        for name in self.stack.names():
            if name not in self.stack.processes:
                await asyncio.to_thread(self.stack.start_service, name)
