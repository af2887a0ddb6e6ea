"""An auditor against the real stack: a finished game verifies online and from its export; a
game still being played is not served (its records hold the faces)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import grpc
import pytest

from match.v1 import audit_pb2, audit_pb2_grpc
from match_audit.cli import main
from match_bus.clock import Clock
from match_launch.stack import Stack
from tests.audit.game import play_short_game, served_records


async def audit(*argv: str) -> tuple[int, str]:
    """``match-audit`` in a thread (it makes blocking gRPC calls)."""
    out = io.StringIO()
    code = await asyncio.to_thread(main, list(argv), out, out)
    return code, out.getvalue()


async def test_a_finished_game_verifies_and_a_live_one_is_not_served(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, tmp_path: Path
) -> None:
    addr, vkey = stack.ledger_addr, str(stack.workdir / "ledger.vkey")

    async def while_playing(game: str) -> None:
        async with grpc.aio.insecure_channel(addr) as ledger:
            stub = audit_pb2_grpc.LedgerAuditServiceStub(ledger)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.GetGameRecords(audit_pb2.GetGameRecordsRequest(table_id=game))
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert refused.value.details() == (
            "the game is still being played; its records are published when it ends"
        )
        code, output = await audit("verify", game, "--addr", addr)
        assert code == 2 and "FAILED_PRECONDITION" in output

    game = await play_short_game(channel, clock, while_playing=while_playing)
    await served_records(addr, game)

    saved = tmp_path / "kept.checkpoint"
    code, output = await audit("verify", game, "--addr", addr, "--save", str(saved))
    assert code == 3, output  # every check holds, but the key came with the records
    assert "key not pinned" in output and f"UNPINNED game {game}" in output
    assert "PASS" not in output
    code, output = await audit("verify", game, "--addr", addr, "--key", vkey, "--since", str(saved))
    assert code == 0, output
    assert "(pinned with --key)" in output and "ok   consistency:" in output

    exported = tmp_path / "game.jsonl"
    code, output = await audit("export", game, "--addr", addr, "-o", str(exported))
    assert code == 0, output
    code, output = await audit("verify", "--offline", str(exported), "--key", vkey)
    assert code == 0, output
    assert output.strip().splitlines()[-1] == f"PASS game {game}: every check holds"

    code, output = await audit("replay", game, "--addr", addr)
    assert code == 0 and "board 1 (T0 = " in output and "standings:" in output
    code, output = await audit("verify", "unknowngame0", "--addr", addr)
    assert code == 2 and "NOT_FOUND" in output
