"""How long tables were unavailable to the players, per fault kind, and what the players saw.

A player's *outage* is what one of its calls or its Watch stream went through while something
was failing (match_chaos.player records them):

* a call (a move, a create, a start, ...): from the moment the first attempt that failed was
  sent to the moment an attempt was answered (accepted, or refused by the referee), or the
  player gave up; what each failed attempt ended with (its gRPC status, and the refusal code
  when the server said "unavailable, nothing changed");
* the Watch stream: from the moment it broke (an error, or ended before the game did) to the
  next item a resumed stream brought, so it also counts the quiet time until the next event.

A *fault window* is one fault the chaos made (match_chaos.faults): a service replica killed, or
a NATS node stopped, from the kill to its start again. An outage belongs to the latest window
that began before the player noticed it (its first failure came back: a call in flight when a
fault began fails only at its deadline) or just after (the kill is noted after the signal), and
had not ended more than ``grace_s`` (10 s) before: a survivor may take a moment to take over,
and a replica started again takes its share back (the referee's partitions move to it: "this
table's referee is changing"). Outages that belong to no window are reported as ``no fault``
(a rate limit, or a slow machine): that is the baseline.

Pure: no clock, no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

NO_FAULT = "no fault"
WATCH = "Watch"


@dataclass(frozen=True, slots=True)
class Outage:
    start: float  # monotonic seconds
    end: float
    call: str  # the rpc ("TurnTile", ...) or WATCH
    seen: tuple[str, ...]  # what each failed attempt ended with: "UNAVAILABLE", ...
    game: str = ""  # the game kind
    table_id: str = ""
    gave_up: bool = False
    example: str = ""  # one failed attempt's message, as the player got it
    failed_at: float | None = None  # when the first failure came back (None: at ``start``)

    @property
    def noticed(self) -> float:
        """When the player learnt something failed: what the outage is given to a fault by (a
        call sent just before a fault fails only when its deadline passes, 8 s later)."""
        return self.start if self.failed_at is None else self.failed_at

    @property
    def seconds(self) -> float:
        return max(0.0, self.end - self.start)


@dataclass(frozen=True, slots=True)
class Window:
    kind: str  # "kill lobby", "NATS node", ...: what the report groups by
    name: str  # the replica or node: "lobby-2", "nats-1"
    start: float  # monotonic seconds
    end: float


@dataclass
class KindReport:
    kind: str
    faults: int = 0
    down_s: float = 0.0  # the faults' windows, added up
    outages: list[Outage] = field(default_factory=list)

    @property
    def gaps(self) -> list[float]:
        return sorted(o.seconds for o in self.outages)

    @property
    def tables(self) -> int:
        return len({o.table_id for o in self.outages})

    def seen(self) -> Counter[str]:
        return Counter(s for o in self.outages for s in o.seen)

    def line(self) -> str:
        head = f"{self.kind}: "
        if self.kind != NO_FAULT:
            head += f"{counted(self.faults, 'fault')}, {self.down_s:.1f} s down in all; "
        if not self.outages:
            return head + "no player saw a failure"
        gaps = self.gaps
        calls = sum(1 for o in self.outages if o.call != WATCH)
        streams = len(self.outages) - calls
        gave_up = sum(o.gave_up for o in self.outages)
        saw = ", ".join(f"{what} x{n}" for what, n in self.seen().most_common()) or "nothing"
        example = next((o.example for o in self.outages if o.example), "")
        return (
            head + f"{counted(self.tables, 'table')}: {counted(calls, 'call')} and "
            f"{counted(streams, 'stream')} waited, gap p50 {percentile(gaps, 50):.1f} s, p99 "
            f"{percentile(gaps, 99):.1f} s, max {gaps[-1]:.1f} s"
            + (f", {gave_up} given up" if gave_up else "")
            + f"; saw {saw}"
            + (f' ("{example}")' if example else "")
        )

    def as_dict(self) -> dict[str, object]:
        gaps = self.gaps
        return {
            "kind": self.kind,
            "faults": self.faults,
            "down_s": round(self.down_s, 1),
            "outages": len(self.outages),
            "tables": self.tables,
            "p50_s": round(percentile(gaps, 50), 2) if gaps else None,
            "p99_s": round(percentile(gaps, 99), 2) if gaps else None,
            "max_s": round(gaps[-1], 2) if gaps else None,
            "seen": dict(self.seen().most_common()),
            "by_call": dict(Counter(o.call for o in self.outages).most_common()),
        }


def counted(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank percentile of sorted ``values`` (p in 0..100]; 0.0 for none."""
    if not values:
        return 0.0
    rank = max(1, math.ceil(p / 100 * len(values)))
    return values[min(rank, len(values)) - 1]


def owner(outage: Outage, windows: Sequence[Window], grace_s: float, lead_s: float) -> str:
    """The kind of the fault an outage belongs to, or NO_FAULT."""
    found: Window | None = None
    for w in windows:
        during = w.start - lead_s <= outage.noticed <= w.end + grace_s
        if during and (found is None or w.start > found.start):
            found = w
    return found.kind if found is not None else NO_FAULT


def by_fault(
    outages: Iterable[Outage],
    windows: Sequence[Window],
    grace_s: float = 10.0,
    lead_s: float = 0.5,
) -> list[KindReport]:
    """One report per fault kind the run made (in the order of their first fault), even one no
    player noticed, then NO_FAULT if any outage belongs to none."""
    reports: dict[str, KindReport] = {}
    for w in sorted(windows, key=lambda w: w.start):
        report = reports.setdefault(w.kind, KindReport(w.kind))
        report.faults += 1
        report.down_s += max(0.0, w.end - w.start)
    for outage in outages:
        kind = owner(outage, windows, grace_s, lead_s)
        reports.setdefault(kind, KindReport(kind)).outages.append(outage)
    ordered = [r for k, r in reports.items() if k != NO_FAULT]
    return ordered + ([reports[NO_FAULT]] if NO_FAULT in reports else [])
