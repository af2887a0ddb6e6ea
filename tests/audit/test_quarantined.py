"""An export whose records include one that is not a TableRecord (proved in the ledger's tree:
the stream held it) is a quarantined table: ``verify`` fails on one line naming its stream
sequence, ``replay`` says so and stops, neither with a traceback. The ledger itself declines to
serve a quarantined table (tests/e2e/test_quarantine.py)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_audit import export, merkle
from match_audit.cli import main
from match_audit.note import Checkpoint, Signer, sign_checkpoint
from match_audit.verify import Entry, Evidence
from tests.bus.records import history

GAME = "quarantined01"


def evidence_with_junk(signer: Signer) -> Evidence:
    """The game's two records and bytes that are no record, as leaves 0-2 (stream 5, 6, 9)."""
    leaves = [r.SerializeToString() for r in history(GAME)] + [b"forged"]
    tree = merkle.LeafList([merkle.leaf_hash(leaf) for leaf in leaves])
    size = len(leaves)
    note = sign_checkpoint(
        Checkpoint(signer.name, size, merkle.subtree_root(tree, 0, size)), signer
    )
    entries = tuple(
        Entry(i, sequence, leaf, tuple(merkle.inclusion_proof(tree, i, size)))
        for i, (sequence, leaf) in enumerate(zip((5, 6, 9), leaves, strict=True))
    )
    return Evidence(GAME, note, str(signer.verifier), entries)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out, err=out), out.getvalue()


def test_verify_and_replay_report_a_quarantined_table(tmp_path: Path) -> None:
    signer = Signer("match.test/ledger", Ed25519PrivateKey.generate())
    path = tmp_path / "game.jsonl"
    path.write_text(export.dumps(evidence_with_junk(signer)))
    said = (
        f"table {GAME} is quarantined: record at stream sequence 9 does not decode as a "
        "TableRecord (record 2, leaf 2)"
    )

    code, output = run("verify", "--offline", str(path), "--key", str(signer.verifier))
    assert code == 1, output
    assert output.strip().splitlines()[-1] == f"FAIL {said}"
    assert "Traceback" not in output

    code, output = run("replay", "--offline", str(path))
    assert (code, output.strip()) == (2, f"match-audit: {said}")


def test_a_record_from_a_frame_is_named_by_its_entry_and_an_older_export_reads_as_before(
    tmp_path: Path,
) -> None:
    signer = Signer("match.test/ledger", Ed25519PrivateKey.generate())
    evidence = evidence_with_junk(signer)
    framed = [replace(e, frame_index=i) for i, e in enumerate(evidence.entries)]
    evidence = replace(evidence, entries=tuple(framed))
    text = export.dumps(evidence)
    assert export.loads(text.splitlines()).entries == evidence.entries  # their places kept
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    code, output = run("verify", "--offline", str(path), "--key", str(signer.verifier))
    assert code == 1, output
    assert output.strip().splitlines()[-1] == (
        f"FAIL table {GAME} is quarantined: record at stream sequence 9, entry 2 of its frame "
        "does not decode as a TableRecord (record 2, leaf 2)"
    )
    # A file written before frames has no frame_index: every record reads as published alone.
    older = "".join(
        json.dumps({k: v for k, v in json.loads(line).items() if k != "frame_index"}) + "\n"
        for line in text.splitlines()
    )
    assert "frame_index" not in older
    assert [e.frame_index for e in export.loads(older.splitlines()).entries] == [0, 0, 0]
