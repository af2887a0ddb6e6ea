"""What one client address, and everybody together, may hold: tables waiting for their game to
start, and the bot seats of tables made from the address (the bot fills a table whole).

The counts come from the table listing (services/lobby/directory.py), which follows the log, so
every lobby replica sees the whole system's waiting tables and bot seats. Which address made a
table is known only to the lobby replica that made it, in memory (an address is not something
to write into a log the ledger publishes): a table made through another replica, or before a
restart, counts for the whole system but not for its address. Like the rate limits, each replica
keeps its own per-address view.

The bot seats are a pool shared fairly between the addresses that made the tables
(services.lobby.limits.FairShare): an address may have ``bots_per_address`` seats while at most
half the pool is taken, less as it fills, and an address with no bot seat may always have its
first table filled while the pool has the seats. So a few dozen addresses cannot leave "every bot
is busy" to everybody else.

Over a limit a call is RESOURCE_EXHAUSTED with ``retry-after-ms``: a count goes down when a
table starts, expires or its game ends, which nobody can time, so the wait is a fixed hint.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc  # type: ignore[import-untyped]

from match.v1 import common_pb2
from services.fairshare import FairShare
from services.lobby import metrics
from services.lobby.directory import TableDirectory
from services.lobby.errors import RETRY_AFTER_KEY, ApiError

CAP_RETRY_MS = 5_000  # the retry-after-ms of a count limit: a hint, see the module docstring
PRUNE_EVERY = 1_000  # creations between sweeps of the address book
# A table admitted for bots holds its seats until the bot sits down, or this long (the bot may
# be down): bots that have not sat yet still count, so a burst of starts cannot overshoot.
CLAIM_TTL_S = 30.0


@dataclass(frozen=True, slots=True)
class Caps:
    """0 turns a cap off."""

    waiting_per_address: int = 0  # tables waiting for their game, made from one address
    waiting_max: int = 0  # tables waiting for their game, in the whole system
    bots_per_address: int = 0  # bot seats at the tables made from one address
    bots_max: int = 0  # bot seats in the whole system


def _exhausted(kind: str, message: str) -> ApiError:
    metrics.LIMITED.labels(kind).inc()
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"{message}; try again in {CAP_RETRY_MS // 1000} s",
        trailers=((RETRY_AFTER_KEY, str(CAP_RETRY_MS)),),
        quiet=True,
    )


class TableQuotas:
    def __init__(
        self,
        directory: TableDirectory,
        caps: Caps,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._directory = directory
        self._clock = clock
        self._claims: dict[str, tuple[int, float]] = {}  # table id -> (bot seats, admitted at)
        self.caps = caps
        self._bots = FairShare(caps.bots_max, caps.bots_per_address)
        self._made_by: dict[str, str] = {}  # table id -> the address that made it
        self._tables_of: dict[str, set[str]] = {}  # address -> its tables not over yet
        self._since_prune = 0

    def __len__(self) -> int:
        return len(self._made_by)

    def _live(self, address: str) -> set[str]:
        """The address's tables whose game is not over (pruned as it goes)."""
        tables = self._tables_of.get(address)
        if not tables:
            return set()
        for table_id in [t for t in tables if self._directory.is_over(t)]:
            tables.discard(table_id)
            self._made_by.pop(table_id, None)
        if not tables:
            del self._tables_of[address]
        return tables

    def _waiting_of(self, address: str) -> int:
        # A table made a moment ago may not be in the listing yet: it is waiting.
        return sum(
            1
            for t in self._live(address)
            if self._directory.is_waiting(t) or not self._directory.known(t)
        )

    def admit_create(self, address: str) -> None:
        """RESOURCE_EXHAUSTED when one more waiting table is over a cap."""
        caps = self.caps
        if caps.waiting_max and self._directory.waiting() >= caps.waiting_max:
            raise _exhausted(
                "waiting_tables",
                f"the lobby holds its most tables waiting for players ({caps.waiting_max}): "
                "join one of them (ListTables) instead",
            )
        if caps.waiting_per_address and self._waiting_of(address) >= caps.waiting_per_address:
            raise _exhausted(
                "address_tables",
                f"your address has {caps.waiting_per_address} tables waiting for players: start "
                "one (StartTable), or wait until one starts or expires",
            )

    def created(self, table_id: str, address: str) -> None:
        """Remember who made the table (after the referee made it)."""
        self._made_by[table_id] = address
        self._tables_of.setdefault(address, set()).add(table_id)
        self._since_prune += 1
        if self._since_prune >= PRUNE_EVERY:
            self._since_prune = 0
            for known in list(self._tables_of):
                self._live(known)

    def _unseated(self, table_id: str) -> int:
        """Bot seats admitted at the table that no bot has taken yet."""
        claim = self._claims.get(table_id)
        return 0 if claim is None else max(claim[0] - self._directory.bot_seats(table_id), 0)

    def _pending(self) -> int:
        """Bot seats admitted and not yet taken, in all (claims done or stale are dropped)."""
        now, total = self._clock(), 0
        for table_id, (_, at) in list(self._claims.items()):
            left = self._unseated(table_id)
            if not left or now - at > CLAIM_TTL_S or self._directory.is_over(table_id):
                del self._claims[table_id]
            else:
                total += left
        return total

    def _claim(self, table_id: str, need: int) -> None:
        if need:
            self._claims[table_id] = (need, self._clock())

    def admit_bots(self, table_id: str) -> None:
        """RESOURCE_EXHAUSTED when bots filling the table's free seats would go over a budget.
        A table admitted already (or where a bot already sat) was admitted whole: its other
        seats pass. Seats admitted count from then on, before the bot sits down."""
        directory = self._directory
        if directory.bot_seats(table_id) or table_id in self._claims:
            return
        table = directory.get(table_id)
        if table is None and table_id in self._made_by and not directory.is_over(table_id):
            # Made here a moment ago, and the listing has not folded it yet: its free seats are
            # not known, so its bots cannot be counted. Let through, its start would take bots
            # past every budget (the listing lags under load); the caller asks again.
            raise ApiError(
                grpc.StatusCode.UNAVAILABLE,
                f"table {table_id} was made a moment ago and this lobby's listing has not caught "
                "up with it yet, so its bots cannot be counted: ask again with the same request id",
            )
        if table is None or table.visibility != common_pb2.VISIBILITY_OPEN:
            return  # the referee answers (unknown, expired, private: no bot there)
        need = max(table.seats - len(table.taken), 0)
        caps = self.caps
        in_use = directory.bot_seats_in_use() + self._pending()
        if caps.bots_max and in_use + need > caps.bots_max:
            raise _exhausted(
                "bots",
                f"every bot is busy ({caps.bots_max} seats): the bot fills this table when "
                "games end, or invite people",
            )
        address = self._made_by.get(table_id)
        if address is None:
            self._claim(table_id, need)
            return  # made through another replica or before a restart: the pool's cap only
        held = sum(
            directory.bot_seats(t) + self._unseated(t) for t in self._live(address) if t != table_id
        )
        if self._bots.allows(held, need, in_use):
            self._claim(table_id, need)
            return
        if caps.bots_per_address and held + need > caps.bots_per_address:
            raise _exhausted(
                "address_bots",
                f"the tables made from this table's address already have {held} of their "
                f"{caps.bots_per_address} bot seats: the bot fills this table when one of "
                "their games ends",
            )
        share = int(self._bots.share(in_use))
        raise _exhausted(
            "address_bots_share",
            f"the bot is busy: {in_use} of its {caps.bots_max} seats are taken, and while so "
            f"many are, the tables made from one address may have {share} bot seats (this "
            f"table's address has {held}); the bot fills this table when games end",
        )
