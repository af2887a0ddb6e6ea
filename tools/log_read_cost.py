"""What reading the log costs per record, in the reader's process: a table's records read back
(``match_bus.jetstream.consume_until``, as a referee taking a partition over or the players
service counting a game reads them); the whole log pulled in batches of 256 by a durable
consumer acked per batch, as the ledger pulls it, with nats-py's ``fetch`` and, where the
checkout has them, with the ledger's own requests (``services.ledger.consumer.Pulls``); and,
where the checkout has it, the whole of a copy followed (``follow_copy``, as the lobby's listing
and the players service follow it). One nats-server
with the streams as the services make them, ``RECORDS`` records of 2,000 bytes over two tables,
then the reads, CPU from the process's own clock. Run it from two checkouts to compare them:
``PYTHONPATH=<checkout>/libs .venv/bin/python tools/log_read_cost.py [RECORDS]``; a quick
figure, not a test."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import nats
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.api import AckPolicy, ConsumerConfig

from match_bus import jetstream, subjects
from match_launch.natsserver import NatsServer

TABLES = ("tableread1", "tableread2")


class _Done(Exception):
    pass


async def main(records: int) -> None:
    with tempfile.TemporaryDirectory(prefix="read-cost-") as tmp:
        server = NatsServer(Path(tmp) / "nats").start()
        try:
            nc = await nats.connect(server.url)
            js = nc.jetstream()
            await jetstream.ensure_stream(js)
            at_once = asyncio.Semaphore(256)

            async def append(n: int) -> None:
                async with at_once:
                    await js.publish(subjects.events(TABLES[n % 2]), b"x" * 2000)

            await asyncio.gather(*(append(n) for n in range(records)))
            cpu, wall = time.process_time(), time.perf_counter()
            read = await jetstream.consume_until(js, subjects.events(TABLES[0]), records)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            print(
                f"consume_until: {len(read)} records in {wall:.2f} s, "
                f"{cpu / len(read) * 1e6:.1f} us of CPU a record"
            )
            await pull_whole_log(nc, records)
            follow = getattr(jetstream, "follow_copy", None)
            if follow is not None:
                while (await js.stream_info(subjects.LOBBY_EVENTS)).state.last_seq < records:
                    await asyncio.sleep(0.1)
                taken = 0

                async def take(_: object) -> None:
                    nonlocal taken
                    taken += 1
                    if taken == records:
                        raise _Done()

                async def quiet() -> None:
                    return None

                cpu, wall = time.process_time(), time.perf_counter()
                with contextlib.suppress(_Done):
                    await follow(js, subjects.LOBBY_EVENTS, 0, take, quiet, 5.0)
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                print(
                    f"follow_copy: {taken} records in {wall:.2f} s, "
                    f"{cpu / taken * 1e6:.1f} us of CPU a record"
                )
            await nc.close()
        finally:
            server.stop()


Fetch = Callable[[int, float], Awaitable[list[Msg]]]


async def pull_whole_log(nc: Client, records: int) -> None:
    """The log pulled as the ledger pulls it, each way the checkout has, by a fresh durable."""
    js = nc.jetstream()

    async def by_nats_py(durable: str) -> Fetch:
        sub = await js.pull_subscribe_bind(durable, subjects.EVENTS_STREAM)

        async def fetch(batch: int, timeout: float) -> list[Msg]:
            try:
                return await sub.fetch(batch, timeout=timeout)
            except TimeoutError:  # nats-py's way of saying "nothing"
                return []

        return fetch

    ways: list[tuple[str, Callable[[str], Awaitable[Fetch]]]] = [("nats-py's fetch", by_nats_py)]
    try:
        from services.ledger.consumer import Pulls
    except ImportError:  # a checkout from before it
        pass
    else:

        async def by_pulls(durable: str) -> Fetch:
            return (await Pulls.open(nc, durable)).fetch

        ways.append(("the ledger's Pulls", by_pulls))
    for n, (name, way) in enumerate(ways):
        durable = f"readcost{n}"
        config = ConsumerConfig(durable_name=durable, ack_policy=AckPolicy.ALL)
        await js.add_consumer(subjects.EVENTS_STREAM, config)
        fetch = await way(durable)
        taken = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while taken < records:
            batch = await fetch(256, 2.0)
            taken += len(batch)
            await batch[-1].ack()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(
            f"pulled by {name}: {taken} records in {wall:.2f} s, "
            f"{cpu / taken * 1e6:.1f} us of CPU a record"
        )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000))
