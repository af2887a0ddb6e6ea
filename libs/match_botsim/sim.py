"""Whole games of Match played by simulated players against the rules core, on a simulated clock.

No network and no real time: every command goes through ``match_rules.race.decide`` and
``evolve`` exactly as the referee would send it, stamped with a simulated ``now``. Each player
plans its next turn (when and which tile) from its own view; the simulator sends the earliest
planned turn, or a ``Tick`` when a deadline of the rules comes first, and tells each player only
about its own turns.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from match_botsim.players import OwnBoard, SimPlayer
from match_rules.errors import RuleError
from match_rules.race import Phase, RaceState, decide, evolve, initial_state, next_deadline
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.deal import DEAL_VERSION, deal
from match_rules.race.settings import TURNS_PER_BOARD

START_MS = 1_700_000_000_000  # the simulated clock starts here (any instant would do)
READY_WINDOW_MS = 30_000
HINTS_PER_BOARD = 3
MAX_REFUSALS = 100  # a player refused this often in one game is a bug, not a strategy
RETRY_MS = 300  # after a refusal a player chooses again this much later


def game_seed(label: str) -> bytes:
    """A reproducible 32-byte game seed from a label (the bench's fixed seeds)."""
    return hashlib.sha256(f"match-botsim/{label}".encode()).digest()


@dataclass(frozen=True, slots=True)
class BoardRecord:
    """One player's result on one board, from the reveal, plus the turn-budget count."""

    board: int
    player: str
    kind: str
    outcome: ev.Outcome
    pairs: int  # as scored (0 if disqualified)
    found: int
    turns: int
    time_ms: int
    pairs_in_budget: int  # pairs found within the player's first ``budget`` turns

    @property
    def cleared(self) -> bool:
        return self.outcome is ev.Outcome.CLEARED

    @property
    def disqualified(self) -> bool:
        return self.outcome is ev.Outcome.DISQUALIFIED


@dataclass(frozen=True, slots=True)
class GameRecord:
    boards: tuple[BoardRecord, ...]
    standings: tuple[ev.Standing, ...]
    refused: int  # turns the rules refused (a correct player has none)

    def place(self, player: str) -> int:
        return next(s.place for s in self.standings if s.player == player)


@dataclass
class _Game:
    state: RaceState
    players: dict[str, SimPlayer]
    kinds: dict[str, str]
    budget: int
    plans: dict[str, tuple[int, int]] = field(default_factory=dict)
    last_turn: dict[str, int] = field(default_factory=dict)
    in_budget: dict[str, int] = field(default_factory=dict)
    records: list[BoardRecord] = field(default_factory=list)
    refused: int = 0

    def apply(self, command: cmd.Command) -> None:
        for event in decide(self.state, command):
            self.state = evolve(self.state, event)
            self.observe(event)

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.ReadyOpened):
            self.plans.clear()
            self.in_budget = dict.fromkeys(self.kinds, 0)
            for p in self.players.values():
                p.start_board(event.board)
        elif isinstance(event, ev.TileTurned):
            self.last_turn[event.player] = event.turn
            if event.player in self.players:
                self.players[event.player].saw(event)
        elif isinstance(event, ev.PairFound):
            if self.last_turn.get(event.player, 0) <= self.budget:
                self.in_budget[event.player] += 1
        elif isinstance(event, ev.BoardRevealed):
            self.plans.clear()
            for r in event.results:
                self.records.append(
                    BoardRecord(
                        board=event.board,
                        player=r.player,
                        kind=self.kinds[r.player],
                        outcome=r.outcome,
                        pairs=r.pairs,
                        found=r.found,
                        turns=r.turns,
                        time_ms=r.time_ms,
                        pairs_in_budget=self.in_budget.get(r.player, 0),
                    )
                )

    def own(self, player: str) -> OwnBoard | None:
        """The player's own board as its view shows it; None once its board is over."""
        board = self.state.board
        assert board is not None and board.starts_at is not None
        mine = board.players[player]
        if mine.outcome is not None:
            return None
        return OwnBoard(mine.found, mine.showing, mine.faces, mine.paused_until, board.starts_at)

    def plan(self, player: str, now: int) -> None:
        own = self.own(player)
        if own is None:
            self.plans.pop(player, None)
            return
        planned = self.players[player].plan(now, own)
        if planned is None:
            self.plans.pop(player, None)
        else:
            self.plans[player] = planned

    def step_playing(self) -> None:
        for player in self.players:
            if player not in self.plans:
                self.plan(player, self.state.now)
        due = next_deadline(self.state)
        assert due is not None
        if self.plans:
            player, (at, tile) = min(self.plans.items(), key=lambda kv: kv[1][0])
            if at < due:
                del self.plans[player]
                try:
                    self.apply(cmd.TurnTile(at, player, tile))
                except RuleError:
                    self.refused += 1
                    if self.refused > MAX_REFUSALS:
                        raise
                    self.plan(player, at + RETRY_MS)  # as the bot does: choose again shortly
                return
        self.apply(cmd.Tick(due))


def play_game(
    seed: bytes,
    seats: Sequence[tuple[str, SimPlayer | None]],
    *,
    budget: int = TURNS_PER_BOARD,
) -> GameRecord:
    """Play a whole game (three boards) dealt from ``seed``.

    ``seats`` are (player id, player) in seat order; a seat whose player is None presses Ready
    and never turns (how a solo board is measured: the rules need two seats). ``budget``: each
    record also counts the pairs found within the player's first ``budget`` turns."""
    players = {pid: p for pid, p in seats if p is not None}
    kinds = {pid: (p.kind if p is not None else "idle") for pid, p in seats}
    game = _Game(initial_state(deal(seed).boards), players, kinds, budget)
    game.apply(
        cmd.StartGame(
            START_MS,
            tuple(pid for pid, _ in seats),
            frozenset(),
            READY_WINDOW_MS,
            HINTS_PER_BOARD,
            DEAL_VERSION,
        )
    )
    while game.state.phase is not Phase.OVER:
        state = game.state
        board = state.board
        assert board is not None
        if state.phase is Phase.READY:
            opened = state.now
            presses = sorted(
                (opened + (players[p].ready_delay_ms() if p in players else 1_000), i, p)
                for i, p in enumerate(state.remaining)
                if p not in board.ready
            )
            for at, _, p in presses:
                game.apply(cmd.PressReady(max(at, game.state.now), p))
        elif state.phase is Phase.COUNTDOWN:
            assert board.starts_at is not None
            game.apply(cmd.Tick(board.starts_at))
        else:
            game.step_playing()
    return GameRecord(tuple(game.records), game.state.standings, game.refused)
