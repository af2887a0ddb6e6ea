"""MATCH 5 in the terminal and for scripts: one seat's table as its stream tells it, its lines,
and the seat played (``match play --game match-5``).

``MatchFiveTracker`` folds what the server sends this seat (Watch snapshots and events, the
replies to its commands) into what the player may see: the round's five categories, the 10
combinations with the player's own links, the sand timer, the others' link counts and who is
done, the open combination's ballots (every link of it, once read, and every "Match!" called),
the results and points of each closed combination, the rounds' score boxes and the standings.
No rule is judged here: the referee decides, and a refusal is shown as it came.

``MatchFivePlay`` is one seat played: it follows the stream (resuming after a drop), sends the
commands typed (``w 3 Little Red Riding Hood``, ``x 3``, ``d``, ``y 12``, ``n 12``, ``m 12``)
and tells what happened in lines a screen reader reads in order. The demo's scripted players
drive it too.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from match.v1 import common_pb2, lobby_pb2, match_five_pb2
from match_client.client import (
    MatchClient,
    Seat,
    error_details,
    is_rpc_error,
    refusal_code,
    retry_after_ms,
    status_name,
)
from match_client.clock import ServerClock
from match_client.following import TableFollower
from match_client.session import GameSession
from match_client.terminal import line_mode
from match_rules.match_five.content import COLOURS, COMBINATIONS
from match_rules.words import count

View = match_five_pb2.MatchFiveView
Settings = match_five_pb2.MatchFiveSettings
Event = match_five_pb2.MatchFiveEvent
Out = Callable[[str], None]
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
SNAPSHOT = 2**63 - 1  # beyond the last event: the server answers with a snapshot

WAITING = View.PHASE_WAITING_FOR_PLAYERS
WRITING = View.PHASE_WRITING
READING = View.PHASE_READING
OVER = View.PHASE_GAME_OVER
ROUNDS = 2
WRITING_SECONDS = 180  # the server's defaults (proto: 0 takes them)
VOTE_SECONDS = 45
NO_VOTE, ACCEPT, CONTEST = 0, 1, 2
# Seconds left on a timer that are said once, as they pass (the line mode's ticks).
WRITING_MARKS = (60, 10)
VOTE_MARKS = (10,)
SEED_WAIT_S = 5.0  # how long the end waits for the published seed before it is told anyway


@dataclass(slots=True)
class Combination:
    """One of the round's 10 combinations as the player sees it."""

    number: int
    colours: tuple[str, str]
    categories: tuple[str, str] = ("", "")
    link: str = ""  # the player's own link this round ("" none)


@dataclass(slots=True)
class PlayerLine:
    player: str
    links: int = 0  # this round's links (a count: what they are is theirs until read)
    done: bool = False  # with writing, or with the open combination
    total: int = 0  # points of the rounds scored
    round_points: int = 0  # points of the combinations closed this round


@dataclass(slots=True)
class Ballot:
    """A ballot of the open combination: a link (``own`` and ``target`` 0), or a "Match!"
    called by ``player`` on the link of ``target`` as matching their own link ``own``."""

    ballot: int
    player: str
    text: str = ""
    group: int = 0
    own: int = 0
    target: int = 0
    your_vote: int = NO_VOTE
    votes: int = 0

    @property
    def is_call(self) -> bool:
        return self.target > 0


def _combinations(categories: Sequence[str] = ()) -> dict[int, Combination]:
    """The 10 combinations, with each colour's category when known."""
    by_colour = dict(zip(COLOURS, categories, strict=False))
    return {
        n: Combination(n, pair, (by_colour.get(pair[0], ""), by_colour.get(pair[1], "")))
        for n, pair in enumerate(COMBINATIONS, start=1)
    }


