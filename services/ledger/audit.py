"""``LedgerAuditService`` (proto/match/v1/audit.proto): checkpoints, a finished game's records
with inclusion proofs, and consistency proofs, for auditors."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

import grpc  # type: ignore[import-untyped]
import structlog
from google.protobuf.message import DecodeError

from match.v1 import audit_pb2, audit_pb2_grpc, referee_pb2
from match_bus import subjects
from services.ledger.store import Store

log = structlog.get_logger()

AUDIT_SERVICE = audit_pb2.DESCRIPTOR.services_by_name["LedgerAuditService"].full_name
NOT_OVER = "the game is still being played; its records are published when it ends"
NOT_SERVED = "the ledger keeps every record it stored, so it does not serve this game's records"
BEHIND = "this ledger replica is still storing the game's last records; ask again in a moment"

# table id -> (caught up, stored up to, the table's last stream sequence): see CatchUp
Ready = Callable[[str], Awaitable[tuple[bool, int, int]]]


def game_over(records: Iterable[bytes]) -> bool:
    """True when one of a table's records holds the race's GameEnded."""
    for data in records:
        try:
            record = referee_pb2.TableRecord.FromString(data)
        except DecodeError:
            continue
        for envelope in record.events:
            if envelope.HasField("race") and envelope.race.HasField("game_ended"):
                return True
    return False


class AuditServicer(audit_pb2_grpc.LedgerAuditServiceServicer):
    def __init__(self, store: Store, verifier_key: str, ready: Ready | None = None) -> None:
        self._store = store
        self._verifier_key = verifier_key
        self._ready = ready

    async def GetCheckpoint(
        self, request: audit_pb2.GetCheckpointRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetCheckpointResponse:
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
        return audit_pb2.GetVerifierKeyResponse(verifier_key=self._verifier_key)

    async def GetGameRecords(
        self, request: audit_pb2.GetGameRecordsRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetGameRecordsResponse:
        table_id = request.table_id
        if not subjects.valid_table_id(table_id):
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                "a game id is 8-32 lowercase letters and digits",
            )
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
        if not game_over(data for _, data in rows):
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, NOT_OVER)
        checkpoint, proved = await asyncio.to_thread(self._store.proved_records, table_id)
        log.info("game records served", table_id=table_id, records=len(proved))
        return audit_pb2.GetGameRecordsResponse(
            checkpoint=checkpoint.note,
            entries=[
                audit_pb2.GetGameRecordsResponse.Entry(
                    leaf_index=p.leaf_index,
                    stream_sequence=p.sequence,
                    record=p.data,
                    inclusion_proof=p.proof,
                )
                for p in proved
            ],
        )

    async def GetConsistencyProof(
        self, request: audit_pb2.GetConsistencyProofRequest, context: grpc.aio.ServicerContext
    ) -> audit_pb2.GetConsistencyProofResponse:
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
