"""The dealer process: answers ``match.dealer.{commit,deal,reveal}`` in queue group ``dealer``.

``match.dealer.deal`` answers every face of a game: only the referee may publish to it. Restrict
it (and the other two) with NATS permissions; see docs/ledger.md, "The dealer".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import structlog
from nats.aio.client import Client
from nats.aio.msg import Msg

from match_bus import subjects
from match_bus.folds import TableFolds
from match_bus.service import BaseConfig, answerable, configured, reply, run, spawn
from services.dealer.dealer import Dealer
from services.dealer.stores import KvSeedStore, open_seeds

log = structlog.get_logger()

# How often the dealer reads each partition of the log (a quiet one less often, down to eight
# times as long). At 250 tables at human pace, every second cost it ~90 us a turn, some 30 of
# them in the readings' own round trips; every 5 s, 59. Either leaves a burst of game ends
# little to fold (docs/performance.md, "Frames written").
KEEP_UP_S = 5.0


def _replying(
    handle: Callable[[bytes], Awaitable[bytes]],
) -> Callable[[Msg], Coroutine[Any, Any, None]]:
    async def on_request(msg: Msg) -> None:
        if answerable(msg):
            await reply(msg, await handle(msg.data))

    return on_request


async def serve(nc: Client) -> Callable[[], Awaitable[None]]:
    """Subscribe the three subjects, and keep the partitions' readings up to date (a burst of
    game ends then has little left to fold); ``run`` drains them on SIGTERM."""
    js = nc.jetstream()
    games = TableFolds(nc)
    try:
        await games.begin()  # every table begun from now on is folded by its partition's scan
    except Exception as error:  # the log not answering yet: each scan begins at its first ask
        log.warning("could not find where the table log ends", error=repr(error))
    dealer = Dealer(KvSeedStore(js, await open_seeds(js)), games)
    routes = (
        (subjects.DEALER_COMMIT, dealer.commit),
        (subjects.DEALER_DEAL, dealer.deal),
        (subjects.DEALER_REVEAL, dealer.reveal),
    )
    for subject, handle in routes:
        await nc.subscribe(subject, queue=subjects.DEALER_QUEUE, cb=spawn(_replying(handle)))
    keeping_up = asyncio.create_task(games.keep_up(KEEP_UP_S))

    async def stop() -> None:
        keeping_up.cancel()
        await asyncio.wait({keeping_up}, timeout=5)  # a stop never waits on it for longer

    return stop


def main() -> None:
    config = configured("dealer", lambda: BaseConfig.from_env(default_metrics_port=9103))
    run("dealer", config, serve)