@dataclass
class MatchFiveTracker(TableFollower):
    SLUG: ClassVar[str] = "match_five"

    settings: Settings = field(default_factory=Settings)
    seats: int = 0
    phase: int = WAITING
    started: bool = False
    round: int = 0
    categories: tuple[str, ...] = ()
    combinations: dict[int, Combination] = field(default_factory=_combinations)
    deadline_ms: int = 0
    combination: int = 0  # the open combination (reading), 0 otherwise
    ballots: dict[int, Ballot] = field(default_factory=dict)  # the open combination's
    every_ballot: dict[int, Ballot] = field(default_factory=dict)  # every ballot seen this game
    players: list[PlayerLine] = field(default_factory=list)
    closed: list[Event.CombinationClosed] = field(default_factory=list)
    read: list[Event.CombinationOpened] = field(default_factory=list)
    rounds: list[Event.RoundScored] = field(default_factory=list)
    standings: list[Event.Standing] = field(default_factory=list)

    # --- folding -----------------------------------------------------------------------------

    def line(self, player: str) -> PlayerLine:
        found = next((p for p in self.players if p.player == player), None)
        if found is None:
            found = PlayerLine(player)
            self.players.append(found)
        return found

    @property
    def me(self) -> PlayerLine:
        return self.line(self.player)

    @property
    def game_over(self) -> bool:
        return self.phase == OVER

    def note_table(self, table: lobby_pb2.Table) -> None:
        """Names, seats, the commitment and the settings from the lobby's Table."""
        super().note_table(table)
        self.seats = table.seats or self.seats

    def _settings(self, settings: Settings) -> None:
        if not self.started:  # once started, the game's own settings stand
            self.settings = settings

    def apply_snapshot(self, view: View) -> None:
        self.table_id = view.table_id or self.table_id
        self.event_number = view.event_number
        self.server_time_ms = view.server_time_ms
        self.player = view.you or self.player
        self.settings = view.settings
        self.phase = view.phase or WAITING
        self.started = self.phase != WAITING
        self.round = view.round
        self.categories = tuple(view.categories)
        self.combinations = _combinations(self.categories)
        for c in view.combinations:
            if c.combination in self.combinations:
                mine = self.combinations[c.combination]
                if len(c.categories) == 2:
                    mine.categories = (c.categories[0], c.categories[1])
                mine.link = c.your_link
        self.deadline_ms = view.deadline_ms
        self.combination = view.combination
        self.closed = list(view.closed)
        self.read = list(view.read)
        self.rounds = list(view.rounds)
        self.standings = list(view.standings)
        for opened in self.read:
            for link in opened.links:
                self.every_ballot[link.ballot] = Ballot(
                    link.ballot, link.player, link.text, link.group
                )
        self.ballots = {}
        for b in view.ballots:
            ballot = Ballot(
                b.ballot, b.player, b.text, b.group, b.own, b.target, b.your_vote, b.votes
            )
            self.ballots[b.ballot] = ballot
            self.every_ballot[b.ballot] = ballot
        self.players = []
        for p in view.players:
            if p.display_name:
                self.names[p.player] = p.display_name
            self.players.append(PlayerLine(p.player, p.links, p.done, p.total))
        # The view's totals are the rounds scored; a round's closed combinations add to them
        # only while it is not scored yet (at the end, round 2 is scored and they are in it).
        scored = any(r.round == self.round for r in self.rounds)
        for closed in self.closed:
            if closed.round == self.round and not scored:
                for s in closed.scores:
                    self.line(s.player).round_points += s.points
        self.seats = max(self.seats, len(self.players))
        self.commitment = view.commitment or self.commitment
        if view.HasField("seed"):
            self.seed = bytes(view.seed)

    def _game(self, event: Event) -> None:
        kind = event.WhichOneof("event")
        e: Any = getattr(event, kind) if kind else None
        mine = getattr(e, "player", self.player) == self.player
        if kind == "game_started":
            self.started = True
            self.settings = e.settings
            self.players = [PlayerLine(p) for p in e.players]
        elif kind == "round_started":
            self.started = True
            self.phase = WRITING
            self.round = e.round
            self.categories = tuple(e.categories)
            self.combinations = _combinations(self.categories)
            self.deadline_ms = e.writing_ends_at
            self.combination = 0
            self.ballots = {}
            for p in self.players:
                p.links, p.done, p.round_points = 0, False, 0
        elif kind == "link_written" and mine:
            self.combinations[e.combination].link = e.text
            self.me.links = sum(1 for c in self.combinations.values() if c.link)
        elif kind == "link_erased" and mine:
            self.combinations[e.combination].link = ""
            self.me.links = sum(1 for c in self.combinations.values() if c.link)
        elif kind == "writing_progress":
            self.line(e.player).links = e.links
        elif kind == "player_done":
            self.line(e.player).done = True
        elif kind == "combination_opened":
            self.phase = READING
            self.combination = e.combination
            self.deadline_ms = e.votes_end_at
            self.ballots = {}
            for link in e.links:
                ballot = Ballot(link.ballot, link.player, link.text, link.group)
                self.ballots[link.ballot] = ballot
                self.every_ballot[link.ballot] = ballot
            self.read.append(e)
            for p in self.players:
                p.done = False
        elif kind == "vote_cast":
            b = self.ballots.get(e.ballot)
            if b is not None:
                b.votes += 1
                if mine:
                    b.your_vote = ACCEPT if e.accept else CONTEST
        elif kind == "match_called":
            ballot = Ballot(e.ballot, e.player, own=e.own, target=e.target)
            self.ballots[e.ballot] = ballot
            self.every_ballot[e.ballot] = ballot
        elif kind == "combination_closed":
            self.closed.append(e)
            for s in e.scores:
                self.line(s.player).round_points += s.points
            self.combination = 0
            self.deadline_ms = 0
            self.ballots = {}
            for p in self.players:
                p.done = False
        elif kind == "round_scored":
            self.rounds.append(e)
            for s in e.scores:
                line = self.line(s.player)
                line.total, line.round_points = s.total, 0
        elif kind == "game_ended":
            self.phase = OVER
            self.combination = 0
            self.deadline_ms = 0
            self.standings = list(e.standings)

    # --- what a player knows -------------------------------------------------------------------

    @property
    def writing_seconds(self) -> int:
        return self.settings.writing_seconds or WRITING_SECONDS

    @property
    def vote_seconds(self) -> int:
        return self.settings.vote_seconds or VOTE_SECONDS

    def my_links(self) -> list[int]:
        """The ballots of the player's own links in the open combination."""
        return [
            b.ballot for b in self.ballots.values() if b.player == self.player and not b.is_call
        ]

    def to_vote(self) -> list[int]:
        """The open ballots the player has not voted on (not their own "Match!" calls)."""
        return [
            b.ballot
            for b in sorted(self.ballots.values(), key=lambda b: b.ballot)
            if b.your_vote == NO_VOTE and not (b.is_call and b.player == self.player)
        ]

    def points(self, player: str) -> int:
        """Points so far: the rounds scored and this round's closed combinations."""
        p = self.line(player)
        return p.total + p.round_points

    def winners(self) -> list[str]:
        return [s.player for s in self.standings if s.place == 1]


