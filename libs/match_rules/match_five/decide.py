"""``decide``: all the judgement of MATCH 5 (docs/rules-match-5.md).

Every command first lets time pass up to its ``now``: the sand timer ends the writing at
``writing_ends_at``, and each combination's vote closes at its ``votes_end_at``, the next one
opening at that instant, chained (a Tick far in the future plays out every timer in turn and
may end the game). Then the command is judged on that state. A refused command raises
RuleError and yields no event, not even the timers'.

* The writing ends at the sand timer, or as soon as every player is Done. The reading opens
  the 10 combinations one at a time; each closes at its timer, or once every player is Done
  with it. A combination without a link opens and closes at once.
* A link is accepted when more votes accept it than contest it, refused when more contest it;
  on a tie its author's vote, if any, is left out, and a tie after that is accepted (the benefit
  of the doubt: "a clever link is fine"). A missing vote is an abstention and counts for
  nothing.
* A "Match!" is agreed when more of the other players agree than not (no votes: not agreed).
* A link is matching when it is accepted and joined, by the server's groups (equal once
  normalised) and agreed calls, to at least one other accepted link. 2 points matching, 1
  accepted, 0 refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from match_rules.decide import Log, Rules
from match_rules.errors import Code, RuleError
from match_rules.match_five import commands as cmd
from match_rules.match_five import events as ev
from match_rules.match_five.content import COMBINATIONS, combination_name
from match_rules.match_five.deal import categories
from match_rules.match_five.errors import MatchFiveCode
from match_rules.match_five.normalise import check as check_link
from match_rules.match_five.normalise import normalise
from match_rules.match_five.settings import MAX_PLAYERS, MIN_PLAYERS, ROUNDS, check
from match_rules.match_five.state import Ballot, MatchFiveState, Phase, evolve

LAST = len(COMBINATIONS)


_Log = Log[MatchFiveState, ev.Event]  # the events decided so far, and the state after each


def next_deadline(state: MatchFiveState) -> int | None:
    """When time alone changes the game next: the sand timer, or the open combination's."""
    if state.phase is Phase.WRITING:
        return state.writing_ends_at
    if state.phase is Phase.READING:
        return state.votes_end_at
    return None


def is_terminal(state: MatchFiveState) -> bool:
    return state.phase is Phase.OVER


# --- time, and what follows from it -----------------------------------------------------------


def _pass_time(log: _Log, now: int) -> None:
    while (due := next_deadline(log.state)) is not None and due <= now:
        if log.state.phase is Phase.WRITING:
            _open(log, due, 1)
        else:
            _close(log, due)


def groups(keys: list[str]) -> list[int]:
    """The server's groups of a combination's links (their normalised texts, in seat order):
    equal ones share a number 1, 2, ... in order of first appearance; a link equal to no other
    has 0."""
    shared = [k for i, k in enumerate(keys) if keys.count(k) > 1 and keys.index(k) == i]
    return [shared.index(k) + 1 if k in shared else 0 for k in keys]


def _open(log: _Log, at: int, combination: int) -> None:
    s = log.state
    written = [(p, t) for p in s.players if (t := s.links(p).get(combination)) is not None]
    numbers = groups([normalise(t) for _, t in written])
    links = tuple(
        ev.ReadLink(s.ballots_issued + n, p, t, g)
        for n, ((p, t), g) in enumerate(zip(written, numbers, strict=True), start=1)
    )
    ends = at + s.settings.vote_seconds * 1000 if links else at
    log.emit(ev.CombinationOpened(at, s.round, combination, links, ends))
    if not links:
        _close(log, at)


def _result(ballot: Ballot, votes: list[ev.VoteCast]) -> ev.BallotResult:
    accepts = sum(1 for v in votes if v.accept)
    contests = len(votes) - accepts
    if ballot.is_call:  # its caller cannot vote on it
        return ev.BallotResult(ballot.ballot, accepts > contests, accepts, contests, False)
    ignored = False
    author = next((v for v in votes if v.player == ballot.player), None)
    if accepts == contests and author is not None:
        ignored = True
        accepts -= author.accept
        contests -= not author.accept
    return ev.BallotResult(ballot.ballot, accepts >= contests, accepts, contests, ignored)


def tally(state: MatchFiveState) -> tuple[tuple[ev.BallotResult, ...], tuple[ev.LinkScore, ...]]:
    """The open combination's results, ballot by ballot, and its links' points."""
    results = tuple(
        _result(b, [v for v in state.votes if v.ballot == b.ballot]) for b in state.ballots
    )
    accepted = {r.ballot: r.accepted for r in results}
    links = [b for b in state.ballots if not b.is_call]
    root = {b.ballot: b.ballot for b in links}

    def find(n: int) -> int:
        while root[n] != n:
            n = root[n]
        return n

    joins = [(a.ballot, b.ballot) for a in links for b in links if a.group and a.group == b.group]
    joins += [(b.own, b.target) for b in state.ballots if b.is_call and accepted[b.ballot]]
    for a, b in joins:
        root[find(a)] = find(b)
    scores = []
    for link in links:
        matching = accepted[link.ballot] and any(
            other.ballot != link.ballot
            and accepted[other.ballot]
            and find(other.ballot) == find(link.ballot)
            for other in links
        )
        points = 2 if matching else int(accepted[link.ballot])
        scores.append(ev.LinkScore(link.ballot, link.player, matching, points))
    return results, tuple(scores)


