"""A partition's frame (match.v1.RecordFrame: several tables' records in one message, one fsync)
as every reader unpacks it (match_bus.records.unpack): the same records, bytes and facts as if
each had been published on its own table's subject, and nothing lost that does not fit."""

from __future__ import annotations

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.records import (
    FACTS_HEADER,
    NUMBERS_HEADER,
    Unpacked,
    fact_headers,
    facts_of,
    numbers_of,
    pack,
    unpack,
)
from tests.bus.records import created, history


def tables_of_partition(partition: int, count: int) -> list[str]:
    """``count`` valid table ids of ``partition``."""
    out: list[str] = []
    n = 0
    while len(out) < count:
        table_id = f"frametable{n:04d}"
        if subjects.partition_of(table_id) == partition:
            out.append(table_id)
        n += 1
    return out


def test_the_frame_subject_is_the_partitions_and_never_a_tables() -> None:
    assert subjects.frames(3) == "match.events.p03.frame"
    assert [subjects.partition_of_frames(subjects.frames(p)) for p in range(16)] == list(range(16))
    for other in ("match.events.p3.frame", "match.events.p16.frame", "match.events.p03.frames"):
        assert subjects.partition_of_frames(other) is None, other
    assert subjects.partition_of_frames("match.events.p03.frame.x") is None
    assert subjects.partition_of_frames(subjects.events("goodtable01")) is None
    assert subjects.table_of_events(subjects.frames(3)) is None  # no table is named "frame"
    assert not subjects.valid_table_id(subjects.FRAME_TOKEN)


def test_a_record_published_alone_is_one_record_with_its_headers() -> None:
    record = created("goodtable01").SerializeToString()
    headers = {FACTS_HEADER: "table_created", NUMBERS_HEADER: "1 1 3"}
    assert unpack(subjects.events("goodtable01"), record, headers) == [
        Unpacked("goodtable01", 0, record, headers)
    ]


def test_a_frames_records_come_back_in_order_each_as_it_would_alone() -> None:
    one, two = tables_of_partition(5, 2)
    records = [*history(one), created(two)]
    entries = []
    for record in records:
        headers = fact_headers(record, ["table_created"] if record.record_number == 1 else [])
        entries.append((record.table_id, record.SerializeToString(), headers))
    out = unpack(subjects.frames(5), pack(entries))
    assert [(u.table_id, u.index, u.data) for u in out] == [
        (table_id, i, data) for i, (table_id, data, _) in enumerate(entries)
    ]
    for u, (_, _, headers) in zip(out, entries, strict=True):
        assert facts_of(u.headers) == facts_of(headers)
        assert numbers_of(u.headers) == numbers_of(headers)
    assert referee_pb2.TableRecord.FromString(out[2].data) == records[2]


def test_a_record_of_another_partition_or_no_table_names_no_table_and_is_kept() -> None:
    (mine,) = tables_of_partition(5, 1)
    (theirs,) = tables_of_partition(6, 1)
    frame = pack([(theirs, b"a", {}), ("NotAnId", b"b", {}), (mine, b"c", {})])
    out = unpack(subjects.frames(5), frame)
    assert [(u.table_id, u.index, u.data, u.headers) for u in out] == [
        (None, 0, b"a", None),
        (None, 1, b"b", None),
        (mine, 2, b"c", None),
    ]


def test_a_frame_that_does_not_decode_or_holds_nothing_is_one_record_of_no_table() -> None:
    for data in (b"\xff\xff\xff", b""):
        assert unpack(subjects.frames(0), data) == [Unpacked(None, 0, data, None)]


def test_a_message_on_a_subject_that_names_no_table_is_one_record_of_no_table() -> None:
    assert unpack("match.events.p00.x", b"q") == [Unpacked(None, 0, b"q", None)]