# --- lines ---------------------------------------------------------------------------------


def clock_text(ms: int) -> str:
    seconds = max(0, ms) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def quoted(text: str) -> str:
    return f'"{text}"'


def possessive(t: MatchFiveTracker, player: str) -> str:
    """``your`` or ``Bob's``."""
    return "your" if player == t.player and player else f"{t.name(player)}'s"


def combination_text(t: MatchFiveTracker, number: int) -> str:
    """``3, red and green (Job / Fruit)``."""
    c = t.combinations.get(number)
    if c is None:
        return str(number)
    first, second = c.colours
    categories = f" ({c.categories[0]} / {c.categories[1]})" if all(c.categories) else ""
    return f"{number}, {first} and {second}{categories}"


def settings_text(t: MatchFiveTracker) -> str:
    return (
        f"{ROUNDS} rounds, the sand timer {t.writing_seconds} s, "
        f"each combination's vote {t.vote_seconds} s"
    )


def categories_line(t: MatchFiveTracker) -> str:
    pairs = [
        f"{colour}: {category}" for colour, category in zip(COLOURS, t.categories, strict=False)
    ]
    return f"round {t.round} categories: " + ", ".join(pairs)


def sheet_lines(t: MatchFiveTracker) -> list[str]:
    """The round's categories, then the 10 combinations with the player's own links."""
    if not t.round:
        return ["no round yet: the game starts when every seat is taken"]
    out = [categories_line(t)]
    for n in sorted(t.combinations):
        c = t.combinations[n]
        link = quoted(c.link) if c.link else "no link"
        out.append(
            f"{n}. {c.colours[0]} and {c.colours[1]}, {c.categories[0]} / {c.categories[1]}: {link}"
        )
    return out