def _close(log: _Log, at: int) -> None:
    s = log.state
    results, scores = tally(s)
    log.emit(ev.CombinationClosed(at, s.round, s.combination, results, scores))
    if s.combination < LAST:
        _open(log, at, s.combination + 1)
    else:
        _score_round(log, at)


def _score_round(log: _Log, at: int) -> None:
    s = log.state
    rows = []
    for p in s.players:
        mine = [x for c in s.closed if c.round == s.round for x in c.scores if x.player == p]
        points = sum(x.points for x in mine)
        rows.append(ev.PlayerScore(p, points, sum(x.matching for x in mine), s.total(p) + points))
    log.emit(ev.RoundScored(at, s.round, tuple(rows)))
    if s.round < ROUNDS:
        _start_round(log, at, s.round + 1)
    else:
        _end_game(log, at)


def _start_round(log: _Log, at: int, round_: int) -> None:
    s = log.state
    if s.deal is None:
        raise ValueError("the referee's state must hold the deal: a round rolls its dice")
    faces = s.deal.faces[round_ - 1]
    ends = at + s.settings.writing_seconds * 1000
    log.emit(ev.RoundStarted(at, round_, faces, categories(s.dice, round_, faces), ends))


def rank(rows: list[tuple[str, int, int]]) -> tuple[ev.Standing, ...]:
    """Standings of (player, points, matching links) in seat order: most points, then most
    matching links; players equal on both share the place (seat order among them)."""

    def key(row: tuple[str, int, int]) -> tuple[int, int]:
        return (-row[1], -row[2])

    placed = [
        ev.Standing(r[0], 1 + sum(1 for o in rows if key(o) < key(r)), r[1], r[2]) for r in rows
    ]
    return tuple(sorted(placed, key=lambda s: s.place))  # stable: seat order within a place


def _end_game(log: _Log, at: int) -> None:
    s = log.state
    rows = []
    for p in s.players:
        matching = sum(x.matching for r in s.rounds for x in r.scores if x.player == p)
        rows.append((p, s.total(p), matching))
    log.emit(ev.GameEnded(at, rank(rows)))


# --- commands --------------------------------------------------------------------------------


def _start(log: _Log, c: cmd.StartGame) -> None:
    s = log.state
    if s.phase is not Phase.NOT_STARTED:
        raise RuleError(Code.GAME_ALREADY_STARTED, "this game has already started")
    if not MIN_PLAYERS <= len(c.players) <= MAX_PLAYERS:
        raise RuleError(
            Code.INVALID_SETUP,
            f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(c.players)}",
        )
    if len(set(c.players)) != len(c.players) or not all(c.players):
        raise RuleError(Code.INVALID_SETUP, "every player needs a distinct, non-empty id")
    check(c.settings)
    if s.deal is None:
        raise ValueError("the referee's state must hold the deal before the game starts")
    log.emit(ev.GameStarted(c.now, c.players, c.settings, c.deal_version, s.deal.dice))
    _start_round(log, c.now, 1)


def _seated(state: MatchFiveState, player: str) -> None:
    if state.phase is Phase.NOT_STARTED:
        raise RuleError(Code.GAME_NOT_STARTED, "the game has not started: every seat must be taken")
    if player not in state.players:
        raise RuleError(Code.NOT_SEATED, f"{player!r} has no seat at this table")
    if state.phase is Phase.OVER:
        raise RuleError(Code.GAME_OVER, "the game is over; the results are final")


def _writing(state: MatchFiveState, player: str) -> None:
    _seated(state, player)
    if state.phase is not Phase.WRITING:
        raise RuleError(
            MatchFiveCode.NOT_WRITING,
            f"the sand timer of round {state.round} has run out: the links are being read; "
            "vote on them",
        )
    if player in state.done:
        raise RuleError(
            MatchFiveCode.ALREADY_DONE,
            "you said you were done writing: your links stand as they are until the reading",
        )


def _reading(state: MatchFiveState, player: str) -> None:
    _seated(state, player)
    if state.phase is not Phase.READING:
        raise RuleError(
            MatchFiveCode.NOT_READING,
            'the links are still being written: votes and "Match!" come with the reading',
        )


def _in_range(combination: int) -> None:
    if not 1 <= combination <= LAST:
        raise RuleError(
            MatchFiveCode.COMBINATION_OUT_OF_RANGE,
            f"there is no combination {combination}: they are numbered 1 to {LAST} "
            "(1 is red and yellow, 10 blue and purple)",
        )


