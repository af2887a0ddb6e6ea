"""What a newcomer meets first, against the whole system: a board that does not exist is an error
naming the boards there are; ``q`` at a table still waiting for players gives the seat back,
forgets it in ``seats.json`` and ends the client; a seat given up elsewhere is said so and
forgotten by ``--resume``; ``match watch`` of a game it cannot print says what to do instead;
and joining your own table again with the same key says how to take a second seat from the same
machine."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input

from match.v1 import common_pb2, number_match_pb2, race_pb2
from match_client.client import MatchClient, Seat
from match_client.programs import runnable
from match_client.race import play as race_play
from match_client.race.screen import MatchApp
from match_client.seats import SeatStore
from match_client.terminal import Settings
from match_launch.stack import Stack
from tests.client.test_screens import Command
from tests.conftest import running

WAIT_S = 40.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        tmp_path_factory.mktemp("first-steps") / "stack",
        env={
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_FILL_WAIT_MS": "3600000",  # a table waits for its players, no bot comes
        },
    )
    yield from running(s)


def player_env(stack: Stack, tmp_path: Path, config: str = "config") -> dict[str, str]:
    """A user of their own: the key in ``config``, the kept seats in ``state``."""
    return {
        "MATCH_STATE_DIR": str(tmp_path / "state"),
        "MATCH_CONFIG_DIR": str(tmp_path / config),
        "MATCH_ADDR": stack.lobby_addr,
    }


async def waiting_table(client: MatchClient) -> Seat:
    """Ann's seat at an open race table of two, waiting for its second player."""
    return await client.create_table(
        race_pb2.RaceSettings(ready_window_ms=30_000),
        seats=2,
        visibility=common_pb2.VISIBILITY_OPEN,
        display_name="Ann",
    )


async def ran(env: dict[str, str], code: int, *args: str) -> Command:
    """``match ARGS`` run to its end, which must exit with ``code``; its lines in ``.lines``."""
    command = await Command.start(env, *args)
    try:
        assert await finished(command) == code, command.lines
    finally:
        await command.close()
    return command


async def finished(command: Command) -> int:
    """The rest of the process's output, read into ``lines``, and its exit code."""
    assert command.proc.stdout is not None
    rest = await asyncio.wait_for(command.proc.stdout.read(), WAIT_S)
    command.lines += rest.decode().splitlines()
    return await asyncio.wait_for(command.proc.wait(), WAIT_S)


