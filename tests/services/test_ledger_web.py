"""The ledger's VerifyGame, and its web edge (``LEDGER_WEB_ADDR``) for the auditor's page.

VerifyGame runs the checks of ``match-audit verify`` on the ledger's own evidence and replays the
game as ``match-audit replay`` does: first on a game built with the rules' own package (no
services), then against the real stack, called as a browser calls it (Connect, JSON).
"""

from __future__ import annotations

import asyncio
import io
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import audit_pb2, audit_pb2_grpc, referee_pb2
from match_audit import export, merkle
from match_audit.cli import main
from match_audit.note import Checkpoint, Signer, sign_checkpoint
from match_audit.replay import timeline
from match_audit.verify import Entry, Evidence
from match_bus.clock import Clock
from match_launch.natsserver import free_port
from match_launch.stack import Stack
from services.ledger.audit import AuditLimits
from services.ledger.service import serve_audit
from services.ledger.store import Incoming, Store
from services.ledger.verifying import verification
from services.lobby.limits import Rate
from services.webedge import WebConfig
from tests.audit.game import play_short_game, served_records, stack_env
from tests.audit.replay_records import TABLE
from tests.audit.test_replay import SEED, concentration_records
from tests.conftest import running

VERIFY = "/match.v1.LedgerAuditService/VerifyGame"


def signed(records: list[referee_pb2.TableRecord], signer: Signer) -> Evidence:
    """The records as a ledger serves them: leaves 0.., proved against a signed checkpoint."""
    leaves = [r.SerializeToString() for r in records]
    tree = merkle.LeafList([merkle.leaf_hash(leaf) for leaf in leaves])
    size = len(leaves)
    note = sign_checkpoint(
        Checkpoint(signer.name, size, merkle.subtree_root(tree, 0, size)), signer
    )
    entries = tuple(
        Entry(i, i + 1, leaf, tuple(merkle.inclusion_proof(tree, i, size)))
        for i, leaf in enumerate(leaves)
    )
    return Evidence(TABLE, note, str(signer.verifier), entries)


def cli_lines(argv: list[str]) -> list[str]:
    out = io.StringIO()
    main(argv, out=out, err=out)
    return out.getvalue().splitlines()


# --- the answer, from evidence (no services) --------------------------------------------------


def test_a_game_verifies_with_the_clis_checks_its_timeline_and_its_export(
    tmp_path: Path,
) -> None:
    records = concentration_records()
    signer = Signer("match.test/ledger", Ed25519PrivateKey.generate())
    evidence = signed(records, signer)
    answer = verification(evidence, ledger="127.0.0.1:50052")

    assert answer.ok, answer.verdict
    assert answer.verdict == f"PASS game {TABLE}: every check holds"
    assert (answer.game_kind, answer.game_title) == ("concentration", "Concentration")
    assert answer.seed == SEED.hex()
    assert answer.results.startswith("1. ")
    assert answer.verifier_key == str(signer.verifier) and answer.checkpoint == evidence.checkpoint

    # The export is the evidence, and the CLI checks it the same: its lines are the checks.
    path = tmp_path / "game.jsonl"
    path.write_text(answer.export)
    assert export.loads(answer.export.splitlines()) == evidence
    printed = cli_lines(["verify", "--offline", str(path), "--key", str(signer.verifier)])
    said = [f"{'--  ' if c.skipped else 'ok  '} {c.name}: {c.sentence}" for c in answer.checks] + [
        answer.verdict
    ]
    assert printed[-len(said) :] == said
    assert [c.name for c in answer.checks] == [
        "checkpoint",
        "consistency",
        "inclusion",
        "game",
        "seed",
        "deal",
        "rerun",
    ]
    assert answer.checks[1].skipped and not answer.checks[1].passed

    # The timeline, part by part, is what `match-audit replay` prints.
    lines = list(answer.heading)
    for board in answer.boards:
        lines += ["", board.title, *(f"  {line}" for line in board.lines)]
    assert lines == timeline(TABLE, records)
    assert answer.boards[0].number == 0 and answer.boards[0].title.startswith("table (")


def test_a_changed_record_does_not_verify_and_the_answer_says_where() -> None:
    records = concentration_records()
    signer = Signer("match.test/ledger", Ed25519PrivateKey.generate())
    evidence = signed(records, signer)
    changed = referee_pb2.TableRecord()
    changed.CopyFrom(records[5])
    changed.command.received_at_ms += 1
    entries = list(evidence.entries)
    entries[5] = Entry(5, 6, changed.SerializeToString(), entries[5].proof)
    answer = verification(
        Evidence(TABLE, evidence.checkpoint, evidence.verifier_key, tuple(entries))
    )

    assert not answer.ok
    assert answer.verdict.startswith("FAIL record 5 (leaf 5): inclusion proof does not match")
    last = answer.checks[-1]
    assert (last.name, last.passed, last.skipped) == ("inclusion", False, False)
    assert f"FAIL {last.sentence}" == answer.verdict
    assert [c.name for c in answer.checks] == ["checkpoint", "consistency", "inclusion"]
    assert answer.seed == "" and answer.results == ""
    assert answer.boards  # the timeline is still told: the page shows what was served


