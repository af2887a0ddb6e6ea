"""The shape every game's rules take: a Decider.

``decide(state, command) -> events`` holds all judgement and raises
:class:`~match_rules.errors.RuleError` on a refusal; ``evolve(state, event) -> state`` only
records; ``is_terminal`` says when the game is over; ``next_deadline`` tells the shell when time
alone will change something, so that it can wake the game up with a tick. Other games plug in as
further Deciders beside :mod:`match_rules.race`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, Protocol, TypeVar

from match_rules.errors import Code, RuleError

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


class Log(Generic[S, E]):
    """What ``decide`` has decided so far: the events, and the state after each (the
    ``decide_steps`` every game's adapter returns)."""

    def __init__(self, state: S, evolve: Callable[[S, E], S]) -> None:
        self.state = state
        self.steps: list[tuple[E, S]] = []
        self._evolve = evolve

    def emit(self, event: E) -> None:
        self.state = self._evolve(self.state, event)
        self.steps.append((event, self.state))


def in_time(now: int, clock: int, tick: bool) -> bool:
    """Whether a command stamped ``now`` is judged on a state whose clock is ``clock``: a tick
    from before it has nothing left to do (False); any other command from before it is refused,
    since the referee's clock never runs backwards."""
    if now >= clock:
        return True
    if tick:
        return False
    raise RuleError(
        Code.STALE_TIME,
        f"the command is stamped {now}, before the game's latest event at {clock}; the "
        "referee's clock must not run backwards",
    )
