"""Number Match in the terminal client: ``--game number-match`` and its options on the command
line, the tracker and its lines (pure), ``match play --game number-match --plain`` played
through the real stack driven only by the lines it prints, the full-screen view under Textual's
pilot (the arrows, Space/Enter, A, H, U and E keys), ``--resume`` after a killed terminal, and
the demo's scripted game to its end."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from match.v1 import common_pb2, number_match_pb2
from match_client import cli, number_match, terminal
from match_client.client import MatchClient, Seat, refusal_code
from match_client.clock import ServerClock
from match_client.number_match import demo as number_match_demo
from match_client.number_match.screen import (
    CELL,
    LABEL,
    Board,
    NumberMatchApp,
    board_text,
    cell_at,
)
from match_client.programs import runnable
from match_launch.stack import Stack
from match_rules.number_match.board import WIDTH, add_numbers, pair_moves, pairs_with, remove_pair
from tests.conftest import running

E = number_match_pb2.NumberMatchEvent
View = number_match_pb2.NumberMatchView
Settings = number_match_pb2.NumberMatchSettings
SEED = bytes(range(32))


def args(*argv: str) -> object:
    return cli.build_parser().parse_args(list(argv))


# --- the command line ----------------------------------------------------------------------


def test_play_takes_number_match_and_its_options() -> None:
    a = args("play", "--game", "number-match", "--new", "--level", "expert")
    assert cli.play_problem(a) is None  # type: ignore[arg-type]
    assert (a.game, a.level, a.daily, a.replay_seed) == ("number-match", "expert", False, None)  # type: ignore[attr-defined]
    assert number_match.settings_from("expert") == Settings(level=Settings.LEVEL_EXPERT)
    assert number_match.settings_from(None) == Settings()
    replay = number_match.settings_from("hard", replay_seed=" " + SEED.hex().upper() + " ")
    assert replay == Settings(level=Settings.LEVEL_HARD, replay_seed=SEED)
    berlin = dt.datetime(2026, 1, 31, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert number_match.local_today(berlin) == ("2026-01-31", 60)
    kathmandu = dt.datetime(2026, 7, 1, 0, 10, tzinfo=dt.timezone(dt.timedelta(minutes=345)))
    daily = number_match.settings_from(None, daily=True, now=kathmandu)
    assert daily == Settings(daily_date="2026-07-01", utc_offset_minutes=345)
    today, offset = number_match.local_today()
    assert today == dt.date.today().isoformat() and -720 <= offset <= 840
    with pytest.raises(SystemExit):
        args("play", "--game", "number-match", "--new", "--level", "impossible")


def test_number_match_options_go_with_that_game_and_a_new_table() -> None:
    def problem(*argv: str) -> str | None:
        return cli.play_problem(args("play", *argv))  # type: ignore[arg-type]

    nm = ("--game", "number-match")
    assert problem("--new", "--level", "hard") == "--level only goes with --game number-match"
    assert problem("--game", "match-cards", "--new", "--daily") == (
        "--daily only goes with --game number-match"
    )
    assert problem(*nm, "--new", "--difficulty", "hard") == (
        "--difficulty only goes with --game match-cards"
    )
    assert problem(*nm, "--table", "t1", "--level", "hard") == "--level only goes with --new"
    assert problem(*nm, "--new", "--seats", "2") == (
        "a Number Match table has one seat: leave out --seats and --fill-now"
    )
    assert problem(*nm, "--new", "--fill-now") == (
        "a Number Match table has one seat: leave out --seats and --fill-now"
    )
    assert problem(*nm, "--new", "--daily", "--level", "easy") == (
        "the daily puzzle is a hard board: leave out --level"
    )
    assert problem(*nm, "--new", "--daily", "--level", "hard") is None
    assert problem(*nm, "--new", "--daily", "--replay-seed", SEED.hex()) == (
        "--daily plays today's puzzle; --replay-seed another board: choose one"
    )
    assert problem(*nm, "--new", "--level", "classic", "--replay-seed", SEED.hex()) == (
        "classic always deals the same board: leave out --replay-seed"
    )
    assert problem(*nm, "--new", "--replay-seed", "abc") == (
        "--replay-seed is 64 hex digits (a finished game's seed), not 'abc'"
    )
    assert problem(*nm, "--new", "--replay-seed", "ab" * 16) == (
        "--replay-seed is the 32-byte seed a finished game revealed (64 hex digits), not 16 bytes"
    )
    assert problem(*nm, "--new", "--level", "medium", "--replay-seed", SEED.hex()) is None
    assert problem(*nm, "--resume") is None


# --- the tracker and its lines -------------------------------------------------------------

BOARD = (
    *(1, 2, 3, 4, 5, 6, 7, 8, 9),
    *(1, 1, 1, 2, 1, 3, 1, 4, 1),
    *(5, 1, 6, 1, 7, 1, 8, 1, 9),
)


def env(number: int, **event: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        event_number=number, number_match=E(**event), game_kind=common_pb2.GAME_KIND_NUMBER_MATCH
    )


def started(board: tuple[int, ...] = BOARD, **settings: object) -> common_pb2.EventEnvelope:
    s = Settings(**settings)  # type: ignore[arg-type]
    game = E.GameStarted(
        at=1_000, player="ann", settings=s, deal_version="number-match-deal-v1", board=board,
        additions=5, hints=3, witness_commitment="c0ffee",
    )  # fmt: skip
    return env(1, game_started=game)


def test_the_tracker_folds_pairs_additions_hints_undos_and_the_end() -> None:
    t = number_match.NumberMatchTracker(player="ann", table_id="t1")
    t.apply_events([started(level=Settings.LEVEL_EASY)])
    assert (t.board, t.additions_left, t.hints_left, t.score, t.moves) == (BOARD, 5, 3, 0, 0)
    assert number_match.settings_text(t) == "easy, 27 numbers, 5 additions, 3 hints"
    assert number_match.board_lines(t, selection=3) == [
        "                1   2   3   4   5   6   7   8   9",
        "row 1 (1-9):    1   2   3^  4   5   6   7   8   9",
        "row 2 (10-18):  1   1   1   2   1   3   1   4   1",
        "row 3 (19-27):  5   1   6   1   7   1   8   1   9",
    ]
    assert number_match.status_line(t, 61_000) == (
        "score 0, 5 additions left, 3 hints left, 0 moves, 27 numbers on the board, time 1:00"
    )
    paired = env(2, cells_paired=E.CellsPaired(player="ann", first=1, second=10, points=1, score=1))
    assert t.apply_events([paired]) == [paired] and t.apply_events([paired]) == []  # once only
    assert number_match.event_lines(paired, t) == ["pair: cells 1 and 10 (1 and 1), +1, score 1"]
    assert t.board[:10] == (0, 2, 3, 4, 5, 6, 7, 8, 9, 0) and t.can_undo
    assert number_match.board_lines(t)[1] == "row 1 (1-9):        2   3   4   5   6   7   8   9"
    assert number_match.read_lines(t)[1].startswith("row 2: 1 in cell 11, 1 in cell 12, 2 in")
    added = env(3, numbers_added=E.NumbersAdded(player="ann", count=25, additions_left=4))
    t.apply_events([added])
    assert t.board == add_numbers(remove_pair(BOARD, 0, 9)[0]) and len(t.board) == 52
    assert number_match.event_lines(added, t) == [
        "numbers added: 25 numbers copied after the last one; 4 left"
    ]
    hint = env(
        4, hint_given=E.HintGiven(player="ann", kind=E.HINT_KIND_PAIR, first=11, second=12,
                                  hints_left=2),
    )  # fmt: skip
    t.apply_events([hint])
    assert t.hinted() == (11, 12)
    assert number_match.event_lines(hint, t) == [
        "hint: cells 11 and 12 (1 and 1), row 2, column 2 and row 2, column 3: a pair that "
        "keeps the board clearable (2 left)"
    ]
    assert number_match.board_lines(t)[2] == "row 2 (10-18):      1*  1*  2   1   3   1   4   1"
    undone = env(5, move_undone=E.MoveUndone(player="ann", undone=E.UNDONE_ADD, score=1,
                                             additions_left=5))  # fmt: skip
    t.apply_events([undone])
    assert t.board == remove_pair(BOARD, 0, 9)[0] and t.additions_left == 5 and t.hint is None
    assert number_match.event_lines(undone, t) == [
        "undone: the last addition (you get it back); score 1"
    ]
    t.apply_events([env(6, move_undone=E.MoveUndone(player="ann", undone=E.UNDONE_PAIR,
                                                    additions_left=5))])  # fmt: skip
    assert t.board == BOARD and t.moves == 0 and not t.can_undo and not t.stale
    t.apply_events([env(7, move_undone=E.MoveUndone(player="ann", undone=E.UNDONE_PAIR))])
    assert t.stale  # nothing to restore it from: the next view puts it right
    over = E.GameOver(
        player="ann", outcome=E.OUTCOME_GAVE_UP, score=1, time_ms=83_000, moves=0, hints_used=1,
        witness=[number_match_pb2.NumberMatchStep(first=1, second=10),
                 number_match_pb2.NumberMatchStep(add=True)],
    )  # fmt: skip
    t.apply_events([env(8, game_over=over)])
    assert number_match.event_lines(env(8, game_over=over), t) == [
        "the game is over: you ended the game"
    ]
    t.seed = SEED
    lines = number_match.end_lines(t, "check this game against the ledger: match-audit ...")
    assert lines[:4] == [
        "result: not cleared: you ended the game",
        "score 1 in 1:23, 0 moves, 1 of 3 hints used",
        f"the seed: {SEED.hex()}",
        "the solver's clearing of this board (+ adds numbers): 1-10, +",
    ]
    assert lines[-2:] == [
        f"play this board again: match play --game number-match --new --level easy "
        f"--replay-seed {SEED.hex()}",
        "check this game against the ledger: match-audit ...",
    ]


def test_a_snapshot_and_a_replys_view_win_and_the_end_names_the_replay() -> None:
    t = number_match.NumberMatchTracker(player="ann")
    view = View(
        table_id="t1", event_number=30, phase=View.PHASE_PLAYING, you="ann",
        settings=Settings(level=Settings.LEVEL_CLASSIC), columns=9, board=[0, 3, 7] + [1] * 9,
        hints_left=1, score=42, moves=12, can_undo=True, started_at_ms=1_000,
        hint=View.Hint(kind=E.HINT_KIND_ADD),
    )  # fmt: skip
    t.apply_snapshot(view)
    assert (t.event_number, t.additions_left, t.moves, t.hint) == (30, None, 12, (2, 0, 0))
    assert number_match.settings_text(t) == (
        "classic, 27 numbers, additions without limit, 3 hints"
    )
    assert number_match.status_line(t, 3_000).startswith(
        "score 42, additions: no limit, 1 hint left, 12 moves, 11 numbers on the board"
    )
    assert number_match.board_lines(t)[1] == "row 1 (1-9):        3   7   1   1   1   1   1   1"
    assert t.hinted() is None  # an addition hint marks no cell
    old = View(event_number=29, phase=View.PHASE_PLAYING, board=[1])
    assert not t.apply_view(old) and t.board[1] == 3  # the stream is ahead of that reply
    over = View(
        event_number=40, phase=View.PHASE_GAME_OVER,
        settings=Settings(level=Settings.LEVEL_CLASSIC), outcome=E.OUTCOME_CLEARED,
        score=300, time_ms=61_000, moves=30, seed=SEED,
    )  # fmt: skip
    assert t.apply_view(over) and t.game_over and t.cleared
    lines = number_match.end_lines(t)
    assert lines[0] == "result: you cleared the board"
    assert "play it again: match play --game number-match --new --level classic" in lines
    t.settings = Settings(level=Settings.LEVEL_HARD, daily_date="2026-12-01")
    assert number_match.settings_text(t).startswith("the daily puzzle of 2026-12-01 (hard, 45")
    assert number_match.replay_line(t) == (
        "play this daily puzzle again (not ranked): match play --game number-match --new "
        "--level hard --replay-seed "
        + hashlib.sha256(b"number-match-daily-v1/2026-12-01").hexdigest()
    )


def test_the_screen_draws_the_board_nine_wide_and_finds_the_clicked_cell() -> None:
    t = number_match.NumberMatchTracker(player="ann")
    t.apply_events([started()])
    t.apply_events([env(2, cells_paired=E.CellsPaired(first=1, second=10, points=1, score=1))])
    text = board_text(t, cursor=1, selection=3)
    lines = text.plain.split("\n")
    assert lines[0] == "       1  2  3  4  5  6  7  8  9"
    assert lines[1] == "   1      2  3  4  5  6  7  8  9"  # cell 1 is empty: blank
    assert len(lines) == 4
    assert cell_at(5, 1, 27) == 0 and cell_at(31, 3, 27) == 26 and cell_at(2, 1, 27) is None
    assert cell_at(8, 0, 27) is None and cell_at(8, 4, 27) is None


@pytest.mark.parametrize(
    ("answer", "ends"),
    [("y", True), ("yes", True), ("end", True), ("e", True), ("n", False), ("x", False)],
)
async def test_the_line_modes_end_asks_first_and_ends_on_the_answers_it_names(
    answer: str, ends: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``e`` in the line mode asks before the game is ended, as the full-screen view does
    ("y: end it  n: go on"): y or end again ends it, anything else goes on."""
    lines: list[str] = []
    client = MatchClient("127.0.0.1:9")  # never called: the end is counted, not sent
    seat = Seat(table_id="t1", player_id="ann", token="x", seat=1)
    play = number_match.NumberMatchPlay(client, seat, lines.append, ServerClock())
    ended: list[str] = []

    async def end() -> None:
        ended.append(answer)

    monkeypatch.setattr(play, "end", end)
    await play.handle("y")  # not after the question: not an answer
    assert lines == ["not a command: 'y'. Type ? for help"] and not ended
    lines.clear()
    await play.handle("e")
    assert lines == ["end the game now? Type y to end it (or end again); anything else goes on"]
    await play.handle(answer)
    assert ended == ([answer] if ends else [])
    if not ends:
        assert lines[-1] == "the game goes on"
        await play.handle(answer)  # the question was answered: asked again before it ends
        assert not ended
    await client.close()


