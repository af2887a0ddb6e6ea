"""The bot's loop: find open tables whose fill time has come, take their free seats, play them;
record every seat in the seat book and play on the seats of bot replicas that died.

Three loops per process:

- **fill** (every BOT_POLL_S): ``ListTables``; a table whose fill time has come is filled by its
  preferred replica (rendezvous hashing over the live replicas), or by any replica once
  FILL_GRACE_S more have passed. Two replicas may still race for a table: the referee seats the
  first JoinTable and refuses the other (``table_full``, or ``table_started`` once the last seat
  is taken), and the loser stops at its first refusal.
- **heartbeat** (every HEARTBEAT_S): renews this replica's key in MATCH_BOT_REPLICAS. The
  replica acts for its seats only while its last renewal is younger than the heartbeat's TTL less
  a margin, so it is never still playing a seat another replica has taken over.
- **takeover** (every TAKEOVER_S): reads MATCH_BOT_SEATS; claims each orphaned seat with a
  compare-and-set update and plays it on with its stored token (services/bot/seats.py), and stops
  playing a seat another replica claimed.

A seat's record is removed when its game is over (or it is out of the game, or the lobby refuses
its token for good). On SIGTERM the replica stops its seats and removes its heartbeat, so the
other replicas take the seats over at once; on SIGKILL they do once the heartbeat expires.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, cast

import structlog
from nats.js import JetStreamContext

from match.v1 import common_pb2
from match_bus.jetstream import connect
from match_bus.service import refuse_unknown_loop, run_loop, tune_gc
from match_client.client import (
    MatchClient,
    Seat,
    error_details,
    is_rpc_error,
    retry_after_ms,
    status_name,
)
from match_client.clock import ServerClock
from match_client.session import GameSession
from match_obs import configure_logging, serve_metrics
from match_rules import registry
from match_rules.game import Bot as GameBot
from match_rules.game import Game
from services.bot import fill, metrics, seats
from services.bot.config import BotConfig
from services.bot.player import SeatEnd, SeatPlayer
from services.bot.seats import KV_ERRORS, Identity, SeatBook, SeatRecord

FILL_GRACE_S = 2.0  # wall seconds after fill time before any replica fills a table
RETRY_SEAT_S = 10.0  # a seat given up (stream failing) is played again after this long


def bot_games() -> tuple[Game, ...]:
    """The registered games the bot service plays: those with a bot player (``game.bot``)."""
    return tuple(game for game in registry.games() if game.bot is not None)


def game_of_slug(slug: str) -> Game | None:
    """The game ``slug`` names, if it is registered and the bot plays it."""
    try:
        game = registry.by_slug(slug)
    except registry.UnknownGame:
        return None
    return game if game.bot is not None else None


class LobbyReach:
    """What the fill loop says about reaching the lobby: each change once, not every poll. The
    bot and the lobby start together (``make run``), so a lobby that has not answered yet in
    the first ``START_GRACE_S`` is starting, not down: said as information, not as a warning."""

    START_GRACE_S = 15.0
    STARTING = "waiting for the lobby to start"
    DOWN = "lobby unreachable"

    def __init__(self, started: float) -> None:
        self._started = started
        self._reached = False  # the lobby has answered once
        self._said: str | None = None  # what the last failure said, until an answer

    def failed(self, now: float) -> str | None:
        """A poll failed at ``now``: what to say (None: already said)."""
        starting = not self._reached and now - self._started < self.START_GRACE_S
        said = self.STARTING if starting else self.DOWN
        if said == self._said:
            return None
        self._said = said
        return said

    def answered(self) -> str | None:
        """A poll was answered: what to say (None: nothing changed)."""
        said = self._said
        self._reached = True
        self._said = None
        if said is None:
            return None
        return "lobby reachable" if said == self.STARTING else "lobby reachable again"


@dataclass(slots=True)
class Held:
    """A seat this process plays (or is about to)."""

    record: SeatRecord
    revision: int = 0  # the record's revision as this process last wrote it; 0: not recorded
    player: SeatPlayer | None = None
    task: asyncio.Task[None] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one write at a time


class Bot:
    def __init__(
        self,
        config: BotConfig,
        client: MatchClient,
        book: SeatBook,
        *,
        fill_grace_s: float = FILL_GRACE_S,
    ) -> None:
        self.config = config
        self.client = client
        self.book = book
        self.me: Identity = book.me
        self.fill_grace_s = fill_grace_s
        self.lease_s = max(book.replica_ttl_s - seats.LEASE_MARGIN_S, seats.HEARTBEAT_S)
        self._settling = 0  # beats to wait, after a lapse, before acting again
        self.held: dict[str, Held] = {}  # seat key -> the seat
        self.live: dict[str, str] = {}  # heartbeat key -> incarnation, as last read
        self.lease_until = 0.0  # monotonic: act for the seats until then
        self.resting: dict[str, float] = {}  # seat key -> monotonic time to play it again
        # table id -> monotonic time before which it is not filled: the lobby said the bots'
        # budget for it is used up (RESOURCE_EXHAUSTED with retry-after-ms)
        self.held_back: dict[str, float] = {}
        self._orphans_seen: set[str] = set()
        self._background: set[asyncio.Task[Any]] = set()
        self.log = structlog.get_logger().bind(replica=self.me.replica)

    # --- the lease -------------------------------------------------------------------------

    def holds_lease(self) -> bool:
        """Whether this replica's heartbeat surely has not expired: only then it acts."""
        return time.monotonic() < self.lease_until

    async def heartbeat(self) -> None:
        """Renew the heartbeat once, and with it the lease (from when the renewal was sent).

        After a lapse (the heartbeat expired: another replica may have claimed our seats) a
        replica holding seats stops those already claimed, then waits SETTLE_BEATS unbroken
        beats, so that a claim decided on the lapse has landed, and checks again before it acts.
        """
        sent = time.monotonic()
        unbroken = await self.book.beat()
        if not unbroken:
            self._settling = seats.SETTLE_BEATS if self.held else 0
            await self.check_ownership()
        elif self._settling:
            self._settling -= 1
            if not self._settling:
                await self.check_ownership()
        if not self._settling:
            self.lease_until = sent + self.lease_s

    async def check_ownership(self) -> None:
        for key, held in list(self.held.items()):
            found = await self.book.get(key)
            if found is None or held.player is None:
                continue
            revision, record = found
            if not record.owned_by(self.me) and revision > held.revision:
                held.player.hand_over()
                metrics.SEATS_HANDED_OVER.inc()

    # --- filling tables --------------------------------------------------------------------

    async def poll_once(self, now_ms: int | None = None) -> int:
        """One look at the lobby; returns how many seats were taken."""
        if not self.holds_lease():
            return 0  # a seat taken now could not be handed over if this replica dies
        now = self.config.clock.now_ms() if now_ms is None else now_ms
        grace_ms = round(self.fill_grace_s * 1000 * self.config.clock.rate)
        taken = 0
        clock = time.monotonic()
        self.held_back = {t: until for t, until in self.held_back.items() if until > clock}
        # Only the tables due now, soonest first: one short page however many are open, for
        # each game the bot plays (a game whose CPU seats the rules play is never listed).
        for game in bot_games():
            for table in await self.client.list_tables(
                game_kind=cast(common_pb2.GameKind, game.kind), fill_due_by_ms=now
            ):
                if table.table_id in self.held_back:
                    continue
                if fill.should_fill(table, now) and seats.may_fill(
                    table.table_id, table.fill_at_ms, now, self.live, self.me.key, grace_ms
                ):
                    taken += await self.fill(table.table_id, fill.bot_names(table), game.slug)
        return taken

    async def fill(self, table_id: str, names: list[str], game: str = "") -> int:
        """Take the free seats one JoinTable each; stop at the first refusal (a person sat down,
        another replica took the seat, or the game started). ``game``: the table's slug (""
        when the caller does not know it: the seat asks the lobby before it plays)."""
        taken = 0
        for name in names:
            try:
                seat = await self.client.join_table(
                    table_id=table_id, display_name=name, bot_key=self.config.bot_key
                )
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                wait_ms = retry_after_ms(err)
                if wait_ms is not None:  # over the bots' budget: not before then
                    self.held_back[table_id] = time.monotonic() + wait_ms / 1000
                self.log.info(
                    "seat not taken",
                    table=table_id,
                    status=status_name(err),
                    message=error_details(err),
                )
                break
            taken += 1
            metrics.SEATS_FILLED.inc()
            record = SeatRecord(
                table_id=seat.table_id,
                seat=seat.seat,
                player_id=seat.player_id,
                token=seat.token,
                owner=self.me.replica,
                incarnation=self.me.incarnation,
                name=name,
                game=game,
            )
            held = self.held[record.key] = Held(record)  # before any await: the scan skips it
            try:
                held.revision = await self.book.record(record)
            except KV_ERRORS as err:
                self.log.warning(
                    "seat not recorded: no other replica can take it over",
                    table=table_id,
                    seat=seat.seat,
                    error=repr(err),
                )
            self._play(held, resume=False)
        return taken

    # --- playing seats ---------------------------------------------------------------------

    def _play(self, held: Held, *, resume: bool) -> None:
        record = held.record
        game = game_of_slug(record.game) if record.game else None
        if game is not None:
            held.player = self._player(held, game, resume=resume)
            work = held.player.run()
        else:
            work = self._look_up_and_play(held, resume=resume)
        task = asyncio.create_task(work, name=f"bot-{record.key}")
        held.task = task
        task.add_done_callback(functools.partial(self._seat_done, record.key))
        metrics.SEATS_PLAYING.set(len(self.held))

    def _player(self, held: Held, game: Game, *, resume: bool) -> SeatPlayer:
        record = held.record
        bot: GameBot | None = game.bot
        assert bot is not None
        seat = Seat(record.table_id, record.player_id, record.token, record.seat)
        clock = ServerClock(self.config.clock.now_ms, self.config.clock.rate)
        policy = bot.seat(
            record.table_id,
            record.player_id,
            pace=self.config.pace,
            rate=clock.rate,
            strength=record.strength,
            forced=self.config.force_strength,
        )
        session = GameSession(
            self.client, game.slug, record.table_id, record.token, self.config.bot_key
        )
        return SeatPlayer(
            session,
            seat,
            policy,
            poll_s=self.config.poll_s,
            clock=clock,
            resume=resume,
            may_act=self.holds_lease,
            on_strength=functools.partial(self._strength_shown, record.key),
            forced=self.config.force_strength is not None,
        )

    async def _look_up_and_play(self, held: Held, *, resume: bool) -> None:
        """Play a seat whose record does not say its game: the lobby's table says it."""
        record = held.record
        table = await self.client.get_table(record.table_id, record.token)
        try:
            game = registry.by_kind(table.game_kind)
        except registry.UnknownGame:
            game = None
        if game is None or game.bot is None:
            self.log.warning("a seat of a game the bot does not play", key=record.key)
            return
        held.player = self._player(held, game, resume=resume)
        await held.player.run()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("seat book write failed", exc_info=task.exception())

    def _strength_shown(self, key: str, shown: str) -> None:
        """Keep the strength the table showed in the seat's record, for a replica that takes the
        seat over (it resumes from a snapshot, which does not carry it)."""
        held = self.held.get(key)
        if held is not None and held.record.strength != shown:
            self._spawn(self._write_strength(held, shown))

    async def _write_strength(self, held: Held, shown: str) -> None:
        async with held.lock:
            if not held.revision or (held.player is not None and held.player.finished):
                return
            record = replace(held.record, strength=shown)
            try:
                revision = await self.book.replace(held.revision, record)
            except KV_ERRORS as err:
                self.log.warning("strength not recorded", key=record.key, error=repr(err))
                return
            if revision is None:  # another replica claimed the seat meanwhile
                if held.player is not None:
                    held.player.hand_over()
                    metrics.SEATS_HANDED_OVER.inc()
                return
            held.record, held.revision = record, revision

    def _seat_done(self, key: str, task: asyncio.Task[None]) -> None:
        held = self.held.get(key)
        if held is None or held.task is not task:
            return
        if task.cancelled():
            return  # stopping: the record stays for another replica
        del self.held[key]
        metrics.SEATS_PLAYING.set(len(self.held))
        ended = held.player.ended if held.player is not None else None
        if task.exception() is not None:
            self.log.error("seat player failed", key=key, exc_info=task.exception())
            ended = SeatEnd.GAVE_UP
        if ended in (SeatEnd.GAME_OVER, SeatEnd.OUT, SeatEnd.REFUSED) and held.revision:
            self._spawn(self._release(held))
        elif ended is SeatEnd.GAVE_UP:
            self.resting[key] = time.monotonic() + RETRY_SEAT_S

    async def _release(self, held: Held) -> None:
        async with held.lock:
            try:
                await self.book.release(held.record.key, held.revision)
            except KV_ERRORS as err:  # it stays; the next scan plays it again and ends at once
                self.log.warning("seat record not removed", key=held.record.key, error=repr(err))

    # --- taking seats over -----------------------------------------------------------------

    async def takeover_once(self) -> int:
        """One look at the seat book: claim the orphaned seats this replica should play, stop
        the seats another replica claimed. Returns how many seats were claimed."""
        if not self.holds_lease():
            return 0
        self.live = await self.book.live()
        now = time.monotonic()
        orphans: set[str] = set()
        claimed = 0
        for revision, record in await self.book.seats():
            key = record.key
            held = self.held.get(key)
            if held is not None:
                if not record.owned_by(self.me) and revision > held.revision and held.player:
                    held.player.hand_over()
                    metrics.SEATS_HANDED_OVER.inc()
                continue
            if not seats.orphaned(record, self.live, self.me, self.held):
                continue
            if self.resting.get(key, 0.0) > now:
                continue
            orphans.add(key)
            first = seats.preferred(key, self.live) in (self.me.key, None)
            # Its preferred replica claims an orphan at once; the others one scan later, in
            # case the preferred one cannot.
            if first or key in self._orphans_seen or record.owned_by(self.me):
                claimed += await self.claim(revision, record)
                if not self.holds_lease():
                    break
        self._orphans_seen = orphans
        return claimed

    async def claim(self, revision: int, record: SeatRecord) -> int:
        """Claim one orphaned seat (compare-and-set on its revision) and play it on: 1 when this
        replica won it, 0 when another replica was first."""
        mine = record.for_owner(self.me)
        if not record.owned_by(self.me) and await self.book.alive(record.owner, record.incarnation):
            return 0  # its owner is back (or was only slow)
        held = self.held[mine.key] = Held(mine)
        try:
            won = await self.book.replace(revision, mine)
        except Exception:
            del self.held[mine.key]
            raise
        if won is None:
            del self.held[mine.key]
            self.log.info("seat claimed by another replica first", key=mine.key)
            return 0
        held.revision = won
        self.resting.pop(mine.key, None)
        self.log.info(
            "seat taken over",
            key=mine.key,
            previous_owner=record.owner,
            previous_incarnation=record.incarnation,
        )
        metrics.SEATS_RESUMED.inc()
        self._play(held, resume=True)
        return 1

    # --- the loops -------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        self.log.info(
            "bot polling",
            lobby=self.config.lobby_addr,
            lobby_ca=str(self.config.lobby_ca or "none: plain text"),
            every_s=self.config.poll_s,
            incarnation=self.me.incarnation,
        )
        loops = [
            asyncio.create_task(self._every(seats.HEARTBEAT_S, self.heartbeat, "heartbeat")),
            asyncio.create_task(self._every(seats.TAKEOVER_S, self.takeover_once, "takeover")),
            asyncio.create_task(self._fill_loop()),
        ]
        try:
            await stop.wait()
        finally:
            for loop in loops:
                loop.cancel()
            await asyncio.gather(*loops, return_exceptions=True)
            await self.stop()

    async def _every(self, period_s: float, work: Any, name: str) -> None:
        """Run ``work`` every ``period_s``; a NATS failure is logged once until it recovers."""
        failing = False
        while True:
            started = time.monotonic()
            try:
                await work()
                if failing:
                    self.log.info("seat book reachable again", loop=name)
                failing = False
            except KV_ERRORS as err:
                if not failing:
                    self.log.warning("seat book unreachable", loop=name, error=repr(err))
                failing = True
            except Exception:  # a bug: say so, and keep the loop (and the heartbeat) going
                self.log.exception("bot loop failed", loop=name)
            await asyncio.sleep(max(period_s - (time.monotonic() - started), 0.05))

    async def _fill_loop(self) -> None:
        lobby = LobbyReach(time.monotonic())
        while True:
            try:
                await self.poll_once()
                said = lobby.answered()
                if said:
                    self.log.info(said)
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                said = lobby.failed(time.monotonic())
                if said == LobbyReach.STARTING:
                    self.log.info(said, status=status_name(err))
                elif said:
                    self.log.warning(said, status=status_name(err))
            await asyncio.sleep(self.config.poll_s)

    async def stop(self) -> None:
        """Stop every seat (their records stay), then remove the heartbeat so the other
        replicas take the seats over at once."""
        self.lease_until = 0.0
        tasks = [h.task for h in self.held.values() if h.task is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*self._background, return_exceptions=True)
        try:
            await self.book.retire()
        except KV_ERRORS as err:
            self.log.warning("heartbeat not removed; it expires on its own", error=repr(err))


async def open_book(js: JetStreamContext, config: BotConfig) -> SeatBook:
    return await SeatBook.open(js, Identity.new(config.replica_id), config.stream_replicas)


def main(config: BotConfig) -> None:
    base = config.base
    refuse_unknown_loop("bot", base.event_loop)  # as every service, before anything starts
    configure_logging("bot", base.log_format, base.log_level)
    serve_metrics(base.metrics_port, base.metrics_host)
    log = structlog.get_logger()

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        nc = await connect(base.nats_url, "bot", base.nats_seed_file, base.failover)
        log.info("connected", nats=base.nats_url, replica=config.replica_id)
        try:
            book = await open_book(nc.jetstream(), config)
            async with MatchClient(config.lobby_addr, ca_file=config.lobby_ca) as client:
                await Bot(config, client, book).run(stop)
        finally:
            with contextlib.suppress(Exception):
                await nc.drain()
        log.info("stopped")

    tune_gc()
    run_loop(base.event_loop, run())  # uvloop by default, as the other services
