"""The player's key against the whole system: a ``match`` process killed mid-game, its kept
seats deleted, and ``match play --resume`` from a new process back at the same seat by the key
alone, playing on (the race, Concentration and Number Match; the other games' own tests resume
with the key too); and the demo played as the user's key, after which ``match leaderboard
--game race`` lists its player with a rating and ``match profile`` shows the statistics.

The system's clock runs twice as fast: a race board lasts a minute, and Concentration's CPU
waits 15 s for a dropped player, time enough for a new process to come back.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from match_client import demo, identity
from match_client.programs import runnable
from match_client.race import demo as race_demo
from match_client.seats import SeatStore
from match_launch.stack import Stack
from match_rules.number_match.board import pair_moves
from tests.client.test_number_match_client import Lines
from tests.client.test_screens import Command
from tests.conftest import running

RATE = 2.0
WAIT_S = 40.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        tmp_path_factory.mktemp("by-key") / "stack",
        env={
            "REFEREE_CLOCK_RATE": str(RATE),
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "1.0",
        },
    )
    yield from running(s)


def player_env(stack: Stack, tmp_path: Path) -> dict[str, str]:
    """A user of their own: the key in ``config``, the kept seats in ``state``."""
    return {
        "REFEREE_CLOCK_RATE": stack.env["REFEREE_CLOCK_RATE"],
        "REFEREE_CLOCK_ANCHOR_MS": stack.env["REFEREE_CLOCK_ANCHOR_MS"],
        "MATCH_STATE_DIR": str(tmp_path / "state"),
        "MATCH_CONFIG_DIR": str(tmp_path / "config"),
        "MATCH_ADDR": stack.lobby_addr,
    }


async def test_a_killed_race_player_is_back_at_the_same_seat_by_the_key_alone(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    first = await Command.start(env, "play", "--new", "--fill-now", "--name", "Ann")
    try:
        made = await first.wait_for(r"^you are player (k[0-9a-f]{23}): your key is (\S+key\.pem);")
        you, key_file = made[1], Path(made[2])
        table = (await first.wait_for(r"^table (\w+), your seat 1, as Ann$"))[1]
        await first.wait_for(r"Type r when you are ready: whoever has not by then is out")
        first.type("r")
        await first.wait_for(r"^board 1: go!$")
        first.type("5")
        await first.wait_for(r"^you turned 5: [a-z]+ \(turn 1\)$")
    finally:
        await first.close()  # killed mid-board
    assert key_file == tmp_path / "config" / "key.pem"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert identity.load(key_file).player_id == you
    (tmp_path / "state" / "seats.json").unlink()  # only the key can find the seat now

    back = await Command.start(env, "play", "--resume")
    try:
        await back.wait_for(rf"^back at table {table}, your seat 1$")
        await back.wait_for(rf"^table {table}: board 1 is under way$")
        await back.wait_for(r"^players: you, Bot 1 \(bot\)$")
        await back.wait_for(r"^5:[a-z]+ +6 +7 +8$")  # tile 5 still shows its symbol
        back.type("6")
        await back.wait_for(r"^you turned 6: [a-z]+ \(turn \d+\)$")  # and it plays on
    finally:
        await back.close()
    assert not any(line.startswith("you are player") for line in back.lines)  # the same key
    kept = SeatStore(tmp_path / "state").get(table)  # kept again, with the fresh token
    assert kept is not None and (kept.player_id, kept.seat, kept.name) == (you, 1, "Ann")

    # Without the key (another user, nothing kept) there is nothing to go back to.
    stranger = {**env, "MATCH_CONFIG_DIR": str(tmp_path / "other-config")}
    (tmp_path / "state" / "seats.json").unlink()
    nobody = await Command.start(stranger, "play", "--resume", table)
    try:
        await nobody.wait_for(rf"^no seat of yours at table {table}: your key has none there")
        assert await asyncio.wait_for(nobody.proc.wait(), WAIT_S) == 1
    finally:
        await nobody.close()


async def test_concentration_is_back_at_its_turn_by_the_key_alone(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    argv = ("play", "--game", "concentration", "--new", "--seats", "1", "--name", "Ann")
    first = await Command.start(env, *argv)
    try:
        table = (await first.wait_for(r"^table (\w+), your seat 1, as Ann$"))[1]
        await first.wait_for(r"^your turn$")
        first.type("1")
        face = (await first.wait_for(r"^you flipped card 1: (.+)$"))[1]
    finally:
        await first.close()
    (tmp_path / "state" / "seats.json").unlink()

    back = await Command.start(env, "play", "--resume")
    try:
        await back.wait_for(rf"^back at table {table}, your seat 1$")
        await back.wait_for(rf"^\[ *{re.escape(face)} *\] \[ +2 +\]")  # card 1 still up
        back.type("2")
        await back.wait_for(r"^you flipped card 2: ")  # the second card of the same turn
    finally:
        await back.close()


async def start_plain(env: dict[str, str], *argv: str) -> Lines:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "match_client.cli", "play", *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env={**os.environ, **env, "MATCH_PLAIN": "1"},
    )  # fmt: skip
    return Lines(proc)


async def kill(out: Lines) -> None:
    if out.proc.returncode is None:
        out.proc.kill()
    await out.proc.wait()


async def pair_once(out: Lines) -> tuple[int, ...]:
    """Pair the first pair on the board; the board after it."""
    i, j = pair_moves(out.board)[0]
    await out.type(f"p {i + 1} {j + 1}")
    assert (await out.until("pair: ", "refused")).startswith(f"pair: cells {i + 1} and {j + 1} ")
    await out.until("score ")
    return out.board


async def test_number_match_is_back_at_its_board_by_the_key_alone(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    first = await start_plain(env, "--game", "number-match", "--new", "--name", "Ann")
    try:
        table = re.match(r"table (\w+), your seat 1", await first.until("table "))
        assert table is not None
        await first.until("score 0")
        after = await pair_once(first)
    finally:
        await kill(first)
    (tmp_path / "state" / "seats.json").unlink()

    back = await start_plain(env, "--resume", table[1])
    try:
        assert await back.until("back at table ") == f"back at table {table[1]}, your seat 1"
        await back.until("score ")
        assert back.board == after  # the board as it was left
        await pair_once(back)  # and it plays on
    finally:
        await kill(back)


async def test_the_demo_plays_as_the_key_and_its_rating_and_statistics_show(
    stack: Stack,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``make demo`` then ``match leaderboard --game race`` and ``match profile``."""
    env = player_env(stack, tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)  # the demo's clock, and its user's config directory
    key = demo.user_key(anonymous=False)
    assert key is not None
    said = capsys.readouterr().out
    you = identity.load(tmp_path / "config" / "key.pem").player_id
    assert said.startswith(f"you are player {you}: your key is ")
    code = await asyncio.wait_for(
        race_demo.demo(stack.lobby_addr, pace=0.1, seed=7, player_key=key), 240
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-2:] == [  # as printed, they reach this stack's lobby
        f"see your rating: {runnable('match')} --addr {stack.lobby_addr} leaderboard --game race",
        f"and your statistics: {runnable('match')} --addr {stack.lobby_addr} profile",
    ]

    async def match(*argv: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "match_client.cli", *argv,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, **env},
        )  # fmt: skip
        printed, _ = await asyncio.wait_for(proc.communicate(), WAIT_S)
        assert proc.returncode == 0, printed.decode()
        return printed.decode()

    deadline = time.monotonic() + WAIT_S  # the players service counts the game once it is over
    while "(you)" not in (board := await match("leaderboard", "--game", "race")):
        assert time.monotonic() < deadline, board
        await asyncio.sleep(0.5)
    lines = board.splitlines()
    assert lines[0] == "Match, the race, main board: rating"
    mine = next(line for line in lines if line.endswith("(you)"))
    assert re.match(r"^ +\d+  Demo +-?\d+\.\d \? +1  \(you\)$", mine), board
    assert "page 1 of 1 (" in board

    profile = (await match("profile")).splitlines()
    assert profile[0] == f"Demo, player {you} (you)"
    assert re.match(r"^  Match, the race: -?\d+\.\d \(provisional\), 1 rated game$", profile[3])
    at = profile.index("statistics:")
    assert re.match(r"^  Match, the race: 1 game, [01] won", profile[at + 1]), profile
    assert any(line.startswith("    pairs ") for line in profile[at + 2 :]), profile
