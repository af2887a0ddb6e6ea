"""What `make chaos` counts as lost, duplicated and mismatched (match_chaos.check), on records
and received events built by hand."""

from __future__ import annotations

from match.v1 import common_pb2, race_command_pb2, race_pb2, referee_pb2
from match_chaos.check import check_game

TABLE = "chaostable01"
ME, BOT = "me00000000000001", "bot0000000000002"


def turned(n: int, player: str) -> common_pb2.EventEnvelope:
    event = race_pb2.RaceEvent(tile_turned=race_pb2.RaceEvent.TileTurned(player=player, tile=n))
    return common_pb2.EventEnvelope(table_id=TABLE, event_number=n, race=event)


def hidden(n: int, player: str) -> common_pb2.EventEnvelope:
    """How ``turned(n, player)`` reaches another player."""
    event = race_pb2.RaceEvent(opponent_moved=race_pb2.RaceEvent.OpponentMoved(player=player))
    return common_pb2.EventEnvelope(table_id=TABLE, event_number=n, race=event)


def record(
    number: int, first: int, count: int, player: str, request: str
) -> referee_pb2.TableRecord:
    command = race_command_pb2.RaceCommand(
        table_id=TABLE,
        player_id=player,
        request_id=request,
        turn_tile=race_command_pb2.RaceCommand.TurnTile(tile=1),
    )
    return referee_pb2.TableRecord(
        table_id=TABLE,
        first_event_number=first,
        events=[turned(first + i, player) for i in range(count)],
        command=referee_pb2.StampedCommand(race=command),
        record_number=number,
    )


LOG = [
    record(1, 1, 2, ME, "r1"),
    record(2, 3, 1, BOT, "b1"),
    record(3, 4, 0, ME, "r2"),  # a refusal: no event
    record(4, 4, 2, BOT, "b2"),
]


def as_received(*envelopes: common_pb2.EventEnvelope) -> dict[int, list[common_pb2.EventEnvelope]]:
    out: dict[int, list[common_pb2.EventEnvelope]] = {}
    for e in envelopes:
        out.setdefault(e.event_number, []).append(e)
    return out


def test_a_player_who_got_everything_redacted_as_it_should_loses_nothing() -> None:
    got = as_received(turned(1, ME), turned(2, ME), turned(2, ME), hidden(3, BOT), hidden(4, BOT))
    got[5] = [hidden(5, BOT)]
    check = check_game(TABLE, LOG, ME, got)
    assert (check.lost, check.duplicated, check.mismatched) == (0, 0, 0)
    assert (check.records, check.last_event, check.received) == (4, 5, 5)


def test_events_never_received_are_lost_unless_a_snapshot_covered_them() -> None:
    got = as_received(turned(1, ME), hidden(4, BOT), hidden(5, BOT))
    assert check_game(TABLE, LOG, ME, got).lost == 2  # 2 and 3
    assert check_game(TABLE, LOG, ME, got, snapshots=[3]).lost == 0
    assert check_game(TABLE, LOG, ME, got, snapshots=[2]).lost == 1


def test_a_hole_in_the_log_is_lost_and_a_repeat_is_duplicated() -> None:
    holed = [LOG[0], record(2, 4, 2, BOT, "b1")]  # 3 is missing from the log
    got = as_received(turned(1, ME), turned(2, ME), hidden(4, BOT), hidden(5, BOT))
    assert check_game(TABLE, holed, ME, got).lost == 1
    twice = [*LOG, record(5, 5, 1, BOT, "b3")]  # event 5 applied again
    assert check_game(TABLE, twice, ME, got).duplicated == 1


def test_a_request_decided_twice_and_a_record_number_used_twice_are_duplicated() -> None:
    retried = [*LOG, record(5, 6, 0, ME, "r1")]  # r1 judged again (refused this time)
    got = as_received(turned(1, ME), turned(2, ME), hidden(3, BOT), hidden(4, BOT), hidden(5, BOT))
    assert check_game(TABLE, retried, ME, got).duplicated == 1
    renumbered = [*LOG, record(4, 6, 0, ME, "r3")]
    assert check_game(TABLE, renumbered, ME, got).duplicated == 1


def test_another_players_face_or_another_event_under_a_number_is_mismatched() -> None:
    got = as_received(turned(1, ME), turned(2, ME), turned(3, BOT), hidden(4, BOT), hidden(5, ME))
    check = check_game(TABLE, LOG, ME, got)
    assert check.mismatched == 2  # 3 came unredacted; 5 came as ME's move but it is BOT's
    assert check.lost == 0
