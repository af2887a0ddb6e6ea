"""The state of one game of MATCH 5, and ``evolve``: it records, it never judges.

Everything a player may see comes from the events (the round's dice and categories, the links
as the reading shows them, the votes and results), so a projection folded from the log alone
shows the same table. Only the referee's state holds the deal (round 2's roll, before it is
made); only ``decide`` uses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING

from match_rules.match_five import events as ev
from match_rules.match_five.deal import Deal
from match_rules.match_five.settings import Settings

if TYPE_CHECKING:  # mypy checks each call's fields against dataclasses.replace
    from dataclasses import replace
else:  # the same, faster: match_rules.copying
    from match_rules.copying import replace

_DEFAULT = Settings()
Sheet = Mapping[tuple[int, int], str]  # (round, combination) -> the link, as written


class Phase(Enum):
    NOT_STARTED = "not_started"
    WRITING = "writing"
    READING = "reading"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Ballot:
    """One ballot of the open combination: a link read (``text``, ``group``), or a "Match!"
    called by ``player`` between their link ``own`` and the link ``target``."""

    ballot: int
    player: str  # the link's author, or the caller
    text: str = ""
    group: int = 0
    own: int = 0
    target: int = 0

    @property
    def is_call(self) -> bool:
        return self.own > 0


def _empty_sheets() -> Mapping[str, Sheet]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class MatchFiveState:
    deal: Deal | None = None  # the referee's only
    phase: Phase = Phase.NOT_STARTED
    now: int = 0
    players: tuple[str, ...] = ()
    settings: Settings = _DEFAULT
    deal_version: str = ""
    dice: tuple[int, ...] = ()
    round: int = 0
    faces: tuple[int, ...] = ()
    categories: tuple[str, ...] = ()
    writing_ends_at: int = 0
    sheets: Mapping[str, Sheet] = field(default_factory=_empty_sheets)  # every link, both rounds
    done: frozenset[str] = frozenset()  # done writing, or with the open combination
    combination: int = 0  # the open one (reading), else 0
    votes_end_at: int = 0
    ballots: tuple[Ballot, ...] = ()  # the open combination's, in ballot order
    votes: tuple[ev.VoteCast, ...] = ()  # on those ballots
    ballots_issued: int = 0  # the game's last ballot number
    read: tuple[ev.CombinationOpened, ...] = ()
    closed: tuple[ev.CombinationClosed, ...] = ()
    rounds: tuple[ev.RoundScored, ...] = ()
    standings: tuple[ev.Standing, ...] = ()

    def links(self, player: str, round_: int | None = None) -> dict[int, str]:
        """``player``'s links of ``round_`` (default: this round), by combination."""
        r = self.round if round_ is None else round_
        sheet = self.sheets.get(player, {})
        return {c: text for (rr, c), text in sheet.items() if rr == r}

    def ballot(self, number: int) -> Ballot | None:
        return next((b for b in self.ballots if b.ballot == number), None)

    def vote(self, ballot: int, player: str) -> bool | None:
        """``player``'s vote on ``ballot`` (True: accept), or None."""
        return next(
            (v.accept for v in self.votes if v.ballot == ballot and v.player == player), None
        )

    def total(self, player: str) -> int:
        """``player``'s points in the rounds scored."""
        return sum(s.points for r in self.rounds for s in r.scores if s.player == player)


def initial_state(deal: Deal | None = None) -> MatchFiveState:
    """The state before StartGame: the referee passes in the deal, a projection nothing."""
    return MatchFiveState(deal=deal)


def _write(
    state: MatchFiveState, player: str, key: tuple[int, int], text: str | None
) -> MatchFiveState:
    sheet = {k: v for k, v in state.sheets.get(player, {}).items() if k != key}
    if text is not None:
        sheet[key] = text
    sheets = {**state.sheets, player: MappingProxyType(dict(sorted(sheet.items())))}
    return replace(state, sheets=MappingProxyType(sheets))


def evolve(state: MatchFiveState, event: ev.Event) -> MatchFiveState:
    """Apply one recorded event. Only sets, appends and removes; all judgement is in decide."""
    state = replace(state, now=event.at)
    match event:
        case ev.GameStarted():
            return replace(
                state,
                phase=Phase.WRITING,
                players=event.players,
                settings=event.settings,
                deal_version=event.deal_version,
                dice=event.dice,
                sheets=MappingProxyType({p: MappingProxyType({}) for p in event.players}),
            )
        case ev.RoundStarted():
            return replace(
                state,
                phase=Phase.WRITING,
                round=event.round,
                faces=event.faces,
                categories=event.categories,
                writing_ends_at=event.writing_ends_at,
                done=frozenset(),  # pragma: no mutate (equivalent: already empty after a close)
                combination=0,  # pragma: no mutate (equivalent: already 0 after a close)
                votes_end_at=0,  # pragma: no mutate (equivalent: already 0 after a close)
            )
        case ev.LinkWritten():
            return _write(state, event.player, (event.round, event.combination), event.text)
        case ev.LinkErased():
            return _write(state, event.player, (event.round, event.combination), None)
        case ev.PlayerDone():
            return replace(state, done=state.done | {event.player})
        case ev.CombinationOpened():
            return replace(
                state,
                phase=Phase.READING,
                combination=event.combination,
                votes_end_at=event.votes_end_at,
                done=frozenset(),
                ballots=tuple(Ballot(k.ballot, k.player, k.text, k.group) for k in event.links),
                votes=(),  # pragma: no mutate (equivalent: already () after a close)
                ballots_issued=max((k.ballot for k in event.links), default=state.ballots_issued),
                read=(*state.read, event),
            )
        case ev.VoteCast():
            return replace(state, votes=(*state.votes, event))
        case ev.MatchCalled():
            call = Ballot(event.ballot, event.player, own=event.own, target=event.target)
            # something new to vote on: every Done of this combination is taken back
            return replace(
                state,
                ballots=(*state.ballots, call),
                ballots_issued=event.ballot,
                done=frozenset(),
            )
        case ev.CombinationClosed():
            return replace(
                state,
                combination=0,
                votes_end_at=0,
                ballots=(),
                votes=(),
                done=frozenset(),
                closed=(*state.closed, event),
            )
        case ev.RoundScored():
            return replace(state, rounds=(*state.rounds, event))
        case ev.GameEnded():
            # pragma: no mutate start (equivalent: done is already empty after the last close)
            return replace(state, phase=Phase.OVER, standings=event.standings, done=frozenset())
            # pragma: no mutate end
    raise TypeError(f"not an event of MATCH 5: {event!r}")  # pragma: no cover
