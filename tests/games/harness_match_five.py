"""MATCH 5 for the conformance suite (tests/games/harness.py): its tables, moves, refusals and
leak checks."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from match.v1 import match_five_command_pb2, match_five_pb2, race_pb2
from match_rules.game import Game, SeatInfo
from tests.games.harness import CountedMoves, Leaks

Settings = match_five_pb2.MatchFiveSettings
View = match_five_pb2.MatchFiveView
Command = match_five_command_pb2.MatchFiveCommand
# Links a table might write: equal once normalised, other spellings, and the same words again.
WORDS = ["Shark", "shark!", "SHÄRK", "Whale", "Wale", "Actor", "Aktor", "Sun", "sun", "Moon",
         "Eel", "Adam's apple", "Adams apple", "Zebra crossing", "Banana", "Tie"]  # fmt: skip
BAD_LINKS = ["", "  ?! ", "a" * 61, "new\nline", "zero\u200bwidth"]


def _write(player: str, combination: int, text: str) -> Message:
    link = Command.WriteLink(combination=combination, text=text)
    return Command(player_id=player, write_link=link)


def _erase(player: str, combination: int) -> Message:
    return Command(player_id=player, erase_link=Command.EraseLink(combination=combination))


def _done(player: str) -> Message:
    return Command(player_id=player, done=Command.Done())


def _vote(player: str, ballot: int, accept: bool = True) -> Message:
    return Command(player_id=player, vote=Command.Vote(ballot=ballot, accept=accept))


def _call(player: str, ballot: int) -> Message:
    return Command(player_id=player, call_match=Command.CallMatch(ballot=ballot))


class MatchFiveHarness:
    slug = "match_five"
    # The seats its seed allows, by hand (docs/rules-*.md): MATCH 5 is for 2 to 8 players.
    seats = (2, 8)
    # A player's moves (links written), and the least its rules page names for a rated game.
    counted_moves: CountedMoves | None = (
        lambda state, p: len(state.sheets.get(p, {})),
        3,
    )

    def tick_chance(self, state: Any) -> float:
        """The sand timer rarely (most writings end with everybody done), each vote's often."""
        return {"writing": 0.02, "reading": 0.08}.get(state.phase.value, 0.3)

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice([None, Settings(writing_seconds=30, vote_seconds=10),
                               Settings(vote_seconds=300)])  # fmt: skip
        count = rng.choice([2, 3, 3, 4, rng.randint(game.min_seats, game.max_seats)])
        return settings, [SeatInfo(n, f"p{n}", f"P{n}", False) for n in range(1, count + 1)]

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        player = rng.choice(players) if rng.random() < 0.97 else "stranger"
        r = rng.random()
        if state.phase.value == "reading":
            ballots = [b.ballot for b in state.ballots]
            links = [b.ballot for b in state.ballots if not b.is_call]
            if r < 0.55:
                return _vote(player, rng.choice(ballots), rng.random() < 0.7)
            if r < 0.75:
                return _call(player, rng.choice(links))
            if r < 0.95:
                return _done(player)
            return _vote(player, rng.randint(0, state.ballots_issued + 2))
        if r < 0.6:
            combination = rng.randint(1, 10) if rng.random() < 0.95 else rng.choice([0, 11])
            text = rng.choice(WORDS) if rng.random() < 0.95 else rng.choice(BAD_LINKS)
            return _write(player, combination, text)
        if r < 0.7:
            return _erase(player, rng.randint(1, 10))
        if r < 0.95:
            return _done(player)
        return _vote(player, 1)

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        me = players[0]
        out = [_write(me, 0, "Shark"), _write(me, 11, "Shark"), _vote(me, 0), _vote(me, 10_000),
               _call(me, 10_000), _write("stranger", 1, "Shark"), _done("stranger"),
               Command(player_id=me)]  # fmt: skip
        out += [_write(me, 1, text) for text in BAD_LINKS]
        phase = state.phase.value
        if phase in ("not_started", "over"):
            for p in players:
                out += [_write(p, 1, "Fresh"), _erase(p, 1), _done(p), _vote(p, 1), _call(p, 1)]
        if phase == "writing":
            for p in players:
                out += [_vote(p, 1), _call(p, 1)]
                links = state.links(p)
                out += [_erase(p, c) for c in range(1, 11) if c not in links][:2]
                if p in state.done:
                    out += [_done(p), _write(p, 1, "Fresh"), _erase(p, 1)]
                    continue
                for (round_, combination), text in state.sheets[p].items():
                    other = combination % 10 + 1  # reused for another combination
                    out.append(_write(p, other, text))
                    if round_ < state.round:  # round 1's, even for the same combination
                        out.append(_write(p, combination, text))
        if phase == "reading":
            links = [b for b in state.ballots if not b.is_call]
            for p in players:
                out += [_write(p, 1, "Fresh"), _erase(p, 1)]
                out += [_vote(p, b) for b in range(1, links[0].ballot)][-2:]  # closed ballots
                if p in state.done:
                    out.append(_done(p))
                own = next((b for b in links if b.player == p), None)
                if own is None:
                    out.append(_call(p, links[0].ballot))  # no link of theirs
                    continue
                out.append(_call(p, own.ballot))
                for b in state.ballots:
                    paired = own.group and b.group == own.group
                    called = b.is_call and own.ballot in (b.own, b.target)
                    if paired and b.ballot != own.ballot:
                        out.append(_call(p, b.ballot))
                    if called:
                        out.append(_call(p, b.target if b.own == own.ballot else b.own))
            for v in state.votes:
                out.append(_vote(v.player, v.ballot, not v.accept))
            for b in state.ballots:
                if b.is_call:
                    out += [_vote(b.player, b.ballot), _call(players[0], b.ballot)]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            Settings(writing_seconds=29),
            Settings(writing_seconds=601),
            Settings(vote_seconds=9),
            Settings(vote_seconds=301),
            race_pb2.RaceSettings(),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return MatchFiveLeaks(viewer)


