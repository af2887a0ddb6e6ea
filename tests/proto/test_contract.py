"""The protobuf contract (proto/match/v1) against the pure core (libs/match_rules).

These tests read the generated descriptors, so the wire contract and the rules cannot drift
apart unnoticed: every event and command of the race has a message with the same name and the
same fields, every enum mirrors its domain enum, every refusal code is documented, and the
views have no place where another player's tile could travel.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from match.v1 import (
    common_pb2,
    concentration_command_pb2,
    concentration_pb2,
    concentration_service_pb2,
    dealer_pb2,
    lobby_pb2,
    match_cards_command_pb2,
    match_cards_pb2,
    match_cards_service_pb2,
    match_five_command_pb2,
    match_five_pb2,
    match_five_service_pb2,
    number_match_command_pb2,
    number_match_pb2,
    number_match_service_pb2,
    race_command_pb2,
    race_pb2,
    race_service_pb2,
    views_pb2,
)
from match_rules import deal, errors, registry
from match_rules.concentration import commands as c_commands
from match_rules.concentration import events as c_events
from match_rules.concentration import settings as c_settings
from match_rules.concentration import state as c_state
from match_rules.concentration import view as c_view
from match_rules.match_cards import events as m_events
from match_rules.match_cards import settings as m_settings
from match_rules.match_cards import view as m_view
from match_rules.match_five import commands as f_commands
from match_rules.match_five import events as f_events
from match_rules.match_five import settings as f_settings
from match_rules.match_five import state as f_state
from match_rules.match_five import view as f_view
from match_rules.number_match import board as n_board
from match_rules.number_match import events as n_events
from match_rules.number_match import settings as n_settings
from match_rules.race import commands, events, state, view
from match_rules.race.errors import RaceCode

REPO = Path(__file__).resolve().parents[2]
CONTRACT_DOC = REPO / "docs" / "contract.md"

RaceEvent = race_pb2.RaceEvent
RaceCommand = race_command_pb2.RaceCommand
RaceView = views_pb2.RaceView

EVENT_CLASSES: tuple[type, ...] = typing.get_args(events.Event)
COMMAND_CLASSES: tuple[type, ...] = tuple(
    c for c in typing.get_args(commands.Command) if c is not commands.Tick
)
VALUE_CLASSES: tuple[type, ...] = (events.BoardResult, events.Standing)
# What redaction puts in place of another player's private event (never in the log).
REDACTED_CLASSES: tuple[type, ...] = (view.OpponentMoved,)

# Command fields that the wire leaves out (the referee stamps `now`, RaceCommand names the
# player, the referee takes the deal version from the dealer) or adds (the lobby names the game).
COMMAND_FIELDS_NOT_ON_WIRE = {"now", "player"}
COMMAND_FIELDS_NOT_ON_WIRE_BY_CLASS = {"StartGame": {"deal_version"}}
COMMAND_FIELDS_ONLY_ON_WIRE_BY_CLASS = {"StartGame": {"game_id"}}


def snake(name: str) -> str:
    """``TileTurned`` -> ``tile_turned``: the oneof field name of a message."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def dataclass_fields(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def proto_fields(descriptor: Descriptor) -> list[str]:
    return [f.name for f in descriptor.fields]


def enum_prefix(descriptor: EnumDescriptor) -> str:
    return snake(descriptor.name).upper() + "_"


# --- events, commands and enums mirror the core ------------------------------------------------


def test_the_core_has_events_and_commands_to_compare() -> None:
    assert len(EVENT_CLASSES) >= 19
    assert {c.__name__ for c in COMMAND_CLASSES} >= {"StartGame", "TurnTile", "PressReady"}


@pytest.mark.parametrize(
    "cls", EVENT_CLASSES + VALUE_CLASSES + REDACTED_CLASSES, ids=lambda c: c.__name__
)
def test_every_event_has_a_message_with_the_same_name_and_fields(cls: type) -> None:
    nested = RaceEvent.DESCRIPTOR.nested_types_by_name
    assert cls.__name__ in nested, f"race.proto has no message RaceEvent.{cls.__name__}"
    assert proto_fields(nested[cls.__name__]) == dataclass_fields(cls)


def test_race_event_oneof_has_one_field_per_event_named_in_snake_case() -> None:
    oneof = RaceEvent.DESCRIPTOR.oneofs_by_name["event"]
    by_name = {f.name: f.message_type.name for f in oneof.fields}
    assert by_name == {snake(c.__name__): c.__name__ for c in EVENT_CLASSES + REDACTED_CLASSES}
    assert [f.name for f in RaceEvent.DESCRIPTOR.fields] == [f.name for f in oneof.fields]


