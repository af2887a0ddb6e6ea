"""The players service counts every finished game even when reading a table's records fails.

`make chaos` once ended with both players replicas missing the same finished game while a NATS
node was killed. Two replicas that each keep their own file and follow the log on their own can
only miss the same game through what they share: the cluster, at the instant they both read
that table's records. The follower used to take any failure of that read as "the rules could
not fold this table" and pass the game over for good. Here the follower runs against a real
nats-server, and the read of chosen tables fails the way a killed node or a moving leader makes
it fail (a time-out, a connection error, a read that ends before the revealing record): every
game is still counted, once. The follower here keeps no records as they pass (``gather_bytes``
0), so it reads every table back, as it does a table that began before it started."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import nats
import nats.errors
import pytest
import structlog.testing
from nats.aio.client import Client

from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_launch.natsserver import NatsServer
from services.players import follow
from services.players.book import Book
from services.players.follow import Follower
from tests.services.players.games import keyed, race_game

GAMES = 6
WAIT_S = 60.0


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client: Client = await nats.connect(nats_server.url)
    yield client
    await client.close()


async def publish(nc: Client) -> tuple[list[str], int]:
    js = nc.jetstream()
    await ensure_stream(js)
    rng = random.Random(7)
    tables, last = [], 0
    for n in range(GAMES):
        table_id = f"tfault{n:05d}race"
        for record in race_game(rng, [keyed(2 * n + 1), keyed(2 * n + 2)], table_id):
            last = (await js.publish(subjects.events(table_id), record.SerializeToString())).seq
        tables.append(table_id)
    return tables, last


def failing_once(
    monkeypatch: pytest.MonkeyPatch, faults: dict[str, Callable[[list[Any]], list[Any]]]
) -> list[str]:
    """Reading a table in ``faults`` fails the first time, as its fault says; later reads
    are the real ones. Returns the tables read, in order."""
    real = follow.read_table
    seen: list[str] = []

    async def read_table(js: Any, table_id: str, *args: Any, **options: Any) -> Any:
        seen.append(table_id)
        stored = await real(js, table_id, *args, **options)
        fault = faults.pop(table_id, None)
        return stored if fault is None else fault(stored)

    monkeypatch.setattr(follow, "read_table", read_table)
    return seen


def timed_out(_stored: list[Any]) -> list[Any]:
    raise nats.errors.TimeoutError


def disconnected(_stored: list[Any]) -> list[Any]:
    raise nats.errors.ConnectionClosedError


def cut_short(stored: list[Any]) -> list[Any]:
    return stored[:-1]  # everything but the record that revealed the seed


async def taken(follower: Follower, last: int) -> None:
    """Until ``follower`` has taken the record at ``last``."""
    async with asyncio.timeout(WAIT_S):
        while follower.taken < last:
            await asyncio.sleep(0.05)


def counted(book: Book) -> list[str]:
    """The game ids ``book`` counted."""
    return [row[0] for row in book._db.execute("SELECT game_id FROM games ORDER BY 1")]


async def follow_to(
    nc: Client, path: Path, last: int, gather_bytes: int = follow.GATHER_BYTES
) -> list[str]:
    """Run a follower into a new book until it has taken the record at ``last``; the game ids
    the book counted."""
    book = Book(path)
    try:
        follower = Follower(nc.jetstream(), book, gather_bytes)
        task = asyncio.create_task(follower.run())
        try:
            await taken(follower, last)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return counted(book)
    finally:
        book.close()


@pytest.mark.parametrize("fault", [timed_out, disconnected, cut_short])
async def test_a_failed_read_of_a_finished_table_is_read_again_and_counted(
    nc: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: Any
) -> None:
    tables, last = await publish(nc)
    seen = failing_once(monkeypatch, {tables[1]: fault, tables[4]: fault})
    passed_before = follow.PASSED._value.get()
    games = await follow_to(nc, tmp_path / "players.sqlite3", last, gather_bytes=0)
    assert games == sorted(tables), "every finished game counted, once"
    assert seen.count(tables[1]) == seen.count(tables[4]) == 2, seen
    assert follow.PASSED._value.get() == passed_before, "no game passed over"


async def test_a_table_whose_records_do_not_fit_is_still_passed_over(
    nc: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The other side: records read whole that break the table's numbering (a quarantined
    # table) are passed over at once, not read again for ever.
    tables, last = await publish(nc)

    def shuffled(stored: list[Any]) -> list[Any]:
        return [stored[1], stored[0], *stored[2:]]

    seen = failing_once(monkeypatch, {tables[2]: shuffled})
    passed_before = follow.PASSED._value.get()
    games = await follow_to(nc, tmp_path / "players.sqlite3", last, gather_bytes=0)
    assert games == sorted(t for t in tables if t != tables[2])
    assert seen.count(tables[2]) == 1
    assert follow.PASSED._value.get() == passed_before + 1


async def test_a_copy_of_the_log_made_after_the_follower_started_is_waited_for_quietly(
    nc: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deployment's first start: the players service up before the referee and the ledger,
    which make its copy of the log. It says so at info, warns only once the copy has been
    missing COPY_GRACE_S, and follows the copy as soon as it is made."""
    monkeypatch.setattr(follow, "COPY_GRACE_S", 0.5)
    book = Book(tmp_path / "players.sqlite3")
    try:
        follower = Follower(nc.jetstream(), book, follow.GATHER_BYTES)
        with structlog.testing.capture_logs() as logs:
            task = asyncio.create_task(follower.run())
            try:
                async with asyncio.timeout(WAIT_S):
                    while not any(e["log_level"] == "warning" for e in logs):
                        await asyncio.sleep(0.05)
                said = [(e["log_level"], e["event"]) for e in logs]
                assert said[0] == ("info", "waiting for the players' copy of the log to be made")
                assert said[-1][0] == "warning" and "still missing" in said[-1][1], said
                assert not any("consumer failed" in event for _, event in said), said
                tables, last = await publish(nc)  # the referee starts: the copy is made
                await taken(follower, last)
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        assert counted(book) == sorted(tables)
    finally:
        book.close()
