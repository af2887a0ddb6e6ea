"""What each player may see: ``player_view`` and ``redact``.

A link is its author's alone until the reading reaches its combination. While writing, a player
sees their own links and, of the others, how many links each has (:class:`WritingProgress` in
place of their LinkWritten and LinkErased). From its CombinationOpened on, a combination's links
are everybody's, and so are the votes, the "Match!" calls and the results. A spectator (no
seat) sees what everybody sees, and no link of their own. The seed, only once the game is over
(the adapter's :class:`~match_rules.game.TableContext`).
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.match_five import events as ev
from match_rules.match_five.content import COLOURS, COMBINATIONS
from match_rules.match_five.settings import Settings
from match_rules.match_five.state import MatchFiveState, Phase

# A viewer's own vote on a ballot, as the view sends it.
NO_VOTE, ACCEPTED, CONTESTED = 0, 1, 2


@dataclass(frozen=True, slots=True)
class CombinationView:
    combination: int
    colours: tuple[str, ...]
    categories: tuple[str, ...]
    your_link: str  # "" without one


@dataclass(frozen=True, slots=True)
class PlayerView:
    player: str
    links: int  # this round: a count, what they are is theirs until read
    done: bool
    total: int  # the rounds scored


@dataclass(frozen=True, slots=True)
class BallotView:
    ballot: int
    player: str
    text: str
    group: int
    own: int
    target: int
    your_vote: int  # NO_VOTE, ACCEPTED or CONTESTED
    votes: int


@dataclass(frozen=True, slots=True)
class View:
    phase: Phase
    you: str
    settings: Settings
    round: int
    categories: tuple[str, ...]
    combinations: tuple[CombinationView, ...]
    deadline: int  # the sand timer, or the open combination's vote; 0 otherwise
    combination: int
    ballots: tuple[BallotView, ...]
    players: tuple[PlayerView, ...]
    closed: tuple[ev.CombinationClosed, ...]
    read: tuple[ev.CombinationOpened, ...]
    rounds: tuple[ev.RoundScored, ...]
    standings: tuple[ev.Standing, ...]


def _your_vote(state: MatchFiveState, ballot: int, viewer: str) -> int:
    vote = state.vote(ballot, viewer)
    return NO_VOTE if vote is None else ACCEPTED if vote else CONTESTED


def player_view(state: MatchFiveState, viewer: str) -> View:
    """The game as ``viewer`` (or anyone without a seat, "") may see it now."""
    started = state.round > 0
    # pragma: no mutate start (equivalent: no seat, no links)
    mine = state.links(viewer) if viewer in state.players else {}
    # pragma: no mutate end
    colour = {c: i for i, c in enumerate(COLOURS)}
    combinations = tuple(
        CombinationView(
            n,
            pair,
            tuple(state.categories[colour[c]] for c in pair),
            mine.get(n, ""),
        )
        for n, pair in enumerate(COMBINATIONS, start=1)
        if started
    )
    ballots = tuple(
        BallotView(
            b.ballot,
            b.player,
            b.text,
            b.group,
            b.own,
            b.target,
            _your_vote(state, b.ballot, viewer),
            sum(1 for v in state.votes if v.ballot == b.ballot),
        )
        for b in state.ballots
    )
    deadline = {Phase.WRITING: state.writing_ends_at, Phase.READING: state.votes_end_at}
    return View(
        phase=state.phase,
        you=viewer,
        settings=state.settings,
        round=state.round,
        categories=state.categories,
        combinations=combinations,
        deadline=deadline.get(state.phase, 0),
        combination=state.combination,
        ballots=ballots,
        players=tuple(
            PlayerView(p, len(state.links(p)), p in state.done, state.total(p))
            for p in state.players
        ),
        closed=state.closed,
        read=state.read,
        rounds=state.rounds,
        standings=state.standings,
    )


def redact(
    state_after: MatchFiveState, event: ev.Event | ev.WritingProgress, viewer: str
) -> ev.Event | ev.WritingProgress:
    """``event`` as ``viewer`` may receive it: a link written or erased goes to its author as
    it is; everybody else gets the author's count of links (:class:`~events.WritingProgress`).
    Idempotent: a WritingProgress is already what anybody may see."""
    if not isinstance(event, ev.PRIVATE_EVENTS) or event.player == viewer:
        return event
    return ev.WritingProgress(event.at, event.player, len(state_after.links(event.player)))
