"""Where a turn's CPU goes, hop by hop: each profiled process's py-spy samples (collapsed
stacks) sorted into the hops of a turn (docs/architecture.md, "A turn, hop by hop"), and each
hop's share of the process's CPU per turn measured in the same phase.

A sample goes to the first hop whose frames it holds (``HOPS``, in order: the most specific
first); a sample with no Python frame of ours is the process's C side (the event loop, gRPC's
core and threads, socket writes), which serves every hop of that process and cannot be split by
a Python profiler. Frame names are matched as substrings of py-spy's ``function (file:line)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

# (process, hop, frames: any one of them puts a sample in the hop), the most specific first.
# The numbers are the hops of docs/architecture.md, "A turn, hop by hop".
HOPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("lobby", "3. the NATS request to the referee", ("Referee.game (",)),
    ("lobby", "2. the edge: the leak check", ("GameServicer._may_see",)),
    ("lobby", "views: folds, feeds, answers", ("_run_view", "services/lobby/fanout.py")),
    ("lobby", "2. the edge: token, limits, validation, copies", ("GameServicer._answer",)),
    ("lobby", "2. the edge: token, limits, validation, copies", ("GameServicer._read",)),
    ("lobby", "the listing (every frame's headers)", ("TableDirectory.", "follow_copy")),
    ("lobby", "1. the seat's stream (gRPC glue)", ("lobby/edge.py", "_bound_stream")),
    ("lobby", "1. the seat's stream (gRPC glue)", ("GameServicer.play",)),
    ("lobby", "the NATS client (reading, writing)", ("nats/aio/", "nats/js/")),
    ("lobby", "1. gRPC's threads", ("threading.py",)),
    ("referee", "5. the append (frame, fence, ack)", ("FrameWriter.", "Referee._append")),
    ("referee", "4. the rules (decide, evolve)", ("decide_steps", "evolve (")),
    ("referee", "4. judging: decode, numbering, redaction, reply, timers", ("Referee._game",)),
    ("referee", "4. judging: decode, numbering, redaction, reply, timers", ("Referee._pass_time",)),
    ("referee", "4. judging: decode, numbering, redaction, reply, timers", ("Referee._on_timer",)),
    ("referee", "3. the reply to the lobby", ("Msg.respond",)),
    ("referee", "3. receiving the command", ("Referee._handle", "Referee._on_message")),
    ("referee", "the NATS client (reading, writing)", ("nats/aio/", "nats/js/")),
    ("ledger", "the store (SQLite, the Merkle leaf)", ("ledger/store.py", "merkle.py")),
    ("ledger", "taking the records (unpacking, batches, acks)", ("Ingest.",)),
    ("ledger", "the NATS client (reading, acks)", ("nats/aio/", "nats/js/")),
    ("ledger", "its threads (the store's worker, SQLite)", ("threading.py",)),
)
C_SIDE = "the event loop and C (uvloop, gRPC core, sockets)"


def split(collapsed: str, process: str) -> dict[str, float]:
    """Each hop's share (%) of ``process``'s samples in py-spy's collapsed output; the shares
    add up to 100 (within rounding)."""
    rules = [(hop, frames) for proc, hop, frames in HOPS if proc == process]
    counts: Counter[str] = Counter()
    total = 0
    for line in collapsed.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        hop = next((h for h, frames in rules if any(f in stack for f in frames)), None)
        counts[hop or _unnamed(stack)] += count
    return {hop: round(100 * n / total, 1) for hop, n in counts.most_common()} if total else {}


def _unnamed(stack: str) -> str:
    """A sample no hop claims: the C side when its innermost frame is the loop's own run (no
    Python of ours below it), else "other"."""
    last = stack.rsplit(";", 1)[-1]
    return C_SIDE if "runners.py" in last or "uvloop" in last else "other"


def per_turn(shares: Mapping[str, float], cpu_us_per_turn: float) -> dict[str, int]:
    """Each hop's microseconds of the process's CPU per turn."""
    return {hop: round(cpu_us_per_turn * pct / 100) for hop, pct in shares.items()}


def of_phase(
    profile: Mapping[str, object], phase: Mapping[str, object]
) -> dict[str, dict[str, int]]:
    """Each profiled process's hops in microseconds per turn: its ``hops_pct`` (from the
    profile's summary) times its CPU per turn in the phase (``cpu_s`` over ``turns``)."""
    turns = phase.get("turns")
    cpu_s = phase.get("cpu_s")
    if not isinstance(turns, int) or not turns or not isinstance(cpu_s, Mapping):
        return {}
    out: dict[str, dict[str, int]] = {}
    for process, summary in profile.items():
        shares = summary.get("hops_pct") if isinstance(summary, Mapping) else None
        seconds = cpu_s.get(process)
        if isinstance(shares, Mapping) and isinstance(seconds, (int, float)):
            out[process] = per_turn(shares, seconds * 1e6 / turns)
    return out
