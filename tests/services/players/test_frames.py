"""The players service counts games whose records came in their partition's frames (group
commit: several tables' records in one message), each game once, even when one frame reveals
two games' seeds and the follower starts over after it."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_bus.records import pack
from match_launch.natsserver import NatsServer
from services.players import follow
from services.players.book import Book
from tests.services.players.games import keyed, race_game
from tests.services.players.test_read_faults import follow_to


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client: Client = await nats.connect(nats_server.url)
    yield client
    await client.close()


def two_tables_of_one_partition() -> tuple[str, str]:
    first = "tframes00000race"
    partition = subjects.partition_of(first)
    second = next(
        t
        for n in range(1, 10_000)
        if subjects.partition_of(t := f"tframes{n:05d}race") == partition
    )
    return first, second


def two_games(rng: random.Random) -> dict[str, list[referee_pb2.TableRecord]]:
    """Two finished race games of two keyed players each, at two tables of one partition, in
    the order the tables are named."""
    first, second = two_tables_of_one_partition()
    return {
        first: race_game(rng, [keyed(1), keyed(2)], first),
        second: race_game(rng, [keyed(3), keyed(4)], second),
    }


async def test_games_whose_records_came_in_frames_are_counted_once(
    nc: Client, tmp_path: Path
) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    games = two_games(random.Random(11))
    one, two = games
    for table_id, records in games.items():  # a table's first record is on its own subject
        await js.publish(subjects.events(table_id), records[0].SerializeToString())
    frame_subject = subjects.frames(subjects.partition_of(one))
    middles = itertools.zip_longest(games[one][1:-1], games[two][1:-1])
    for pair in middles:
        entries = [(r.table_id, r.SerializeToString(), {}) for r in pair if r is not None]
        await js.publish(frame_subject, pack(entries))
    # The last frame reveals both seeds.
    ends = [(t, records[-1].SerializeToString(), {}) for t, records in games.items()]
    last = (await js.publish(frame_subject, pack(ends))).seq

    path = tmp_path / "players.sqlite3"
    assert await follow_to(nc, path, last) == sorted(games)
    # A follower that stops before the last frame is taken whole reads it again from the frame
    # before: each game is still counted once.
    book = Book(path)
    book._move(last - 1)
    book.close()
    assert await follow_to(nc, path, last) == sorted(games)
    book = Book(path)
    counted = book._db.execute("SELECT count(*) FROM games").fetchone()[0]
    book.close()
    assert counted == 2


async def test_only_a_table_begun_before_the_follower_is_read_back(
    nc: Client, tmp_path: Path
) -> None:
    """The follower keeps each table's records from its first as they pass, so a finished game
    is counted without reading its partition's frames again. A table it did not see begin
    (begun before the follower's position) is read back from the stream, and counted too."""
    js = nc.jetstream()
    await ensure_stream(js)
    games = two_games(random.Random(12))
    early, one = games
    begun = (await js.publish(subjects.events(early), games[early][0].SerializeToString())).seq
    await js.publish(subjects.events(one), games[one][0].SerializeToString())
    frame_subject = subjects.frames(subjects.partition_of(one))
    for pair in itertools.zip_longest(games[early][1:], games[one][1:]):
        entries = [(r.table_id, r.SerializeToString(), {}) for r in pair if r is not None]
        last = (await js.publish(frame_subject, pack(entries))).seq

    path = tmp_path / "players.sqlite3"
    book = Book(path)
    book._move(begun)  # the follower starts after early's first record
    book.close()
    read_before = follow.READ_BACK._value.get()
    assert await follow_to(nc, path, last) == sorted(games)
    assert follow.READ_BACK._value.get() == read_before + 1  # early's, not one's
    assert follow.KEPT_BYTES._value.get() == 0  # both finished: nothing kept
