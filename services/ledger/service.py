"""The ledger process: the durable consumer ``ledger`` (``LEDGER_DURABLE``) into SQLite (a
transparency log with signed checkpoints), ``match.ledger.records``, and the gRPC
``LedgerAuditService``; with ``LEDGER_WEB_ADDR``, the same service for browsers in the Connect
protocol (services/webedge.py), which the auditor's page of the web client calls.

Several ledger replicas may run side by side, each with its own durable consumer and its own
SQLite file, signing with the same key: each keeps a whole copy of the stream in stream order,
so their trees are the same tree. Requests go to whichever replica the queue group or the
kernel (SO_REUSEPORT on the shared gRPC address) picks, so a replica first catches up with a
table's last record on the stream before answering for it (:class:`CatchUp`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import structlog
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.errors import NotFoundError
from prometheus_client import Counter, Gauge

from match.v1 import audit_pb2_grpc, referee_pb2
from match_audit import keys
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_bus.secretfiles import SecretFileError, check_private
from match_bus.service import BaseConfig, answerable, configured, reply, run, spawn
from match_bus.settings import decimal, whole
from services.ledger.audit import AUDIT_SERVICE, AuditLimits, AuditServicer
from services.ledger.consumer import QUARANTINED, Ingest
from services.ledger.store import Store
from services.lobby.limits import Rate
from services.tls import ServerTls, add_port, plaintext_warning, server_tls
from services.webedge import ConnectEdge, Recorder, WebConfig, serve_web

log = structlog.get_logger()

DEFAULT_ADDR = "127.0.0.1:50052"
DEFAULT_ORIGIN = "match.local/ledger"
# The audit API's token buckets: `match-audit verify` makes a handful of calls; a page of a
# game's records with proofs costs the ledger milliseconds, so a flood is held to a trickle.
DEFAULT_AUDIT_PER_ADDRESS = Rate(per_s=10.0, burst=20.0)
DEFAULT_AUDIT_EVERYONE = Rate(per_s=100.0, burst=200.0)

TREE_SIZE = Gauge("match_ledger_tree_size", "Leaves in the ledger's Merkle tree")
CHECKPOINT_SIZE = Gauge("match_ledger_checkpoint_size", "Tree size of the latest checkpoint")
BEHIND = Counter(
    "match_ledger_behind_total",
    "Requests for a table this replica had not stored to the end of within the wait",
)

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
    durable: str = subjects.LEDGER_DURABLE  # the consumer: one per replica, each a whole copy
    catch_up_s: float = 3.0  # how long a request waits for this replica to store a table's end
    linger_s: float = 0.05  # after a short batch, wait this long so the next one is fuller
    tls: ServerTls | None = None  # LEDGER_TLS_CERT and LEDGER_TLS_KEY; None serves plain text
    audit_per_address: Rate = DEFAULT_AUDIT_PER_ADDRESS  # LEDGER_RATE_ADDR, LEDGER_BURST_ADDR
    audit_everyone: Rate = DEFAULT_AUDIT_EVERYONE  # LEDGER_RATE_ALL, LEDGER_BURST_ALL
    web: WebConfig = field(default_factory=WebConfig)  # LEDGER_WEB_ADDR, LEDGER_WEB_ORIGINS

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LedgerConfig:
        """Raises :class:`TlsConfigError` for TLS settings it cannot serve, and
        :class:`WebConfigError` for web edge settings."""
        env = os.environ if env is None else env
        db_path = Path(env.get("LEDGER_DB", "var/ledger.sqlite3"))
        return cls(
            base=BaseConfig.from_env(default_metrics_port=9104),
            db_path=db_path,
            batch=whole(env, "LEDGER_BATCH", 256, 1),
            linger_s=decimal(env, "LEDGER_LINGER_S", 0.05, 0, "seconds"),
            addr=env.get("LEDGER_ADDR", DEFAULT_ADDR),
            origin=env.get("LEDGER_ORIGIN", DEFAULT_ORIGIN),
            key_file=Path(env.get("LEDGER_KEY_FILE", str(db_path.parent / "ledger.key"))),
            checkpoint_every=whole(env, "LEDGER_CHECKPOINT_EVERY", 64, 1),
            checkpoint_s=decimal(env, "LEDGER_CHECKPOINT_S", 5.0, 0, "seconds", True),
            durable=env.get("LEDGER_DURABLE") or subjects.LEDGER_DURABLE,
            catch_up_s=decimal(env, "LEDGER_CATCH_UP_S", 3.0, 0, "seconds", True),
            tls=server_tls(env, "LEDGER"),
            audit_per_address=_rate(env, "ADDR", DEFAULT_AUDIT_PER_ADDRESS),
            audit_everyone=_rate(env, "ALL", DEFAULT_AUDIT_EVERYONE),
            web=WebConfig.from_env(env, "LEDGER"),
        )


def _rate(env: Mapping[str, str], which: str, default: Rate) -> Rate:
    """LEDGER_RATE_<which> calls/s and LEDGER_BURST_<which> calls at once; 0 turns it off."""
    rate = Rate(
        decimal(env, f"LEDGER_RATE_{which}", default.per_s, 0, "calls a second"),
        decimal(env, f"LEDGER_BURST_{which}", default.burst, 0, "calls"),
    )
    if rate.per_s < 0 or rate.burst < 0 or (rate.enabled and rate.burst < 1):
        raise ValueError(
            f"LEDGER_RATE_{which} must be 0 or more and LEDGER_BURST_{which} 0 or at least 1"
        )
    return rate


class CatchUp:
    """Waits until this replica has stored a table's last record as the stream has it now.

    A request may reach a replica that is behind (restarted, or slower): answering at once would
    give fewer records than its twin. So it first asks the stream for the table's last sequence
    and waits, up to ``wait_s``, until its own store has reached it. ``ready`` says whether it
    did; when the stream cannot be asked (NATS down), the store is all there is, and it answers.
    """

    def __init__(
        self,
        nc: Client,
        stored: Callable[[], int],
        wait_s: float,
        every_s: float = 0.05,
    ) -> None:
        self._js = nc.jetstream()
        self._stored = stored
        self._wait_s = wait_s
        self._every_s = every_s

    async def stream_last(self, table_id: str) -> int | None:
        """The stream sequence by which the stream holds all of the table's records now: the
        later of its last record on its own subject and its partition's last frame (a frame
        names no table in its subject, so the table's last record is in that frame or before
        it); 0 for a table the stream does not have; None when the stream did not answer."""
        last = 0
        partition = subjects.partition_of(table_id)
        for subject in (subjects.events(table_id), subjects.frames(partition)):
            try:
                message = await self._js.get_last_msg(subjects.EVENTS_STREAM, subject)
            except NotFoundError:
                continue
            except Exception as error:
                log.warning("could not ask the stream for a table's end", error=repr(error))
                return None
            last = max(last, message.seq or 0)
        return last

    async def ready(self, table_id: str) -> tuple[bool, int, int]:
        """(caught up, stored up to, the table's last sequence on the stream)."""
        last = await self.stream_last(table_id)
        if last is None:
            return True, self._stored(), 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait_s
        while self._stored() < last:
            if loop.time() >= deadline:
                BEHIND.inc()
                return False, self._stored(), last
            await asyncio.sleep(self._every_s)
        return True, self._stored(), last


async def answer_records(
    store: Store, data: bytes, catch_up: CatchUp | None = None
) -> bytes | None:
    """LedgerRecordsRequest -> LedgerRecordsResponse; empty for a bad request or unknown table;
    None (no answer: the caller asks again, maybe another replica) when ``catch_up`` says this
    replica has not stored the table to its end."""
    response = referee_pb2.LedgerRecordsResponse()
    try:
        request = referee_pb2.LedgerRecordsRequest.FromString(data)
    except DecodeError:
        log.info("malformed records request")
        return response.SerializeToString()
    if not subjects.valid_table_id(request.table_id):
        return response.SerializeToString()
    if catch_up is not None:
        ready, stored, last = await catch_up.ready(request.table_id)
        if not ready:
            log.warning(
                "behind the stream; not answering a records request",
                table_id=request.table_id,
                stored=stored,
                table_last=last,
            )
            return None
    for sequence, index, record in await asyncio.to_thread(store.records, request.table_id):
        response.entries.add(stream_sequence=sequence, record=record, frame_index=index)
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
    QUARANTINED.set(len(store.quarantined()))
    latest = store.latest_checkpoint()
    CHECKPOINT_SIZE.set(latest.size if latest is not None else 0)


async def serve_audit(
    store: Store,
    addr: str,
    verifier_key: str,
    catch_up: CatchUp | None = None,
    tls: ServerTls | None = None,
    limits: AuditLimits | None = None,
    web: WebConfig | None = None,
) -> Callable[[], Awaitable[None]]:
    """The gRPC audit server (with health and reflection) on ``addr``, over TLS with ``tls``,
    and when ``web`` has an address, the audit service there for browsers (Connect; the pages of
    ``web.origins`` may call it); returns their stop."""
    plaintext = plaintext_warning(addr, tls, "LEDGER")
    if plaintext is not None:
        log.warning(plaintext)
    server = grpc.aio.server(options=SERVER_OPTIONS)
    # The audit service goes to the gRPC server and is kept for the web edge: one set of handlers.
    recorder = Recorder(server)
    audit_pb2_grpc.add_LedgerAuditServiceServicer_to_server(  # type: ignore[no-untyped-call]
        AuditServicer(
            store,
            verifier_key,
            catch_up.ready if catch_up is not None else None,
            limits,
            name=addr,
        ),
        recorder,
    )
    checks = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    reflection.enable_server_reflection(
        (AUDIT_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    add_port(server, addr, tls)
    await server.start()
    stop_web = None
    if web is not None and web.addr:
        edge = ConnectEdge(
            recorder.services, allowed_origins=web.origins, allowed_hosts=web.answered_hosts()
        )
        try:
            stop_web = await serve_web(edge, web.addr, web.limits)
        except OSError:
            await server.stop(grace=None)
            raise
    for name in ("", AUDIT_SERVICE):
        await checks.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info(
        "audit api listening",
        addr=addr,
        tls=f"{tls.cert_file}, valid until {tls.not_after}" if tls else "off",
        web=web.addr if web is not None and web.addr else "off",
        web_origins=",".join(sorted(web.origins)) if web is not None and web.origins else "-",
    )

    async def stop() -> None:
        for name in ("", AUDIT_SERVICE):
            await checks.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        if stop_web is not None:
            await stop_web()
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
    ingest = Ingest(
        nc,
        store,
        batch=config.batch,
        linger_s=config.linger_s,
        durable=config.durable,
        stream_replicas=config.base.stream_replicas,
    )
    catch_up = CatchUp(nc, lambda: ingest.last_sequence, config.catch_up_s)
    limits = AuditLimits(config.audit_per_address, config.audit_everyone)
    stop_audit = await serve_audit(
        store, config.addr, str(signer.verifier), catch_up, config.tls, limits, config.web
    )
    # the referee makes it too; whoever comes first
    await ensure_stream(nc.jetstream(), config.base.stream_replicas)

    async def on_request(msg: Msg) -> None:
        if not answerable(msg):
            return
        answer = await answer_records(store, msg.data, catch_up)
        if answer is not None:
            await reply(msg, answer)

    await nc.subscribe(subjects.LEDGER_RECORDS, queue=subjects.LEDGER_QUEUE, cb=spawn(on_request))
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
    config = configured("ledger", LedgerConfig.from_env)  # TLS and web errors are ValueErrors
    if config.key_file.exists():
        try:
            check_private(config.key_file)
        except SecretFileError as error:  # refused before anything starts
            sys.exit(f"ledger: LEDGER_KEY_FILE: {error}")

    async def serve(nc: Client) -> Callable[[], Awaitable[None]]:
        return await serve_ledger(nc, config)

    run("ledger", config.base, serve)
