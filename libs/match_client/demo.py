"""``python -m match_client.demo`` (``make demo``): one whole game against the bot, scripted.

``--game concentration`` (``make demo GAME=concentration``) plays Concentration instead: a table
of ``--seats`` (3) whose other seats CPU players take at StartTable, played by a scripted player
with a perfect memory (a pair it knows, else cards it never saw) to the end; it prints the game
id, the standings and the published seed, deals the layout again from the seed and checks every
flip against it, and ends with the ``match-audit verify`` command.

``--game match-cards`` (``make demo GAME=match-cards``) plays a solo Match Cards game (pairs, 12
cards, Easy; the table starts as it is made) with a perfect memory, and prints the game id, the
result, the counters (groups found of the total, the time, failed attempts of the limit) and the
game code published at the end, which replays the same cards in the same places
(``Settings(code=...)``), then the ``match-audit verify`` command.

``--game number-match`` (``make demo GAME=number-match``) plays a solo Number Match game (easy;
the table starts as it is made): a scripted player that asks its 3 hints (AskHint) first and
plays what they say, and otherwise plays the moves a local ``solver.solve`` finds on the board it
sees (also when a hint is refused as undecided). It prints the game id, the score, whether the
board was cleared, the published seed and the ``match-audit verify`` command.

``--game match-5`` (``make demo GAME=match-5``) plays a whole MATCH 5 game of three scripted
players, Ann, Bob and Cid, each at their own seat through the real stack, with short timers
(``--writing-seconds`` 30, ``--vote-seconds`` 10) so that even a stuck game ends. Each writes a
link for every combination from a small word list keyed by round and combination: some links
match between players (the server groups them), one is the same word spelt differently, on
which Ann calls "Match!", and Cid once tries a link he used in round 1 and is refused. Everybody
votes on every ballot: they accept most and contest a few (Bob and Cid refuse one of Ann's), then
say Done to move on. It prints the game id, each round's scores, the winner(s) and the
``match-audit verify`` command; exit 0 when the game ended.

Every demo plays as the user's player key, the one ``match`` uses (made on first use in the same
config directory; ``--anonymous``: without it), so ``match profile`` shows its games afterwards,
and it ends by saying how to see the rating or the leaderboard (``match leaderboard --game
KIND``).

The race:

Makes an open table with two seats and hints, starts it so the bot fills the other seat, and
plays the first seat through the SDK like a careful person with a good memory: it thinks before
every turn, waits out the pause after a miss and never finishes a board under 12 s. It prints the
game id, each board's result, the final standings and the published seed, then deals the three
boards again from the seed and checks them against what was revealed, and ends with the exact
``match-audit verify`` command for the game. Exit 0 when the game finished.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import os
import random
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import common_pb2
from match_bus.clock import Clock
from match_client import identity, match_five, number_match, text
from match_client.client import (
    CommandReply,
    MatchClient,
    PlayerSession,
    Seat,
    default_address,
    default_ca,
    error_details,
    is_rpc_error,
    refusal_code,
    status_name,
)
from match_client.clock import ServerClock
from match_client.concentration import ConcentrationPlay, ConcentrationTracker
from match_client.concentration import seed_lines as concentration_seed_lines
from match_client.concentration import standings_lines as concentration_standings_lines
from match_client.number_match import NumberMatchPlay
from match_client.tracker import RaceView, ViewTracker

TILES = 20
CLEAR_NOT_BEFORE_MS = 12_500
GAME_TIMEOUT_S = 15 * 60


class ScriptedPlayer:
    """A perfect memory at a human pace. Knows only what its own turns showed it."""

    def __init__(self, client: MatchClient, seat: Seat, pace: float, rng: random.Random) -> None:
        self.session = PlayerSession(client, seat.table_id, seat.token)
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
                async for item in self.session.watch(self.tracker.event_number):
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
                await self.send(self.session.press_ready)
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
        await self.send(lambda: self.session.turn(tile_turn))

    async def send(self, call: Callable[[], Awaitable[CommandReply]]) -> None:
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


def say(line: str) -> None:
    print(line, flush=True)


async def sign_in(
    client: MatchClient, player: Ed25519PrivateKey | None, out: Callable[[str], None]
) -> bool:
    """Sign in with the player's key (None: play anonymously); False when the lobby has no
    player keys (then anonymously, said)."""
    if player is None:
        return False
    try:
        await client.sign_in(player)
    except Exception as err:
        if not is_rpc_error(err) or status_name(err) != "UNIMPLEMENTED":
            raise
        out("this lobby does not know player keys: playing without yours")
        return False
    return True


def players_lines(slug: str, rated: bool, match: str = "match") -> list[str]:
    """Where the signed-in player's game shows now; ``match`` is the command with the options
    that reach the lobby (``MatchClient.command``), so that the commands work as printed."""
    what = "your rating" if rated else "the leaderboard"
    return [
        f"see {what}: {match} leaderboard --game {slug}",
        f"and your statistics: {match} profile",
    ]


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
            seats=2,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name="Demo",
            ready_window_ms=30_000,
            hints_per_board=3,
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


def audit_command(game: str, env: Mapping[str, str] = os.environ) -> str:
    """The exact ``match-audit verify`` for the game, with the key where ``make run`` keeps it
    ($MATCH_VAR/ledger.vkey, or $MATCH_LEDGER_KEY) and the ledger's address when not the
    default ($LEDGER_ADDR)."""
    key = env.get("MATCH_LEDGER_KEY") or str(Path(env.get("MATCH_VAR") or "var") / "ledger.vkey")
    return text.audit_command(game, key, env.get("LEDGER_ADDR") or None)


class ScriptedConcentration:
    """One seat of Concentration with a perfect memory, at a person's pace: it flips a pair it
    knows, else a card it never saw (and the partner of the first, if it saw one)."""

    def __init__(self, client: MatchClient, seat: Seat, pace: float, rng: random.Random) -> None:
        system = Clock.from_env()
        self.play = ConcentrationPlay(
            client, seat, self.note, ServerClock(system.now_ms, system.rate), show_board=False
        )
        self.pace = pace
        self.rng = rng

    def note(self, line: str) -> None:
        if line.startswith(("refused", "cannot", "connection")):  # the rest is the stream's
            say(f"  ({line})")

    def next_card(self) -> int:
        t = self.play.tracker
        up = t.up
        if len(up) == 1:
            partner = t.partner_of(up[0])
            if partner is not None:
                return partner
            return self.rng.choice(t.unknown(up) or t.face_down(up))
        pair = t.known_pair()
        if pair is not None:
            return pair[0]
        return self.rng.choice(t.unknown() or t.face_down())

    async def run(self) -> None:
        t = self.play.tracker
        watcher = asyncio.create_task(self.play.watch())
        try:
            while not t.game_over:
                if watcher.done():
                    await watcher  # its error, or the stream ended
                    return
                if not t.my_turn or t.i_am_cpu:
                    await asyncio.sleep(0.05)
                    continue
                before = t.event_number
                card = self.next_card()
                await asyncio.sleep(self.rng.uniform(0.3, 0.8) * self.pace)
                if t.event_number != before or not t.my_turn:
                    continue  # the table moved on meanwhile (the timer): look again
                await self.play.flip(card)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watcher), 15)  # until the seed is out
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)


def check_concentration_seed(t: ConcentrationTracker, flipped: dict[int, str]) -> list[str]:
    """The seed against the commitment, then the layout dealt again from it against every face
    the game showed."""
    out = concentration_seed_lines(t)
    if t.seed is None:
        return out
    try:
        from match_rules.registry import by_slug
    except ImportError:  # pragma: no cover - the SDK alone, without the rules
        return out
    game = by_slug("concentration")
    if t.deal_version and t.deal_version != game.deal_version:
        return [
            *out,
            f"cannot deal {t.deal_version} here (this checkout deals {game.deal_version})",
        ]
    faces = list(getattr(game.deal(t.seed, game.settings(t.settings)), "cards", []))
    same = all(0 < n <= len(faces) and faces[n - 1] == face for n, face in flipped.items())
    out.append(
        f"dealt again from the seed, the {len(flipped)} cards flipped "
        + ("show the same faces" if same else "DIFFER")
    )
    return out


async def demo_concentration(
    addr: str,
    pace: float,
    seed: int | None,
    seats: int,
    ca_file: str | None = None,
    tls: bool = False,
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    rng = random.Random(seed)
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, say)
        seat = await client.create_concentration_table(seats=seats, display_name="Demo")
        say(f"game {seat.table_id}")
        player = ScriptedConcentration(client, seat, pace, rng)
        player.play.tracker.note_table(await client.start_table(seat.table_id, seat.token))
        say(f"CPU players take the other {seats - 1} seats; playing seat 1")
        await asyncio.wait_for(player.run(), GAME_TIMEOUT_S)
        t = player.play.tracker
        for line in concentration_standings_lines(t):
            say(line)
        for line in check_concentration_seed(t, t.faces):
            say(line)
        if t.game_over:
            say(f"check this game against the ledger: {audit_command(seat.table_id)}")
            if signed:
                for line in players_lines("concentration", seats > 1, client.command()):
                    say(line)
        return 0 if t.game_over else 1


async def demo_match_cards(
    addr: str,
    ca_file: str | None = None,
    tls: bool = False,
    out: Callable[[str], None] = say,
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    """One solo Match Cards game with a perfect memory; prints id, result, counters, code."""
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, out)
        seat = await client.create_match_cards_table(display_name="Demo")
        session = client.match_cards(seat)
        out(f"game {seat.table_id}")
        seen: dict[int, str] = {}
        found: set[int] = set()
        state: dict[str, object] = {}
        changed = asyncio.Event()

        async def follow() -> None:
            async for item in session.watch():
                if item.WhichOneof("item") == "snapshot":
                    state["view"] = item.snapshot
                elif item.event.HasField("match_cards"):
                    event = item.event.match_cards
                    kind = event.WhichOneof("event")
                    body = getattr(event, kind)
                    if kind == "game_started":
                        state["cards"], state["limit"] = body.settings.cards, body.limit
                    elif kind == "card_turned":
                        seen[body.card] = body.picture
                    elif kind in ("group_found", "attempt_failed"):
                        if kind == "group_found":
                            found.update(body.cards)
                        state["outcomes"] = int(str(state.get("outcomes", 0))) + 1
                    elif kind == "player_finished":
                        state["finished"] = body
                    elif kind == "game_ended":
                        state["ended"] = body
                changed.set()

        async def until(condition: Callable[[], bool]) -> None:
            while not condition():
                changed.clear()
                await asyncio.wait_for(changed.wait(), 60)

        watcher = asyncio.create_task(follow())
        try:
            await until(lambda: "cards" in state)
            size = int(str(state["cards"]))
            while "finished" not in state:
                loose: dict[str, list[int]] = {}
                for card, picture in sorted(seen.items()):
                    if card not in found:
                        loose.setdefault(picture, []).append(card)
                pair = next((c for c in loose.values() if len(c) >= 2), None)
                hidden = [c for c in range(1, size + 1) if c not in found]
                if not hidden:  # every group found: the end is on its way
                    await until(lambda: "finished" in state)
                    break
                if pair is None:
                    first = next((c for c in hidden if c not in seen), hidden[0])
                    outcomes = int(str(state.get("outcomes", 0)))
                    await session.turn(first)
                    await until(lambda c=first: c in seen)  # type: ignore[misc]
                    partner = next(
                        (c for c in loose.get(seen[first], []) if c != first),
                        next((c for c in hidden if c not in seen and c != first), None),
                    )
                    if partner is None:
                        partner = next(c for c in hidden if c != first)
                    await session.turn(partner)
                else:
                    outcomes = int(str(state.get("outcomes", 0)))
                    for card in pair[:2]:
                        await session.turn(card)
                await until(
                    lambda o=outcomes: (
                        int(str(state.get("outcomes", 0))) > o  # type: ignore[misc]
                        or "finished" in state
                    )
                )
            await until(lambda: "ended" in state)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher
        done: Any = state["finished"]
        ended: Any = state["ended"]
        out(f"result: {'won' if done.won else 'lost'}")
        out(
            f"counters: {done.groups} of {size // 2} groups found, "
            f"{done.time_ms / 1000:.1f} s, {done.failed} of {state['limit']} failed attempts"
        )
        out(f"game code: {ended.code}")
        replay = client.command(f"play --game match-cards --new --code {ended.code}")
        out(f"replay it (same cards, same places; not ranked): {replay}")
        out(f"check this game against the ledger: {audit_command(seat.table_id)}")
        for line in players_lines("match-cards", False, client.command()) if signed else []:
            out(line)
        return 0


SOLVE_BUDGET = 200_000  # positions the demo's solver may visit for one plan


class ScriptedNumberMatch:
    """One Number Match game to its end: hints first, then a plan from the local solver, made
    again whenever the board is not the one the plan expects."""

    def __init__(self, client: MatchClient, seat: Seat, out: Callable[[str], None]) -> None:
        system = Clock.from_env()
        self.play = NumberMatchPlay(
            client,
            seat,
            self.note,
            ServerClock(system.now_ms, system.rate),
            audit=f"check this game against the ledger: {audit_command(seat.table_id)}",
            show_board=False,
        )
        self.out = out
        self.plan: list[tuple[int, int]] = []
        self.planned_for: tuple[int, ...] | None = None

    def note(self, line: str) -> None:
        if line.startswith(("refused", "error", "cannot", "connection")):
            self.out(f"  {line}")

    def solve(self) -> list[tuple[int, int]]:
        """The local solver's moves from the board as it is (0-based pairs, or ``ADD``)."""
        from match_rules.number_match import solver

        t = self.play.tracker
        solution = solver.solve(t.board, t.additions_left, SOLVE_BUDGET)
        if solution.status is not solver.Status.SOLVABLE:
            self.out(f"  (the solver found no clearing: {solution.status.value}; any pair then)")
        return list(solution.moves)

    def fallback(self) -> tuple[int, int] | None:
        from match_rules.number_match import board as boards
        from match_rules.number_match import solver

        t = self.play.tracker
        pairs = boards.pair_moves(t.board)
        if pairs:
            return pairs[0]
        if t.additions_left != 0 and boards.can_add(t.board):
            return solver.ADD
        return None

    async def move(self, move: tuple[int, int]) -> bool:
        """Send one solver move (``ADD`` or a 0-based pair); True if accepted."""
        from match_rules.number_match import solver

        if move == solver.ADD:
            return await self.play.call(self.play.session.add)
        first, second = move
        return await self.play.pair(first + 1, second + 1)

    async def hint(self) -> bool:
        """Ask a hint and play what it says; False if none was given (refused, or stuck)."""
        t = self.play.tracker
        before = t.hints_left
        if not await self.play.call(self.play.session.hint) or t.hints_left == before:
            return False
        if t.hint is None:
            return False
        kind, first, second = t.hint
        if kind == number_match.PAIR:
            self.out(f"hint {3 - t.hints_left}: cells {first} and {second}")
            return await self.play.pair(first, second)
        if kind == number_match.ADD:
            self.out(f"hint {3 - t.hints_left}: add numbers")
            return await self.play.call(self.play.session.add)
        return False

    async def run(self) -> None:
        t = self.play.tracker
        watcher = asyncio.create_task(self.play.watch())
        try:
            while not t.started:
                await asyncio.sleep(0.05)
                if watcher.done():
                    await watcher
                    return
            undecided = 0
            while not t.game_over:
                if t.hints_left > 0 and undecided < 3:
                    if await self.hint():
                        continue
                    undecided += 1  # refused (hint_undecided): the local solver plays
                if self.planned_for != t.board or not self.plan:
                    self.plan = self.solve()
                    self.planned_for = t.board
                move = self.plan.pop(0) if self.plan else self.fallback()
                if move is None:
                    await self.play.end()
                    break
                if not await self.move(move):
                    self.plan = []
                    self.planned_for = None
                    continue
                self.planned_for = t.board
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watcher), 15)  # until the seed is out
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)


