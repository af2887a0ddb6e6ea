"""Every domain event survives the wire: dataclass -> protobuf bytes -> dataclass."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from match.v1 import race_pb2
from match_rules.race import events as ev
from match_rules.race.game import from_proto, to_proto
from match_rules.race.view import OpponentMoved
from tests.rules.race.test_properties import Game, games, run


def roundtrip(event: ev.Event | OpponentMoved) -> ev.Event | OpponentMoved:
    return from_proto(race_pb2.RaceEvent.FromString(to_proto(event).SerializeToString()))


@settings(max_examples=40, deadline=None)
@given(games())
def test_every_event_of_any_game_survives_the_wire(game: Game) -> None:
    deal, start, moves = game
    log, _ = run(deal, start, moves)
    for event in log:
        assert roundtrip(event) == event


def test_a_redacted_event_survives_the_wire() -> None:
    moved = OpponentMoved(at=5, board=2, player="ann", turns=7, pairs=3, hints=1)
    assert roundtrip(moved) == moved


def test_an_empty_race_event_is_refused() -> None:
    with pytest.raises(ValueError, match="no event"):
        from_proto(race_pb2.RaceEvent())
