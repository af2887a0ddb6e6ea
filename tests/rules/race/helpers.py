"""Given / when / then for Match, the race: a game driven through the pure core only."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from match_rules.errors import Code, RuleError
from match_rules.race import commands as cmd
from match_rules.race import decide, evolve, initial_state
from match_rules.race import events as ev
from match_rules.race.state import RaceState

# Board 1: tile t carries symbol (t-1)//2, so the pairs are (1,2), (3,4), ... (19,20).
# Board 2: tile t carries (t-1)%10 + 10: the pairs are (1,11), (2,12), ... (10,20).
# Board 3: board 1 mirrored: the pairs are (20,19), ..., with symbols 24..15.
BOARD_1 = tuple((t - 1) // 2 for t in range(1, 21))
BOARD_2 = tuple((t - 1) % 10 + 10 for t in range(1, 21))
BOARD_3 = tuple(24 - s for s in BOARD_1)
DEAL = (BOARD_1, BOARD_2, BOARD_3)
PAIRS_1 = [(2 * i + 1, 2 * i + 2) for i in range(10)]
PAIRS_2 = [(i, i + 10) for i in range(1, 11)]
PAIRS_3 = PAIRS_1

OPENED = 1_000_000  # when the table filled and Ready opened for board 1
WINDOW = 30_000
ANN, BOB, CAT, BOT = "ann", "bob", "cat", "bot-1"


@dataclass
class Game:
    """A game in progress. ``when`` runs a command, keeps its events and returns them."""

    state: RaceState
    log: list[ev.Event] = field(default_factory=list)

    @classmethod
    def new(cls, deal: tuple[tuple[int, ...], ...] = DEAL) -> Game:
        return cls(initial_state(deal))

    @classmethod
    def started(
        cls,
        players: tuple[str, ...] = (ANN, BOB),
        bots: frozenset[str] = frozenset(),
        hints: int = 3,
        deal: tuple[tuple[int, ...], ...] = DEAL,
    ) -> Game:
        game = cls.new(deal)
        game.when(cmd.StartGame(OPENED, players, bots, WINDOW, hints, "test-deal"))
        return game

    @classmethod
    def playing(cls, players: tuple[str, ...] = (ANN, BOB), **kw: object) -> Game:
        """Board 1 under way: everybody pressed Ready at OPENED + 1000; T0 = OPENED + 4000."""
        game = cls.started(players, **kw)  # type: ignore[arg-type]
        for p in players:
            game.when(cmd.PressReady(OPENED + 1000, p))
        game.when(cmd.Tick(game.t0))
        return game

    @property
    def t0(self) -> int:
        assert self.state.board is not None and self.state.board.starts_at is not None
        return self.state.board.starts_at

    @property
    def board(self) -> int:
        assert self.state.board is not None
        return self.state.board.number

    def when(self, command: cmd.Command) -> list[ev.Event]:
        events = decide(self.state, command)
        for e in events:
            self.state = evolve(self.state, e)
        self.log.extend(events)
        return events

    def refused(self, command: cmd.Command, code: Code) -> RuleError:
        """Assert the command is refused with ``code`` and changes nothing."""
        before = self.state
        with pytest.raises(RuleError) as caught:
            decide(self.state, command)
        assert caught.value.code is code, caught.value
        assert caught.value.message
        assert self.state is before
        return caught.value

    def turn(self, at: int, player: str, *tiles: int) -> list[ev.Event]:
        out: list[ev.Event] = []
        for tile in tiles:
            out += self.when(cmd.TurnTile(at, player, tile))
        return out

    def find_pairs(
        self, player: str, pairs: list[tuple[int, int]], start: int, step: int = 500
    ) -> int:
        """Turn the given pairs one tile every ``step`` ms from ``start``; returns the last time."""
        at = start
        for a, b in pairs:
            self.when(cmd.TurnTile(at, player, a))
            at += step
            self.when(cmd.TurnTile(at, player, b))
            at += step
        return at - step

    def pairs_for(self, board: int) -> list[tuple[int, int]]:
        return {1: PAIRS_1, 2: PAIRS_2, 3: PAIRS_3}[board]

    def of(self, kind: type) -> list[ev.Event]:
        return [e for e in self.log if isinstance(e, kind)]
