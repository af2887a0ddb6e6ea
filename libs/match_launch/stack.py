"""The whole system on one machine: NATS (embedded, a local three-node cluster, or a URL given)
and the six services, each a real process, optionally several replicas of each. `make run`,
`make run-cluster`, `make demo`, `make chaos` and the end-to-end tests all use this.

Process names: a service run once is named after it (``"referee"``); a service with more
replicas has one process per replica, ``"referee.1"``, ``"referee.2"``, ... Every process gets
``MATCH_REPLICA_ID`` (``referee-2``) and ``MATCH_STREAM_REPLICAS`` (the number of NATS nodes,
unless ``env`` says otherwise). All lobby replicas bind the same ``LOBBY_ADDR`` and all ledger
replicas the same ``LEDGER_ADDR``: gRPC sets SO_REUSEPORT on Linux, and the kernel spreads new
connections over the processes bound to the port. Each ledger replica keeps its own copy of
the log (``ledger-<i>.sqlite3``, durable consumer ``ledger-<i>``), signed with the one key in
``ledger.key``. A single ledger keeps ``ledger.sqlite3`` and the durable ``ledger``.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from nats.aio.client import Client
from nats.js.errors import NotFoundError

from match_bus import subjects
from match_bus.access import ADMIN, Identities
from match_bus.secretfiles import read_secret, write_secret
from match_bus.upgrade import rewrite_copies
from match_launch.child import tied
from match_launch.natscluster import NatsCluster
from match_launch.natsserver import NatsServer, free_port

SERVICES = ("dealer", "ledger", "referee", "lobby", "bot", "players")
CREATORS = ("dealer", "ledger", "referee")  # they make the streams and buckets at start
# What match_bus.service.run logs once a service is up, as JSON or for a terminal.
SERVING = re.compile(r'"event": "serving"|\] serving\b')
METRICS_STEP = 10  # replica i of a service with <SERVICE>_METRICS_PORT=P serves on P + 10 * (i-1)


# The lobby's per-address limits on tables and bot seats (docs/operations.md, Limits) turned
# off: for a driver whose many scripted players all come from 127.0.0.1, as people behind one
# gateway would. Every player's own limits stay on.
ONE_ADDRESS_MANY_PLAYERS = {
    "LOBBY_RATE_ADDR": "0",
    "LOBBY_RATE_CREATE": "0",
    "LOBBY_RATE_SIGN_IN": "0",
    "LOBBY_WAITING_PER_ADDR": "0",
    "LOBBY_BOTS_PER_ADDR": "0",
}


def process_names(service: str, replicas: int) -> list[str]:
    """``["referee"]`` for one replica, ``["referee.1", "referee.2"]`` for two."""
    if replicas <= 1:
        return [service]
    return [f"{service}.{i}" for i in range(1, replicas + 1)]


def split_name(name: str) -> tuple[str, int]:
    """``"referee.2"`` -> ``("referee", 2)``; ``"referee"`` -> ``("referee", 1)``."""
    service, _, index = name.partition(".")
    return service, int(index) if index else 1


@dataclass
class Stack:
    workdir: Path
    nats_url: str | None = None
    lobby_addr: str = ""
    ledger_addr: str = ""  # the ledger's audit gRPC API (LEDGER_ADDR)
    web_addr: str = ""  # the lobby's web edge and the web client (LOBBY_WEB_ADDR)
    ledger_web_addr: str = ""  # the ledger's audit API for browsers (LEDGER_WEB_ADDR)
    env: Mapping[str, str] = field(default_factory=dict)
    # The CA certificate that signed the lobby's (when env gives it LOBBY_TLS_CERT): the health
    # checks verify the lobby with it, and every process gets it as MATCH_CA (the bot's).
    ca_file: Path | None = None
    services: tuple[str, ...] = SERVICES
    inherit_output: bool = False
    nats: NatsServer | None = None
    cluster: NatsCluster | None = None  # run on this cluster (started here if it is not running)
    replicas: Mapping[str, int] = field(default_factory=dict)  # per service; 1 when absent
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _logs: dict[str, IO[bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "logs").mkdir(exist_ok=True)
        self.lobby_addr = self.lobby_addr or f"127.0.0.1:{free_port()}"
        self.ledger_addr = self.ledger_addr or f"127.0.0.1:{free_port()}"
        self.web_addr = self.web_addr or f"127.0.0.1:{free_port()}"
        self.ledger_web_addr = self.ledger_web_addr or f"127.0.0.1:{free_port()}"
        self.secrets = self._secrets()

    def _secrets(self) -> dict[str, str]:
        """The deployment's secrets, made once per work folder (so tokens survive a restart)
        as files only their owner may read, in ``<workdir>/secrets/``: the NATS identities
        (match_bus.access), the lobby's token secret and the bot key. Returns the token secret
        and the bot key by name, for tests that mint tokens."""
        self.identities = Identities(self.workdir / "secrets").ensure()
        for path, size in ((self.token_secret_file, 32), (self.bot_key_file, 16)):
            if not path.exists():
                write_secret(path, secrets.token_hex(size).encode() + b"\n")
        if self.cluster is not None:
            self.cluster.authorization = self.identities.authorization()
            self.cluster.route_password = self.identities.route_password
            self.cluster.connect_options = self.nats_options()
        return {
            "MATCH_TOKEN_SECRET": read_secret(self.token_secret_file).decode().strip(),
            "MATCH_BOT_KEY": read_secret(self.bot_key_file).decode().strip(),
        }

    @property
    def web_url(self) -> str:
        """Where a browser opens the web client."""
        return f"http://{self.web_addr}"

    @property
    def ledger_web_url(self) -> str:
        return f"http://{self.ledger_web_addr}"

    @property
    def token_secret_file(self) -> Path:
        return self.workdir / "secrets" / "token.secret"

    @property
    def bot_key_file(self) -> Path:
        return self.workdir / "secrets" / "bot.key"

    def nats_options(self, name: str = ADMIN) -> dict[str, str]:
        """``nats.connect`` keyword arguments for identity ``name`` (the operator's ``admin``
        by default, which has every right; tests that tamper use it)."""
        return self.identities.connect_options(name)

    async def connect_nats(self, identity: str = ADMIN, **kwargs: Any) -> Client:
        """A NATS connection to this stack as ``identity`` (``admin`` by default); ``kwargs``
        go to ``nats.connect`` (``name=`` names the connection, not the identity)."""
        import nats

        servers = (
            self.cluster.url_list if self.cluster is not None and not self.nats_url else [self.url]
        )
        return await nats.connect(servers, **self.nats_options(identity), **kwargs)

    # --- names and addresses ---------------------------------------------------------------

    def names(self, service: str | None = None) -> list[str]:
        """Every process name, in start order (or those of one service)."""
        chosen = self.services if service is None else (service,)
        return [n for s in chosen for n in process_names(s, self.replicas.get(s, 1))]

    @property
    def url(self) -> str:
        """One NATS URL to connect to (with a cluster: the first node running)."""
        if self.nats_url:
            return self.nats_url
        if self.cluster is not None:
            return self.cluster.url
        assert self.nats is not None
        return self.nats.url

    @property
    def ledger_key_file(self) -> Path:
        return self.workdir / "ledger.key"

    @property
    def verifier_key_file(self) -> Path:
        """What auditors pin: ``match-audit verify <game> --key <this>``."""
        return self.workdir / "ledger.vkey"

    def ledger_db(self, name: str) -> Path:
        """The SQLite file of ledger process ``name``."""
        if self.replicas.get("ledger", 1) <= 1:
            return self.workdir / "ledger.sqlite3"
        _, index = split_name(name)
        return self.workdir / f"ledger-{index}.sqlite3"

    def players_db(self, name: str) -> Path:
        """The SQLite file (the read models) of players process ``name``."""
        if self.replicas.get("players", 1) <= 1:
            return self.workdir / "players.sqlite3"
        _, index = split_name(name)
        return self.workdir / f"players-{index}.sqlite3"

    def _process_nats_url(self) -> str:
        """A cluster's processes get every node, comma-separated (``connect`` splits them and
        nats-py picks one at random and fails over to the others); otherwise the one URL."""
        if self.cluster is None or self.nats_url:
            return self.url
        return self.cluster.urls

    def service_env(self, name: str) -> dict[str, str]:
        """The environment of process ``name`` (``"lobby"``, ``"ledger.2"``, ...)."""
        service, index = split_name(name)
        replicated = self.replicas.get(service, 1) > 1
        env = dict(os.environ)
        env.update(
            NATS_URL=self._process_nats_url(),
            NATS_NKEY_FILE=str(self.identities.seed_file(service)),
            MATCH_TOKEN_SECRET_FILE=str(self.token_secret_file),
            MATCH_BOT_KEY_FILE=str(self.bot_key_file),
            LOBBY_ADDR=self.lobby_addr,
            LEDGER_ADDR=self.ledger_addr,
            LOBBY_WEB_ADDR=self.web_addr,
            LOBBY_WEB_AUDIT_URL=self.ledger_web_url,
            LOBBY_AUDIT_ADDR=self.ledger_addr,
            LEDGER_WEB_ADDR=self.ledger_web_addr,
            # the auditor's page is served by the lobby's edge and calls the ledger's
            LEDGER_WEB_ORIGINS=self.web_url,
            LEDGER_DB=str(self.ledger_db(name)),
            PLAYERS_DB=str(self.players_db(name)),
            MATCH_REPLICA_ID=f"{service}-{index}",
            MATCH_STREAM_REPLICAS=str(self.cluster.size if self.cluster is not None else 1),
            PYTHONUNBUFFERED="1",
        )
        if replicated and service == "ledger":
            env["LEDGER_DURABLE"] = f"ledger-{index}"  # each replica keeps a whole copy
            env["LEDGER_KEY_FILE"] = str(self.ledger_key_file)  # every copy signs with one key
        if self.ca_file is not None:
            env["MATCH_CA"] = str(self.ca_file)
        env.update(self.env)
        # Metrics are off unless the stack is given <SERVICE>_METRICS_PORT (make run is).
        port = int(self.env.get(f"{service.upper()}_METRICS_PORT", "0"))
        env["METRICS_PORT"] = str(port + METRICS_STEP * (index - 1) if port else 0)
        return env

    # --- life --------------------------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> Stack:
        """Start NATS (unless given) and every service; a start that fails stops what it
        started, so no process outlives it."""
        try:
            return self._start(timeout)
        except BaseException:
            self.stop()
            raise

    def _start(self, timeout: float) -> Stack:
        if self.cluster is not None and not self.nats_url:
            if not self.cluster.live_urls():
                self.cluster.start()
        elif not self.nats_url:
            store = self.workdir / "nats"
            kept = (store / "jetstream").exists()  # a store an earlier run (maybe older) made
            self.nats = NatsServer(
                store,
                port=int(self.env.get("NATS_PORT", 0)),
                authorization=self.identities.authorization(),
            )
            self.nats.start()
            if kept:
                self._upgrade_store()
        # The first replica of every service first: it makes the streams and buckets, which on
        # a cluster take a moment to elect their leaders; then the other replicas.
        first = [n for n in self.names() if split_name(n)[1] == 1]
        for name in first:
            self.start_service(name)
        self.wait_healthy(timeout)
        rest = [n for n in self.names() if n not in first]
        if rest and not self.inherit_output:
            self.wait_serving([n for n in first if split_name(n)[0] in CREATORS], timeout)
        for name in rest:
            self.start_service(name)
        if rest:
            self.wait_healthy(timeout)
        if not self.inherit_output:  # the lobby may be healthy before the dealer listens
            self.wait_serving([n for n in self.names() if split_name(n)[0] in CREATORS], timeout)
        return self

    def _upgrade_store(self) -> None:
        """Give an embedded server's store, made by an older version, what the operator's
        upgrade gives a deployment (docs/operations.md, "Upgrading"): here the stack is the
        operator, and no service has started, so nobody reads the copies of the log. Only the
        copies written in the background (``async-copies``) for now; a store without the log
        and its copies yet is left for the services to fill."""

        async def upgrade() -> list[str]:
            nc = await self.connect_nats()
            try:
                js = nc.jetstream()
                for name in (subjects.EVENTS_STREAM, *subjects.EVENTS_COPIES.values()):
                    try:
                        await js.stream_info(name)
                    except NotFoundError:
                        return []
                return await rewrite_copies(js)
            finally:
                await nc.close()

        with ThreadPoolExecutor(1) as thread:  # the caller may be inside an event loop
            try:
                done = thread.submit(asyncio.run, upgrade()).result()
            except Exception as error:  # best effort: the copies stay as they are, and work
                print(f"the copies of the log stay as they were: {error}", flush=True)
                return
        if done:
            print(
                "the copies of the log an older version made are made again, written in the "
                f"background (docs/operations.md, Upgrading): {', '.join(done)}",
                flush=True,
            )

    def start_service(self, name: str) -> None:
        """Start process ``name`` (a service, or one replica of it: ``"referee.2"``)."""
        service, _ = split_name(name)
        out = None
        if not self.inherit_output:
            self._close_log(name)
            out = self._logs[name] = open(self.workdir / "logs" / f"{name}.log", "ab")  # noqa: SIM115
        self.processes[name] = subprocess.Popen(
            tied([sys.executable, "-m", f"services.{service}"]),
            env=self.service_env(name),
            stdout=out,
            stderr=out,
        )

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Until the lobby answers gRPC health SERVING (and every process is alive)."""
        import grpc  # type: ignore[import-untyped]
        from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]

        tls = bool(self.service_env("lobby").get("LOBBY_TLS_CERT"))
        roots = self.ca_file.read_bytes() if tls and self.ca_file is not None else None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, proc in self.processes.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with {proc.returncode}: {self.log(name)}")
            if not any(split_name(n)[0] == "lobby" for n in self.processes):
                return
            try:
                channel = (
                    grpc.secure_channel(self.lobby_addr, grpc.ssl_channel_credentials(roots))
                    if tls
                    else grpc.insecure_channel(self.lobby_addr)
                )
                with channel:
                    answer = health_pb2_grpc.HealthStub(channel).Check(
                        health_pb2.HealthCheckRequest(service=""), timeout=1
                    )
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the lobby did not become healthy on {self.lobby_addr}")

    def wait_serving(self, names: list[str], timeout: float = 30.0) -> None:
        """Until each of ``names`` has logged that it is serving (logs written to files)."""
        deadline = time.monotonic() + timeout
        waiting = list(names)
        while waiting:
            for name in waiting:
                proc = self.processes.get(name)
                if proc is not None and proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with {proc.returncode}: {self.log(name)}")
            waiting = [n for n in waiting if not SERVING.search(self.log(n, tail=0))]
            if waiting and time.monotonic() > deadline:
                raise RuntimeError(f"{waiting} did not start serving within {timeout} s")
            time.sleep(0.1)

    def log(self, name: str, tail: int = 4000) -> str:
        path = self.workdir / "logs" / f"{name}.log"
        if not path.exists():
            return "(no log)"
        text = path.read_text(errors="replace")
        return text[-tail:] if tail else text

    def _close_log(self, name: str) -> None:
        handle = self._logs.pop(name, None)
        if handle is not None:
            handle.close()

    def stop_service(self, name: str, sig: int = signal.SIGTERM) -> None:
        """Stop one process (SIGKILL to crash it) and wait for it to be gone."""
        proc = self.processes.pop(name, None)
        if proc is not None and proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._close_log(name)

    def nats_refusals(self) -> list[str]:
        """Every publish or subscription NATS refused, from its servers' logs (the lines
        ``... - Publish Violation - Subject "..."``): a service's missing grant, or an
        attacker's try. Empty when every service kept to its permissions."""
        if self.nats is not None:
            logs = [self.nats.store_dir / "nats.log"]
        elif self.cluster is not None:
            logs = [node.store_dir / "nats.log" for node in self.cluster.nodes]
        else:
            return []  # somebody else's NATS
        return [
            line
            for path in logs
            if path.exists()
            for line in path.read_text(errors="replace").splitlines()
            if "Violation" in line and "Authorization Violation" not in line
        ]

    def stop(self) -> None:
        for name in reversed(list(self.processes)):
            self.stop_service(name)
        if self.nats is not None:
            self.nats.stop()
        if self.cluster is not None:
            self.cluster.stop()
