"""MATCH 5 in the terminal client: ``--game match-5`` and its options on the command line, the
tracker and its lines (pure), ``match play --game match-5`` played by two players through the
real stack, driven only by the lines it prints (writing, refusals, votes, a "Match!", a tie, the
vote's timer, a dropped terminal back with ``--resume``, the end), and the demo's three scripted
players to the end of a game that ``match-audit verify`` then passes."""

from __future__ import annotations

import asyncio
import io
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from match.v1 import common_pb2, match_five_pb2
from match_audit.cli import main as audit_main
from match_client import cli, demo, match_five, scripted
from match_client.client import MatchClient, Seat
from match_client.clock import ServerClock
from match_client.match_five import demo as match_five_demo
from match_client.programs import runnable
from match_launch.stack import Stack
from tests.conftest import running

E = match_five_pb2.MatchFiveEvent
View = match_five_pb2.MatchFiveView
Settings = match_five_pb2.MatchFiveSettings
CATEGORIES = ["Job", "Bird", "Fruit", "City", "Book"]


def args(*argv: str) -> object:
    return cli.build_parser().parse_args(list(argv))


# --- the command line ----------------------------------------------------------------------


def test_play_takes_match_5_and_its_options() -> None:
    a = args(
        "play", "--game", "match-5", "--new", "--seats", "5", "--writing-seconds", "120",
        "--vote-seconds", "30", "--private",
    )  # fmt: skip
    assert cli.play_problem(a) is None  # type: ignore[arg-type]
    got = (a.game, a.seats, a.writing_seconds, a.vote_seconds)  # type: ignore[attr-defined]
    assert got == ("match-5", 5, 120, 30)
    assert match_five.settings_from(120, 30) == Settings(writing_seconds=120, vote_seconds=30)
    assert match_five.settings_from(None, None) == Settings()  # the server's defaults
    assert "match-5" in (demo.__doc__ or "")
    with pytest.raises(SystemExit):
        args("play", "--game", "match-5", "--new", "--vote-seconds", "soon")


def test_match_5_options_go_with_that_game_a_new_table_and_no_bot() -> None:
    def problem(*argv: str) -> str | None:
        return cli.play_problem(args("play", *argv))  # type: ignore[arg-type]

    assert problem("--new", "--writing-seconds", "60") == (
        "--writing-seconds only goes with --game match-5"
    )
    assert problem("--game", "match-5", "--new", "--hints", "2") == (
        "--hints only goes with --game race"
    )
    assert problem("--game", "match-5", "--table", "t1", "--vote-seconds", "20") == (
        "--vote-seconds only goes with --new"
    )
    assert (problem("--game", "match-5", "--new", "--fill-now") or "").startswith(
        "--fill-now: no bot plays MATCH 5"
    )
    assert problem("--game", "match-5", "--resume") is None


# --- the tracker and its lines -------------------------------------------------------------


def env(number: int, **event: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        event_number=number,
        match_five=E(**event),  # type: ignore[arg-type]
        game_kind=common_pb2.GAME_KIND_MATCH_FIVE,
    )


