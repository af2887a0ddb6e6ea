"""The lobby's open-file budget: both edges' connection caps, and a reserve for everything else
(NATS, the Watch feeds' subscriptions, log and metrics sockets), must fit RLIMIT_NOFILE, so that
no flood of connections on one edge leaves the process unable to accept on the other.

At start the lobby raises its soft limit as far as it needs (up to the hard limit); when even
the hard limit cannot hold the caps it lowers both caps in proportion, saying so in its log, and
it refuses to start when not even MIN_CONNECTIONS per edge would fit."""

from __future__ import annotations

import resource
from dataclasses import dataclass

MIN_CONNECTIONS = 16  # per edge: below this the lobby refuses to start


class FileBudgetError(Exception):
    """RLIMIT_NOFILE cannot hold even the smallest caps."""


@dataclass(frozen=True, slots=True)
class Budget:
    web: int  # the web edge's total connection cap (0: the edge is off)
    grpc: int  # the gRPC edge's
    soft_limit: int  # the RLIMIT_NOFILE soft limit to run with
    note: str = ""  # what was lowered, for the log ("": nothing)


def fit(web: int, grpc: int, reserve: int, soft: int, hard: int) -> Budget:
    """The caps and soft limit to run with, given the wanted caps (``web`` 0: no web edge),
    the ``reserve`` of files for everything else and the current limits (``hard`` may be
    RLIM_INFINITY). FileBudgetError when MIN_CONNECTIONS per edge would not fit."""
    edges = [cap for cap in (web, grpc) if cap]
    need = sum(edges) + reserve
    ceiling = need if hard == resource.RLIM_INFINITY else min(hard, need)
    if need <= max(soft, ceiling):
        return Budget(web, grpc, max(soft, need))
    room = ceiling - reserve
    if room < MIN_CONNECTIONS * len(edges):
        raise FileBudgetError(
            f"the open-file limit (RLIMIT_NOFILE, hard {hard}) cannot hold {reserve} files for "
            f"the lobby's own use and {MIN_CONNECTIONS} connections per edge: raise it "
            f"(`ulimit -n {need}`, or LimitNOFILE= in a systemd unit), or lower "
            "LOBBY_FD_RESERVE"
        )
    scale = room / sum(edges)
    new_web = max(MIN_CONNECTIONS, int(web * scale)) if web else 0
    new_grpc = max(MIN_CONNECTIONS, int(grpc * scale))
    note = (
        f"the open-file limit (hard {hard}) holds {room} connections besides the lobby's "
        f"{reserve} other files, not the {sum(edges)} asked: the web edge takes at most "
        f"{new_web} connections (asked {web}) and the gRPC edge {new_grpc} (asked {grpc}); "
        f"raise the limit to {need} to have them all"
    )
    return Budget(new_web, new_grpc, ceiling, note)


def apply(web: int, grpc: int, reserve: int) -> Budget:
    """``fit`` for this process, its soft limit raised as the budget says."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    budget = fit(web, grpc, reserve, soft, hard)
    if budget.soft_limit != soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (budget.soft_limit, hard))
    return budget
