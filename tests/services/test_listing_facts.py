"""The referee's fact headers and the table listing that reads them, over real NATS with the real
referee and dealer: every record carries the table-level facts it holds (none for a turn) and its
place in its table's numbering, the lobby's mirror of the log keeps them, and the listing built
from them (turns not decoded) is the listing built the old way, every record decoded and folded
with the game's rules, as it is built from a log written before the headers."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from nats.aio.client import Client

from match.v1 import common_pb2, lobby_pb2, referee_pb2
from match_bus import subjects
from match_bus.records import (
    FACTS_HEADER,
    GAME_OVER,
    GAME_STARTED,
    NUMBERS_HEADER,
    facts_of,
    pack,
)
from match_launch.stack import Stack
from services.lobby.directory import TableDirectory
from tests.conftest import running
from tests.services.ready import until_the_referee_answers
from tests.services.test_referee_games import create, flip, game_events, table_cmd

RATE = 10.0  # referee ms per wall ms: a waiting table expires 5 s after it is made
EXPIRY_MS = 50_000
SOLO, FILLED, EXPIRES, PRIVATE = "f1solo0001", "f2fill0001", "f3race0001", "f4priv0001"


@pytest.fixture
def stack(tmp_path: Path) -> Any:
    anchor = str(int(time.time() * 1000))
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee"),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": anchor,
            "REFEREE_TABLE_EXPIRY_MS": str(EXPIRY_MS),
            # Every record alone, each message's headers its own: the test compares the
            # listing read three ways from those records, the third as group commit would
            # frame them (as_frames), against what the headers say record by record.
            "REFEREE_FRAMES": "0",
        },
    )
    yield from running(s)


@pytest.fixture
async def nc(stack: Stack) -> AsyncIterator[Client]:
    client = await stack.connect_nats()
    await until_the_referee_answers(client)
    yield client
    await client.close()


async def play_solo_to_its_end(nc: Client, table: str) -> None:
    """Flip pairs at a solo Concentration table of 24 cards until its game ends."""
    faces: dict[int, str] = {}
    taken: set[int] = set()

    async def turn(card: int) -> bool:
        for _ in range(100):
            reply = await flip(nc, table, "ann", card)
            if reply.WhichOneof("result") == "accepted":
                events = game_events(reply.accepted.events)
                for which, body in events:
                    if which == "card_flipped":
                        faces[body.card] = body.face
                    elif which == "pair_taken":
                        taken.update(body.cards)
                return any(which == "game_ended" for which, _ in events)
            await asyncio.sleep(0.05)  # a miss still showing: the cards go down first
        raise AssertionError(f"card {card} was never flipped: {reply}")

    while True:
        down = [c for c in range(1, 25) if c not in taken]
        known: dict[str, int] = {}
        pair = None
        for card in down:
            face = faces.get(card)
            if face is not None and face in known:
                pair = (known[face], card)
                break
            if face is not None:
                known[face] = card
        if pair is None:
            first = next(c for c in down if c not in faces)
            await turn(first)
            match = next((c for c in down if c != first and faces.get(c) == faces[first]), None)
            second = match or next(c for c in down if c not in faces)
        else:
            first, second = pair
            await turn(first)
        if await turn(second):
            return


async def stored(nc: Client, stream: str, last: int = 0) -> list[Any]:
    """The messages of ``stream`` up to ``last`` (0: all), in order, as nats-server holds them
    (headers included)."""
    js = nc.jetstream()
    last = last or (await js.stream_info(stream)).state.last_seq
    return [await js.get_msg(stream, seq) for seq in range(1, last + 1)]


def listing(directory: TableDirectory, tables: list[str]) -> dict[str, Any]:
    """Everything the listing answers about ``tables``."""
    return {
        "tables": {t: directory.get(t) for t in tables},
        "over": {t: directory.is_over(t) for t in tables},
        "expired": {t: directory.expired(t) for t in tables},
        "waiting": {t: directory.is_waiting(t) for t in tables},
        "bot_seats": {t: directory.bot_seats(t) for t in tables},
        "bob_left": {t: directory.has_left(t, "bob") for t in tables},
        "open": [t.table_id for t in directory.open_tables(common_pb2.GAME_KIND_UNSPECIFIED)],
        "counts": (directory.listed(), directory.waiting(), directory.bot_seats_in_use()),
    }


def as_frames(messages: list[Any]) -> list[tuple[str, bytes, dict[str, str] | None]]:
    """The records of ``messages`` (one a message, in stream order) as group commit would
    append them: a table's first record on its own subject; the others, in order, in their
    partition's frames of up to three records (a frame ends where another partition's record
    or a table's first comes between)."""
    out: list[tuple[str, bytes, dict[str, str] | None]] = []
    group: list[tuple[str, bytes, dict[str, str]]] = []
    partition = -1

    def close() -> None:
        if group:
            out.append((subjects.frames(partition), pack(group), None))
            group.clear()

    for message in messages:
        table_id = subjects.table_of_events(message.subject)
        assert table_id is not None
        first = referee_pb2.TableRecord.FromString(message.data).record_number == 1
        if first or subjects.partition_of(table_id) != partition or len(group) == 3:
            close()
        if first:
            out.append((message.subject, message.data, dict(message.headers)))
            continue
        partition = subjects.partition_of(table_id)
        group.append((table_id, message.data, dict(message.headers)))
    close()
    assert any(subject.endswith(".frame") for subject, _, _ in out)
    return out