@dataclass
class MatchFiveLeaks:
    """A link is its author's until the reading reaches its combination: another player's
    LinkWritten or LinkErased never reaches a viewer (they get WritingProgress, counts only);
    a snapshot shows the viewer's own links as theirs and no other text but links already read;
    the seed only once the game is over."""

    viewer: str
    mine: dict[tuple[int, int], str] = field(default_factory=dict)  # the truth: own links
    read: set[str] = field(default_factory=set)  # the texts of every link read so far

    def event(self, real: Any, wire: Message) -> None:
        name = type(real).__name__
        if name in ("LinkWritten", "LinkErased") and real.player == self.viewer:
            key = (real.round, real.combination)
            if name == "LinkWritten":
                self.mine[key] = real.text
            else:
                del self.mine[key]
        if name == "CombinationOpened":
            self.read |= {link.text for link in real.links}
        kind = wire.WhichOneof("event")
        if kind in ("link_written", "link_erased"):
            body = getattr(wire, kind)
            assert body.player == self.viewer, f"{body.player}'s {kind} sent to {self.viewer!r}"
        if kind == "writing_progress":
            assert wire.writing_progress.player != self.viewer  # type: ignore[attr-defined]

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, View)
        for c in view.combinations:
            assert c.your_link == self.mine.get((view.round, c.combination), ""), (
                f"{self.viewer!r} shown {c.your_link!r} as their link for {c.combination}"
            )
        texts = [b.text for b in view.ballots if b.text]
        texts += [link.text for opened in view.read for link in opened.links]
        for text in texts:
            assert text in self.read, f"{self.viewer!r} shown {text!r} before its reading"
        if view.HasField("seed"):
            assert view.phase == View.PHASE_GAME_OVER, "the seed in a live view"


HARNESS = MatchFiveHarness()
