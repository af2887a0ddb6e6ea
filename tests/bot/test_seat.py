"""A bot seat's strength: read from the table's public BotsAssigned, or forced by the operator."""

from __future__ import annotations

import random

import pytest

from match.v1 import common_pb2, race_pb2
from match_client.client import Seat
from match_rules.deal import Strength
from services.bot import brain
from services.bot.config import BotConfig, ConfigError
from services.bot.player import SeatPlayer
from services.lobby.viewer import TableViewer

SEAT = Seat(table_id="abcdef0123456789", player_id="bot", token="tok", seat=2)


def assigned(strength: str, number: int = 3) -> common_pb2.EventEnvelope:
    event = common_pb2.TableEvent(
        bots_assigned=common_pb2.TableEvent.BotsAssigned(strength=strength)
    )
    return common_pb2.EventEnvelope(event_number=number, table=event)


def turned(
    board: int, tile: int, symbol: int, turn: int, player: str = "bot"
) -> common_pb2.EventEnvelope:
    body = race_pb2.RaceEvent.TileTurned(
        board=board, player=player, tile=tile, symbol=symbol, turn=turn
    )
    return common_pb2.EventEnvelope(
        event_number=10 + turn, race=race_pb2.RaceEvent(tile_turned=body)
    )


def seat(force: Strength | None = None) -> SeatPlayer:
    return SeatPlayer(None, SEAT, force_strength=force)  # type: ignore[arg-type]


def test_the_seat_plays_the_strength_its_table_was_assigned() -> None:
    player = seat()
    assert player.strength is brain.DEFAULT_STRENGTH  # until the table says
    player.observe_events([assigned("weak")])
    assert player.strength is Strength.WEAK
    assert player.memory.profile == brain.PROFILES[Strength.WEAK]
    player.observe_events([assigned("weak")])  # the reply and the stream: once is enough
    assert player.shown == "weak"


def test_bot_force_strength_overrides_the_drawn_one() -> None:
    player = seat(Strength.WEAK)
    player.observe_events([assigned("strong")])
    assert player.strength is Strength.WEAK
    assert player.memory.profile == brain.PROFILES[Strength.WEAK]


def test_a_blank_strength_keeps_the_default() -> None:
    player = seat()
    player.observe_events([assigned("")])  # a lobby that still blanks it
    assert player.strength is brain.DEFAULT_STRENGTH


def test_the_seat_remembers_its_own_turns_only() -> None:
    player = seat()
    player.observe_events([turned(1, 4, 9, 1), turned(1, 7, 3, 1, player="ann")])
    assert player.memory.recall() == {4: 9}


def test_each_seat_draws_from_its_own_seeded_randomness() -> None:
    a, b = seat(), seat()
    assert a.rng.random() == b.rng.random()  # the same seat of the same game
    other = SeatPlayer(None, Seat("abcdef0123456789", "bot2", "t", 3))  # type: ignore[arg-type]
    assert other.rng.random() != seat().rng.random()
    explicit = SeatPlayer(None, SEAT, rng=random.Random(1))  # type: ignore[arg-type]
    assert explicit.rng.random() == random.Random(1).random()


def test_bot_force_strength_is_read_from_the_environment() -> None:
    base = {"MATCH_BOT_KEY": "k"}
    assert BotConfig.from_env(base).force_strength is None
    assert BotConfig.from_env({**base, "BOT_FORCE_STRENGTH": ""}).force_strength is None
    assert BotConfig.from_env({**base, "BOT_FORCE_STRENGTH": "off"}).force_strength is None
    forced = BotConfig.from_env({**base, "BOT_FORCE_STRENGTH": "Weak"})
    assert forced.force_strength is Strength.WEAK
    with pytest.raises(ConfigError, match="BOT_FORCE_STRENGTH"):
        BotConfig.from_env({**base, "BOT_FORCE_STRENGTH": "genius"})


def test_the_lobby_shows_the_strength_to_every_client() -> None:
    for viewer in ("ann", "bot"):
        out = TableViewer("abcdef0123456789", viewer).fold(assigned("strong", number=1))
        assert out.table.bots_assigned.strength == "strong"
