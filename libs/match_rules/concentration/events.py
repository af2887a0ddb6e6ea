"""Events of Concentration: what happened, in the past tense, stamped with the referee's ``at``.

Everything at the table is public: every flip is seen by everyone, so no event needs redacting.
No event names the face of a card nobody has flipped (the layout is never in the log; the seed
is published at the end and re-deals it). Timer events carry the instant they were due.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.concentration.settings import Settings


@dataclass(frozen=True, slots=True)
class GameStarted:
    at: int
    players: tuple[str, ...]  # in turn order
    cpus: frozenset[str]
    settings: Settings
    deal_version: str


@dataclass(frozen=True, slots=True)
class TurnBegan:
    """``player`` is to flip; time alone ends the wait at ``deadline`` (None: no limit)."""

    at: int
    player: str
    deadline: int | None


@dataclass(frozen=True, slots=True)
class CardFlipped:
    at: int
    player: str
    card: int
    face: str


@dataclass(frozen=True, slots=True)
class SecondCardDue:
    """The first card is up: the second must come by ``deadline`` (None: no limit)."""

    at: int
    player: str
    deadline: int | None


@dataclass(frozen=True, slots=True)
class PairTaken:
    """The two cards pair: ``player`` keeps them (``pairs`` in all) and flips again."""

    at: int
    player: str
    cards: tuple[int, int]
    pairs: int
    tries: int


@dataclass(frozen=True, slots=True)
class AttemptMissed:
    """The two cards do not pair: everybody sees them until ``turn_down_at``."""

    at: int
    player: str
    cards: tuple[int, int]
    tries: int
    turn_down_at: int


@dataclass(frozen=True, slots=True)
class CardsTurnedDown:
    at: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TimeRanOut:
    """The turn's time ran out: ``card`` (the first one, if any) went back down. Running out on
    the second card counts a try (``tries``), as the seed says; on the first, nothing was tried."""

    at: int
    player: str
    card: int | None
    tries: int


@dataclass(frozen=True, slots=True)
class PlayerDropped:
    """``player``'s connection dropped: the CPU takes the seat at ``takeover_at`` unless they
    come back before."""

    at: int
    player: str
    takeover_at: int


@dataclass(frozen=True, slots=True)
class PlayerReturned:
    """A dropped player came back before the CPU took their seat."""

    at: int
    player: str


@dataclass(frozen=True, slots=True)
class SeatHandedToCpu:
    """The CPU plays ``player``'s seat from now on (shown to everyone)."""

    at: int
    player: str


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    place: int  # 1 for everybody tied for the most pairs
    pairs: int
    tries: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """Every card is taken. ``draw``: two or more players and every one tied (ranked play
    counts a draw as half a win); ``winners``: everyone in first place."""

    at: int
    standings: tuple[Standing, ...]
    winners: tuple[str, ...]
    draw: bool


Event = (
    GameStarted
    | TurnBegan
    | CardFlipped
    | SecondCardDue
    | PairTaken
    | AttemptMissed
    | CardsTurnedDown
    | TimeRanOut
    | SeatHandedToCpu
    | GameEnded
    | PlayerDropped
    | PlayerReturned
)
