"""The table listing's index (services/lobby/listing.py) and the directory that keeps it: a page
costs the same however many tables are open, and a page starts after its cursor."""

from __future__ import annotations

import time

from match.v1 import common_pb2, lobby_listing_pb2, lobby_pb2, referee_pb2
from match_bus import records, subjects
from services.lobby.directory import TableDirectory
from services.lobby.listing import SortedKeys

RACE = common_pb2.GAME_KIND_MATCH_RACE
Status = lobby_pb2.Table


def test_newest_pages_follow_their_cursor_to_the_end() -> None:
    keys = SortedKeys()
    for i in (5, 1, 3, 2, 4):
        keys.add((i * 10, f"t{i}"))
    keys.add((30, "t3"))  # twice is once
    first, more = keys.newest(2)
    assert first == [(50, "t5"), (40, "t4")] and more
    second, more = keys.newest(2, first[-1])
    assert second == [(30, "t3"), (20, "t2")] and more
    third, more = keys.newest(2, second[-1])
    assert third == [(10, "t1")] and not more
    keys.discard((40, "t4"))
    keys.discard((40, "t4"))  # gone is gone
    assert keys.newest(10)[0] == [(50, "t5"), (30, "t3"), (20, "t2"), (10, "t1")]


def test_due_pages_stop_at_the_due_time() -> None:
    keys = SortedKeys()
    for i in range(1, 6):
        keys.add((i * 10, f"t{i}"))
    assert keys.oldest(10, upto=29) == ([(10, "t1"), (20, "t2")], False)
    first, more = keys.oldest(2, upto=40)
    assert first == [(10, "t1"), (20, "t2")] and more
    assert keys.oldest(2, upto=40, after=first[-1]) == ([(30, "t3"), (40, "t4")], False)
    assert keys.oldest(2, upto=5) == ([], False)


def _created(table_id: str, at: int, seats: int = 2, private: bool = False) -> bytes:
    made = common_pb2.TableEvent.TableCreated(
        seats=seats,
        visibility=common_pb2.VISIBILITY_PRIVATE if private else common_pb2.VISIBILITY_OPEN,
        fill_at_ms=at + 20_000,
    )
    env = common_pb2.EventEnvelope(
        table_id=table_id, game_kind=RACE, event_number=1, server_time_ms=at
    )
    env.table.table_created.CopyFrom(made)
    seated = common_pb2.EventEnvelope(table_id=table_id, game_kind=RACE, event_number=2)
    seated.table.player_seated.CopyFrom(
        common_pb2.TableEvent.PlayerSeated(seat=1, player_id="p" + table_id, display_name="Ann")
    )
    return referee_pb2.TableRecord(
        table_id=table_id, record_number=1, first_event_number=1, events=[env, seated]
    ).SerializeToString()


def _seated(table_id: str, record: int, seat: int) -> bytes:
    env = common_pb2.EventEnvelope(table_id=table_id, game_kind=RACE, event_number=seat + 1)
    env.table.player_seated.CopyFrom(
        common_pb2.TableEvent.PlayerSeated(seat=seat, player_id=f"q{seat}", display_name="Bob")
    )
    return referee_pb2.TableRecord(
        table_id=table_id, record_number=record, first_event_number=seat + 1, events=[env]
    ).SerializeToString()


def _directory(tables: int) -> TableDirectory:
    directory = TableDirectory(js=None)  # type: ignore[arg-type]  # folding only
    for i in range(tables):
        table_id = f"{i:016x}"
        directory.take(subjects.events(table_id), i + 1, _created(table_id, 1_000 + i))
    return directory


def test_the_index_lists_open_waiting_tables_with_a_free_seat_only() -> None:
    directory = _directory(3)
    hidden = "private0table000"
    directory.take(subjects.events(hidden), 10, _created(hidden, 5_000, private=True))
    assert [t.table_id for t in directory.newest_open(0, 10)[0]] == [f"{i:016x}" for i in (2, 1, 0)]
    directory.take(subjects.events(f"{1:016x}"), 11, _seated(f"{1:016x}", 2, 2))  # now full
    page, cursor = directory.newest_open(RACE, 10)
    assert [t.table_id for t in page] == [f"{2:016x}", f"{0:016x}"] and cursor is None
    assert directory.listed() == 2
    assert all(t.invite_code == "" for t in page)
    due, cursor = directory.fill_due(RACE, 1, upto_ms=21_002)
    assert [t.table_id for t in due] == [f"{0:016x}"] and cursor == (21_000, f"{0:016x}")
    due, cursor = directory.fill_due(RACE, 1, upto_ms=21_002, after=cursor)
    assert [t.table_id for t in due] == [f"{2:016x}"] and cursor is None
    assert directory.newest_open(common_pb2.GAME_KIND_UNSPECIFIED + 99, 10) == ([], None)


