"""A bad record quarantines its own table in every reader, and nothing else: the pure parts of
the referee (loading a table), the lobby (the listing and a viewer's fold) and the ledger's
store. The whole system under such records is tested in tests/e2e/test_quarantine.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from match.v1 import common_pb2, lobby_pb2, referee_pb2
from match_bus import subjects
from match_bus.records import BadRecord
from services.ledger.store import Incoming, Store
from services.lobby.directory import TableDirectory
from services.lobby.viewer import TableViewer
from services.referee.table import Quarantined, load
from tests.bus.records import created, history, seated, stored

GOOD, BAD = "goodtable01", "badtable001"


# --- the referee --------------------------------------------------------------------------


def test_the_referee_loads_a_table_as_it_wrote_it() -> None:
    table = load(GOOD, stored(history(GOOD)))
    assert table is not None
    assert [s.player for s in table.seated] == ["ann", "bob"]
    assert (table.records, table.next_event, table.last_sequence) == (2, 5, 2)


@pytest.mark.parametrize("where", [0, 1, 2])
def test_a_record_the_referee_cannot_read_quarantines_the_table(where: int) -> None:
    pairs = stored(history(BAD), start=40)
    pairs.insert(where, (39 + where + 100, b"forged"))
    with pytest.raises(Quarantined) as caught:
        load(BAD, pairs)
    refusal = caught.value.to_proto()
    assert refusal.code == "table_quarantined"
    assert refusal.category == common_pb2.Refusal.CATEGORY_FAILED_PRECONDITION
    assert refusal.message.startswith(
        f"table {BAD} is quarantined: record at stream sequence {139 + where} does not decode"
    )
    assert refusal.message.endswith("an operator must repair its log")


def test_a_record_out_of_the_numbering_quarantines_the_table() -> None:
    first, second = history(BAD)
    second.record_number = 7
    with pytest.raises(Quarantined) as caught:
        load(BAD, stored([first, second]))
    assert (caught.value.bad.sequence, caught.value.bad.problem) == (
        2,
        "is record number 7 where 2 was due",
    )


def test_a_record_the_rules_cannot_fold_quarantines_the_table() -> None:
    first = created(BAD)
    empty = seated(first, "bob", 2)
    empty.events[0].ClearField("table")  # an event with no body: numbered right, meaningless
    with pytest.raises(Quarantined) as caught:
        load(BAD, stored([first, empty]))
    assert caught.value.bad.sequence == 2
    assert caught.value.bad.problem.startswith("cannot be folded into the table")


# --- the lobby ----------------------------------------------------------------------------


def directory_of(*records: tuple[str, bytes]) -> TableDirectory:
    """A listing that read ``(subject, bytes)`` in that order, from stream sequence 1."""
    directory = TableDirectory(js=None)  # type: ignore[arg-type]  # take() reads no stream
    for sequence, (subject, data) in enumerate(records, start=1):
        directory.take(subject, sequence, data)
    return directory


def test_the_listing_skips_a_quarantined_table_and_keeps_the_others() -> None:
    good, bad = history(GOOD), history(BAD)
    directory = directory_of(
        (subjects.events(BAD), bad[0].SerializeToString()),
        ("match.events.x", b"forged"),  # a stray: no table's
        (subjects.events(GOOD), good[0].SerializeToString()),
        (subjects.events(BAD), b"forged"),
        (subjects.events(BAD), bad[1].SerializeToString()),  # after the bad one: not folded
        (subjects.events(GOOD), good[1].SerializeToString()),
    )
    listed = directory.open_tables(common_pb2.GAME_KIND_UNSPECIFIED)
    assert [t.table_id for t in listed] == [GOOD]
    assert [s.player_id for s in listed[0].taken] == ["ann", "bob"]
    assert directory.get(BAD) is None
    quarantined = directory.quarantined(BAD)
    assert quarantined is not None and quarantined.sequence == 4
    assert directory.quarantined(GOOD) is None


def test_the_listing_refuses_a_record_that_names_another_table() -> None:
    """A well-formed record of one table put on another's subject must not change either."""
    good = history(GOOD)
    directory = directory_of(
        (subjects.events(GOOD), good[0].SerializeToString()),
        (subjects.events(BAD), good[1].SerializeToString()),
    )
    (table,) = directory.open_tables(common_pb2.GAME_KIND_UNSPECIFIED)
    assert table.status == lobby_pb2.Table.STATUS_WAITING and len(table.taken) == 1
    quarantined = directory.quarantined(BAD)
    assert quarantined is not None and quarantined.problem == f"names table {GOOD!r}"


def test_a_viewer_stops_at_the_bad_record_with_its_sequence() -> None:
    viewer = TableViewer(BAD, "ann")
    first, second = history(BAD)
    assert len(viewer.fold_record(7, first.SerializeToString())) == 3
    with pytest.raises(BadRecord) as caught:
        viewer.fold_record(9, b"forged")
    assert caught.value.sequence == 9
    empty = referee_pb2.TableRecord()
    empty.CopyFrom(second)
    empty.events[0].ClearField("table")
    with pytest.raises(BadRecord, match="cannot be shown"):
        viewer.fold_record(10, empty.SerializeToString())


# --- the ledger ---------------------------------------------------------------------------


def test_the_ledger_stores_every_record_and_marks_the_table_once(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "ledger.db")
    good, bad = history(GOOD), history(BAD)
    outcomes = store.append(
        [
            Incoming(1, BAD, bad[0].SerializeToString()),
            Incoming(2, "match.events.x", b"forged"),
            Incoming(3, GOOD, good[0].SerializeToString()),
            Incoming(4, BAD, b"forged"),
            Incoming(5, BAD, b"more junk"),
            Incoming(6, GOOD, good[1].SerializeToString()),
        ]
    )
    assert all(o.inserted for o in outcomes)  # every record is a leaf: the ledger mirrors
    assert store.tree_size() == 6
    assert [o.stray for o in outcomes] == [False, True, False, False, False, False]
    marked = [o.quarantine.sequence if o.quarantine else None for o in outcomes]
    assert marked == [None, None, None, 4, None, None]  # once, at the first bad record
    assert store.quarantine(GOOD) is None
    found = store.quarantine(BAD)
    assert found is not None
    assert (found.sequence, found.problem) == (4, "does not decode as a TableRecord")
    assert [(q.table_id, q.sequence) for q in store.quarantined()] == [(BAD, 4)]
    assert [seq for seq, _, _ in store.records(BAD)] == [1, 4, 5]
    store.close()
    again = Store.open(tmp_path / "ledger.db")  # the mark is kept
    kept = again.quarantine(BAD)
    assert kept is not None and (kept.sequence, kept.problem) == (found.sequence, found.problem)
    again.close()


def test_the_ledger_marks_a_table_whose_numbering_breaks(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "ledger.db")
    first, second = history(BAD)
    second.record_number = 5
    store.append([Incoming(1, BAD, first.SerializeToString())])
    (outcome,) = store.append([Incoming(2, BAD, second.SerializeToString())])
    assert outcome.quarantine is not None
    assert outcome.quarantine.problem == "is record number 5 where 2 was due"
    store.close()
