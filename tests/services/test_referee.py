"""The referee over real NATS with the real dealer: commands in, fenced records out."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client

from match.v1 import common_pb2, race_command_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import TableLog
from match_bus.records import fact_headers, pack
from match_bus.service import give_up_headers
from match_launch.stack import Stack
from match_rules.race import events as ev
from match_rules.race.game import from_proto
from tests.conftest import running
from tests.services.ready import until_the_referee_answers

RATE = 10.0


@pytest.fixture
def stack(tmp_path: Path) -> Any:
    anchor = str(int(time.time() * 1000))
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee"),
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": anchor,
            "REFEREE_FORGET_AFTER_S": "0.5",  # finished games leave memory at once
        },
    )
    yield from running(s)


@pytest.fixture
async def nc(stack: Stack) -> AsyncIterator[Client]:
    client = await stack.connect_nats()
    await until_the_referee_answers(client)
    yield client
    await client.close()


async def table_cmd(
    nc: Client, table: str, player: str, **command: Any
) -> referee_pb2.TableCommandReply:
    request = referee_pb2.TableCommand(table_id=table, player_id=player, **command)
    for attempt in range(50):  # the referee (or the dealer it asks) may still be starting
        try:
            msg = await nc.request(subjects.referee_table(table), request.SerializeToString(), 5)
        except nats.errors.NoRespondersError:
            await asyncio.sleep(0.1 * attempt)
            continue
        reply = referee_pb2.TableCommandReply.FromString(msg.data)
        if reply.refusal.code != "unavailable":  # nothing changed: safe to ask again
            return reply
        await asyncio.sleep(0.1 * attempt)
    raise AssertionError("referee never answered")


async def race_cmd(
    nc: Client, table: str, player: str, **command: Any
) -> race_command_pb2.RaceCommandReply:
    request = race_command_pb2.RaceCommand(table_id=table, player_id=player, **command)
    msg = await nc.request(subjects.referee_race(table), request.SerializeToString(), 5)
    return race_command_pb2.RaceCommandReply.FromString(msg.data)


# The Ready window, in game time: at RATE 10, 120 s is 12 s on the wall, so no stall of the
# machine makes a player who presses at once miss it.
def create(seats: int = 2, window: int = 120_000) -> dict[str, Any]:
    return {
        "create_table": referee_pb2.TableCommand.CreateTable(
            game_kind=common_pb2.GAME_KIND_MATCH_RACE,
            seats=seats,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name="Ann",
            race={"ready_window_ms": window},
        )
    }


def race_events(reply: Any) -> list[Any]:
    return [from_proto(e.race) for e in reply.accepted.events if e.HasField("race")]


async def test_a_table_fills_starts_and_takes_turns(nc: Client, stack: Stack) -> None:
    table = "t1abcdef01"
    created = await table_cmd(nc, table, "ann", **create())
    assert created.WhichOneof("result") == "accepted", created
    assert created.accepted.seat == 1
    kinds = [e.table.WhichOneof("event") for e in created.accepted.events]
    assert kinds == ["table_created", "seed_committed", "player_seated"]
    again = await table_cmd(nc, table, "zed", **create())
    assert again.refusal.code == "table_exists"
    early = await race_cmd(nc, table, "ann", press_ready={})
    assert early.refusal.code == "game_not_started"
    joined = await table_cmd(nc, table, "bob", join_table={"display_name": "Bob"})
    assert joined.accepted.seat == 2
    started = race_events(joined)
    assert [type(e) for e in started] == [ev.GameStarted, ev.ReadyOpened]
    await race_cmd(nc, table, "ann", press_ready={})
    ready = await race_cmd(nc, table, "bob", press_ready={})
    (countdown,) = [e for e in race_events(ready) if isinstance(e, ev.CountdownStarted)]
    await asyncio.sleep((countdown.starts_at - countdown.at) / RATE / 1000 + 0.05)
    turned = await race_cmd(nc, table, "ann", turn_tile={"tile": 7})
    assert turned.WhichOneof("result") == "accepted", turned
    mine = race_events(turned)[-1]
    assert isinstance(mine, ev.TileTurned) and mine.tile == 7
    assert turned.accepted.counters.turns == 1
    bad = await race_cmd(nc, table, "ann", turn_tile={"tile": 21})
    assert (bad.refusal.code, bad.refusal.category) == (
        "tile_out_of_range",
        common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT,
    )
    stranger = await race_cmd(nc, table, "mallory", turn_tile={"tile": 1})
    assert stranger.refusal.code == "not_seated"
    # Bob sees Ann's turn only as counts; the log holds the face.
    records = await TableLog(nc.jetstream()).read(table)
    decoded = [referee_pb2.TableRecord.FromString(r.data) for r in records]
    assert any(r.refusal.code == "tile_out_of_range" for r in decoded)
    numbers = [e.event_number for r in decoded for e in r.events]
    assert numbers == list(range(1, len(numbers) + 1))


async def test_a_command_its_sender_gave_up_on_is_not_judged(nc: Client, stack: Stack) -> None:
    """A copy held up in a cut link arrives after its sender told the player to try again (and
    the retry was judged): judging it would make the move twice, so it is dropped unanswered."""
    table = "t1givenup1"
    created = await table_cmd(nc, table, "ann", **create())
    assert created.WhichOneof("result") == "accepted", created
    join = referee_pb2.TableCommand(
        table_id=table, player_id="bob", request_id="late0001", join_table={"display_name": "Bob"}
    ).SerializeToString()
    late = give_up_headers(5.0, now_ms=time.time() * 1000 - 6_000)  # gave up a second ago
    with pytest.raises(nats.errors.TimeoutError):
        await nc.request(subjects.referee_table(table), join, 1, headers=late)
    records = await TableLog(nc.jetstream()).read(table)
    seated = [
        e.table.player_seated
        for r in records
        for e in referee_pb2.TableRecord.FromString(r.data).events
        if e.table.HasField("player_seated")
    ]
    assert [p.player_id for p in seated] == ["ann"]  # nothing of Bob's joining was judged
    msg = await nc.request(subjects.referee_table(table), join, 5, headers=give_up_headers(5.0))
    joined = referee_pb2.TableCommandReply.FromString(msg.data)
    assert joined.accepted.seat == 2, joined


async def test_unknown_tables_and_garbage_are_refused(nc: Client, stack: Stack) -> None:
    reply = await race_cmd(nc, "nosuchtable1", "ann", press_ready={})
    assert reply.refusal.code == "unknown_table"
    msg = await nc.request(subjects.referee_race("nosuchtable1"), b"\xff\xfe garbage", 5)
    assert race_command_pb2.RaceCommandReply.FromString(msg.data).refusal.code == (
        "malformed_request"
    )
    bad_id = await table_cmd(nc, "BAD", "ann", **create())
    assert bad_id.refusal.code == "invalid_table_id"
    seats = await table_cmd(nc, "t2abcdef01", "ann", **create(seats=5))
    assert seats.refusal.code == "invalid_seats"


async def test_a_restarted_referee_keeps_every_deadline(nc: Client, stack: Stack) -> None:
    table = "t3abcdef01"
    await table_cmd(nc, table, "ann", **create(window=30_000))  # 3 s on the wall to press
    joined = await table_cmd(nc, table, "bob", join_table={"display_name": "Bob"})
    (opened,) = [e for e in race_events(joined) if isinstance(e, ev.ReadyOpened)]
    await race_cmd(nc, table, "ann", press_ready={})
    stack.stop_service("referee")
    await asyncio.sleep((opened.deadline - opened.at) / RATE / 1000 + 0.3)  # the deadline passes
    stack.start_service("referee")
    # No command is sent until the missed Ready is in the log: a command runs every deadline
    # due, so only the restarted referee's own timer can have written it.
    log = TableLog(nc.jetstream())
    missed: list[ev.Event] = []
    for _ in range(200):
        records = await log.read(table)
        events = [
            from_proto(e.race)
            for r in records
            for e in referee_pb2.TableRecord.FromString(r.data).events
            if e.HasField("race")
        ]
        missed = [e for e in events if isinstance(e, ev.PlayerMissedReady)]
        if missed:
            break
        await asyncio.sleep(0.1)
    assert missed == [ev.PlayerMissedReady(opened.deadline, 1, "bob")]  # at the deadline itself
    reply = await race_cmd_retry(nc, table, "bob", press_ready={})
    assert reply.refusal.code == "player_out"  # bob missed it while the referee was down


async def race_cmd_retry(
    nc: Client, table: str, player: str, **command: Any
) -> race_command_pb2.RaceCommandReply:
    for attempt in range(50):
        try:
            return await race_cmd(nc, table, player, **command)
        except nats.errors.NoRespondersError:
            await asyncio.sleep(0.1 * attempt)
    raise AssertionError("referee never came back")


async def test_a_seat_is_not_answered_again_once_the_game_is_over(nc: Client, stack: Stack) -> None:
    """While the game runs, a retried create or join gets its first answer (the lobby turns it
    into the seat's token). Once the game is over the ledger publishes the request ids, so a
    replay is judged again and refused."""
    table = "t4abcdef01"

    async def create_again() -> referee_pb2.TableCommandReply:
        request = referee_pb2.TableCommand(
            table_id=table, player_id="ann", request_id="r-ann-create-0001", **create()
        )
        for attempt in range(50):  # the dealer may still be starting: nothing changed
            msg = await nc.request(subjects.referee_table(table), request.SerializeToString(), 5)
            reply = referee_pb2.TableCommandReply.FromString(msg.data)
            if reply.refusal.code != "unavailable":
                return reply
            await asyncio.sleep(0.1 * attempt)
        raise AssertionError("the referee stayed unavailable")

    first = await create_again()
    assert first.accepted.seat == 1
    await table_cmd(nc, table, "bob", join_table={"display_name": "Bob"})
    assert (await create_again()) == first  # a retry while the table lives
    for player in ("ann", "bob"):
        resigned = await race_cmd(nc, table, player, resign={})
        assert resigned.WhichOneof("result") == "accepted", resigned
    replay = await create_again()
    assert replay.refusal.code == "table_exists"


async def test_a_table_in_the_log_but_not_in_memory_is_read_from_the_log(
    nc: Client, stack: Stack
) -> None:
    """The previous holder of a partition may append a new table after this replica read the
    log: the table must not be NOT_FOUND for the rest of its life. Here a table's first record
    is written straight to the log, behind the referee's back."""
    made = await table_cmd(nc, "t5abcdef01", "ann", **create(seats=3))
    assert made.WhichOneof("result") == "accepted", made
    (first,) = (await TableLog(nc.jetstream()).read("t5abcdef01"))[:1]
    record = referee_pb2.TableRecord.FromString(first.data)
    behind = "t5behind0001"
    record.table_id = behind
    for env in record.events:
        env.table_id = env.game_id = behind
    await TableLog(nc.jetstream()).append(
        behind, record.SerializeToString(), f"{behind}:0:elsewhere", 0
    )
    joined = await table_cmd(nc, behind, "bob", join_table={"display_name": "Bob"})
    assert joined.WhichOneof("result") == "accepted", joined
    assert joined.accepted.seat == 2
    numbers = [
        e.event_number
        for r in await TableLog(nc.jetstream()).read(behind)
        for e in referee_pb2.TableRecord.FromString(r.data).events
    ]
    assert numbers == list(range(1, len(numbers) + 1))


async def test_a_finished_game_leaves_memory_and_is_read_back_when_asked(
    nc: Client, stack: Stack
) -> None:
    """Once its seed is out a game leaves the referee's memory (and a restart does not load
    it); a command for it still gets the game's own answers, read back from the log."""
    table = "t6abcdef01"
    await table_cmd(nc, table, "ann", **create())
    await table_cmd(nc, table, "bob", join_table={"display_name": "Bob"})
    await race_cmd(nc, table, "ann", resign={})
    request = race_command_pb2.RaceCommand(
        table_id=table, player_id="bob", request_id="r-bob-last-resign", resign={}
    )
    data = request.SerializeToString()
    last = await nc.request(subjects.referee_race(table), data, 5)
    assert race_command_pb2.RaceCommandReply.FromString(last.data).WhichOneof("result") == (
        "accepted"
    )
    for _ in range(100):  # the seed is revealed, then the table is forgotten
        records = await TableLog(nc.jetstream()).read(table)
        if any(
            e.table.HasField("seed_revealed")
            for r in records
            for e in referee_pb2.TableRecord.FromString(r.data).events
        ):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)
    stack.stop_service("referee")
    stack.start_service("referee")  # the rebuild leaves finished games in the log
    retried = await race_cmd_retry_raw(nc, table, data)
    assert retried == last.data  # the last command's first answer, rebuilt from the log
    late = await race_cmd_retry(nc, table, "ann", press_ready={})
    assert late.refusal.code == "game_over"


