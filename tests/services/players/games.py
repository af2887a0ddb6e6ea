"""Finished games' table records, made with the games' own rules (tests/audit/replay_records),
for the players service's tests: random race games between keyed players and the bot, each at
its own table."""

from __future__ import annotations

import random

from match.v1 import race_command_pb2, referee_pb2
from match_rules import registry
from match_rules.game import SeatInfo
from tests.audit.replay_records import Command, UntilOver, table_records

RaceCommand = race_command_pb2.RaceCommand
START = 1_800_000_000_000


def keyed(n: int) -> str:
    return f"k{n:023x}"


def retabled(
    records: list[referee_pb2.TableRecord], table_id: str
) -> list[referee_pb2.TableRecord]:
    """The same records at another table (the builder names one table)."""
    out = []
    for record in records:
        copy = referee_pb2.TableRecord()
        copy.CopyFrom(record)
        copy.table_id = table_id
        for env in copy.events:
            env.table_id = table_id
            env.game_id = table_id
        out.append(copy)
    return out


def race_game(
    rng: random.Random, players: list[str], table_id: str, start: int = START
) -> list[referee_pb2.TableRecord]:
    """A race between ``players`` (a bot too when there is one player): each is ready or not,
    turns a few random tiles, and the clock ends what is left."""
    game = registry.by_slug("race")
    seats = [SeatInfo(i + 1, p, f"Player {p[-3:]}", False) for i, p in enumerate(players)]
    if len(seats) < 2:
        seats.append(SeatInfo(2, f"bot{table_id}", "Bot 1", True))
    steps: list[object] = []
    at = start + 50
    for seat in seats:
        if rng.random() < 0.8:
            ready = RaceCommand(player_id=seat.player, press_ready=RaceCommand.PressReady())
            steps.append(Command(at, ready))
            at += 10
    at = start + 8_000
    for _ in range(rng.randint(0, 40)):
        seat = rng.choice(seats)
        turn = RaceCommand(
            player_id=seat.player, turn_tile=RaceCommand.TurnTile(tile=rng.randint(1, 20))
        )
        steps.append(Command(at, turn))
        at += rng.randint(200, 1_500)
    steps.append(UntilOver())
    seed = rng.randbytes(32)
    return retabled(table_records(game, seed, None, seats, start, steps), table_id)  # type: ignore[arg-type]
