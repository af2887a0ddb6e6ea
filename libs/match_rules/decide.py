"""The one decide step every game runs: a game's ``decide.py`` states its judgement as a
:class:`Rules` (how time passes, one handler per command), and :meth:`Rules.decide_steps` does
the rest the same way for all of them.

A command stamped before the game's latest event is refused (a tick from before it has nothing
left to do); then time passes up to the command's ``now`` (deadlines fire at the instant they
were due); then the command's handler judges it on that state, emitting events or raising
:class:`~match_rules.errors.RuleError`. A refusal changes nothing: the caller gets no event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from match_rules.errors import Code, RuleError


class Timed(Protocol):
    """A state or a command: it carries the referee's clock."""

    @property
    def now(self) -> int: ...


S = TypeVar("S", bound=Timed)
E = TypeVar("E")


class Log(Generic[S, E]):
    """What ``decide`` has decided so far: the events, and the state after each."""

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


@dataclass(frozen=True, slots=True)
class Rules(Generic[S, E]):
    """A game's decider: ``evolve`` only records; ``pass_time`` emits what time alone does up to
    an instant; ``handlers`` judge each command type (a ``tick`` has none: it only lets time
    pass); ``next_deadline`` says when time alone changes the game next, ``is_terminal`` when it
    is over. ``log`` is the game's :class:`Log` (a subclass may add helpers for its handlers)."""

    evolve: Callable[[S, E], S]
    pass_time: Callable[[Any, int], None]
    handlers: Mapping[type, Callable[[Any, Any], None]]
    tick: type  # the game's Tick command, made with the instant: ``Tick(now)``
    next_deadline: Callable[[S], int | None]
    is_terminal: Callable[[S], bool]
    log: Callable[[S, Callable[[S, E], S]], Log[S, E]] = Log

    def decide_steps(self, state: S, command: Timed) -> list[tuple[E, S]]:
        """``(event, state after it)`` for each event ``command`` causes: what folding the events
        with ``evolve`` gives, computed once (the shell needs those states to redact and to keep
        the table). Raises RuleError."""
        if not in_time(command.now, state.now, isinstance(command, self.tick)):
            return []
        log = self.log(state, self.evolve)
        self.pass_time(log, command.now)
        handler = self.handlers.get(type(command))  # a tick only lets time pass
        if handler is not None:
            handler(log, command)
        return log.steps

    def decide(self, state: S, command: Timed) -> list[E]:
        """The events ``command`` causes (:meth:`decide_steps` without the states)."""
        return [event for event, _ in self.decide_steps(state, command)]
