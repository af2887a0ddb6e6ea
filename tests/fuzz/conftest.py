"""One real stack for the fuzz suite (every service a process, as in tests/e2e), and a record of
everything any fuzz client received, for the leak check at the end.

The system clock runs ten times faster, as in the end-to-end tests; the bot fills seats only when
a host starts a table.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from match_launch.natsserver import free_port
from match_launch.stack import ONE_ADDRESS_MANY_PLAYERS, Stack
from tests.conftest import running
from tests.e2e.players_race import Player
from tests.fuzz.api import OWN_CONNECTION

RATE = 10.0


@dataclass
class Seen:
    """Every fuzz client of the module: the scripted people, and what raw calls got back."""

    people: list[Player] = field(default_factory=list)
    strangers: list[Any] = field(default_factory=list)  # replies to calls with no valid token
    calls: int = 0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        Path(tmp_path_factory.mktemp("fuzz")),
        # Both loopbacks: the fuzz clients dial [::] (::1); the flood comes from 127.0.0.1, so
        # it is another client address (the limits are per address).
        lobby_addr=f"[::]:{free_port()}",
        env={
            # The scripted people all come from one address; the address's call rate stays on.
            **{k: v for k, v in ONE_ADDRESS_MANY_PLAYERS.items() if k != "LOBBY_RATE_ADDR"},
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "0.1",
        },
    )
    yield from running(s)


@pytest.fixture(scope="module")
def seen() -> Seen:
    return Seen()


@pytest.fixture
def raw(stack: Stack) -> Iterator[grpc.Channel]:
    """A blocking channel on a connection of its own (the raw calls of hypothesis tests)."""
    with grpc.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION) as channel:
        yield channel


@pytest.fixture
async def channel(stack: Stack) -> AsyncIterator[grpc.aio.Channel]:
    """The scripted people's channel (one connection for the test)."""
    async with grpc.aio.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION) as ch:
        yield ch
