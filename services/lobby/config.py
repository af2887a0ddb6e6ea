"""The lobby's configuration: read once at start-up; handlers never read the environment."""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from match_bus.clock import Clock
from match_bus.secretfiles import SecretFileError, read_secret
from match_bus.service import BaseConfig
from services.lobby.limits import Rate
from services.tls import ServerTls, TlsConfigError, server_tls

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
DEFAULT_CONNECTION_LIMIT = Rate(per_s=200.0, burst=400.0)
# Invite codes open their table for an hour (people invite friends who join within minutes);
# each client address may try 10 codes that open nothing, then one every 6 s (why these make
# guessing hopeless: services/lobby/invites.py).
DEFAULT_INVITE_TTL_S = 3600.0
DEFAULT_INVITE_FAILURES = Rate(per_s=10 / 60, burst=10.0)


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
    connection_limit: Rate = DEFAULT_CONNECTION_LIMIT  # per client connection
    tls: ServerTls | None = None  # LOBBY_TLS_CERT and LOBBY_TLS_KEY; None serves plain text
    invite_ttl_s: float = DEFAULT_INVITE_TTL_S  # a code opens its table this long after making
    invite_failures: Rate = DEFAULT_INVITE_FAILURES  # wrong codes per client address
    clock: Clock = field(default_factory=Clock)  # REFEREE_CLOCK_RATE / _ANCHOR_MS: for expiry

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
        rate = _number(env, "REFEREE_CLOCK_RATE", 1.0)
        if rate <= 0:
            raise ConfigError("REFEREE_CLOCK_RATE must be more than 0")
        anchor = _number(env, "REFEREE_CLOCK_ANCHOR_MS", 0.0)
        try:
            tls = server_tls(env, "LOBBY")
        except TlsConfigError as error:
            raise ConfigError(str(error)) from None
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
            connection_limit=_rate(env, "CONN", DEFAULT_CONNECTION_LIMIT),
            tls=tls,
            invite_ttl_s=invite_ttl_s,
            invite_failures=failures,
            clock=Clock(rate, int(anchor)),
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
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{name} must be 0 or more, got {text!r}")
    return value


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
