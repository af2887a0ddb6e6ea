"""Fetch a game's evidence from the ledger's ``LedgerAuditService`` (gRPC)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import grpc  # type: ignore[import-untyped]

from match.v1 import audit_pb2, audit_pb2_grpc
from match_audit.note import Checkpoint, NoteError, parse
from match_audit.verify import Consistency, Entry, Evidence

DEFAULT_ADDR = "127.0.0.1:50052"
OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
RETRY_AFTER_KEY = "retry-after-ms"
MAX_WAITS = 20  # a rate-limited call is sent again after the wait the ledger asked, this often
MAX_WAIT_S = 10.0
MAX_PAGES = 10_000


def default_address() -> str:
    """``LEDGER_ADDR`` from the environment, else 127.0.0.1:50052."""
    return os.environ.get("LEDGER_ADDR") or DEFAULT_ADDR


def default_ca() -> str | None:
    """``LEDGER_CA`` from the environment (the CA certificate that signed the audit API's),
    else None."""
    return os.environ.get("LEDGER_CA") or None


class LedgerError(Exception):
    """The ledger did not give what was asked: unreachable, unknown game, game not over."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _size_of(note: str) -> int | None:
    """The tree size a signed checkpoint claims (not verified here: verify() does that)."""
    try:
        return Checkpoint.parse(parse(note).text).size
    except NoteError:
        return None


class LedgerClient:
    """The audit API over one channel: plain text by default; with ``ca_file`` (PEM) or ``tls``
    (the system's trusted roots), TLS that verifies the server. Raises OSError when ``ca_file``
    cannot be read."""

    def __init__(
        self,
        addr: str,
        timeout: float = 30.0,
        *,
        ca_file: str | os.PathLike[str] | None = None,
        tls: bool = False,
    ) -> None:
        self.addr = addr
        self._timeout = timeout
        if ca_file or tls:
            roots = Path(ca_file).read_bytes() if ca_file else None
            credentials = grpc.ssl_channel_credentials(root_certificates=roots)
            self._channel = grpc.secure_channel(addr, credentials, options=OPTIONS)
        else:
            self._channel = grpc.insecure_channel(addr, options=OPTIONS)
        self._stub = audit_pb2_grpc.LedgerAuditServiceStub(self._channel)  # type: ignore[no-untyped-call]

    def __enter__(self) -> LedgerClient:
        return self

    def __exit__(self, *_: object) -> None:
        self._channel.close()

    def _call(self, method: str, request: object) -> object:
        """One call; over the ledger's rate limit (RESOURCE_EXHAUSTED with retry-after-ms) it
        waits as told and asks again, a few times."""
        for _ in range(MAX_WAITS):
            try:
                return getattr(self._stub, method)(request, timeout=self._timeout)
            except grpc.RpcError as error:
                wait_ms = _retry_after_ms(error)
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or wait_ms is None:
                    raise LedgerError(error.code().name, error.details() or "") from None
                time.sleep(min(wait_ms / 1000, MAX_WAIT_S))
        raise LedgerError("RESOURCE_EXHAUSTED", "the ledger kept asking us to wait; try later")

    def verifier_key(self) -> str:
        answer = self._call("GetVerifierKey", audit_pb2.GetVerifierKeyRequest())
        assert isinstance(answer, audit_pb2.GetVerifierKeyResponse)
        return answer.verifier_key

    def checkpoint(self) -> str:
        answer = self._call("GetCheckpoint", audit_pb2.GetCheckpointRequest())
        assert isinstance(answer, audit_pb2.GetCheckpointResponse)
        return answer.checkpoint

    def consistency(self, first: int, second: int) -> Consistency:
        answer = self._call(
            "GetConsistencyProof",
            audit_pb2.GetConsistencyProofRequest(first_size=first, second_size=second),
        )
        assert isinstance(answer, audit_pb2.GetConsistencyProofResponse)
        return Consistency(first, second, tuple(answer.proof))

    def evidence(self, game: str, since: str | None = None) -> Evidence:
        """The game's records with proofs and the served key; with ``since`` (a checkpoint kept
        from before), the consistency proof between its size and the served checkpoint's."""
        answer = self._call("GetGameRecords", audit_pb2.GetGameRecordsRequest(table_id=game))
        assert isinstance(answer, audit_pb2.GetGameRecordsResponse)
        entries = list(answer.entries)
        token = answer.next_page_token
        for _ in range(MAX_PAGES):  # every page is proved against the first page's checkpoint
            if not token:
                break
            page = self._call(
                "GetGameRecords", audit_pb2.GetGameRecordsRequest(table_id=game, page_token=token)
            )
            assert isinstance(page, audit_pb2.GetGameRecordsResponse)
            if page.checkpoint != answer.checkpoint:
                raise LedgerError("INTERNAL", "the ledger changed checkpoints between pages")
            entries.extend(page.entries)
            token = page.next_page_token
        proofs: list[Consistency] = []
        size = _size_of(answer.checkpoint)
        old = _size_of(since) if since is not None else None
        if size is not None and old is not None and old < size:
            proofs.append(self.consistency(old, size))
        return Evidence(
            game=game,
            checkpoint=answer.checkpoint,
            verifier_key=self.verifier_key(),
            entries=tuple(
                Entry(
                    e.leaf_index,
                    e.stream_sequence,
                    e.record,
                    tuple(e.inclusion_proof),
                    e.frame_index,
                )
                for e in entries
            ),
            consistency=tuple(proofs),
        )


def _retry_after_ms(error: grpc.RpcError) -> int | None:
    trailers = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == RETRY_AFTER_KEY and str(value).isdigit():
            return int(value)
    return None
