"""Well-formed table records for the tests, as the referee appends them: a table created, then
players seated, each record numbered after the one before."""

from __future__ import annotations

from match.v1 import common_pb2, referee_pb2


def _event(table_id: str, number: int, event: common_pb2.TableEvent) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        table_id=table_id,
        game_id=table_id,
        game_kind=common_pb2.GAME_KIND_MATCH_RACE,
        event_number=number,
        server_time_ms=1_000 + number,
        table=event,
    )


def created(table_id: str, seats: int = 3) -> referee_pb2.TableRecord:
    """Record 1: TableCreated, SeedCommitted, PlayerSeated (ann in seat 1): events 1-3."""
    made = common_pb2.TableEvent()
    made.table_created.seats = seats
    made.table_created.visibility = common_pb2.VISIBILITY_OPEN
    made.table_created.creator = "ann"
    made.table_created.race.ready_window_ms = 10_000
    made.table_created.race.hints_per_board = 3
    committed = common_pb2.TableEvent()
    committed.seed_committed.commitment = "00" * 32
    committed.seed_committed.deal_version = "match-deal-v1"
    seated = common_pb2.TableEvent()
    seated.player_seated.seat, seated.player_seated.player_id = 1, "ann"
    seated.player_seated.display_name = "Ann"
    record = referee_pb2.TableRecord(table_id=table_id, first_event_number=1, record_number=1)
    record.events.extend(
        _event(table_id, n, e) for n, e in enumerate((made, committed, seated), start=1)
    )
    return record


def seated(after: referee_pb2.TableRecord, player: str, seat: int) -> referee_pb2.TableRecord:
    """The record after ``after``: ``player`` takes ``seat``."""
    table_id = after.table_id
    number = after.first_event_number + len(after.events)
    event = common_pb2.TableEvent()
    event.player_seated.seat, event.player_seated.player_id = seat, player
    event.player_seated.display_name = player.title()
    record = referee_pb2.TableRecord(
        table_id=table_id, first_event_number=number, record_number=after.record_number + 1
    )
    record.events.append(_event(table_id, number, event))
    return record


def history(table_id: str) -> list[referee_pb2.TableRecord]:
    """A table of three seats with two players seated: two records."""
    first = created(table_id)
    return [first, seated(first, "bob", 2)]


def stored(records: list[referee_pb2.TableRecord], start: int = 1) -> list[tuple[int, bytes]]:
    """``(stream sequence, bytes)`` pairs, the sequences counting up from ``start``."""
    return [(start + i, r.SerializeToString()) for i, r in enumerate(records)]