async def test_both_ports_share_the_rate_limit_and_say_how_long_to_wait(tmp_path: Path) -> None:
    """One bucket per address across the gRPC port and the web edge; over it, both answer
    RESOURCE_EXHAUSTED with ``retry-after-ms`` (the web edge: 429, a ``trailer-`` header)."""
    key = Signer("match.test/ledger", Ed25519PrivateKey.generate())
    store = Store.open(tmp_path / "ledger.db", key)
    store.append([Incoming(1, TABLE, concentration_records()[0].SerializeToString())])
    addr, web_addr = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    limits = AuditLimits(per_address=Rate(per_s=0.01, burst=2))
    stop = await serve_audit(
        store, addr, str(key.verifier), limits=limits, web=WebConfig(web_addr, frozenset())
    )
    try:
        async with (
            grpc.aio.insecure_channel(addr) as channel,
            httpx.AsyncClient(base_url=f"http://{web_addr}", timeout=10.0) as web,
        ):
            stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
            await stub.GetVerifierKey(audit_pb2.GetVerifierKeyRequest())
            live = await verify_game(web, TABLE)  # the game has not even started
            assert live.status_code == 400 and live.json()["code"] == "failed_precondition"
            limited = await verify_game(web, TABLE)
            assert limited.status_code == 429, limited.text
            assert limited.json()["code"] == "resource_exhausted"
            assert int(limited.headers["trailer-retry-after-ms"]) > 0
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.VerifyGame(audit_pb2.VerifyGameRequest(table_id=TABLE))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert dict(refused.value.trailing_metadata() or ())["retry-after-ms"].isdigit()
    finally:
        await stop()
        store.close()


# --- the real stack, through the ledger's web edge --------------------------------------------


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    yield from running(Stack(tmp_path / "stack", env=stack_env()))


@pytest.fixture
async def web(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.ledger_web_url, timeout=60.0) as client:
        yield client


async def verify_game(web: httpx.AsyncClient, game: str, **headers: str) -> httpx.Response:
    return await web.post(VERIFY, json={"tableId": game}, headers=headers)


async def test_the_auditors_page_calls_verify_game_on_the_ledgers_web_edge(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, web: httpx.AsyncClient
) -> None:
    refused: dict[str, Any] = {}

    async def while_playing(game: str) -> None:
        answer = await verify_game(web, game)
        refused["status"], refused["body"] = answer.status_code, answer.json()

    game = await play_short_game(channel, clock, while_playing=while_playing)
    assert refused["status"] == 400, refused  # Connect's failed_precondition
    assert refused["body"] == {
        "code": "failed_precondition",
        "message": "the game is still being played; its records are published when it ends",
    }
    await served_records(stack.ledger_addr, game)

    answer = await verify_game(web, game, Origin=stack.web_url)
    assert answer.status_code == 200, answer.text
    assert answer.headers["access-control-allow-origin"] == stack.web_url
    body = answer.json()
    assert body["ok"] is True, body["verdict"]
    assert body["verdict"] == f"PASS game {game}: every check holds"
    assert body["gameKind"] == "race" and len(body["seed"]) == 64
    assert [c["name"] for c in body["checks"] if c.get("passed")] == [
        "checkpoint",
        "inclusion",
        "game",
        "seed",
        "deal",
        "rerun",
    ]
    titles = [b["title"] for b in body["boards"]]
    assert titles[0].startswith("table (") and titles[1].startswith("board 1 (T0 = ")
    assert body["boards"][1]["number"] == 1
    assert any(line.startswith("standings:") for b in body["boards"] for line in b["lines"])

    # The CLI, pinned to the ledger's key, says the same of the same game.
    vkey = str(stack.workdir / "ledger.vkey")
    argv = ["verify", game, "--addr", stack.ledger_addr, "--key", vkey]
    printed = await asyncio.to_thread(cli_lines, argv)
    assert printed[-1] == body["verdict"]
    assert [line.split(":")[0].split()[-1] for line in printed if line.startswith("ok ")] == [
        c["name"] for c in body["checks"] if c.get("passed")
    ]
    # ... and of the export the page offers.
    exported = stack.workdir / "page-export.jsonl"
    exported.write_text(body["export"])
    argv = ["verify", "--offline", str(exported), "--key", vkey]
    assert (await asyncio.to_thread(cli_lines, argv))[-1] == f"PASS game {game}: every check holds"

    unknown = await verify_game(web, "unknowngame0")
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
    malformed = await verify_game(web, "Not.A.Game")
    assert malformed.status_code == 400 and malformed.json()["code"] == "invalid_argument"
    elsewhere = await verify_game(web, game, Origin="http://elsewhere.example")
    assert elsewhere.status_code == 403 and "elsewhere.example" in elsewhere.text
    preflight = await web.options(
        VERIFY,
        headers={"Origin": stack.web_url, "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == stack.web_url

    # Someone changes a record of the game in the ledger's file: the ledger no longer vouches.
    db = sqlite3.connect(stack.ledger_db("ledger"))
    try:
        (sequence, data), *_ = db.execute(
            "SELECT stream_sequence, data FROM records WHERE table_id = ?"
            " ORDER BY stream_sequence LIMIT 1 OFFSET 3",
            (game,),
        ).fetchall()
        record = referee_pb2.TableRecord.FromString(data)
        record.command.received_at_ms += 1
        with db:
            db.execute("DROP TRIGGER records_no_update")
            db.execute(
                "UPDATE records SET data = ? WHERE stream_sequence = ?",
                (record.SerializeToString(), sequence),
            )
    finally:
        db.close()
    tampered = await verify_game(web, game)
    assert tampered.status_code == 200, tampered.text
    body = tampered.json()
    assert body.get("ok") is not True
    assert body["verdict"].startswith("FAIL record 3 (leaf ")
    assert "inclusion proof does not match the checkpoint root" in body["verdict"]
    assert body["checks"][-1]["name"] == "inclusion"
    assert "Traceback" not in stack.log("ledger", tail=0)