async def demo_number_match(
    addr: str,
    ca_file: str | None = None,
    tls: bool = False,
    out: Callable[[str], None] = say,
    level: str = "easy",
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    """One solo Number Match game to its end; prints id, score, cleared, seed and the audit."""
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, out)
        settings = number_match.settings_from(level)
        seat = await client.create_number_match_table(display_name="Demo", settings=settings)
        out(f"game {seat.table_id}")
        player = ScriptedNumberMatch(client, seat, out)
        await asyncio.wait_for(player.run(), GAME_TIMEOUT_S)
        t = player.play.tracker
        if not t.game_over:
            out("the game did not end")
            return 1
        out(f"the game: {number_match.settings_text(t)}")
        out(f"score: {t.score} in {t.moves} moves, {t.used_hints} of 3 hints used")
        outcome = number_match.OUTCOMES.get(t.outcome, "over")
        out(f"cleared: {'yes' if t.cleared else 'no'} ({outcome})")
        if t.seed is not None:
            out(f"published seed: {t.seed.hex()}")
        for line in number_match.witness_lines(t)[1:]:
            out(line)
        out(f"check this game against the ledger: {audit_command(seat.table_id)}")
        for line in players_lines("number-match", False, client.command()) if signed else []:
            out(line)
        return 0


# --- MATCH 5 -------------------------------------------------------------------------------

