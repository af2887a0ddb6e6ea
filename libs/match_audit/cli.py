"""``match-audit``: verify, replay and export finished games from the ledger (docs/audit.md).

    match-audit verify <game> [--addr A] [--key KEY] [--since FILE] [--save FILE]
    match-audit verify --offline EXPORT [--key KEY] [--since FILE] [--save FILE]
    match-audit replay <game> [--addr A] | replay --offline EXPORT
    match-audit export <game> [-o FILE] [--addr A] [--since FILE]

``--addr``, ``--ca`` and ``--tls`` go before the subcommand or after it, as with ``match``
(``match-audit --addr A verify <game>`` is ``match-audit verify <game> --addr A``). Wherever
``--addr`` goes, ``--ca FILE`` (default: $LEDGER_CA) or ``--tls`` (the system's trusted
roots) reaches a ledger that serves TLS and verifies its certificate; without them the audit API
is spoken in plain text.

Exit status of ``verify`` (docs/audit.md): 0 when every check holds against the key pinned with
``--key``; 1 when a check does not hold (the last line names the first bad record and what is
wrong); 2 when nothing could be checked (no ledger, unknown game, a game still being played, a
bad argument); 3 when every check holds but only against the key that came with the records
(no ``--key``): whoever can answer in the ledger's place could have signed them.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from google.protobuf.message import DecodeError

from match.v1 import referee_pb2
from match_audit import export as export_file
from match_audit.client import LedgerClient, LedgerError, default_address, default_ca
from match_audit.note import Checkpoint, NoteError, Verifier, parse
from match_audit.replay import timeline
from match_audit.verify import Evidence, undecodable, verify

USAGE_ERROR = 2
FAILED = 1
UNPINNED = 3  # every check held, but against the key served with the records, not a pinned one


class _Stop(Exception):
    """Nothing could be checked; the message says why (exit 2)."""


def _read_text(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise _Stop(f"cannot read {what} {path}: {error.strerror}") from None


def _write_text(path: str, text: str, what: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise _Stop(f"cannot write {what} to {path}: {error.strerror}") from None


def _pinned_key(value: str) -> Verifier:
    """``--key``: a verifier key file (e.g. var/ledger.vkey) or the key string itself."""
    is_file = Path(value).is_file()
    text = _read_text(value, "the key file") if is_file else value
    try:
        return Verifier.parse(text)
    except NoteError as error:
        if not is_file and ("/" in value or value.endswith(".vkey")):
            raise _Stop(
                f"--key {value}: no such file. Give the ledger's verifier key file (make run "
                "writes it to var/ledger.vkey) or the key itself"
            ) from None
        raise _Stop(f"--key {value}: {error}") from None


def _evidence(args: argparse.Namespace, since: str | None) -> tuple[Evidence, str]:
    """The evidence and where it came from, from the export file or the ledger."""
    if args.offline:
        try:
            lines = _read_text(args.offline, "the export").splitlines()
            evidence = export_file.loads(lines)
        except export_file.ExportError as error:
            raise _Stop(f"{args.offline} is not a usable export: {error}") from None
        if args.game and args.game != evidence.game:
            raise _Stop(f"{args.offline} is an export of game {evidence.game}, not {args.game}")
        return evidence, f"the export {args.offline}"
    if not args.game:
        raise _Stop("name a game, or give an export with --offline FILE")
    try:
        client = LedgerClient(args.addr, ca_file=args.ca, tls=args.tls)
    except OSError as error:
        raise _Stop(f"cannot read the CA file {args.ca}: {error.strerror}") from None
    try:
        with client:
            return client.evidence(args.game, since), f"the ledger at {args.addr}"
    except LedgerError as error:
        raise _Stop(
            f"cannot get game {args.game} from the ledger at {args.addr}: "
            f"{error.code}: {error.message}"
        ) from None


def cmd_verify(args: argparse.Namespace, out: TextIO) -> int:
    since = _read_text(args.since, "the checkpoint") if args.since else None
    pinned = _pinned_key(args.key) if args.key else None
    evidence, source = _evidence(args, since)
    print(f"verifying game {evidence.game} from {source}", file=out)
    if pinned is not None:
        key = pinned
        print(f"key: {key.label} (pinned with --key)", file=out)
        if evidence.verifier_key and evidence.verifier_key.strip() != str(pinned):
            print(f"note: the ledger serves another key, {evidence.verifier_key}", file=out)
    else:
        try:
            key = Verifier.parse(evidence.verifier_key)
        except NoteError as error:
            raise _Stop(f"the ledger's verifier key is not usable ({error}); give --key") from None
        print(
            f"key not pinned: trusting the key that came with the records, {key}; pin the "
            "ledger's key with --key (e.g. a copy of var/ledger.vkey taken out of band)",
            file=out,
        )
    report = verify(evidence, key, since)
    if pinned is None and report.ok:
        # Not a PASS: a script that greps for it or reads exit 0 must not take this for one.
        for line in report.lines:
            print(line, file=out)
        print(
            f"UNPINNED game {evidence.game}: every check holds against the key that came with "
            f"the records, not a pinned one; run again with --key (exit {UNPINNED})",
            file=out,
        )
    else:
        print(report.text(), file=out)
    if args.save and report.checkpoint is not None and report.checkpoint_consistent:
        _write_text(args.save, evidence.checkpoint, "the checkpoint")
        print(
            f"saved the checkpoint (tree size {report.checkpoint.size}) to {args.save}: "
            "give it to --since next time",
            file=out,
        )
    if not report.ok:
        return FAILED
    return 0 if pinned is not None else UNPINNED


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    since = _read_text(args.since, "the checkpoint") if args.since else None
    args.offline = None
    evidence, source = _evidence(args, since)
    text = export_file.dumps(evidence, ledger=args.addr)
    if args.output in (None, "-"):
        out.write(text)
    else:
        _write_text(args.output, text, "the export")
        size = "?"
        with contextlib.suppress(NoteError):
            size = str(Checkpoint.parse(parse(evidence.checkpoint).text).size)
        print(
            f"exported game {evidence.game}: {len(evidence.entries)} records with their proofs "
            f"against the checkpoint of tree size {size} from {source}, to {args.output}",
            file=out,
        )
    return 0


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    evidence, source = _evidence(args, None)
    records = []
    for i, entry in enumerate(evidence.entries):
        try:
            records.append(referee_pb2.TableRecord.FromString(entry.record))
        except DecodeError:
            raise _Stop(undecodable(evidence.game, i, evidence.entries)) from None
    print(f"(from {source}; not verified here: run `match-audit verify`)", file=out)
    for line in timeline(evidence.game, records):
        print(line, file=out)
    return 0


def _connection_options(p: argparse.ArgumentParser, suppress: bool = False) -> None:
    """``--addr``, ``--ca`` and ``--tls``: before the subcommand with their defaults, after it
    with SUPPRESS (so that one given before it stands)."""
    p.add_argument(
        "--addr",
        default=argparse.SUPPRESS if suppress else default_address(),
        help="the ledger's audit API (default: $LEDGER_ADDR, else 127.0.0.1:50052)",
    )
    p.add_argument(
        "--ca",
        metavar="FILE",
        default=argparse.SUPPRESS if suppress else default_ca(),
        help="speak TLS and verify the ledger with this CA certificate (PEM; default: $LEDGER_CA)",
    )
    p.add_argument(
        "--tls",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="speak TLS and verify the ledger with the system's trusted roots",
    )


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="match-audit",
        description="Verify, replay and export finished games from the Match ledger.",
    )
    _connection_options(top)
    # The same options after the subcommand (as `match` takes them): SUPPRESS keeps one given
    # before it.
    connection = argparse.ArgumentParser(add_help=False)
    _connection_options(connection, suppress=True)
    commands = top.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, offline: bool = True) -> None:
        p.add_argument("game", nargs="?", help="the game (table) id")
        if offline:
            p.add_argument("--offline", metavar="EXPORT", help="read an export, not the ledger")

    v = commands.add_parser(
        "verify",
        parents=[connection],
        help="check a finished game; exit 0 only if all holds against the key pinned with --key",
        epilog="exit status: 0 every check holds, with the key pinned by --key; 1 a check does "
        "not hold; 2 nothing could be checked; 3 every check holds, but the key was not pinned "
        "(it came with the records)",
    )
    common(v)
    v.add_argument("--key", help="the ledger's verifier key: a .vkey file or the key string")
    v.add_argument("--since", metavar="CHECKPOINT", help="a checkpoint kept from before")
    v.add_argument("--save", metavar="CHECKPOINT", help="keep this checkpoint for next time")
    r = commands.add_parser(
        "replay", parents=[connection], help="a board-by-board timeline of a finished game"
    )
    common(r)
    e = commands.add_parser(
        "export", parents=[connection], help="JSON lines to keep and verify later with --offline"
    )
    common(e, offline=False)
    e.add_argument("-o", "--output", help="the file (default: standard output)")
    e.add_argument(
        "--since", metavar="CHECKPOINT", help="include the consistency proof from this checkpoint"
    )
    return top


def main(
    argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    args = parser().parse_args(argv)
    run = {"verify": cmd_verify, "export": cmd_export, "replay": cmd_replay}[args.command]
    try:
        return run(args, out)
    except _Stop as stop:
        print(f"match-audit: {stop}", file=err)
        return USAGE_ERROR
    except BrokenPipeError:  # the reader stopped reading (`| head`): exit as a shell would
        sys.stderr.close()
        return 128 + 13