def _per_page_s(directory: TableDirectory, calls: int = 300) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        directory.newest_open(0, 20)
        directory.fill_due(0, 20, upto_ms=10**13)
    return (time.perf_counter() - start) / calls


def test_a_page_costs_the_same_for_10_or_10000_tables() -> None:
    few, many = _directory(10), _directory(10_000)
    assert many.listed() == 10_000
    small, big = min(_per_page_s(few) for _ in range(3)), min(_per_page_s(many) for _ in range(3))
    assert big < 3 * small + 50e-6, (small, big)  # a copy of the whole list would be ~1000x


def test_a_record_whose_headers_say_it_holds_no_fact_is_counted_not_decoded() -> None:
    table_id = "00000000000000aa"
    subject = subjects.events(table_id)
    none = {records.FACTS_HEADER: records.NO_FACTS, records.NUMBERS_HEADER: "2 3 2"}
    directory = TableDirectory(js=None)  # type: ignore[arg-type]  # folding only
    directory.take(subject, 1, _created(table_id, 1_000))
    directory.take(subject, 2, b"\xff not a record", none)  # never decoded
    assert directory.decoded == 1 and directory.quarantined(table_id) is None
    seated = {records.FACTS_HEADER: "player_seated", records.NUMBERS_HEADER: "3 5 1"}
    directory.take(subject, 3, _seated(table_id, 3, 4), seated)
    assert [s.seat for s in directory.get(table_id).taken] == [1, 4]  # type: ignore[union-attr]

    skipped = TableDirectory(js=None)  # type: ignore[arg-type]
    skipped.take(subject, 1, _created(table_id, 1_000))
    wrong = {records.FACTS_HEADER: records.NO_FACTS, records.NUMBERS_HEADER: "3 3 2"}
    skipped.take(subject, 2, b"", wrong)  # record 3 where 2 was due: the numbering holds
    bad = skipped.quarantined(table_id)
    assert bad is not None and bad.sequence == 2 and "record number 3 where 2" in bad.problem

    unsure = TableDirectory(js=None)  # type: ignore[arg-type]
    unsure.take(subject, 1, _created(table_id, 1_000))
    garbled = {records.FACTS_HEADER: records.NO_FACTS, records.NUMBERS_HEADER: "two"}
    unsure.take(subject, 2, _seated(table_id, 2, 2), garbled)  # numbers unreadable: decoded
    assert unsure.decoded == 2 and len(unsure.get(table_id).taken) == 2  # type: ignore[union-attr]


def _ended(table_id: str, record: int, at: int) -> tuple[bytes, dict[str, str]]:
    """A record that starts and ends the table's game at ``at`` (the referee's clock), with the
    headers the referee gives it."""
    env = common_pb2.EventEnvelope(
        table_id=table_id, game_kind=RACE, event_number=record + 1, server_time_ms=at
    )
    env.race.game_ended.at = at
    made = referee_pb2.TableRecord(
        table_id=table_id, record_number=record, first_event_number=record + 1, events=[env]
    )
    return made.SerializeToString(), records.fact_headers(
        made, {records.GAME_STARTED, records.GAME_OVER}
    )


def test_a_finished_table_leaves_the_listing_once_the_log_is_past_its_keep() -> None:
    directory = TableDirectory(js=None, keep_finished_ms=60_000)  # type: ignore[arg-type]
    done, other = "00000000000000d1", "00000000000000d2"
    created = referee_pb2.TableRecord.FromString(_created(done, 1_000, private=True))
    created.events[0].table.table_created.invite_code = "abcdefghjkmn"
    directory.take(subjects.events(done), 1, created.SerializeToString())
    data, headers = _ended(done, 2, 2_000)
    directory.take(subjects.events(done), 2, data, headers)
    assert directory.get(done).status == Status.STATUS_FINISHED  # type: ignore[union-attr]

    # The log's clock is what moves it on: a minute after the end, not a moment before.
    directory.take(subjects.events(other), 3, _created(other, 61_999))
    assert directory.known(done) and not directory.archived(done)
    assert directory.table_of_invite("abcdefghjkmn") == done
    directory.take(subjects.events(other), 4, _seated(other, 2, 2))  # no clock: nothing moves
    assert directory.known(done)
    later = referee_pb2.TableRecord.FromString(_seated(other, 3, 3))
    later.events[0].server_time_ms = 62_000
    directory.take(subjects.events(other), 5, later.SerializeToString())

    assert directory.get(done) is None and not directory.known(done)
    assert directory.archived(done) and directory.is_over(done)
    assert directory.table_of_invite("abcdefghjkmn") is None
    assert [s.seat for s in directory.get(other).taken] == [1, 2, 3]  # type: ignore[union-attr]
    assert not directory.archived(other) and not directory.expired(done)
    # Whatever comes for it later changes nothing and quarantines nothing.
    late, late_headers = _ended(done, 3, 70_000)
    directory.take(subjects.events(done), 6, late, late_headers)
    assert directory.get(done) is None and directory.quarantined(done) is None


