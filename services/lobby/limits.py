"""Rate limits: one token bucket per key (a player, a connection), on an injected clock.

A bucket holds at most ``burst`` tokens and gains ``per_s`` tokens a second; a call takes one.
A call that finds less than one token is refused, takes nothing, and is told how long until a
token is there. A bucket left alone until it is full again is the same as a new one, so it is
dropped: the limiter holds only the keys seen in the last ``burst / per_s`` seconds (and never
more than ``max_keys``: past that the least recently used key is dropped early, which only
forgives it).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

MAX_KEYS = 100_000


@dataclass(frozen=True, slots=True)
class Rate:
    per_s: float  # tokens gained per second; 0 turns the limit off
    burst: float  # the bucket's size: calls allowed at once after a quiet spell; 0: off

    @property
    def enabled(self) -> bool:
        return self.per_s > 0 and self.burst > 0


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float  # clock reading when ``tokens`` was right


class Limiter:
    """Token buckets by key. ``take`` is the operation (``wait_s`` looks without taking,
    ``debit`` and ``give_back`` are for services.lobby.invites); none blocks."""

    def __init__(
        self,
        rate: Rate,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.rate = rate
        self._clock = clock
        self._max_keys = max_keys
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()  # least recently used first

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> float:
        """0.0 if the call may go ahead (a token was taken); else the seconds until one is
        there (nothing was taken)."""
        if not self.rate.enabled:
            return 0.0
        bucket = self._refilled(key)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate.per_s

    def wait_s(self, key: str) -> float:
        """What ``take`` would answer now, taking nothing: 0.0 if a token is there, else the
        seconds until one is."""
        if not self.rate.enabled:
            return 0.0
        bucket = self._buckets.get(key)
        if bucket is None:
            return 0.0  # never seen, or forgotten because it was full
        tokens = min(
            self.rate.burst,
            bucket.tokens + max(self._clock() - bucket.at, 0.0) * self.rate.per_s,
        )
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate.per_s

    def debit(self, key: str) -> None:
        """Take a token whether one is there or not: below zero, the wait only grows."""
        if self.rate.enabled:
            self._refilled(key).tokens -= 1.0

    def _refilled(self, key: str) -> _Bucket:
        """The key's bucket as of now (a new one is full), now the most recently used."""
        now = self._clock()
        self._evict(now)
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            bucket = _Bucket(self.rate.burst, now)
        else:
            bucket.tokens = min(
                self.rate.burst, bucket.tokens + max(now - bucket.at, 0.0) * self.rate.per_s
            )
            bucket.at = now
        self._buckets[key] = bucket  # the most recently used, last
        return bucket

    def give_back(self, key: str) -> None:
        """The token ``key`` took last comes back (the call it paid for turned out free)."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(bucket.tokens + 1.0, self.rate.burst)

    def _evict(self, now: float) -> None:
        """Drop the least recently used buckets that are full by ``now`` (or over the cap)."""
        while self._buckets:
            key, bucket = next(iter(self._buckets.items()))
            full_at = bucket.at + (self.rate.burst - bucket.tokens) / self.rate.per_s
            if full_at > now and len(self._buckets) < self._max_keys:
                return
            del self._buckets[key]


def retry_after_ms(wait_s: float) -> int:
    """Whole milliseconds to wait, rounded up, at least 1."""
    return max(1, math.ceil(wait_s * 1000))


# --- streams open at once ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WatchLimits:
    """Caps on the Watch streams one lobby replica holds open at once; 0 turns one off.

    A stream is counted from the moment it is admitted until it ends, against its player (the
    token's), its client address (without the port; an IPv6 address by its /64) and the
    replica. ``tables`` caps the tables the replica follows at once: one feed each, shared by
    every watcher of the table (services.lobby.fanout), a few hundred records in memory."""

    per_player: int = 4  # a client that lost its connection may hold a stale one a while
    per_address: int = 64  # people behind one NAT share an address
    per_lobby: int = 2000
    # per_lobby's 2000 streams are 1,000 two-seat tables over Play, each seat's view following
    # its table; a copy of the log that does not push holds this replica to OLD_COPY_TABLES
    tables: int = 1000
    linger_s: float = 5.0  # a table's feed outlives its last watcher this long
    retry_after_ms: int = 2000  # what a refused stream is told to wait
    # distinct tables one address may have followed (a FairShare of ``tables``): another
    # table's Watch is refused past its share, a table somebody already follows costs nothing
    tables_per_address: int = 16


class Counts:
    """How many of something each key holds now, at most ``cap`` (0: no cap). A key at zero is
    dropped, so the map holds only keys that hold something."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._held: dict[str, int] = {}

    def __getitem__(self, key: str) -> int:
        return self._held.get(key, 0)

    def __len__(self) -> int:
        return len(self._held)

    def full(self, key: str) -> bool:
        return self.cap > 0 and self[key] >= self.cap

    def add(self, key: str) -> None:
        self._held[key] = self[key] + 1

    def remove(self, key: str) -> None:
        left = self[key] - 1
        if left > 0:
            self._held[key] = left
        else:
            self._held.pop(key, None)
