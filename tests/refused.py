"""A service started with a setting it cannot use: it must stop before it starts (before it
connects anywhere), non-zero, with a sentence on stderr and no traceback. The tests of each
kind of setting (secrets, the event loop, numbers) start the real module this way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def refused_at_start(service: str, settings: dict[str, str]) -> str:
    """Run ``python -m services.<service>`` with ``settings`` over this process's environment
    (NATS at a port nothing listens on, metrics on any port); its stderr, once it has exited
    non-zero without a traceback."""
    env = {
        **os.environ,
        "NATS_URL": "nats://127.0.0.1:1",  # never reached: refused before connecting
        "METRICS_PORT": "0",
        **settings,
    }
    done = subprocess.run(
        [sys.executable, "-m", f"services.{service}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done.stderr
