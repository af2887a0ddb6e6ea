"""``match play --rematch`` against the whole system: two people finish a private race in two
``match`` processes, each is told the command that plays it again, Ann asks first (the offer)
and Bob takes his seat with the same command, and the new game starts with both, in the line
mode. A seat this client never kept, and a game that is not over, are refused with a sentence."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from match_launch.stack import Stack
from tests.client.test_resume_by_key import player_env
from tests.client.test_screens import Command
from tests.conftest import running

READY = r"Type r when you are ready"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        tmp_path_factory.mktemp("rematch") / "stack",
        env={
            "REFEREE_CLOCK_RATE": "2.0",
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
        },
    )
    yield from running(s)


async def finished(*commands: Command) -> list[str]:
    """Each resigns (q, and q again) once the board waits for Ready: the rematch command each
    is told once the game is over."""
    for command in commands:
        await command.wait_for(READY)
    for command in commands:
        command.type("q")
        command.type("q")
    told = []
    for command in commands:
        said = await command.wait_for(r"^to play again with the same players: `(.+)`$", 60)
        told.append(said[1])
    return told


async def test_two_players_play_a_finished_race_again_each_asking(
    stack: Stack, tmp_path: Path
) -> None:
    ann_env, bob_env = player_env(stack, tmp_path / "ann"), player_env(stack, tmp_path / "bob")
    new = ("play", "--new", "--private", "--seats", "2", "--name", "Ann")
    ann = await Command.start(ann_env, *new)
    bob: Command | None = None
    try:
        table = (await ann.wait_for(r"^table (\w+), your seat 1, as Ann$"))[1]
        code = (await ann.wait_for(r"^invite code (\w+)$"))[1]
        bob = await Command.start(bob_env, "play", "--invite", code, "--name", "Bob")
        await bob.wait_for(rf"^table {table}, your seat 2, as Bob$")
        # Too early: the game is not over, and nothing is made.
        early = await Command.start(ann_env, "play", "--rematch", table)
        await early.wait_for(rf"^no rematch of table {table}: .*not over")
        assert await early.proc.wait() == 1
        told = await finished(ann, bob)
        assert all(t.endswith(f"play --rematch {table}") for t in told)
    finally:
        await ann.close()
        if bob is not None:
            await bob.close()

    ann = await Command.start(ann_env, "play", "--rematch", table)
    bob = None
    try:
        offer = await ann.wait_for(r"^rematch table (\w+), your seat 1: the game starts when")
        again = offer[1]
        assert again != table
        bob = await Command.start(bob_env, "play", "--rematch", table)
        await bob.wait_for(rf"^rematch table {again}, your seat 2$")
        await ann.wait_for(READY)  # both seated: the new game starts
        await bob.wait_for(READY)
    finally:
        await ann.close()
        if bob is not None:
            await bob.close()

    # A stranger's client kept no seat there: told so, nothing asked.
    stranger = await Command.start(player_env(stack, tmp_path / "carl"), "play", "--rematch", table)
    await stranger.wait_for(rf"^no seat of yours at table {table} is kept in ")
    assert await stranger.proc.wait() == 1
