"""The system's clock, in unix ms.

At rate 1 it is the wall clock. The end-to-end tests run the whole system faster (rate 10: a
120 s board lasts 12 s of wall time): every process that times anything (the referee, the bot,
scripted players) reads the same rate and anchor from REFEREE_CLOCK_RATE and
REFEREE_CLOCK_ANCHOR_MS, so they agree on what time it is and a restarted referee reads the
same clock. The rules never see the difference: they only get ``now``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from match_bus.settings import decimal, whole


class Clock:
    """The referee's own clock, in unix ms. At ``rate`` 1 it is the wall clock; a test may run
    it faster (rate 10: a 120 s board lasts 12 s of wall time) from a fixed anchor, so that a
    restarted referee reads the same clock."""

    def __init__(self, rate: float = 1.0, anchor_ms: int = 0) -> None:
        if rate <= 0:
            raise ValueError("the clock rate must be positive")
        self.rate = rate
        self.anchor_ms = anchor_ms

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Clock:
        """The clock REFEREE_CLOCK_RATE and REFEREE_CLOCK_ANCHOR_MS set (every process reads
        them here, so all agree); ValueError, naming the variable, for one it cannot use."""
        env = os.environ if env is None else env
        return cls(
            decimal(env, "REFEREE_CLOCK_RATE", 1.0, 0, above=True),
            whole(env, "REFEREE_CLOCK_ANCHOR_MS", 0, 0, "milliseconds"),
        )

    def now_ms(self) -> int:
        wall = time.time() * 1000
        return int(self.anchor_ms + (wall - self.anchor_ms) * self.rate)

    def wall_seconds(self, game_ms: int) -> float:
        """How long ``game_ms`` of this clock takes on the wall."""
        return max(game_ms, 0) / self.rate / 1000
