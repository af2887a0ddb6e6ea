"""How long a referee takes to take its partitions on as finished games pile up in the log, with
and without the partitions' marks (services/referee/marks.py), in one run.

It plays ``--games`` (4) solo Concentration tables of 24 cards through a real referee and dealer
to their end, and stores ``TABLES`` finished copies of them (new table ids, tools/
lobby_history_cost.py; each record on its table's own subject, not in frames) in a fresh stack's
log (a real nats-server, fsync on every write). With ``--unfinished N``, N solo games are made
first through a referee and the dealer of that stack and left after their first card, as a
player who walks away leaves them: each holds its partition's mark at its start, for
REFEREE_MARK_IDLE_S (``--idle S`` sets it for the referees; 600 s otherwise), after which such
a game, with no deadline, stops holding it. Then:

1. **without a mark**: a referee starts on that log, as the first replica of a deployment does
   (and as every replica did before marks): it reads every record of every partition;
2. once it has written its marks (and, with ``--idle``, the idle time and a few steps have
   passed), it stops (handing its partitions back), and
3. **from the marks**: another replica starts and takes every partition on from its mark.

Prints, for each, the seconds the referee logged for taking the partitions on and the records
it read. ``.venv/bin/python tools/referee_takeover_cost.py TABLES [--games N] [--unfinished N]
[--idle S]``
from the checkout. A quick figure, not a test: ``tests/services/test_referee_marks.py`` has
the tests."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import itertools
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "libs")]

BATCH = 512  # publishes in flight while the history is stored


async def leave_unfinished(stack: Any, games: int) -> None:
    """``games`` solo Concentration games made through a referee of the stack (one that writes
    no mark meanwhile) and left with their first card up; the referee stops after."""
    from tests.services.test_referee_games import create, flip, table_cmd

    maker = take_on(stack, "maker", None, mark_every_s=3600)
    try:
        nc = await stack.connect_nats()
        try:
            for i in range(games):
                table = f"left{i:04d}solo"
                made = await table_cmd(nc, table, "ann", **create(1))
                assert made.HasField("accepted"), made
                flipped = await flip(nc, table, "ann", 1)
                assert flipped.HasField("accepted"), flipped
        finally:
            await nc.close()
    finally:
        maker.terminate()  # a clean stop hands its partitions back
        maker.wait(30)


async def store(stack: Any, tables: int, games: int) -> int:
    """Store ``tables`` finished tables in the stack's log; the records stored."""
    spec = importlib.util.spec_from_file_location("history", ROOT / "tools/lobby_history_cost.py")
    assert spec is not None and spec.loader is not None
    lobby_history_cost = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lobby_history_cost)
    from match_bus.jetstream import ensure_stream
    from match_bus.records import closes_table

    played = await lobby_history_cost.play(games)
    # Only games whose seed is out: one whose reveal the log missed would stay unfinished in the
    # referee that reads it (the dealer knows no copy) and hold its partition's mark.
    closed = {table for table, _, headers in played if closes_table(headers)}
    played = [entry for entry in played if entry[0] in closed]
    nc = await stack.connect_nats()
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        pending: list[Any] = []
        stored = 0
        copies = lobby_history_cost.copies(played, tables, 250)
        for _, records in itertools.groupby(copies, key=lambda c: c[0]):
            for subject, data, headers in records:
                # A copy is a new record: not the original's message id (JetStream would take
                # it for a duplicate of the first copy's and drop it).
                kept = {k: v for k, v in (headers or {}).items() if not k.startswith("Nats-")}
                pending.append(js.publish(subject, data, headers=kept or None, timeout=30))
                if len(pending) == BATCH:
                    stored += len(await asyncio.gather(*pending))
                    pending = []
        stored += len(await asyncio.gather(*pending))
        return stored
    finally:
        await nc.close()


def take_on(
    stack: Any, replica: str, idle: float | None, mark_every_s: float = 1
) -> subprocess.Popen[bytes]:
    from match_launch.child import tied

    env = stack.service_env("referee")
    env.update(MATCH_REPLICA_ID=replica, REFEREE_MARK_EVERY_S=str(mark_every_s))
    if idle is not None:
        env["REFEREE_MARK_IDLE_S"] = str(idle)
    out = open(stack.workdir / "logs" / f"referee-{replica}.log", "ab")  # noqa: SIM115
    proc = subprocess.Popen(
        tied([sys.executable, "-m", "services.referee"]), env=env, stdout=out, stderr=out
    )
    out.close()
    return proc