# --- through the real stack ------------------------------------------------------------------


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    anchor = str(int(time.time() * 1000))
    clock = {"REFEREE_CLOCK_RATE": "10", "REFEREE_CLOCK_ANCHOR_MS": anchor}
    s = Stack(
        tmp_path_factory.mktemp("number-match") / "stack",
        services=("dealer", "referee", "lobby", "ledger"),
        env=clock,
    )
    yield from running(s)


HEADER = re.compile(r"^ +1   2   3   4   5   6   7   8   9$")
ROW = re.compile(r"^row (\d+) \((\d+)-(\d+)\):")


def parse_board(lines: list[str]) -> tuple[int, ...]:
    """The board from its printed lines: the header, then a line a row."""
    header = lines[0]
    at = header.index("1") - 2  # where the first cell starts
    cells: list[int] = []
    for row, line in enumerate(lines[1:]):
        m = ROW.match(line)
        assert m and int(m[1]) == row + 1, line
        for column in range(WIDTH):
            text = line[at + 4 * column : at + 4 * column + 3].strip()
            cells.append(int(text) if text else 0)
    while cells and cells[-1] == 0:  # the last row may be shorter
        cells.pop()
    return tuple(cells)


class Lines:
    """A ``match`` process's output, read line by line."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self.board: tuple[int, ...] = ()

    async def next(self) -> str:
        try:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), 30)  # type: ignore[union-attr]
        except TimeoutError:
            raise AssertionError("no line for 30 s after:\n" + "\n".join(self.lines)) from None
        assert raw, "\n".join(self.lines)
        self.lines.append(raw.decode().rstrip("\n"))
        return self.lines[-1]

    async def until(self, *prefixes: str) -> str:
        while True:
            line = await self.next()
            if HEADER.match(line):
                block = [line]
                while not (line := await self.next()).startswith("score "):
                    block.append(line)
                self.board = parse_board(block)
            if line.startswith(prefixes):
                return line

    async def type(self, text: str) -> None:
        self.proc.stdin.write(f"{text}\n".encode())  # type: ignore[union-attr]
        await self.proc.stdin.drain()  # type: ignore[union-attr]


async def start(stack: Stack, tmp_path: Path, *argv: str) -> Lines:
    env_vars = {**os.environ, "MATCH_STATE_DIR": str(tmp_path / "state"), "MATCH_PLAIN": "1"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "match_client.cli", "--addr", stack.lobby_addr, "play", *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env_vars,
    )  # fmt: skip
    return Lines(proc)


async def stop(out: Lines) -> None:
    if out.proc.returncode is None:
        out.proc.kill()
        await out.proc.wait()


def a_non_pair(board: tuple[int, ...]) -> tuple[int, int]:
    """Two numbers (1-based cells) that are neither equal nor add up to 10."""
    cells = [i for i, n in enumerate(board) if n]
    return next(
        (i + 1, j + 1) for i in cells for j in cells if i < j and not pairs_with(board[i], board[j])
    )


async def test_match_play_plain_plays_from_its_lines_and_shows_every_refusal(
    stack: Stack, tmp_path: Path
) -> None:
    """A scripted player reads only what ``match play --game number-match --plain`` prints
    (the board, a grid with each row's cells) and types commands as a person with a screen
    reader would: pairs in both forms, a selection, a hint, an addition, an undo, refusals
    with their messages, and the end, which asks first and names the seed and the audit."""
    out = await start(stack, tmp_path, "--game", "number-match", "--new", "--name", "Ann")
    try:
        assert await out.until("the game starts: ") == (
            "the game starts: easy, 27 numbers, 5 additions, 3 hints"
        )
        await out.until("score 0, 5 additions left, 3 hints left, 0 moves, 27 numbers")
        board = out.board
        assert len(board) == 27 and all(board)

        # a pair typed as "p first second"
        i, j = pair_moves(board)[0]
        await out.type(f"p {i + 1} {j + 1}")
        line = await out.until("pair: ", "refused")
        assert line.startswith(f"pair: cells {i + 1} and {j + 1} ({board[i]} and {board[j]}), +")
        await out.until("score ")
        assert out.board == remove_pair(board, i, j)[0]
        board = out.board

        # refusals, each with the server's message and code
        first, second = a_non_pair(board)
        await out.type(f"{first} {second}")
        line = await out.until("refused")
        a, b = board[first - 1], board[second - 1]
        assert line == (
            f"refused: {a} and {b} are not a pair: two numbers pair when they are equal or add "
            "up to 10 (not_a_pair)"
        )
        await out.type(f"p {len(board) + 1} 1")
        assert (await out.until("refused")).endswith("(cell_out_of_range)")

        # a selection, then the second cell: a failed pair selects the second
        await out.type(str(first))
        assert (await out.until("selected cell")).startswith(f"selected cell {first} ({a})")
        await out.type(str(second))
        assert (await out.until("refused")).endswith("(not_a_pair)")
        assert await out.next() == f"cell {second} ({b}) is selected now"
        await out.type("b")
        await out.until("score ")
        await out.type(str(second))  # the same cell again lets go of it
        assert await out.until("cell ") == f"cell {second} is no longer selected"

        # a hint, and its pair played by selecting one cell after the other
        await out.type("h")
        hint = await out.until("hint: ", "refused")
        m = re.match(r"hint: cells (\d+) and (\d+) ", hint)
        if m:
            assert hint.endswith("(2 left)")
            await out.until("score ")  # the board again, the hint's pair marked *
            marked = [x for x in out.lines[-5:-1] if ROW.match(x)]
            assert sum(x.count("*") for x in marked) == 2, out.lines[-6:]
            await out.type(m[1])
            await out.until("selected cell")
            await out.type(m[2])
            assert (await out.until("pair: ")).startswith(f"pair: cells {m[1]} and {m[2]} ")
            await out.until("score ")
        else:  # time to add numbers, stuck (the first pair left the witness), or undecided
            assert hint.startswith("hint: ") or hint.endswith("(hint_undecided)"), hint
        board = out.board

        # an addition, and its undo
        await out.type("a")
        assert (await out.until("numbers added: ")).endswith("; 4 left")
        await out.until("score ")
        assert out.board == add_numbers(board)
        await out.type("u")
        assert (await out.until("undone: ")).startswith("undone: the last addition")
        await out.until("score ")
        assert out.board == board

        # the end asks first
        await out.type("end")
        assert await out.until("end the game now?") == (
            "end the game now? Type y to end it (or end again); anything else goes on"
        )
        await out.type("s")
        assert (await out.next()).startswith("score ")
        await out.type("e")
        await out.until("end the game now?")
        await out.type("y")
        assert await out.until("the game is over: ") == "the game is over: you ended the game"
        assert await out.until("result: ") == "result: not cleared: you ended the game"
        assert re.match(r"score \d+ in \d+:\d\d, \d+ moves, [01] of 3 hints used", await out.next())
        seed = (await out.until("the seed: ")).removeprefix("the seed: ")
        assert re.fullmatch(r"[0-9a-f]{64}", seed)
        assert await out.next() == "the published seed matches the commitment"
        await out.until("the solver's clearing of this board")
        assert await out.next() == (
            "the solver's clearing matches the commitment made at the start and clears the board: "
            "the board was solvable"
        )
        assert await out.next() == (
            f"play this board again: {runnable('match')} --addr {stack.lobby_addr} play --game "
            f"number-match --new --level easy --replay-seed {seed}"
        )
        audit = await out.until(
            f"check this game against the ledger: {runnable('match-audit')} verify "
        )
        assert "--key " in audit
        assert await asyncio.wait_for(out.proc.wait(), 30) == 0  # the game is over: it ends
    finally:
        await stop(out)

    # the same board again, from its seed
    again = await start(
        stack, tmp_path, "--game", "number-match", "--new", "--name", "Ann", "--replay-seed", seed
    )
    try:
        assert (await again.until("the game starts: ")).endswith(
            "the board of a finished game played again (not ranked)"
        )
        await again.until("score 0")
        first_board = parse_board(out_board_lines(out.lines))
        assert again.board == first_board
    finally:
        await stop(again)


def out_board_lines(lines: list[str]) -> list[str]:
    """The first board a process printed."""
    at = next(k for k, line in enumerate(lines) if HEADER.match(line))
    end = next(k for k in range(at, len(lines)) if lines[k].startswith("score "))
    return lines[at:end]


async def test_the_daily_puzzle_is_todays_where_the_player_is(stack: Stack, tmp_path: Path) -> None:
    """``--daily`` sends the local date and offset; a date that is not today there is refused
    with the server's message."""
    out = await start(stack, tmp_path, "--game", "number-match", "--new", "--daily", "--name", "A")
    try:
        today = number_match.local_today()[0]
        assert await out.until("the game starts: ") == (
            f"the game starts: the daily puzzle of {today} (hard, 45 numbers, 4 additions, 3 hints)"
        )
        await out.until("score 0")
        daily = out.board
        assert len(daily) == 45
        await out.type("end")
        await out.until("end the game now?")
        await out.type("end")
        replay = await out.until("play this daily puzzle again (not ranked): ")
        assert await asyncio.wait_for(out.proc.wait(), 30) == 0
    finally:
        await stop(out)
    seed = replay.rsplit(" ", 1)[1]
    again = await start(
        stack, tmp_path, "--game", "number-match", "--new", "--level", "hard", "--replay-seed", seed
    )
    try:
        await again.until("score 0")
        assert again.board == daily  # the daily board, any day, not ranked
    finally:
        await stop(again)
    async with MatchClient(stack.lobby_addr) as client:
        yesterday = (dt.date.today() - dt.timedelta(days=2)).isoformat()
        with pytest.raises(Exception) as refused:
            await client.create_table(Settings(daily_date=yesterday, utc_offset_minutes=0))
        assert refusal_code(refused.value) == "daily_not_today"


# --- the full-screen view --------------------------------------------------------------------


async def until(test: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        await asyncio.sleep(0.05)


async def test_the_full_screen_view_plays_with_the_keys(stack: Stack, tmp_path: Path) -> None:
    """Textual's pilot plays as a person at the keyboard: the arrows move the cursor, Enter and
    Space select (a pair disappears; a failed pair selects the second number), A adds, H shows
    a hint in green, U undoes, E asks before it ends the game, and the end shows the seed."""
    env_vars = {"REFEREE_CLOCK_RATE": "10", "REFEREE_CLOCK_ANCHOR_MS": stack.env[
        "REFEREE_CLOCK_ANCHOR_MS"], "MATCH_STATE_DIR": str(tmp_path / "state")}  # fmt: skip
    settings = cli.Settings.from_env(env_vars)
    async with MatchClient(stack.lobby_addr) as client:
        seat = await client.create_table(number_match_pb2.NumberMatchSettings(), display_name="Ann")
        audit = terminal.audit_line(seat.table_id, settings)
        play = number_match.NumberMatchPlay(
            client, seat, print, settings.server_clock(), audit=audit
        )
        app = NumberMatchApp(play, [f"table {seat.table_id}, your seat 1, as Ann"])
        async with app.run_test(size=(120, 40)) as pilot:
            t = play.tracker

            def text(widget: str) -> str:
                return str(app.query_one(widget, Static).content)

            async def go_to(cell: int) -> None:
                """Arrows from where the cursor is to ``cell`` (0-based)."""
                rows, columns = divmod(cell, WIDTH)
                at_rows, at_columns = divmod(app.cursor, WIDTH)
                keys = ["down" if rows > at_rows else "up"] * abs(rows - at_rows)
                keys += ["right" if columns > at_columns else "left"] * abs(columns - at_columns)
                await pilot.press(*keys)
                assert app.cursor == cell

            await until(lambda: "Number Match · table" in text("#title"), "the title")
            await until(lambda: len(t.board) == 27, "the board")
            assert "easy, 27 numbers, 5 additions, 3 hints" in text("#title")
            assert text("#counters").startswith("score 0, 5 additions left, 3 hints left, 0 moves")
            assert app.focused is app.query_one("#board", Board)
            shown = str(app.query_one("#board", Board).content).split("\n")
            assert len(shown) == 4 and shown[0].split() == [str(c) for c in range(1, 10)]
            await pilot.press("right", "down", "left", "up", "left")
            assert app.cursor == 0  # stays on the board
            assert "cursor: cell 1, row 1, column 1" in text("#side")

            # a pair: Enter on the first, Space on the second
            board = t.board
            i, j = pair_moves(board)[0]
            await go_to(i)
            await pilot.press("enter")
            assert play.selection == i + 1
            assert text("#notice").startswith(f"selected cell {i + 1} ({board[i]})")
            await go_to(j)
            await pilot.press("space")
            await until(lambda: t.moves == 1, "the pair")
            assert t.board == remove_pair(board, i, j)[0] and play.selection is None
            board = t.board
            if len(board) > i and not board[i]:  # a click on the cell just emptied
                assert await pilot.click(
                    "#board", offset=(LABEL + CELL * (i % WIDTH) + 1, 1 + i // WIDTH)
                )
                assert text("#notice") == f"cell {i + 1} is empty: pick a number"
                assert app.cursor == i

            # a failed pair: its message shown, the second number selected
            first, second = a_non_pair(board)
            await go_to(first - 1)
            await pilot.press("enter")
            await go_to(second - 1)
            await pilot.press("enter")
            await until(lambda: "(not_a_pair)" in text("#notice"), "the refusal")
            assert text("#notice").startswith("refused: ")
            assert play.selection == second and t.board == board

            # A adds, U undoes
            await pilot.press("a")
            await until(lambda: len(t.board) > len(board), "the addition")
            assert t.board == add_numbers(board) and "4 additions left" in text("#counters")
            await pilot.press("u")
            await until(lambda: t.board == board, "the undo")
            assert "5 additions left" in text("#counters")

            # H: the hint's pair is highlighted green
            await pilot.press("h")
            await until(lambda: t.hints_left == 2 or "refused" in play.notice, "the hint")
            if t.hinted():
                a, b = t.hinted() or (0, 0)
                assert f"hint: cells {a} and {b} (green)" in text("#side")
                spans = board_text(t, None, None).spans
                assert sum("green" in str(s.style) for s in spans) == 2

            # E asks first: n goes on, y ends it
            await pilot.press("e")
            await until(lambda: app.asking, "the question")
            await pilot.press("n")
            await until(lambda: not app.asking, "the answer")
            assert not t.game_over and play.notice == "the game goes on"
            await pilot.press("e")
            await until(lambda: app.asking, "the question")
            await pilot.press("y")
            await until(lambda: "result: " in text("#side"), "the end")
            await until(lambda: "the seed: " in text("#side"), "the seed")
            assert "result: not cleared: you ended the game" in text("#side")
            assert "--replay-seed " in text("#side") and "match-audit verify" in text("#side")
            assert text("#notice") == "the game is over"
            app.save_screenshot("number-match.svg", str(tmp_path))


# --- --resume ------------------------------------------------------------------------------


async def test_a_killed_terminal_resumes_its_game_and_undoes_from_the_snapshot(
    stack: Stack, tmp_path: Path
) -> None:
    """``match play --resume`` after the process was killed: the same board with the pair made
    before gone, the settings said once, and an undo (which the fresh view has no earlier board
    for) brings the first board back."""
    first = await start(stack, tmp_path, "--game", "number-match", "--new", "--name", "Ann")
    try:
        table = (await first.until("table ")).split()[1].rstrip(",")
        await first.until("score 0")
        board = first.board
        i, j = pair_moves(board)[0]
        await first.type(f"{i + 1} {j + 1}")
        await first.until("pair: ")
        await first.until("score ")
        after = first.board
    finally:
        await stop(first)  # the terminal is closed

    again = await start(stack, tmp_path, "--resume")
    try:
        assert await again.until("back at table ") == f"back at table {table}, your seat 1"
        assert await again.until("the game: ") == (
            "the game: easy, 27 numbers, 5 additions, 3 hints"
        )
        status = await again.until("score ")
        assert " 1 move, " in status
        assert again.board == after
        await again.type("u")
        assert (await again.until("undone: ")).startswith("undone: the last pair")
        await again.until("score ")
        assert again.board == board
        assert sum(x.startswith("the game: ") for x in again.lines) == 1
        again.proc.stdin.close()  # type: ignore[union-attr]
        assert await asyncio.wait_for(again.proc.wait(), 30) == 0  # input closed: it leaves
    finally:
        await stop(again)


# --- the demo ------------------------------------------------------------------------------


async def test_the_demo_plays_a_whole_game_to_its_end(stack: Stack) -> None:
    lines: list[str] = []
    code = await number_match_demo.demo_number_match(stack.lobby_addr, out=lines.append)
    assert code == 0, "\n".join(lines)
    assert re.fullmatch(r"game [0-9a-f]+", lines[0]), lines
    assert sum(line.startswith("hint ") for line in lines) == 3, lines
    assert "cleared: yes (the board is clear)" in lines, lines
    assert any(re.fullmatch(r"score: \d+ in \d+ moves, 3 of 3 hints used", x) for x in lines)
    assert any(re.fullmatch(r"published seed: [0-9a-f]{64}", x) for x in lines), lines
    assert lines[-1].startswith(
        f"check this game against the ledger: {runnable('match-audit')} verify "
    )
