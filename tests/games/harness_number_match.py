"""Number Match for the conformance suite (tests/games/harness.py): its tables, moves, refusals and
leak checks."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from match.v1 import number_match_command_pb2, number_match_pb2
from match_rules.game import Game, SeatInfo
from tests.games.harness import CountedMoves, Leaks

Settings = number_match_pb2.NumberMatchSettings
View = number_match_pb2.NumberMatchView
Command = number_match_command_pb2.NumberMatchCommand


class NumberMatchHarness:
    slug = "number_match"
    # The seats its seed allows, by hand (docs/rules-*.md): Number Match is solo.
    seats = (1, 1)
    counted_moves: CountedMoves | None = None  # solo: nothing to rate

    def tick_chance(self, state: Any) -> float:
        """The idle limit (30 minutes on) only rarely."""
        return 0.003

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice(
            [
                Settings(),
                Settings(level=Settings.LEVEL_MEDIUM),
                Settings(level=Settings.LEVEL_EXPERT),
                Settings(level=Settings.LEVEL_CLASSIC),
                Settings(level=Settings.LEVEL_HARD, replay_seed=bytes(range(32))),
                Settings(daily_date="2026-01-01"),  # T0's date at UTC
            ]
        )
        return settings, [SeatInfo(1, "p1", "P1", False)]

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        from match_rules.number_match import board as boards

        player = players[0] if rng.random() < 0.97 else "stranger"
        r = rng.random()
        if r < 0.05:
            return Command(player_id=player, add_numbers=Command.AddNumbers())
        if r < 0.09:
            return Command(player_id=player, ask_hint=Command.AskHint())
        if r < 0.15:
            return Command(player_id=player, undo=Command.Undo())
        if r < 0.153:
            return Command(player_id=player, end_game=Command.EndGame())
        pairs = boards.pair_moves(state.board) if state.board else []
        if pairs and rng.random() < 0.85:
            i, j = rng.choice(pairs)
            first, second = (i + 1, j + 1) if rng.random() < 0.5 else (j + 1, i + 1)
        else:
            size = max(len(state.board), 1)
            first, second = rng.randint(0, size + 1), rng.randint(0, size + 1)
        return Command(player_id=player, pair_cells=Command.PairCells(first=first, second=second))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        from match_rules.number_match import board as boards

        me = players[0]

        def pair(first: int, second: int, player: str = me) -> Message:
            return Command(
                player_id=player, pair_cells=Command.PairCells(first=first, second=second)
            )

        size = len(state.board)
        out = [pair(0, 1), pair(1, size + 1), pair(1, 1), pair(1, 2, "stranger")]
        out.append(Command(player_id=me))
        legal = set(boards.pair_moves(state.board)) if state.board else set()
        cells = [k for k, n in enumerate(state.board) if n]
        empty = [k for k, n in enumerate(state.board) if not n]
        if empty and cells:
            out.append(pair(empty[0] + 1, cells[0] + 1))
        for i in cells[:6]:
            for j in cells[:12]:
                if i < j and (i, j) not in legal:
                    out.append(pair(i + 1, j + 1))
        if state.additions_left == 0:
            out.append(Command(player_id=me, add_numbers=Command.AddNumbers()))
        if state.hints_left == 0:
            out.append(Command(player_id=me, ask_hint=Command.AskHint()))
        if not state.history:
            out.append(Command(player_id=me, undo=Command.Undo()))
        if state.phase.value == "over":
            out += [
                Command(player_id=me, undo=Command.Undo()),
                Command(player_id=me, end_game=Command.EndGame()),
                Command(player_id=me, add_numbers=Command.AddNumbers()),
            ]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            Settings(level=9),
            Settings(daily_date="2026-13-01"),
            Settings(daily_date="1 Dec 2026"),
            Settings(daily_date="2026-12-01", level=Settings.LEVEL_EASY),
            Settings(daily_date="2026-12-01", utc_offset_minutes=900),
            Settings(utc_offset_minutes=60),
            Settings(replay_seed=b"short"),
            Settings(level=Settings.LEVEL_CLASSIC, replay_seed=bytes(32)),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return NumberMatchLeaks(viewer)


@dataclass
class NumberMatchLeaks:
    """The board is the player's own, whole; what the rules hide is the witness (a complete
    solution) until the game is over: no event but GameOver carries it, and a view shows it
    only once over. A spectator (no seat) is refused by the shells; nothing here is theirs."""

    viewer: str
    over: bool = False

    def event(self, real: Any, wire: Message) -> None:
        if wire.WhichOneof("event") == "game_over":
            self.over = True

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, View)
        if view.phase != View.PHASE_GAME_OVER:
            assert not view.witness, "the witness in a live view"
            assert not view.HasField("seed"), "the seed in a live view"


HARNESS = NumberMatchHarness()
