"""Start NATS (embedded, unless NATS_URL is set) and the five services; Ctrl-C stops them all."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from match_testing.stack import Stack


def main() -> int:
    env = os.environ.get
    metrics = {"LOBBY": 9101, "REFEREE": 9102, "DEALER": 9103, "LEDGER": 9104, "BOT": 9105}
    stack = Stack(
        Path(env("MATCH_VAR", "var")).resolve(),
        nats_url=env("NATS_URL") or None,
        lobby_addr=env("LOBBY_ADDR", "127.0.0.1:50051"),
        ledger_addr=env("LEDGER_ADDR", "127.0.0.1:50052"),
        env={
            "NATS_PORT": env("NATS_PORT", "4222"),
            **{f"{k}_METRICS_PORT": env(f"{k}_METRICS_PORT", str(v)) for k, v in metrics.items()},
        },
        inherit_output=True,
    )
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        stack.start()
        print(
            f"\nMatch is up. gRPC: {stack.lobby_addr}  audit: {stack.ledger_addr}  "
            f"NATS: {stack.url}  data: {stack.workdir}\n"
            f"Play: .venv/bin/match play --new      Demo: make demo      Stop: Ctrl-C\n",
            file=sys.stderr,
            flush=True,
        )
        while not stopping:
            for name, proc in stack.processes.items():
                if proc.poll() is not None:
                    print(f"{name} exited ({proc.returncode}); stopping", file=sys.stderr)
                    stopping = True
            time.sleep(0.5)
    finally:
        stack.stop()
        print("stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