@pytest.mark.parametrize("cls", COMMAND_CLASSES, ids=lambda c: c.__name__)
def test_every_command_has_a_message_with_the_same_name_and_fields(cls: type) -> None:
    nested = RaceCommand.DESCRIPTOR.nested_types_by_name
    assert cls.__name__ in nested, f"race_command.proto has no message RaceCommand.{cls.__name__}"
    left_out = COMMAND_FIELDS_NOT_ON_WIRE | COMMAND_FIELDS_NOT_ON_WIRE_BY_CLASS.get(
        cls.__name__, set()
    )
    expected = [f for f in dataclass_fields(cls) if f not in left_out]
    added = COMMAND_FIELDS_ONLY_ON_WIRE_BY_CLASS.get(cls.__name__, set())
    assert [f for f in proto_fields(nested[cls.__name__]) if f not in added] == expected


def test_race_command_oneof_names_each_command_in_snake_case() -> None:
    oneof = RaceCommand.DESCRIPTOR.oneofs_by_name["command"]
    assert {f.name: f.message_type.name for f in oneof.fields} == {
        snake(c.__name__): c.__name__ for c in COMMAND_CLASSES
    }


@pytest.mark.parametrize(
    ("domain", "descriptor"),
    [
        (events.Outcome, RaceEvent.DESCRIPTOR.enum_types_by_name["Outcome"]),
        (events.EndReason, RaceEvent.DESCRIPTOR.enum_types_by_name["EndReason"]),
        (errors.Category, common_pb2.Refusal.DESCRIPTOR.enum_types_by_name["Category"]),
        (deal.Strength, dealer_pb2.DESCRIPTOR.enum_types_by_name["BotStrength"]),
        (view.Status, RaceView.DESCRIPTOR.enum_types_by_name["Status"]),
        (view.TileState, RaceView.DESCRIPTOR.enum_types_by_name["TileState"]),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_every_enum_mirrors_its_domain_enum(domain: type[Enum], descriptor: EnumDescriptor) -> None:
    prefix = enum_prefix(descriptor)
    assert descriptor.values[0].name == prefix + "UNSPECIFIED"
    assert descriptor.values[0].number == 0
    assert [v.name for v in descriptor.values[1:]] == [prefix + m.name for m in domain]


def test_times_are_int64_unix_ms_everywhere() -> None:
    time_name = re.compile(r"^(at|deadline|starts_at|.*_until|.*_ms)$")
    checked = 0
    for descriptor in all_messages():
        for field in descriptor.fields:
            if time_name.match(field.name):
                assert field.type == FieldDescriptor.TYPE_INT64, (
                    f"{descriptor.full_name}.{field.name}"
                )
                checked += 1
    assert checked > 30


# --- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("code", registry.refusal_codes(), ids=lambda c: c.slug)
def test_every_refusal_code_is_documented_with_its_category(code: errors.RefusalCode) -> None:
    row = re.compile(rf"^\| `{code.slug}` \| {code.category.name} \| \S.*\|$", re.MULTILINE)
    assert row.search(CONTRACT_DOC.read_text(encoding="utf-8")), (
        f"docs/contract.md has no refusal table row for {code.slug} ({code.category.name})"
    )


def test_a_refusal_round_trips_with_its_category() -> None:
    code = RaceCode.TILE_FACE_UP
    refusal = common_pb2.Refusal(
        code=code.slug,
        message="tile 7 is face up",
        category=common_pb2.Refusal.Category.Value("CATEGORY_" + code.category.name),
    )
    reply = race_command_pb2.RaceCommandReply(refusal=refusal)
    parsed = race_command_pb2.RaceCommandReply.FromString(reply.SerializeToString())
    assert parsed.WhichOneof("result") == "refusal"
    assert parsed.refusal.code == "tile_face_up"
    assert common_pb2.Refusal.Category.Name(parsed.refusal.category) == (
        "CATEGORY_FAILED_PRECONDITION"
    )


# --- what a client can see ------------------------------------------------------------------------

FACE_OR_PLACE = re.compile(r"tile|symbol|layout|partner|face|seed|deal|strength")


def field_paths(descriptor: Descriptor, prefix: str = "") -> list[str]:
    """Every field reachable from ``descriptor``, as dotted paths."""
    paths = []
    for field in descriptor.fields:
        path = prefix + field.name
        paths.append(path)
        if field.message_type is not None:
            paths.extend(field_paths(field.message_type, path + "."))
    return paths


def test_opponent_view_has_no_place_for_a_tile_a_symbol_or_a_layout() -> None:
    opponent = RaceView.DESCRIPTOR.nested_types_by_name["OpponentView"]
    paths = field_paths(opponent)
    assert "boards.pairs" in paths
    assert [p for p in paths if FACE_OR_PLACE.search(p.split(".")[-1])] == []


def test_race_view_holds_faces_only_on_the_viewers_own_board_and_after_reveals() -> None:
    carrying = {p for p in field_paths(RaceView.DESCRIPTOR) if FACE_OR_PLACE.search(p)}
    assert carrying == {
        "tiles",  # the viewer's own board
        "tiles.tile",
        "tiles.state",
        "tiles.symbol",  # only while up: see the next test
        "revealed.layout",  # after the board's reveal, for everybody
        "seed",  # after the game
        "deal_version",  # the algorithm's name, no secret
    }


def test_a_tile_view_sends_a_symbol_only_when_set() -> None:
    tile_view = RaceView.DESCRIPTOR.nested_types_by_name["TileView"]
    assert tile_view.fields_by_name["symbol"].has_presence
    assert RaceView.DESCRIPTOR.fields_by_name["seed"].has_presence
    down = RaceView.TileView(tile=3, state=RaceView.TileState.TILE_STATE_DOWN)
    assert not RaceView.TileView.FromString(down.SerializeToString()).HasField("symbol")


def test_counters_have_no_place_for_a_face() -> None:
    paths = field_paths(views_pb2.RaceCounters.DESCRIPTOR)
    assert [p for p in paths if FACE_OR_PLACE.search(p)] == []


def test_another_players_private_event_reaches_a_client_as_counts_only() -> None:
    moved = RaceEvent.DESCRIPTOR.nested_types_by_name["OpponentMoved"]
    assert [p for p in field_paths(moved) if FACE_OR_PLACE.search(p)] == []
    private = {c.__name__ for c in events.PRIVATE_EVENTS}
    assert private == {"TilesTurnedDown", "TileTurned", "PairFound", "AttemptMissed", "HintGiven"}


# The view's wire names: times get a unit; the revealed layouts and their results travel together.
VIEW_RENAMES = {
    "ready_deadline": "ready_deadline_ms",
    "starts_at": "starts_at_ms",
    "ends_at": "ends_at_ms",
    "paused_until": "paused_until_ms",
    "results": "revealed",
}
PHASES = {
    state.Phase.NOT_STARTED: "PHASE_WAITING_FOR_PLAYERS",
    state.Phase.READY: "PHASE_READY",
    state.Phase.COUNTDOWN: "PHASE_COUNTDOWN",
    state.Phase.PLAYING: "PHASE_PLAYING",
    state.Phase.OVER: "PHASE_GAME_OVER",
}


@pytest.mark.parametrize(
    ("cls", "descriptor"),
    [
        (view.TileView, RaceView.TileView.DESCRIPTOR),
        (view.Progress, RaceView.Progress.DESCRIPTOR),
        (view.OpponentView, RaceView.OpponentView.DESCRIPTOR),
        (view.RaceView, RaceView.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_every_view_field_of_the_core_has_a_place_on_the_wire(
    cls: type, descriptor: Descriptor
) -> None:
    wire = proto_fields(descriptor)
    missing = [f for f in dataclass_fields(cls) if VIEW_RENAMES.get(f, f) not in wire]
    assert missing == []


def test_every_phase_of_the_core_has_a_view_phase() -> None:
    phases = RaceView.DESCRIPTOR.enum_types_by_name["Phase"].values_by_name
    assert set(PHASES) == set(state.Phase)
    assert all(name in phases for name in PHASES.values())


# --- round trips --------------------------------------------------------------------------------

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in unix ms: larger than any 32-bit field holds
TIME_NAME = re.compile(r"^(at|deadline|starts_at|.*_until|.*_ms)$")


def sample(hint: Any, name: str, n: int) -> Any:
    """A value of type ``hint`` for field ``name``; times are real unix ms."""
    origin = typing.get_origin(hint)
    if hint is bool:
        return n % 2 == 1
    if hint is int:
        return T0 + n if TIME_NAME.match(name) else 1 + n % 20
    if hint is str:
        return f"{name}-{n}"
    if isinstance(hint, type) and issubclass(hint, Enum):
        return list(hint)[n % len(hint)]
    if dataclasses.is_dataclass(hint):
        return build(hint, n)
    if origin is frozenset:
        (item,) = typing.get_args(hint)
        return frozenset(sample(item, name, n + i) for i in range(2))
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(sample(args[0], name, n + i) for i in range(3))
        return tuple(sample(a, name, n + i) for i, a in enumerate(args))
    raise AssertionError(f"no sample for {hint!r}")  # pragma: no cover


def build(cls: Any, n: int = 0) -> Any:
    hints = typing.get_type_hints(cls)
    return cls(
        **{
            f.name: sample(hints[f.name], f.name, n + i)
            for i, f in enumerate(dataclasses.fields(cls))
        }
    )


def to_proto(value: Any, descriptor: Descriptor) -> Message:
    """A test-local, name-driven codec: dataclass -> message (the real one lives in the bus)."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(value):
        field = descriptor.fields_by_name[f.name]
        kwargs[f.name] = to_wire(getattr(value, f.name), field)
    return message_factory.GetMessageClass(descriptor)(**kwargs)


def to_wire(value: Any, field: FieldDescriptor) -> Any:
    if isinstance(value, frozenset):
        return [to_wire(v, field) for v in sorted(value)]
    if isinstance(value, tuple):
        return [to_wire(v, field) for v in value]
    if isinstance(value, Enum):
        return field.enum_type.values_by_name[enum_prefix(field.enum_type) + value.name].number
    if dataclasses.is_dataclass(value):
        return to_proto(value, field.message_type)
    return value


def from_proto(message: Message, cls: Any) -> Any:
    """The way back: message -> dataclass, driven by the dataclass's type hints."""
    hints = typing.get_type_hints(cls)
    fields = message.DESCRIPTOR.fields_by_name
    return cls(
        **{
            f.name: from_wire(getattr(message, f.name), hints[f.name], fields[f.name])
            for f in dataclasses.fields(cls)
        }
    )


def from_wire(value: Any, hint: Any, field: FieldDescriptor) -> Any:
    origin = typing.get_origin(hint)
    if origin is frozenset:
        return frozenset(from_wire(v, typing.get_args(hint)[0], field) for v in value)
    if origin is tuple:
        return tuple(from_wire(v, typing.get_args(hint)[0], field) for v in value)
    if isinstance(hint, type) and issubclass(hint, Enum):
        name = field.enum_type.values_by_number[value].name
        return hint[name.removeprefix(enum_prefix(field.enum_type))]
    if dataclasses.is_dataclass(hint):
        return from_proto(value, hint)
    return value


@pytest.mark.parametrize("cls", EVENT_CLASSES + REDACTED_CLASSES, ids=lambda c: c.__name__)
def test_every_event_round_trips_through_an_envelope(cls: type) -> None:
    event = build(cls, n=len(cls.__name__))
    body = RaceEvent(
        **{
            snake(cls.__name__): to_proto(
                event, RaceEvent.DESCRIPTOR.nested_types_by_name[cls.__name__]
            )
        }
    )
    envelope = common_pb2.EventEnvelope(
        table_id="t-1",
        game_id="g-1",
        game_kind=common_pb2.GAME_KIND_MATCH_RACE,
        event_number=42,
        server_time_ms=T0,
        race=body,
    )
    parsed = common_pb2.EventEnvelope.FromString(envelope.SerializeToString())
    assert parsed == envelope
    assert parsed.WhichOneof("body") == "race"
    name = parsed.race.WhichOneof("event")
    assert name == snake(cls.__name__)
    assert from_proto(getattr(parsed.race, name), cls) == event


def test_a_table_event_round_trips_through_an_envelope() -> None:
    seeded = common_pb2.TableEvent(
        player_seated=common_pb2.TableEvent.PlayerSeated(
            seat=2, player_id="p-2", display_name="Ada", is_bot=False
        )
    )
    envelope = common_pb2.EventEnvelope(
        table_id="t-1", event_number=2, server_time_ms=T0, table=seeded
    )
    parsed = common_pb2.EventEnvelope.FromString(envelope.SerializeToString())
    assert parsed.WhichOneof("body") == "table"
    assert parsed.table.player_seated.display_name == "Ada"


def test_a_command_and_its_reply_round_trip() -> None:
    command = RaceCommand(
        table_id="t-1", player_id="p-1", request_id="r-1", turn_tile=RaceCommand.TurnTile(tile=7)
    )
    assert RaceCommand.FromString(command.SerializeToString()).turn_tile.tile == 7
    turned = RaceEvent(
        tile_turned=RaceEvent.TileTurned(at=T0, board=1, player="p-1", tile=7, symbol=0, turn=1)
    )
    reply = race_command_pb2.RaceCommandReply(
        accepted=race_command_pb2.RaceCommandReply.Accepted(
            events=[common_pb2.EventEnvelope(table_id="t-1", event_number=9, race=turned)],
            counters=views_pb2.RaceCounters(event_number=9, board=1, turns=1),
        )
    )
    parsed = race_command_pb2.RaceCommandReply.FromString(reply.SerializeToString())
    (envelope,) = parsed.accepted.events
    assert (envelope.race.tile_turned.tile, envelope.race.tile_turned.symbol) == (7, 0)
    assert parsed.accepted.counters.turns == 1


def all_messages() -> list[Descriptor]:
    found: list[Descriptor] = []

    def walk(descriptor: Descriptor) -> None:
        found.append(descriptor)
        for nested in descriptor.nested_types:
            walk(nested)

    modules = (common_pb2, dealer_pb2, lobby_pb2, race_command_pb2, race_pb2, race_service_pb2)
    concentration = (concentration_pb2, concentration_command_pb2, concentration_service_pb2)
    cards = (match_cards_pb2, match_cards_command_pb2, match_cards_service_pb2)
    numbers = (number_match_pb2, number_match_command_pb2, number_match_service_pb2)
    five = (match_five_pb2, match_five_command_pb2, match_five_service_pb2)
    for module in (*modules, views_pb2, *concentration, *cards, *numbers, *five):
        for descriptor in module.DESCRIPTOR.message_types_by_name.values():
            walk(descriptor)
    return found


# --- Concentration: the same pins ----------------------------------------------------------------

ConcentrationEvent = concentration_pb2.ConcentrationEvent
ConcentrationView = concentration_pb2.ConcentrationView
ConcentrationCommand = concentration_command_pb2.ConcentrationCommand

C_EVENT_CLASSES: tuple[type, ...] = typing.get_args(c_events.Event)
C_COMMAND_CLASSES: tuple[type, ...] = (c_commands.FlipCard,)  # the rest is the referee's
C_VIEW_RENAMES = {"deadline": "deadline_ms", "turn_down_at": "turn_down_at_ms",
                  "takeover_at": "takeover_at_ms"}  # fmt: skip
C_PHASES = {
    c_state.Phase.NOT_STARTED: "PHASE_WAITING_FOR_PLAYERS",
    c_state.Phase.PLAYING: "PHASE_PLAYING",
    c_state.Phase.OVER: "PHASE_GAME_OVER",
}


@pytest.mark.parametrize("cls", C_EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_concentration_event_has_a_message_with_the_same_name_and_fields(cls: type) -> None:
    nested = ConcentrationEvent.DESCRIPTOR.nested_types_by_name
    assert cls.__name__ in nested, f"concentration.proto has no ConcentrationEvent.{cls.__name__}"
    assert proto_fields(nested[cls.__name__]) == dataclass_fields(cls)


@pytest.mark.parametrize(
    ("cls", "descriptor"),
    [
        (c_events.Standing, concentration_pb2.ConcentrationStanding.DESCRIPTOR),
        (c_settings.Settings, concentration_pb2.ConcentrationSettings.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_concentration_values_mirror_their_messages(cls: type, descriptor: Descriptor) -> None:
    assert proto_fields(descriptor) == dataclass_fields(cls)


def test_concentration_event_oneof_has_one_field_per_event_named_in_snake_case() -> None:
    oneof = ConcentrationEvent.DESCRIPTOR.oneofs_by_name["event"]
    by_name = {f.name: f.message_type.name for f in oneof.fields}
    assert by_name == {snake(c.__name__): c.__name__ for c in C_EVENT_CLASSES}
    assert {f.name for f in ConcentrationEvent.DESCRIPTOR.fields} == set(by_name)


def test_the_concentration_command_mirrors_the_flip() -> None:
    oneof = ConcentrationCommand.DESCRIPTOR.oneofs_by_name["command"]
    assert {f.name: f.message_type.name for f in oneof.fields} == {
        snake(c.__name__): c.__name__ for c in C_COMMAND_CLASSES
    }
    flip = ConcentrationCommand.DESCRIPTOR.nested_types_by_name["FlipCard"]
    assert proto_fields(flip) == [
        f for f in dataclass_fields(c_commands.FlipCard) if f not in COMMAND_FIELDS_NOT_ON_WIRE
    ]


@pytest.mark.parametrize(
    ("domain", "descriptor"),
    [
        (c_settings.Pictures, concentration_pb2.ConcentrationSettings.Pictures.DESCRIPTOR),
        (c_settings.Matching, concentration_pb2.ConcentrationSettings.Matching.DESCRIPTOR),
        (c_view.CardState, ConcentrationView.CardState.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_every_concentration_enum_mirrors_its_domain_enum(
    domain: type[Enum], descriptor: EnumDescriptor
) -> None:
    test_every_enum_mirrors_its_domain_enum(domain, descriptor)


@pytest.mark.parametrize(
    ("cls", "descriptor"),
    [
        (c_view.CardView, ConcentrationView.Card.DESCRIPTOR),
        (c_view.SeatView, ConcentrationView.Seat.DESCRIPTOR),
        (c_view.View, ConcentrationView.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_every_concentration_view_field_has_a_place_on_the_wire(
    cls: type, descriptor: Descriptor
) -> None:
    wire = proto_fields(descriptor)
    missing = [f for f in dataclass_fields(cls) if C_VIEW_RENAMES.get(f, f) not in wire]
    assert missing == []
    phases = ConcentrationView.DESCRIPTOR.enum_types_by_name["Phase"].values_by_name
    assert set(C_PHASES) == set(c_state.Phase)
    assert all(name in phases for name in C_PHASES.values())


def test_a_concentration_view_carries_a_face_only_in_a_card_and_the_seed_when_set() -> None:
    carrying = {p for p in field_paths(ConcentrationView.DESCRIPTOR) if FACE_OR_PLACE.search(p)}
    assert carrying == {"cards.face", "seed"}
    assert ConcentrationView.DESCRIPTOR.fields_by_name["seed"].has_presence
    event_paths = field_paths(ConcentrationEvent.DESCRIPTOR)
    faces = {p for p in event_paths if p.split(".")[-1] == "face"}
    assert faces == {"card_flipped.face"}  # the only event that names a face: the flip itself


# --- Match Cards: the same pins ------------------------------------------------------------------

MatchCardsEvent = match_cards_pb2.MatchCardsEvent
M_EVENT_CLASSES: tuple[type, ...] = (*typing.get_args(m_events.Event), m_events.OpponentProgress)


@pytest.mark.parametrize("cls", M_EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_match_cards_event_has_a_message_with_the_same_name_and_fields(cls: type) -> None:
    nested = MatchCardsEvent.DESCRIPTOR.nested_types_by_name
    assert cls.__name__ in nested, f"match_cards.proto has no MatchCardsEvent.{cls.__name__}"
    assert proto_fields(nested[cls.__name__]) == dataclass_fields(cls)


@pytest.mark.parametrize(
    ("cls", "descriptor"),
    [
        (m_events.Standing, match_cards_pb2.MatchCardsStanding.DESCRIPTOR),
        (m_settings.Settings, match_cards_pb2.MatchCardsSettings.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_match_cards_values_mirror_their_messages(cls: type, descriptor: Descriptor) -> None:
    assert proto_fields(descriptor) == dataclass_fields(cls)


def test_match_cards_event_oneof_has_one_field_per_event_named_in_snake_case() -> None:
    oneof = MatchCardsEvent.DESCRIPTOR.oneofs_by_name["event"]
    by_name = {f.name: f.message_type.name for f in oneof.fields}
    assert by_name == {snake(c.__name__): c.__name__ for c in M_EVENT_CLASSES}
    assert {f.name for f in MatchCardsEvent.DESCRIPTOR.fields} == set(by_name)


def test_the_match_cards_commands_are_the_services_rpcs() -> None:
    oneof = match_cards_command_pb2.MatchCardsCommand.DESCRIPTOR.oneofs_by_name["command"]
    service = match_cards_service_pb2.DESCRIPTOR.services_by_name["MatchCardsService"]
    rpcs = {snake(m.name) for m in service.methods if m.name not in ("Watch", "Play")}
    assert {f.name for f in oneof.fields} == rpcs == {"turn_card", "turn_off_notice"}


@pytest.mark.parametrize(
    ("domain", "descriptor"),
    [
        (m_settings.Mode, match_cards_pb2.MatchCardsSettings.Mode.DESCRIPTOR),
        (m_settings.Difficulty, match_cards_pb2.MatchCardsSettings.Difficulty.DESCRIPTOR),
        (m_view.CardState, match_cards_pb2.MatchCardsView.CardState.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_every_match_cards_enum_mirrors_its_domain_enum(
    domain: type[Enum], descriptor: EnumDescriptor
) -> None:
    test_every_enum_mirrors_its_domain_enum(domain, descriptor)


# --- Number Match: the same pins -----------------------------------------------------------------

NumberMatchEvent = number_match_pb2.NumberMatchEvent
N_EVENT_CLASSES: tuple[type, ...] = typing.get_args(n_events.Event)


@pytest.mark.parametrize("cls", N_EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_number_match_event_has_a_message_with_the_same_name_and_fields(cls: type) -> None:
    nested = NumberMatchEvent.DESCRIPTOR.nested_types_by_name
    assert cls.__name__ in nested, f"number_match.proto has no NumberMatchEvent.{cls.__name__}"
    assert proto_fields(nested[cls.__name__]) == dataclass_fields(cls)


@pytest.mark.parametrize(
    ("cls", "descriptor"),
    [
        (n_events.Step, number_match_pb2.NumberMatchStep.DESCRIPTOR),
        (n_settings.Settings, number_match_pb2.NumberMatchSettings.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_number_match_values_mirror_their_messages(cls: type, descriptor: Descriptor) -> None:
    assert proto_fields(descriptor) == dataclass_fields(cls)


def test_number_match_event_oneof_has_one_field_per_event_named_in_snake_case() -> None:
    oneof = NumberMatchEvent.DESCRIPTOR.oneofs_by_name["event"]
    by_name = {f.name: f.message_type.name for f in oneof.fields}
    assert by_name == {snake(c.__name__): c.__name__ for c in N_EVENT_CLASSES}
    assert {f.name for f in NumberMatchEvent.DESCRIPTOR.fields} == set(by_name)


def test_the_number_match_commands_are_the_services_rpcs() -> None:
    oneof = number_match_command_pb2.NumberMatchCommand.DESCRIPTOR.oneofs_by_name["command"]
    service = number_match_service_pb2.DESCRIPTOR.services_by_name["NumberMatchService"]
    rpcs = {snake(m.name) for m in service.methods if m.name not in ("Watch", "Play")}
    assert (
        {f.name for f in oneof.fields}
        == rpcs
        == {
            "pair_cells",
            "add_numbers",
            "ask_hint",
            "undo",
            "end_game",
        }
    )


def test_only_the_end_of_a_number_match_game_carries_its_witness() -> None:
    """The witness is a complete solution: no event but GameOver has it, and the view has it
    beside the seed (both filled only once over, which the conformance suite checks)."""
    carrying = {
        p for p in field_paths(NumberMatchEvent.DESCRIPTOR) if "witness" in p.split(".")[-1]
    }
    assert carrying == {"game_started.witness_commitment", "game_over.witness"}
    view_paths = field_paths(number_match_pb2.NumberMatchView.DESCRIPTOR)
    view = {p for p in view_paths if "witness" in p.split(".")[-1]}
    assert view == {"witness", "witness_commitment"}


@pytest.mark.parametrize(
    ("domain", "descriptor"),
    [
        (n_board.Level, number_match_pb2.NumberMatchSettings.Level.DESCRIPTOR),
        (n_events.Outcome, NumberMatchEvent.Outcome.DESCRIPTOR),
        (n_events.HintKind, NumberMatchEvent.HintKind.DESCRIPTOR),
        (n_events.Undone, NumberMatchEvent.Undone.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_every_number_match_enum_mirrors_its_domain_enum(
    domain: type[Enum], descriptor: EnumDescriptor
) -> None:
    test_every_enum_mirrors_its_domain_enum(domain, descriptor)


# --- MATCH 5: the same pins ----------------------------------------------------------------------

MatchFiveEvent = match_five_pb2.MatchFiveEvent
MatchFiveView = match_five_pb2.MatchFiveView
F_EVENT_CLASSES: tuple[type, ...] = (*typing.get_args(f_events.Event), f_events.WritingProgress)
F_VALUE_CLASSES: tuple[type, ...] = (
    f_events.ReadLink,
    f_events.BallotResult,
    f_events.LinkScore,
    f_events.PlayerScore,
    f_events.Standing,
)
F_COMMAND_CLASSES: tuple[type, ...] = (
    f_commands.WriteLink,
    f_commands.EraseLink,
    f_commands.Done,
    f_commands.Vote,
    f_commands.CallMatch,
)  # StartGame and Tick are the referee's


@pytest.mark.parametrize("cls", F_EVENT_CLASSES + F_VALUE_CLASSES, ids=lambda c: c.__name__)
def test_every_match_five_event_has_a_message_with_the_same_name_and_fields(cls: type) -> None:
    nested = MatchFiveEvent.DESCRIPTOR.nested_types_by_name
    assert cls.__name__ in nested, f"match_five.proto has no MatchFiveEvent.{cls.__name__}"
    assert proto_fields(nested[cls.__name__]) == dataclass_fields(cls)


def test_match_five_settings_mirror_their_message() -> None:
    descriptor = match_five_pb2.MatchFiveSettings.DESCRIPTOR
    assert proto_fields(descriptor) == dataclass_fields(f_settings.Settings)


def test_match_five_event_oneof_has_one_field_per_event_named_in_snake_case() -> None:
    oneof = MatchFiveEvent.DESCRIPTOR.oneofs_by_name["event"]
    by_name = {f.name: f.message_type.name for f in oneof.fields}
    assert by_name == {snake(c.__name__): c.__name__ for c in F_EVENT_CLASSES}
    assert {f.name for f in MatchFiveEvent.DESCRIPTOR.fields} == set(by_name)


def test_the_match_five_commands_are_the_services_rpcs() -> None:
    command = match_five_command_pb2.MatchFiveCommand.DESCRIPTOR
    oneof = command.oneofs_by_name["command"]
    service = match_five_service_pb2.DESCRIPTOR.services_by_name["MatchFiveService"]
    rpcs = {snake(m.name) for m in service.methods if m.name not in ("Watch", "Play")}
    assert {f.name: f.message_type.name for f in oneof.fields} == {
        snake(c.__name__): c.__name__ for c in F_COMMAND_CLASSES
    }
    assert rpcs == {snake(c.__name__) for c in F_COMMAND_CLASSES}
    for cls in F_COMMAND_CLASSES:
        wire = proto_fields(command.nested_types_by_name[cls.__name__])
        assert wire == [f for f in dataclass_fields(cls) if f not in COMMAND_FIELDS_NOT_ON_WIRE]


def test_a_match_five_link_travels_only_where_the_rules_put_it() -> None:
    """A link's text: in its author's LinkWritten, in the reading (CombinationOpened) and, in a
    view, as the viewer's own link, a ballot of the open combination and the links read (the
    conformance suite checks that each holds only what the viewer may see)."""
    texts = {"text", "your_link"}
    events = {p for p in field_paths(MatchFiveEvent.DESCRIPTOR) if p.split(".")[-1] in texts}
    assert events == {"link_written.text", "combination_opened.links.text"}
    view = {p for p in field_paths(MatchFiveView.DESCRIPTOR) if p.split(".")[-1] in texts}
    assert view == {"combinations.your_link", "ballots.text", "read.links.text"}
    progress = MatchFiveEvent.DESCRIPTOR.nested_types_by_name["WritingProgress"]
    assert proto_fields(progress) == ["at", "player", "links"]
    assert MatchFiveView.DESCRIPTOR.fields_by_name["seed"].has_presence


F_VIEW_RENAMES = {"deadline": "deadline_ms"}
F_PHASES = {
    f_state.Phase.NOT_STARTED: "PHASE_WAITING_FOR_PLAYERS",
    f_state.Phase.WRITING: "PHASE_WRITING",
    f_state.Phase.READING: "PHASE_READING",
    f_state.Phase.OVER: "PHASE_GAME_OVER",
}


@pytest.mark.parametrize(
    ("cls", "descriptor"),
    [
        (f_view.CombinationView, MatchFiveView.Combination.DESCRIPTOR),
        (f_view.PlayerView, MatchFiveView.Player.DESCRIPTOR),
        (f_view.BallotView, MatchFiveView.Ballot.DESCRIPTOR),
        (f_view.View, MatchFiveView.DESCRIPTOR),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
def test_every_match_five_view_field_has_a_place_on_the_wire(
    cls: type, descriptor: Descriptor
) -> None:
    wire = proto_fields(descriptor)
    missing = [f for f in dataclass_fields(cls) if F_VIEW_RENAMES.get(f, f) not in wire]
    assert missing == []
    phases = MatchFiveView.DESCRIPTOR.enum_types_by_name["Phase"].values_by_name
    assert set(F_PHASES) == set(f_state.Phase)
    assert all(name in phases for name in F_PHASES.values())


def _service(slug: str) -> Any:
    import importlib

    module = importlib.import_module(f"match.v1.{slug}_service_pb2")
    (service,) = module.DESCRIPTOR.services_by_name.values()
    return service


@pytest.mark.parametrize("slug", [g.slug for g in registry.games()])
def test_play_carries_each_rpc_of_its_service_under_its_name_and_number(slug: str) -> None:
    """Play's request holds each rpc's request, its response each rpc's response, under the
    rpc's name in snake case and the same number both ways (3, 4, ... in the service's order;
    the response's 2 is the refusal), so the lobby and the client find them by descriptor
    and a WebSocket can carry the same messages."""
    service = _service(slug)
    play = service.methods_by_name["Play"]
    assert play.client_streaming and play.server_streaming
    request, response = play.input_type, play.output_type
    assert request.name == f"{service.name}PlayRequest"
    assert response.name == f"{service.name}PlayResponse"
    others = [m for m in service.methods if m is not play]
    want_request = {"request_id": (1, None)}
    want_response = {"request_id": (1, None), "refusal": (2, "match.v1.PlayRefusal")}
    for number, method in enumerate(others, start=3):
        want_request[snake(method.name)] = (number, method.input_type.full_name)
        want_response[snake(method.name)] = (number, method.output_type.full_name)

    def shape(message: Descriptor) -> dict[str, tuple[int, str | None]]:
        return {
            f.name: (f.number, f.message_type.full_name if f.message_type else None)
            for f in message.fields
        }

    assert shape(request) == want_request
    assert shape(response) == want_response
    assert [f.name for f in request.oneofs_by_name["command"].fields] == list(want_request)[1:]
    assert [f.name for f in response.oneofs_by_name["body"].fields] == list(want_response)[1:]
