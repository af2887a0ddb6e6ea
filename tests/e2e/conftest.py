"""The whole system for end-to-end tests: embedded NATS and all five services as processes.

The system's clock runs ten times faster here (REFEREE_CLOCK_RATE=10, shared by every process
that times anything), so a 120 s board lasts 12 s of wall time. The rules never know.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from match_launch.stack import Stack
from tests.conftest import running

RATE = 10.0


def fast_stack(tmp_path: Path, **env: str) -> Iterator[Stack]:
    """The whole system on the ten-times clock, bots filling only when a host starts a table;
    ``env`` adds to (or changes) those settings."""
    anchor = int(time.time() * 1000)
    s = Stack(
        tmp_path / "stack",
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(anchor),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "1.0",  # a person's pace on the wall clock: slow on this fast clock
            **env,
        },
    )
    yield from running(s)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    yield from fast_stack(tmp_path)
