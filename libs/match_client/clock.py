"""An estimate of the referee's clock from the times it sends, on the conservative side.

Every time the server sends (``server_time_ms``, an event's ``at``) was taken before the message
reached us, so ``server_ms - local_ms_at_receipt`` is a lower bound of the offset between the two
clocks. Keeping the largest bound seen gives an estimate of the server's now that is never ahead
of the real one: waiting until ``now() >= t`` guarantees the server's clock has passed ``t`` too.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class ServerClock:
    """``local_ms`` is our clock (the wall clock by default); ``rate`` is how many server ms pass
    per ms of the wall (1 in play; the end-to-end tests run the system clock faster and pass
    ``match_bus.clock.Clock.from_env()``'s ``now_ms`` and ``rate``)."""

    def __init__(self, local_ms: Callable[[], int] = wall_ms, rate: float = 1.0) -> None:
        if rate <= 0:
            raise ValueError("the clock rate must be positive")
        self._local_ms = local_ms
        self.rate = rate
        self._offset: int | None = None

    @property
    def synced(self) -> bool:
        return self._offset is not None

    def observe(self, server_ms: int, local_ms: int | None = None) -> None:
        """Note a server time that was just received (``local_ms``: when, by our clock)."""
        if server_ms <= 0:
            return
        local = self._local_ms() if local_ms is None else local_ms
        bound = server_ms - local
        if self._offset is None or bound > self._offset:
            self._offset = bound

    def now(self) -> int:
        """The server's clock now, never ahead of it (our clock until a time was observed)."""
        return self._local_ms() + (self._offset or 0)

    def local_delay_s(self, server_ms: int) -> float:
        """Wall seconds from now until the server's clock reaches ``server_ms`` (0 if passed)."""
        return max(server_ms - self.now(), 0) / self.rate / 1000

    def server_ms(self, wall_ms: float) -> int:
        """How many server ms pass in ``wall_ms`` ms of the wall."""
        return round(wall_ms * self.rate)
