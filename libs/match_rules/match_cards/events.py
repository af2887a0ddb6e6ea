"""Events of Match Cards: what happened, stamped with the referee's ``at``.

A player's own events (:data:`PRIVATE_EVENTS`) name their cards and pictures and go to that
player only; everybody else gets :class:`OpponentProgress` in their place (counts, never a card
or a picture: :mod:`match_rules.match_cards.view`). No event names the picture of a card nobody
turned; the layout is never in the log (the seed, published at the end, re-deals it).
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.match_cards.settings import Settings


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Each player's copy of the deal is laid face down; the clock starts."""

    at: int
    players: tuple[str, ...]
    settings: Settings
    deal_version: str
    limit: int  # failed attempts that lose the game
    ends_at: int  # the cap: whoever has not finished by then has lost


@dataclass(frozen=True, slots=True)
class CardTurned:
    """``player`` turned ``card`` on their copy: it shows ``picture``. The last card of an
    attempt sets ``compare_at``, 1.5 s later, when the attempt's cards are compared."""

    at: int
    player: str
    card: int
    picture: str
    compare_at: int | None


@dataclass(frozen=True, slots=True)
class GroupFound:
    """The attempt's cards show the same picture: they stay up. ``notice``: the Hard notice
    ("Same picture") is shown for it."""

    at: int
    player: str
    cards: tuple[int, ...]
    groups: int  # the player's groups found so far
    notice: bool


@dataclass(frozen=True, slots=True)
class AttemptFailed:
    """The attempt's cards differ: they turn face down in place. ``notice``: the Hard notice
    ("Different pictures") is shown for it."""

    at: int
    player: str
    cards: tuple[int, ...]
    failed: int  # the player's failed attempts so far
    notice: bool


@dataclass(frozen=True, slots=True)
class NoticeTurnedOff:
    """``player`` turned the Hard notice off for the rest of the game."""

    at: int
    player: str


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """``player``'s game is over: ``won`` (the last group found), else lost (the limit of failed
    attempts reached, or the cap). Public: counts only."""

    at: int
    player: str
    won: bool
    groups: int
    failed: int
    time_ms: int


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    place: int  # by groups found, then fewer failed attempts, then less time; ties share
    won: bool
    groups: int
    failed: int
    time_ms: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """Every player has finished. ``code``: the game's code, published now (anyone may replay
    it). ``replay``: the game was started from a typed code, so it is never ranked."""

    at: int
    standings: tuple[Standing, ...]
    code: str
    replay: bool


@dataclass(frozen=True, slots=True)
class OpponentProgress:
    """What another player's private event shows you: their counts, never a card or picture."""

    at: int
    player: str
    turned: int  # cards up in their current attempt
    groups: int
    failed: int


PRIVATE_EVENTS = (CardTurned, GroupFound, AttemptFailed, NoticeTurnedOff)

Event = (
    GameStarted
    | CardTurned
    | GroupFound
    | AttemptFailed
    | NoticeTurnedOff
    | PlayerFinished
    | GameEnded
)
