"""``python -m services.lobby``: the gRPC server (LobbyService, PlayerService, each registered
game's own service, health, reflection) over one NATS connection."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import grpc  # type: ignore[import-untyped]
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]
from nats.aio.client import Client

from match.v1 import lobby_pb2, lobby_pb2_grpc, players_pb2, players_pb2_grpc
from match_bus.service import run
from services.lobby import files, snapshot
from services.lobby.config import ConfigError, GrpcLimits, LobbyConfig
from services.lobby.directory import TableDirectory
from services.lobby.edge import Auth, Limits
from services.lobby.fanout import Watches
from services.lobby.games import services
from services.lobby.identity import Challenges, Sessions
from services.lobby.ids import Ids
from services.lobby.invites import FailureBudget, InviteRules
from services.lobby.limits import Limiter
from services.lobby.parsing import add_safely
from services.lobby.players import PlayerServicer
from services.lobby.players_client import PlayersClient
from services.lobby.playing import GameServicer
from services.lobby.presence import Presence
from services.lobby.quotas import TableQuotas
from services.lobby.referee import Referee
from services.lobby.servicers import LobbyServicer
from services.lobby.tokens import Tokens
from services.tls import add_port, plaintext_warning
from services.webedge import ConnectEdge, Recorder, serve_web

log = structlog.get_logger()

LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
PLAYER_SERVICE = players_pb2.DESCRIPTOR.services_by_name["PlayerService"].full_name
GAME_SERVICES = tuple(service.full_name for service in services())  # MatchRaceService, ...
SERVED = ("", LOBBY_SERVICE, PLAYER_SERVICE, *GAME_SERVICES)

SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", 64 * 1024),  # every request is a few bytes
    ("grpc.max_send_message_length", 4 * 1024 * 1024),
    ("grpc.keepalive_time_ms", 60_000),  # find dead Watch clients
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.max_connection_age_grace_ms", 5_000),
]


def server_options(limits: GrpcLimits) -> list[tuple[str, int]]:
    """SERVER_OPTIONS and the gRPC edge's connection limits (0: that one off)."""
    options = list(SERVER_OPTIONS)
    if limits.total:
        options.append(("grpc.max_allowed_incoming_connections", limits.total))
    if limits.handshake_timeout_s:
        options.append(
            ("grpc.server_handshake_timeout_ms", max(1, round(limits.handshake_timeout_s * 1000)))
        )
    if limits.idle_timeout_s:
        options.append(("grpc.max_connection_idle_ms", max(1, round(limits.idle_timeout_s * 1000))))
    return options


