"""The referee's settings and its clock."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from match_bus.clock import Clock
from match_bus.service import BaseConfig
from match_bus.settings import decimal, whole


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    base: BaseConfig
    fill_wait_ms: int  # how long an open table waits for people before the bot may fill it
    clock_rate: float  # 1.0 in play; tests may run the referee's clock faster
    clock_anchor_ms: int
    dealer_timeout_s: float
    lease_ttl_s: float  # a partition's lease term: how long a dead replica's tables wait
    forget_after_s: float  # how long a finished game stays in memory (then: read from the log)
    # How long a table waits for its game to start before the referee closes it (TableExpired),
    # in referee-clock ms; written into each TableCreated as its expires_at_ms.
    table_expiry_ms: int = 600_000
    # Group commit: a table's records after its first go in its partition's frames (one fsync
    # for every record judged while the frame before was stored: services/referee/frames.py).
    # REFEREE_FRAMES=0 appends every record alone, as versions before frames did; switching
    # either way takes every referee replica stopped first (docs/operations.md, "Upgrading").
    frames: bool = True
    # How often a holder writes where each partition's live tables begin on the log: a replica
    # taking the partition on reads from there (services/referee/marks.py).
    mark_every_s: float = 30.0
    # How long a game with no deadline (a solo game its player left) may sit idle before it
    # stops holding its partition's mark; a command for it lowers the mark again (marks.py).
    mark_idle_s: float = 600.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> RefereeConfig:
        """The referee's settings; ValueError, naming the variable, for one it cannot use."""
        env = os.environ if env is None else env
        clock = Clock.from_env(env)
        return cls(
            base=BaseConfig.from_env(default_metrics_port=9102),
            fill_wait_ms=whole(env, "REFEREE_FILL_WAIT_MS", 20000, 0, "milliseconds"),
            clock_rate=clock.rate,
            clock_anchor_ms=clock.anchor_ms,
            dealer_timeout_s=decimal(env, "REFEREE_DEALER_TIMEOUT_S", 3.0, 0, "seconds", True),
            lease_ttl_s=decimal(env, "REFEREE_LEASE_TTL_S", 5.0, 0, "seconds", True),
            forget_after_s=decimal(env, "REFEREE_FORGET_AFTER_S", 60.0, 0, "seconds", True),
            table_expiry_ms=whole(env, "REFEREE_TABLE_EXPIRY_MS", 600_000, 1, "milliseconds"),
            frames=_flag(env, "REFEREE_FRAMES", default=True),
            mark_every_s=decimal(env, "REFEREE_MARK_EVERY_S", 30.0, 0, "seconds", True),
            mark_idle_s=decimal(env, "REFEREE_MARK_IDLE_S", 600.0, 0, "seconds", True),
        )


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    text = env.get(name, "").strip().lower()
    if not text:
        return default
    if text in ("0", "false", "no", "off"):
        return False
    if text in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"{name} must be 1 or 0 (on or off), not {text!r}")