async def race_cmd_retry_raw(nc: Client, table: str, data: bytes) -> bytes:
    for attempt in range(50):
        try:
            msg = await nc.request(subjects.referee_race(table), data, 5)
        except nats.errors.NoRespondersError:
            await asyncio.sleep(0.1 * attempt)
            continue
        reply = race_command_pb2.RaceCommandReply.FromString(msg.data)
        if reply.refusal.code != "unavailable":
            return msg.data
        await asyncio.sleep(0.1 * attempt)
    raise AssertionError("referee never came back")


def same_partition(table: str, prefix: str) -> str:
    """Another table id in ``table``'s partition: what one bad table must not stop."""
    partition = subjects.partition_of(table)
    return next(
        f"{prefix}{i:04d}"
        for i in range(10_000)
        if subjects.partition_of(f"{prefix}{i:04d}") == partition
    )


@pytest.mark.parametrize("writer", ["frames", "alone"])
async def test_a_bad_record_quarantines_its_table_until_it_is_removed(
    nc: Client, stack: Stack, writer: str
) -> None:
    """Bytes appended to a live table behind the referee's back: its next append is fenced, it
    reads the table again, and quarantines it (FAILED_PRECONDITION, the stream sequence). A
    table of the same partition goes on. Once the record is removed from the stream, the next
    command reads the table again and it goes on too.

    The fence is where the referee appends: under group commit (the default) its partition's
    frame subject, so the forged record comes in a frame; with every record appended alone
    (REFEREE_FRAMES=0), the table's own subject. (Under group commit a record forged on a
    table's own subject does not fence the referee: it is found when the table is next read
    from the log, and every reader of the log quarantines the table meanwhile.)"""
    if writer == "alone":
        stack.stop_service("referee")
        stack.env = {**stack.env, "REFEREE_FRAMES": "0"}
        stack.start_service("referee")
    bad = "t9abcdef01"
    good = same_partition(bad, "t9good")
    for table in (bad, good):
        made = await table_cmd(nc, table, "ann", **create(seats=3))
        assert made.WhichOneof("result") == "accepted", made
    js = nc.jetstream()
    if writer == "frames":
        frame = pack([(bad, b"forged", {})])
        forged = await js.publish(subjects.frames(subjects.partition_of(bad)), frame)
    else:
        forged = await js.publish(subjects.events(bad), b"forged")

    refused = await table_cmd(nc, bad, "bob", join_table={"display_name": "Bob"})
    assert (refused.refusal.code, refused.refusal.category) == (
        "table_quarantined",
        common_pb2.Refusal.CATEGORY_FAILED_PRECONDITION,
    )
    assert refused.refusal.message == (
        f"table {bad} is quarantined: record at stream sequence {forged.seq} does not decode "
        "as a TableRecord; an operator must repair its log"
    )
    ready = await race_cmd(nc, bad, "ann", press_ready={})
    assert ready.refusal.code == "table_quarantined"
    joined = await table_cmd(nc, good, "bob", join_table={"display_name": "Bob"})
    assert joined.accepted.seat == 2

    await js.delete_msg(subjects.EVENTS_STREAM, forged.seq)  # the operator's repair
    repaired = await table_cmd(nc, bad, "bob", join_table={"display_name": "Bob"})
    assert repaired.WhichOneof("result") == "accepted", repaired
    assert repaired.accepted.seat == 2
    lines = [json.loads(line) for line in stack.log("referee", tail=0).splitlines()]
    (logged,) = [line for line in lines if line["event"].startswith("table quarantined")]
    assert (logged["table_id"], logged["sequence"]) == (bad, forged.seq)  # logged once
    assert any(line["event"].startswith("quarantine lifted") for line in lines)


