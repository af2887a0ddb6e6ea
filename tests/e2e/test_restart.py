"""Kill the referee, or NATS itself, mid-board and start it again: the board goes on from the
stream and every deadline holds to the millisecond."""

from __future__ import annotations

import asyncio
import signal

import grpc

from match.v1 import common_pb2, race_pb2
from match_bus.clock import Clock
from match_launch.stack import Stack
from tests.e2e.players_race import Player

CAP = 120_000


async def board_under_way(channel: grpc.aio.Channel, clock: Clock) -> tuple[Player, Player, int]:
    """Ann and Bob at a private table, Ann watching, both Ready: board 1 has started at T0."""
    ann, bob = Player("Ann", channel, clock), Player("Bob", channel, clock)
    created = await ann.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
    await bob.join(invite_code=created.invite_code)
    ann.watch()
    await ann.wait_for("ready_opened", board=1)
    await ann.ready()
    await bob.ready()
    t0 = (await ann.wait_for("board_started", board=1, timeout=20)).at
    return ann, bob, t0


async def test_a_killed_referee_comes_back_and_the_board_goes_on(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock
) -> None:
    ann, bob, t0 = await board_under_way(channel, clock)
    await ann.turn(1)
    await ann.turn(2)
    await bob.turn(5)

    stack.stop_service("referee", signal.SIGKILL)
    await asyncio.sleep(0.5)  # 5 s on the game's clock, with nobody to referee
    stack.start_service("referee")

    reply = None
    for attempt in range(100):
        try:
            await ann.sleep_until(clock.now_ms() + 1_000)  # past any pause
            reply = await ann.turn(3)
            break
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            await asyncio.sleep(0.05 * attempt)
    assert reply is not None and reply.counters.turns == 3  # nothing lost, nothing doubled
    ended = await ann.wait_for("board_ended", board=1, timeout=30)
    assert (ended.at, ended.reason) == (t0 + CAP, race_pb2.RaceEvent.END_REASON_TIME_CAP)
    numbers = [i.event.event_number for i in ann.stream if i.WhichOneof("item") == "event"]
    assert numbers == sorted(set(numbers)), "the stream neither repeats nor reorders"
    await ann.stop_watch()


async def test_a_crashed_nats_server_comes_back_and_the_game_goes_on(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock
) -> None:
    """NATS itself dies mid-board (SIGKILL) and comes back on its files: every service
    reconnects, the timers fire at their instants, and nothing acknowledged is lost."""
    ann, _, t0 = await board_under_way(channel, clock)
    await ann.turn(1)
    await ann.turn(2)
    seen = max(i.event.event_number for i in ann.stream if i.WhichOneof("item") == "event")

    assert stack.nats is not None
    stack.nats.kill()
    await asyncio.sleep(0.5)
    stack.nats.start()

    reply = None
    for attempt in range(100):
        try:
            await ann.sleep_until(clock.now_ms() + 1_000)  # past any pause
            reply = await ann.turn(3)
            break
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            await asyncio.sleep(0.1 * attempt)
    assert reply is not None and reply.counters.turns == 3  # the two turns before survived
    await ann.stop_watch()
    ann.watch(after=seen)  # a client resumes its stream from the last event it had
    ended = await ann.wait_for("board_ended", board=1, timeout=30)
    assert (ended.at, ended.reason) == (t0 + CAP, race_pb2.RaceEvent.END_REASON_TIME_CAP)
    numbers = [i.event.event_number for i in ann.stream if i.WhichOneof("item") == "event"]
    assert sorted(set(numbers)) == list(range(1, max(numbers) + 1)), "no event missing"
    await ann.stop_watch()
