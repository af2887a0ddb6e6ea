"""The games a chaos run plays, by the name the run reports each one by (the web client's page
name: ``race``, ``match-cards``), and how each seats its scripted players at a new table.

This is the run's one list of the games: :mod:`match_chaos.run` plays them in turn and names
them in its report from here, so a new game joins the run by one entry (its player lives in
``match_chaos/<slug>.py``)."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from match.v1 import concentration_pb2
from match_bus.clock import Clock
from match_chaos import match_cards, match_five, number_match
from match_chaos.player import ChaosPlayer, ChaosSeat, ConcentrationChaosPlayer


@dataclass(frozen=True, slots=True)
class Setup:
    """What a table of the run is made from."""

    addr: str
    name: str  # the host's display name; the others' add a letter
    clock: Clock
    rng: random.Random
    challenge: bool  # whether a game with solo and challenge tables makes a challenge one
    ready_window_ms: int


@dataclass(frozen=True, slots=True)
class Seated:
    """A table about to be played: its seats, the scripted players and the game they play."""

    seats: int
    players: list[ChaosSeat]
    play: Awaitable[None]


@dataclass(frozen=True, slots=True)
class ChaosGame:
    name: str  # what the run calls it
    slug: str  # the rules' slug (match_rules.registry)
    seat: Callable[[Setup], Seated]


def concentration_settings(rng: random.Random) -> concentration_pb2.ConcentrationSettings:
    """A small emoji deck (24 or 36 cards), with no turn limit or the 30 s one."""
    return concentration_pb2.ConcentrationSettings(
        cards=rng.choice((24, 36)), turn_limit_ms=rng.choice((0, 30_000))
    )


def _race(s: Setup) -> Seated:
    seats = s.rng.choice((2, 3))
    race = ChaosPlayer(s.addr, s.name, s.clock, s.rng)
    return Seated(seats, [race], race.play_game(seats, s.ready_window_ms))


def _concentration(s: Setup) -> Seated:
    seats = s.rng.choice((2, 3))
    player = ConcentrationChaosPlayer(s.addr, s.name, s.clock, s.rng)
    # Away once, for 0.2-0.8 s of wall time (2-8 s of game time at rate 10, well under the
    # CPU's 30 s takeover), then back: the presence path under failover.
    player.drop_after, player.drop_for_s = s.rng.randint(8, 40), s.rng.uniform(0.2, 0.8)
    return Seated(seats, [player], player.play_game(seats, concentration_settings(s.rng)))


def _match_cards(s: Setup) -> Seated:
    seats = s.rng.choice((2, 3)) if s.challenge else 1
    player = match_cards.MatchCardsChaosPlayer(s.addr, s.name, s.clock, s.rng)
    return Seated(seats, [player], player.play_game(seats, match_cards.settings(s.rng)))


def _number_match(s: Setup) -> Seated:
    player = number_match.NumberMatchChaosPlayer(s.addr, s.name, s.clock, s.rng)
    return Seated(1, [player], player.play_game(number_match.settings(s.rng)))


def _match_five(s: Setup) -> Seated:
    five = [
        match_five.MatchFiveChaosPlayer(s.addr, f"{s.name}{'abc'[n]}", s.clock, s.rng)
        for n in range(match_five.PLAYERS)
    ]
    return Seated(match_five.PLAYERS, list(five), match_five.play(five, match_five.settings(s.rng)))


GAMES = (
    ChaosGame("race", "race", _race),
    ChaosGame("concentration", "concentration", _concentration),
    ChaosGame("match-cards", "match_cards", _match_cards),
    ChaosGame("number-match", "number_match", _number_match),
    ChaosGame("match-5", "match_five", _match_five),
)
BY_NAME = {g.name: g for g in GAMES}
NAMES = tuple(g.name for g in GAMES)
