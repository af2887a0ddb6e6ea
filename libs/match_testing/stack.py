"""The whole system on one machine: NATS (embedded unless a URL is given) and the five services,
each a real process. `make run`, `make demo` and the end-to-end tests all use this."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from match_testing.natsserver import NatsServer, free_port

SERVICES = ("dealer", "ledger", "referee", "lobby", "bot")


@dataclass
class Stack:
    workdir: Path
    nats_url: str | None = None
    lobby_addr: str = ""
    ledger_addr: str = ""  # the ledger's audit gRPC API (LEDGER_ADDR)
    env: Mapping[str, str] = field(default_factory=dict)
    services: tuple[str, ...] = SERVICES
    inherit_output: bool = False
    nats: NatsServer | None = None
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    _logs: dict[str, IO[bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "logs").mkdir(exist_ok=True)
        self.lobby_addr = self.lobby_addr or f"127.0.0.1:{free_port()}"
        self.ledger_addr = self.ledger_addr or f"127.0.0.1:{free_port()}"
        self.secrets = self._secrets()

    def _secrets(self) -> dict[str, str]:
        """Token and bot keys, made once per work folder so tokens survive a restart."""
        path = self.workdir / "secrets.env"
        if not path.exists():
            path.write_text(
                f"MATCH_TOKEN_SECRET={secrets.token_hex(32)}\nMATCH_BOT_KEY={secrets.token_hex(16)}\n"
            )
            path.chmod(0o600)
        pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
        return {k: v for k, v in pairs}

    @property
    def url(self) -> str:
        if self.nats_url:
            return self.nats_url
        assert self.nats is not None
        return self.nats.url

    def service_env(self, name: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.secrets)
        env.update(
            NATS_URL=self.url,
            LOBBY_ADDR=self.lobby_addr,
            LEDGER_ADDR=self.ledger_addr,
            LEDGER_DB=str(self.workdir / "ledger.sqlite3"),
            PYTHONUNBUFFERED="1",
        )
        env.update(self.env)
        # Metrics are off unless the stack is given <SERVICE>_METRICS_PORT (make run is).
        env["METRICS_PORT"] = self.env.get(f"{name.upper()}_METRICS_PORT", "0")
        return env

    def start(self, timeout: float = 30.0) -> Stack:
        if not self.nats_url:
            self.nats = NatsServer(self.workdir / "nats", port=int(self.env.get("NATS_PORT", 0)))
            self.nats.start()
        for name in self.services:
            self.start_service(name)
        self.wait_healthy(timeout)
        return self

    def start_service(self, name: str) -> None:
        out = None
        if not self.inherit_output:
            self._close_log(name)
            out = self._logs[name] = open(self.workdir / "logs" / f"{name}.log", "ab")  # noqa: SIM115
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", f"services.{name}"],
            env=self.service_env(name),
            stdout=out,
            stderr=out,
        )

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Until the lobby answers gRPC health SERVING (and every process is alive)."""
        import grpc  # type: ignore[import-untyped]
        from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, proc in self.processes.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited with {proc.returncode}: {self.log(name)}")
            if "lobby" not in self.processes:
                return
            try:
                with grpc.insecure_channel(self.lobby_addr) as channel:
                    answer = health_pb2_grpc.HealthStub(channel).Check(
                        health_pb2.HealthCheckRequest(service=""), timeout=1
                    )
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the lobby did not become healthy on {self.lobby_addr}")

    def log(self, name: str) -> str:
        path = self.workdir / "logs" / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else "(no log)"

    def _close_log(self, name: str) -> None:
        handle = self._logs.pop(name, None)
        if handle is not None:
            handle.close()

    def stop_service(self, name: str, sig: int = signal.SIGTERM) -> None:
        """Stop one service (SIGKILL to crash it) and wait for it to be gone."""
        proc = self.processes.pop(name, None)
        if proc is not None and proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._close_log(name)

    def stop(self) -> None:
        for name in reversed(list(self.processes)):
            self.stop_service(name)
        if self.nats is not None:
            self.nats.stop()