async def test_the_listing_from_fact_headers_is_the_listing_from_every_record(
    nc: Client, stack: Stack
) -> None:
    solo = await table_cmd(nc, SOLO, "ann", **create(1))
    assert solo.WhichOneof("result") == "accepted", solo
    await table_cmd(nc, FILLED, "ann", **create(4))
    await table_cmd(nc, FILLED, "bob", join_table={"display_name": "Bob"})
    await table_cmd(nc, FILLED, "bob", leave_table={})
    await table_cmd(nc, FILLED, "bob", join_table={"display_name": "Bob"})
    filled = await table_cmd(nc, FILLED, "ann", start_table={})  # CPU players, and it starts
    assert filled.WhichOneof("result") == "accepted", filled
    race = {
        "game_kind": common_pb2.GAME_KIND_MATCH_RACE,
        "seats": 2,
        "visibility": common_pb2.VISIBILITY_OPEN,
        "display_name": "Ann",
    }
    await table_cmd(nc, EXPIRES, "ann", create_table=race)  # nobody comes: it expires
    await play_solo_to_its_end(nc, SOLO)
    refused = await flip(nc, FILLED, "zed", 1)  # not seated: refused, and recorded
    assert refused.WhichOneof("result") == "refusal", refused

    deadline = time.monotonic() + 30
    while True:  # the solo table's seed is revealed; the race table expires
        facts = [facts_of(m.headers) for m in await stored(nc, subjects.EVENTS_STREAM)]
        if {"seed_revealed", "table_expired"} <= set().union(*(f or () for f in facts)):
            break
        assert time.monotonic() < deadline, facts
        await asyncio.sleep(0.2)
    private = create(2, visibility=common_pb2.VISIBILITY_PRIVATE, invite_code="secret12")
    await table_cmd(nc, PRIVATE, "ann", **private)  # it waits (5 s before it would expire)
    await table_cmd(nc, PRIVATE, "bob", join_table={"display_name": "Bob"})  # no code: refused

    # The lobby's listing follows its mirror (real headers), up to where the stream is now ...
    followed = TableDirectory(nc.jetstream())
    following = asyncio.create_task(followed.run())
    try:
        assert await followed.sync(timeout_s=10)
    finally:
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await following
    last = followed._last_seq  # the CPU players play on: compare up to here
    records = await stored(nc, subjects.EVENTS_STREAM, last)
    facts = [facts_of(m.headers) for m in records]
    tables = [SOLO, FILLED, EXPIRES, PRIVATE]

    # Every record says its facts and numbers; the lobby's mirror keeps both headers as they are.
    mirrored = await stored(nc, subjects.LOBBY_EVENTS, last)
    assert len(mirrored) == len(records)
    for original, copy in zip(records, mirrored, strict=True):
        assert FACTS_HEADER in original.headers and NUMBERS_HEADER in original.headers
        assert copy.data == original.data
        for header in (FACTS_HEADER, NUMBERS_HEADER):
            assert copy.headers[header] == original.headers[header]
        record = referee_pb2.TableRecord.FromString(original.data)
        numbers = f"{record.record_number} {record.first_event_number} {len(record.events)}"
        assert original.headers[NUMBERS_HEADER] == numbers
        named = {e.table.WhichOneof("event") for e in record.events if e.HasField("table")}
        assert named <= facts_of(original.headers)  # type: ignore[operator]
    by_table: dict[str, list[frozenset[str]]] = {}
    for message, named in zip(records, facts, strict=True):
        assert named is not None
        by_table.setdefault(subjects.table_of_events(message.subject) or "", []).append(named)
    solo_facts = by_table[SOLO]
    assert {"table_created", GAME_STARTED} <= solo_facts[0]  # a solo table starts at once
    assert sum(GAME_OVER in f for f in solo_facts) == 1
    assert solo_facts[-1] == {"seed_revealed"}
    turns = [f for f in solo_facts[1:-1] if GAME_OVER not in f]
    assert len(turns) >= 24 and all(f == frozenset() for f in turns)  # turns: no fact at all
    assert sum(GAME_STARTED in f for f in by_table[FILLED]) == 1
    assert by_table[EXPIRES][-1] == {"table_expired"}
    assert all(GAME_STARTED not in f for f in by_table[PRIVATE])
    assert frozenset() in by_table[FILLED]  # the refused flip: recorded, no fact

    # ... is the listing of the same records read with their headers, and of a log written
    # before them (no headers: every record decoded and folded with the game's rules).
    with_headers, old_way = TableDirectory(js=None), TableDirectory(js=None)  # type: ignore[arg-type]
    for message in records:
        with_headers.take(message.subject, message.seq, message.data, message.headers)
        old_way.take(message.subject, message.seq, message.data)

    # ... and of the same records as group commit appends them: each table's first on its own
    # subject, the others in their partition's frames, several tables' records to a frame.
    framed = TableDirectory(js=None)  # type: ignore[arg-type]
    for sequence, (subject, data, headers) in enumerate(as_frames(records), start=1):
        framed.take(subject, sequence, data, headers)

    expected = listing(old_way, tables)
    assert listing(followed, tables) == expected
    assert listing(with_headers, tables) == expected
    assert listing(framed, tables) == expected
    assert framed.decoded == with_headers.decoded
    status = {t: (table.status if table else None) for t, table in expected["tables"].items()}
    assert status == {
        SOLO: lobby_pb2.Table.STATUS_FINISHED,
        FILLED: lobby_pb2.Table.STATUS_PLAYING,
        EXPIRES: None,
        PRIVATE: lobby_pb2.Table.STATUS_WAITING,
    }
    assert expected["expired"][EXPIRES] and expected["bob_left"] == dict.fromkeys(tables, False)
    assert expected["tables"][FILLED].game_id == FILLED
    assert old_way.decoded == len(records)  # the old way decodes every record
    decoded = sum(1 for f in facts if f)  # with the headers, only records holding a fact
    assert with_headers.decoded == followed.decoded == decoded <= len(records) - len(turns)
