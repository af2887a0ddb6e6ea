"""Commands of Concentration. Every command carries ``now``: the referee's clock on arrival.

The CPU players have no command: the rules play them when a Tick reaches their next flip
(:func:`match_rules.concentration.decide.next_deadline`).
"""

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
    """A person flips a card (the CPU's flips come from a Tick)."""

    now: int
    player: str
    card: int  # 1..deck size


@dataclass(frozen=True, slots=True)
class PlayerAway:
    """The lobby saw the player's last connection to the table end."""

    now: int
    player: str


@dataclass(frozen=True, slots=True)
class PlayerBack:
    """The lobby saw the player connect to the table again."""

    now: int
    player: str


@dataclass(frozen=True, slots=True)
class Tick:
    """Let time pass: fires everything due by ``now`` (a miss turning down, a turn's time, a
    takeover, a CPU's flip), each at the instant it was due."""

    now: int


Command = StartGame | FlipCard | PlayerAway | PlayerBack | Tick
