"""Domain dataclasses <-> protobuf messages, by name: one mapping for every game's events.

A game's proto mirrors its event dataclasses field for field (tests/proto/test_contract.py pins
that), and its events message has one oneof member per event class, named in snake case
(``GameStarted`` -> ``game_started``). So a :class:`Codec` needs only the event classes, the
oneof message and how each Python enum is spelled on the wire:

- an enum by member name, with the proto enum's prefix (``Outcome.CLEARED`` -> ``OUTCOME_CLEARED``);
- a tuple as a repeated field, a frozenset as a sorted repeated field;
- a nested dataclass (a tuple of them, or one) as a message;
- ``None`` as an unset field: read back as ``None`` where the proto field has presence
  (``optional``, a message), else as the field's zero value.

Pure: no I/O. It lives beside the rules because every game's package uses it.
"""

from __future__ import annotations

import re
import sys
import types
import typing
from collections.abc import Iterable
from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any

from google.protobuf.message import Message


@cache
def snake(name: str) -> str:
    """``GameStarted`` -> ``game_started``: the oneof member that holds a class."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _strip_none(hint: Any) -> Any:
    """``X | None`` -> ``X``; anything else as it is."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


class Codec:
    """Maps the dataclasses ``classes`` to and from the oneof message ``wire`` (for instance
    ``RaceEvent``), with ``enums``: Python enum -> (proto enum wrapper, prefix)."""

    # Each game builds its codec once, as its module is imported: before mutmut's runner makes
    # any mutant active, so none here could be seen (docs/testing.md); every event's round trip
    # is tested per game.
    def __init__(
        self,
        wire: type[Message],
        classes: Iterable[type],
        enums: dict[type[Enum], tuple[Any, str]] | None = None,
        oneof: str = "event",
    ) -> None:  # pragma: no mutate block
        self.wire = wire
        self.oneof = oneof
        self.enums = dict(enums or {})
        self.classes = {cls.__name__: cls for cls in classes}

    # --- to the wire ---------------------------------------------------------------------

    def to_proto(self, obj: Any) -> Any:
        out = self.wire()
        self.fill(getattr(out, snake(type(obj).__name__)), obj)
        return out

    def fill(self, msg: Message, obj: Any) -> None:
        """Write the dataclass ``obj`` into ``msg``, field by field."""
        names = _names(obj.__class__)
        if not names:  # an event with no field still selects its oneof member
            msg.SetInParent()
        for name in names:
            value = getattr(obj, name)
            if value is None:
                continue
            if isinstance(value, Enum):
                wire, prefix = self.enums[type(value)]
                setattr(msg, name, wire.Value(prefix + value.name))
            elif isinstance(value, tuple | frozenset):
                items = sorted(value) if isinstance(value, frozenset) else value
                target = getattr(msg, name)
                for item in items:
                    if is_dataclass(item):
                        self.fill(target.add(), item)
                    else:
                        target.append(item)
            elif is_dataclass(value):
                self.fill(getattr(msg, name), value)
            else:
                setattr(msg, name, value)

    # --- from the wire -------------------------------------------------------------------

    def from_proto(self, msg: Message) -> Any:
        which = msg.WhichOneof(self.oneof)
        if which is None:
            raise ValueError(f"a {type(msg).__name__} with no {self.oneof} set")
        body = getattr(msg, which)
        cls = self.classes.get(body.DESCRIPTOR.name)
        if cls is None:
            raise ValueError(f"{body.DESCRIPTOR.name} is not one of this game's classes")
        return self.read(body, cls)

    def read(self, msg: Message, cls: type) -> Any:
        """The dataclass ``cls`` read from ``msg``."""
        hints = _hints(cls)
        kwargs: dict[str, Any] = {}
        descriptor = msg.DESCRIPTOR.fields_by_name
        for f in fields(cls):
            hint = hints[f.name]
            bare = _strip_none(hint)
            field = descriptor[f.name]
            if bare is not hint and field.has_presence and not msg.HasField(f.name):
                kwargs[f.name] = None
                continue
            value = getattr(msg, f.name)
            origin = typing.get_origin(bare)
            if isinstance(bare, type) and issubclass(bare, Enum):
                wire, prefix = self.enums[bare]
                kwargs[f.name] = bare[wire.Name(value).removeprefix(prefix)]
            elif origin is frozenset:
                kwargs[f.name] = frozenset(value)
            elif origin is tuple:
                (item, *_) = typing.get_args(bare)
                if is_dataclass(item):
                    kwargs[f.name] = tuple(self.read(v, item) for v in value)  # type: ignore[arg-type]
                else:
                    kwargs[f.name] = tuple(value)
            elif is_dataclass(bare):
                kwargs[f.name] = self.read(value, bare)  # type: ignore[arg-type]
            else:
                kwargs[f.name] = value
        return cls(**kwargs)
