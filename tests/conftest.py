"""Shared fixtures: a real nats-server with JetStream on a free port, per test; and, for the
folders that define a ``stack`` (the whole system, match_launch.stack.Stack), its clock, a
gRPC channel to its lobby and a NATS connection."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from nats.aio.client import Client

from match_bus.clock import Clock
from match_bus.secretfiles import write_secret
from match_launch.natsserver import NatsServer
from match_launch.stack import Stack
from tests.timeouts import pytest_runtest_makereport, pytest_timeout_set_timer

# hooks: a test past its timeout fails alone, saying where it waited
__all__ = ["pytest_runtest_makereport", "pytest_timeout_set_timer"]


def running(stack: Stack) -> Iterator[Stack]:
    """For a fixture, ``yield from running(stack)``: start the stack, hand it to the test, stop
    it, then fail if NATS refused any of its services anything (a grant missing from
    match_bus.access while whole games were played)."""
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()
    assert not stack.nats_refusals(), "\n".join(stack.nats_refusals())


def secret_file(folder: Path, name: str, text: str) -> str:
    """A secret file as the services want one: mode 0600. Returns its path."""
    path = folder / name
    write_secret(path, text.encode())
    return str(path)


@pytest.fixture
def bot_key(tmp_path: Path) -> dict[str, str]:
    """The environment that gives a bot (or a lobby) the bot key ``k``, in a file."""
    return {"MATCH_BOT_KEY_FILE": secret_file(tmp_path, "bot.key", "k\n")}


@pytest.fixture
def nats_server(tmp_path: Path) -> Iterator[NatsServer]:
    server = NatsServer(tmp_path / "nats").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def clock(stack: Stack) -> Clock:
    """The system's clock, as the stack's services keep it (tests run it faster)."""
    return Clock(float(stack.env["REFEREE_CLOCK_RATE"]), int(stack.env["REFEREE_CLOCK_ANCHOR_MS"]))


@pytest.fixture
async def channel(stack: Stack) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as ch:
        yield ch


@pytest.fixture
async def nc(stack: Stack) -> AsyncIterator[Client]:
    client = await stack.connect_nats()
    yield client
    await client.close()


# What starts servers: a fixture of these names (asked for directly or through another
# fixture), or a module that uses the launchers (match_launch: nats-server and the services;
# match_bench and match_chaos start whole stacks). Such a test is marked ``stack``, and
# `make test-fast` leaves it out (-m "not stack").
_SERVER_FIXTURES = frozenset({"nats_server", "stack"})
_LAUNCHERS = ("match_launch", "match_bench", "match_chaos")


def _uses_a_launcher(module: object) -> bool:
    for value in vars(module).values():
        name = getattr(value, "__module__", None) or getattr(value, "__name__", "")
        if isinstance(name, str) and name.startswith(_LAUNCHERS):
            return True
    return False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    launching: dict[object, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module not in launching:
            launching[module] = module is not None and _uses_a_launcher(module)
        if launching[module] or _SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.stack)
