"""Domain events of the race <-> ``match.v1.RaceEvent``, by the names the contract test pins.

The proto mirrors the dataclasses field for field (tests/proto/test_contract.py), so one generic
mapping serves every event: enums by member name, tuples as repeated fields, frozensets sorted.
"""

from __future__ import annotations

import re
import typing
from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any

from google.protobuf.message import Message

from match.v1 import race_pb2
from match_rules.race import events as ev
from match_rules.race.view import OpponentMoved

_ENUMS: dict[type[Enum], tuple[Any, str]] = {
    ev.Outcome: (race_pb2.RaceEvent.Outcome, "OUTCOME_"),
    ev.EndReason: (race_pb2.RaceEvent.EndReason, "END_REASON_"),
}
_CLASSES: dict[str, type] = {
    cls.__name__: cls for cls in (*typing.get_args(ev.Event), OpponentMoved)
}


@cache
def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(ev))


def _fill(msg: Message, obj: Any) -> None:
    for name in _names(type(obj)):
        value = getattr(obj, name)
        if value is None:
            continue
        if isinstance(value, Enum):
            wire, prefix = _ENUMS[type(value)]
            setattr(msg, name, wire.Value(prefix + value.name))
        elif isinstance(value, tuple | frozenset):
            items = sorted(value) if isinstance(value, frozenset) else value
            target = getattr(msg, name)
            for item in items:
                if is_dataclass(item):
                    _fill(target.add(), item)
                else:
                    target.append(item)
        else:
            setattr(msg, name, value)


def to_proto(event: ev.Event | OpponentMoved) -> race_pb2.RaceEvent:
    name = type(event).__name__
    out = race_pb2.RaceEvent()
    _fill(getattr(out, _snake(name)), event)
    return out


def _read(msg: Message, cls: type) -> Any:
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        hint = hints[f.name]
        value = getattr(msg, f.name)
        origin = typing.get_origin(hint)
        if isinstance(hint, type) and issubclass(hint, Enum):
            wire, prefix = _ENUMS[hint]
            kwargs[f.name] = hint[wire.Name(value).removeprefix(prefix)]
        elif origin is frozenset:
            kwargs[f.name] = frozenset(value)
        elif origin is tuple:
            (item, *_) = typing.get_args(hint)
            if is_dataclass(item):
                kwargs[f.name] = tuple(_read(v, item) for v in value)  # type: ignore[arg-type]
            else:
                kwargs[f.name] = tuple(value)
        else:
            kwargs[f.name] = value
    return cls(**kwargs)


def from_proto(msg: race_pb2.RaceEvent) -> ev.Event | OpponentMoved:
    which = msg.WhichOneof("event")
    if which is None:
        raise ValueError("a RaceEvent with no event set")
    body = getattr(msg, which)
    cls = _CLASSES[body.DESCRIPTOR.name]
    result: ev.Event | OpponentMoved = _read(body, cls)
    return result
