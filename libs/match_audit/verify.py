"""Verify a finished game from the ledger's evidence: the checkpoint's signature, consistency with
a checkpoint kept from before, the inclusion of every record, the game the table plays (from
the registry), the seed against its commitment, the re-deal, and the full re-run of the rules.

Pure (no network): :class:`Evidence` comes from the ledger's gRPC API (``match_audit.client``)
or from an export file (``match_audit.export``); both are checked by :func:`verify` the same way.
The first thing that does not hold stops the checks and is reported on one line, naming the
record (its index in the game, from 0) and its leaf in the ledger's tree.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field

from google.protobuf import text_format
from google.protobuf.message import DecodeError, Message

from match.v1 import common_pb2, dealer_pb2, referee_pb2
from match_audit import merkle
from match_audit.note import Checkpoint, NoteError, Verifier, open_checkpoint
from match_audit.rerun import TableError, TableGame, ended_at, rerun, table_game
from match_bus.records import place
from match_rules.deal import SEED_BYTES, commitment
from match_rules.errors import RuleError
from match_rules.game import Game
from match_rules.words import count


@dataclass(frozen=True, slots=True)
class Entry:
    """One record of the game as the ledger gave it."""

    leaf_index: int
    stream_sequence: int  # informative: not covered by the proofs
    record: bytes  # the leaf's data, a TableRecord
    proof: tuple[bytes, ...]  # inclusion proof against the checkpoint's size
    frame_index: int = 0  # informative: its entry in its frame (0: published on its own)


@dataclass(frozen=True, slots=True)
class Consistency:
    """A consistency proof between two tree sizes."""

    first_size: int
    second_size: int
    proof: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class Evidence:
    """Everything the ledger says about one game."""

    game: str
    checkpoint: str  # the signed note the proofs are against
    verifier_key: str  # the key the ledger serves ("" if unknown)
    entries: tuple[Entry, ...]
    consistency: tuple[Consistency, ...] = ()


PASSED, SKIPPED, FAILED = "ok", "--", "FAIL"


@dataclass(frozen=True, slots=True)
class Check:
    """One check as a line of the report says it: ``<status> <name>: <sentence>``."""

    name: str  # checkpoint, consistency, inclusion, game, seed, deal, a game's own proof, rerun
    status: str  # PASSED, SKIPPED or FAILED
    sentence: str


@dataclass
class Report:
    """What was checked: one line per check that held, and the first failure, if any; with
    what the checks found on the way (for a caller that shows more than the lines)."""

    game: str
    lines: list[str] = field(default_factory=list)
    failure: str | None = None
    checkpoint: Checkpoint | None = None  # set once its signature verified
    checkpoint_consistent: bool = False  # signature and --since consistency both held
    failed_check: str = ""  # the name of the check that failed, if one did
    table: TableGame | None = None  # the game the table plays, once found
    seed: bytes | None = None  # the revealed seed, once found (checked or not)
    results: str = ""  # the standings the rerun gave, once it held

    @property
    def ok(self) -> bool:
        return self.failure is None

    def text(self) -> str:
        out = list(self.lines)
        out.append(self.failure or f"PASS game {self.game}: every check holds")
        return "\n".join(out)

    def checks(self) -> list[Check]:
        """The checks, in order, as their lines say them; the failure last, if any."""
        out = []
        for line in self.lines:
            status, _, rest = line.partition(" ")
            name, _, sentence = rest.lstrip(" ").partition(": ")
            out.append(Check(name, PASSED if status == PASSED else SKIPPED, sentence))
        if self.failure is not None:
            out.append(Check(self.failed_check, FAILED, self.failure.removeprefix("FAIL ")))
        return out


class _Fail(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _at(index: int, entries: Sequence[Entry]) -> str:
    leaf = f" (leaf {entries[index].leaf_index})" if 0 <= index < len(entries) else ""
    return f"record {index}{leaf}"


def undecodable(game: str, index: int, entries: Sequence[Entry]) -> str:
    """What to say of a record that is not a TableRecord: the game's table is quarantined (the
    referee refuses it too), and the record is named by its place in the stream."""
    entry = entries[index]
    return (
        f"table {game} is quarantined: record at {place(entry.stream_sequence, entry.frame_index)}"
        f" does not decode as a TableRecord (record {index}, leaf {entry.leaf_index})"
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def verify(evidence: Evidence, key: Verifier, since: str | None = None) -> Report:
    """Check ``evidence`` with the log's verifier ``key``; ``since`` is a checkpoint (signed
    note) the auditor kept from before, which the evidence's checkpoint must extend."""
    report = Report(evidence.game)
    try:
        report.failed_check = "checkpoint"
        checkpoint = _check_checkpoint(evidence, key, report)
        report.failed_check = "consistency"
        _check_since(evidence, key, checkpoint, since, report)
        report.checkpoint_consistent = True
        report.failed_check = "inclusion"
        records = _check_records(evidence, checkpoint, report)
        report.failed_check = "game"
        table = report.table = _check_game(evidence.entries, records, report)
        report.failed_check = "seed"
        seed = _check_seed(evidence.entries, records, table.game, report)
        report.failed_check = "deal"
        deal = _check_deal(evidence.entries, records, table, seed, report)
        report.failed_check = "proofs"
        _check_proofs(evidence.entries, records, table, report)
        report.failed_check = "rerun"
        _check_rerun(evidence.entries, records, table, deal, report)
        report.failed_check = ""
    except _Fail as failure:
        report.failure = f"FAIL {failure.message}"
    return report


