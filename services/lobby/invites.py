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

from collections.abc import Callable
from dataclasses import dataclass

from services.lobby.limits import Limiter


class FailureBudget(Limiter):
    """A token bucket per client address (services/lobby/limits.py) that also gives a unit
    back: ``spend`` before a code is looked up (0.0, or the seconds until one may try, nothing
    spent), ``refund`` once the code opened a table. Spending first means that calls in flight
    together cannot overdraw."""

    def spend(self, key: str) -> float:
        return self.take(key)

    def refund(self, key: str) -> None:
        self.give_back(key)


@dataclass(frozen=True)
class InviteRules:
    """How long a code opens its table, and the failure budget per client address."""

    ttl_ms: int  # on the system's clock (the referee's), from the table's making
    failures: FailureBudget
    now_ms: Callable[[], int]  # the system's clock, unix ms

    def expired(self, made_at_ms: int) -> bool:
        return self.now_ms() - made_at_ms > self.ttl_ms
