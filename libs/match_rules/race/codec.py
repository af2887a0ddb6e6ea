"""The race's events <-> ``match.v1.RaceEvent``, by the names the contract test pins."""

from __future__ import annotations

import typing

from match.v1 import race_pb2
from match_rules.protocodec import Codec
from match_rules.race import events as ev
from match_rules.race.view import OpponentMoved

CODEC = Codec(
    race_pb2.RaceEvent,
    (*typing.get_args(ev.Event), OpponentMoved),
    {
        ev.Outcome: (race_pb2.RaceEvent.Outcome, "OUTCOME_"),
        ev.EndReason: (race_pb2.RaceEvent.EndReason, "END_REASON_"),
    },
)


def to_proto(event: ev.Event | OpponentMoved) -> race_pb2.RaceEvent:
    result: race_pb2.RaceEvent = CODEC.to_proto(event)
    return result


def from_proto(msg: race_pb2.RaceEvent) -> ev.Event | OpponentMoved:
    result: ev.Event | OpponentMoved = CODEC.from_proto(msg)
    return result