def timer_line(t: MatchFiveTracker, now_ms: int) -> str:
    if t.phase == WRITING and t.deadline_ms:
        return f"the sand timer runs out in {clock_text(t.deadline_ms - now_ms)}"
    if t.phase == READING and t.combination and t.deadline_ms:
        return (
            f"the vote on combination {t.combination} closes in "
            f"{clock_text(t.deadline_ms - now_ms)}"
        )
    if t.game_over:
        return "the game is over"
    if not t.started:
        return "no timer yet: the game starts when every seat is taken"
    return "no timer is running now"


def others_lines(t: MatchFiveTracker) -> list[str]:
    """Every player: their links this round (a count), whether they are done, their points."""
    out = []
    for p in t.players:
        name = t.name(p.player)
        parts = []
        if t.phase == WRITING:
            parts.append(f"{p.links} of 10 links")
            if p.done:
                parts.append("done writing")
        elif t.phase == READING and t.combination:
            parts.append(
                f"done with combination {t.combination}" if p.done else "still on this combination"
            )
        parts.append(count(t.points(p.player), "point"))
        out.append(f"{name}: " + ", ".join(parts))
    return out


def ballot_line(t: MatchFiveTracker, b: Ballot) -> str:
    """``ballot 12: Bob wrote "Shark" (group 1)``; a call names both links."""
    if b.is_call:
        own, target = t.every_ballot.get(b.own), t.every_ballot.get(b.target)
        own_text = f" {quoted(own.text)}" if own is not None else ""
        target_text = f" {quoted(target.text)}" if target is not None else ""
        target_name = f"{possessive(t, target.player)} " if target is not None else ""
        line = (
            f"ballot {b.ballot}: Match! {t.name(b.player)} called {target_name}ballot "
            f"{b.target}{target_text} a match of ballot {b.own}{own_text}"
        )
    else:
        line = f"ballot {b.ballot}: {t.name(b.player)} wrote {quoted(b.text)}"
        if b.group:
            line += f" (group {b.group})"
    if b.your_vote:
        line += f", your vote: {'accept' if b.your_vote == ACCEPT else 'contest'}"
    return line


def reading_lines(t: MatchFiveTracker) -> list[str]:
    """The open combination and its ballots."""
    if t.phase != READING or not t.combination:
        return ["no combination is open now"]
    out = [
        f"reading combination {combination_text(t, t.combination)}, round {t.round}: "
        f"{count(sum(1 for b in t.ballots.values() if not b.is_call), 'link')}"
    ]
    out += [ballot_line(t, b) for b in sorted(t.ballots.values(), key=lambda b: b.ballot)]
    if not t.ballots:
        out.append("nobody wrote a link for it: d moves on")
    return out


def score_box_lines(t: MatchFiveTracker, scored: Event.RoundScored) -> list[str]:
    out = [f"round {scored.round} score box:"]
    for s in scored.scores:
        out.append(
            f"  {t.name(s.player)}: {count(s.points, 'point')}, "
            f"{count(s.matching, 'matching link')}; total {s.total}"
        )
    return out


