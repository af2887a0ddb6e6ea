"""Wrong invite codes, counted per client address: a failure budget that refills slowly.

Every JoinTable by an invite code that names no table, or an expired one, spends one unit of
its client address's budget (the peer's IP, without the port: a client cannot get a fresh
budget by opening connections). The unit is spent before the look-up and given back for a
code that opens its table, so that guesses in flight together cannot overdraw the budget.
While the budget holds less than one unit, every JoinTable by invite code from that address is
refused at once (RESOURCE_EXHAUSTED, ``retry-after-ms``), right codes too: otherwise a
guesser would learn which guess was right.

Why this makes guessing hopeless (docs/operations.md, "Limits"): a code is 12 characters of 31,
59.4 bits. At the default 10 failures a minute per address, an attacker with 10,000 addresses
tries 1,667 codes a second; over a code's whole life (1 h) that is 6.0e6 guesses, and against
100,000 live private tables the chance of hitting any is 6.0e6 x 1e5 / 31^12 = 7.6e-7.

Like the token buckets (services/lobby/limits.py), a budget left alone until it is full again
is forgotten, and at most ``max_keys`` addresses are held (past that the least recently seen
is forgotten early, which only forgives it). Pure: the clock is injected.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from services.lobby.limits import Rate

MAX_KEYS = 100_000


@dataclass(slots=True)
class _Budget:
    left: float
    at: float


class FailureBudget:
    def __init__(
        self,
        rate: Rate,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.rate = rate
        self._clock = clock
        self._max_keys = max_keys
        self._budgets: OrderedDict[str, _Budget] = OrderedDict()  # least recently seen first

    def __len__(self) -> int:
        return len(self._budgets)

    def _refilled(self, key: str, now: float) -> _Budget | None:
        budget = self._budgets.get(key)
        if budget is not None:
            gained = max(now - budget.at, 0.0) * self.rate.per_s
            budget.left, budget.at = min(self.rate.burst, budget.left + gained), now
        return budget

    def spend(self, key: str) -> float:
        """Before a code is looked up: 0.0 if ``key`` may try one, and one unit is spent
        (given back by ``refund`` if the code opens a table); else the seconds until it may
        (nothing spent). Spending first means that calls in flight together cannot overdraw."""
        if not self.rate.enabled:
            return 0.0
        now = self._clock()
        budget = self._refilled(key, now) or _Budget(self.rate.burst, now)
        self._budgets.pop(key, None)
        self._budgets[key] = budget  # the most recently seen, last
        wait = 0.0
        if budget.left < 1.0:
            wait = (1.0 - budget.left) / self.rate.per_s
        else:
            budget.left -= 1.0
        self._forget(now)
        return wait

    def refund(self, key: str) -> None:
        """The code opened a table: the unit spent on it comes back."""
        if not self.rate.enabled:
            return
        budget = self._refilled(key, self._clock())
        if budget is not None:
            budget.left = min(budget.left + 1.0, self.rate.burst)

    def _forget(self, now: float) -> None:
        while self._budgets:
            key, budget = next(iter(self._budgets.items()))
            full_at = budget.at + (self.rate.burst - budget.left) / self.rate.per_s
            if full_at > now and len(self._budgets) <= self._max_keys:
                return
            del self._budgets[key]


@dataclass(frozen=True)
class InviteRules:
    """How long a code opens its table, and the failure budget per client address."""

    ttl_ms: int  # on the system's clock (the referee's), from the table's making
    failures: FailureBudget
    now_ms: Callable[[], int]  # the system's clock, unix ms

    def expired(self, made_at_ms: int) -> bool:
        return self.now_ms() - made_at_ms > self.ttl_ms