async def test_an_unknown_board_is_an_error_that_names_the_boards(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    nope = await ran(env, 1, "leaderboard", "--game", "race", "--board", "nope")
    assert nope.lines == [
        "error: Match, the race has no board 'nope': its boards are the main board (an empty "
        "board name). A board appears once a ranked game puts a result on it (unknown_board)",
        f"open one of them: {runnable('match')} --addr {stack.lobby_addr} leaderboard --game "
        "race --board NAME (the main board: leave out --board)",
    ]
    main = await ran(env, 0, "leaderboard", "--game", "race")  # as the hint says
    assert main.lines == ["Match, the race, main board", "nobody is on this board yet"]


async def test_q_twice_at_a_table_still_waiting_leaves_it_and_ends_the_client(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    ann = await Command.start(env, "play", "--new", "--seats", "2", "--name", "Ann")
    try:
        table = (await ann.wait_for(r"^table (\w+), your seat 1, as Ann$"))[1]
        await ann.wait_for(r"^your seat is kept in .*seats\.json: ")
        await ann.wait_for(r"^type \? for help$")
        ann.type("q")
        await ann.wait_for(
            rf"^type q again to leave table {table}: the game has not started, and your seat "
            "goes back to the table$"
        )
        ann.type("q")
        assert await finished(ann) == 0, ann.lines
    finally:
        await ann.close()
    assert f"you left table {table}; your seat there is free again" in ann.lines
    assert not any("every seat is taken" in line for line in ann.lines), ann.lines
    async with MatchClient(stack.lobby_addr) as client:
        left = await client.get_table(table)
    assert list(left.taken) == [] and left.status == left.STATUS_WAITING
    # The seat given back is no longer kept: --resume does not offer it (to be refused by the
    # lobby, and only then forgotten), and `match seats` no longer lists it.
    kept = await ran(env, 0, "seats")
    assert kept.lines == [f"no seats kept (in {tmp_path / 'state' / 'seats.json'})"]
    back = await ran(env, 1, "play", "--resume")
    assert back.lines[-1] == (
        f"no seat of yours at a game in progress at {stack.lobby_addr}: your key has none there, "
        f"and none is kept in {tmp_path / 'state' / 'seats.json'} (match seats)"
    ), back.lines


async def test_a_seat_given_up_elsewhere_is_said_so_and_forgotten_by_resume(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    store = SeatStore(tmp_path / "state")
    async with MatchClient(stack.lobby_addr) as client:
        seat = await waiting_table(client)
        store.keep(seat, stack.lobby_addr, "Ann")
        await client.leave(seat.table_id, seat.token)  # as another app of hers would (the web)
        for _ in range(100):  # until the lobby's listing has the seat given up
            try:
                await client.get_table(seat.table_id, seat.token)
            except Exception:
                break
            await asyncio.sleep(0.05)
    back = await ran(env, 1, "play", "--resume", "--anonymous")
    assert back.lines[-2:] == [
        f"cannot go back to table {seat.table_id}: you left this table, so this token no longer "
        "works; join again for a new one (unauthenticated)",
        "that seat is forgotten: it can no longer be played (a seat given up, a token older than "
        "6 hours, or a game long over)",
    ], back.lines
    assert store.all() == []


async def test_watching_another_game_than_the_race_says_what_to_do_instead(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    async with MatchClient(stack.lobby_addr) as client:
        seat = await client.create_table(number_match_pb2.NumberMatchSettings(), seats=1)
    watching = await ran(env, 1, "watch", "--table", seat.table_id, "--token", seat.token)
    assert watching.lines[-1] == (
        f"`match watch` prints the race's stream only, and table {seat.table_id} plays Number "
        f"Match: play on from your seat with `{runnable('match')} play --resume "
        f"{seat.table_id}`, or open the table in the web client"
    ), watching.lines


async def test_q_twice_in_the_full_screen_view_leaves_a_waiting_table(
    stack: Stack, tmp_path: Path
) -> None:
    settings = Settings.from_env({"MATCH_STATE_DIR": str(tmp_path / "state")})
    async with MatchClient(stack.lobby_addr) as client:
        seat = await waiting_table(client)
        game = race_play.Game(client, seat, print, settings=settings, show_boards=False)
        app = MatchApp(game, [], "Ann")
        async with app.run_test(size=(110, 36)) as pilot:
            for _ in range(2):
                app.query_one("#command", Input).value = "q"
                await pilot.press("enter")
            await pilot.pause()
        assert app.return_code == 0
        assert game.left_line == f"you left table {seat.table_id}; your seat there is free again"
        assert list((await client.get_table(seat.table_id)).taken) == []


async def test_joining_your_own_table_again_says_how_to_take_a_second_seat(
    stack: Stack, tmp_path: Path
) -> None:
    env = player_env(stack, tmp_path)
    ann = await Command.start(env, "play", "--new", "--seats", "2", "--name", "Ann")
    try:
        table = (await ann.wait_for(r"^table (\w+), your seat 1, as Ann$"))[1]
        again = await ran(env, 1, "play", "--table", table, "--name", "Ann")  # same key
        match = f"{runnable('match')} --addr {stack.lobby_addr}"
        assert again.lines[-2:] == [
            "error: you already have a seat at this table (already_seated)",
            "your player key already has a seat there (one seat a key). To play a second seat "
            f"from this machine: `{match} play --table {table} --anonymous` (no key), or with a "
            f"key of its own: `MATCH_CONFIG_DIR={tmp_path / 'config'}-2 {match} play --table "
            f"{table}`",
        ]
        # Either way works as printed: another key takes the second seat, and the game starts.
        bob_env = {**env, "MATCH_CONFIG_DIR": f"{tmp_path / 'config'}-2"}
        bob = await Command.start(bob_env, "play", "--table", table, "--name", "Bob")
        try:
            await bob.wait_for(rf"^table {table}, your seat 2, as Bob$")
        finally:
            await bob.close()
    finally:
        await ann.close()
