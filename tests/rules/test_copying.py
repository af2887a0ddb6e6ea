"""match_rules.copying.replace is dataclasses.replace, faster: the same copy of every state of
every game, the same refusals, and dataclasses.replace itself for a class it cannot copy."""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from match_rules import copying, registry
from tests.games.harness import play

GAMES = registry.slugs()


def _reachable(value: Any) -> Iterator[Any]:
    """Every dataclass instance inside ``value`` (itself included), through fields, tuples,
    lists, sets and mappings."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            yield item
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (tuple, list, frozenset, set)):
            stack.extend(item)


def _states(slug: str, games: int) -> list[Any]:
    game = registry.by_slug(slug)
    states: list[Any] = []
    for n in range(games):
        run = play(game, bytes([n]) * 32, random.Random(f"{slug}-{n}"))
        states.extend(after for step in run.steps for _, after in step)
    return states


@pytest.mark.parametrize("slug", GAMES)
def test_every_state_of_a_game_is_copied_as_dataclasses_replace_copies_it(slug: str) -> None:
    """Each dataclass met in random games, each field changed to the value the same field has
    in another instance of its class (or to itself), and nothing changed: equal copies of the
    same class, and never the instance itself."""
    instances: dict[type, list[Any]] = {}
    for state in _states(slug, 3):
        for obj in _reachable(state):
            instances.setdefault(type(obj), []).append(obj)
    assert instances, "the random games met no dataclass"
    checked = 0
    for cls, objs in instances.items():
        names = [f.name for f in dataclasses.fields(cls)]
        for i, obj in enumerate(objs[:40]):
            other = objs[(i * 7 + 3) % len(objs)]
            cases: list[dict[str, Any]] = [{}]
            cases += [{name: getattr(other, name)} for name in names]
            cases.append({name: getattr(other, name) for name in names[::2]})
            for changes in cases:
                ours = copying.replace(obj, **changes)
                theirs = dataclasses.replace(obj, **changes)
                assert type(ours) is cls and ours is not obj
                assert ours == theirs, (cls.__name__, changes)
                for name in names:
                    assert getattr(ours, name) is getattr(theirs, name), (cls.__name__, name)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("slug", GAMES)
def test_a_game_folded_with_either_replace_reaches_the_same_states(
    slug: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's evolve as it runs (with copying.replace) and with dataclasses.replace put back:
    the same random games reach equal states after every event."""
    module = importlib.import_module(f"match_rules.{_package(slug)}.state")
    assert module.replace is copying.replace, "the state module does not use copying.replace"
    fast = _states(slug, 2)
    monkeypatch.setattr(module, "replace", dataclasses.replace)
    slow = _states(slug, 2)
    assert len(fast) == len(slow) > 10
    assert fast == slow


def _package(slug: str) -> str:
    return registry.by_slug(slug).__class__.__module__.split(".")[1]


def test_an_unknown_field_is_refused_as_dataclasses_refuses_it() -> None:
    @dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 0

    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        copying.replace(Point(1), z=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        dataclasses.replace(Point(1), z=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
        copying.replace(Point(1), x=2, w=3)
    assert copying.replace(Point(1), y=5) == Point(1, 5)


@dataclass
class _Checked:
    n: int

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError("n must not be negative")


@dataclass(frozen=True)
class _Derived:
    n: int
    double: int = field(init=False, default=0)


@dataclass(frozen=True)
class _WithClassVar:
    n: int
    kind: ClassVar[str] = "x"


class _Subclass(_WithClassVar):
    def __init__(self, n: int) -> None:
        object.__setattr__(self, "n", n * 10)


def test_a_class_it_cannot_copy_goes_through_dataclasses_replace() -> None:
    """A __post_init__ runs (and refuses), an init=False field is left to __init__, a
    ClassVar and a subclass with its own __init__ are dataclasses.replace's to handle."""
    with pytest.raises(ValueError, match="negative"):
        copying.replace(_Checked(1), n=-1)
    derived = _Derived(2)
    object.__setattr__(derived, "double", 4)
    assert copying.replace(derived, n=3).double == 0  # as dataclasses.replace leaves it
    assert copying.replace(_WithClassVar(1), n=2) == _WithClassVar(2)
    assert copying.replace(_Subclass(1), n=2).n == 20  # its own __init__ ran
