"""Events of MATCH 5: what happened, stamped with the referee's ``at``.

A link is its author's alone until the reading reaches its combination: :class:`LinkWritten`
and :class:`LinkErased` go to the author only, everybody else gets :class:`WritingProgress`
(how many links they have, never which or what). From :class:`CombinationOpened` on, that
combination's links are everybody's. Votes, "Match!" calls and results are public.

Ballots are numbered 1, 2, ... through the game: one per link read, one per "Match!" called.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.match_five.settings import Settings


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The table chose one die of each colour (and its word tile)."""

    at: int
    players: tuple[str, ...]
    settings: Settings
    deal_version: str
    dice: tuple[int, ...]  # the die (1 or 2) of each colour, in content.COLOURS order


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """The dice are rolled (round 2: the tiles flipped first) and the sand timer turned."""

    at: int
    round: int
    faces: tuple[int, ...]  # each colour's die face, 1..6
    categories: tuple[str, ...]  # each colour's category
    writing_ends_at: int


@dataclass(frozen=True, slots=True)
class LinkWritten:
    """``player`` wrote ``text`` (exactly as typed) for ``combination`` (replacing any link
    they had there). Sent to ``player`` only."""

    at: int
    player: str
    round: int
    combination: int
    text: str


@dataclass(frozen=True, slots=True)
class LinkErased:
    """``player`` erased their link for ``combination``. Sent to ``player`` only."""

    at: int
    player: str
    round: int
    combination: int


@dataclass(frozen=True, slots=True)
class WritingProgress:
    """What another player's writing shows you: how many links they have this round."""

    at: int
    player: str
    links: int


@dataclass(frozen=True, slots=True)
class PlayerDone:
    """``player`` is done: with writing (before the reading), or with the open combination."""

    at: int
    player: str
    round: int
    combination: int  # 0: done writing


@dataclass(frozen=True, slots=True)
class ReadLink:
    """One link as the reading shows it: its ballot, author and text; ``group`` > 0 names the
    links of this combination that are equal after normalising (the server's proposed match)."""

    ballot: int
    player: str
    text: str
    group: int


@dataclass(frozen=True, slots=True)
class CombinationOpened:
    """The reading reaches ``combination``: its links, everybody's, and the vote's timer."""

    at: int
    round: int
    combination: int
    links: tuple[ReadLink, ...]
    votes_end_at: int


@dataclass(frozen=True, slots=True)
class VoteCast:
    """``player`` accepts (``accept``) or contests the link of ``ballot``; on a "Match!"
    ballot, agrees or not that the two links match."""

    at: int
    player: str
    ballot: int
    accept: bool


@dataclass(frozen=True, slots=True)
class MatchCalled:
    """``player`` called "Match!" on the link of ``target`` (another player's, the server did
    not pair it with theirs, ``own``): the table votes on it as ``ballot``."""

    at: int
    player: str
    ballot: int
    own: int  # the ballot of the caller's link
    target: int


@dataclass(frozen=True, slots=True)
class BallotResult:
    """How a ballot ended: ``accepted`` (a link accepted; a "Match!" agreed), with the votes
    counted; ``author_ignored``: a tie on a link, settled without its author's vote."""

    ballot: int
    accepted: bool
    accepts: int
    contests: int
    author_ignored: bool


@dataclass(frozen=True, slots=True)
class LinkScore:
    """What one link scored: 2 accepted and matching, 1 accepted, 0 refused."""

    ballot: int
    player: str
    matching: bool
    points: int


@dataclass(frozen=True, slots=True)
class CombinationClosed:
    """The vote on ``combination`` is over (its timer, or everybody done): every ballot's
    result and every link's points."""

    at: int
    round: int
    combination: int
    results: tuple[BallotResult, ...]
    scores: tuple[LinkScore, ...]


@dataclass(frozen=True, slots=True)
class PlayerScore:
    player: str
    points: int  # this round
    matching: int  # matching links this round
    total: int  # the game so far


@dataclass(frozen=True, slots=True)
class RoundScored:
    """Every link of the round was read: each player's score box for it."""

    at: int
    round: int
    scores: tuple[PlayerScore, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    place: int  # by points, then matching links; equal players share the place
    points: int
    matching: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """Both rounds are scored: the standings, best first."""

    at: int
    standings: tuple[Standing, ...]


PRIVATE_EVENTS = (LinkWritten, LinkErased)

Event = (
    GameStarted
    | RoundStarted
    | LinkWritten
    | LinkErased
    | PlayerDone
    | CombinationOpened
    | VoteCast
    | MatchCalled
    | CombinationClosed
    | RoundScored
    | GameEnded
)
