"""A short real game for the audit tests: played over gRPC against the real stack, then read
back from the ledger's audit API once its seed is in the log."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

import grpc

from match.v1 import audit_pb2, audit_pb2_grpc, common_pb2, referee_pb2
from match_bus.clock import Clock
from match_client.client import refusal_code
from tests.e2e.players_race import Player

RATE = 10.0


def stack_env(anchor_ms: int | None = None) -> dict[str, str]:
    """The end-to-end tests' stack settings (a clock ten times fast), with frequent checkpoints."""
    return {
        "REFEREE_CLOCK_RATE": str(RATE),
        "REFEREE_CLOCK_ANCHOR_MS": str(anchor_ms or int(time.time() * 1000)),
        "REFEREE_FILL_WAIT_MS": "3600000",
        "BOT_PACE": "1.0",
        "LEDGER_CHECKPOINT_EVERY": "8",
        "LEDGER_CHECKPOINT_S": "0.5",
    }


async def play_short_game(
    channel: grpc.aio.Channel,
    clock: Clock,
    while_playing: Callable[[str], Awaitable[None]] | None = None,
) -> str:
    """Two players: some turns (a pair or a miss, then refusals in the pause), a hint refused (no
    bot), then both resign on board 1. Returns the game id once the game has ended."""
    ann, bob = Player("Ann", channel, clock), Player("Bob", channel, clock)
    created = await ann.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
    await bob.join(invite_code=created.invite_code)
    ann.watch()
    try:
        await ann.wait_for("ready_opened", board=1)
        await ann.ready()
        await bob.ready()
        await ann.wait_for("board_started", board=1, timeout=20)
        # Turns until one is refused in the pause after a miss (recorded): at ten times the
        # speed a pause lasts 100 ms, so on a busy machine a turn can land after it, and a deal
        # can pair before it misses; at least six turns, and on through the board until then.
        paused = False
        for tile in range(1, 21):
            if tile > 6 and paused:
                break
            try:
                await ann.turn(tile)
            except grpc.aio.AioRpcError as error:
                paused = paused or refusal_code(error) == "paused"
        for bad in (1, 1, 0):  # the second is face up (refused, recorded); 0 is no tile (refused
            # at the lobby's edge, so not in the log)
            with contextlib.suppress(grpc.aio.AioRpcError):
                await bob.turn(bad)
        if while_playing is not None:
            await while_playing(ann.table_id)
        await ann.resign()
        await bob.resign()
        await ann.wait_for("game_ended", timeout=20)
    finally:
        await ann.stop_watch()
    return ann.table_id


async def served_records(addr: str, game: str, timeout: float = 30.0) -> int:
    """Wait until the ledger serves the game with its seed revealed; the number of records."""
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(addr) as channel:
        stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
        while True:
            try:
                answer = await stub.GetGameRecords(audit_pb2.GetGameRecordsRequest(table_id=game))
                records = [referee_pb2.TableRecord.FromString(e.record) for e in answer.entries]
                if any(env.table.HasField("seed_revealed") for r in records for env in r.events):
                    return len(records)
            except grpc.aio.AioRpcError as error:
                if error.code() not in (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.NOT_FOUND,
                    grpc.StatusCode.UNAVAILABLE,
                ):
                    raise
            assert time.monotonic() < deadline, f"the ledger never served game {game}"
            await asyncio.sleep(0.1)
