"""The ledger process: the durable consumer ``ledger`` into SQLite, and ``match.ledger.records``."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import structlog
from google.protobuf.message import DecodeError
from nats.aio.client import Client
from nats.aio.msg import Msg

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_bus.service import BaseConfig, run, spawn
from services.ledger.consumer import Ingest
from services.ledger.store import Store

log = structlog.get_logger()


@dataclass(frozen=True, slots=True)
class LedgerConfig:
    base: BaseConfig
    db_path: Path
    batch: int  # records fetched, stored in one transaction, then acked

    @classmethod
    def from_env(cls) -> LedgerConfig:
        return cls(
            base=BaseConfig.from_env(default_metrics_port=9104),
            db_path=Path(os.environ.get("LEDGER_DB", "var/ledger.sqlite3")),
            batch=int(os.environ.get("LEDGER_BATCH", "256")),
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


async def serve_ledger(nc: Client, db_path: Path, batch: int) -> Callable[[], Awaitable[None]]:
    store = await asyncio.to_thread(Store.open, db_path)
    log.info("store open", path=str(db_path))
    await ensure_stream(nc.jetstream())  # the referee makes it too; whoever comes first

    async def on_request(msg: Msg) -> None:
        if not msg.reply:
            return
        await msg.respond(await answer_records(store, msg.data))

    await nc.subscribe(subjects.LEDGER_RECORDS, queue=subjects.LEDGER_QUEUE, cb=spawn(on_request))
    ingest = asyncio.create_task(Ingest(nc, store, batch=batch).run())

    async def stop() -> None:
        ingest.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ingest
        await asyncio.to_thread(store.close)

    return stop


def main() -> None:
    config = LedgerConfig.from_env()

    async def serve(nc: Client) -> Callable[[], Awaitable[None]]:
        return await serve_ledger(nc, config.db_path, config.batch)

    run("ledger", config.base, serve)
