"""What one takeover scan of the bot's seat book costs as games against bots come and go. Each
bot replica scans ``MATCH_BOT_SEATS`` every second (services/bot/seats.py, ``SeatBook.seats``);
a seat given back at its game's end leaves a delete marker there for 12 hours.

One nats-server (``sync_interval: always``) and the bucket as the bot makes it. First
``RELEASED`` seats recorded and given back (games over) and ``LIVE`` seats recorded (games
playing); then ``--rounds`` rounds of a scan each, with ``--churn`` seats given back and as
many new ones recorded before each scan after the first (the games of one second). Prints each
scan's wall time and the CPU this process spent in it (nats-server's is not counted), and the
messages left in the bucket.

``.venv/bin/python tools/bot_scan_cost.py LIVE RELEASED [--rounds N] [--churn K] [--root DIR]``
from the checkout; ``--root`` imports the bot from another checkout
(``git worktree add /tmp/old REV``) to compare. A quick figure, not a test:
``tests/services/test_bot.py`` has the test."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import nats

ROOT = Path(__file__).resolve().parent.parent


async def main(live: int, released: int, rounds: int, churn: int) -> None:
    from match_launch.natsserver import NatsServer
    from services.bot.seats import SEATS_BUCKET, Identity, SeatBook, SeatRecord

    me = Identity.new("bot-a")

    def seat(n: int) -> SeatRecord:
        return SeatRecord(
            table_id=f"t{n:015d}", seat=1, player_id=f"p{n:015d}", token="t" * 120,
            owner=me.replica, incarnation=me.incarnation, name="Bot", strength="normal",
            game="race",
        )  # fmt: skip

    with tempfile.TemporaryDirectory() as workdir:
        server = NatsServer(Path(workdir)).start()
        try:
            nc = await nats.connect(server.url)
            js = nc.jetstream()
            book = await SeatBook.open(js, me)
            playing: dict[int, int] = {}  # seat number -> revision

            async def record(numbers: range) -> None:
                revisions = await asyncio.gather(*(book.record(seat(n)) for n in numbers))
                playing.update(zip(numbers, revisions, strict=True))

            async def give_back(numbers: list[int]) -> None:
                await asyncio.gather(*(book.release(seat(n).key, playing.pop(n)) for n in numbers))

            for start in range(0, released, 500):
                numbers = range(start, min(start + 500, released))
                await record(numbers)
                await give_back(list(numbers))
            await record(range(released, released + live))
            following = released + live
            for n in range(rounds):
                if n and churn:
                    await give_back(sorted(playing)[:churn])
                    await record(range(following, following + churn))
                    following += churn
                wall, cpu = time.perf_counter(), time.process_time()
                found = await book.seats()
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                left = (await js.stream_info(f"KV_{SEATS_BUCKET}")).state.messages
                print(
                    f"scan {n + 1}: {len(found)} seats found in {wall * 1000:.0f} ms "
                    f"({cpu * 1000:.0f} ms of CPU here); {left} messages in the bucket"
                )
            await nc.close()
        finally:
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("live", type=int, help="seats recorded and playing")
    parser.add_argument("released", type=int, help="seats given back before the first scan")
    parser.add_argument("--rounds", type=int, default=3, help="scans")
    parser.add_argument("--churn", type=int, default=0, help="seats given back before a scan")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to import from")
    args = parser.parse_args()
    sys.path[:0] = [str(args.root / "libs"), str(args.root)]
    asyncio.run(main(args.live, args.released, args.rounds, args.churn))