def _write(log: _Log, c: cmd.WriteLink) -> None:
    s = log.state
    _writing(s, c.player)
    _in_range(c.combination)
    check_link(c.text)
    key = normalise(c.text)
    for (round_, combination), text in s.sheets[c.player].items():
        if (round_, combination) != (s.round, c.combination) and normalise(text) == key:
            when = "this round" if round_ == s.round else f"in round {round_}"
            raise RuleError(
                MatchFiveCode.LINK_REUSED,
                f'you wrote "{text}" for combination {combination} '
                f"({combination_name(combination)}) {when}: a link may be used only once per "
                "game (case, accents, spaces and punctuation aside); write another",
            )
    log.emit(ev.LinkWritten(c.now, c.player, s.round, c.combination, c.text))


def _erase(log: _Log, c: cmd.EraseLink) -> None:
    s = log.state
    _writing(s, c.player)
    _in_range(c.combination)
    if c.combination not in s.links(c.player):
        raise RuleError(
            MatchFiveCode.NO_LINK, f"you have no link for combination {c.combination} to erase"
        )
    log.emit(ev.LinkErased(c.now, c.player, s.round, c.combination))


def _done(log: _Log, c: cmd.Done) -> None:
    s = log.state
    _seated(s, c.player)
    writing = s.phase is Phase.WRITING
    if c.player in s.done:
        what = "writing" if writing else f"combination {s.combination}"
        raise RuleError(
            MatchFiveCode.ALREADY_DONE,
            f"you said you were done with {what} already: wait for the others",
        )
    # pragma: no mutate start (equivalent: combination is 0 while writing)
    log.emit(ev.PlayerDone(c.now, c.player, s.round, 0 if writing else s.combination))
    # pragma: no mutate end
    if log.state.done >= set(s.players):
        if writing:
            _open(log, c.now, 1)
        else:
            _close(log, c.now)


def _open_ballot(state: MatchFiveState, number: int) -> Ballot:
    if number < 1:  # no ballot ever has this number: not "closed", a wrong argument
        raise RuleError(
            MatchFiveCode.BALLOT_OUT_OF_RANGE,
            f"there is no ballot {number}: ballots are numbered from 1, as the reading gives "
            f"them (combination {state.combination}'s are in its BallotOpened events)",
        )
    ballot = state.ballot(number)
    if ballot is None:
        # pragma: no mutate start (equivalent: one is always open)
        first = min((b.ballot for b in state.ballots), default=state.ballots_issued + 1)
        # pragma: no mutate end
        # pragma: no mutate start (equivalent: the last ballot is always open)
        when = "is not read yet" if number > state.ballots_issued else "is closed"
        # pragma: no mutate end
        raise RuleError(
            MatchFiveCode.BALLOT_NOT_OPEN,
            f"ballot {number} {when}: combination {state.combination}'s ballots are "
            f"{first} to {max(first, state.ballots_issued)}",
        )
    return ballot


def _vote(log: _Log, c: cmd.Vote) -> None:
    s = log.state
    _reading(s, c.player)
    ballot = _open_ballot(s, c.ballot)
    if ballot.is_call and ballot.player == c.player:
        raise RuleError(
            MatchFiveCode.OWN_CALL, 'the table votes on your "Match!", you do not: you called it'
        )
    if s.vote(c.ballot, c.player) is not None:
        raise RuleError(
            MatchFiveCode.ALREADY_VOTED, f"you voted on ballot {c.ballot} already: a vote is final"
        )
    log.emit(ev.VoteCast(c.now, c.player, c.ballot, c.accept))


def _call(log: _Log, c: cmd.CallMatch) -> None:
    s = log.state
    _reading(s, c.player)
    target = _open_ballot(s, c.ballot)
    if target.is_call:
        raise RuleError(
            MatchFiveCode.BALLOT_NOT_OPEN,
            f'ballot {c.ballot} is a "Match!" call, not a link: call "Match!" on a link',
        )
    if target.player == c.player:
        raise RuleError(
            MatchFiveCode.OWN_LINK,
            '"Match!" is called on another player\'s link that matches yours',
        )
    own = next((b for b in s.ballots if not b.is_call and b.player == c.player), None)
    if own is None:
        raise RuleError(
            MatchFiveCode.NO_LINK,
            f'you wrote no link for combination {s.combination}: "Match!" needs one of yours',
        )
    pair = {own.ballot, target.ballot}
    if (own.group and own.group == target.group) or any(
        b.is_call and {b.own, b.target} == pair for b in s.ballots
    ):
        raise RuleError(
            MatchFiveCode.ALREADY_MATCHING,
            f'"{target.text}" and your "{own.text}" are paired already (equal once normalised, '
            "or called before)",
        )
    log.emit(ev.MatchCalled(c.now, c.player, s.ballots_issued + 1, own.ballot, target.ballot))


_HANDLERS: dict[type, Callable[[_Log, Any], None]] = {
    cmd.StartGame: _start,
    cmd.WriteLink: _write,
    cmd.EraseLink: _erase,
    cmd.Done: _done,
    cmd.Vote: _vote,
    cmd.CallMatch: _call,
}

RULES = Rules(evolve, _pass_time, _HANDLERS, cmd.Tick, next_deadline, is_terminal)
decide_steps = RULES.decide_steps
decide = RULES.decide
