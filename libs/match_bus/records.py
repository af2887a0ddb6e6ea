"""A table's records as every reader takes them back: each must decode as a ``TableRecord``
and continue its table's numbering. One that does not quarantines its table, and only it.

Pure: bytes and stream sequences in, records or :class:`BadRecord` out. The referee, the lobby
and the ledger use the same check, so they agree on which tables are quarantined and why.

What a record must be, given the table's records before it (all good):

* it decodes as a ``TableRecord`` (nothing else is a record);
* its ``table_id``, and each of its events', is the subject's table;
* its ``record_number`` is the previous record's + 1 (1 for the first): none missing or extra;
* its ``first_event_number`` is the table's next event number, and its events count up from it;
* the table's first record begins with ``TableCreated``, and no later one holds one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from match.v1 import referee_pb2
from match_bus import subjects

QUARANTINED = "table_quarantined"  # the refusal slug clients branch on

# Headers the referee puts on each record it appends, so a reader that follows every table (the
# lobby's listing, the players service) can tell from the message alone whether the record is one
# it needs, without decoding it. A record without them (written before they existed) is decoded.
FACTS_HEADER = "Match-Table-Facts"
NUMBERS_HEADER = "Match-Record-Numbers"
NO_FACTS = "none"
# The table-level facts a record can hold besides its TableEvents' own names (table_created,
# player_seated, player_left, fill_requested, seed_committed, bots_assigned, seed_revealed,
# table_expired): the table's game started with it, or is over after it.
GAME_STARTED = "game_started"
GAME_OVER = "game_over"


def fact_headers(record: referee_pb2.TableRecord, facts: Iterable[str]) -> dict[str, str]:
    """The headers of ``record`` holding ``facts`` (its table-level facts; none for a turn): the
    facts, and its place in its table's numbering (record number, first event, event count)."""
    named = ",".join(sorted(set(facts))) or NO_FACTS
    numbers = f"{record.record_number} {record.first_event_number} {len(record.events)}"
    return {FACTS_HEADER: named, NUMBERS_HEADER: numbers}


def facts_of(headers: Mapping[str, str] | None) -> frozenset[str] | None:
    """The table-level facts the headers say the record holds (empty: none), or None when they
    do not say (a record from before the headers, or one they do not describe): decode it."""
    named = (headers or {}).get(FACTS_HEADER)
    if named is None:
        return None
    return frozenset() if named == NO_FACTS else frozenset(named.split(","))


def numbers_of(headers: Mapping[str, str] | None) -> tuple[int, int, int] | None:
    """(record number, first event number, event count) from the headers; None if absent or
    malformed (the record is then decoded)."""
    value = (headers or {}).get(NUMBERS_HEADER, "")
    parts = value.split(" ")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


# The facts after which a table has no more records: its seed revealed after the game, or the
# table expired before one.
CLOSING_FACTS = frozenset({"seed_revealed", "table_expired"})


def closing(facts: frozenset[str] | None) -> bool:
    """Whether a record of these facts (:func:`facts_of`) is its table's last."""
    return not CLOSING_FACTS.isdisjoint(facts or ())


def closes_table(headers: Mapping[str, str] | None) -> bool:
    """Whether the record's headers say it is its table's last (:data:`CLOSING_FACTS`)."""
    return closing(facts_of(headers))


def begins_table(data: bytes, headers: Mapping[str, str] | None) -> bool:
    """Whether the record is its table's first (record number 1), from its headers' numbers,
    or else from its bytes (a record written before the headers)."""
    numbers = numbers_of(headers)
    if numbers is not None:
        return numbers[0] == 1
    try:
        return referee_pb2.TableRecord.FromString(data).record_number == 1
    except DecodeError:
        return False


class BadRecord(Exception):
    """A record that quarantines its table: where it is, and what is wrong with it."""

    def __init__(self, table_id: str, sequence: int, problem: str, index: int = 0) -> None:
        super().__init__(f"table {table_id}: record at {place(sequence, index)} {problem}")
        self.table_id = table_id
        self.sequence = sequence
        self.index = index  # its place in its message (a frame's entry), 0 for most
        self.problem = problem

    @property
    def message(self) -> str:
        """What a caller is told: the table, where the record is, what to do."""
        return (
            f"table {self.table_id} is quarantined: record at "
            f"{place(self.sequence, self.index)} {self.problem}; an operator must repair its log"
        )


def place(sequence: int, index: int = 0) -> str:
    """Where a record is, as a person reads it: its stream sequence, and its entry in its frame
    when it is not the message's first record."""
    where = f"stream sequence {sequence}"
    return f"{where}, entry {index} of its frame" if index else where


