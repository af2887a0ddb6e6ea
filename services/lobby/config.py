"""The lobby's configuration: read once at start-up; handlers never read the environment."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from match_bus.clock import Clock
from match_bus.secretfiles import SecretFileError, read_secret
from match_bus.service import BaseConfig
from match_bus.settings import decimal, whole
from services.lobby.directory import KEEP_FINISHED_MS
from services.lobby.limits import Rate, WatchLimits
from services.lobby.quotas import Caps
from services.peers import IPV6_PREFIX
from services.tls import ServerTls, TlsConfigError, server_tls
from services.webedge import WebConfig, WebConfigError, ipv6_prefix

DEFAULT_ADDR = "127.0.0.1:50051"
DEFAULT_TOKEN_TTL_S = 6 * 3600
MIN_SECRET_BYTES = 16
DEFAULT_REFEREE_TIMEOUT_S = 5.0  # for the referee's answer to a command it received
# How long a command is offered again while no referee holds its table's partition ("no
# responders"): longer than a referee failover (a lease taken over, ~5 s).
DEFAULT_REFEREE_WAIT_S = 10.0
# Token buckets (calls per second, calls at once after a quiet spell). A person makes a few
# calls a second; the bot at a 10x clock about 16 turns a second per seat in a board's rush;
# one connection may carry many seats (the bot service, a load driver).
DEFAULT_PLAYER_LIMIT = Rate(per_s=20.0, burst=40.0)
DEFAULT_ADDRESS_LIMIT = Rate(per_s=200.0, burst=400.0)
# Tables: a person makes one now and then; a flood from one address is held to a trickle.
DEFAULT_CREATE_LIMIT = Rate(per_s=0.5, burst=10.0)  # CreateTable per client address
DEFAULT_CAPS = Caps(
    waiting_per_address=10,  # tables waiting for their game, made from one address
    waiting_max=10_000,  # ... in the whole system
    bots_per_address=12,  # bot seats at the tables made from one address (4 tables of 4)
    bots_max=200,  # bot seats in the whole system (150 seats cost the bot half a core)
)
DEFAULT_WATCH_LIMITS = WatchLimits()  # docs/operations.md, "Limits"
# Invite codes open their table for an hour (people invite friends who join within minutes);
# each client address may try 10 codes that open nothing, then one every 6 s (why these make
# guessing hopeless: services/lobby/invites.py).
DEFAULT_INVITE_TTL_S = 3600.0
DEFAULT_INVITE_FAILURES = Rate(per_s=10 / 60, burst=10.0)
# A finished table stays in the listing an hour after its game ends (a rematch is asked within
# minutes), then leaves the lobby's memory: the listing holds the last hour's games, not every
# game the log holds (docs/api.md, "Finished tables").
DEFAULT_KEEP_FINISHED_S = KEEP_FINISHED_MS // 1000
# A lobby stores a snapshot of its listing every 5 minutes, so one that starts reads at most
# some 5 minutes of the log, not all of it (services/lobby/snapshot.py); 0: never.
DEFAULT_SNAPSHOT_EVERY_S = 300.0
# Signing in with a key (services/lobby/identity.py): a challenge is signed within a minute; a
# session lasts a day. GetChallenge and SignIn share one bucket per client address: a sign-in
# is both, so 10 at once and then one every 2 s.
DEFAULT_CHALLENGE_TTL_S = 60.0
DEFAULT_SESSION_TTL_S = 24 * 3600
DEFAULT_SIGN_IN_LIMIT = Rate(per_s=1.0, burst=20.0)
# The players service's answers (profiles, statistics, leaderboards): reads, asked again freely.
DEFAULT_PLAYERS_TIMEOUT_S = 2.0
# The gRPC edge's connections (the web edge's: services.webedge.ConnectionLimits).


@dataclass(frozen=True, slots=True)
class GrpcLimits:
    """The gRPC edge's connections; 0 turns one off."""

    total: int = 512  # connections open at once (grpc.max_allowed_incoming_connections)
    handshake_timeout_s: float = 10.0  # to finish the HTTP/2 (and TLS) handshake
    idle_timeout_s: float = 300.0  # a connection with no call open this long is closed


DEFAULT_GRPC_LIMITS = GrpcLimits()
DEFAULT_FD_RESERVE = 256  # open files besides both edges' connections (services/lobby/files.py)


# The web client's bundle, as `make install` builds it (web/dist in the repository).
DEFAULT_WEB_ROOT = Path(__file__).resolve().parents[2] / "web" / "dist"


