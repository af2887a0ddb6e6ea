"""The chaos check (match_chaos.check) is generic over the registry: for every registered game, a
random game played through the seam (tests/games/harness.py) is written as a table's records,
one player receives every event as the referee redacts it for them, and the check finds nothing
lost, duplicated or mismatched; a lost event, a retry judged twice and a changed field are
found. Then Concentration by name: a flip received with another face than the log's."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from match.v1 import common_pb2, referee_pb2
from match_chaos.check import check_game, request_key
from match_rules import registry
from match_rules.game import Game
from tests.games.harness import play

TABLE = "chaosgame0001"
Received = dict[int, list[common_pb2.EventEnvelope]]


@dataclass
class Table:
    game: Game
    viewer: str
    records: list[referee_pb2.TableRecord]
    received: Received  # every event as the referee redacts it for the viewer


def stamped(game: Game, command: Any, n: int) -> referee_pb2.StampedCommand:
    """The wire command a record of ``command`` holds: a player's (the game's own command, or
    the lobby's Presence for a game that hears of it), else the timer."""
    player = getattr(command, "player", "")
    if not player:
        return referee_pb2.StampedCommand(tick=referee_pb2.StampedCommand.Tick())
    if type(command) in {type(game.presence(0, player, present)) for present in (True, False)}:
        presence = referee_pb2.TableCommand(table_id=TABLE, player_id=player, request_id=f"p{n}")
        presence.presence.present = True
        return referee_pb2.StampedCommand(table=presence)
    wire = game.command_message(table_id=TABLE, player_id=player, request_id=f"r{n}")
    out = referee_pb2.StampedCommand()
    getattr(out, game.slug).CopyFrom(wire)
    return out


def table(game: Game, seed: int) -> Table:
    run = play(game, bytes([seed]) * 32, random.Random(seed))
    viewer = run.players[0]
    created = common_pb2.EventEnvelope(
        table_id=TABLE, event_number=1, game_kind=game.kind, table=common_pb2.TableEvent()
    )
    created.table.table_created.SetInParent()
    records = [
        referee_pb2.TableRecord(
            table_id=TABLE, first_event_number=1, events=[created], record_number=1
        )
    ]
    received: Received = {1: [created]}
    number = 2
    for index, (command, steps) in enumerate(zip(run.commands, run.steps, strict=True)):
        record = referee_pb2.TableRecord(
            table_id=TABLE,
            first_event_number=number,
            command=stamped(game, command, index),
            record_number=len(records) + 1,
        )
        for event, after in steps:
            envelope = common_pb2.EventEnvelope(table_id=TABLE, event_number=number)
            getattr(envelope, game.slug).CopyFrom(game.encode(event))
            record.events.append(envelope)
            seen = common_pb2.EventEnvelope(table_id=TABLE, event_number=number)
            getattr(seen, game.slug).CopyFrom(game.encode(game.redact(after, event, viewer)))
            received[number] = [seen]
            number += 1
        records.append(record)
    return Table(game, viewer, records, received)


GAMES = [pytest.param(game, id=game.slug) for game in registry.games()]


@pytest.mark.parametrize("game", GAMES)
def test_every_event_received_as_redacted_for_the_player_is_neither_lost_nor_mismatched(
    game: Game,
) -> None:
    t = table(game, 7)
    check = check_game(TABLE, t.records, t.viewer, t.received)
    assert (check.lost, check.duplicated, check.mismatched) == (0, 0, 0), check.notes
    assert check.game == game.slug and check.last_event == max(t.received) > 20
    keys = [request_key(r) for r in t.records]
    assert any(k is not None and k[1].startswith("r") for k in keys)  # the game's own commands


@pytest.mark.parametrize("game", GAMES)
def test_a_lost_event_a_retry_judged_twice_and_a_changed_event_are_counted(game: Game) -> None:
    t = table(game, 11)
    last = max(t.received)
    lost = {n: copies for n, copies in t.received.items() if n not in (5, last)}
    assert check_game(TABLE, t.records, t.viewer, lost).lost == 2
    assert check_game(TABLE, t.records, t.viewer, lost, snapshots=[5]).lost == 1

    decided = next(r for r in t.records if (request_key(r) or ("", ""))[1].startswith("r"))
    again = referee_pb2.TableRecord()
    again.CopyFrom(decided)
    again.ClearField("events")  # judged again (refused this time), its first answer ignored
    again.first_event_number = last + 1
    again.record_number = len(t.records) + 1
    assert check_game(TABLE, [*t.records, again], t.viewer, t.received).duplicated == 1

    # Two game events of different kinds received under each other's numbers.
    game_numbers = [n for n, (e,) in t.received.items() if e.HasField(game.slug)]
    a = game_numbers[0]
    b = next(n for n in game_numbers if t.received[n][0] != t.received[a][0])
    swapped = dict(t.received)
    swapped[a], swapped[b] = [_renumbered(t.received[b][0], a)], [_renumbered(t.received[a][0], b)]
    assert check_game(TABLE, t.records, t.viewer, swapped).mismatched == 2


def _renumbered(envelope: common_pb2.EventEnvelope, number: int) -> common_pb2.EventEnvelope:
    out = common_pb2.EventEnvelope()
    out.CopyFrom(envelope)
    out.event_number = number
    return out


def test_a_concentration_flip_received_with_another_face_than_the_logs_is_mismatched() -> None:
    t = table(registry.by_slug("concentration"), 3)
    flips = [
        n
        for n, (e,) in t.received.items()
        if e.HasField("concentration") and e.concentration.HasField("card_flipped")
    ]
    assert flips, "the random game flipped no card"
    changed = dict(t.received)
    envelope = _renumbered(t.received[flips[0]][0], flips[0])
    envelope.concentration.card_flipped.face += "?"
    changed[flips[0]] = [envelope]
    check = check_game(TABLE, t.records, t.viewer, changed)
    assert (check.mismatched, check.lost) == (1, 0)
    assert check.game == "concentration"
