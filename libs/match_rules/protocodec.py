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


# How a value is written (Codec.fill), by its type: decided once per type.
_PLAIN, _ENUM, _MANY, _NESTED = range(4)
# How a field is read (Codec.read), by the field's hint: decided once per class.
_R_PLAIN, _R_ENUM, _R_FROZENSET, _R_TUPLE, _R_TUPLE_OF, _R_NESTED = range(6)


@cache
def _kind(cls: type) -> int:
    """How :meth:`Codec.fill` writes a value of type ``cls``."""
    if issubclass(cls, Enum):
        return _ENUM
    if issubclass(cls, tuple | frozenset):
        return _MANY
    if is_dataclass(cls):
        return _NESTED
    return _PLAIN


class Codec:
    """Maps the dataclasses ``classes`` to and from the oneof message ``wire`` (for instance
    ``RaceEvent``), with ``enums``: Python enum -> (proto enum wrapper, prefix).

    What each class's fields are, and how each is read, is worked out once per class (a
    *plan*), not on every event: the codec is on every turn's path, in the referee and the
    lobby (tools/codec_cost.py times it)."""

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
        self._to_wire: dict[Enum, int] = {}
        self._from_wire: dict[type, dict[int, Enum]] = {}
        self._plans: dict[type, tuple[tuple[str, bool, int, Any], ...]] = {}

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
            kind = _kind(value.__class__)
            if kind == _PLAIN:
                setattr(msg, name, value)
            elif kind == _ENUM:
                setattr(msg, name, self._wire_value(value))
            elif kind == _MANY:
                items = sorted(value) if isinstance(value, frozenset) else value
                target = getattr(msg, name)
                for item in items:
                    if _kind(item.__class__) == _NESTED:
                        self.fill(target.add(), item)
                    else:
                        target.append(item)
            else:
                self.fill(getattr(msg, name), value)

    def _wire_value(self, value: Enum) -> int:
        number = self._to_wire.get(value)
        if number is None:
            wire, prefix = self.enums[type(value)]
            number = self._to_wire[value] = wire.Value(prefix + value.name)
        return number

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
        plan = self._plans.get(cls)
        if plan is None:
            plan = self._plans[cls] = self._plan(msg, cls)
        kwargs: dict[str, Any] = {}
        for name, optional, kind, arg in plan:
            if optional and not msg.HasField(name):
                kwargs[name] = None
                continue
            value = getattr(msg, name)
            if kind == _R_PLAIN:
                kwargs[name] = value
            elif kind == _R_ENUM:
                kwargs[name] = self._enum(arg, value)
            elif kind == _R_FROZENSET:
                kwargs[name] = frozenset(value)
            elif kind == _R_TUPLE:
                kwargs[name] = tuple(value)
            elif kind == _R_TUPLE_OF:
                kwargs[name] = tuple(self.read(v, arg) for v in value)
            else:
                kwargs[name] = self.read(value, arg)
        return cls(**kwargs)

    def _plan(self, msg: Message, cls: type) -> tuple[tuple[str, bool, int, Any], ...]:
        """How each field of ``cls`` is read from its message: (name, read as None when unset,
        kind, the enum or the nested class)."""
        hints = _hints(cls)
        descriptor = msg.DESCRIPTOR.fields_by_name
        plan = []
        for f in fields(cls):
            hint = hints[f.name]
            bare = _strip_none(hint)
            optional = bare is not hint and descriptor[f.name].has_presence
            origin = typing.get_origin(bare)
            kind: int
            arg: Any = None
            if isinstance(bare, type) and issubclass(bare, Enum):
                kind, arg = _R_ENUM, bare
            elif origin is frozenset:
                kind = _R_FROZENSET
            elif origin is tuple:
                (item, *_) = typing.get_args(bare)
                kind, arg = (_R_TUPLE_OF, item) if is_dataclass(item) else (_R_TUPLE, None)
            elif is_dataclass(bare):
                kind, arg = _R_NESTED, bare
            else:
                kind = _R_PLAIN
            plan.append((f.name, optional, kind, arg))
        return tuple(plan)

    def _enum(self, cls: type[Enum], value: int) -> Enum:
        members = self._from_wire.get(cls)
        if members is None:
            wire, prefix = self.enums[cls]
            names = wire.keys()  # a member the wire has no name for is never read
            members = self._from_wire[cls] = {
                wire.Value(prefix + m.name): m for m in cls if prefix + m.name in names
            }
        member = members.get(value)
        if member is None:  # not a number of this enum: as the wire's own lookup refuses it
            wire, prefix = self.enums[cls]
            return cls[wire.Name(value).removeprefix(prefix)]
        return member
