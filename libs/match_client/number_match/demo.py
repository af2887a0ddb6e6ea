"""Number Match's scripted demo player (``make demo GAME=number-match``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_bus.clock import Clock
from match_client import number_match
from match_client.client import (
    MatchClient,
    Seat,
)
from match_client.clock import ServerClock
from match_client.number_match import NumberMatchPlay
from match_client.scripted import GAME_TIMEOUT_S, audit_command, players_lines, say, sign_in

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
            return await self.play.call(lambda: self.play.session.send("AddNumbers"))
        first, second = move
        return await self.play.pair(first + 1, second + 1)

    async def hint(self) -> bool:
        """Ask a hint and play what it says; False if none was given (refused, or stuck)."""
        t = self.play.tracker
        before = t.hints_left
        if (
            not await self.play.call(lambda: self.play.session.send("AskHint"))
            or t.hints_left == before
        ):
            return False
        if t.hint is None:
            return False
        kind, first, second = t.hint
        if kind == number_match.PAIR:
            self.out(f"hint {3 - t.hints_left}: cells {first} and {second}")
            return await self.play.pair(first, second)
        if kind == number_match.ADD:
            self.out(f"hint {3 - t.hints_left}: add numbers")
            return await self.play.call(lambda: self.play.session.send("AddNumbers"))
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
        seat = await client.create_table(settings, display_name="Demo")
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
