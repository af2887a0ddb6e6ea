"""The race's scripted demo player (``make demo``): see match_client.demo."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
from collections.abc import Awaitable, Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import common_pb2, race_pb2
from match_bus.clock import Clock
from match_client.client import (
    MatchClient,
    Seat,
    error_details,
    is_rpc_error,
    refusal_code,
    status_name,
)
from match_client.clock import ServerClock
from match_client.race import text
from match_client.race.tracker import RaceView, ViewTracker
from match_client.scripted import GAME_TIMEOUT_S, audit_command, players_lines, say, sign_in
from match_client.session import GameSession

TILES = 20
CLEAR_NOT_BEFORE_MS = 12_500


class ScriptedPlayer:
    """A perfect memory at a human pace. Knows only what its own turns showed it."""

    def __init__(self, client: MatchClient, seat: Seat, pace: float, rng: random.Random) -> None:
        self.session = GameSession.of(client, "race", seat)
        self.tracker = ViewTracker(player=seat.player_id, table_id=seat.table_id)
        system = Clock.from_env()  # the wall clock, unless a test runs the system faster
        self.clock = ServerClock(system.now_ms, system.rate)
        self.pace = pace
        self.rng = rng
        self.memory: dict[int, int] = {}
        self.memory_board = 0
        self.readied: set[int] = set()
        self.changed = asyncio.Event()
        self.last_note = ""

    def take(self, events: list[common_pb2.EventEnvelope]) -> None:
        for env in self.tracker.apply_events(events):
            self.clock.observe(env.server_time_ms)
            race = env.race
            if env.HasField("race") and race.HasField("tile_turned"):
                e = race.tile_turned
                if e.player == self.tracker.player:
                    self.remember(e.board, e.tile, e.symbol)
            if env.HasField("race") and race.HasField("board_revealed"):
                b = race.board_revealed
                say(f"board {b.board} result:")
                for line in text.results_lines(self.tracker, b.results):
                    say(f"  {line}")
        self.changed.set()

    def remember(self, board: int, tile: int, symbol: int) -> None:
        if board != self.memory_board:
            self.memory_board, self.memory = board, {}
        self.memory[tile] = symbol

    async def watch(self) -> None:
        failures = 0
        while True:
            try:
                async for item in self.session.watch(self.tracker.event_number, skip_answered=True):
                    failures = 0
                    if item.HasField("snapshot"):
                        self.tracker.apply_snapshot(item.snapshot)
                        self.clock.observe(item.snapshot.server_time_ms)
                        self.changed.set()
                    else:
                        self.take([item.event])
                if self.tracker.game_over:
                    return
            except Exception as err:
                if not is_rpc_error(err) or status_name(err) in ("UNAUTHENTICATED", "NOT_FOUND"):
                    raise
                failures += 1
            await asyncio.sleep(min(0.5 * 2**failures, 5.0))

    def next_tile(self) -> int:
        t = self.tracker
        found, showing = t.found, t.showing
        if t.board != self.memory_board:
            self.memory_board, self.memory = t.board, {}
        seen = {k: v for k, v in self.memory.items() if k not in found}
        unseen = [n for n in range(1, TILES + 1) if n not in seen and n not in found]
        if len(showing) == 1:
            first = showing[0]
            partner = [k for k, v in seen.items() if k != first and v == seen.get(first)]
            rest = [n for n in unseen if n != first] or [
                n for n in range(1, TILES + 1) if n not in found and n != first
            ]
            return partner[0] if partner else self.rng.choice(rest)
        by_symbol: dict[int, list[int]] = {}
        for k, v in sorted(seen.items()):
            by_symbol.setdefault(v, []).append(k)
        for tiles in by_symbol.values():
            free = [k for k in tiles if k not in showing]
            if len(tiles) == 2 and free:
                return free[0]
        choices = [n for n in unseen if n not in showing] or [
            n for n in range(1, TILES + 1) if n not in found and n not in showing
        ]
        return self.rng.choice(choices)

    async def wait_change(self, timeout: float) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)

    async def play(self) -> None:
        while not self.tracker.game_over:
            t = self.tracker
            if (
                t.phase == RaceView.PHASE_READY
                and t.status == RaceView.STATUS_WAITING
                and t.board not in self.readied
            ):
                board = t.board
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.pace)
                await self.send(lambda: self.session.send("PressReady"))
                self.readied.add(board)
                continue
            if t.phase == RaceView.PHASE_PLAYING and t.status == RaceView.STATUS_PLAYING:
                await self.turn()
                continue
            await self.wait_change(0.5)

    async def turn(self) -> None:
        t = self.tracker
        board, found, showing = t.board, t.found, t.showing
        tile = self.next_tile()
        at = self.clock.now() + self.clock.server_ms(self.rng.uniform(600, 1500) * self.pace)
        if t.paused_until_ms:
            at = max(at, t.paused_until_ms + 50)
        if len(found) >= TILES - 2:  # the last pair: never a clear under 12 s
            at = max(at, t.starts_at_ms + CLEAR_NOT_BEFORE_MS)
        await asyncio.sleep(max(self.clock.local_delay_s(at), 0.05))
        if (t.board, t.found, t.showing) != (board, found, showing):
            return
        if t.status != RaceView.STATUS_PLAYING:
            return
        tile_turn = tile
        await self.send(lambda: self.session.send("TurnTile", tile=tile_turn))

    async def send(self, call: Callable[[], Awaitable[Any]]) -> None:
        try:
            reply = await call()
        except Exception as err:
            if not is_rpc_error(err):
                raise
            code = refusal_code(err)
            note = (
                f"  (refused: {code}: {error_details(err)})"
                if code
                else f"  (no answer: {status_name(err)}; trying again)"
            )
            if note != self.last_note:  # once per outage, not once per try
                say(note)
            self.last_note = note
            await asyncio.sleep(0.25)
            return
        self.last_note = ""
        self.take(list(reply.events))
        self.tracker.apply_counters(reply.counters)


def check_seed(t: ViewTracker) -> list[str]:
    """Deal the boards again from the published seed and compare them with the reveals."""
    if t.seed is None:
        return ["the seed was not published"]
    out = [f"published seed: {t.seed.hex()} ({t.deal_version})"]
    if t.commitment:
        ok = hashlib.sha256(t.seed).hexdigest() == t.commitment
        out.append(f"its SHA-256 {'matches' if ok else 'DOES NOT match'} the commitment")
    try:
        from match_rules.race.deal import DEAL_VERSION, deal_board
    except ImportError:  # pragma: no cover - the SDK alone, without the rules
        return out
    if t.deal_version and t.deal_version != DEAL_VERSION:
        return [*out, f"cannot deal {t.deal_version} here (this checkout deals {DEAL_VERSION})"]
    same = all(tuple(deal_board(t.seed, r.board)) == r.layout for r in t.revealed)
    out.append(
        f"dealt again from the seed, the {len(t.revealed)} revealed boards "
        + ("are the same, tile by tile" if same else "DIFFER")
    )
    return out


async def demo(
    addr: str,
    pace: float,
    seed: int | None,
    ca_file: str | None = None,
    tls: bool = False,
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    """A two-seat race against the bot (a ranked game: the players service rates it)."""
    rng = random.Random(seed)
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, say)
        seat = await client.create_table(
            race_pb2.RaceSettings(ready_window_ms=30_000, hints_per_board=3),
            seats=2,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name="Demo",
        )
        say(f"game {seat.table_id}")
        table = await client.start_table(seat.table_id, seat.token)
        player = ScriptedPlayer(client, seat, pace, rng)
        player.tracker.note_table(table)
        say("the bot is filling the other seat; playing seat 1")
        watcher = asyncio.create_task(player.watch())
        try:
            await asyncio.wait_for(player.play(), GAME_TIMEOUT_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watcher), 15)  # until the seed is out
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        t = player.tracker
        if t.seed is None:  # the stream ended first: a fresh view has it
            with contextlib.suppress(Exception):
                async for item in player.session.watch(0):
                    if item.HasField("snapshot"):
                        t.apply_snapshot(item.snapshot)
                        break
        for line in text.standings_lines(t, t.standings):
            say(line)
        for line in check_seed(t):
            say(line)
        if t.game_over:
            say(f"check this game against the ledger: {audit_command(seat.table_id)}")
            if signed:
                for line in players_lines("race", True, client.command()):
                    say(line)
        return 0 if t.game_over else 1
