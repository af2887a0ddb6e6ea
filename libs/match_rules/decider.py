"""The shape every game's rules take: a Decider.

``decide(state, command) -> events`` holds all judgement and raises
:class:`~match_rules.errors.RuleError` on a refusal; ``evolve(state, event) -> state`` only
records; ``is_terminal`` says when the game is over; ``next_deadline`` tells the shell when time
alone will change something, so that it can wake the game up with a tick. Other games plug in as
further Deciders beside :mod:`match_rules.race`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

S = TypeVar("S")
C = TypeVar("C", contravariant=True)
E = TypeVar("E")


class Decider(Protocol[S, C, E]):
    def decide(self, state: S, command: C) -> list[E]: ...

    def evolve(self, state: S, event: E) -> S: ...

    def is_terminal(self, state: S) -> bool: ...

    def next_deadline(self, state: S) -> int | None: ...


def fold(decider: Decider[S, C, E], state: S, events: Iterable[E]) -> S:
    """Re-apply recorded events: how the referee rebuilds a table and an auditor replays one."""
    for event in events:
        state = decider.evolve(state, event)
    return state
