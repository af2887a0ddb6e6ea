"""The bot's settings, read once from the environment at start-up."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from match_bus.clock import Clock
from match_bus.secretfiles import SecretFileError, read_secret
from match_bus.service import BaseConfig
from match_rules.deal import Strength

DEFAULT_METRICS_PORT = 9105
DEFAULT_LOBBY_ADDR = "127.0.0.1:50051"


class ConfigError(ValueError):
    """A setting is missing or malformed; the message says which and what to do."""


@dataclass(frozen=True, slots=True)
class BotConfig:
    base: BaseConfig
    lobby_addr: str
    bot_key: str
    poll_s: float
    pace: float  # 1.0 = human pace; smaller thinks faster (never changes the rules)
    clock: Clock  # the system's clock (REFEREE_CLOCK_RATE / _ANCHOR_MS; the wall clock in play)
    # BOT_FORCE_STRENGTH: play every game at this strength instead of the one the table's
    # BotsAssigned names (tests and operators; unset in play, where the seed decides).
    force_strength: Strength | None = None
    # MATCH_REPLICA_ID: this process among the bot's replicas (unique among the live ones; by
    # default host-pid, so a restarted bot is a new replica). Its heartbeat and seat records
    # carry it (services/bot/seats.py).
    replica_id: str = "bot"
    # MATCH_STREAM_REPLICAS: JetStream replicas of the buckets the bot creates (3 in a cluster).
    stream_replicas: int = 1
    # MATCH_CA: the CA certificate (PEM) that signed the lobby's; set, the bot speaks TLS to the
    # lobby and verifies it, as the `match` command does. Unset: plain text.
    lobby_ca: Path | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> BotConfig:
        env = os.environ if env is None else env
        key_file = env.get("MATCH_BOT_KEY_FILE", "").strip()
        if not key_file:
            raise ConfigError(
                "MATCH_BOT_KEY_FILE is not set: the bot needs the lobby's bot key to take seats "
                "as the bot (give the lobby and the bot the same file)"
            )
        try:
            key = read_secret(Path(key_file)).decode().strip()
        except (SecretFileError, OSError) as error:
            raise ConfigError(str(error)) from None
        if not key:
            raise ConfigError(f"MATCH_BOT_KEY_FILE {key_file} is empty")
        poll_s = _positive(env, "BOT_POLL_S", 0.5)
        pace = _positive(env, "BOT_PACE", 1.0)
        force = _strength(env, "BOT_FORCE_STRENGTH")
        base = BaseConfig.from_env(default_metrics_port=DEFAULT_METRICS_PORT)
        ca = env.get("MATCH_CA", "").strip()
        if ca and not (Path(ca).is_file() and os.access(ca, os.R_OK)):
            raise ConfigError(
                f"MATCH_CA={ca} cannot be read: it must be the PEM file of the CA that signed "
                "the lobby's certificate (or unset, for a lobby that speaks plain text)"
            )
        try:
            clock = Clock.from_env(env)
        except ValueError as error:
            raise ConfigError(str(error)) from None
        return cls(
            base=base,
            lobby_addr=env.get("LOBBY_ADDR") or DEFAULT_LOBBY_ADDR,
            bot_key=key,
            poll_s=poll_s,
            pace=pace,
            clock=clock,
            force_strength=force,
            replica_id=env.get("MATCH_REPLICA_ID") or f"{socket.gethostname()}-{os.getpid()}",
            stream_replicas=_whole(env, "MATCH_STREAM_REPLICAS", 1),
            lobby_ca=Path(ca) if ca else None,
        )


def _positive(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if not value > 0:
        raise ConfigError(f"{name} must be greater than 0, got {raw!r}")
    return value


def _whole(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value < 1:
        raise ConfigError(f"{name} must be at least 1, got {raw!r}")
    return value


def _strength(env: Mapping[str, str], name: str) -> Strength | None:
    raw = (env.get(name) or "").strip().lower()
    if raw in ("", "off", "none"):
        return None
    try:
        return Strength(raw)
    except ValueError:
        choices = ", ".join(s.value for s in Strength)
        raise ConfigError(f"{name} must be one of {choices} (or unset), got {raw!r}") from None