def _check_checkpoint(evidence: Evidence, key: Verifier, report: Report) -> Checkpoint:
    try:
        checkpoint = open_checkpoint(evidence.checkpoint, key)
    except NoteError as error:
        raise _Fail(f"checkpoint: {error}") from None
    report.checkpoint = checkpoint
    report.lines.append(
        f"ok   checkpoint: {checkpoint.origin}, tree size {checkpoint.size}, root "
        f"{_b64(checkpoint.root)}, signed by {key.label}"
    )
    return checkpoint


def _find_proof(evidence: Evidence, first: int, second: int) -> Consistency | None:
    for c in evidence.consistency:
        if (c.first_size, c.second_size) == (first, second):
            return c
    return None


def _check_since(
    evidence: Evidence, key: Verifier, checkpoint: Checkpoint, since: str | None, report: Report
) -> None:
    if since is None:
        report.lines.append("--   consistency: no checkpoint kept from before (--since)")
        return
    try:
        old = open_checkpoint(since, key)
    except NoteError as error:
        raise _Fail(f"the checkpoint kept from before (--since): {error}") from None
    if old.size == checkpoint.size:
        if old.root != checkpoint.root:
            raise _Fail(
                f"checkpoint: the log forked: two signed checkpoints of size {old.size} with "
                f"different roots ({_b64(old.root)} kept from before, {_b64(checkpoint.root)} now)"
            )
        report.lines.append(
            f"ok   consistency: the same tree as the checkpoint kept from before (size {old.size})"
        )
        return
    small, big = (old, checkpoint) if old.size < checkpoint.size else (checkpoint, old)
    proof = _find_proof(evidence, small.size, big.size)
    if proof is None:
        if old.size > checkpoint.size:
            raise _Fail(
                f"checkpoint: the log went back: it shows size {checkpoint.size}, but a checkpoint "
                f"of size {old.size} was kept from before"
            )
        raise _Fail(
            f"checkpoint: no consistency proof from size {old.size} to size {checkpoint.size}"
        )
    try:
        merkle.verify_consistency(small.size, big.size, small.root, big.root, proof.proof)
    except merkle.ProofError as error:
        raise _Fail(
            f"checkpoint: not consistent with the checkpoint kept from before (size {old.size}): "
            f"{error}; the log was changed or forked"
        ) from None
    report.lines.append(
        f"ok   consistency: the tree of size {small.size} is a prefix of the tree of size "
        f"{big.size} ({len(proof.proof)} proof hashes): nothing kept before was changed"
    )


