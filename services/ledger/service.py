"""The ledger process: the durable consumer ``ledger`` into SQLite (a transparency log with
signed checkpoints), ``match.ledger.records``, and the gRPC ``LedgerAuditService``."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import structlog
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]
from nats.aio.client import Client
from nats.aio.msg import Msg
from prometheus_client import Gauge

from match.v1 import audit_pb2_grpc, referee_pb2
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_bus.service import BaseConfig, run, spawn
from services.ledger import keys
from services.ledger.audit import AUDIT_SERVICE, AuditServicer
from services.ledger.consumer import Ingest
from services.ledger.store import Store

log = structlog.get_logger()

DEFAULT_ADDR = "127.0.0.1:50052"
DEFAULT_ORIGIN = "match.local/ledger"

TREE_SIZE = Gauge("match_ledger_tree_size", "Leaves in the ledger's Merkle tree")
CHECKPOINT_SIZE = Gauge("match_ledger_checkpoint_size", "Tree size of the latest checkpoint")

SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", 64 * 1024),  # every request is a few bytes
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
]


@dataclass(frozen=True, slots=True)
class LedgerConfig:
    base: BaseConfig
    db_path: Path
    batch: int  # records fetched, stored in one transaction, then acked
    addr: str = DEFAULT_ADDR  # the audit gRPC server
    origin: str = DEFAULT_ORIGIN  # the checkpoints' origin line and the key's name
    key_file: Path = Path("var/ledger.key")
    checkpoint_every: int = 64  # a checkpoint at least every N leaves...
    checkpoint_s: float = 5.0  # ...or T seconds when anything is new

    @classmethod
    def from_env(cls) -> LedgerConfig:
        db_path = Path(os.environ.get("LEDGER_DB", "var/ledger.sqlite3"))
        return cls(
            base=BaseConfig.from_env(default_metrics_port=9104),
            db_path=db_path,
            batch=int(os.environ.get("LEDGER_BATCH", "256")),
            addr=os.environ.get("LEDGER_ADDR", DEFAULT_ADDR),
            origin=os.environ.get("LEDGER_ORIGIN", DEFAULT_ORIGIN),
            key_file=Path(os.environ.get("LEDGER_KEY_FILE", str(db_path.parent / "ledger.key"))),
            checkpoint_every=int(os.environ.get("LEDGER_CHECKPOINT_EVERY", "64")),
            checkpoint_s=float(os.environ.get("LEDGER_CHECKPOINT_S", "5")),
        )


async def answer_records(store: Store, data: bytes) -> bytes:
    """LedgerRecordsRequest -> LedgerRecordsResponse; empty for a bad request or unknown table."""
    response = referee_pb2.LedgerRecordsResponse()
    try:
        request = referee_pb2.LedgerRecordsRequest.FromString(data)
    except DecodeError:
        log.info("malformed records request")
        return response.SerializeToString()
    if not subjects.valid_table_id(request.table_id):
        return response.SerializeToString()
    for sequence, record in await asyncio.to_thread(store.records, request.table_id):
        response.entries.add(stream_sequence=sequence, record=record)
    return response.SerializeToString()


async def sign_checkpoints(store: Store, every_s: float) -> None:
    """Every ``every_s`` seconds, a checkpoint of whatever came since the last one."""
    while True:
        await asyncio.sleep(every_s)
        try:
            made = await asyncio.to_thread(store.checkpoint_if_new)
        except Exception as error:  # the next tick tries again
            log.error("could not sign a checkpoint", error=repr(error))
            continue
        if made is not None:
            log.debug("checkpoint signed", tree_size=made.size)
        _gauge(store)


def _gauge(store: Store) -> None:
    TREE_SIZE.set(store.tree_size())
    latest = store.latest_checkpoint()
    CHECKPOINT_SIZE.set(latest.size if latest is not None else 0)


async def serve_audit(store: Store, addr: str, verifier_key: str) -> Callable[[], Awaitable[None]]:
    """The gRPC audit server (with health and reflection) on ``addr``; returns its stop."""
    server = grpc.aio.server(options=SERVER_OPTIONS)
    audit_pb2_grpc.add_LedgerAuditServiceServicer_to_server(  # type: ignore[no-untyped-call]
        AuditServicer(store, verifier_key), server
    )
    checks = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    reflection.enable_server_reflection(
        (AUDIT_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    server.add_insecure_port(addr)
    await server.start()
    for name in ("", AUDIT_SERVICE):
        await checks.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("audit api listening", addr=addr)

    async def stop() -> None:
        for name in ("", AUDIT_SERVICE):
            await checks.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await server.stop(grace=2.0)

    return stop


async def serve_ledger(nc: Client, config: LedgerConfig) -> Callable[[], Awaitable[None]]:
    signer = await asyncio.to_thread(keys.load_or_create, config.key_file, config.origin)
    store = await asyncio.to_thread(Store.open, config.db_path, signer, config.checkpoint_every)
    log.info(
        "store open",
        path=str(config.db_path),
        tree_size=store.tree_size(),
        verifier_key=str(signer.verifier),
    )
    _gauge(store)
    stop_audit = await serve_audit(store, config.addr, str(signer.verifier))
    await ensure_stream(nc.jetstream())  # the referee makes it too; whoever comes first

    async def on_request(msg: Msg) -> None:
        if not msg.reply:
            return
        await msg.respond(await answer_records(store, msg.data))

    await nc.subscribe(subjects.LEDGER_RECORDS, queue=subjects.LEDGER_QUEUE, cb=spawn(on_request))
    ingest = Ingest(nc, store, batch=config.batch)
    tasks = [
        asyncio.create_task(ingest.run(), name="ingest"),
        asyncio.create_task(sign_checkpoints(store, config.checkpoint_s), name="checkpoints"),
    ]

    async def stop() -> None:
        await stop_audit()
        ingest.stop()
        for task in tasks:
            task.cancel()
        _, pending = await asyncio.wait(tasks, timeout=5.0)
        if pending:
            log.warning("tasks still running at stop", tasks=[t.get_name() for t in pending])
        with contextlib.suppress(Exception):
            await asyncio.to_thread(store.checkpoint_if_new)
        await asyncio.to_thread(store.close)

    return stop


def main() -> None:
    config = LedgerConfig.from_env()

    async def serve(nc: Client) -> Callable[[], Awaitable[None]]:
        return await serve_ledger(nc, config)

    run("ledger", config.base, serve)
