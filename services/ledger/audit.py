"""``LedgerAuditService`` (proto/match/v1/audit.proto): checkpoints, a finished game's records
with inclusion proofs, and consistency proofs, for auditors; and VerifyGame, the checks of
``match-audit verify`` run by the ledger on its own evidence, for the auditor's web page (a
convenience: an independent auditor runs ``match-audit verify`` on their own machine).

Every call is counted in two token buckets before any work: its client address's (the peer's
IP without its port, services/peers.py) and the whole ledger's. Over either, the call ends
RESOURCE_EXHAUSTED with the trailing metadata ``retry-after-ms``. A game's records come in
pages (``page_size``, ``page_token``), every page proved against the first page's checkpoint,
so no answer grows with the game."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

import grpc  # type: ignore[import-untyped]
import structlog
from google.protobuf.message import DecodeError
from prometheus_client import Counter

from match.v1 import audit_pb2, audit_pb2_grpc, referee_pb2
from match_audit import rerun
from match_audit.verify import Entry, Evidence
from match_bus import subjects
from services.ledger.store import Store
from services.ledger.verifying import verification
from services.lobby.limits import Limiter, Rate, retry_after_ms
from services.peers import client_address

log = structlog.get_logger()

LIMITED = Counter(
    "match_ledger_rate_limited_total",
    "Audit calls refused RESOURCE_EXHAUSTED, by bucket (address, ledger)",
    ["kind"],
)

AUDIT_SERVICE = audit_pb2.DESCRIPTOR.services_by_name["LedgerAuditService"].full_name
NOT_OVER = "the game is still being played; its records are published when it ends"
NOT_SERVED = "the ledger keeps every record it stored, so it does not serve this game's records"
BEHIND = "this ledger replica is still storing the game's last records; ask again in a moment"

# table id -> (caught up, stored up to, the table's last stream sequence): see CatchUp
Ready = Callable[[str], Awaitable[tuple[bool, int, int]]]

PAGE_SIZE = 1000  # records per page of GetGameRecords, by default and at most
RETRY_AFTER_KEY = "retry-after-ms"
_OFF = Rate(0, 0)
_EVERYONE = "*"
VERIFY_AT_ONCE = 2  # VerifyGame reruns a whole game: so many at once, per ledger process
BAD_TOKEN = "page_token must be the next_page_token of the previous page, or empty"


class AuditLimits:
    """The audit API's buckets: per client address and for the whole ledger (off unless given)."""

    def __init__(self, per_address: Rate = _OFF, everyone: Rate = _OFF) -> None:
        self.per_address = Limiter(per_address)
        self.everyone = Limiter(everyone)

    def wait_ms(self, peer: str) -> tuple[int, str]:
        """(0, "") when the call may go ahead; else the milliseconds to wait and who is over."""
        wait = self.per_address.take(client_address(peer))
        if wait:
            return retry_after_ms(wait), "this address"
        wait = self.everyone.take(_EVERYONE)
        if wait:
            return retry_after_ms(wait), "everybody together"
        return 0, ""


def _page_token(size: int, last_leaf: int) -> str:
    return f"{size}.{last_leaf}"


def _parse_page_token(token: str) -> tuple[int | None, int] | None:
    """(checkpoint size, last leaf served) of a page token; (None, -1) for none; None if bad."""
    if not token:
        return None, -1
    size, dot, last = token.partition(".")
    if not dot or not size.isdigit() or not last.isdigit() or len(token) > 40:
        return None
    if int(last) >= int(size):
        return None
    return int(size), int(last)


def game_over(records: Iterable[bytes]) -> bool:
    """True when the table's game is over by its own rules: the game its TableCreated names
    (match_rules.registry) folds the records' events to a terminal state. A record that does
    not decode is skipped (the table is quarantined before this is asked)."""
    decoded = []
    for data in records:
        try:
            decoded.append(referee_pb2.TableRecord.FromString(data))
        except DecodeError:
            continue
    return rerun.game_over(decoded)


