"""Match Cards in the terminal client: ``--game match-cards`` and its options on the command line,
the tracker and its lines (pure), and ``match play --game match-cards --plain`` playing a whole
game through the real stack, driven only by the lines it prints."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from match.v1 import common_pb2, match_cards_pb2
from match_client import cli, match_cards
from match_client.client import MatchClient
from match_client.match_cards.screen import CardCell, MatchCardsApp
from match_client.programs import runnable
from match_launch.stack import Stack
from tests.conftest import running

E = match_cards_pb2.MatchCardsEvent
View = match_cards_pb2.MatchCardsView
Settings = match_cards_pb2.MatchCardsSettings


def args(*argv: str) -> object:
    return cli.build_parser().parse_args(list(argv))


# --- the command line ----------------------------------------------------------------------


def test_play_takes_match_cards_and_its_options() -> None:
    a = args(
        "play", "--game", "match-cards", "--new", "--seats", "3", "--cards", "18", "--triples",
        "--difficulty", "hard", "--pictures", "fruit",
    )  # fmt: skip
    assert cli.play_problem(a) is None  # type: ignore[arg-type]
    got = (a.game, a.seats, a.cards, a.triples, a.difficulty, a.pictures)  # type: ignore[attr-defined]
    assert got == ("match-cards", 3, 18, True, "hard", "fruit")
    assert match_cards.settings_from(18, True, "hard", "fruit", None) == Settings(
        mode=Settings.MODE_TRIPLES,
        cards=18,
        difficulty=Settings.DIFFICULTY_HARD,
        pictures="fruit",
    )
    assert match_cards.settings_from(None, False, None, None, " MM3-X ") == Settings(code="MM3-X")
    replay = args("play", "--game", "match-cards", "--new", "--code", "MM3-PAEA-AAAAA")
    assert cli.play_problem(replay) is None  # type: ignore[arg-type]
    with pytest.raises(SystemExit):
        args("play", "--game", "match-cards", "--new", "--difficulty", "brutal")


def test_match_cards_options_go_with_that_game_and_a_new_table() -> None:
    def problem(*argv: str) -> str | None:
        return cli.play_problem(args("play", *argv))  # type: ignore[arg-type]

    assert problem("--new", "--triples") == "--triples only goes with --game match-cards"
    assert problem("--game", "concentration", "--new", "--code", "X") == (
        "--code only goes with --game match-cards"
    )
    assert problem("--new", "--cards", "12") == (
        "--cards only goes with --game concentration or --game match-cards"
    )
    assert problem("--game", "match-cards", "--new", "--playing-cards") == (
        "--playing-cards only goes with --game concentration"
    )
    assert problem("--game", "match-cards", "--table", "t1", "--cards", "12") == (
        "--cards only goes with --new"
    )
    assert problem("--game", "match-cards", "--table", "t1", "--difficulty", "hard") == (
        "--difficulty only goes with --new"
    )
    assert problem("--game", "match-cards", "--new", "--fill-now") == (
        "--fill-now: a solo Match Cards table has no empty seat; add --seats 2 (up to 4)"
    )
    assert problem("--game", "match-cards", "--new", "--seats", "2", "--fill-now") is None
    assert problem("--game", "match-cards", "--resume") is None


# --- the tracker and its lines -------------------------------------------------------------


def env(number: int, **event: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        event_number=number, match_cards=E(**event), game_kind=common_pb2.GAME_KIND_MATCH_CARDS
    )


def started(players: list[str], **settings: object) -> common_pb2.EventEnvelope:
    s = Settings(cards=12, **settings)  # type: ignore[arg-type]
    game = E.GameStarted(at=1_000, players=players, settings=s, limit=11, ends_at=3_601_000)
    return env(1, game_started=game)


def test_the_tracker_follows_turns_compares_the_notice_and_the_end() -> None:
    t = match_cards.MatchCardsTracker(player="ann", table_id="t1", names={"bob": "Bob"})
    hard = Settings.DIFFICULTY_HARD
    t.apply_events([started(["ann", "bob"], difficulty=hard)])
    assert (t.size, t.columns, t.groups_total, t.limit, t.notice_on) == (12, 4, 6, 11, True)
    assert match_cards.board_lines(t)[0] == "row 1: [1]  [2]  [3]  [4]"
    new = t.apply_events(
        [
            env(2, card_turned=E.CardTurned(player="ann", card=1, picture="cat-grey")),
            env(
                3,
                card_turned=E.CardTurned(
                    player="ann", card=2, picture="cat-ginger", compare_at=5_000
                ),
            ),
        ]
    )
    assert len(new) == 2 and t.up == [1, 2] and t.compare_at_ms == 5_000
    assert match_cards.board_lines(t)[0] == "row 1: [1 cat, grey]  [2 cat, ginger]  [3]  [4]"
    lines = [line for e in new for line in match_cards.event_lines(e, t)]
    assert lines == ["card 1: cat, grey", "card 2: cat, ginger (comparing for 1.5 s)"]
    assert t.apply_events(new) == []  # once only
    failed = env(
        4, attempt_failed=E.AttemptFailed(player="ann", cards=[1, 2], failed=1, notice=True)
    )
    t.apply_events([failed])
    assert t.up == [] and t.cards[1].picture == "" and t.seen[1] == "cat-grey"  # down: no picture
    assert t.notice == ((1, 2), False) and t.compare_at_ms == 0
    assert match_cards.event_lines(failed, t) == [
        "no match: cards 1, 2 turn face down, 1 of 11 failed attempts",
        "Different pictures",
    ]
    t.apply_events(
        [
            env(5, card_turned=E.CardTurned(player="ann", card=3, picture="cat-grey")),
            env(6, card_turned=E.CardTurned(player="ann", card=1, picture="cat-grey")),
        ]
    )
    assert t.known_group() == [1, 3] and t.unseen() == list(range(4, 13))
    found = env(7, group_found=E.GroupFound(player="ann", cards=[3, 1], groups=1, notice=True))
    t.apply_events([found])
    assert match_cards.event_lines(found, t) == [
        "found: cat, grey (cards 3, 1), 1 of 6 groups",
        "Same picture",
    ]
    assert "[1 found: cat, grey]" in match_cards.board_lines(t)[0]
    assert match_cards.counters_line(t, 61_000) == (
        "1 of 6 groups found, time 1:00, 1 of 11 failed attempts"
    )
    off = env(8, notice_turned_off=E.NoticeTurnedOff(player="ann"))
    t.apply_events([off])
    assert not t.notice_on and t.notice is None
    assert match_cards.event_lines(off, t) == [
        "the Same/Different pictures notice is off for the rest of the game"
    ]
    # the other player: counts only, told once an attempt is over
    turning = env(9, opponent_progress=E.OpponentProgress(player="bob", turned=1))
    done = env(10, opponent_progress=E.OpponentProgress(player="bob", groups=2, failed=1))
    t.apply_events([turning])
    assert match_cards.event_lines(turning, t) == []
    assert match_cards.others_lines(t) == ["Bob: 0 groups found, 0 failed attempts (1 card turned)"]
    t.apply_events([done])
    assert match_cards.event_lines(done, t) == ["Bob: 2 groups found, 1 failed attempt"]
    bob_won = E.PlayerFinished(player="bob", won=True, groups=6, failed=1, time_ms=42_000)
    ann_lost = E.PlayerFinished(player="ann", won=False, groups=1, failed=11, time_ms=90_000)
    t.apply_events([env(11, player_finished=bob_won), env(12, player_finished=ann_lost)])
    assert match_cards.others_lines(t) == [
        "Bob: 6 groups found, 1 failed attempt (finished, won in 0:42)"
    ]
    assert match_cards.event_lines(env(12, player_finished=ann_lost), t) == [
        "your game is over: you reached the limit of failed attempts (1:30)"
    ]
    assert match_cards.counters_line(t, 999_000) == (
        "1 of 6 groups found, time 1:30, 11 of 11 failed attempts"
    )  # the time stops at the player's end
    standing = match_cards_pb2.MatchCardsStanding
    ended = E.GameEnded(
        standings=[
            standing(player="bob", place=1, won=True, groups=6, failed=1, time_ms=42_000),
            standing(player="ann", place=2, groups=1, failed=11, time_ms=90_000),
        ],
        code="MM3-PAEA-ABCDE",
    )
    t.apply_events([env(13, game_ended=ended)])
    assert t.game_over and t.code == "MM3-PAEA-ABCDE"
    assert match_cards.end_lines(t, "check this game against the ledger: match-audit ...") == [
        "result: you lost",
        "counters: 1 of 6 groups found, time 1:30, 11 of 11 failed attempts",
        "final standings:",
        "  1. Bob: 6 groups, 1 failed attempt, 0:42 (won)",
        "  2. you: 1 group, 11 failed attempts, 1:30",
        "game code: MM3-PAEA-ABCDE",
        "replay it: match play --game match-cards --new --code MM3-PAEA-ABCDE",
        "check this game against the ledger: match-audit ...",
    ]


def test_a_snapshot_shows_pictures_only_of_turned_and_found_cards() -> None:
    t = match_cards.MatchCardsTracker(player="ann")
    pic = match_cards_pb2.MatchCardsPicture
    view = View(
        table_id="t1",
        event_number=30,
        phase=View.PHASE_PLAYING,
        you="ann",
        settings=Settings(cards=20, mode=Settings.MODE_PAIRS, pictures="fruit"),
        limit=36,
        groups_total=10,
        started_at_ms=1_000,
        columns=5,
        cards=[
            View.Card(card=1, state=View.CARD_STATE_DOWN),
            View.Card(card=2, state=View.CARD_STATE_UP, picture=pic(id="kiwi", name="kiwi")),
            View.Card(card=3, state=View.CARD_STATE_FOUND, picture=pic(id="fig", name="fig")),
            View.Card(card=4, state=View.CARD_STATE_FOUND, picture=pic(id="fig", name="fig")),
            View.Card(card=5, state=View.CARD_STATE_DOWN),
            View.Card(card=6, state=View.CARD_STATE_DOWN),
        ],
        compare_at_ms=0,
        players=[View.Player(player="ann", display_name="Ann", groups=1, turned=1)],
    )
    t.apply_snapshot(view)
    assert t.event_number == 30 and t.seen == {2: "kiwi", 3: "fig", 4: "fig"}
    assert match_cards.board_lines(t) == [
        "row 1: [1]  [2 kiwi]  [3 found: fig]  [4 found: fig]  [5]",
        "row 2: [6]",
    ]
    assert match_cards.settings_text(t) == "6 cards in pairs, easy, fruit, 36 failed attempts lose"
    assert match_cards.counters_line(t, 11_000) == (
        "1 of 10 groups found, time 0:10, 0 of 36 failed attempts"
    )
    assert match_cards.others_lines(t) == []
    over = View(phase=View.PHASE_GAME_OVER, code="MM3-X", replay=True)
    t.apply_snapshot(over)
    assert t.game_over and "this game replayed a code: it is not ranked" in match_cards.end_lines(t)


# --- a whole game in the line mode, through the real stack ---------------------------------


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    anchor = str(int(time.time() * 1000))
    clock = {"REFEREE_CLOCK_RATE": "10", "REFEREE_CLOCK_ANCHOR_MS": anchor}
    s = Stack(tmp_path / "stack", services=("dealer", "referee", "lobby", "ledger"), env=clock)
    yield from running(s)


CARD = re.compile(r"^card (\d+): (.+?)( \(comparing for 1\.5 s\))?$")


async def until(test: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        await asyncio.sleep(0.05)


async def test_match_play_plain_plays_a_whole_game_from_its_lines(
    stack: Stack, tmp_path: Path
) -> None:
    """A scripted player reads only what ``match play --game match-cards --plain`` prints (the
    pictures of the cards it turned) and types card numbers, as a person with a screen reader
    would; it remembers every picture and wins, and the end names the code and the audit."""
    env_vars = {**os.environ, "MATCH_STATE_DIR": str(tmp_path / "state"), "MATCH_PLAIN": "1"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "match_client.cli", "--addr", stack.lobby_addr, "play",
        "--game", "match-cards", "--new", "--name", "Ann", "--difficulty", "hard",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env_vars,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    lines: list[str] = []
    seen: dict[int, str] = {}
    found: set[int] = set()

    async def next_line() -> str:
        raw = await asyncio.wait_for(proc.stdout.readline(), 30)  # type: ignore[union-attr]
        assert raw, "\n".join(lines)
        lines.append(raw.decode().rstrip("\n"))
        return lines[-1]

    async def until(prefix: str) -> str:
        while True:
            line = await next_line()
            if m := CARD.match(line):
                seen[int(m.group(1))] = m.group(2)
            if line.startswith(prefix):
                return line

    async def type_(card: int) -> None:
        proc.stdin.write(f"{card}\n".encode())  # type: ignore[union-attr]
        await proc.stdin.drain()  # type: ignore[union-attr]

    try:
        await until("row 3:")  # the copy is shown: 12 cards, 4 a row
        notice_turned_off = False
        while len(found) < 12:
            loose: dict[str, list[int]] = {}
            for card, picture in sorted(seen.items()):
                if card not in found:
                    loose.setdefault(picture, []).append(card)
            pair = next((c[:2] for c in loose.values() if len(c) >= 2), None)
            hidden = [c for c in range(1, 13) if c not in found]
            if pair is None:
                first = next(c for c in hidden if c not in seen)
                await type_(first)
                await until(f"card {first}:")
                partner = next(
                    (c for c in loose.get(seen[first], []) if c != first),
                    next((c for c in hidden if c not in seen and c != first), None),
                )
                pair = [first, partner or next(c for c in hidden if c != first)]
                await type_(pair[1])
            else:
                for card in pair:
                    await type_(card)
            outcome = await until(("found:", "no match:"))  # type: ignore[arg-type]
            if outcome.startswith("found:"):
                found.update(pair)
            notice = await next_line()
            if not notice_turned_off:  # Hard: the notice is told until it is turned off
                assert notice in ("Same picture", "Different pictures"), lines
                proc.stdin.write(b"n\n")
                await proc.stdin.drain()
                await until("the Same/Different pictures notice is off")
                notice_turned_off = True
            else:
                assert notice not in ("Same picture", "Different pictures"), lines
        await until("result: ")
        assert lines[-1] == "result: you won"
        counters = await next_line()
        assert re.match(r"counters: 6 of 6 groups found, time \d+:\d\d, \d+ of 11 failed", counters)
        code = await until("game code: MM3-")
        replay = await next_line()
        # It works as printed: the stack is not on the default address.
        assert replay == (
            f"replay it: {runnable('match')} --addr {stack.lobby_addr} play --game match-cards "
            f"--new --code {code[11:]}"
        )
        audit = await until(
            f"check this game against the ledger: {runnable('match-audit')} verify "
        )
        assert "--key " in audit
        proc.stdin.close()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


# --- the full-screen view, through the real stack --------------------------------------------


async def test_the_full_screen_view_shows_the_copy_the_counters_the_notice_and_the_end(
    stack: Stack, tmp_path: Path
) -> None:
    """Textual's pilot plays a solo Hard game as a person would: cards typed (and one clicked),
    pictures read from the log, Hard's notice shown then turned off; the grid shows a picture
    only on cards turned or found, the counters count, and the end shows the result and code."""
    env = {k: stack.env[k] for k in ("REFEREE_CLOCK_RATE", "REFEREE_CLOCK_ANCHOR_MS")}
    settings = cli.Settings.from_env({**env, "MATCH_STATE_DIR": str(tmp_path / "state")})
    async with MatchClient(stack.lobby_addr) as client:
        seat = await client.create_table(
            Settings(difficulty=Settings.DIFFICULTY_HARD), display_name="Ann"
        )
        play = match_cards.MatchCardsPlay(client, seat, print, settings.server_clock())
        app = MatchCardsApp(play, [f"table {seat.table_id}, your seat 1, as Ann"])
        async with app.run_test(size=(120, 40)) as pilot:

            def text(widget: str) -> str:
                return str(app.query_one(widget, Static).content)

            def cell(n: int) -> CardCell:
                return app.query_one(f"#card-{n}", CardCell)

            def seen() -> dict[int, str]:
                return {int(m[1]): m[2] for x in app.lines if (m := CARD.match(x))}

            def outcomes() -> int:
                return sum(x.startswith(("found:", "no match:")) for x in app.lines)

            async def turn(card: int, click: bool = False) -> None:
                if click:
                    await pilot.pause()  # the grid laid out as the last redraw left it
                    landed = await pilot.click(f"#card-{card}")
                    assert landed, f"the click missed card {card}: {app.lines[-5:]}"
                else:
                    await pilot.press(*str(card), "enter")
                await until(lambda: card in seen(), f"card {card} to be shown: {app.lines[-5:]}")

            await until(lambda: "Match Cards · table" in text("#title"), "the title")
            await until(lambda: "0 of 6 groups found" in text("#counters"), "the counters")
            assert "12 cards in pairs, hard" in text("#title")
            shown = [n for n in range(1, 61) if not cell(n).has_class("hidden")]
            assert shown == list(range(1, 13))
            assert all(str(cell(n).content).strip() == str(n) for n in shown)  # all face down

            found: set[int] = set()
            clicked = False
            while len(found) < 12:
                loose: dict[str, list[int]] = {}
                for card, picture in sorted(seen().items()):
                    if card not in found:
                        loose.setdefault(picture, []).append(card)
                pair = next((c[:2] for c in loose.values() if len(c) >= 2), None)
                before = outcomes()
                if pair is None:
                    hidden = [c for c in range(1, 13) if c not in found]
                    first = next(c for c in hidden if c not in seen())
                    await turn(first, click=not clicked)
                    clicked = True
                    assert cell(first).has_class("up")
                    assert str(cell(first).content).startswith(f"{first} ")  # and its picture
                    partner = next((c for c in loose.get(seen()[first], []) if c != first), None)
                    unseen = [c for c in hidden if c not in seen()]
                    pair = [first, partner or (unseen or [c for c in hidden if c != first])[0]]
                    await turn(pair[1])
                else:
                    for card in pair:
                        await turn(card)
                await until(lambda b=before: outcomes() > b, "the compare")  # type: ignore[misc]
                last = [x for x in app.lines if x.startswith(("found:", "no match:"))][-1]
                if last.startswith("found:"):
                    found.update(pair)
                    assert all(cell(c).has_class("found") for c in pair)
                else:
                    assert not any(cell(c).has_class("up") for c in pair)
                if "notice is off" not in " ".join(app.lines):
                    assert text("#notice").startswith(("Same picture", "Different pictures"))
                    await pilot.press("n", "enter")
                    await until(lambda: text("#notice") == "", "the notice to be turned off")
            await until(lambda: "result: you won" in text("#others"), "the end")
            assert "game code: MM3-" in text("#others")
            assert re.search(
                r"6 of 6 groups found, time \d+:\d\d, \d+ of 11 failed", text("#counters")
            )
            app.save_screenshot("match-cards.svg", str(tmp_path))


async def test_a_killed_terminal_resumes_its_game_with_the_card_it_had_turned(
    stack: Stack, tmp_path: Path
) -> None:
    """``match play --resume`` after the process was killed mid-attempt: the same game, its
    settings said once, the card turned before still up, and the attempt goes on."""
    env_vars = {**os.environ, "MATCH_STATE_DIR": str(tmp_path / "state"), "MATCH_PLAIN": "1"}
    base = [sys.executable, "-m", "match_client.cli", "--addr", stack.lobby_addr, "play"]

    async def run(*argv: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *base, *argv, env=env_vars,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip

    async def until(proc: asyncio.subprocess.Process, prefix: str, lines: list[str]) -> str:
        while True:
            raw = await asyncio.wait_for(proc.stdout.readline(), 30)  # type: ignore[union-attr]
            assert raw, "\n".join(lines)
            lines.append(raw.decode().rstrip("\n"))
            if lines[-1].startswith(prefix):
                return lines[-1]

    async def type_(proc: asyncio.subprocess.Process, text: str) -> None:
        proc.stdin.write(f"{text}\n".encode())  # type: ignore[union-attr]
        await proc.stdin.drain()  # type: ignore[union-attr]

    first_lines: list[str] = []
    first = await run("--game", "match-cards", "--new", "--name", "Ann")
    try:
        table = (await until(first, "table ", first_lines)).split()[1].rstrip(",")
        await until(first, "row 3:", first_lines)
        await type_(first, "5")
        picture = (await until(first, "card 5: ", first_lines)).removeprefix("card 5: ")
    finally:
        first.kill()  # the terminal is closed mid-attempt
        await first.wait()

    lines: list[str] = []
    again = await run("--resume")
    try:
        assert await until(again, "back at table ", lines) == f"back at table {table}, your seat 1"
        assert await until(again, "the game: ", lines) == (
            "the game: 12 cards in pairs, easy, animals, 20 failed attempts lose"
        )
        counters = await until(again, "0 of 6 groups found", lines)
        assert counters.endswith("0 of 20 failed attempts")
        row = await until(again, "row 2:", lines)
        assert f"[5 {picture}]" in row  # still up, with its picture
        await type_(again, "6")
        await until(again, "card 6: ", lines)
        outcome = await until(again, ("found:", "no match:"), lines)  # type: ignore[arg-type]
        assert "cards 5, 6" in outcome, outcome
        assert sum(x.startswith("the game: ") for x in lines) == 1
        again.stdin.close()  # type: ignore[union-attr]
        assert await asyncio.wait_for(again.wait(), 30) == 0  # input closed: it leaves
    finally:
        if again.returncode is None:
            again.kill()
            await again.wait()
