"""The bot's loop: find open tables whose fill time has come, take their free seats, play them."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal

import structlog

from match_client.client import MatchClient, error_details, is_rpc_error, status_name
from match_client.clock import ServerClock
from match_obs import configure_logging, serve_metrics
from services.bot import brain, metrics
from services.bot.config import BotConfig
from services.bot.player import SeatPlayer


class Bot:
    def __init__(self, config: BotConfig, client: MatchClient) -> None:
        self.config = config
        self.client = client
        self.players: dict[str, set[asyncio.Task[None]]] = {}
        self.log = structlog.get_logger()

    async def poll_once(self, now_ms: int | None = None) -> int:
        """One look at the lobby; returns how many seats were taken."""
        now = self.config.clock.now_ms() if now_ms is None else now_ms
        taken = 0
        for table in await self.client.list_tables():
            if brain.should_fill(table, now):
                taken += await self.fill(table.table_id, brain.bot_names(table))
        return taken

    async def fill(self, table_id: str, names: list[str]) -> int:
        """Take the free seats one JoinTable each; stop at the first refusal (a person sat down,
        or the game started)."""
        taken = 0
        for name in names:
            try:
                seat = await self.client.join_table(
                    table_id=table_id, display_name=name, bot_key=self.config.bot_key
                )
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                self.log.info(
                    "seat not taken",
                    table=table_id,
                    status=status_name(err),
                    message=error_details(err),
                )
                break
            taken += 1
            metrics.SEATS_FILLED.inc()
            player = SeatPlayer(
                self.client.session(seat),
                seat,
                pace=self.config.pace,
                poll_s=self.config.poll_s,
                clock=ServerClock(self.config.clock.now_ms, self.config.clock.rate),
                force_strength=self.config.force_strength,
            )
            task = asyncio.create_task(player.run(), name=f"bot-{table_id}-{seat.seat}")
            tasks = self.players.setdefault(table_id, set())
            tasks.add(task)
            task.add_done_callback(functools.partial(self._done, table_id))
        return taken

    def _done(self, table_id: str, task: asyncio.Task[None]) -> None:
        tasks = self.players.get(table_id)
        if tasks is not None:
            tasks.discard(task)
            if not tasks:
                del self.players[table_id]
        if not task.cancelled() and task.exception() is not None:
            self.log.error("seat player failed", table=table_id, exc_info=task.exception())

    async def run(self, stop: asyncio.Event) -> None:
        self.log.info("bot polling", lobby=self.config.lobby_addr, every_s=self.config.poll_s)
        lobby_down = False
        while not stop.is_set():
            try:
                await self.poll_once()
                if lobby_down:
                    self.log.info("lobby reachable again")
                lobby_down = False
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                if not lobby_down:  # once, not every poll
                    self.log.warning("lobby unreachable", status=status_name(err))
                lobby_down = True
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.config.poll_s)
        await self.stop()

    async def stop(self) -> None:
        tasks = [t for ts in self.players.values() for t in ts]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def main(config: BotConfig) -> None:
    base = config.base
    configure_logging("bot", base.log_format, base.log_level)
    serve_metrics(base.metrics_port)
    log = structlog.get_logger()

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with MatchClient(config.lobby_addr) as client:
            await Bot(config, client).run(stop)
        log.info("stopped")

    asyncio.run(run())