def _check_records(
    evidence: Evidence, checkpoint: Checkpoint, report: Report
) -> list[referee_pb2.TableRecord]:
    entries = evidence.entries
    if not entries:
        raise _Fail(f"game {evidence.game}: the ledger gave no records")
    previous = -1
    for i, entry in enumerate(entries):
        where = _at(i, entries)
        if entry.leaf_index >= checkpoint.size:
            raise _Fail(f"{where}: beyond the checkpoint's tree size {checkpoint.size}")
        if entry.leaf_index <= previous:
            raise _Fail(f"{where}: out of ledger order (it comes after leaf {previous})")
        previous = entry.leaf_index
        try:
            merkle.verify_inclusion(
                entry.leaf_index,
                checkpoint.size,
                merkle.leaf_hash(entry.record),
                entry.proof,
                checkpoint.root,
            )
        except merkle.ProofError as error:
            raise _Fail(
                f"{where}: inclusion proof does not match the checkpoint root ({error})"
            ) from None
    records: list[referee_pb2.TableRecord] = []
    for i, entry in enumerate(entries):
        try:
            record = referee_pb2.TableRecord.FromString(entry.record)
        except DecodeError:
            raise _Fail(undecodable(evidence.game, i, entries)) from None
        if record.table_id != evidence.game:
            raise _Fail(
                f"{_at(i, entries)}: belongs to table {record.table_id!r}, not game {evidence.game}"
            )
        records.append(record)
    report.lines.append(
        f"ok   inclusion: {len(entries)} records (leaves {entries[0].leaf_index}.."
        f"{entries[-1].leaf_index}), each proved in the tree of size {checkpoint.size}"
    )
    return records


def _is_commitment(envelope: common_pb2.EventEnvelope) -> bool:
    return envelope.HasField("table") and envelope.table.WhichOneof("event") == "seed_committed"


def _table_events(record: referee_pb2.TableRecord, which: str) -> list[object]:
    return [
        getattr(e.table, which)
        for e in record.events
        if e.HasField("table") and e.table.WhichOneof("event") == which
    ]


def _check_game(
    entries: Sequence[Entry], records: Sequence[referee_pb2.TableRecord], report: Report
) -> TableGame:
    try:
        found = table_game(records)
    except TableError as error:
        raise _Fail(f"{_at(error.record, entries)}: {error.message}") from None
    game = found.game
    settings = text_format.MessageToString(found.settings, as_one_line=True) or "the defaults"
    report.lines.append(
        f"ok   game: {game.title} ({game.slug}), as the table's TableCreated (record "
        f"{found.record}) says; settings: {settings}"
    )
    return found


def _check_seed(
    entries: Sequence[Entry],
    records: Sequence[referee_pb2.TableRecord],
    game: Game,
    report: Report,
) -> bytes:
    committed = [(i, c) for i, r in enumerate(records) for c in _table_events(r, "seed_committed")]
    revealed = [(i, s) for i, r in enumerate(records) for s in _table_events(r, "seed_revealed")]
    # Where the game's first event and the commitment stand: (record, place in the record). A
    # table full at creation (one seat) starts in the record that commits the seed, after it.
    places = [
        (i, n, e.WhichOneof("body") == game.slug, _is_commitment(e))
        for i, r in enumerate(records)
        for n, e in enumerate(r.events)
    ]
    started = next(((i, n) for i, n, ours, _ in places if ours), None)
    committed_at = next(((i, n) for i, n, _, commits in places if commits), None)
    try:
        ended = ended_at(game, records)
    except Exception as error:  # an event the game cannot read: the rerun names it
        raise _Fail(f"game {report.game}: an event of the game does not read: {error}") from None
    last = len(records) - 1
    if ended is None:
        raise _Fail(
            f"{_at(last, entries)}: the records hold no GameEnded: the game is not over, or its "
            "end was cut off"
        )
    if not committed:
        raise _Fail(f"game {report.game}: the records hold no seed commitment (SeedCommitted)")
    if len(committed) > 1:
        raise _Fail(f"{_at(committed[1][0], entries)}: a second seed commitment")
    c_index, c_event = committed[0]
    if started is not None and committed_at is not None and committed_at > started:
        raise _Fail(
            f"{_at(c_index, entries)}: the seed was committed only after the game started "
            f"(record {started[0]})"
        )
    if not revealed:
        raise _Fail(
            f"{_at(last, entries)}: the seed was never revealed: the log ends without SeedRevealed"
        )
    if len(revealed) > 1:
        raise _Fail(f"{_at(revealed[1][0], entries)}: the seed is revealed twice")
    r_index, r_event = revealed[0]
    seed = report.seed = bytes(r_event.seed)  # type: ignore[attr-defined]
    version = c_event.deal_version  # type: ignore[attr-defined]
    if r_index < ended:
        raise _Fail(f"{_at(r_index, entries)}: the seed was revealed before the game ended")
    if len(seed) != SEED_BYTES:
        raise _Fail(f"{_at(r_index, entries)}: the revealed seed is {len(seed)} bytes, not 32")
    if commitment(seed) != c_event.commitment:  # type: ignore[attr-defined]
        raise _Fail(
            f"{_at(r_index, entries)}: the revealed seed does not match the commitment of "
            f"record {c_index} (SHA-256 of the seed is {commitment(seed)})"
        )
    if r_event.deal_version != version:  # type: ignore[attr-defined]
        raise _Fail(f"{_at(r_index, entries)}: revealed for another deal version than committed")
    report.lines.append(
        f"ok   seed: SHA-256 of the revealed seed (record {r_index}) is the commitment of record "
        f"{c_index}, made before the game started: the deal was fixed before anybody played"
    )
    return seed


