"""An auditor's re-run of the rules over a real game's log gives the same results, and notices
a change to it."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
from nats.aio.client import Client

from match.v1 import common_pb2, referee_pb2
from match_audit.rerun import Rerun, rerun, seed_events, table_game
from match_bus.clock import Clock
from match_bus.jetstream import TableLog
from match_launch.stack import Stack
from match_rules.deal import commitment
from tests.e2e.players_race import Player


async def _played_game(
    channel: grpc.aio.Channel, clock: Clock, nc: Client
) -> list[referee_pb2.TableRecord]:
    ann, bob = Player("Ann", channel, clock), Player("Bob", channel, clock)
    created = await ann.create(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
    await bob.join(invite_code=created.invite_code)
    ann.watch()
    await ann.wait_for("ready_opened", board=1)
    await ann.ready()
    await bob.ready()
    await ann.wait_for("board_started", board=1, timeout=20)
    # Some of these are refused: refusals are recorded too, and the re-run below must find the
    # same ones (it asserts how many). Bob's second and third tile 1 are refused whatever the
    # timing (tile_face_up: his first stays up until he turns another); Ann's turns during her
    # pause after a miss are refused only when they come within it, which a loaded machine
    # may not manage; tile 0 is refused at the edge, before anything is recorded.
    bob_s = [(bob, 1), (bob, 1), (bob, 1), (bob, 0)]
    for player, tile in [(ann, t) for t in (1, 2, 3, 4, 5, 6)] + bob_s:
        with contextlib.suppress(grpc.aio.AioRpcError):
            await player.turn(tile)
    await ann.resign()
    await bob.resign()
    await ann.wait_for("game_ended", timeout=20)
    log = TableLog(nc.jetstream())
    for _ in range(200):
        records = [referee_pb2.TableRecord.FromString(r.data) for r in await log.read(ann.table_id)]
        if seed_events(records)[1] is not None:
            await ann.stop_watch()
            return records
        await asyncio.sleep(0.05)
    raise AssertionError("the seed was never revealed")


def rerun_with(records: list[referee_pb2.TableRecord], seed: bytes) -> Rerun:
    """The re-run as match-audit does it: the game and settings the table's TableCreated names
    (through the registry), the deal that game deals from ``seed``."""
    table = table_game(records)
    return rerun(records, table.game, table.settings, table.game.deal(seed, table.settings))


async def test_the_rules_rerun_over_the_log_agree_and_a_change_is_found(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, nc: Client
) -> None:
    records = await _played_game(channel, clock, nc)
    committed, revealed = seed_events(records)
    assert committed is not None and revealed is not None
    assert commitment(revealed.seed) == committed.commitment
    seed = revealed.seed
    result = rerun_with(records, seed)
    assert result.ok, result.findings
    assert result.accepted >= 6 and result.refused >= 2

    # A face changed in the log.
    forged = [referee_pb2.TableRecord.FromString(r.SerializeToString()) for r in records]
    turned = next(
        i
        for i, r in enumerate(forged)
        if any(e.race.WhichOneof("event") == "tile_turned" for e in r.events)
    )
    for env in forged[turned].events:
        if env.race.WhichOneof("event") == "tile_turned":
            env.race.tile_turned.symbol = (env.race.tile_turned.symbol + 1) % 25
    (finding,) = rerun_with(forged, seed).findings
    assert finding.record == turned and "the rules give" in finding.problem

    # A record dropped: the numbering breaks or the rules disagree, at that record.
    dropped = records[:turned] + records[turned + 1 :]
    assert rerun_with(dropped, seed).findings[0].record == turned

    # A refusal recorded with another code, and a turn moved into the pause.
    refused_at = next(i for i, r in enumerate(records) if r.HasField("refusal"))
    recoded = list(records)
    changed = referee_pb2.TableRecord.FromString(records[refused_at].SerializeToString())
    changed.refusal.code = "tile_face_up" if changed.refusal.code != "tile_face_up" else "paused"
    recoded[refused_at] = changed
    assert rerun_with(recoded, seed).findings[0].record == refused_at

    # Another deal (the seed swapped): the first face turned no longer matches.
    assert not rerun_with(records, bytes(32)).ok