def closed_lines(t: MatchFiveTracker, closed: Event.CombinationClosed) -> list[str]:
    """Every ballot's result with its points, then the round's points so far."""
    if not closed.results:  # it opened and closed at once: one line says it
        return [
            f"combination {combination_text(t, closed.combination)}: nobody wrote a link for it"
        ]
    scores = {s.ballot: s for s in closed.scores}
    out = [f"combination {combination_text(t, closed.combination)} closed:"]
    for r in closed.results:
        b = t.every_ballot.get(r.ballot)
        votes = f"{r.accepts} to {r.contests}"
        tie = ", a tie settled without the author's vote" if r.author_ignored else ""
        if b is not None and b.is_call:
            verdict = "agreed" if r.accepted else "not agreed"
            out.append(
                f"  ballot {r.ballot}, Match! of ballots {b.own} and {b.target}: {verdict}, {votes}"
            )
            continue
        who = f", {possessive(t, b.player)} {quoted(b.text)}" if b is not None else ""
        line = f"  ballot {r.ballot}{who}: {'accepted' if r.accepted else 'refused'}, {votes}{tie}"
        s = scores.get(r.ballot)
        if s is not None:
            line += f": {count(s.points, 'point')}" + (", a matching link" if s.matching else "")
        out.append(line)
    so_far = ", ".join(f"{t.name(p.player)} {t.points(p.player)}" for p in t.players)
    if so_far:
        out.append(f"points so far: {so_far}")
    return out


def standings_lines(t: MatchFiveTracker) -> list[str]:
    if not t.standings:
        return []
    boxes: dict[str, list[int]] = {}
    for scored in t.rounds:
        for score in scored.scores:
            boxes.setdefault(score.player, []).append(score.points)
    out = ["final standings:"]
    for s in t.standings:
        box = boxes.get(s.player, [])
        sums = f" ({' + '.join(str(p) for p in box)})" if len(box) > 1 else ""
        out.append(
            f"  {s.place}. {t.name(s.player)}: {count(s.points, 'point')}{sums}, "
            f"{count(s.matching, 'matching link')}"
        )
    winners = [t.name(p) for p in t.winners()]
    if len(winners) == 1:
        out.append(f"winner: {winners[0]}")
    elif winners:
        out.append(f"winners, sharing the victory: {', '.join(winners)}")
    return out


def end_lines(t: MatchFiveTracker, audit: str = "") -> list[str]:
    """The end: the standings, the winner(s), the seed and how to check the game."""
    out = standings_lines(t)
    if t.seed is not None and t.commitment:
        ok = hashlib.sha256(t.seed).hexdigest() == t.commitment
        out.append(f"the published seed {'matches' if ok else 'DOES NOT match'} the commitment")
    if audit:
        out.append(audit)
    return out


def waiting_line(t: MatchFiveTracker) -> str:
    seated = len(t.names) or len(t.players)
    seats = f"{seated} of {t.seats} seats taken" if t.seats else count(seated, "player")
    return f"waiting for players: {seats}; the game starts when every seat is taken"


