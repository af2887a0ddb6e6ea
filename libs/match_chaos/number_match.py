"""The chaos run's Number Match player: one seat (the game starts at once), played to its end
as the demo plays it: the three hints first, each played, then a clearing its own solver finds
from the board it sees (planned again whenever the board is not the one the plan expects), the
first pair it sees when the solver finds none, and the game ended when nothing is left to do."""

from __future__ import annotations

import random
from typing import Any

from match.v1 import number_match_pb2
from match_bus.clock import Clock
from match_chaos.player import Rpc, TrackedSeat
from match_client.number_match import ADD, PAIR, NumberMatchTracker
from match_client.session import GameSession
from match_rules.number_match import board as boards
from match_rules.number_match import solver

Settings = number_match_pb2.NumberMatchSettings
SOLVE_BUDGET = 50_000  # positions the solver may visit for one plan (a count: the same anywhere)


def settings(rng: random.Random) -> Settings:
    """The easy level (a board the solver clears quickly)."""
    del rng
    return Settings(level=Settings.LEVEL_EASY)


class NumberMatchChaosPlayer(TrackedSeat):
    tracker: NumberMatchTracker

    def __init__(
        self,
        addr: str,
        name: str,
        clock: Clock,
        rng: random.Random,
        retry_for_s: float = 90.0,
        call_timeout_s: float = 8.0,
    ) -> None:
        super().__init__(addr, name, clock, rng, retry_for_s, call_timeout_s)
        self.tracker = NumberMatchTracker()
        self.plan: list[solver.Move] = []
        self.planned_for: tuple[int, ...] | None = None

    async def play_game(self, table_settings: Settings | None = None) -> None:
        await self.sign_in()
        seat = await self.retried(
            Rpc(
                "CreateTable",
                lambda rid: self.client.create_table(
                    table_settings or Settings(), display_name=self.name, request_id=rid
                ),
            )
        )
        self.tracker = NumberMatchTracker(player=seat.player_id, table_id=seat.table_id)
        self.session = GameSession.of(self.client, "number_match", seat)
        await self.follow_and_play(self.play)

    async def command(self, name: str, send: Any) -> bool:
        """One command; its events recorded and folded, its view taken unless the stream is
        ahead. False if refused (or given up)."""
        await self.think(500, 1500)
        reply = await self.answered(Rpc(name, send))
        if reply is None:
            await self.wait_change(0.5)
            return False
        self.take(list(reply.events))
        self.tracker.apply_view(reply.view)
        return True

    async def hint(self) -> bool:
        t = self.tracker
        before = t.hints_left
        if not await self.command(
            "AskHint", lambda rid: self.session.send("AskHint", request_id=rid)
        ):
            return False
        if t.hints_left == before or t.hint is None:
            return False
        kind, first, second = t.hint
        if kind == PAIR:
            return await self.pair(first, second)
        if kind == ADD:
            return await self.add()
        return False

    async def pair(self, first: int, second: int) -> bool:
        return await self.command(
            "PairCells",
            lambda rid: self.session.send("PairCells", request_id=rid, first=first, second=second),
        )

    async def add(self) -> bool:
        return await self.command(
            "AddNumbers", lambda rid: self.session.send("AddNumbers", request_id=rid)
        )

    def next_move(self) -> solver.Move | None:
        t = self.tracker
        if self.planned_for != t.board or not self.plan:
            found = solver.solve(t.board, t.additions_left, SOLVE_BUDGET)
            self.plan = list(found.moves) if found.status is solver.Status.SOLVABLE else []
            self.planned_for = t.board
        if self.plan:
            return self.plan.pop(0)
        pairs = boards.pair_moves(t.board)
        if pairs:
            return pairs[0]
        if t.additions_left != 0 and boards.can_add(t.board):
            return solver.ADD
        return None

    async def play(self) -> None:
        t = self.tracker
        while not t.started:
            await self.wait_change(0.5)
        undecided = 0
        while not t.game_over:
            if t.stale:  # the folded board may be wrong: the next view puts it right
                await self.wait_change(0.5)
                continue
            if t.hints_left > 0 and undecided < 3:
                if await self.hint():
                    continue
                undecided += 1
                continue
            move = self.next_move()
            if move is None:
                await self.command(
                    "EndGame", lambda rid: self.session.send("EndGame", request_id=rid)
                )
                continue
            ok = await (self.add() if move == solver.ADD else self.pair(move[0] + 1, move[1] + 1))
            if ok:
                self.planned_for = t.board
            else:
                self.plan, self.planned_for = [], None
