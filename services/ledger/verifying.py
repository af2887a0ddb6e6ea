"""VerifyGame's answer: the checks of ``match-audit verify`` (match_audit.verify) run on the
evidence the ledger serves, the timeline of ``match-audit replay`` (match_audit.replay), and the
evidence as ``match-audit export`` writes it. Pure: evidence in, a VerifyGameResponse out.

A convenience for the auditor's page: the ledger checks itself here, against its own key, so an
auditor who does not trust the ledger runs ``match-audit verify`` on their own machine."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from match.v1 import audit_pb2, referee_pb2
from match_audit import export
from match_audit.note import NoteError, Verifier
from match_audit.replay import story
from match_audit.verify import PASSED, SKIPPED, Evidence, verify


def verification(evidence: Evidence, ledger: str = "") -> audit_pb2.VerifyGameResponse:
    """Verify ``evidence`` against the key it carries (the ledger's own) and replay it;
    ``ledger`` names the ledger in the export (its audit API's address)."""
    answer = audit_pb2.VerifyGameResponse(
        checkpoint=evidence.checkpoint,
        verifier_key=evidence.verifier_key,
        export=export.dumps(evidence, ledger=ledger),
    )
    try:
        key = Verifier.parse(evidence.verifier_key)
    except NoteError as error:  # the ledger's own key: only a broken ledger gets here
        failure = f"the ledger's verifier key is not usable: {error}"
        answer.checks.add(name="checkpoint", passed=False, sentence=failure)
        answer.verdict = f"FAIL {failure}"
        return answer
    report = verify(evidence, key)
    answer.ok = report.ok
    answer.verdict = report.text().splitlines()[-1]
    for check in report.checks():
        answer.checks.add(
            name=check.name,
            passed=check.status == PASSED,
            skipped=check.status == SKIPPED,
            sentence=check.sentence,
        )
    if report.table is not None:
        answer.game_kind = report.table.game.slug
        answer.game_title = report.table.game.title
    if report.seed is not None:
        answer.seed = report.seed.hex()
    answer.results = report.results
    records = []
    for entry in evidence.entries:
        try:
            records.append(referee_pb2.TableRecord.FromString(entry.record))
        except DecodeError:  # the verification says which and where; no timeline then
            return answer
    told = story(evidence.game, records)
    answer.heading.extend(told.heading)
    for part in told.parts:
        answer.boards.add(number=part.number, title=part.title, lines=part.lines)
    return answer