def event_lines(env: common_pb2.EventEnvelope, t: MatchFiveTracker) -> list[str]:
    """What to say about one event (already folded into ``t``)."""
    if env.HasField("table"):
        kind = env.table.WhichOneof("event")
        if kind == "player_seated":
            seated = env.table.player_seated
            if seated.player_id == t.player:
                return [f"you sit at seat {seated.seat}"]
            return [f"{seated.display_name} sits at seat {seated.seat}"]
        if kind == "seed_revealed":
            return ["the game's seed is published"]
        return []
    if not env.HasField("match_five"):
        return []
    event = env.match_five
    kind = event.WhichOneof("event")
    e: Any = getattr(event, kind) if kind else None
    if e is None:
        return []
    mine = getattr(e, "player", t.player) == t.player
    if kind == "game_started":
        names = ", ".join(t.name(p) for p in e.players)
        return [f"the game starts: {settings_text(t)}. Players: {names}"]
    if kind == "round_started":
        return [
            f"round {e.round}: the dice are rolled and the sand timer turned",
            *sheet_lines(t),
            f"the sand timer runs out in {clock_text(e.writing_ends_at - e.at)}",
        ]
    if kind == "link_written" and mine:
        return [f"your link for {combination_text(t, e.combination)}: {quoted(e.text)}"]
    if kind == "link_erased" and mine:
        return [f"your link for {combination_text(t, e.combination)} is erased"]
    if kind == "player_done":
        if e.combination == 0:
            if mine:
                return [
                    f"you are done writing, with {count(t.me.links, 'link')}: the reading "
                    "starts once everybody is done, or when the sand timer runs out"
                ]
            return [f"{t.name(e.player)} is done writing ({count(t.line(e.player).links, 'link')})"]
        return [
            f"{t.name(e.player)} {'are' if mine else 'is'} done with combination {e.combination}"
        ]
    if kind == "combination_opened":
        if not e.links:
            return []  # it closes at once; its CombinationClosed says so
        return [
            *reading_lines(t),
            f"the vote closes in {clock_text(e.votes_end_at - e.at)}",
        ]
    if kind == "vote_cast" and mine:
        b = t.every_ballot.get(e.ballot)
        if b is not None and b.is_call:
            return [f"you {'agree' if e.accept else 'do not agree'} ballot {e.ballot} is a match"]
        return [f"you {'accept' if e.accept else 'contest'} ballot {e.ballot}"]
    if kind == "match_called":
        b = t.every_ballot.get(e.ballot)
        line = ballot_line(t, b) if b is not None else f"ballot {e.ballot}: Match!"
        if mine:
            return [line, "the others vote on it"]
        return [line, f"y {e.ballot} agrees they match, n {e.ballot} does not"]
    if kind == "combination_closed":
        return closed_lines(t, e)
    if kind == "round_scored":
        return score_box_lines(t, e)
    if kind == "game_ended":
        return ["the game is over"]
    return []


HELP = (
    "while the sand timer runs: w 3 your link writes your link for combination 3 (again to "
    "change it), x 3 erases it, d when you are done writing; l your sheet, t the time left, o "
    "the players. In the reading: y 12 accepts ballot 12, n 12 contests it (several numbers at "
    "once: y 12 13), a accepts every ballot you have not voted on, m 12 calls Match! on ballot "
    "12 (another's link like yours that the server did not group with it), r the open "
    "combination again, d when you are done with it; p the score boxes; Ctrl-D leaves"
)

_WRITE = re.compile(r"^(?:w|write)(?:\s+(\S+))?(?:\s+(.*?))?\s*$", re.IGNORECASE)
_ONE = re.compile(r"^(x|erase|m|match)\s+(\d+)\s*$", re.IGNORECASE)
_VOTE = re.compile(r"^(y|yes|accept|n|no|contest)((?:\s+\d+)+)\s*$", re.IGNORECASE)


class Reply(Protocol):
    @property
    def events(self) -> Sequence[common_pb2.EventEnvelope]: ...


# --- one seat played -----------------------------------------------------------------------