@dataclass(slots=True)
class Numbering:
    """Follows one table's records in stream order and refuses the first that does not fit."""

    table_id: str
    records: int = 0  # records taken so far
    next_event: int = 1  # the number the next event takes

    def follow(self, sequence: int, data: bytes, index: int = 0) -> referee_pb2.TableRecord:
        """The record at stream ``sequence`` (entry ``index`` of its message), if it fits after
        the ones before; else BadRecord (and the numbering stays where it was)."""
        try:
            record = referee_pb2.TableRecord.FromString(data)
        except DecodeError:
            undecodable = "does not decode as a TableRecord"
            raise BadRecord(self.table_id, sequence, undecodable, index) from None
        problem = self._problem(record)
        if problem is not None:
            raise BadRecord(self.table_id, sequence, problem, index)
        self.resume(record)
        return record

    def skip(self, sequence: int, numbers: tuple[int, int, int], index: int = 0) -> None:
        """Take the record at stream ``sequence`` without decoding it, from its headers'
        numbers (:func:`numbers_of`): it must continue the numbering as ``follow`` checks (else
        BadRecord, and the numbering stays where it was); its events are not read."""
        record_number, first_event, count = numbers
        if record_number != self.records + 1:
            problem = f"is record number {record_number} where {self.records + 1} was due"
            raise BadRecord(self.table_id, sequence, problem, index)
        if first_event != self.next_event:
            problem = f"starts at event {first_event} where {self.next_event} was due"
            raise BadRecord(self.table_id, sequence, problem, index)
        if self.records == 0:
            raise BadRecord(
                self.table_id,
                sequence,
                "is not a table's first record (that begins with TableCreated)",
                index,
            )
        self.records = record_number
        self.next_event = first_event + count

    def resume(self, record: referee_pb2.TableRecord) -> None:
        """Take ``record`` as the table's last, unchecked (a reader that checked it before)."""
        self.records = record.record_number
        self.next_event = record.first_event_number + len(record.events)

    def _problem(self, record: referee_pb2.TableRecord) -> str | None:
        if record.table_id != self.table_id:
            return f"names table {record.table_id!r}"
        if record.record_number != self.records + 1:
            return f"is record number {record.record_number} where {self.records + 1} was due"
        if record.first_event_number != self.next_event:
            return f"starts at event {record.first_event_number} where {self.next_event} was due"
        for offset, envelope in enumerate(record.events):
            if envelope.event_number != self.next_event + offset:
                return (
                    f"holds event {envelope.event_number} where {self.next_event + offset} was due"
                )
            if envelope.table_id != self.table_id:
                return f"holds an event of table {envelope.table_id!r}"
            creates = envelope.HasField("table") and envelope.table.HasField("table_created")
            if creates != (self.records == 0 and offset == 0):
                if creates:
                    return "creates the table a second time"
                return "is not a table's first record (that begins with TableCreated)"
        if self.records == 0 and not record.events:
            return "is not a table's first record (that begins with TableCreated)"
        return None


def read_table(table_id: str, stored: list[tuple[int, bytes]]) -> list[referee_pb2.TableRecord]:
    """A whole table's records, ``(stream sequence, bytes)`` in stream order, decoded and
    checked; raises BadRecord at the first that does not fit."""
    numbering = Numbering(table_id)
    return [numbering.follow(sequence, data) for sequence, data in stored]


@dataclass(frozen=True, slots=True)
class StoredRecord:
    sequence: int  # the stream sequence of the message that holds it
    data: bytes
    subject: str = ""  # the subject it was published on
    index: int = 0  # its entry in its message: 0 unless a frame's later one
    headers: Mapping[str, str] | None = None  # its facts and numbers (fact_headers)

    @property
    def framed(self) -> bool:
        """Whether it came in a partition's frame (not on its table's own subject)."""
        return subjects.partition_of_frames(self.subject) is not None


@dataclass(frozen=True, slots=True)
class Unpacked:
    """One record of a message stored in the events stream."""

    table_id: str | None  # None: it names no table (stored as it is, judged by nobody)
    index: int  # its place in its message: 0 for a record published on its own
    data: bytes  # a TableRecord's bytes, exactly as the referee wrote them
    headers: Mapping[str, str] | None  # its facts and numbers (:func:`facts_of`, `numbers_of`)


def unpack(subject: str, data: bytes, headers: Mapping[str, str] | None = None) -> list[Unpacked]:
    """The records a message of the events stream holds, in order: one for a record published
    on its table's subject (``match.events.p<NN>.<table>``); a frame's entries for a partition's
    frame subject (``match.events.p<NN>.frame``, a ``RecordFrame``). An entry whose table is not
    a valid id of the frame's partition names no table. A message on any other subject, a frame
    that does not decode or one with no entry is one record naming no table, kept as it is, so
    that nothing stored is lost to a reader that stores everything (the ledger)."""
    partition = subjects.partition_of_frames(subject)
    if partition is None:
        return [Unpacked(subjects.table_of_events(subject), 0, data, headers)]
    try:
        frame = referee_pb2.RecordFrame.FromString(data)
    except DecodeError:
        return [Unpacked(None, 0, data, None)]
    if not frame.records:
        return [Unpacked(None, 0, data, None)]
    out = []
    for index, entry in enumerate(frame.records):
        table_id: str | None = entry.table_id
        if not subjects.valid_table_id(entry.table_id) or (
            subjects.partition_of(entry.table_id) != partition
        ):
            table_id = None
        named = {FACTS_HEADER: entry.facts, NUMBERS_HEADER: entry.numbers}
        said = {k: v for k, v in named.items() if v}
        out.append(Unpacked(table_id, index, entry.record, said or None))
    return out


def pack(records: Iterable[tuple[str, bytes, Mapping[str, str]]]) -> bytes:
    """A ``RecordFrame`` holding ``records``: (table id, TableRecord bytes, the headers it
    would be published with alone, :func:`fact_headers`), in order."""
    frame = referee_pb2.RecordFrame()
    for table_id, data, headers in records:
        frame.records.add(
            table_id=table_id,
            record=data,
            facts=headers.get(FACTS_HEADER, ""),
            numbers=headers.get(NUMBERS_HEADER, ""),
        )
    return frame.SerializeToString()
