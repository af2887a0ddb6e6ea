"""The `match` client's screens against the whole system, as a player meets them.

The full-screen view runs under Textual's pilot (``App.run_test``): the clock counts down
during Ready and during the board, Ready warns before it bites, the standings come between
boards, and a player who missed Ready is told so and not invited again. The line mode runs as
the real command with its output piped (so it is the plain mode, as for a screen reader): the
seat is kept owner-only, the terminal is closed, and ``match play --resume`` and ``match watch``
go back to it with nothing but what the client kept.

The system's clock runs ten times faster (a board's two minutes last 12 s); the bot plays at a
person's pace on the wall clock, so on this clock it never clears a board and every board runs
to its cap.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from match.v1 import common_pb2, race_pb2
from match_client import cli
from match_client.client import MatchClient
from match_client.race import play as race_play
from match_client.race.screen import MatchApp
from match_launch.stack import Stack

RATE = 10.0
WAIT_S = 40.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    anchor = int(time.time() * 1000)
    s = Stack(
        tmp_path_factory.mktemp("screens") / "stack",
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(anchor),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "1.0",
        },
    )
    s.start()
    try:
        yield s
    finally:
        s.stop()


def clock_env(stack: Stack) -> dict[str, str]:
    return {k: stack.env[k] for k in ("REFEREE_CLOCK_RATE", "REFEREE_CLOCK_ANCHOR_MS")}


def seconds_left(line: str) -> int:
    """``board 1 ends in 1:42 (...)`` -> 102."""
    m = re.search(r" in (?:(\d+):(\d\d)|(\d+) s)", line)
    assert m is not None, line
    return int(m[1]) * 60 + int(m[2]) if m[1] else int(m[3])


async def until(test: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        await asyncio.sleep(0.05)


# --- the full-screen view ------------------------------------------------------------------


async def test_the_full_screen_view_counts_down_warns_and_shows_the_standings(
    stack: Stack, tmp_path: Path
) -> None:
    env = {**clock_env(stack), "MATCH_STATE_DIR": str(tmp_path / "state")}
    settings = cli.Settings.from_env({**env, "LEDGER_ADDR": stack.ledger_addr})
    assert settings.clock.rate == RATE
    async with MatchClient(stack.lobby_addr) as client:
        seat = await client.create_table(
            race_pb2.RaceSettings(ready_window_ms=30_000, hints_per_board=3),
            seats=2,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name="Ann",
        )
        game = race_play.Game(client, seat, print, settings=settings, show_boards=False)
        game.tracker.note_table(await client.start_table(seat.table_id, seat.token))
        app = MatchApp(game, [f"table {seat.table_id}, your seat 1, as Ann"], "Ann")
        async with app.run_test(size=(110, 36)) as pilot:

            def clock() -> str:
                return str(app.query_one("#clock", Static).content)

            def scores() -> str:
                return str(app.query_one("#scores", Static).content)

            def title() -> str:
                return str(app.query_one("#title", Static).content)

            # Ready: the deadline counts down, and says what missing it costs.
            await until(lambda: "board 1: Ready closes in" in clock(), "Ready to open")
            assert clock().endswith(": type r, or you are out of the game")
            first = seconds_left(clock())
            await until(lambda: seconds_left(clock()) <= first - 3, "the Ready clock to run")
            await pilot.press("r", "enter")
            await until(lambda: "you are ready" in app.lines, "Ready to be pressed")

            # The board: two minutes, counting down; a turn shows its symbol by name.
            await until(lambda: "board 1 ends in" in clock(), "board 1 to start")
            start = seconds_left(clock())
            assert 100 <= start <= 120, clock()
            await pilot.press("7", "enter")
            await until(lambda: any(x.startswith("you turned 7: ") for x in app.lines), "a turn")
            await until(lambda: seconds_left(clock()) <= start - 10, "the board clock to run")
            assert "you: 0 pairs, 1 turn" in scores() and "Bot 1:" in scores()
            app.save_screenshot("board.svg", str(tmp_path))

            # Between boards: the standings so far, and the next Ready.
            await until(lambda: "standings after board 1 of 3:" in scores(), "board 1 to end")
            assert re.search(r"^\d\. you: 0 pairs, ", scores(), re.M), scores()
            assert re.search(r"^\d\. Bot 1: \d+ pairs?, ", scores(), re.M), scores()
            app.save_screenshot("between.svg", str(tmp_path))

            # Board 2's Ready, not pressed: warned 10 s before, then out and never invited.
            await until(lambda: "board 2: Ready closes in" in clock(), "Ready for board 2")
            said = re.compile(
                r"^Ready closes in (10|9|8|7) s: type r now, or you are out of the game$"
            )

            def warned() -> int | None:
                return next((i for i, x in enumerate(app.lines) if said.match(x)), None)

            await until(lambda: warned() is not None, "the Ready warning")
            await until(lambda: "(out of the game)" in title(), "the missed Ready")
            missed = next(i for i, x in enumerate(app.lines) if x.startswith("you did not press"))
            assert (warned() or missed) < missed  # warned before it bit
            await until(
                lambda: "board 2 has started for the others (you are out of the game)" in app.lines,
                "board 2 to start without us",
            )
            assert "board 2: go!" not in app.lines
            assert not any("Type r" in x for x in app.lines[missed:])
            await pilot.press("ctrl+d")
        assert app.return_value == 0
    assert (tmp_path / "board.svg").read_text().startswith("<svg")


# --- the line mode, a closed terminal, and back --------------------------------------------


class Command:
    """``match ...`` as a process whose output is a pipe: the line mode."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []

    @classmethod
    async def start(cls, env: dict[str, str], *argv: str) -> Command:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "match_client.cli",
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, **env},
        )
        return cls(proc)

    async def wait_for(self, pattern: str, timeout: float = WAIT_S) -> re.Match[str]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            for line in self.lines:
                if m := re.search(pattern, line):
                    return m
            left = deadline - time.monotonic()
            assert left > 0, f"no line says {pattern!r}:\n" + "\n".join(self.lines)
            raw = await asyncio.wait_for(self.proc.stdout.readline(), left)
            assert raw, f"ended before {pattern!r}:\n" + "\n".join(self.lines)
            self.lines.append(raw.decode().rstrip("\n"))

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{line}\n".encode())

    async def close(self) -> None:
        """The terminal closes under it."""
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()


