"""A pool everybody shares (connections to an edge, the tables a lobby follows for Watch, the
bot's seats), shared fairly between client addresses (services/peers.py) so that no small group
of them can take it whole (docs/operations.md, "Limits")."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FairShare:
    """What one client address may hold of a pool everybody shares (the tables a lobby follows
    for Watch, the bot's seats), so that no small group of addresses can take it whole.

    An address may hold the whole ``per_address`` while at most half the pool is taken; past
    that, its share shrinks in step with what is left, down to nothing. An address that holds
    nothing may always take what it needs while the pool has it: a newcomer's first table's
    Watch and bots. So N addresses, each taking all it may, hold about
    ``max(N, 2 N p C / (C + 2 N p))`` of a pool of ``C`` with ``p`` each: 45 addresses at 10
    each leave about 123 of 400 free, and a newcomer gets in; only about as many addresses as
    the pool has room for can fill it.
    ``capacity`` 0: no pool cap (nor any share of it); ``per_address`` 0: no cap per address."""

    capacity: int
    per_address: int

    def share(self, used: int) -> float:
        """What one address may hold while ``used`` of the pool is taken."""
        if not self.per_address:
            return math.inf
        if not self.capacity:
            return float(self.per_address)
        free = max(self.capacity - used, 0)
        return self.per_address * min(1.0, 2 * free / self.capacity)

    def allows(self, held: int, need: int, used: int) -> bool:
        """May an address holding ``held`` take ``need`` more while ``used`` is taken?"""
        if self.capacity and used + need > self.capacity:
            return False
        if self.per_address and held + need > self.per_address:
            return False
        if held == 0:
            return True  # a newcomer: its first claim, while the pool has it
        return held + need <= self.share(used)