FIVE_PLAYERS = ("Ann", "Bob", "Cid")
# LINKS[round][combination]: what Ann, Bob and Cid write. Equal links (after normalising case
# and punctuation) match; "Doughnut" and "Donut" are one word spelt two ways, which the server
# does not group: Ann calls "Match!" on Bob's.
FIVE_LINKS: dict[int, dict[int, tuple[str, str, str]]] = {
    1: {
        1: ("Shark", "Shark", "Whale"),
        2: ("Doughnut", "Donut", "Pancake"),
        3: ("Lion", "Tiger", "lion"),
        4: ("Violin", "Guitar", "Drum"),
        5: ("Rose", "Tulip", "Daisy"),
        6: ("Paris", "paris!", "Rome"),
        7: ("Pirate", "Knight", "Wizard"),
        8: ("Teapot", "Kettle", "Teapot"),
        9: ("Rocket", "Comet", "Meteor"),
        10: ("Snowman", "Igloo", "Penguin"),
    },
    2: {
        1: ("Banana", "Mango", "Banana"),
        2: ("Castle", "Tower", "Palace"),
        3: ("Dragon", "dragon", "Unicorn"),
        4: ("Piano", "Trumpet", "Flute"),
        5: ("Owl", "Eagle", "Parrot"),
        6: ("London", "Berlin", "Madrid"),
        7: ("Robot", "Robot", "Robot"),
        8: ("Candle", "Lantern", "Torch"),
        9: ("Volcano", "Geyser", "Glacier"),
        10: ("Umbrella", "Raincoat", "Wellies"),
    },
}
FIVE_CALLS = {(1, 2): (0, 1)}  # (round, combination): the caller's seat index, the target's
# Round 2, combination 1: Cid (index 2) first tries "Whale", his link of round 1: refused.
FIVE_REUSE = (2, 1, 2, "Whale")
# (round, combination): the voters (seat indexes) who contest the link of Ann (index 0).
FIVE_CONTESTS = {(1, 4): (1, 2), (1, 9): (1,), (2, 5): (2,)}
CALL_WAIT_S = 5.0  # how long the others wait for an expected "Match!" before voting
FIVE_PACE_S = 0.06  # between two commands of one player: well inside the lobby's rate limit