def test_the_listing_holds_the_last_keeps_worth_of_finished_games_not_every_game() -> None:
    directory = TableDirectory(js=None, keep_finished_ms=60_000)  # type: ignore[arg-type]
    ids = [f"{i:016x}" for i in range(1_000)]
    for i, table_id in enumerate(ids):  # a game made and over each second
        at = 1_000 * (i + 1)
        directory.take(subjects.events(table_id), 2 * i + 1, _created(table_id, at))
        data, headers = _ended(table_id, 2, at + 500)
        directory.take(subjects.events(table_id), 2 * i + 2, data, headers)
    kept = [t for t in ids if directory.known(t)]
    assert kept == ids[-60:]  # the last minute's; the one that ended a minute ago exactly is gone
    assert all(directory.archived(t) for t in ids[:-60])
    assert directory.indexed_players() == 0 and directory.listed() == 0


def test_a_seat_given_up_stays_given_up_and_a_quarantine_stays_said_after_the_keep() -> None:
    directory = TableDirectory(js=None, keep_finished_ms=60_000)  # type: ignore[arg-type]
    left, bad, clock = "00000000000000e1", "00000000000000e2", "00000000000000e3"
    directory.take(subjects.events(left), 1, _created(left, 1_000, seats=3))
    directory.take(subjects.events(left), 2, _seated(left, 2, 2))
    gone = common_pb2.EventEnvelope(table_id=left, game_kind=RACE, event_number=4)
    gone.table.player_left.player_id = "q2"
    directory.take(
        subjects.events(left),
        3,
        referee_pb2.TableRecord(
            table_id=left, record_number=3, first_event_number=4, events=[gone]
        ).SerializeToString(),
    )
    data, headers = _ended(left, 4, 2_000)
    directory.take(subjects.events(left), 4, data, headers)
    directory.take(subjects.events(bad), 5, _created(bad, 2_000))
    data, headers = _ended(bad, 2, 3_000)
    directory.take(subjects.events(bad), 6, data, headers)
    directory.take(subjects.events(bad), 7, b"\xff not a record")  # after its end: quarantined
    assert directory.quarantined(bad) is not None

    directory.take(subjects.events(clock), 8, _created(clock, 100_000))
    assert directory.archived(left) and directory.has_left(left, "q2")
    assert not directory.has_left(left, "p" + left)
    assert not directory.archived(bad) and directory.quarantined(bad) is not None


def whole(directory: TableDirectory) -> dict[str, object]:
    """Everything the directory holds and answers, order-free where its order means nothing: two
    directories with equal ``whole`` answer every question alike and fold the next record alike."""
    snap = directory.snapshot()
    tables = sorted(t.SerializeToString(deterministic=True) for t in snap.tables)
    every_kind = common_pb2.GAME_KIND_UNSPECIFIED
    return {
        "tables": tables,
        "sequence": snap.sequence,
        "read": (snap.first_sequence, [(g.first, g.last) for g in snap.gaps]),
        "log_ms": snap.log_ms,
        "expired": list(snap.expired),
        "archived": list(snap.archived),
        "finished": [(f.table_id, f.ended_ms) for f in snap.finished],
        "quarantined": sorted(q.SerializeToString() for q in snap.quarantined),
        "left": sorted(s.SerializeToString() for s in snap.left),
        "invites": sorted((i.code, i.table_id) for i in snap.invites),
        "seats_of": {p: sorted(t) for p, t in directory._seats_of.items()},
        "open": [t.SerializeToString() for t in directory.open_tables(every_kind)],
        "due": [t.table_id for t in directory.fill_due(every_kind, 10_000, 2**62)[0]],
        "counts": (directory.listed(), directory.waiting(), directory.bot_seats_in_use()),
    }


