"""Commands of Match Cards. Every command carries ``now``: the referee's clock on arrival."""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.match_cards.settings import Settings


@dataclass(frozen=True, slots=True)
class StartGame:
    """Every seat is taken: each player gets their own copy of the deal."""

    now: int
    players: tuple[str, ...]
    settings: Settings
    deal_version: str


@dataclass(frozen=True, slots=True)
class TurnCard:
    """A player turns one of their hidden cards."""

    now: int
    player: str
    card: int  # 1..cards


@dataclass(frozen=True, slots=True)
class TurnOffNotice:
    """Hard: "Don't show this again in this game" for the Same/Different pictures notice."""

    now: int
    player: str


@dataclass(frozen=True, slots=True)
class Tick:
    """Let time pass: the compares (and the cap) due by ``now`` fire when they were due."""

    now: int


Command = StartGame | TurnCard | TurnOffNotice | Tick
