"""The players service as a process on a real nats-server: it counts what the log holds, a
deleted store is rebuilt from the log byte for byte, and crashes at any moment and records seen
twice never count a game twice."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nats.errors import NoRespondersError

from match.v1 import common_pb2, players_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_launch.stack import Stack
from services.players.book import Book
from tests.services.players.games import keyed, race_game

WAIT_S = 60.0


@pytest.fixture
async def stack(tmp_path: Path) -> AsyncIterator[Stack]:
    stack = Stack(tmp_path / "stack", services=("players",))
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


def dump(path: Path) -> str:
    """The book's rows, read from its file without writing to it."""
    book = Book.__new__(Book)
    book._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return book.dump()
    finally:
        book._db.close()


def position(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            row = db.execute("SELECT stream_seq FROM position WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return 0
    return int(row[0]) if row else 0


def counted(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT game_id FROM games ORDER BY game_id")]


async def publish_games(stack: Stack, games: int, seed: int, duplicates: bool = False) -> int:
    """Append ``games`` finished race games to the log (each record as the referee would), and
    with ``duplicates`` each game's last record again, byte for byte; the last stream sequence."""
    rng = random.Random(seed)
    nc = await stack.connect_nats()
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        last = 0
        for n in range(games):
            players = [keyed(p) for p in rng.sample(range(1, 9), rng.randint(1, 3))]
            table_id = f"t{seed:03d}{n:05d}race"
            records = race_game(rng, players, table_id)
            for record in records:
                ack = await js.publish(subjects.events(table_id), record.SerializeToString())
                last = ack.seq
            if duplicates and rng.random() < 0.5:
                ack = await js.publish(subjects.events(table_id), records[-1].SerializeToString())
                last = ack.seq
        return last
    finally:
        await nc.close()


async def caught_up(path: Path, last: int, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while position(path) < last:
        assert time.monotonic() < deadline, f"the players service is at {position(path)} of {last}"
        await asyncio.sleep(0.1)


async def rebuilt(stack: Stack, db: Path, last: int) -> None:
    """Stop the service, delete its store, start it again, and wait until it has read the log
    to ``last`` from the first record."""
    stack.stop_service("players")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    stack.start_service("players")
    await caught_up(db, last)


async def test_a_deleted_store_is_rebuilt_from_the_log_byte_for_byte(stack: Stack) -> None:
    last = await publish_games(stack, 30, seed=1)
    db = stack.players_db("players")
    await caught_up(db, last)
    first = dump(db)
    assert len(counted(db)) == 30
    assert "-- ratings\n(" in first  # rated players

    await rebuilt(stack, db, last)
    assert dump(db) == first

    # It answers the lobby's questions from what it counted.
    nc = await stack.connect_nats()
    try:
        query = players_pb2.PlayersQuery(
            leaderboard=players_pb2.GetLeaderboardRequest(game_kind=common_pb2.GAME_KIND_MATCH_RACE)
        )
        reply = await nc.request(subjects.PLAYERS_QUERY, query.SerializeToString(), timeout=5)
        board = players_pb2.PlayersAnswer.FromString(reply.data).leaderboard
        assert board.unit == "rating" and board.total >= 2 and board.rows[0].rank == 1
        query = players_pb2.PlayersQuery(
            player_id=keyed(999), profile=players_pb2.GetProfileRequest()
        )
        reply = await nc.request(subjects.PLAYERS_QUERY, query.SerializeToString(), timeout=5)
        refused = players_pb2.PlayersAnswer.FromString(reply.data).refusal
        assert refused.category == common_pb2.Refusal.CATEGORY_NOT_FOUND
        reply = await nc.request(subjects.PLAYERS_QUERY, b"\xff\xff", timeout=5)
        refused = players_pb2.PlayersAnswer.FromString(reply.data).refusal
        assert refused.category == common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT
    finally:
        await nc.close()


async def test_a_board_the_game_does_not_have_is_refused_by_the_running_service(
    stack: Stack,
) -> None:
    """Over NATS, as the lobby asks: an unknown board is INVALID_ARGUMENT naming the game's
    boards (nothing played yet: only the main board, which answers empty)."""
    nc = await stack.connect_nats()
    try:

        async def ask(board: str) -> players_pb2.PlayersAnswer:
            request = players_pb2.GetLeaderboardRequest(
                game_kind=common_pb2.GAME_KIND_MATCH_RACE, board=board, page=1, page_size=20
            )
            query = players_pb2.PlayersQuery(leaderboard=request).SerializeToString()
            deadline = time.monotonic() + WAIT_S
            while True:  # until the service has started and subscribed
                try:
                    reply = await nc.request(subjects.PLAYERS_QUERY, query, timeout=5)
                    return players_pb2.PlayersAnswer.FromString(reply.data)
                except NoRespondersError:
                    assert time.monotonic() < deadline, "the players service never answered"
                    await asyncio.sleep(0.1)

        refused = (await ask("nope")).refusal
        assert refused.category == common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT
        assert refused.code == "unknown_board"
        assert refused.message.startswith(
            "Match, the race has no board 'nope': its boards are the main board (an empty board "
            "name). "
        )
        main = await ask("")
        assert main.WhichOneof("answer") == "leaderboard" and main.leaderboard.pages == 0
    finally:
        await nc.close()


async def test_crashes_and_records_seen_twice_never_count_a_game_twice(stack: Stack) -> None:
    db = stack.players_db("players")
    games = 150
    stack.stop_service("players")  # the log is written first: then there is work to kill it at
    last = await publish_games(stack, games, seed=2, duplicates=True)
    stack.start_service("players")
    # Killed (SIGKILL: no clean-up) each time it has counted a game more than before, so each
    # kill lands while it works, then started again.
    kills = 0
    seen = position(db)
    while kills < 5:
        deadline = time.monotonic() + WAIT_S
        while position(db) == seen and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        seen = position(db)
        if seen >= last:
            break
        os.kill(stack.processes["players"].pid, signal.SIGKILL)
        stack.stop_service("players")
        kills += 1
        stack.start_service("players")
    await caught_up(db, last)
    assert kills == 5, f"it caught up after {kills} kills: too little work to kill it at"
    crashed = dump(db)
    ids = counted(db)
    assert len(ids) == len(set(ids)) == games

    await rebuilt(stack, db, last)
    assert dump(db) == crashed


def test_a_record_seen_twice_is_passed_over() -> None:
    # What the crash test relies on: the copy of a game's last record does not continue its
    # table's numbering, so it cannot make a second finished game.
    from match_bus.records import BadRecord, read_table

    rng = random.Random(1)
    records = race_game(rng, [keyed(1), keyed(2)], "tdupe0001race")
    data = [(n + 1, r.SerializeToString()) for n, r in enumerate(records)]
    data.append((len(data) + 1, records[-1].SerializeToString()))
    with pytest.raises(BadRecord):
        read_table("tdupe0001race", data)
    assert isinstance(records[-1], referee_pb2.TableRecord)
