"""Wrong invite codes, counted per client address: a failure budget that refills slowly.

Only a code that opens nothing (no table has it, or its table's code has expired) costs its
client address one unit of the budget (the peer's IP, without the port: a client cannot get a
fresh budget by opening connections). A right code costs nothing, so people behind one address
(a venue behind one NAT) may all join their friend's table at once. While the budget holds less
than one unit, every JoinTable by invite code from that address is refused at once
(RESOURCE_EXHAUSTED, ``retry-after-ms``), right codes too: otherwise a guesser would learn which
guess was right.

Why this makes guessing hopeless (docs/operations.md, "Limits"): a code is 12 characters of 31,
59.4 bits. At the default 10 failures a minute per address, an attacker with 10,000 addresses
tries 1,667 codes a second; over a code's whole life (1 h) that is 6.0e6 guesses, and against
100,000 live private tables the chance of hitting any is 6.0e6 x 1e5 / 31^12 = 7.6e-7.

Exact under concurrency (``FailureBudget.guess``). The lobby answers many calls at once, and a
guess's answer tells its caller whether the code was right: so the budget must have a unit for
every wrong guess whose answer goes out, however many are in flight together. Charging a wrong
code only after its look-up, on a budget merely checked before it, would not do: the look-up
may wait for the listing to catch up (``TableDirectory.sync``), and 1,000 guesses sent together
would all pass the check while those waits are under way, and all be answered. So:

- A guess goes ahead only when a unit is free. The check and the look-up in the listing run
  without yielding to the event loop, so nothing can spend that unit between them: a wrong code
  found so is charged there and then (``debit``), a right one is never charged.
- A code the listing does not know yet must wait for it to catch up, and the unit is held across
  that wait (taken from the bucket): kept if the code still opens nothing, given back if it
  opens a table. Guesses in flight together can therefore never hold or spend more units than
  the bucket had.
- When no unit is free but some are held by look-ups under way, a guess waits for them to end
  (or for the budget to refill) instead of being refused: held units of right codes come back,
  so a crowd whose codes are all right is not refused for having caught the listing behind. Only
  when nothing is held and less than one unit is there is a guess refused, whatever its code.

Like the token buckets (services/lobby/limits.py), a budget left alone until it is full again
is forgotten, and at most ``max_keys`` addresses are held (past that the least recently seen
is forgotten early, which only forgives it). The clock is injected.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from services.lobby.errors import ListingBehind, too_many_wrong_codes
from services.lobby.limits import MAX_KEYS, Limiter, Rate, retry_after_ms


class Guess:
    """One invite code being tried (``FailureBudget.guess``): ``hold`` before awaiting."""

    def __init__(self, budget: FailureBudget, key: str) -> None:
        self._budget = budget
        self._key = key
        self.held = False

    def hold(self) -> None:
        """Take the free unit now, before the first ``await`` of the look-up: the code's answer
        is not known yet, and the guess must keep its unit while it is not (see the module)."""
        if not self.held:
            self._budget._hold(self._key)
            self.held = True


class FailureBudget(Limiter):
    """A token bucket per client address (services/lobby/limits.py) spent only by codes that
    open nothing, and exact under concurrency (the module explains how)."""

    def __init__(
        self,
        rate: Rate,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        super().__init__(rate, clock, max_keys)
        self._held: dict[str, int] = {}  # address -> units held by look-ups under way
        self._settled: dict[str, asyncio.Event] = {}  # set when one of those ends

    def held(self, key: str) -> int:
        return self._held.get(key, 0)

    @contextlib.asynccontextmanager
    async def guess(self, key: str) -> AsyncIterator[Guess]:
        """Try one invite code from ``key``. Entering waits while held units may come back,
        then refuses (RESOURCE_EXHAUSTED, ``retry-after-ms``) unless a unit is free; the block
        looks the code up with no ``await`` before ``Guess.hold`` and raises if the code opens
        nothing. Leaving by an exception charges the unit (the one held, or one taken now),
        except ``ListingBehind`` (the code could not be looked up: the unit comes back);
        leaving normally gives a held unit back. A right code the listing knows at once never
        touches the bucket."""
        while True:
            wait = self.wait_s(key)
            if not wait:
                break
            if not self.held(key):
                raise too_many_wrong_codes(retry_after_ms(wait))
            settled = self._settled.setdefault(key, asyncio.Event())
            with contextlib.suppress(TimeoutError):  # refilled meanwhile: look again
                await asyncio.wait_for(settled.wait(), wait)
        # A unit is free from here until the block's first await (it holds one before that).
        attempt = Guess(self, key)
        try:
            yield attempt
        except ListingBehind:
            if attempt.held:  # not known yet whether the code opens anything: nothing charged
                self.give_back(key)
            raise
        except BaseException:
            if not attempt.held:
                self.debit(key)  # a code the listing knew, and it opens nothing: charged now
            raise  # a held unit stays spent
        else:
            if attempt.held:
                self.give_back(key)
        finally:
            if attempt.held:
                self._release(key)

    def _hold(self, key: str) -> None:
        if self.rate.enabled:
            self.debit(key)
            self._held[key] = self.held(key) + 1

    def _release(self, key: str) -> None:
        if not self.rate.enabled:
            return
        left = self.held(key) - 1
        if left > 0:
            self._held[key] = left
        else:
            self._held.pop(key, None)
        settled = self._settled.pop(key, None)
        if settled is not None:
            settled.set()  # the guesses waiting look again


@dataclass(frozen=True)
class InviteRules:
    """How long a code opens its table, and the failure budget per client address."""

    ttl_ms: int  # on the system's clock (the referee's), from the table's making
    failures: FailureBudget
    now_ms: Callable[[], int]  # the system's clock, unix ms

    def expired(self, made_at_ms: int) -> bool:
        return self.now_ms() - made_at_ms > self.ttl_ms