class MatchFivePlay:
    """One seat of MATCH 5 played from the terminal: follows the stream (resuming after a
    drop), sends what the player types, tells what happened through ``out``."""

    def __init__(
        self,
        client: MatchClient,
        seat: Seat,
        out: Out,
        clock: ServerClock,
        *,
        audit: str = "",
        resumed: bool = False,
        retries: int = 1,
    ) -> None:
        self.seat = seat
        self.retries = retries
        self.session = GameSession.of(client, "match_five", seat)
        self.tracker = MatchFiveTracker(player=seat.player_id, table_id=seat.table_id)
        self.clock = clock
        self.out = out
        self.audit = audit
        self.resumed = resumed
        self.said: set[tuple[int, int]] = set()  # (deadline, seconds left) already said
        self.changed: Callable[[], None] = lambda: None
        self.ended = False
        self._finish_soon: asyncio.TimerHandle | None = None
        # Set once the stream has shown the table: lines typed (or piped) earlier wait for it.
        self.ready = asyncio.Event()

    def now(self) -> int:
        return self.clock.now()

    def show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out(line)

    def take(self, envelopes: Sequence[common_pb2.EventEnvelope], reply: bool = False) -> None:
        """Fold and tell new events, a reply's and the stream's alike: in number order, a
        reply's event after one the stream has not brought yet waiting for it."""
        t = self.tracker
        for one in envelopes:
            new = t.apply_events([one])
            for env in new:
                self.clock.observe(env.server_time_ms)
                self.show(event_lines(env, t))
        if not reply:
            self.ready.set()  # the stream told the table: what is typed may go
        self._maybe_finish()
        self.changed()

    def _maybe_finish(self) -> None:
        t = self.tracker
        if not t.game_over or self.ended:
            return
        if t.seed is not None:
            self.finish()
        elif self._finish_soon is None:  # the seed comes right after; the end is told anyway
            loop = asyncio.get_running_loop()
            self._finish_soon = loop.call_later(SEED_WAIT_S, self.finish)

    async def watch(self) -> None:
        """Follow the stream until the server ends it (the game over and its seed out); after
        a drop, from the last event folded."""
        failures = 0
        t = self.tracker
        while not self.ended:
            start = SNAPSHOT if self.resumed and not t.event_number else t.event_number
            try:
                async for item in self.session.watch(start, skip_answered=True):
                    failures = 0
                    if item.HasField("snapshot"):
                        self.snapshot(item.snapshot)
                    else:
                        self.take([item.event])
                    if self.ended:
                        return
                if t.game_over:
                    self.finish()
                    return
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                if status_name(err) in PERMANENT:
                    self.out(f"cannot follow the table: {error_details(err)}")
                    return
                failures += 1
                if failures == 1:
                    self.out("connection lost; reconnecting")
            await asyncio.sleep(min(0.5 * 2 ** min(failures, 4), 5.0))

    def snapshot(self, view: View) -> None:
        """A view of the table: told when it says something the events have not (the first,
        or after a gap); one that arrives in the middle of the stream, where the events told
        it already (the game's start), is folded silently."""
        t = self.tracker
        prior = (t.phase, t.round, t.combination) if t.event_number else None
        t.apply_snapshot(view)
        self.clock.observe(view.server_time_ms)
        self.ready.set()
        if t.game_over:
            self._maybe_finish()
        elif not t.started:
            self.out(waiting_line(t))
        elif (t.phase, t.round, t.combination) != prior:
            if self.resumed and prior is None:
                self.out(f"the game: {settings_text(t)}; round {t.round} of {ROUNDS}")
            self.show(self.position())
        self.changed()

    def position(self) -> list[str]:
        """Where the game stands, as a fresh view tells it."""
        t = self.tracker
        if t.phase == WRITING:
            return [*sheet_lines(t), timer_line(t, self.now()), *others_lines(t)]
        if t.phase == READING:
            lines = reading_lines(t) if t.combination else []
            return [*lines, timer_line(t, self.now()), *others_lines(t)]
        return []

    def finish(self) -> None:
        if self.ended:
            return
        self.ended = True
        if self._finish_soon is not None:
            self._finish_soon.cancel()
        self.show(end_lines(self.tracker, self.audit))
        self.changed()

    def tick(self) -> None:
        """Say a timer's last minute and last seconds as they pass, once each (a mark is said
        only on a timer longer than it: a 10 s vote is not told it has 10 s)."""
        t = self.tracker
        if not t.deadline_ms or t.phase not in (WRITING, READING):
            return
        writing = t.phase == WRITING
        length = t.writing_seconds if writing else t.vote_seconds
        left = t.deadline_ms - self.now()
        passed = [m for m in (WRITING_MARKS if writing else VOTE_MARKS) if left <= m * 1000]
        if not passed or (t.deadline_ms, min(passed)) in self.said:
            return
        self.said.update((t.deadline_ms, m) for m in passed)
        if left > 0 and min(passed) < length:
            what = "the sand timer" if writing else f"the vote on combination {t.combination}"
            self.out(f"{what}: {clock_text(left)} left")

    # --- what the player does ------------------------------------------------------------------

    async def call(self, send: Callable[[], Awaitable[Reply]]) -> bool:
        """Send a command; tell its events, or the server's refusal. True if accepted. A
        command the lobby's rate limit turned away (nothing applied) is sent again after the
        wait it gave, up to ``retries`` times."""
        for attempt in range(self.retries + 1):
            try:
                reply = await send()
                break
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                wait = retry_after_ms(err)
                limited = status_name(err) == "RESOURCE_EXHAUSTED" and wait is not None
                if limited and wait is not None and attempt < self.retries:
                    await asyncio.sleep(min(wait, 5_000) / 1000 + 0.01)
                    continue
                self.refused(err)
                return False
        self.take(list(reply.events), reply=True)
        return True

    def refused(self, err: BaseException) -> None:
        code = refusal_code(err)
        failed = status_name(err) in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN")
        word = "error" if failed else "refused"
        self.out(f"{word}: {error_details(err)} ({code or status_name(err).lower()})")
        self.changed()

    async def write(self, combination: int, text: str) -> bool:
        return await self.call(
            lambda: self.session.send("WriteLink", combination=combination, text=text)
        )

    async def erase(self, combination: int) -> bool:
        return await self.call(lambda: self.session.send("EraseLink", combination=combination))

    async def done(self) -> bool:
        return await self.call(lambda: self.session.send("Done"))

    async def vote(self, ballot: int, accept: bool) -> bool:
        return await self.call(lambda: self.session.send("Vote", ballot=ballot, accept=accept))

    async def call_match(self, ballot: int) -> bool:
        return await self.call(lambda: self.session.send("CallMatch", ballot=ballot))

    async def handle(self, line: str) -> None:
        raw = line.strip()
        text = raw.lower()
        if not text:
            return
        t = self.tracker
        if write := _WRITE.match(raw):
            if not (write[1] or "").isdigit():
                self.out("w needs a combination's number and your link: w 3 Little Red Riding Hood")
            else:  # an empty link too: the server says why not
                await self.write(int(write[1]), write[2] or "")
        elif one := _ONE.match(text):
            if one[1] in ("x", "erase"):
                await self.erase(int(one[2]))
            else:
                await self.call_match(int(one[2]))
        elif vote := _VOTE.match(text):
            accept = vote[1] in ("y", "yes", "accept")
            for ballot in vote[2].split():
                await self.vote(int(ballot), accept)
        elif text in ("x", "erase", "m", "match", "y", "n", "accept", "contest"):
            self.out(f"{text} needs a number: type ? for help")
        elif text in ("a", "all"):
            ballots = t.to_vote()
            if not ballots:
                self.out("no ballot left to vote on")
            for ballot in ballots:
                await self.vote(ballot, True)
        elif text in ("d", "done"):
            await self.done()
        elif text in ("?", "h", "help"):
            self.out(HELP)
        elif text in ("l", "b", "sheet", "links"):
            self.show(sheet_lines(t))
        elif text in ("r", "read", "reading"):
            self.show(reading_lines(t))
        elif text in ("o", "s", "others", "players"):
            self.show(others_lines(t) if t.started else [waiting_line(t)])
        elif text in ("t", "time"):
            self.out(timer_line(t, self.now()))
        elif text in ("p", "points", "scores"):
            boxes = [line for scored in t.rounds for line in score_box_lines(t, scored)]
            self.show(boxes or ["no round scored yet", *others_lines(t)])
        else:
            self.out(f"not a command: {raw!r}. Type ? for help")
        self.changed()

    async def ticks(self) -> None:
        while not self.ended:
            await asyncio.sleep(0.25)
            self.tick()

    async def run_lines(self) -> int:
        """The line mode: stdin in a thread, the stream and the timer's ticks in tasks."""
        self.out(HELP)
        return await line_mode(
            self.watch,
            self.handle,
            self.out,
            ready=self.ready,
            ticks=self.ticks,
            settled=self.settle,
        )

    def settle(self) -> None:
        """The stream or the input ended: a game over is told before the tasks stop."""
        if self.tracker.game_over and not self.ended:
            self.finish()


def settings_from(writing_seconds: int | None, vote_seconds: int | None) -> Settings:
    """A new table's settings from the command line (unset: the server's defaults)."""
    return Settings(writing_seconds=writing_seconds or 0, vote_seconds=vote_seconds or 0)
