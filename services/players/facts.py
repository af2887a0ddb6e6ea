"""What one finished game tells the players' read models, from the table's own records.

A table's game counts once its seed is revealed (``SeedRevealed``: the referee appends it only
after the dealer has checked, with the game's own rules, that the game is over). Its records
are folded with the game's rules exactly as ``match-audit`` folds them, and the game's
``results`` say who won, each player's figures and leaderboard entries, and the daily puzzles
solved (``match_rules.game.Results``). Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from match.v1 import common_pb2, referee_pb2
from match_players.identity import is_keyed
from match_rules import registry
from match_rules.game import Game, Results


@dataclass(frozen=True, slots=True)
class Seated:
    player: str
    name: str
    is_bot: bool  # the bot service's seats and a game's CPU players

    @property
    def keyed(self) -> bool:
        """A player with a key of their own: the only players the read models keep."""
        return not self.is_bot and is_keyed(self.player)


@dataclass(frozen=True, slots=True)
class Finished:
    """One finished game, as the read models take it."""

    game_id: str
    game: Game
    ended_at_ms: int  # the referee's clock at the game's last event
    seats: tuple[Seated, ...]  # in seat order
    results: Results

    def seat(self, player: str) -> Seated | None:
        return next((s for s in self.seats if s.player == player), None)


class NotAGame(Exception):
    """The records do not make one finished game the rules can fold (said why)."""


def has_reveal(record: referee_pb2.TableRecord) -> bool:
    """Whether the record reveals its table's seed: the table's game is over."""
    return any(
        env.HasField("table") and env.table.WhichOneof("event") == "seed_revealed"
        for env in record.events
    )


def finished(records: Sequence[referee_pb2.TableRecord]) -> Finished:
    """The finished game in a table's records (the first up to its SeedRevealed)."""
    seats: dict[int, Seated] = {}
    game: Game | None = None
    state: Any = None
    game_id = ""
    ended = 0
    for record in records:
        for env in record.events:
            which = env.WhichOneof("body")
            if which == "table":
                _seat_event(env.table, seats)
                if env.table.WhichOneof("event") == "seed_revealed":
                    return _done(game, state, game_id, ended, seats)
                continue
            if which is None:
                continue
            if game is None:
                game = registry.by_slug(which)
                state = game.initial_state(None)
            if which != game.slug:
                raise NotAGame(f"two games at one table: {game.slug} and {which}")
            state = game.evolve(state, game.decode(getattr(env, which)))
            game_id = env.game_id or env.table_id
            ended = env.server_time_ms
    raise NotAGame("the records hold no SeedRevealed")


def _seat_event(event: common_pb2.TableEvent, seats: dict[int, Seated]) -> None:
    kind = event.WhichOneof("event")
    if kind == "player_seated":
        s = event.player_seated
        seats[s.seat] = Seated(s.player_id, s.display_name, s.is_bot)
    elif kind == "player_left":
        seats.pop(event.player_left.seat, None)


def _done(
    game: Game | None, state: Any, game_id: str, ended: int, seats: dict[int, Seated]
) -> Finished:
    if game is None:
        raise NotAGame("a seed revealed before any game event")
    results = game.results(state)
    if results is None:
        raise NotAGame(f"the seed was revealed but the {game.slug} rules say it is not over")
    return Finished(game_id, game, ended, tuple(seats[n] for n in sorted(seats)), results)