class ScriptedFive:
    """One MATCH 5 seat played by script through ``MatchFivePlay``: writes its word list's
    links, says Done, and in the reading calls "Match!" where the script says, votes on every
    ballot (accepting most) and says Done again."""

    def __init__(
        self,
        client: MatchClient,
        seat: Seat,
        index: int,
        out: Callable[[str], None],
        seats: list[Seat],
    ) -> None:
        system = Clock.from_env()
        self.index = index
        self.name = FIVE_PLAYERS[index]
        self.out = out
        self.seats = seats  # everybody's, to know whose link a ballot is
        self.play = match_five.MatchFivePlay(
            client, seat, self.note, ServerClock(system.now_ms, system.rate), retries=3
        )
        self.written: set[int] = set()
        self.handled: set[tuple[int, int]] = set()

    def note(self, line: str) -> None:
        if line.startswith(("refused", "error", "cannot", "connection")):
            self.out(f"  {self.name}: {line}")

    def seat_of(self, player: str) -> int:
        return next((i for i, s in enumerate(self.seats) if s.player_id == player), -1)

    async def write_round(self, round_: int) -> None:
        reuse_round, reuse_combination, reuse_index, reuse_text = FIVE_REUSE
        if round_ == reuse_round and self.index == reuse_index:
            await self.play.write(reuse_combination, reuse_text)  # refused: used in round 1
        for combination, links in FIVE_LINKS[round_].items():
            await asyncio.sleep(FIVE_PACE_S)
            if self.play.tracker.phase != match_five.WRITING:
                return  # the sand timer ran out
            await self.play.write(combination, links[self.index])
        await asyncio.sleep(FIVE_PACE_S)
        await self.play.done()

    async def read_combination(self, round_: int, combination: int) -> None:
        t = self.play.tracker
        key = (round_, combination)
        call = FIVE_CALLS.get(key)
        if call is not None and call[0] == self.index:
            target = next(
                (b.ballot for b in t.ballots.values() if self.seat_of(b.player) == call[1]), None
            )
            if target is not None and t.my_links():
                await self.play.call_match(target)
        elif call is not None:  # wait for the call, to vote on it too
            deadline = asyncio.get_running_loop().time() + CALL_WAIT_S
            while t.combination == combination and not any(b.is_call for b in t.ballots.values()):
                if asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.05)
        contest = self.index in FIVE_CONTESTS.get(key, ())
        for ballot in t.to_vote():
            if t.combination != combination:
                return  # closed meanwhile (its timer)
            b = t.ballots.get(ballot)
            refuse = contest and b is not None and not b.is_call and self.seat_of(b.player) == 0
            await asyncio.sleep(FIVE_PACE_S)
            await self.play.vote(ballot, not refuse)
        await asyncio.sleep(FIVE_PACE_S)
        if t.combination == combination:
            await self.play.done()

    async def run(self) -> None:
        t = self.play.tracker
        watcher = asyncio.create_task(self.play.watch())
        try:
            while not t.game_over:
                if watcher.done():
                    await watcher  # its error, or the stream ended
                    return
                if t.phase == match_five.WRITING and t.round not in self.written:
                    self.written.add(t.round)
                    await self.write_round(t.round)
                elif t.phase == match_five.READING and t.combination:
                    key = (t.round, t.combination)
                    if key not in self.handled:
                        self.handled.add(key)
                        await self.read_combination(*key)
                        continue
                await asyncio.sleep(0.05)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watcher), 15)  # until the seed is out
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)


