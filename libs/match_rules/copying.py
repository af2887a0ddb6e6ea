"""``replace``: :func:`dataclasses.replace`, the same result, in less than half the time.

Every game's ``evolve`` makes each new state with ``replace`` (a frozen dataclass changed in a
field or two), and the referee, each lobby's views and the players service all evolve every
event: ``dataclasses.replace`` was 4-5 % of the referee's CPU at full speed (py-spy,
docs/performance.md). It gathers every field into keyword arguments and calls the class's
``__init__``, which sets each field through ``object.__setattr__`` anyway; this sets them
directly, from a tuple of field names worked out once per class.

It is exactly ``dataclasses.replace`` for a dataclass whose every field is set by ``__init__``
and that has no ``__post_init__`` (every state of match_rules); for any other class it calls
``dataclasses.replace`` itself. An unknown field name is refused with the same TypeError.
``tests/rules/test_copying.py`` checks both against each other on every state class of every
game.

The states' modules import it as ``replace`` at run time only: mypy checks their calls against
``dataclasses.replace`` (its dataclass plugin knows each class's fields), so a misspelt field
is still caught before the tests run.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_FIELDS: dict[type, tuple[str, ...] | None] = {}  # None: not one this can copy


def _fields_of(cls: type) -> tuple[str, ...] | None:
    if "__dataclass_fields__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
        return None  # not a dataclass itself (a subclass of one may have its own __init__)
    every = dataclasses.fields(cls)
    if any(not f.init for f in every):
        return None
    declared = cls.__dict__["__dataclass_fields__"]  # fields() leaves out ClassVar, InitVar
    if len(every) != len(declared):  # a ClassVar or an InitVar: not copied
        return None
    return tuple(f.name for f in every)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the dataclass instance ``obj`` with ``changes`` (as dataclasses.replace)."""
    cls = type(obj)
    try:
        names = _FIELDS[cls]
    except KeyError:
        names = _FIELDS[cls] = _fields_of(cls)
    if names is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    new = object.__new__(cls)
    put = object.__setattr__
    taken = 0
    for name in names:
        if name in changes:
            put(new, name, changes[name])
            taken += 1
        else:
            put(new, name, getattr(obj, name))
    if taken != len(changes):
        unknown = sorted(set(changes) - set(names))
        raise TypeError(
            f"{cls.__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}"
        )
    return new
