"""What nats-server spends to bring a watched table's records to a lobby: an ordered consumer per
table on the lobby's copy of the log (how a lobby followed a table before the push) against a
core subscription per table to the records the copy pushes (its RePublish, how it follows one
now). One nats-server per round, the copy made by ``match_bus.jetstream`` as the services make
it (file storage, ``sync_interval: always``: the log's append and the copy's are fsynced in
both), ``TABLES`` tables followed, ``RECORDS`` records appended 64 at a time; nats-server's CPU
per record from /proc, the rounds alternating. ``.venv/bin/python tools/push_cost.py [ROUNDS]`` from
the checkout; a quick figure, not a test."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from pathlib import Path

import nats
from nats.aio.subscription import Subscription
from nats.js.api import ConsumerConfig, DeliverPolicy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "libs"))
from match_bench.procstat import cpu_seconds as cpu_s
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_launch.natsserver import NatsServer

TABLES, RECORDS, IN_FLIGHT = 200, 20_000, 64


async def one_round(how: str, workdir: Path) -> float:
    """nats-server's CPU per record, in us, following every table ``how``."""
    server = NatsServer(workdir).start()
    try:
        writer = await nats.connect(server.url)
        lobby = await nats.connect(server.url)
        await ensure_stream(writer.jetstream())
        tables = [f"cost{i:08d}" for i in range(TABLES)]
        got = 0

        async def count(_msg: object) -> None:
            nonlocal got
            got += 1

        subs: list[Subscription] = []
        for table in tables:
            sub: Subscription
            if how == "consumer":
                sub = await lobby.jetstream().subscribe(
                    subjects.events(table),
                    stream=subjects.LOBBY_EVENTS,
                    ordered_consumer=True,
                    cb=count,
                    config=ConsumerConfig(deliver_policy=DeliverPolicy.ALL),
                )
            else:
                sub = await lobby.subscribe(subjects.live(table), cb=count)
            subs.append(sub)
        await asyncio.sleep(0.5)
        js = writer.jetstream()
        pid = server.process.pid  # type: ignore[union-attr]
        before = cpu_s(pid)
        for start in range(0, RECORDS, IN_FLIGHT):
            await asyncio.gather(
                *(
                    js.publish(subjects.events(tables[i % TABLES]), b"r" * 160)
                    for i in range(start, min(start + IN_FLIGHT, RECORDS))
                )
            )
        while got < RECORDS:
            await asyncio.sleep(0.01)
        spent = cpu_s(pid) - before
        for each in subs:
            with contextlib.suppress(Exception):
                await each.unsubscribe()
        await lobby.close()
        await writer.close()
        return spent / RECORDS * 1e6
    finally:
        server.stop()


async def main(rounds: int) -> None:
    results: dict[str, list[float]] = {"consumer": [], "push": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for how in results:
                results[how].append(await one_round(how, Path(tmp) / f"{how}-{r}"))
    said = ", ".join(
        f"{how} {min(v):.0f}-{max(v):.0f} us per record ({' '.join(f'{x:.0f}' for x in v)})"
        for how, v in results.items()
    )
    print(
        f"nats-server, {TABLES} tables followed, {RECORDS} records, {rounds} alternating rounds: "
        f"{said} (the copy's mirroring and the appends included in both)"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3))
