"""The whole system with TLS on both gRPC APIs: a throwaway CA signs a certificate for
127.0.0.1 and localhost; the lobby and the ledger's audit API serve it, the bot verifies the
lobby with the CA (MATCH_CA), a whole game is played through the SDK (the demo's scripted
player) and verified with `match-audit --ca`. A plain-text client and a client that trusts
another CA get nothing from either server."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from match.v1 import referee_pb2
from match_audit import cli as audit_cli
from match_audit.client import LedgerClient, LedgerError
from match_client import cli as match_cli
from match_client.client import MatchClient, status_name
from match_client.race import demo as race_demo
from match_launch.stack import Stack
from tests.certs import Pki, make_pki

RATE = 10.0
GAME_TIMEOUT_S = 150


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return make_pki(tmp_path / "pki")


@pytest.fixture
def stack(tmp_path: Path, pki: Pki, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    anchor = int(time.time() * 1000)
    clock = {"REFEREE_CLOCK_RATE": str(RATE), "REFEREE_CLOCK_ANCHOR_MS": str(anchor)}
    for name, value in clock.items():  # the demo's player reads the system clock from here
        monkeypatch.setenv(name, value)
    s = Stack(
        tmp_path / "stack",
        ca_file=pki.ca,  # the health checks and the bot verify the lobby with it
        env={
            **clock,
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "0.1",
            "LEDGER_CHECKPOINT_EVERY": "8",
            "LEDGER_CHECKPOINT_S": "0.5",
            "LOBBY_TLS_CERT": str(pki.cert),
            "LOBBY_TLS_KEY": str(pki.key),
            "LEDGER_TLS_CERT": str(pki.cert),
            "LEDGER_TLS_KEY": str(pki.key),
        },
    )
    s.start()
    try:
        yield s
    finally:
        s.stop()


async def audit(*argv: str) -> tuple[int, str]:
    """``match-audit`` in a thread (it makes blocking gRPC calls)."""
    out = io.StringIO()
    code = await asyncio.to_thread(audit_cli.main, list(argv), out, out)
    return code, out.getvalue()


async def match(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``match`` in a thread (it runs its own event loop); what it printed."""
    capsys.readouterr()
    code = await asyncio.to_thread(match_cli.main, list(argv))
    return code, capsys.readouterr().out


def served_with_seed(addr: str, ca: Path, game: str, timeout: float = 30.0) -> int:
    """Wait, over TLS, until the ledger serves the game with its seed; the number of records."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with LedgerClient(addr, timeout=5, ca_file=ca) as client:
                entries = client.evidence(game).entries
            records = [referee_pb2.TableRecord.FromString(e.record) for e in entries]
            if any(env.table.HasField("seed_revealed") for r in records for env in r.events):
                return len(records)
        except LedgerError as error:
            if error.code not in ("FAILED_PRECONDITION", "NOT_FOUND", "UNAVAILABLE"):
                raise
        assert time.monotonic() < deadline, f"the ledger never served game {game}"
        time.sleep(0.2)


async def test_a_whole_game_over_tls_verifies_and_plain_or_wrong_ca_clients_get_nothing(
    stack: Stack, pki: Pki, capsys: pytest.CaptureFixture[str]
) -> None:
    lobby, ledger = stack.lobby_addr, stack.ledger_addr
    key = str(stack.verifier_key_file)

    # A whole game through the SDK over TLS. Its table has two seats and starts only once the
    # bot has taken the other: the bot too reached the lobby over TLS (MATCH_CA).
    code = await asyncio.wait_for(
        race_demo.demo(lobby, pace=0.1, seed=7, ca_file=str(pki.ca)), GAME_TIMEOUT_S
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    game = printed.split()[1]  # "game <id>" comes first
    assert "published seed:" in printed and "DIFFER" not in printed, printed
    assert "Bot 1: " in printed.split("final standings:")[1], printed

    # The audit over TLS: every check holds.
    assert await asyncio.to_thread(served_with_seed, ledger, pki.ca, game) > 0
    code, output = await audit("verify", game, "--addr", ledger, "--key", key, "--ca", str(pki.ca))
    assert code == 0, output
    assert output.strip().splitlines()[-1] == f"PASS game {game}: every check holds"

    # The `match` command over TLS.
    code, output = await match(capsys, "--addr", lobby, "--ca", str(pki.ca), "tables")
    assert code == 0, output

    # Plain text and a CA that did not sign the certificate: no answer from either server.
    for wrong in ({}, {"ca_file": pki.other_ca}):
        async with MatchClient(lobby, timeout=3, **wrong) as client:  # type: ignore[arg-type]
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.list_tables()
            assert status_name(refused.value) == "UNAVAILABLE", wrong
    for flags in ((), ("--ca", str(pki.other_ca))):
        code, output = await audit("verify", game, "--addr", ledger, "--key", key, *flags)
        assert code == audit_cli.USAGE_ERROR, output
        assert "UNAVAILABLE" in output, output
    code, output = await match(capsys, "--addr", lobby, "tables")
    assert code == 1 and "cannot reach the server" in output, output

    # Both servers said they serve TLS, and neither warned (loopback, TLS on).
    for name in ("lobby", "ledger"):
        assert str(pki.cert) in stack.log(name, tail=0)
        assert "plain text" not in stack.log(name, tail=0)
