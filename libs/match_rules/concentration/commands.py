"""Commands of Concentration. Every command carries ``now``: the referee's clock on arrival."""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.concentration.settings import Settings


@dataclass(frozen=True, slots=True)
class StartGame:
    """Seat the players in turn order and lay the cards (the host starts the table)."""

    now: int
    players: tuple[str, ...]
    cpus: frozenset[str]  # seats the CPU plays from the start
    settings: Settings
    deal_version: str


@dataclass(frozen=True, slots=True)
class FlipCard:
    now: int
    player: str
    card: int  # 1..deck size
    by_cpu: bool = False  # the CPU moving for a seat it plays (the shell's policy)


@dataclass(frozen=True, slots=True)
class HandToCpu:
    """The player dropped and did not come back in time: the CPU plays their seat from now on
    (the shell decides when; docs/rules-concentration.md says how long it waits)."""

    now: int
    player: str


@dataclass(frozen=True, slots=True)
class Tick:
    """Let time pass: fires every deadline due at ``now`` (a miss turning down, a turn's time)."""

    now: int


Command = StartGame | FlipCard | HandToCpu | Tick