def test_a_snapshot_taken_at_any_record_folds_on_to_the_listing_it_was_taken_from() -> None:
    keyed = "k" + "0" * 22 + "1"
    log: list[tuple[str, bytes, dict[str, str] | None]] = []

    def add(table_id: str, data: bytes, headers: dict[str, str] | None = None) -> None:
        log.append((subjects.events(table_id), data, headers))

    def record(table_id: str, number: int, first: int, *envs: common_pb2.EventEnvelope) -> bytes:
        return referee_pb2.TableRecord(
            table_id=table_id, record_number=number, first_event_number=first, events=list(envs)
        ).SerializeToString()

    def table_event(table_id: str, number: int, at: int = 0) -> common_pb2.EventEnvelope:
        return common_pb2.EventEnvelope(
            table_id=table_id, game_kind=RACE, event_number=number, server_time_ms=at
        )

    a, b, c, d, e, f = (f"00000000000000f{i}" for i in range(1, 7))
    add(a, _created(a, 1_000, seats=3))  # open: a keyed player sits, leaves; it finishes
    sit = table_event(a, 3)
    sit.table.player_seated.CopyFrom(
        common_pb2.TableEvent.PlayerSeated(seat=2, player_id=keyed, display_name="Kay")
    )
    add(a, record(a, 2, 3, sit))
    private = referee_pb2.TableRecord.FromString(_created(b, 2_000, private=True))
    private.events[0].table.table_created.invite_code = "abcdefghjkmn"
    add(b, private.SerializeToString())  # private, with a code; the bot is asked to fill it
    fill = table_event(b, 3)
    fill.table.fill_requested.fill_at_ms = 2_500
    add(b, record(b, 2, 3, fill))
    add(c, _created(c, 3_000))  # it expires
    gone = table_event(a, 4)
    gone.table.player_left.player_id = keyed
    add(a, record(a, 3, 4, gone))
    add(a, *_ended(a, 4, 4_000))
    expire = table_event(c, 3, 5_000)
    expire.table.table_expired.SetInParent()
    add(c, record(c, 2, 3, expire))
    add(d, _created(d, 6_000, seats=2))
    started = referee_pb2.TableRecord.FromString(_seated(d, 2, 2))
    add(d, started.SerializeToString(), records.fact_headers(started, {records.GAME_STARTED}))
    turn = table_event(d, 4)
    turn.race.game_ended.at = 1  # any game event: its headers say it holds no fact
    made = referee_pb2.TableRecord(table_id=d, record_number=3, first_event_number=4, events=[turn])
    add(d, made.SerializeToString(), records.fact_headers(made, set()))
    add(e, _created(e, 7_000))
    add(e, b"\xff not a record")  # quarantined
    bob = table_event(b, 4)
    bob.table.player_seated.CopyFrom(
        common_pb2.TableEvent.PlayerSeated(
            seat=2, player_id="bot1", display_name="Bot", is_bot=True
        )
    )
    add(b, record(b, 3, 4, bob))
    # A partition's frame: a refused command at d (recorded, no event), and an entry for g that
    # is not its first record (quarantined, at entry 1 of the frame).
    g = "000000000000000e"  # in d's partition
    refused = referee_pb2.TableRecord(table_id=d, record_number=4, first_event_number=5)
    refused.refusal.code = "not_seated"
    not_first, _ = _ended(g, 2, 8_000)
    frame = records.pack(
        [
            (d, refused.SerializeToString(), records.fact_headers(refused, set())),
            (g, not_first, records.fact_headers(refused, set())),
        ]
    )
    log.append((subjects.frames(subjects.partition_of(d)), frame, None))
    add(f, _created(f, 200_000))  # the log's clock archives a; the bot is asked to fill f
    fill = table_event(f, 3)
    fill.table.fill_requested.fill_at_ms = 200_500
    add(f, record(f, 2, 3, fill))

    # Stream sequences from 3 (the copy's first two removed before), with 9 and 10 removed too.
    sequences = [n + 3 + 2 * (n >= 6) for n in range(len(log))]

    def fold(directory: TableDirectory, entries: range) -> None:
        for n in entries:
            subject, data, headers = log[n]
            directory.take(subject, sequences[n], data, headers)
            directory.passed(sequences[n])  # as _ingest does

    whole_log = TableDirectory(js=None, keep_finished_ms=60_000)  # type: ignore[arg-type]
    fold(whole_log, range(len(log)))
    assert whole_log.archived(a) and whole_log.expired(c)  # the log holds every kind of fact
    assert whole_log.quarantined(e) and whole_log.bot_seats(b) == 1
    assert whole_log.bot_seats(f) == 1  # filling: the free seat is the bot's
    assert whole_log.quarantined(g).index == 1  # type: ignore[union-attr]
    assert whole_log.get(d).status == Status.STATUS_PLAYING  # type: ignore[union-attr]
    assert whole_log.table_of_invite("abcdefghjkmn") == b and whole_log.has_left(a, keyed)
    read = whole_log.snapshot()
    assert (read.first_sequence, [(g.first, g.last) for g in read.gaps]) == (3, [(9, 10)])
    for cut in range(len(log) + 1):
        before = TableDirectory(js=None, keep_finished_ms=60_000)  # type: ignore[arg-type]
        fold(before, range(cut))
        stored = before.snapshot().SerializeToString()
        after = TableDirectory(js=None, keep_finished_ms=60_000)  # type: ignore[arg-type]
        after.restore(lobby_listing_pb2.ListingSnapshot.FromString(stored))
        assert whole(after) == whole(before), cut
        fold(after, range(cut, len(log)))
        assert whole(after) == whole(whole_log), cut
