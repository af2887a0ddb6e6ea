"""The leak check itself: it passes what a player may see and catches a planted leak, including
one in a field no message has today (a message type made here, as a new field would be)."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from match.v1 import common_pb2, race_pb2, race_service_pb2, views_pb2
from tests.e2e.leaks import check_no_leaks

R = race_pb2.RaceEvent
View = views_pb2.RaceView


def event(**body: Any) -> race_service_pb2.WatchResponse:
    return race_service_pb2.WatchResponse(event=common_pb2.EventEnvelope(race=R(**body)))


def snapshot(**fields: Any) -> race_service_pb2.WatchResponse:
    return race_service_pb2.WatchResponse(snapshot=View(player="ann", **fields))


LAYOUT = list(range(10)) * 2
MINE = event(tile_turned=R.TileTurned(at=5, board=1, player="ann", tile=3, symbol=7, turn=1))
ENDED = event(board_ended=R.BoardEnded(at=9, board=1, reason=R.END_REASON_TIME_CAP))
REVEALED = event(board_revealed=R.BoardRevealed(at=9, board=1, layout=LAYOUT))
FINE = [
    MINE,
    event(opponent_moved=R.OpponentMoved(at=6, board=1, player="bob", turns=1)),
    snapshot(board=1, phase=View.PHASE_PLAYING, tiles=[View.TileView(tile=3, symbol=7)]),
    ENDED,
    REVEALED,
    snapshot(
        board=1,
        phase=View.PHASE_BETWEEN_BOARDS,
        revealed=[View.RevealedBoard(board=1, layout=LAYOUT)],
    ),
    race_service_pb2.TurnTileResponse(
        events=[
            common_pb2.EventEnvelope(race=R(board_ended=R.BoardEnded(at=20, board=2))),
            common_pb2.EventEnvelope(race=R(board_revealed=R.BoardRevealed(board=2, layout=[1]))),
            common_pb2.EventEnvelope(race=R(game_ended=R.GameEnded(at=20))),
            common_pb2.EventEnvelope(
                table=common_pb2.TableEvent(
                    seed_revealed=common_pb2.TableEvent.SeedRevealed(seed=b"s")
                )
            ),
        ]
    ),
]


def test_what_a_player_may_see_passes() -> None:
    assert check_no_leaks("ann", FINE) == len(FINE)


def _future_message() -> Any:
    """A message as a later change could add one: an opponent's progress carrying a symbol."""
    file = descriptor_pb2.FileDescriptorProto(name="future_leak.proto", package="future")
    m = file.message_type.add(name="OpponentGlimpse")
    m.field.add(name="player", number=1, type=9, label=1)  # string
    m.field.add(name="board", number=2, type=13, label=1)  # uint32
    m.field.add(name="symbol", number=3, type=13, label=1)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("future.OpponentGlimpse"))
    return cls(player="bob", board=1, symbol=4)


PLANTED = {
    "another's turned tile": [
        event(tile_turned=R.TileTurned(at=5, board=1, player="bob", tile=4, symbol=9))
    ],
    "another's hint": [event(hint_given=R.HintGiven(at=5, board=1, player="bob", partner=8))],
    "a face I never turned": [
        MINE,
        snapshot(board=1, phase=View.PHASE_PLAYING, tiles=[View.TileView(tile=4, symbol=7)]),
    ],
    "a layout before its board ended": [REVEALED, ENDED],
    "a layout in a live view": [
        snapshot(
            board=1,
            phase=View.PHASE_PLAYING,
            revealed=[View.RevealedBoard(board=1, layout=LAYOUT)],
        )
    ],
    "the seed early": [
        race_service_pb2.WatchResponse(
            event=common_pb2.EventEnvelope(
                table=common_pb2.TableEvent(
                    seed_revealed=common_pb2.TableEvent.SeedRevealed(seed=b"s")
                )
            )
        )
    ],
    "a seed in a live view": [snapshot(board=1, phase=View.PHASE_PLAYING, seed=b"s")],
    "a symbol in a field that does not exist yet": [_future_message()],
    "any face to a stranger": [MINE],
}


@pytest.mark.parametrize("planted", sorted(PLANTED))
def test_a_planted_leak_is_caught(planted: str) -> None:
    me = "" if planted == "any face to a stranger" else "ann"
    with pytest.raises(AssertionError):
        check_no_leaks(me, PLANTED[planted])