def _bot_strength(deal: Message) -> str | None:
    """The bots' strength a game's deal draws, if it draws one (a ``bot_strength`` field, the
    referee's convention): the table's BotsAssigned must say the same."""
    if "bot_strength" not in deal.DESCRIPTOR.fields_by_name:
        return None
    name = dealer_pb2.BotStrength.Name(getattr(deal, "bot_strength"))  # noqa: B009
    return name.removeprefix("BOT_STRENGTH_").lower()


def _check_deal(
    entries: Sequence[Entry],
    records: Sequence[referee_pb2.TableRecord],
    table: TableGame,
    seed: bytes,
    report: Report,
) -> Message:
    game = table.game
    versions = {
        c.deal_version  # type: ignore[attr-defined]
        for r in records
        for c in _table_events(r, "seed_committed")
    }
    version = versions.pop() if versions else ""
    # A game that keeps its older deal versions (deal_versions, deal_as) is re-dealt with the
    # version its game was dealt with.
    older = version in getattr(game, "deal_versions", ()) and version != game.deal_version
    if version != game.deal_version and not older:
        raise _Fail(
            f"game {report.game}: dealt with {version!r}; this auditor deals {game.slug} with "
            f"{game.deal_version}"
        )
    try:
        if older:
            dealt: Message = game.deal_as(version, seed, table.settings)  # type: ignore[attr-defined]
        else:
            dealt = game.deal(seed, table.settings)
    except (RuleError, ValueError) as error:
        raise _Fail(
            f"{_at(table.record, entries)}: the table's settings cannot be dealt: {error}"
        ) from None
    strength, bots = _bot_strength(dealt), False
    for i, record in enumerate(records):
        for assigned in _table_events(record, "bots_assigned"):
            shown = assigned.strength  # type: ignore[attr-defined]
            if shown != strength:
                raise _Fail(
                    f"{_at(i, entries)}: the bots play {shown!r}, the seed deals {strength!r}"
                )
            bots = True
    bot = f", and the bots' strength {strength!r}" if bots else ""
    report.lines.append(
        f"ok   deal: {version} from the seed with the table's settings{bot}; the rerun plays it"
    )
    return dealt


def _check_rerun(
    entries: Sequence[Entry],
    records: Sequence[referee_pb2.TableRecord],
    table: TableGame,
    deal: Message,
    report: Report,
) -> None:
    result = rerun(records, table.game, table.settings, deal)
    if result.findings:
        first = result.findings[0]
        raise _Fail(f"{_at(first.record, entries)}: {first.problem}")
    if result.results is None:
        raise _Fail(
            f"{_at(len(records) - 1, entries)}: the rules do not end the game with these records"
        )
    standings = "; ".join(f"{s.place}. {s.player}: {s.summary}" for s in result.results.standings)
    draw = " (a draw)" if result.results.draw else ""
    report.results = f"{standings}{draw}"
    report.lines.append(
        f"ok   rerun: fed the stamped commands again, the rules accept the same "
        f"{count(result.accepted, 'command')} and refuse the same {result.refused} (same codes),"
        f" and give the same {count(result.events, 'event')}, byte for byte: timings, results "
        f"and standings{draw}: {standings}"
    )


def _check_proofs(
    entries: Sequence[Entry],
    records: Sequence[referee_pb2.TableRecord],
    table: TableGame,
    report: Report,
) -> None:
    """The game's own proofs over its log alone (Number Match: the revealed witness)."""
    game = table.game
    state = game.initial_state(None)
    last = 0
    try:
        for i, record in enumerate(records):
            for env in record.events:
                if env.WhichOneof("body") == game.slug:
                    state = game.evolve(state, game.decode(getattr(env, game.slug)))
                    last = i
    except Exception:  # an event the rules cannot fold: the rerun names it, record and all
        return
    try:
        lines = game.proofs(state)
    except ValueError as error:
        raise _Fail(f"{_at(last, entries)}: {error}") from None
    report.lines.extend(f"ok   {line}" for line in lines)
