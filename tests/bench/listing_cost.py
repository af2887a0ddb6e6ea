"""``python -m tests.bench.listing_cost [TABLES]`` (not a test): the lobby's table listing's CPU
per record, the same log read with the referee's fact headers and read the old way (no headers:
every record decoded and folded with the game's rules, as a log written before them is), in one
process, the two ways alternating over 15 rounds (docs/performance.md).

It plays TABLES (12) solo Concentration tables of 24 cards through a real referee and dealer to
their end, then folds every record of the log into fresh TableDirectory objects, each way timed
with time.process_time."""

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nats

from match_bus import subjects
from match_launch.stack import Stack
from services.lobby.directory import TableDirectory
from tests.services.test_listing_facts import play_solo_to_its_end, stored
from tests.services.test_referee_games import create, table_cmd


async def solo_log(tables: int) -> list[Any]:
    """The log's messages (headers included) after ``tables`` solo Concentration tables of 24
    cards played to their end through a real referee and dealer."""
    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(
            Path(tmp) / "stack",
            services=("dealer", "referee"),
            env={
                "REFEREE_CLOCK_RATE": "10",
                "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            },
        )
        stack.start()
        try:
            nc = await stack.connect_nats()
            for _ in range(200):  # until the referee has subscribed
                try:
                    await nc.request(subjects.referee_race("ping0000"), b"", 1)
                    break
                except (nats.errors.NoRespondersError, nats.errors.TimeoutError):
                    await asyncio.sleep(0.1)
            for i in range(tables):
                table = f"m{i:07d}solo"
                await table_cmd(nc, table, "ann", **create(1))
                await play_solo_to_its_end(nc, table)
            records = await stored(nc, subjects.EVENTS_STREAM)
            await nc.close()
        finally:
            stack.stop()
    return records


async def main() -> None:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    records = await solo_log(tables)
    none = sum(1 for m in records if m.headers.get("Match-Table-Facts") == "none")
    print(f"{len(records)} records of {tables} tables; {none} say no table-level fact")
    ways: dict[str, Callable[[TableDirectory, Any], object]] = {
        "headers": lambda d, m: d.take(m.subject, m.seq, m.data, m.headers),
        "old way": lambda d, m: d.take(m.subject, m.seq, m.data),
    }
    times: dict[str, list[float]] = {k: [] for k in ways}
    for _ in range(15):
        for name, take in ways.items():
            directory = TableDirectory(js=None)  # type: ignore[arg-type]  # folding only
            start = time.process_time()
            for m in records:
                take(directory, m)
            times[name].append((time.process_time() - start) / len(records) * 1e6)
    for name, t in times.items():
        spread = f"min {min(t):.1f}, max {max(t):.1f}"
        print(f"{name}: {statistics.median(t):.1f} us per record (median of 15; {spread})")


if __name__ == "__main__":
    asyncio.run(main())