async def demo_match_five(
    addr: str,
    ca_file: str | None = None,
    tls: bool = False,
    out: Callable[[str], None] = say,
    writing_seconds: int = 30,
    vote_seconds: int = 10,
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    """Three scripted players through one MATCH 5 game; prints the game id, each round's
    scores, the winner(s) and the audit command. With ``player_key``, Ann is that player (Bob and
    Cid sit anonymously)."""
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, out)
        settings = match_five.settings_from(writing_seconds, vote_seconds)
        host = await client.create_match_five_table(
            seats=len(FIVE_PLAYERS), display_name=FIVE_PLAYERS[0], settings=settings
        )
        out(f"game {host.table_id}")
        seats = [host]
        for name in FIVE_PLAYERS[1:]:
            seats.append(
                await client.join_table(table_id=host.table_id, display_name=name, anonymous=True)
            )
        out(
            f"players: {', '.join(FIVE_PLAYERS)}; the sand timer {writing_seconds} s, "
            f"each combination's vote {vote_seconds} s"
        )
        players = [ScriptedFive(client, s, i, out, seats) for i, s in enumerate(seats)]
        for p in players:
            p.play.tracker.names.update(
                {s.player_id: n for s, n in zip(seats, FIVE_PLAYERS, strict=True)}
            )
        ann = players[0].play.tracker
        told: set[int] = set()  # the rounds told
        calls: set[int] = set()  # the "Match!" ballots told

        def tell() -> None:
            """Each round's scores and each "Match!"'s result, as Ann's stream brings them."""
            for scored in ann.rounds:
                if scored.round not in told:
                    told.add(scored.round)
                    scores = ", ".join(
                        f"{ann.names.get(s.player, s.player)} {s.points} "
                        f"({s.matching} matching, total {s.total})"
                        for s in scored.scores
                    )
                    out(f"round {scored.round} scores: {scores}")
            for closed in ann.closed:
                for r in closed.results:
                    b = ann.every_ballot.get(r.ballot)
                    if b is not None and b.is_call and r.ballot not in calls:
                        calls.add(r.ballot)
                        target = ann.every_ballot.get(b.target)
                        word = target.text if target is not None else f"ballot {b.target}"
                        verdict = "agreed" if r.accepted else "not agreed"
                        out(
                            f"{ann.names.get(b.player, b.player)} called Match! on "
                            f'"{word}": {verdict}, {r.accepts} to {r.contests}'
                        )

        players[0].play.changed = tell
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), GAME_TIMEOUT_S)
        if not ann.game_over:
            out("the game did not end")
            return 1
        ann.player = ""  # the lines name every player, Ann too
        for line in match_five.standings_lines(ann):
            out(line)
        if ann.seed is not None and ann.commitment:
            ok = hashlib.sha256(ann.seed).hexdigest() == ann.commitment
            out(
                f"published seed: {ann.seed.hex()} ({'matches' if ok else 'DOES NOT match'} "
                "the commitment)"
            )
        out(f"check this game against the ledger: {audit_command(host.table_id)}")
        for line in players_lines("match-5", True) if signed else []:
            out(line)
        return 0


