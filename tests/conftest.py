"""Shared fixtures: a real nats-server with JetStream on a free port, per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from match_testing.natsserver import NatsServer


@pytest.fixture
def nats_server(tmp_path: Path) -> Iterator[NatsServer]:
    server = NatsServer(tmp_path / "nats").start()
    try:
        yield server
    finally:
        server.stop()