async def test_a_closed_terminal_is_not_a_lost_seat(stack: Stack, tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = {**clock_env(stack), "MATCH_STATE_DIR": str(state), "MATCH_ADDR": stack.lobby_addr}
    first = await Command.start(env, "play", "--new", "--fill-now", "--name", "Ann")
    try:
        table = (await first.wait_for(r"^table (\w+), your seat 1, as Ann$"))[1]
        await first.wait_for(
            r"^your seat is kept in .*seats\.json: .*match --addr \S+ play --resume"
        )
        await first.wait_for(r"Type r when you are ready: whoever has not by then is out")
        first.type("r")
        await first.wait_for(r"^board 1: go!$")
        first.type("5")
        await first.wait_for(r"^you turned 5: [a-z]+ \(turn 1\)$")
    finally:
        await first.close()
    assert stat.S_IMODE((state / "seats.json").stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700

    back = await Command.start(env, "play", "--resume")
    try:
        await back.wait_for(rf"^back at table {table}, your seat 1$")
        await back.wait_for(rf"^table {table}: board 1 is under way$")
        await back.wait_for(r"^players: you, Bot 1 \(bot\)$")
        await back.wait_for(r"^5:[a-z]+ +6 +7 +8$")  # tile 5 is still showing its symbol
        back.type("t")
        await back.wait_for(r"^board 1 ends in \d")
    finally:
        await back.close()

    watching = await Command.start(env, "watch")
    try:
        await watching.wait_for(rf"^watching table {table} with your seat 1 \(found by your key\)$")
        await watching.wait_for(r"^you are ready$")  # the stream from event 1
    finally:
        await watching.close()