def taken(stack: Any, replica: str) -> list[dict[str, Any]]:
    path = stack.workdir / "logs" / f"referee-{replica}.log"
    if not path.exists():
        return []
    return [
        json.loads(line)
        for line in path.read_text().splitlines()
        if '"partitions taken on"' in line
    ]


def until_taken(stack: Any, replica: str, partitions: int, timeout: float = 600) -> dict[str, Any]:
    """The replica's takeover of every partition, summed over its log's lines."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = taken(stack, replica)
        if sum(len(t["partitions"]) for t in lines) >= partitions:
            return {
                "seconds": sum(t["seconds"] for t in lines),
                "records": sum(t["records"] for t in lines),
                "from": min(t["from_sequence"] for t in lines),
                "begun_before_mark": sum(t["begun_before_mark"] for t in lines),
            }
        time.sleep(0.2)
    raise SystemExit(f"referee {replica} did not take every partition on in {timeout:.0f} s")


async def marks_written(stack: Any, partitions: int, timeout: float = 60) -> dict[int, int]:
    from nats.js.errors import BucketNotFoundError, KeyNotFoundError

    from match_bus import subjects

    nc = await stack.connect_nats()
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            marks: dict[int, int] = {}
            try:
                kv = await nc.jetstream().key_value(subjects.REFEREE_MARKS_BUCKET)
                for p in range(partitions):
                    with contextlib.suppress(KeyNotFoundError):
                        marks[p] = int((await kv.get(subjects.partition_name(p))).value or b"0")
            except BucketNotFoundError:
                pass
            if len(marks) == partitions:
                return marks
            await asyncio.sleep(0.5)
        raise SystemExit("the referee wrote no mark for some partitions")
    finally:
        await nc.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", type=int)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument(
        "--unfinished",
        type=int,
        default=0,
        help="N solo games left after their first card, stored first: each holds its "
        "partition's mark at its start while it is not idle",
    )
    parser.add_argument(
        "--idle",
        type=float,
        default=None,
        help="REFEREE_MARK_IDLE_S for the referees (default: theirs, 600 s)",
    )
    args = parser.parse_args()
    from match_bus import subjects
    from match_launch.stack import Stack

    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(Path(tmp) / "stack", services=("dealer",))
        stack.start()
        procs: list[subprocess.Popen[bytes]] = []
        try:
            started = time.monotonic()
            asyncio.run(leave_unfinished(stack, args.unfinished))
            records = asyncio.run(store(stack, args.tables, args.games))
            print(
                f"{args.tables:,} tables ({args.unfinished} under way), {records:,} records stored "
                f"in {time.monotonic() - started:.0f} s"
            )
            procs.append(take_on(stack, "first", args.idle))
            before = until_taken(stack, "first", subjects.PARTITIONS)
            try:
                marks = asyncio.run(marks_written(stack, subjects.PARTITIONS))
            except SystemExit:
                print((stack.workdir / "logs" / "referee-first.log").read_text()[-3000:])
                raise
            if args.idle is not None:  # the games under way left idle, and a few steps after
                time.sleep(args.idle + 3)
                marks = asyncio.run(marks_written(stack, subjects.PARTITIONS))
            procs[0].terminate()  # a clean stop hands every partition back at once
            procs[0].wait(30)
            procs.append(take_on(stack, "second", args.idle))
            after = until_taken(stack, "second", subjects.PARTITIONS)
            print(
                f"without a mark: {before['seconds']:.2f} s, {before['records']:,} records read "
                f"(from sequence {before['from']})"
            )
            print(
                f"from the marks: {after['seconds']:.2f} s, {after['records']:,} records read "
                f"(from sequence {after['from']}; marks {min(marks.values())}-"
                f"{max(marks.values())}; {after['begun_before_mark']} tables met without "
                "their first record)"
            )
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.terminate()
                    proc.wait(30)
            stack.stop()


if __name__ == "__main__":
    main()
