"""The system replicated on a local three-node NATS cluster (streams at R3, two processes of
every service): a game goes on while the referee holding its table is SIGKILLed, finishes, and
verifies; the player lost no event, nothing was applied twice, and both ledger copies are the
same tree."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from nats.js.errors import KeyNotFoundError

from match_bus import subjects
from match_bus.clock import Clock
from match_chaos.check import check_game
from match_chaos.player import ChaosPlayer
from match_chaos.run import (
    cluster_stack,
    ledger_tree,
    ledgers_caught_up,
    stack_env,
    table_records,
    verify,
)
from match_client.race.tracker import RaceView
from match_launch.stack import Stack

RATE = 10.0


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    anchor = int(time.time() * 1000)
    s = cluster_stack(tmp_path, stack_env(RATE, anchor), replicas=2)
    try:
        s.start(timeout=90)
        yield s
    finally:
        s.stop()
    assert not s.nats_refusals(), "\n".join(s.nats_refusals())  # every grant was enough


async def holder(stack: Stack, table_id: str) -> str:
    """The referee process holding the lease of the table's partition ("referee.2")."""
    nc = await stack.connect_nats()
    try:
        kv = await nc.jetstream().key_value(subjects.REFEREE_LEASES_BUCKET)
        deadline = time.monotonic() + 20
        while True:
            try:
                entry = await kv.get(subjects.partition_name(subjects.partition_of(table_id)))
                assert entry.value is not None
                return entry.value.decode().replace("-", ".")  # MATCH_REPLICA_ID referee-2
            except KeyNotFoundError:
                assert time.monotonic() < deadline, "nobody holds the table's partition"
                await asyncio.sleep(0.2)
    finally:
        await nc.close()


async def test_a_game_survives_its_referee_being_killed_and_verifies(stack: Stack) -> None:
    assert stack.cluster is not None and len(stack.cluster.live_urls()) == 3
    assert stack.names("referee") == ["referee.1", "referee.2"]
    clock = Clock(RATE, int(stack.env["REFEREE_CLOCK_ANCHOR_MS"]))
    player = ChaosPlayer(stack.lobby_addr, "Ann", clock, random.Random(6))
    game = asyncio.create_task(player.play_game(seats=2, ready_window_ms=60_000))
    try:
        deadline = time.monotonic() + 30
        while player.tracker.phase != RaceView.PHASE_PLAYING:  # board 1 under way
            assert not game.done() and time.monotonic() < deadline, "the game did not start"
            await asyncio.sleep(0.05)
        victim = await holder(stack, player.table_id)
        assert victim in ("referee.1", "referee.2")
        await asyncio.to_thread(stack.stop_service, victim, signal.SIGKILL)
        killed_at = (player.tracker.board, player.tracker.event_number)
        await asyncio.sleep(2.0)
        await asyncio.to_thread(stack.start_service, victim)
        await asyncio.wait_for(game, timeout=90)
    finally:
        game.cancel()
        await asyncio.gather(game, return_exceptions=True)
        await player.close()

    assert player.tracker.game_over and player.tracker.seed is not None
    assert killed_at[0] == 1  # killed while board 1 was being played
    records = await table_records(stack, player.table_id)
    check = check_game(
        player.table_id,
        records,
        player.tracker.player,
        player.received.events,
        player.received.snapshots,
    )
    assert (check.lost, check.duplicated, check.mismatched) == (0, 0, 0), check.notes
    assert check.last_event > killed_at[1]  # the game went on after the kill
    ok, verdict = await verify(stack, player.table_id)
    assert ok, verdict
    await ledgers_caught_up(stack)
    one, two = (ledger_tree(stack.ledger_db(n)) for n in stack.names("ledger"))
    assert one == two and len(one[0]) >= check.records
