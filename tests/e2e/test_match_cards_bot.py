"""Match Cards against the bot service, through the real stack: a person creates an open
challenge table of two and starts it, the bot service takes the empty seat and plays its own
copy of the deal to the end, from nothing but its seat's stream and replies.

The stack here differs from the shared one in two settings: BOT_PACE=0.1, so that on the
ten-times clock the bot thinks about a second of game time per card (a person's pace) and the
test stays short, and BOT_FORCE_STRENGTH=strong (Match Cards' deal draws no strength; the
default, medium, could lose a game by the limit, which a test should not leave to chance).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from match_launch.stack import Stack
from tests.e2e.conftest import fast_stack
from tests.e2e.players_match_cards import MCPlayer, Settings, check_no_leaks
from tests.e2e.test_match_cards import deal_of, seed_of, verified


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    yield from fast_stack(tmp_path, BOT_PACE="0.1", BOT_FORCE_STRENGTH="strong")


async def test_the_bot_takes_the_empty_seat_and_plays_its_copy_to_the_end(
    stack: Stack, channel: grpc.aio.Channel
) -> None:
    ann = MCPlayer("Ann", channel)
    await ann.create(seats=2, settings=Settings(cards=12))
    ann.watch()
    await ann.start()
    started = await ann.wait_for("game_started")
    (bot,) = [p for p in started.players if p != ann.player_id]
    seated = [
        i.event.table.player_seated
        for i in ann.stream
        if i.WhichOneof("item") == "event" and i.event.table.HasField("player_seated")
    ]
    assert [s.is_bot for s in seated if s.player_id == bot] == [True]
    await ann.play_to_the_end(forgetful=True)
    done = await ann.wait_for("player_finished", player=bot, timeout=120)
    ended = await ann.wait_for("game_ended")
    # The bot played every attempt to an outcome: a strong memory wins 12 cards within Easy's 20.
    assert done.won and done.groups == 6 and done.failed < started.limit
    progress = ann.found("opponent_progress", player=bot)
    assert progress and max(p.groups for p in progress) == 6
    places = {s.player: s for s in ended.standings}
    assert places[bot].won and places[bot].place == 1
    check_no_leaks(ann, deal_of(ended.code))
    await seed_of(ann)  # the dealer publishes the seed once the game is over
    await verified(stack, ann.table_id)
