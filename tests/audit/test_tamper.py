"""Tampering with a real game's evidence is caught by ``match-audit verify``, with a clear line.

A module fixture runs the real stack once, plays a short game to its end and exports it (with a
consistency proof from a checkpoint kept while the game was played). Every test then changes the
export offline and runs ``match-audit verify --offline`` on it, pinned to the ledger's key. Two
kinds of attacker: one who edits the export (the proofs no longer match), and a compromised
ledger that rebuilds its tree and signs again with its own key (only the game's rules, the seed,
the numbering and a checkpoint kept from before can catch it).
"""

from __future__ import annotations

import asyncio
import base64
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import grpc
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import audit_pb2, audit_pb2_grpc, referee_pb2
from match_audit import cli, export, merkle
from match_audit.cli import main
from match_audit.note import Checkpoint, Signer, open_checkpoint, parse, sign_checkpoint
from match_audit.verify import Consistency, Entry, Evidence
from match_bus import subjects
from match_bus.clock import Clock
from match_launch.stack import Stack
from tests.audit.game import play_short_game, served_records, stack_env


@dataclass(frozen=True)
class RealGame:
    game: str
    path: Path  # the export
    evidence: Evidence
    vkey: str  # the ledger's verifier key, pinned
    signer: Signer  # the ledger's own signing key: a compromised ledger has it
    early: Path  # a checkpoint kept while the game was being played


async def _play(stack: Stack, env: dict[str, str], early: Path) -> str:
    clock = Clock(float(env["REFEREE_CLOCK_RATE"]), int(env["REFEREE_CLOCK_ANCHOR_MS"]))

    async def keep_a_checkpoint(_: str) -> None:
        """A checkpoint covering every record so far (the turns): the ledger stores and signs a
        little after the stream, so wait for one that has caught up."""
        nc = await stack.connect_nats()
        try:
            info = await nc.jetstream().stream_info(subjects.EVENTS_STREAM)
            so_far = info.state.messages
        finally:
            await nc.close()
        async with grpc.aio.insecure_channel(stack.ledger_addr) as channel:
            stub = audit_pb2_grpc.LedgerAuditServiceStub(channel)
            for _ in range(100):
                try:
                    answer = await stub.GetCheckpoint(audit_pb2.GetCheckpointRequest())
                    if int(answer.checkpoint.split("\n")[1]) >= so_far:
                        early.write_text(answer.checkpoint)
                        return
                except grpc.aio.AioRpcError:
                    pass
                await asyncio.sleep(0.1)
        raise AssertionError("the ledger signed no checkpoint while the game was played")

    async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
        game = await play_short_game(channel, clock, while_playing=keep_a_checkpoint)
    await served_records(stack.ledger_addr, game)
    return game


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealGame]:
    root = tmp_path_factory.mktemp("audit")
    env = stack_env()
    stack = Stack(root / "stack", env=env)
    early, path = root / "early.checkpoint", root / "game.jsonl"
    stack.start()
    try:
        game = asyncio.run(_play(stack, env, early))
        out = io.StringIO()
        argv = ["export", game, "--addr", stack.ledger_addr, "-o", str(path), "--since", str(early)]
        assert main(argv, out=out, err=out) == 0, out.getvalue()
    finally:
        stack.stop()
    key = serialization.load_pem_private_key((root / "stack" / "ledger.key").read_bytes(), None)
    assert isinstance(key, Ed25519PrivateKey)
    evidence = export.loads(path.read_text().splitlines())
    yield RealGame(
        game=game,
        path=path,
        evidence=evidence,
        vkey=(root / "stack" / "ledger.vkey").read_text().strip(),
        signer=Signer(Checkpoint.parse(parse(evidence.checkpoint).text).origin, key),
        early=early,
    )


def verify(
    real: RealGame, tmp_path: Path, evidence: Evidence, *extra: str, pin: bool = True
) -> tuple[int, str]:
    path = tmp_path / "changed.jsonl"
    path.write_text(export.dumps(evidence))
    out = io.StringIO()
    key = ["--key", real.vkey] if pin else []
    code = main(["verify", "--offline", str(path), *key, *extra], out=out, err=out)
    return code, out.getvalue()