def test_the_tracker_follows_a_round_from_the_writing_to_the_score_box() -> None:
    t = match_five.MatchFiveTracker(player="ann", table_id="t1", names={"bob": "Bob"})
    settings = Settings(writing_seconds=60, vote_seconds=20)
    t.apply_events(
        [
            env(1, game_started=E.GameStarted(at=1_000, players=["ann", "bob"], settings=settings)),
            env(
                2,
                round_started=E.RoundStarted(
                    at=1_000, round=1, faces=[1] * 5, categories=CATEGORIES, writing_ends_at=61_000
                ),
            ),
        ]
    )
    assert (t.phase, t.round, t.deadline_ms) == (match_five.WRITING, 1, 61_000)
    assert match_five.sheet_lines(t)[:3] == [
        "round 1 categories: red: Job, yellow: Bird, green: Fruit, blue: City, purple: Book",
        "1. red and yellow, Job / Bird: no link",
        "2. red and green, Job / Fruit: no link",
    ]
    assert match_five.sheet_lines(t)[-1] == "10. blue and purple, City / Book: no link"
    written = env(3, link_written=E.LinkWritten(player="ann", round=1, combination=2, text="Fig"))
    progress = env(4, writing_progress=E.WritingProgress(player="bob", links=3))
    t.apply_events([written, progress])
    assert match_five.event_lines(written, t) == [
        'your link for 2, red and green (Job / Fruit): "Fig"'
    ]
    assert match_five.event_lines(progress, t) == []  # counts only, told by o and by Done
    assert match_five.sheet_lines(t)[2] == '2. red and green, Job / Fruit: "Fig"'
    assert match_five.others_lines(t) == [
        "you: 1 of 10 links, 0 points",
        "Bob: 3 of 10 links, 0 points",
    ]
    assert match_five.timer_line(t, 31_000) == "the sand timer runs out in 0:30"
    done = env(5, player_done=E.PlayerDone(player="bob", round=1))
    t.apply_events([done])
    assert match_five.event_lines(done, t) == ["Bob is done writing (3 links)"]

    link = E.ReadLink
    opened = E.CombinationOpened(
        at=40_000,
        round=1,
        combination=2,
        votes_end_at=60_000,
        links=[link(ballot=1, player="ann", text="Fig"), link(ballot=2, player="bob", text="Figs")],
    )
    t.apply_events([env(6, combination_opened=opened)])
    assert match_five.event_lines(env(6, combination_opened=opened), t) == [
        "reading combination 2, red and green (Job / Fruit), round 1: 2 links",
        'ballot 1: you wrote "Fig"',
        'ballot 2: Bob wrote "Figs"',
        "the vote closes in 0:20",
    ]
    call = env(7, match_called=E.MatchCalled(player="bob", ballot=3, own=2, target=1))
    vote = env(8, vote_cast=E.VoteCast(player="ann", ballot=2, accept=False))
    t.apply_events([call, vote])
    assert match_five.event_lines(call, t) == [
        'ballot 3: Match! Bob called your ballot 1 "Fig" a match of ballot 2 "Figs"',
        "y 3 agrees they match, n 3 does not",
    ]
    assert match_five.event_lines(vote, t) == ["you contest ballot 2"]
    assert t.to_vote() == [1, 3] and t.my_links() == [1]
    assert match_five.reading_lines(t)[2] == 'ballot 2: Bob wrote "Figs", your vote: contest'
    closed = E.CombinationClosed(
        round=1,
        combination=2,
        results=[
            E.BallotResult(ballot=1, accepted=True, accepts=2),
            E.BallotResult(ballot=2, accepted=False, contests=1, author_ignored=True),
            E.BallotResult(ballot=3, accepted=False, contests=1),
        ],
        scores=[E.LinkScore(ballot=1, player="ann", points=1), E.LinkScore(ballot=2, player="bob")],
    )
    t.apply_events([env(9, combination_closed=closed)])
    assert match_five.event_lines(env(9, combination_closed=closed), t) == [
        "combination 2, red and green (Job / Fruit) closed:",
        '  ballot 1, your "Fig": accepted, 2 to 0: 1 point',
        "  ballot 2, Bob's \"Figs\": refused, 0 to 1, a tie settled without the author's vote: "
        "0 points",
        "  ballot 3, Match! of ballots 2 and 1: not agreed, 0 to 1",
        "points so far: you 1, Bob 0",
    ]
    assert t.combination == 0 and t.ballots == {}
    scored = E.RoundScored(
        round=1,
        scores=[
            E.PlayerScore(player="ann", points=9, matching=2, total=9),
            E.PlayerScore(player="bob", points=12, matching=3, total=12),
        ],
    )
    t.apply_events([env(10, round_scored=scored)])
    assert match_five.event_lines(env(10, round_scored=scored), t) == [
        "round 1 score box:",
        "  you: 9 points, 2 matching links; total 9",
        "  Bob: 12 points, 3 matching links; total 12",
    ]
    ended = E.GameEnded(
        standings=[
            E.Standing(player="bob", place=1, points=20, matching=5),
            E.Standing(player="ann", place=1, points=20, matching=5),
        ]
    )
    t.apply_events([env(11, game_ended=ended)])
    assert t.game_over
    assert match_five.end_lines(t, "check this game: match-audit ...") == [
        "final standings:",
        "  1. Bob: 20 points, 5 matching links",
        "  1. you: 20 points, 5 matching links",
        "winners, sharing the victory: Bob, you",
        "check this game: match-audit ...",
    ]


