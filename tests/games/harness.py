"""What the conformance suite needs to know of each game, the shared part: the :class:`Harness`
each game gives (how to make a table, a plausible move, moves that must be refused, settings
that must be refused, and what a player may see) and the random game that drives it.

Each game's harness is ``HARNESS`` in tests/games/harness_<slug>.py; everything else in
tests/games/ is generic: it drives a game only through :class:`match_rules.game.Game`. A
registered game without a harness file fails the suite.

:func:`play` is a random game through the seam: a seeded ``random.Random`` picks moves, waits,
timers and presence changes; every accepted command is kept, so the same game can be replayed
elsewhere (tests/games/replay.py, in a fresh interpreter).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from google.protobuf.message import Message

from match_rules.errors import RuleError
from match_rules.game import Game, SeatInfo

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in unix ms


class Leaks(Protocol):
    """One viewer's leak check: fed every event as that viewer receives it (with the true,
    unredacted event beside it) and every snapshot they are sent; asserts on a leak."""

    def event(self, real: Any, wire: Message) -> None: ...

    def snapshot(self, view: Message) -> None: ...


# How many moves a player made, from the game's own state, and the least its rules page names
# for a game to count (``Results.moves`` and ``Results.rated_moves``).
CountedMoves = tuple[Callable[[Any, str], int], int]


class Harness(Protocol):
    slug: str
    seats: tuple[int, int]  # the fewest and most seats its seed allows, written by hand
    counted_moves: CountedMoves | None  # None for a solo game

    def tick_chance(self, state: Any) -> float:
        """How often the random game lets time run to the next deadline, in ``state``."""
        ...

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        """Settings (None: the defaults) and the seats of a random table."""
        ...

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        """A wire command a player might send now (it may well be refused)."""
        ...

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        """Wire commands the rules must refuse in ``state``, stamped at the state's clock."""
        ...

    def bad_settings(self) -> list[Message]:
        """Settings that make no game."""
        ...

    def leaks(self, deal: Message, viewer: str) -> Leaks: ...


def harness(slug: str) -> Harness:
    """The harness of the game ``slug``: ``HARNESS`` of tests/games/harness_<slug>.py."""
    try:
        module = importlib.import_module(f"tests.games.harness_{slug}")
    except ModuleNotFoundError as error:
        raise LookupError(
            f"tests/games/harness_{slug}.py is missing: {slug} has no harness"
        ) from error
    found: Harness = module.HARNESS
    return found


# --- a random game through the seam --------------------------------------------------------------


@dataclass
class Run:
    seed: bytes
    settings: Message
    deal: Message
    seats: list[SeatInfo]
    commands: list[Any] = field(default_factory=list)  # every accepted command, in order
    steps: list[list[tuple[Any, Any]]] = field(default_factory=list)  # (event, state after)
    states: list[Any] = field(default_factory=list)  # the state after each command
    refused: int = 0

    @property
    def players(self) -> list[str]:
        return [s.player for s in self.seats]

    @property
    def events(self) -> list[Any]:
        return [event for step in self.steps for event, _ in step]


def play(game: Game, seed: bytes, rng: random.Random, moves: int = 150) -> Run:
    """A random game of ``game`` from ``seed``; its choices come from ``rng`` alone."""
    rules = harness(game.slug)
    wire, seats = rules.table(game, rng)
    settings = game.settings(wire)
    deal = game.deal(seed, settings)
    run = Run(seed, settings, deal, seats)
    state = game.initial_state(deal)
    now = T0
    start = game.start(now, seats, settings, game.deal_version)
    for n in range(moves + 1):
        if n == 0:
            command = start
        elif game.is_terminal(state):
            break
        else:
            r = rng.random()
            due = game.next_deadline(state)
            wait = rules.tick_chance(state)
            if due is not None and r < wait:
                now = max(now, due + rng.choice([0, 0, 5_000]))
                command = game.tick(now)
            elif r < wait + 0.08:
                player = rng.choice(run.players)
                presence = game.presence(now, player, rng.random() < 0.5)
                if presence is None:
                    continue
                command = presence
            else:
                now += rng.choice([0, 50, 400, 2_000])
                try:
                    command = game.command(rules.move(game, state, run.players, rng), now)
                except RuleError:
                    run.refused += 1
                    continue
        try:
            steps = game.decide_steps(state, command)
        except RuleError:
            run.refused += 1
            continue
        for _, after in steps:
            state = after
        run.commands.append(command)
        run.steps.append(steps)
        run.states.append(state)
    if not game.is_terminal(state) and rng.random() < 0.5:
        command = game.tick(now + 24 * 3_600_000)  # a day later: whatever time alone does
        steps = game.decide_steps(state, command)
        run.commands.append(command)
        run.steps.append(steps)
        run.states.append(steps[-1][1] if steps else state)
    return run
