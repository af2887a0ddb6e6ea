"""The seam's own pieces: the registry's lookups and the codec's edge cases."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import pytest

from match.v1 import common_pb2
from match_rules import registry
from match_rules.decide import in_time
from match_rules.errors import Code, RuleError
from match_rules.protocodec import Codec, snake
from match_rules.race.errors import RaceCode


@dataclass(frozen=True)
class TableExpired:
    """An event with no field."""


@dataclass(frozen=True)
class PlayerSeated:
    seat: int | str  # a union that is not "X | None" stays as it is
    player_id: str | None  # no presence on the wire: read back as its zero value
    display_name: str
    is_bot: bool


class Visibility(Enum):
    OPEN = 1
    PRIVATE = 2


@dataclass(frozen=True)
class TableCreated:
    seats: int
    visibility: Visibility | None  # an enum that may be None: still read back as the enum


CODEC = Codec(
    common_pb2.TableEvent,
    (TableExpired, PlayerSeated, TableCreated),
    {Visibility: (common_pb2.Visibility, "VISIBILITY_")},
)


def test_every_game_is_found_by_its_kind_and_its_slug() -> None:
    for game in registry.games():
        assert registry.by_kind(game.kind) is game
        assert registry.by_slug(game.slug) is game
    assert registry.slugs() == (
        "race",
        "concentration",
        "match_cards",
        "number_match",
        "match_five",
    )


def test_an_unknown_kind_or_slug_says_which() -> None:
    with pytest.raises(registry.UnknownGame, match="no game of kind 99"):
        registry.by_kind(99)
    with pytest.raises(registry.UnknownGame, match="no game called 'chess'"):
        registry.by_slug("chess")


def test_an_event_with_no_field_still_selects_its_member() -> None:
    wire = CODEC.to_proto(TableExpired())
    assert wire.WhichOneof("event") == "table_expired"
    assert CODEC.from_proto(wire) == TableExpired()


def test_fields_without_presence_read_back_as_their_zero_value() -> None:
    wire = CODEC.to_proto(PlayerSeated(2, None, "Ann", False))
    assert CODEC.from_proto(wire) == PlayerSeated(2, "", "Ann", False)


def test_an_optional_enum_reads_back_as_its_member() -> None:
    for visibility in Visibility:
        wire = CODEC.to_proto(TableCreated(3, visibility))
        assert wire.table_created.visibility == common_pb2.Visibility.Value(
            "VISIBILITY_" + visibility.name
        )
        assert CODEC.from_proto(wire) == TableCreated(3, visibility)


def test_an_enum_number_without_a_member_is_refused_as_the_wire_would() -> None:
    unspecified = common_pb2.TableEvent()
    unspecified.table_created.seats = 2  # visibility 0, UNSPECIFIED: no member of Visibility
    with pytest.raises(KeyError, match="UNSPECIFIED"):
        CODEC.from_proto(unspecified)
    unknown = common_pb2.TableEvent()
    unknown.table_created.visibility = 99  # no name on the wire either
    with pytest.raises(ValueError, match="99"):
        CODEC.from_proto(unknown)
    # A refused number is not remembered: the members still read back.
    assert CODEC.from_proto(CODEC.to_proto(TableCreated(2, Visibility.OPEN))).visibility is (
        Visibility.OPEN
    )


def test_a_message_with_nothing_set_or_of_another_class_is_refused() -> None:
    with pytest.raises(ValueError, match="no event set"):
        CODEC.from_proto(common_pb2.TableEvent())
    other = common_pb2.TableEvent()
    other.seed_committed.commitment = "ab"
    with pytest.raises(ValueError, match="SeedCommitted is not one of this game's classes"):
        CODEC.from_proto(other)
    assert snake("GameStarted") == "game_started"


def test_the_edge_check_refuses_only_what_cannot_be_right() -> None:
    from match.v1 import concentration_service_pb2, race_service_pb2

    race, concentration = registry.by_slug("race"), registry.by_slug("concentration")
    for tile in (0, 21):
        request = race_service_pb2.TurnTileRequest(table_id="t", tile=tile)
        problem = race.check_request(request)
        assert isinstance(problem, RuleError) and problem.code is RaceCode.TILE_OUT_OF_RANGE
        assert problem.message == f"tiles are numbered 1 to 20, got {tile}"
    assert race.check_request(race_service_pb2.TurnTileRequest(tile=20)) is None
    assert race.check_request(race_service_pb2.PressReadyRequest()) is None
    flip = concentration_service_pb2.FlipCardRequest(card=99)  # the deck decides: the referee
    assert concentration.check_request(flip) is None


def test_only_number_match_has_proofs_beyond_the_rerun() -> None:
    """Game.proofs: what verify checks from the log alone. Only Number Match publishes
    something to prove (its witness); before its end it has nothing to prove either."""
    for game in registry.games():
        assert game.proofs(game.initial_state(None)) == (), game.slug


def test_a_command_from_before_the_clock_is_refused_and_a_tick_from_before_it_is_nothing() -> None:
    """decider.in_time: the referee's clock never runs backwards. A command stamped at or after
    the state's clock is judged; a tick from before it has nothing left to do; any other
    command from before it is refused with STALE_TIME, saying both instants."""
    assert in_time(10, 10, tick=False) and in_time(11, 10, tick=True)
    assert in_time(9, 10, tick=True) is False
    with pytest.raises(RuleError) as caught:
        in_time(9, 10, tick=False)
    assert caught.value.code is Code.STALE_TIME
    assert caught.value.message == (
        "the command is stamped 9, before the game's latest event at 10; the referee's clock "
        "must not run backwards"
    )