class AuditServicer(audit_pb2_grpc.LedgerAuditServiceServicer):
    def __init__(
        self,
        store: Store,
        verifier_key: str,
        ready: Ready | None = None,
        limits: AuditLimits | None = None,
        name: str = "",
    ) -> None:
        self._store = store
        self._verifier_key = verifier_key
        self._ready = ready
        self._limits = limits or AuditLimits()
        self._name = name  # the audit API's address, named in VerifyGame's export
        self._verifying = asyncio.Semaphore(VERIFY_AT_ONCE)

    async def _admit(self, context: grpc.aio.ServicerContext) -> None:
        wait_ms, who = self._limits.wait_ms(str(context.peer()))
        if wait_ms:
            LIMITED.labels("address" if who == "this address" else "ledger").inc()
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many audit requests from {who}: wait {wait_ms} ms and try again",
                trailing_metadata=((RETRY_AFTER_KEY, str(wait_ms)),),  # the web edge's too
            )

    async def GetCheckpoint(
        self, request: audit_pb2.GetCheckpointRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetCheckpointResponse:
        await self._admit(context)
        checkpoint = await asyncio.to_thread(self._store.latest_checkpoint)
        if checkpoint is None:
            await context.abort(
                grpc.StatusCode.UNAVAILABLE, "the ledger has no checkpoint yet: the log is empty"
            )
        assert checkpoint is not None
        return audit_pb2.GetCheckpointResponse(checkpoint=checkpoint.note)

    async def GetVerifierKey(
        self, request: audit_pb2.GetVerifierKeyRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetVerifierKeyResponse:
        await self._admit(context)
        return audit_pb2.GetVerifierKeyResponse(verifier_key=self._verifier_key)

    async def _valid_id(self, table_id: str, context: grpc.aio.ServicerContext) -> None:
        if not subjects.valid_table_id(table_id):
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                "a game id is 8-32 lowercase letters and digits",
            )

    async def _servable(self, table_id: str, context: grpc.aio.ServicerContext) -> None:
        """Ends the call unless the game's records may be served: this replica has stored them
        to the end, the table is known, not quarantined, and its game is over."""
        if self._ready is not None:
            caught_up, stored, last = await self._ready(table_id)
            if not caught_up:
                await context.abort(
                    grpc.StatusCode.UNAVAILABLE,
                    f"{BEHIND} (stored up to stream sequence {stored}, the game's last record "
                    f"is {last})",
                )
        rows = await asyncio.to_thread(self._store.records, table_id)
        if not rows:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"the ledger has no game {table_id}")
        bad = await asyncio.to_thread(self._store.quarantine, table_id)
        if bad is not None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"{bad.message}; {NOT_SERVED}")
        if not game_over(data for _, _, data in rows):
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, NOT_OVER)

    async def GetGameRecords(
        self, request: audit_pb2.GetGameRecordsRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetGameRecordsResponse:
        await self._admit(context)
        table_id = request.table_id
        await self._valid_id(table_id, context)
        page = _parse_page_token(request.page_token)
        if page is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, BAD_TOKEN)
        assert page is not None
        size, after_leaf = page
        page_size = min(request.page_size or PAGE_SIZE, PAGE_SIZE)
        await self._servable(table_id, context)
        try:
            checkpoint, proved = await asyncio.to_thread(
                self._store.proved_records,
                table_id,
                size=size,
                after_leaf=after_leaf,
                limit=page_size + 1,  # one more than the page: whether another page follows
            )
        except LookupError as error:
            if size is None:
                await context.abort(grpc.StatusCode.UNAVAILABLE, f"{error}; try again")
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, BAD_TOKEN)
        more = len(proved) > page_size
        proved = proved[:page_size]
        log.info("game records served", table_id=table_id, records=len(proved), more=more)
        return audit_pb2.GetGameRecordsResponse(
            next_page_token=_page_token(checkpoint.size, proved[-1].leaf_index) if more else "",
            checkpoint=checkpoint.note,
            entries=[
                audit_pb2.GetGameRecordsResponse.Entry(
                    leaf_index=p.leaf_index,
                    stream_sequence=p.sequence,
                    record=p.data,
                    inclusion_proof=p.proof,
                    frame_index=p.index,
                )
                for p in proved
            ],
        )

    async def GetConsistencyProof(
        self, request: audit_pb2.GetConsistencyProofRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetConsistencyProofResponse:
        await self._admit(context)
        first, second = request.first_size, request.second_size
        if first > second:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"first_size {first} is larger than second_size {second}",
            )
        checkpoint = await asyncio.to_thread(self._store.latest_checkpoint)
        signed = checkpoint.size if checkpoint is not None else 0
        if second > signed:
            await context.abort(
                grpc.StatusCode.OUT_OF_RANGE,
                f"second_size {second} is beyond the latest checkpoint's size {signed}",
            )
        proof = await asyncio.to_thread(self._store.consistency_proof, first, second)
        return audit_pb2.GetConsistencyProofResponse(proof=proof)

    async def VerifyGame(
        self, request: audit_pb2.VerifyGameRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.VerifyGameResponse:
        await self._admit(context)
        table_id = request.table_id
        await self._valid_id(table_id, context)
        await self._servable(table_id, context)
        try:  # every record of the game, proved against one checkpoint that holds them all
            checkpoint, proved = await asyncio.to_thread(self._store.proved_records, table_id)
        except LookupError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{error}; try again")
        evidence = Evidence(
            game=table_id,
            checkpoint=checkpoint.note,
            verifier_key=self._verifier_key,
            entries=tuple(Entry(p.leaf_index, p.sequence, p.data, tuple(p.proof)) for p in proved),
        )
        async with self._verifying:  # a rerun is CPU: a few at once, the others wait their turn
            answer = await asyncio.to_thread(verification, evidence, self._name)
        log.info(
            "game verified",
            table_id=table_id,
            records=len(proved),
            ok=answer.ok,
            verdict=answer.verdict,
        )
        return answer