def user_key(anonymous: bool) -> Ed25519PrivateKey | None:
    """The user's player key, as ``match`` keeps it (made, and said, on first use); None with
    ``anonymous``. KeyFileError when the key file cannot be used."""
    if anonymous:
        return None
    key, made = identity.load_or_create(identity.config_dir())
    if made:
        say(
            f"you are player {key.player_id}: your key is {key.path}; it is the only proof, "
            "keep a copy (match key export)"
        )
    return key.private


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m match_client.demo", description=__doc__)
    parser.add_argument(
        "--game",
        choices=("race", "concentration", "match-cards", "number-match", "match-5"),
        default="race",
        help="default: race",
    )
    parser.add_argument(
        "--seats", type=int, default=3, help="Concentration: seats at the table (default 3)"
    )
    parser.add_argument("--addr", default=None, help="default: $MATCH_ADDR, else 127.0.0.1:50051")
    parser.add_argument(
        "--ca", metavar="FILE", default=None, help="TLS, verified with this CA (default: $MATCH_CA)"
    )
    parser.add_argument("--tls", action="store_true", help="TLS, verified with the system's roots")
    parser.add_argument(
        "--pace", type=float, default=1.0, help="think-time scale: 1.0 is a person's pace"
    )
    parser.add_argument("--rng-seed", type=int, default=None, help="the scripted player's choices")
    parser.add_argument(
        "--writing-seconds", type=int, default=30, help="MATCH 5: the sand timer (default 30)"
    )
    parser.add_argument(
        "--vote-seconds", type=int, default=10, help="MATCH 5: each combination's vote (default 10)"
    )
    parser.add_argument(
        "--anonymous", action="store_true", help="play without your player key (no rating)"
    )
    args = parser.parse_args(argv)
    try:
        player_key = user_key(args.anonymous)
    except (identity.KeyFileError, OSError) as error:
        say(f"error: {error}")
        return 1
    try:
        if args.game == "match-5":
            return asyncio.run(
                demo_match_five(
                    args.addr or default_address(),
                    args.ca or default_ca(),
                    args.tls,
                    writing_seconds=args.writing_seconds,
                    vote_seconds=args.vote_seconds,
                    player_key=player_key,
                )
            )
        if args.game == "number-match":
            return asyncio.run(
                demo_number_match(
                    args.addr or default_address(),
                    args.ca or default_ca(),
                    args.tls,
                    player_key=player_key,
                )
            )
        if args.game == "match-cards":
            return asyncio.run(
                demo_match_cards(
                    args.addr or default_address(),
                    args.ca or default_ca(),
                    args.tls,
                    player_key=player_key,
                )
            )
        if args.game == "concentration":
            return asyncio.run(
                demo_concentration(
                    args.addr or default_address(),
                    args.pace,
                    args.rng_seed,
                    args.seats,
                    args.ca or default_ca(),
                    args.tls,
                    player_key=player_key,
                )
            )
        return asyncio.run(
            demo(
                args.addr or default_address(),
                args.pace,
                args.rng_seed,
                args.ca or default_ca(),
                args.tls,
                player_key=player_key,
            )
        )
    except KeyboardInterrupt:
        return 130
    except Exception as err:
        if not is_rpc_error(err):
            raise
        say(f"demo failed: {status_name(err)}: {error_details(err)}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