async def test_a_table_whose_records_came_in_frames_is_read_back_and_goes_on(
    nc: Client, stack: Stack
) -> None:
    """A table whose first record is on its own subject and whose next one came in its
    partition's frame (group commit: several tables' records in one message) is read back
    whole, from the log when it is not in memory and when a restarted referee takes its
    partition on; its next record is fenced on its own subject's last record, not the frame."""
    source = "t7abcdef01"
    made = await table_cmd(nc, source, "ann", **create(seats=4))
    assert made.WhichOneof("result") == "accepted", made
    joined = await table_cmd(nc, source, "bob", join_table={"display_name": "Bob"})
    assert joined.WhichOneof("result") == "accepted", joined
    first, second = [
        referee_pb2.TableRecord.FromString(r.data)
        for r in await TableLog(nc.jetstream()).read(source)
    ]
    framed = same_partition(source, "t7framed")
    for record in (first, second):
        record.table_id = framed
        for env in record.events:
            env.table_id = env.game_id = framed
    js = nc.jetstream()
    alone = await js.publish(subjects.events(framed), first.SerializeToString())
    frame = pack(
        [
            ("t7elsewhere01", b"not this partition's", {}),  # names no table: skipped
            (framed, second.SerializeToString(), fact_headers(second, ["player_seated"])),
        ]
    )
    in_frame = await js.publish(subjects.frames(subjects.partition_of(framed)), frame)

    read = await TableLog(js).read(framed)
    assert [(r.sequence, r.index, r.framed) for r in read] == [
        (alone.seq, 0, False),
        (in_frame.seq, 1, True),
    ]
    # Not in memory: read from the log, then appended after it, fenced on its own subject.
    carol = await table_cmd(nc, framed, "carol", join_table={"display_name": "Carol"})
    assert carol.WhichOneof("result") == "accepted", carol
    assert carol.accepted.seat == 3

    stack.stop_service("referee")
    stack.start_service("referee")  # takes the partition on: reads its subjects, frames too
    left = await table_cmd(nc, framed, "bob", leave_table={})  # (a full table needs a deal)
    assert left.WhichOneof("result") == "accepted", left
    records = [referee_pb2.TableRecord.FromString(r.data) for r in await TableLog(js).read(framed)]
    assert [r.record_number for r in records] == [1, 2, 3, 4]
    numbers = [e.event_number for r in records for e in r.events]
    assert numbers == list(range(1, len(numbers) + 1))
