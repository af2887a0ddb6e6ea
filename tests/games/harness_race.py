"""The race for the conformance suite (tests/games/harness.py): its tables, moves, refusals and
leak checks."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from match.v1 import race_command_pb2, race_pb2, views_pb2
from match_rules.game import Game, SeatInfo
from tests.games.harness import CountedMoves, Leaks

Command = race_command_pb2.RaceCommand
View = views_pb2.RaceView
PRIVATE = {"tile_turned", "pair_found", "attempt_missed", "tiles_turned_down", "hint_given"}


class RaceHarness:
    slug = "race"
    # The seats its seed allows, by hand (docs/rules-*.md): the race is for 2 to 4 players.
    seats = (2, 4)
    # A player's moves (turns), and the least its rules page names for a rated game.
    counted_moves: CountedMoves | None = (
        lambda state, p: next(s.turns for s in state.standings if s.player == p),
        10,
    )

    def tick_chance(self, state: Any) -> float:
        return {"playing": 0.01, "ready": 0.05}.get(state.phase.value, 0.3)  # a cap ends a board

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        count = rng.randint(game.min_seats, game.max_seats)
        seats = [SeatInfo(n, f"p{n}", f"P{n}", n > 1 and rng.random() < 0.5)
                 for n in range(1, count + 1)]  # fmt: skip
        settings = rng.choice([None, race_pb2.RaceSettings(ready_window_ms=10_000)])
        return settings, seats

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        player = rng.choice(list(state.remaining) or players)
        r = rng.random()
        if r < 0.2 or (state.phase.value == "ready" and r < 0.9):
            return Command(player_id=player, press_ready=Command.PressReady())
        if r < 0.25:
            return Command(player_id=player, request_hint=Command.RequestHint())
        if r < 0.252:
            return Command(player_id=player, resign=Command.Resign())
        return Command(player_id=player, turn_tile=Command.TurnTile(tile=rng.randint(0, 21)))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        me = players[0]
        return [
            Command(player_id=me, turn_tile=Command.TurnTile(tile=0)),
            Command(player_id=me, turn_tile=Command.TurnTile(tile=21)),
            Command(player_id="stranger", turn_tile=Command.TurnTile(tile=1)),
            Command(player_id="stranger", press_ready=Command.PressReady()),
            Command(player_id=me, start_game=Command.StartGame()),
            Command(player_id=me),
        ]

    def bad_settings(self) -> list[Message]:
        return [
            race_pb2.RaceSettings(ready_window_ms=5),
            race_pb2.RaceSettings(ready_window_ms=10_000, hints_per_board=11),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return RaceLeaks(viewer)


@dataclass
class RaceLeaks:
    """tests/e2e/leaks.py at the level of the pure views: another player's private event never
    reaches a viewer; a snapshot shows a symbol only on a tile the viewer turned; an opponent's
    view has no tiles; the seed only once the game is over."""

    me: str
    turned: set[tuple[int, int, int]] = field(default_factory=set)

    def event(self, real: Any, wire: Message) -> None:
        kind = wire.WhichOneof("event")
        assert kind is not None
        body = getattr(wire, kind)
        if kind in PRIVATE:
            assert body.player == self.me, f"{self.me!r} received {kind} of {body.player}"
        if kind == "tile_turned":
            self.turned.add((body.board, body.tile, body.symbol))

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, View)
        for tile in view.tiles:
            if tile.HasField("symbol"):
                assert (view.board, tile.tile, tile.symbol) in self.turned, (
                    f"{self.me!r}'s snapshot shows tile {tile.tile}, never turned by them"
                )
        if view.HasField("seed"):
            assert view.phase == View.PHASE_GAME_OVER, "the seed in a live view"
        for opponent in view.opponents:
            assert not {f.name for f, _ in opponent.ListFields()} & {"tiles", "symbol"}


HARNESS = RaceHarness()
