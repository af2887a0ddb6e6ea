"""The export file: JSON lines an auditor keeps, checked later with ``verify --offline``.

One JSON object per line, each with a ``type``:

* ``{"type": "export", "format": "match-audit-export/1", "game": ..., "ledger": ...,
  "exported_at_ms": ...}``, first;
* ``{"type": "checkpoint", "note": <the signed checkpoint>}``;
* ``{"type": "verifier_key", "key": <name+keyid+base64>}``: the key the ledger served;
* ``{"type": "record", "record": <index in the game>, "leaf_index": ..., "stream_sequence": ...,
  "frame_index": ..., "data": <base64 of the TableRecord's bytes>, "proof": [<base64 hash>,
  ...]}``, in order (``frame_index``: the record's entry in its frame, 0 for a record published
  on its own; a file without it, written before frames, reads as 0);
* ``{"type": "consistency", "first_size": ..., "second_size": ..., "proof": [...]}``, optional.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Iterable
from typing import Any

from match_audit.verify import Consistency, Entry, Evidence

FORMAT = "match-audit-export/1"


class ExportError(ValueError):
    """The file is not an export this tool reads; the message says where."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def dumps(evidence: Evidence, ledger: str = "") -> str:
    """The export of ``evidence`` as JSON lines (ending in a newline)."""
    lines: list[dict[str, Any]] = [
        {
            "type": "export",
            "format": FORMAT,
            "game": evidence.game,
            "ledger": ledger,
            "exported_at_ms": time.time_ns() // 1_000_000,
        },
        {"type": "checkpoint", "note": evidence.checkpoint},
        {"type": "verifier_key", "key": evidence.verifier_key},
    ]
    lines += [
        {
            "type": "record",
            "record": i,
            "leaf_index": e.leaf_index,
            "stream_sequence": e.stream_sequence,
            "frame_index": e.frame_index,
            "data": _b64(e.record),
            "proof": [_b64(p) for p in e.proof],
        }
        for i, e in enumerate(evidence.entries)
    ]
    lines += [
        {
            "type": "consistency",
            "first_size": c.first_size,
            "second_size": c.second_size,
            "proof": [_b64(p) for p in c.proof],
        }
        for c in evidence.consistency
    ]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def _bytes(value: object, where: str) -> bytes:
    if not isinstance(value, str):
        raise ExportError(f"{where}: expected base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error:
        raise ExportError(f"{where}: not base64") from None


def _int(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ExportError(f"{where}: expected a whole number")
    return value


def _proof(value: object, where: str) -> tuple[bytes, ...]:
    if not isinstance(value, list):
        raise ExportError(f"{where}: expected a list of hashes")
    return tuple(_bytes(p, where) for p in value)


def loads(lines: Iterable[str]) -> Evidence:
    """Read an export; raises ExportError naming the bad line."""
    game = checkpoint = key = None
    entries: list[Entry] = []
    proofs: list[Consistency] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        where = f"line {number}"
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ExportError(f"{where}: not JSON ({error.msg})") from None
        if not isinstance(line, dict):
            raise ExportError(f"{where}: not a JSON object")
        kind = line.get("type")
        if number == 1:
            if kind != "export" or line.get("format") != FORMAT:
                raise ExportError(f"{where}: not a {FORMAT} file")
            game = line.get("game")
            if not isinstance(game, str):
                raise ExportError(f"{where}: no game id")
        elif kind == "checkpoint":
            checkpoint = line.get("note")
        elif kind == "verifier_key":
            key = line.get("key")
        elif kind == "record":
            entries.append(
                Entry(
                    leaf_index=_int(line.get("leaf_index"), where),
                    stream_sequence=_int(line.get("stream_sequence", 0), where),
                    record=_bytes(line.get("data"), where),
                    proof=_proof(line.get("proof"), where),
                    frame_index=_int(line.get("frame_index", 0), where),
                )
            )
        elif kind == "consistency":
            proofs.append(
                Consistency(
                    _int(line.get("first_size"), where),
                    _int(line.get("second_size"), where),
                    _proof(line.get("proof"), where),
                )
            )
        else:
            raise ExportError(f"{where}: unknown line type {kind!r}")
    if game is None:
        raise ExportError("the file is empty")
    if not isinstance(checkpoint, str):
        raise ExportError("the export has no checkpoint line")
    return Evidence(
        game=game,
        checkpoint=checkpoint,
        verifier_key=key if isinstance(key, str) else "",
        entries=tuple(entries),
        consistency=tuple(proofs),
    )