def fails(result: tuple[int, str], pattern: str) -> str:
    """The verification failed, and its last line, one line, says ``pattern``."""
    code, output = result
    last = output.strip().splitlines()[-1]
    assert code == 1, output
    assert last.startswith("FAIL "), output
    assert re.search(pattern, last), f"{last!r} does not say {pattern!r}"
    return last


def records(evidence: Evidence) -> list[referee_pb2.TableRecord]:
    return [referee_pb2.TableRecord.FromString(e.record) for e in evidence.entries]


def first_with(evidence: Evidence, test: Callable[[referee_pb2.TableRecord], bool]) -> int:
    return next(i for i, r in enumerate(records(evidence)) if test(r))


def race_event(name: str) -> Callable[[referee_pb2.TableRecord], bool]:
    return lambda r: any(e.race.WhichOneof("event") == name for e in r.events)


def table_event(name: str) -> Callable[[referee_pb2.TableRecord], bool]:
    return lambda r: any(e.table.WhichOneof("event") == name for e in r.events)


def compromised_ledger(
    real: RealGame,
    data: list[bytes],
    pad_to: int = 0,
    signer: Signer | None = None,
    proof_from: int | None = None,
) -> Evidence:
    """What a ledger that rewrote its tree would serve: ``data`` as leaves 0.., padded with
    other leaves to ``pad_to``, proofs and a checkpoint signed with the ledger's key (and a
    consistency proof from the size ``proof_from``, made in the rewritten tree)."""
    leaves = list(data) + [b"another table's record %d" % i for i in range(pad_to - len(data))]
    tree = merkle.LeafList([merkle.leaf_hash(leaf) for leaf in leaves])
    size = len(leaves)
    signer = signer or real.signer
    note = sign_checkpoint(
        Checkpoint(signer.name, size, merkle.subtree_root(tree, 0, size)), signer
    )
    entries = tuple(
        Entry(i, i + 1, d, tuple(merkle.inclusion_proof(tree, i, size))) for i, d in enumerate(data)
    )
    proofs = ()
    if proof_from is not None:
        made = merkle.consistency_proof(tree, proof_from, size)
        proofs = (Consistency(proof_from, size, tuple(made)),)
    return Evidence(real.game, note, real.vkey, entries, proofs)


def data(evidence: Evidence) -> list[bytes]:
    return [e.record for e in evidence.entries]


def edited(
    evidence: Evidence, index: int, change: Callable[[referee_pb2.TableRecord], None]
) -> list[bytes]:
    out = data(evidence)
    record = referee_pb2.TableRecord.FromString(out[index])
    change(record)
    out[index] = record.SerializeToString()
    return out


# --- the real game holds -----------------------------------------------------------------------


def test_the_real_games_export_verifies_and_replays(real: RealGame, tmp_path: Path) -> None:
    code, output = verify(real, tmp_path, real.evidence, "--since", str(real.early))
    assert code == 0, output
    assert output.strip().splitlines()[-1] == f"PASS game {real.game}: every check holds"
    assert "ok   consistency: the tree of size" in output  # the early checkpoint is a prefix
    for check in ("checkpoint", "inclusion", "seed", "deal", "rerun"):
        assert f"ok   {check}:" in output
    code, unpinned = verify(real, tmp_path, real.evidence, pin=False)
    assert code == 3 and "key not pinned" in unpinned  # not a full pass: not exit 0, not PASS
    assert unpinned.strip().splitlines()[-1].startswith(f"UNPINNED game {real.game}: ")
    assert "PASS" not in unpinned

    out = io.StringIO()
    assert main(["replay", "--offline", str(real.path)], out=out) == 0
    timeline = out.getvalue()
    assert "board 1 (T0 = " in timeline and "Ann turns tile 1: symbol" in timeline
    # Bob's second turn of his face-up tile is refused whatever the timing (Ann's turns in her
    # pause depend on the machine's speed; play_short_game says why).
    assert "Bob turns tile 1: refused, tile_face_up" in timeline
    assert "seed revealed" in timeline


# --- an edited export: the proofs no longer match ------------------------------------------------