def test_a_replys_event_after_a_gap_waits_for_the_stream_to_fill_it() -> None:
    t = match_five.MatchFiveTracker(player="ann", event_number=4)
    mine = env(6, link_written=E.LinkWritten(player="ann", round=1, combination=1, text="Owl"))
    assert t.apply_events([mine]) == []  # event 5 (another player's) has not come yet
    assert t.event_number == 4 and t.combinations[1].link == ""
    before = env(5, writing_progress=E.WritingProgress(player="bob", links=1))
    # The view may leave out what the reply carried (skip_answered): event 6 does not come
    # again, so the one waiting is folded once 5 is here.
    assert [e.event_number for e in t.apply_events([before])] == [5, 6]
    assert t.combinations[1].link == "Owl"


async def test_the_players_reply_before_the_event_ahead_of_it_is_told_once_the_gap_fills() -> None:
    """The view leaves out what a reply carried (skip_answered), so a reply is the only copy
    of its events: one that comes before another player's event must wait, not be dropped."""
    lines: list[str] = []
    client = MatchClient("127.0.0.1:9")  # never called: the events are handed in
    seat = Seat(table_id="t1", player_id="ann", token="x", seat=1)
    play = match_five.MatchFivePlay(client, seat, lines.append, ServerClock())
    play.tracker.event_number = 4
    mine = env(6, link_written=E.LinkWritten(player="ann", round=1, combination=1, text="Owl"))
    play.take([mine], reply=True)
    assert play.tracker.event_number == 4 and play.tracker.combinations[1].link == ""
    play.take([env(5, writing_progress=E.WritingProgress(player="bob", links=1))])
    assert play.tracker.event_number == 6 and play.tracker.combinations[1].link == "Owl"
    await client.close()


def test_a_snapshot_shows_the_open_combination_and_the_points_so_far() -> None:
    t = match_five.MatchFiveTracker(player="bob")
    opened = E.CombinationOpened(
        round=2, combination=1, links=[E.ReadLink(ballot=21, player="ann", text="Owl", group=0)]
    )
    view = View(
        table_id="t1",
        event_number=80,
        phase=View.PHASE_READING,
        you="bob",
        round=2,
        categories=CATEGORIES,
        combinations=[View.Combination(combination=1, your_link="Eagle")],
        deadline_ms=90_000,
        combination=1,
        ballots=[
            View.Ballot(ballot=21, player="ann", text="Owl", votes=1),
            View.Ballot(ballot=22, player="bob", text="Eagle", your_vote=1, votes=1),
        ],
        players=[
            View.Player(player="ann", display_name="Ann", done=True, total=9),
            View.Player(player="bob", display_name="Bob", total=12),
        ],
        closed=[
            E.CombinationClosed(round=1, combination=10, scores=[E.LinkScore(player="ann")]),
        ],
        read=[opened],
    )
    t.apply_snapshot(view)
    assert t.started and t.combinations[1].link == "Eagle"
    assert match_five.reading_lines(t) == [
        "reading combination 1, red and yellow (Job / Bird), round 2: 2 links",
        'ballot 21: Ann wrote "Owl"',
        'ballot 22: you wrote "Eagle", your vote: accept',
    ]
    assert match_five.others_lines(t) == [
        "Ann: done with combination 1, 9 points",
        "you: still on this combination, 12 points",
    ]
    assert match_five.timer_line(t, 80_000) == "the vote on combination 1 closes in 0:10"


def test_a_snapshot_at_the_end_counts_the_last_round_once() -> None:
    """The view's totals hold every round scored; at the end round 2 is scored too, and its
    closed combinations are already in them (issue 31: they were added again, 10 for 7)."""
    t = match_five.MatchFiveTracker(player="bob")

    def closed(round_: int, *scores: tuple[str, int]) -> E.CombinationClosed:
        links = [E.LinkScore(player=p, points=n) for p, n in scores]
        return E.CombinationClosed(round=round_, combination=1, scores=links)

    def scored(round_: int, ann: tuple[int, int], bob: tuple[int, int]) -> E.RoundScored:
        return E.RoundScored(
            round=round_,
            scores=[
                E.PlayerScore(player="ann", points=ann[0], total=ann[1]),
                E.PlayerScore(player="bob", points=bob[0], total=bob[1]),
            ],
        )

    view = View(
        table_id="t1",
        event_number=120,
        phase=View.PHASE_GAME_OVER,
        you="bob",
        round=2,
        categories=CATEGORIES,
        players=[
            View.Player(player="ann", display_name="Ann", total=7),
            View.Player(player="bob", display_name="Bob", total=6),
        ],
        closed=[closed(1, ("ann", 4), ("bob", 3)), closed(2, ("ann", 3), ("bob", 3))],
        rounds=[scored(1, (4, 4), (3, 3)), scored(2, (3, 7), (3, 6))],
        standings=[
            E.Standing(player="ann", place=1, points=7),
            E.Standing(player="bob", place=2, points=6),
        ],
    )
    t.apply_snapshot(view)
    assert [t.points("ann"), t.points("bob")] == [7, 6]
    assert match_five.others_lines(t) == ["Ann: 7 points", "you: 6 points"]