class ConfigError(Exception):
    """The environment asks for something the lobby cannot run with."""


@dataclass(frozen=True, slots=True)
class LobbyConfig:
    base: BaseConfig
    addr: str  # host:port of the gRPC server
    token_secret: bytes  # HMAC-SHA256 key of the player tokens
    secret_generated: bool  # no MATCH_TOKEN_SECRET_FILE: tokens die with the process
    token_ttl_s: int
    bot_key: str | None  # the bot service's shared secret; None refuses every bot join
    referee_timeout_s: float = DEFAULT_REFEREE_TIMEOUT_S
    referee_wait_s: float = DEFAULT_REFEREE_WAIT_S  # "no responders": ask again this long
    player_limit: Rate = DEFAULT_PLAYER_LIMIT  # per player (of a valid token)
    address_limit: Rate = DEFAULT_ADDRESS_LIMIT  # per client address (services/peers.py)
    create_limit: Rate = DEFAULT_CREATE_LIMIT  # CreateTable per client address
    caps: Caps = DEFAULT_CAPS  # waiting tables and bot seats, per address and in all
    tls: ServerTls | None = None  # LOBBY_TLS_CERT and LOBBY_TLS_KEY; None serves plain text
    watch_limits: WatchLimits = DEFAULT_WATCH_LIMITS  # Watch streams open at once
    invite_ttl_s: float = DEFAULT_INVITE_TTL_S  # a code opens its table this long after making
    invite_failures: Rate = DEFAULT_INVITE_FAILURES  # wrong codes per client address
    keep_finished_s: int = DEFAULT_KEEP_FINISHED_S  # LOBBY_KEEP_FINISHED_S: listed after the end
    snapshot_every_s: float = DEFAULT_SNAPSHOT_EVERY_S  # LOBBY_SNAPSHOT_EVERY_S; 0: none
    clock: Clock = field(default_factory=Clock)  # REFEREE_CLOCK_RATE / _ANCHOR_MS: for expiry
    challenge_ttl_s: float = DEFAULT_CHALLENGE_TTL_S  # a sign-in challenge, to sign within
    session_ttl_s: int = DEFAULT_SESSION_TTL_S  # a session token from SignIn
    sign_in_limit: Rate = DEFAULT_SIGN_IN_LIMIT  # GetChallenge and SignIn per client address
    players_timeout_s: float = DEFAULT_PLAYERS_TIMEOUT_S  # for the players service's answer
    web: WebConfig = field(default_factory=WebConfig)  # LOBBY_WEB_ADDR, LOBBY_WEB_ORIGINS
    web_root: Path = DEFAULT_WEB_ROOT  # LOBBY_WEB_ROOT: the web client's built files
    web_audit_url: str = ""  # LOBBY_WEB_AUDIT_URL: the ledger's web edge, for the auditor's page
    # LOBBY_AUDIT_ADDR: the ledger's gRPC address as an auditor dials it (host:port), for the
    # `match-audit --addr ... verify` the auditor's page prints; empty: match-audit's default
    audit_addr: str = ""
    grpc_limits: GrpcLimits = DEFAULT_GRPC_LIMITS  # LOBBY_GRPC_MAX_CONNECTIONS, ...
    fd_reserve: int = DEFAULT_FD_RESERVE  # LOBBY_FD_RESERVE
    ipv6_prefix: int = IPV6_PREFIX  # LOBBY_IPV6_PREFIX: the bits of an IPv6 client address

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LobbyConfig:
        env = os.environ if env is None else env
        secret_file = env.get("MATCH_TOKEN_SECRET_FILE", "").strip()
        secret = _token_secret(Path(secret_file)) if secret_file else secrets.token_bytes(32)
        bot_key_file = env.get("MATCH_BOT_KEY_FILE", "").strip()
        bot_key = _read(Path(bot_key_file)).decode().strip() if bot_key_file else None
        try:
            ttl = int(env.get("TOKEN_TTL_S", str(DEFAULT_TOKEN_TTL_S)))
        except ValueError:
            raise ConfigError("TOKEN_TTL_S must be a whole number of seconds") from None
        if ttl <= 0:
            raise ConfigError("TOKEN_TTL_S must be more than 0")
        timeout = _number(env, "LOBBY_REFEREE_TIMEOUT_S", DEFAULT_REFEREE_TIMEOUT_S)
        if timeout <= 0:
            raise ConfigError("LOBBY_REFEREE_TIMEOUT_S must be more than 0 seconds")
        invite_ttl_s = _number(env, "LOBBY_INVITE_TTL_S", DEFAULT_INVITE_TTL_S)
        if invite_ttl_s <= 0:
            raise ConfigError("LOBBY_INVITE_TTL_S must be more than 0 seconds")
        failures = Rate(
            _number(env, "LOBBY_INVITE_FAIL_PER_MIN", DEFAULT_INVITE_FAILURES.per_s * 60) / 60,
            _number(env, "LOBBY_INVITE_FAIL_BURST", DEFAULT_INVITE_FAILURES.burst),
        )
        if failures.enabled and failures.burst < 1:
            raise ConfigError(
                "LOBBY_INVITE_FAIL_BURST must be at least 1, or 0 to turn the limit off"
            )
        try:
            clock = Clock.from_env(env)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        challenge_ttl_s = _number(env, "LOBBY_CHALLENGE_TTL_S", DEFAULT_CHALLENGE_TTL_S)
        if challenge_ttl_s <= 0:
            raise ConfigError("LOBBY_CHALLENGE_TTL_S must be more than 0 seconds")
        session_ttl_s = _at_least(env, "LOBBY_SESSION_TTL_S", DEFAULT_SESSION_TTL_S, 1, "seconds")
        players_timeout_s = _number(env, "LOBBY_PLAYERS_TIMEOUT_S", DEFAULT_PLAYERS_TIMEOUT_S)
        if players_timeout_s <= 0:
            raise ConfigError("LOBBY_PLAYERS_TIMEOUT_S must be more than 0 seconds")
        try:
            tls = server_tls(env, "LOBBY")
        except TlsConfigError as error:
            raise ConfigError(str(error)) from None
        try:
            web = WebConfig.from_env(env, "LOBBY")
            prefix = ipv6_prefix(env, "LOBBY")
        except WebConfigError as error:
            raise ConfigError(str(error)) from None
        g = DEFAULT_GRPC_LIMITS
        grpc_limits = GrpcLimits(
            total=_count(env, "LOBBY_GRPC_MAX_CONNECTIONS", g.total),
            handshake_timeout_s=_number(
                env, "LOBBY_GRPC_HANDSHAKE_TIMEOUT_S", g.handshake_timeout_s
            ),
            idle_timeout_s=_number(env, "LOBBY_GRPC_IDLE_TIMEOUT_S", g.idle_timeout_s),
        )
        audit_url = env.get("LOBBY_WEB_AUDIT_URL", "").strip().rstrip("/")
        if audit_url and not audit_url.startswith(("http://", "https://")):
            raise ConfigError(f"LOBBY_WEB_AUDIT_URL must be an http(s) URL, not {audit_url!r}")
        audit_addr = env.get("LOBBY_AUDIT_ADDR", "").strip()
        host, _, port = audit_addr.rpartition(":")
        if audit_addr and (not host or not port.isdigit() or " " in audit_addr):
            raise ConfigError(
                f"LOBBY_AUDIT_ADDR must be host:port (the ledger's gRPC address, e.g. "
                f"audit.example.org:443), not {audit_addr!r}"
            )
        return cls(
            base=BaseConfig.from_env(default_metrics_port=9101),
            addr=env.get("LOBBY_ADDR", DEFAULT_ADDR),
            token_secret=secret,
            secret_generated=not secret_file,
            token_ttl_s=ttl,
            bot_key=bot_key or None,
            referee_timeout_s=timeout,
            referee_wait_s=_number(env, "LOBBY_REFEREE_WAIT_S", DEFAULT_REFEREE_WAIT_S),
            player_limit=_rate(env, "PLAYER", DEFAULT_PLAYER_LIMIT),
            address_limit=_rate(env, "ADDR", _rate(env, "CONN", DEFAULT_ADDRESS_LIMIT)),
            create_limit=_rate(env, "CREATE", DEFAULT_CREATE_LIMIT),
            caps=Caps(
                waiting_per_address=_count(
                    env, "LOBBY_WAITING_PER_ADDR", DEFAULT_CAPS.waiting_per_address
                ),
                waiting_max=_count(env, "LOBBY_WAITING_MAX", DEFAULT_CAPS.waiting_max),
                bots_per_address=_count(env, "LOBBY_BOTS_PER_ADDR", DEFAULT_CAPS.bots_per_address),
                bots_max=_count(env, "LOBBY_BOTS_MAX", DEFAULT_CAPS.bots_max),
            ),
            tls=tls,
            watch_limits=_watch_limits(env),
            invite_ttl_s=invite_ttl_s,
            invite_failures=failures,
            keep_finished_s=_at_least(
                env, "LOBBY_KEEP_FINISHED_S", DEFAULT_KEEP_FINISHED_S, 1, "seconds"
            ),
            snapshot_every_s=_number(env, "LOBBY_SNAPSHOT_EVERY_S", DEFAULT_SNAPSHOT_EVERY_S),
            clock=clock,
            challenge_ttl_s=challenge_ttl_s,
            session_ttl_s=session_ttl_s,
            sign_in_limit=_rate(env, "SIGN_IN", DEFAULT_SIGN_IN_LIMIT),
            players_timeout_s=players_timeout_s,
            web=web,
            web_root=Path(env.get("LOBBY_WEB_ROOT", "").strip() or DEFAULT_WEB_ROOT),
            web_audit_url=audit_url,
            audit_addr=audit_addr,
            grpc_limits=grpc_limits,
            fd_reserve=_at_least(env, "LOBBY_FD_RESERVE", DEFAULT_FD_RESERVE, 0, "descriptors"),
            ipv6_prefix=prefix,
        )


