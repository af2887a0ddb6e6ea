"""What every reader of a table's log refuses: a record that does not decode, or does not
continue the table's numbering (match_bus.records), and which subjects name a table."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from match.v1 import common_pb2, referee_pb2
from match_bus import subjects
from match_bus.records import BadRecord, Numbering, read_table
from tests.bus.records import created, history, seated, stored

TABLE = "goodtable01"


def test_a_table_as_the_referee_writes_it_is_read_back() -> None:
    records = history(TABLE)
    assert read_table(TABLE, stored(records)) == records


def bad_at(records: list[referee_pb2.TableRecord | bytes]) -> BadRecord:
    pairs = [
        (10 + i, r if isinstance(r, bytes) else r.SerializeToString())
        for i, r in enumerate(records)
    ]
    with pytest.raises(BadRecord) as caught:
        read_table(TABLE, pairs)
    return caught.value


def test_bytes_that_are_not_a_record_quarantine_the_table_with_their_sequence() -> None:
    first, second = history(TABLE)
    bad = bad_at([first, second, b"forged"])
    assert (bad.table_id, bad.sequence) == (TABLE, 12)
    assert bad.problem == "does not decode as a TableRecord"
    assert bad.message == (
        f"table {TABLE} is quarantined: record at stream sequence 12 does not decode as a "
        "TableRecord; an operator must repair its log"
    )


def changed(change: Callable[[referee_pb2.TableRecord], None]) -> referee_pb2.TableRecord:
    """The table's second record, changed."""
    record = referee_pb2.TableRecord()
    record.CopyFrom(history(TABLE)[1])
    change(record)
    return record


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: setattr(r, "record_number", 3), "is record number 3 where 2 was due"),
        (lambda r: setattr(r, "record_number", 1), "is record number 1 where 2 was due"),
        (lambda r: setattr(r, "first_event_number", 5), "starts at event 5 where 4 was due"),
        (lambda r: setattr(r.events[0], "event_number", 5), "holds event 5 where 4 was due"),
        (lambda r: setattr(r, "table_id", "othertable1"), "names table 'othertable1'"),
        (
            lambda r: setattr(r.events[0], "table_id", "othertable1"),
            "holds an event of table 'othertable1'",
        ),
        (
            lambda r: r.events[0].table.table_created.SetInParent(),
            "creates the table a second time",
        ),
    ],
)
def test_a_record_that_breaks_the_numbering_quarantines_the_table(
    change: Callable[[referee_pb2.TableRecord], None], problem: str
) -> None:
    first = created(TABLE)
    bad = bad_at([first, changed(change)])
    assert (bad.sequence, bad.problem) == (11, problem)


def test_a_table_must_begin_with_its_creation() -> None:
    second = history(TABLE)[1]
    assert bad_at([second]).problem == "is record number 2 where 1 was due"
    second.record_number, second.first_event_number, second.events[0].event_number = 1, 1, 1
    assert "is not a table's first record" in bad_at([second]).problem
    empty = referee_pb2.TableRecord(table_id=TABLE, first_event_number=1, record_number=1)
    assert "is not a table's first record" in bad_at([empty]).problem


def test_a_refusal_carries_no_event_and_keeps_the_numbering() -> None:
    first, second = history(TABLE)
    refused = referee_pb2.TableRecord(
        table_id=TABLE,
        first_event_number=4,
        record_number=2,
        refusal=common_pb2.Refusal(code="table_full"),
    )
    second.record_number = 3
    assert len(read_table(TABLE, stored([first, refused, second]))) == 3


def test_the_numbering_stays_put_after_a_bad_record() -> None:
    numbering = Numbering(TABLE)
    first = created(TABLE)
    numbering.follow(1, first.SerializeToString())
    with pytest.raises(BadRecord):
        numbering.follow(2, b"forged")
    assert (numbering.records, numbering.next_event) == (1, 4)
    numbering.follow(3, seated(first, "bob", 2).SerializeToString())


@pytest.mark.parametrize(
    ("subject", "table_id"),
    [
        (subjects.events(TABLE), TABLE),
        ("match.events.x", None),
        (f"match.events.{TABLE}", None),  # no partition
        (f"match.events.p99.{TABLE}", None),  # another partition than its own
        ("match.events.p00.NOT-valid", None),
        (subjects.events(TABLE) + ".more", None),
        ("match.other.p00." + TABLE, None),
    ],
)
def test_only_a_table_subject_in_its_own_partition_names_a_table(
    subject: str, table_id: str | None
) -> None:
    assert subjects.table_of_events(subject) == table_id