# --- through the real stack ------------------------------------------------------------------


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    anchor = str(int(time.time() * 1000))
    clock = {"REFEREE_CLOCK_RATE": "10", "REFEREE_CLOCK_ANCHOR_MS": anchor}
    s = Stack(
        tmp_path_factory.mktemp("match-five") / "stack",
        services=("dealer", "referee", "lobby", "ledger"),
        env=clock,
    )
    yield from running(s)


BALLOT = re.compile(r'^ballot (\d+): (you|\w+) wrote "(.*)"')


class Lines:
    """A ``match`` process's output, read line by line."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process) -> None:
        self.name = name
        self.proc = proc
        self.lines: list[str] = []
        self.ballots: dict[str, int] = {}  # "you:Shark" -> its ballot, as the lines said

    async def next(self) -> str:
        try:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), 30)  # type: ignore[union-attr]
        except TimeoutError:
            raise AssertionError(f"{self.name}: no line for 30 s after:\n" + self.text()) from None
        assert raw, f"{self.name} ended:\n" + self.text()
        self.lines.append(raw.decode().rstrip("\n"))
        if m := BALLOT.match(self.lines[-1]):
            self.ballots[f"{m[2]}:{m[3]}"] = int(m[1])
        return self.lines[-1]

    def text(self) -> str:
        return "\n".join(self.lines)

    async def until(self, *prefixes: str) -> str:
        while True:
            line = await self.next()
            if line.startswith(prefixes):
                return line

    async def type(self, text: str) -> None:
        self.proc.stdin.write(f"{text}\n".encode())  # type: ignore[union-attr]
        await self.proc.stdin.drain()  # type: ignore[union-attr]

    async def refused(self, command: str, *codes: str) -> str:
        """The refusal of ``command``: the server's message, then its code (any of ``codes``;
        a link's face is checked at the lobby's edge, whose INVALID_ARGUMENT has no code)."""
        await self.type(command)
        line = await self.until("refused: ")
        assert line.endswith(tuple(f"({c})" for c in codes)), f"{self.name}: {command!r} -> {line}"
        return line


async def start(stack: Stack, state: Path, name: str, *argv: str) -> Lines:
    env_vars = {
        **os.environ,
        "MATCH_STATE_DIR": str(state),
        "MATCH_CONFIG_DIR": str(state / "config"),  # each player their own key
        "MATCH_PLAIN": "1",
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "match_client.cli", "--addr", stack.lobby_addr, "play", *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env_vars,
    )  # fmt: skip
    return Lines(name, proc)


async def stop(out: Lines | None) -> None:
    if out is not None and out.proc.returncode is None:
        out.proc.kill()
        await out.proc.wait()


async def sheet(out: Lines, round_: int) -> list[str]:
    """The categories line and the 10 combinations that follow it."""
    first = await out.until(f"round {round_} categories: ")
    return [first, *[await out.next() for _ in range(10)]]


async def test_two_players_play_a_whole_game_from_the_lines(stack: Stack, tmp_path: Path) -> None:
    """Ann and Bob each type into their own ``match play --game match-5`` and read only what it
    prints, as a person with a screen reader would."""
    ann = await start(
        stack, tmp_path / "ann", "Ann", "--game", "match-5", "--new", "--seats", "2",
        "--name", "Ann", "--writing-seconds", "300", "--vote-seconds", "100",
    )  # fmt: skip
    bob: Lines | None = None
    try:
        table = (await ann.until("table ")).split()[1].rstrip(",")
        assert await ann.until("the others join with: ") == (
            f"the others join with: {runnable('match')} --addr {stack.lobby_addr} play "
            f"--table {table}"
        )
        assert await ann.until("waiting for players: ") == (
            "waiting for players: 1 of 2 seats taken; the game starts when every seat is taken"
        )
        bob = await start(stack, tmp_path / "bob", "Bob", "--table", table, "--name", "Bob")
        assert (await ann.until("the game starts: ")) == (
            "the game starts: 2 rounds, the sand timer 300 s, each combination's vote 100 s. "
            "Players: you, Bob"
        )
        lines = await sheet(ann, 1)
        assert lines[1].startswith("1. red and yellow, ") and lines[1].endswith(": no link")
        assert lines[10].startswith("10. blue and purple, ")
        assert (await ann.next()).startswith("the sand timer runs out in 5:00")
        assert (await sheet(bob, 1))[1:] == lines[1:]  # Bob's snapshot: the same sheet
        await bob.until("the sand timer runs out in ")

        # --- the writing, and every refusal with its message and code
        await ann.type("w 1 Shark")
        assert (await ann.until("your link for 1")).endswith('): "Shark"')
        edge = "invalid_argument"
        await ann.refused("w 11 Whale", "combination_out_of_range", edge)
        await ann.refused("w 2 " + "x" * 61, "link_too_long", edge)
        line = await ann.refused("w 2 shark!", "link_reused")
        assert 'you wrote "Shark" for combination 1' in line
        await ann.refused("w 2", "link_empty", edge)
        await ann.type("w 2 Doughnut")
        await ann.until("your link for 2")
        await ann.type("x 2")
        assert (await ann.until("your link for 2")).endswith(" is erased")
        await ann.refused("x 2", "no_link")
        await ann.refused("y 1", "not_reading")
        await ann.type("w 2 Doughnut")
        await ann.until("your link for 2")
        assert sum(x.startswith("round 1 categories: ") for x in ann.lines) == 1  # told once
        await ann.type("l")
        mine = await sheet(ann, 1)
        assert mine[1].endswith(': "Shark"') and mine[2].endswith(': "Doughnut"')
        for text in ("w 1 shark", "w 2 Donut", "w 3 Lion"):
            await bob.type(text)
            await bob.until("your link for ")
        await ann.type("o")
        assert await ann.until("you: ") == "you: 2 of 10 links, 0 points"
        assert (await ann.next()).startswith("Bob: ")  # a count, maybe not all three yet
        await ann.type("d")
        assert (await ann.until("you are done writing")).startswith(
            "you are done writing, with 2 links"
        )
        await ann.refused("w 3 Lion", "already_done")
        assert await bob.until("Ann is done writing") == "Ann is done writing (2 links)"
        await bob.type("d")

        # --- combination 1: the server groups "Shark" and "shark"
        for out in (ann, bob):
            assert (await out.until("reading combination 1, ")).endswith(", round 1: 2 links")
        assert await ann.next() == 'ballot 1: you wrote "Shark" (group 1)'
        assert await ann.next() == 'ballot 2: Bob wrote "shark" (group 1)'
        await ann.type("y 1 2")
        assert await ann.until("you accept ballot 1") == "you accept ballot 1"
        assert await ann.until("you accept ballot 2") == "you accept ballot 2"
        await ann.refused("y 2", "already_voted")
        await ann.refused("m 2", "already_matching")
        await bob.type("a")
        await bob.until("you accept ballot 2")
        await ann.type("d")
        await bob.type("d")
        header = await ann.until("combination 1, ")
        assert header.startswith("combination 1, red and yellow (") and header.endswith(") closed:")
        assert await ann.next() == (
            '  ballot 1, your "Shark": accepted, 2 to 0: 2 points, a matching link'
        )
        assert await ann.next() == (
            '  ballot 2, Bob\'s "shark": accepted, 2 to 0: 2 points, a matching link'
        )
        assert await ann.next() == "points so far: you 2, Bob 2"

        # --- combination 2: "Match!" on a word spelt another way; a tie on Ann's link
        await ann.until("reading combination 2, ")
        await bob.until("reading combination 2, ")
        await ann.until('ballot 4: Bob wrote "Donut"')
        doughnut, donut = ann.ballots["you:Doughnut"], ann.ballots["Bob:Donut"]
        await ann.refused(f"m {doughnut}", "own_link")
        await ann.type(f"m {donut}")
        call = await ann.until(f"ballot {donut + 1}: Match!")
        assert call == (
            f'ballot {donut + 1}: Match! you called Bob\'s ballot {donut} "Donut" a match of '
            f'ballot {doughnut} "Doughnut"'
        )
        assert await ann.next() == "the others vote on it"
        assert (await bob.until(f"ballot {donut + 1}: Match! Ann called your ballot")).endswith(
            f'a match of ballot {doughnut} "Doughnut"'
        )
        assert await bob.next() == f"y {donut + 1} agrees they match, n {donut + 1} does not"
        await ann.refused(f"y {donut + 1}", "own_call")
        await ann.type(f"y {doughnut} {donut}")
        await ann.until(f"you accept ballot {donut}")
        await bob.type(f"n {doughnut}")
        assert await bob.until("you contest") == f"you contest ballot {doughnut}"
        await bob.type(f"y {donut} {donut + 1}")
        assert await bob.until(f"you agree ballot {donut + 1}") == (
            f"you agree ballot {donut + 1} is a match"
        )
        await ann.type("d")
        await bob.type("d")
        await ann.until("combination 2, ")
        assert await ann.next() == (
            f'  ballot {doughnut}, your "Doughnut": refused, 0 to 1, a tie settled without the '
            "author's vote: 0 points"
        )
        assert await ann.next() == f'  ballot {donut}, Bob\'s "Donut": accepted, 2 to 0: 1 point'
        assert await ann.next() == (
            f"  ballot {donut + 1}, Match! of ballots {doughnut} and {donut}: agreed, 1 to 0"
        )
        assert await ann.next() == "points so far: you 2, Bob 3"

        # --- combination 3: Bob says nothing; the vote's timer closes it
        await ann.until("reading combination 3, ")
        lion = await ann.until('ballot 6: Bob wrote "Lion"')
        assert lion == 'ballot 6: Bob wrote "Lion"'
        await ann.type("y 6")
        await ann.until("you accept ballot 6")
        await ann.type("d")
        await ann.until("you are done with combination 3")
        await bob.until("Ann is done with combination 3")
        await bob.type("o")
        assert await bob.until("Ann: ") == "Ann: done with combination 3, 2 points"
        assert await bob.next() == "you: still on this combination, 3 points"
        await bob.type("t")
        timer = await bob.until("the vote on combination 3 closes in ")
        assert re.fullmatch(r"the vote on combination 3 closes in [01]:\d\d", timer), timer
        await ann.until("combination 3, ")  # the timer: 100 s, 10 s of the wall
        assert await ann.next() == '  ballot 6, Bob\'s "Lion": accepted, 1 to 0: 1 point'
        # combinations 4 to 10 have no link: each opens and closes at once
        assert (await ann.until("combination 10, ")).endswith(": nobody wrote a link for it")
        assert await ann.until("round 1 score box:") == "round 1 score box:"
        assert await ann.next() == "  you: 2 points, 1 matching link; total 2"
        assert await ann.next() == "  Bob: 4 points, 1 matching link; total 4"

        # --- round 2: a link of round 1 is refused; Bob's terminal dies and comes back
        await ann.until("round 2: the dice are rolled")
        await ann.refused("w 1 SHARK", "link_reused")
        await ann.type("w 1 Banana")
        await ann.until("your link for 1")
        await bob.until("round 2 categories: ")
        await bob.type("w 1 banana")
        await bob.until("your link for 1")
        await stop(bob)  # the terminal is closed
        bob = await start(stack, tmp_path / "bob", "Bob", "--resume")
        assert await bob.until("back at table ") == f"back at table {table}, your seat 2"
        assert (await bob.until("the game: ")).endswith("; round 2 of 2")
        back = await sheet(bob, 2)
        assert back[1].endswith(': "banana"')  # the link written before the drop
        await bob.type("d")
        await ann.type("d")
        await ann.until("reading combination 1, ")
        await ann.until('ballot 8: Bob wrote "banana" (group 1)')
        await bob.until('ballot 8: you wrote "banana" (group 1)')
        for out in (ann, bob):
            await out.type("a")
            await out.until("you accept ballot 8")
            await out.type("d")
        assert await ann.until("round 2 score box:") == "round 2 score box:"
        assert await ann.next() == "  you: 2 points, 1 matching link; total 4"
        assert await ann.next() == "  Bob: 2 points, 1 matching link; total 6"

        # --- the end
        for out, me in ((ann, "you"), (bob, "Ann")):
            await out.until("the game is over")
            await out.until("final standings:")
            bob_first = "you" if me == "Ann" else "Bob"
            assert await out.next() == f"  1. {bob_first}: 6 points (4 + 2), 2 matching links"
            assert await out.next() == f"  2. {me}: 4 points (2 + 2), 2 matching links"
            assert await out.next() == f"winner: {bob_first}"
            assert await out.next() == "the published seed matches the commitment"
            audit = await out.next()
            assert audit.startswith(
                f"check this game against the ledger: {runnable('match-audit')} verify {table} "
                "--key "
            )
            assert await asyncio.wait_for(out.proc.wait(), 30) == 0, out.text()
        await verified(stack, table)
    finally:
        await stop(ann)
        await stop(bob)


# --- the demo ------------------------------------------------------------------------------


async def verified(stack: Stack, game: str) -> None:
    """``match-audit verify <id> --key <ledger.vkey>`` exits 0 for the game."""
    vkey = str(stack.workdir / "ledger.vkey")
    for _ in range(100):  # the ledger publishes a game once it has its last record
        out = io.StringIO()
        argv = ["verify", game, "--addr", stack.ledger_addr, "--key", vkey]
        code = await asyncio.to_thread(audit_main, argv, out, out)
        if "FAILED_PRECONDITION" not in out.getvalue():
            break
        await asyncio.sleep(0.1)
    assert code == 0, out.getvalue()


async def test_the_demo_plays_three_players_to_the_end_and_the_audit_passes(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("REFEREE_CLOCK_RATE", "REFEREE_CLOCK_ANCHOR_MS"):
        monkeypatch.setenv(name, stack.env[name])  # the players' clocks, as the system's
    lines: list[str] = []
    # Timers long enough for a loaded machine (the ten-times clock makes 30 s three of the
    # wall): the players say Done, so the game takes no longer.
    code = await match_five_demo.demo_match_five(
        stack.lobby_addr, out=lines.append, writing_seconds=120, vote_seconds=60
    )
    text = "\n".join(lines)
    assert code == 0, text
    assert re.fullmatch(r"game [0-9a-f]+", lines[0]), text
    game = lines[0].split()[1]
    assert lines[1] == "players: Ann, Bob, Cid; the sand timer 120 s, each combination's vote 60 s"
    assert any(x.startswith('Ann called Match! on "Donut": ') for x in lines), text
    assert any("(link_reused)" in x for x in lines), text  # Cid's round-1 link, refused
    for round_ in (1, 2):
        assert any(re.match(rf"round {round_} scores: Ann \d+ \(\d+ matching", x) for x in lines)
    assert "final standings:" in lines, text
    assert any(x.startswith(("winner: ", "winners, sharing the victory: ")) for x in lines), text
    assert lines[-1] == f"check this game against the ledger: {scripted.audit_command(game)}"
    await verified(stack, game)


async def test_a_refused_setting_is_told_by_the_option_typed(stack: Stack, tmp_path: Path) -> None:
    """The lobby names the API's field (``writing_seconds``); the person typed an option."""
    out = await start(
        stack, tmp_path, "ann", "--game", "match-5", "--new", "--writing-seconds", "5",
        "--name", "Ann",
    )  # fmt: skip
    try:
        line = await out.until("error: ")
        assert line.startswith(
            "error: --writing-seconds 5 (sent as match_five.writing_seconds = 5): writing_seconds"
        ), line
        assert await out.proc.wait() == 1
    finally:
        await stop(out)


async def test_an_invite_code_is_judged_by_the_lobby_alone(stack: Stack, tmp_path: Path) -> None:
    """The client sends the code as typed: the lobby takes 12 characters, and 8 from codes
    made before 12, separators dropped, so no check of the client's can fall behind it."""
    for code, status in (("BADCODE", "(invalid_argument)"), ("ABCD-EFGH", "(not_found)")):
        out = await start(stack, tmp_path, "ann", "--invite", code, "--name", "Ann")
        try:
            line = await out.until("error: ")
            assert line.endswith(status), line
        finally:
            await stop(out)
