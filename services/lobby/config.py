"""The lobby's configuration: read once at start-up; handlers never read the environment."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from match_bus.service import BaseConfig

DEFAULT_ADDR = "127.0.0.1:50051"
DEFAULT_TOKEN_TTL_S = 6 * 3600
MIN_SECRET_BYTES = 16


class ConfigError(Exception):
    """The environment asks for something the lobby cannot run with."""


@dataclass(frozen=True, slots=True)
class LobbyConfig:
    base: BaseConfig
    addr: str  # host:port of the gRPC server
    token_secret: bytes  # HMAC-SHA256 key of the player tokens
    secret_generated: bool  # no MATCH_TOKEN_SECRET: tokens die with the process
    token_ttl_s: int
    bot_key: str | None  # the bot service's shared secret; None refuses every bot join
    referee_timeout_s: float = 5.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LobbyConfig:
        env = os.environ if env is None else env
        secret_hex = env.get("MATCH_TOKEN_SECRET", "").strip()
        if secret_hex:
            try:
                secret = bytes.fromhex(secret_hex)
            except ValueError:
                raise ConfigError(
                    "MATCH_TOKEN_SECRET must be hex, e.g. `openssl rand -hex 32`"
                ) from None
            if len(secret) < MIN_SECRET_BYTES:
                raise ConfigError(
                    f"MATCH_TOKEN_SECRET must hold at least {MIN_SECRET_BYTES} bytes "
                    f"({2 * MIN_SECRET_BYTES} hex digits)"
                )
        else:
            secret = secrets.token_bytes(32)
        try:
            ttl = int(env.get("TOKEN_TTL_S", str(DEFAULT_TOKEN_TTL_S)))
        except ValueError:
            raise ConfigError("TOKEN_TTL_S must be a whole number of seconds") from None
        if ttl <= 0:
            raise ConfigError("TOKEN_TTL_S must be more than 0")
        return cls(
            base=BaseConfig.from_env(default_metrics_port=9101),
            addr=env.get("LOBBY_ADDR", DEFAULT_ADDR),
            token_secret=secret,
            secret_generated=not secret_hex,
            token_ttl_s=ttl,
            bot_key=env.get("MATCH_BOT_KEY") or None,
        )