def test_a_changed_byte_fails_its_inclusion_proof(real: RealGame, tmp_path: Path) -> None:
    k = first_with(real.evidence, race_event("tile_turned"))
    entry = real.evidence.entries[k]
    flipped = bytearray(entry.record)
    flipped[len(flipped) // 2] ^= 0x01
    changed = replace(
        real.evidence,
        entries=tuple(
            replace(e, record=bytes(flipped)) if i == k else e
            for i, e in enumerate(real.evidence.entries)
        ),
    )
    fails(
        verify(real, tmp_path, changed),
        rf"^FAIL record {k} \(leaf {entry.leaf_index}\): inclusion proof does not match the "
        "checkpoint root",
    )


def test_a_dropped_record_is_missed_by_the_numbering(real: RealGame, tmp_path: Path) -> None:
    k = first_with(real.evidence, race_event("tile_turned"))
    entries = real.evidence.entries
    dropped = replace(real.evidence, entries=entries[:k] + entries[k + 1 :])
    fails(verify(real, tmp_path, dropped), rf"^FAIL record {k} .*a record is missing")


def test_a_dropped_refusal_breaks_the_record_numbers(real: RealGame, tmp_path: Path) -> None:
    """A refused command changed nothing and carries no event; its record number still shows
    that it is gone."""
    k = first_with(real.evidence, lambda r: r.HasField("refusal"))
    entries = real.evidence.entries
    dropped = replace(real.evidence, entries=entries[:k] + entries[k + 1 :])
    fails(verify(real, tmp_path, dropped), rf"^FAIL record {k} .*a record is missing")


def test_reordered_records_are_out_of_ledger_order(real: RealGame, tmp_path: Path) -> None:
    k = first_with(real.evidence, race_event("tile_turned"))
    e = list(real.evidence.entries)
    e[k], e[k + 1] = e[k + 1], e[k]
    fails(verify(real, tmp_path, replace(real.evidence, entries=tuple(e))), "out of ledger order")
    e = list(real.evidence.entries)  # the bytes swapped, the leaf indexes kept
    e[k], e[k + 1] = replace(e[k], record=e[k + 1].record), replace(e[k + 1], record=e[k].record)
    fails(
        verify(real, tmp_path, replace(real.evidence, entries=tuple(e))),
        rf"^FAIL record {k} .*inclusion proof does not match",
    )


def test_an_inserted_record_is_caught(real: RealGame, tmp_path: Path) -> None:
    k = first_with(real.evidence, race_event("tile_turned"))
    e = real.evidence.entries
    again = replace(real.evidence, entries=(*e[: k + 1], e[k], *e[k + 1 :]))
    fails(verify(real, tmp_path, again), rf"^FAIL record {k + 1} .*out of ledger order")
    made_up = replace(e[k], leaf_index=e[k].leaf_index + 1)  # a leaf the ledger never had
    inserted = replace(real.evidence, entries=(*e[: k + 1], made_up, *e[k + 1 :]))
    fails(verify(real, tmp_path, inserted), rf"^FAIL record {k + 1} .*(inclusion|order)")


def test_a_truncated_log_is_incomplete(real: RealGame, tmp_path: Path) -> None:
    e = real.evidence.entries
    fails(
        verify(real, tmp_path, replace(real.evidence, entries=e[:-1])),
        "the seed was never revealed",
    )
    ended = first_with(real.evidence, race_event("game_ended"))
    fails(
        verify(real, tmp_path, replace(real.evidence, entries=e[:ended])),
        "no GameEnded: the game is not over, or its end was cut off",
    )
    fails(verify(real, tmp_path, replace(real.evidence, entries=())), "gave no records")


# --- a compromised ledger: a rewritten tree, signed again with the ledger's key -------------------


def test_a_rewritten_tree_of_the_same_records_verifies(real: RealGame, tmp_path: Path) -> None:
    """The control for the tests below: a re-signed tree is only caught by what it changes."""
    code, output = verify(real, tmp_path, compromised_ledger(real, data(real.evidence)))
    assert code == 0, output


def test_a_changed_face_is_caught_by_the_rerun(real: RealGame, tmp_path: Path) -> None:
    k = first_with(real.evidence, race_event("tile_turned"))

    def change(record: referee_pb2.TableRecord) -> None:
        for env in record.events:
            if env.race.WhichOneof("event") == "tile_turned":
                env.race.tile_turned.symbol = (env.race.tile_turned.symbol + 1) % 25

    forged = compromised_ledger(real, edited(real.evidence, k, change))
    fails(verify(real, tmp_path, forged), rf"^FAIL record {k} \(leaf {k}\): the rules give ")


def test_a_changed_refusal_or_time_is_caught_by_the_rerun(real: RealGame, tmp_path: Path) -> None:
    k = first_with(real.evidence, lambda r: r.HasField("refusal"))

    def recode(record: referee_pb2.TableRecord) -> None:
        record.refusal.code = "not_your_turn"

    fails(
        verify(real, tmp_path, compromised_ledger(real, edited(real.evidence, k, recode))),
        rf"^FAIL record {k} .*refused as 'not_your_turn'; the rules say",
    )
    t = first_with(real.evidence, race_event("tile_turned"))

    def later(record: referee_pb2.TableRecord) -> None:
        record.command.received_at_ms += 1  # the stamp moved; the events still say the old time

    fails(
        verify(real, tmp_path, compromised_ledger(real, edited(real.evidence, t, later))),
        rf"^FAIL record {t} .*the rules give",
    )


def test_dropped_reordered_inserted_records_are_caught_even_re_signed(
    real: RealGame, tmp_path: Path
) -> None:
    k = first_with(real.evidence, race_event("tile_turned"))
    d = data(real.evidence)
    for changed in (
        d[:k] + d[k + 1 :],  # dropped
        [*d[:k], d[k + 1], d[k], *d[k + 2 :]],  # reordered
        [*d[: k + 1], d[k], *d[k + 1 :]],  # inserted (a copy)
        d[:k],  # truncated
    ):
        code, output = verify(real, tmp_path, compromised_ledger(real, changed))
        assert code == 1 and output.strip().splitlines()[-1].startswith("FAIL record "), output


def test_a_swapped_seed_is_caught(real: RealGame, tmp_path: Path) -> None:
    r = first_with(real.evidence, table_event("seed_revealed"))
    c = first_with(real.evidence, table_event("seed_committed"))

    def other_seed(record: referee_pb2.TableRecord) -> None:
        for env in record.events:
            if env.table.HasField("seed_revealed"):
                env.table.seed_revealed.seed = bytes(32)

    forged = compromised_ledger(real, edited(real.evidence, r, other_seed))
    fails(
        verify(real, tmp_path, forged),
        rf"^FAIL record {r} \(leaf {r}\): the revealed seed does not match the commitment of "
        f"record {c}",
    )

    def other_commitment(record: referee_pb2.TableRecord) -> None:
        for env in record.events:
            if env.table.HasField("seed_committed"):
                env.table.seed_committed.commitment = (
                    "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"  # 0 * 32
                )

    both = edited(real.evidence, r, other_seed)
    both[c] = edited(real.evidence, c, other_commitment)[c]
    # The commitment holds for the other seed; the game it deals is not the one played: the
    # rerun (with game.deal of the other seed) gives another face at the first tile turned whose
    # face the other deal changes (the very first may show the same symbol by chance).
    t = first_with(real.evidence, race_event("tile_turned"))
    last = fails(
        verify(real, tmp_path, compromised_ledger(real, both)),
        r"^FAIL record (\d+) \(leaf \1\): the rules give TileTurned\(.*symbol=",
    )
    found = int(last.split()[2])
    assert found >= t
    assert race_event("tile_turned")(records(real.evidence)[found])


# --- forged checkpoints and a forked log ----------------------------------------------------------


def test_a_forged_checkpoint_is_refused(real: RealGame, tmp_path: Path) -> None:
    note = real.evidence.checkpoint
    text, signature = note.rsplit("\n\n", 1)
    name, blob = signature[2:].split(" ")

    raw = bytearray(base64.b64decode(blob))
    raw[20] ^= 0x01
    bad = f"{text}\n\n— {name} {base64.b64encode(bytes(raw)).decode()}\n"
    fails(
        verify(real, tmp_path, replace(real.evidence, checkpoint=bad)),
        r"^FAIL checkpoint: the signature by match\.local/ledger\+[0-9a-f]{8} does not verify",
    )
    size = str(open_checkpoint(note, real.signer.verifier).size)
    bigger = note.replace(f"\n{size}\n", f"\n{int(size) + 1}\n", 1)
    fails(
        verify(real, tmp_path, replace(real.evidence, checkpoint=bigger)),
        r"^FAIL checkpoint: the signature by .* does not verify",
    )
    impostor = Signer(real.signer.name, Ed25519PrivateKey.generate())  # same name, other key
    forged = compromised_ledger(real, data(real.evidence), signer=impostor)
    forged = replace(forged, verifier_key=str(impostor.verifier))  # and serves its own key
    last = fails(
        verify(real, tmp_path, forged),
        r"^FAIL checkpoint: the note is not signed by match\.local/ledger\+[0-9a-f]{8}",
    )
    assert impostor.verifier.label in last
    code, output = verify(real, tmp_path, forged, pin=False)  # trust on first use: says so
    assert code == 3 and "key not pinned" in output  # and never exits 0 for it


def test_a_forked_log_fails_verify_since(real: RealGame, tmp_path: Path) -> None:
    now = open_checkpoint(real.evidence.checkpoint, real.signer.verifier)
    other = sign_checkpoint(Checkpoint(now.origin, now.size, bytes(32)), real.signer)
    kept = tmp_path / "kept.checkpoint"
    kept.write_text(other)
    fails(
        verify(real, tmp_path, real.evidence, "--since", str(kept)),
        rf"^FAIL checkpoint: the log forked: two signed checkpoints of size {now.size}",
    )
    ahead = sign_checkpoint(Checkpoint(now.origin, now.size + 5, bytes(32)), real.signer)
    kept.write_text(ahead)
    fails(
        verify(real, tmp_path, real.evidence, "--since", str(kept)),
        "the log went back",
    )


def test_a_history_rewritten_after_a_kept_checkpoint_fails_verify_since(
    real: RealGame, tmp_path: Path
) -> None:
    early = open_checkpoint(real.early.read_text(), real.signer.verifier)
    k = first_with(real.evidence, race_event("tile_turned"))
    assert k < early.size  # the face was in the log when the checkpoint was kept

    def change(record: referee_pb2.TableRecord) -> None:
        for env in record.events:
            if env.race.WhichOneof("event") == "tile_turned":
                env.race.tile_turned.symbol = (env.race.tile_turned.symbol + 1) % 25

    rewritten = compromised_ledger(
        real, edited(real.evidence, k, change), pad_to=early.size + 10, proof_from=early.size
    )
    fails(
        verify(real, tmp_path, rewritten, "--since", str(real.early)),
        rf"^FAIL checkpoint: not consistent with the checkpoint kept from before \(size "
        rf"{early.size}\).*the log was changed or forked",
    )
    without = replace(rewritten, consistency=())
    fails(
        verify(real, tmp_path, without, "--since", str(real.early)),
        rf"^FAIL checkpoint: no consistency proof from size {early.size}",
    )


# --- files the auditor names that cannot be read or written --------------------------------------


def test_a_key_file_or_an_output_that_is_not_there_is_named_with_no_traceback(
    real: RealGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nowhere" / "ledger.vkey"
    code, output = verify(real, tmp_path, real.evidence, "--key", str(missing), pin=False)
    assert code == 2, output
    assert output == (
        f"match-audit: --key {missing}: no such file. Give the ledger's verifier key file "
        "(make run writes it to var/ledger.vkey) or the key itself\n"
    )
    code, output = verify(real, tmp_path, real.evidence, "--key", "not-a-key", pin=False)
    assert code == 2 and "a verifier key is <name>+<hex key id>+<base64 key>" in output

    saved = tmp_path / "nowhere" / "checkpoint"
    code, output = verify(real, tmp_path, real.evidence, "--save", str(saved))
    assert code == 2, output
    assert output.endswith(
        f"match-audit: cannot write the checkpoint to {saved}: No such file or directory\n"
    )

    # The export's evidence as the ledger would serve it (the ledger's own test fetches it).
    monkeypatch.setattr(cli, "_evidence", lambda args, since: (real.evidence, "the ledger"))
    exported = tmp_path / "nowhere" / "game.jsonl"
    out = io.StringIO()
    assert main(["export", real.game, "-o", str(exported)], out=out, err=out) == 2
    assert out.getvalue() == (
        f"match-audit: cannot write the export to {exported}: No such file or directory\n"
    )