def _read(path: Path) -> bytes:
    try:
        return read_secret(path)
    except (SecretFileError, OSError) as error:
        raise ConfigError(str(error)) from None


def _token_secret(path: Path) -> bytes:
    """The token secret: hex in a file readable by its owner only."""
    text = _read(path).decode(errors="replace").strip()
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        raise ConfigError(
            f"MATCH_TOKEN_SECRET_FILE {path} must hold hex, e.g. from `openssl rand -hex 32`"
        ) from None
    if len(secret) < MIN_SECRET_BYTES:
        raise ConfigError(
            f"MATCH_TOKEN_SECRET_FILE {path} must hold at least {MIN_SECRET_BYTES} bytes "
            f"({2 * MIN_SECRET_BYTES} hex digits)"
        )
    return secret


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    """A finite number >= 0 from ``env[name]`` (unset or empty: ``default``)."""
    try:
        return decimal(env, name, default, 0)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _rate(env: Mapping[str, str], which: str, default: Rate) -> Rate:
    """LOBBY_RATE_<which> calls/s and LOBBY_BURST_<which> calls at once; 0 in either turns
    that limit off."""
    limit = Rate(
        _number(env, f"LOBBY_RATE_{which}", default.per_s),
        _number(env, f"LOBBY_BURST_{which}", default.burst),
    )
    if limit.enabled and limit.burst < 1:
        raise ConfigError(
            f"LOBBY_BURST_{which} must be at least 1 (a bucket that never holds a whole call "
            f"refuses everything), or 0 to turn the limit off; got {limit.burst:g}"
        )
    return limit


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    """A cap, a whole number >= 0 from ``env[name]`` (unset or empty: ``default``; 0: no cap)."""
    try:
        return whole(env, name, default, 0)
    except ValueError as error:
        raise ConfigError(f"{error} (0: no cap)") from None


