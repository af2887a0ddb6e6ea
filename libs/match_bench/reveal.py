"""`make bench-reveal` (``python -m match_bench.reveal``): what the dealer's check that a
game is over costs, in one run.

Before the dealer reveals a seed it reads the table's records and folds them with the game's
rules (``match_bus.folds.TableFolds``). It used to read them one JetStream request per
record (``get_msg`` with ``next``), from the first record on every retry: a race of ~150 turns
cost ~150 round trips at its end, and a burst of game ends under load kept the dealer busy for
minutes. It now reads them 256 to a Direct Get request and keeps each table's fold.

This measures both ways on the same tables of one nats-server (``sync_interval: always``),
alternating rounds so that the machine's noise falls on both: ``--tables`` finished tables of
``--records`` records each (a game start, empty records, a game end), interleaved on the stream
as live tables are, their reveals checked ``--concurrency`` at a time. The baseline is the old
read, written out here. Ends with one line:

    bench-reveal: tables=<n> records=<n> one_by_one_ms=<per reveal> batched_ms=<per reveal>
    speedup=<one by one over batched, wall time> cpu_speedup=<the same, by CPU of the dealer's
    side and nats-server>

(on one line).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import nats
from nats.aio.client import Client

from match.v1 import common_pb2, race_pb2, referee_pb2
from match_bench import procstat
from match_bus import subjects
from match_bus.folds import Fold, TableFolds, fold_record
from match_bus.jetstream import ensure_stream
from match_launch.natsserver import NatsServer
from match_rules.game import Game

STARTED = race_pb2.RaceEvent(game_started=race_pb2.RaceEvent.GameStarted())
ENDED = race_pb2.RaceEvent(game_ended=race_pb2.RaceEvent.GameEnded(at=1_000))


def race_record(table_id: str, first: int, *bodies: race_pb2.RaceEvent) -> bytes:
    """A race table's record as the referee stores it: ``bodies`` as events ``first`` on."""
    events = [
        common_pb2.EventEnvelope(
            table_id=table_id, game_id=table_id, game_kind=common_pb2.GAME_KIND_MATCH_RACE,
            event_number=first + i, race=body,
        )
        for i, body in enumerate(bodies)
    ]  # fmt: skip
    return referee_pb2.TableRecord(
        table_id=table_id,
        first_event_number=first,
        events=events,
        record_number=1 if first == 1 else 0,  # a table's first record holds its first event
    ).SerializeToString()


async def fill(nc: Client, tables: list[str], records: int) -> None:
    """Each table's records, round-robin across the tables (as live tables interleave)."""
    js = nc.jetstream()
    empty = referee_pb2.TableRecord(first_event_number=2).SerializeToString()
    for n in range(records):
        acks = []
        for table in tables:
            if n == 0:
                data = race_record(table, 1, STARTED)
            elif n == records - 1:
                data = race_record(table, 2, ENDED)
            else:  # a turn's record, its events left out: the read is what is measured
                data = empty
            acks.append(js.publish(subjects.events(table), data))
        await asyncio.gather(*acks)


async def one_by_one(nc: Client, table: str) -> Game | None:
    """The dealer's read before: the last record's number, then one request per record."""
    js = nc.jetstream()
    subject = subjects.events(table)
    last = await js.get_last_msg(subjects.EVENTS_STREAM, subject)
    assert last.seq is not None
    fold, sequence = Fold(), 1
    while True:
        msg = await js.get_msg(subjects.EVENTS_STREAM, seq=sequence, subject=subject, next=True)
        assert msg.seq is not None
        fold_record(fold, msg.data or b"")
        if msg.seq >= last.seq:
            break
        sequence = msg.seq + 1
    return fold.game if fold.game is not None and fold.game.is_terminal(fold.state) else None


async def timed(
    server: NatsServer,
    tables: list[str],
    concurrency: int,
    check: Callable[[str], Awaitable[Game | None]],
) -> dict[str, float]:
    assert server.process is not None
    gate = asyncio.Semaphore(concurrency)
    ended = 0

    async def one(table: str) -> None:
        nonlocal ended
        async with gate:
            game = await check(table)
        ended += game is not None  # after the await: a += across it would lose updates

    cpu0 = sum(os.times()[:2]) + procstat.cpu_seconds(server.process.pid)
    t0 = time.perf_counter()
    await asyncio.gather(*(one(t) for t in tables))
    wall = time.perf_counter() - t0
    cpu = sum(os.times()[:2]) + procstat.cpu_seconds(server.process.pid) - cpu0
    if ended != len(tables):
        raise RuntimeError(f"only {ended} of {len(tables)} games read as over")
    return {
        "ms_per_reveal": wall / len(tables) * 1000,
        "cpu_ms_per_reveal": cpu / len(tables) * 1000,
    }


def ratio(old: float, new: float) -> str:
    """``old / new`` to one decimal; "inf" when ``new`` is below the clock's resolution (CPU
    time moves in ticks of 10 ms: a tiny run can read 0)."""
    return f"{old / new:.1f}" if new > 0 else "inf"


async def amain(args: argparse.Namespace) -> str:
    rounds: dict[str, list[dict[str, float]]] = {"one_by_one": [], "batched": []}
    with tempfile.TemporaryDirectory(prefix="match-bench-reveal-") as tmp:
        server = NatsServer(Path(tmp) / "nats").start()
        try:
            nc = await nats.connect(server.url)
            await ensure_stream(nc.jetstream())
            for r in range(args.rounds):
                tables = [f"r{r}t{n:05d}" for n in range(args.tables)]
                await fill(nc, tables, args.records)
                order = ("one_by_one", "batched") if r % 2 == 0 else ("batched", "one_by_one")
                for name in order:
                    log = TableFolds(nc)  # a fresh dealer: nothing folded yet
                    check = (lambda t: one_by_one(nc, t)) if name == "one_by_one" else log.ended
                    fig = await timed(server, tables, args.concurrency, check)
                    rounds[name].append(fig)
                    print(f"round {r + 1} {name:>10}: {json.dumps(fig)}", flush=True)
            await nc.close()
        finally:
            server.stop()
    mean = {
        name: {k: sum(f[k] for f in figs) / len(figs) for k in figs[0]}
        for name, figs in rounds.items()
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench-reveal.json").write_text(json.dumps(rounds, indent=2))
    old, new = mean["one_by_one"], mean["batched"]
    return (
        f"bench-reveal: tables={args.tables} records={args.records} "
        f"one_by_one_ms={old['ms_per_reveal']:.2f} batched_ms={new['ms_per_reveal']:.2f} "
        f"speedup={ratio(old['ms_per_reveal'], new['ms_per_reveal'])} "
        f"cpu_speedup={ratio(old['cpu_ms_per_reveal'], new['cpu_ms_per_reveal'])}"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m match_bench.reveal", description=__doc__)
    p.add_argument("--out", type=Path, default=Path("var"))
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--records", type=int, default=150, help="records per table (a race's turns)")
    p.add_argument("--concurrency", type=int, default=16, help="reveals checked at once")
    p.add_argument("--rounds", type=int, default=2, help="rounds of each way, alternating")
    print(asyncio.run(amain(p.parse_args(argv))), flush=True)


if __name__ == "__main__":
    main()