async def _mirror_nats_health(nc: Client, checks: health.aio.HealthServicer) -> None:
    """NOT_SERVING while the NATS connection is down: every RPC needs it."""
    serving: bool | None = None
    while True:
        now = nc.is_connected
        if now != serving:
            status = (
                health_pb2.HealthCheckResponse.SERVING
                if now
                else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            for name in SERVED:
                await checks.set(name, status)
            if serving is not None:
                log.warning("nats connection", connected=now)
            serving = now
        await asyncio.sleep(1.0)


async def serve(
    nc: Client, config: LobbyConfig, lowered: str = ""
) -> Callable[[], Awaitable[None]]:
    if lowered:
        log.warning(lowered)
    if config.secret_generated:
        log.warning(
            "MATCH_TOKEN_SECRET_FILE is not set: using a random secret, so player tokens will not "
            "survive a restart of the lobby"
        )
    if config.bot_key is None:
        log.warning("MATCH_BOT_KEY_FILE is not set: bot joins are refused")
    plaintext = plaintext_warning(config.addr, config.tls, "LOBBY")
    if plaintext is not None:
        log.warning(plaintext)
    js = nc.jetstream()  # the log is the referee's and the ledger's to make, not ours

    def listing() -> TableDirectory:
        return TableDirectory(js, config.keep_finished_s * 1000)

    tasks = []
    if config.snapshot_every_s > 0:  # from the listing's snapshot, if one can be trusted
        directory = await snapshot.restore(js, listing, config.base.stream_replicas)
        snapshots = snapshot.Snapshots(
            js, directory, config.snapshot_every_s, config.base.stream_replicas
        )
        tasks.append(asyncio.create_task(snapshots.run(), name="listing-snapshots"))
    else:
        directory = listing()  # from the log's first record
    tasks.append(asyncio.create_task(directory.run(), name="table-directory"))
    referee = Referee(nc, config.referee_timeout_s, config.referee_wait_s)
    limits = Limits(
        Limiter(config.player_limit),
        Limiter(config.address_limit),
        Limiter(config.create_limit),
        Limiter(config.sign_in_limit),
    )
    auth = Auth(
        Tokens(config.token_secret, config.token_ttl_s),
        config.bot_key,
        limits,
        Sessions(config.token_secret, config.session_ttl_s),
        config.ipv6_prefix,
    )
    watches = Watches(nc, js, config.watch_limits)

    grpc_server = grpc.aio.server(options=server_options(config.grpc_limits))
    # Every service goes to the gRPC server and is kept for the web edge: one set of handlers.
    server = Recorder(grpc_server)
    ids = Ids(config.token_secret)
    add_safely(
        server,
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server,
        LobbyServicer(
            auth,
            referee,
            directory,
            ids,
            TableQuotas(directory, config.caps),
            InviteRules(
                ttl_ms=round(config.invite_ttl_s * 1000),
                failures=FailureBudget(config.invite_failures),
                now_ms=config.clock.now_ms,
            ),
        ),
        auth.admit,
    )
    add_safely(
        server,
        players_pb2_grpc.add_PlayerServiceServicer_to_server,
        PlayerServicer(
            auth,
            Challenges(config.token_secret, config.challenge_ttl_s),
            directory,
            PlayersClient(nc, config.players_timeout_s),
            ids,
        ),
        auth.admit,
    )
    presence = Presence(referee, config.clock.now_ms, directory)
    for service in services():  # each registered game's own service
        add_safely(
            server,
            lambda servicer, target: servicer.register(target),
            GameServicer(service, auth, referee, directory, js, watches, presence),
            auth.admit,
        )
    # The game's API, not health or reflection: Connect for the calls, a WebSocket for each
    # game's Play (Connect cannot carry a stream both ways in a browser).
    web_services = dict(server.services)
    checks = health.aio.HealthServicer()
    add_safely(grpc_server, health_pb2_grpc.add_HealthServicer_to_server, checks, auth.admit)
    reflection.enable_server_reflection(
        (*SERVED[1:], health.SERVICE_NAME, reflection.SERVICE_NAME), grpc_server
    )
    add_port(grpc_server, config.addr, config.tls)
    await grpc_server.start()
    stop_web = None
    if config.web.addr:
        audit = urlsplit(config.web_audit_url)
        edge = ConnectEdge(
            web_services,
            allowed_origins=config.web.origins,
            allowed_hosts=config.web.answered_hosts(),
            # the auditor's page calls the ledger's edge: the audit URL's origin
            connect_to=(f"{audit.scheme}://{audit.netloc}",) if audit.netloc else (),
            static_dir=config.web_root,
            config={"auditUrl": config.web_audit_url, "auditAddr": config.audit_addr},
            # a WebSocket's first message is its headers: as long to send it as a request's
            hello_timeout_s=config.web.limits.header_timeout_s,
        )
        stop_web = await serve_web(edge, config.web.addr, config.web.limits)
        if not (config.web_root / "index.html").is_file():
            log.warning(
                "the web client is not built: the web edge answers its calls but serves no "
                "page (run make install)",
                web_root=str(config.web_root),
            )
    tasks.append(asyncio.create_task(_mirror_nats_health(nc, checks), name="health"))
    log.info(
        "listening",
        addr=config.addr,
        web=config.web.addr or "off",
        web_origins=",".join(sorted(config.web.origins)) or "its own only",
        tls=f"{config.tls.cert_file}, valid until {config.tls.not_after}" if config.tls else "off",
        player_limit=f"{config.player_limit.per_s:g}/s burst {config.player_limit.burst:g}",
        address_limit=f"{config.address_limit.per_s:g}/s burst {config.address_limit.burst:g}",
        create_limit=f"{config.create_limit.per_s:g}/s burst {config.create_limit.burst:g}",
        sign_in_limit=f"{config.sign_in_limit.per_s:g}/s burst {config.sign_in_limit.burst:g}",
        challenge_ttl_s=config.challenge_ttl_s,
        session_ttl_s=config.session_ttl_s,
        caps=str(config.caps),
        referee_wait_s=config.referee_wait_s,
        watch_limits=_watch_limits(config),
        web_connections=_web_limits(config),
        grpc_connections=_grpc_limits(config),
        ipv6_prefix=config.ipv6_prefix,
        invite_ttl_s=config.invite_ttl_s,
        invite_failures=f"{config.invite_failures.per_s * 60:g}/min burst "
        f"{config.invite_failures.burst:g} per address",
    )

    async def stop() -> None:
        for name in SERVED:
            await checks.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        if stop_web is not None:
            await stop_web()
        await grpc_server.stop(grace=3.0)
        await watches.close()
        await presence.close()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return stop


def _watch_limits(config: LobbyConfig) -> str:
    w = config.watch_limits
    return (
        f"{w.per_player} per player, {w.per_address} per address, {w.per_lobby} in all, "
        f"{w.tables} tables, {w.tables_per_address} per address"
    )


def _grpc_limits(config: LobbyConfig) -> str:
    g = config.grpc_limits
    return (
        f"{g.total} at most, handshake within {g.handshake_timeout_s:g} s, "
        f"idle {g.idle_timeout_s:g} s"
    )


def _web_limits(config: LobbyConfig) -> str:
    c = config.web.limits
    return (
        f"{c.total} at most, {c.per_address} per address, headers within "
        f"{c.header_timeout_s:g} s, body {c.body_timeout_s:g} s, idle {c.idle_timeout_s:g} s"
    )


def fit_open_files(config: LobbyConfig) -> tuple[LobbyConfig, str]:
    """``config`` with both edges' connection caps within RLIMIT_NOFILE (services/lobby/
    files.py; the soft limit raised as needed), and what was lowered ("" for nothing)."""
    web = config.web.limits.total if config.web.addr else 0
    budget = files.apply(web, config.grpc_limits.total, config.fd_reserve)
    if not budget.note:
        return config, ""
    return (
        dataclasses.replace(
            config,
            web=dataclasses.replace(
                config.web, limits=dataclasses.replace(config.web.limits, total=budget.web)
            ),
            grpc_limits=dataclasses.replace(config.grpc_limits, total=budget.grpc),
        ),
        budget.note,
    )


def main() -> None:
    try:
        config, lowered = fit_open_files(LobbyConfig.from_env())
    except (ConfigError, ValueError, files.FileBudgetError) as error:  # ValueError: BaseConfig
        sys.exit(f"lobby: {error}")
    run("lobby", config.base, lambda nc: serve(nc, config, lowered))