def _at_least(env: Mapping[str, str], name: str, default: int, minimum: int, unit: str) -> int:
    """A whole number of ``unit``, at least ``minimum`` (unset or empty: ``default``)."""
    try:
        return whole(env, name, default, minimum, unit)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _watch_limits(env: Mapping[str, str]) -> WatchLimits:
    """LOBBY_MAX_WATCHES_PER_PLAYER, _PER_ADDRESS, LOBBY_MAX_WATCHES (the replica's),
    LOBBY_MAX_WATCHED_TABLES (and _PER_ADDRESS, its fair share): streams (tables) open at
    once, 0 for no cap;
    LOBBY_WATCH_LINGER_S: how long a table's feed outlives its last watcher."""
    d = DEFAULT_WATCH_LIMITS
    return WatchLimits(
        per_player=_count(env, "LOBBY_MAX_WATCHES_PER_PLAYER", d.per_player),
        per_address=_count(env, "LOBBY_MAX_WATCHES_PER_ADDRESS", d.per_address),
        per_lobby=_count(env, "LOBBY_MAX_WATCHES", d.per_lobby),
        tables=_count(env, "LOBBY_MAX_WATCHED_TABLES", d.tables),
        tables_per_address=_count(
            env, "LOBBY_MAX_WATCHED_TABLES_PER_ADDRESS", d.tables_per_address
        ),
        linger_s=_number(env, "LOBBY_WATCH_LINGER_S", d.linger_s),
    )
