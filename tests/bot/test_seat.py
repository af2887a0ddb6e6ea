"""A bot seat's strength: read from the table's public BotsAssigned, or forced by the operator;
and a seat taken over from another replica: from a snapshot, forgetting, fenced by its lease."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from match.v1 import common_pb2, race_pb2, race_service_pb2, views_pb2
from match_client.client import Seat
from match_client.clock import wall_ms
from match_rules.deal import Strength
from match_rules.race import bot
from match_rules.race.botseat import RaceBotSeat
from services.bot.config import BotConfig, ConfigError
from services.bot.player import FORGET_AFTER, SeatEnd, SeatPlayer
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


def seat(force: Strength | None = None) -> RaceBotSeat:
    return RaceBotSeat(SEAT.table_id, SEAT.player_id, forced=force)


def player_of(session: Any, pace: float = 0.01, strength: str = "", **kw: Any) -> SeatPlayer:
    """A seat's task over ``session``, playing the race's bot seat."""
    policy = RaceBotSeat(SEAT.table_id, SEAT.player_id, pace=pace, strength=strength)
    return SeatPlayer(session, SEAT, policy, **kw)


def test_the_seat_plays_the_strength_its_table_was_assigned() -> None:
    player = seat()
    assert player.strength is bot.DEFAULT_STRENGTH  # until the table says
    player.observe_events([assigned("weak")])
    assert player.strength is Strength.WEAK
    assert player.memory.profile == bot.PROFILES[Strength.WEAK]
    player.observe_events([assigned("weak")])  # the reply and the stream: once is enough
    assert player.shown == "weak"


def test_bot_force_strength_overrides_the_drawn_one() -> None:
    player = seat(Strength.WEAK)
    player.observe_events([assigned("strong")])
    assert player.strength is Strength.WEAK
    assert player.memory.profile == bot.PROFILES[Strength.WEAK]


def test_a_blank_strength_keeps_the_default() -> None:
    player = seat()
    player.observe_events([assigned("")])  # a lobby that still blanks it
    assert player.strength is bot.DEFAULT_STRENGTH


def test_the_seat_remembers_its_own_turns_only() -> None:
    player = seat()
    player.observe_events([turned(1, 4, 9, 1), turned(1, 7, 3, 1, player="ann")])
    assert player.memory.recall() == {4: 9}


def test_each_seat_draws_from_its_own_seeded_randomness() -> None:
    a, b = seat(), seat()
    assert a.rng.random() == b.rng.random()  # the same seat of the same game
    other = RaceBotSeat("abcdef0123456789", "bot2")
    assert other.rng.random() != seat().rng.random()
    explicit = RaceBotSeat(SEAT.table_id, SEAT.player_id, rng=random.Random(1))
    assert explicit.rng.random() == random.Random(1).random()


def test_bot_force_strength_is_read_from_the_environment(bot_key: dict[str, str]) -> None:
    base = bot_key
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


# --- a seat taken over from another replica --------------------------------------------------


class Session:
    """Stands in for a GameSession: Watch sends ``view`` as a snapshot, then what the test
    queues; a turn or a press ends the game."""

    def __init__(self, view: views_pb2.RaceView) -> None:
        self.view = view
        self.afters: list[int] = []
        self.skips: list[bool] = []  # each watch's skip_answered
        self.turns: list[int] = []
        self.presses = 0
        self.more: asyncio.Queue[race_service_pb2.WatchResponse | None] = asyncio.Queue()

    async def watch(
        self, after_event_number: int = 0, skip_answered: bool = False
    ) -> AsyncIterator[Any]:
        self.afters.append(after_event_number)
        self.skips.append(skip_answered)
        yield race_service_pb2.WatchResponse(snapshot=self.view)
        while (item := await self.more.get()) is not None:
            yield item

    async def _end_game(self) -> None:
        ended = race_pb2.RaceEvent(game_ended=race_pb2.RaceEvent.GameEnded())
        number = self.view.event_number + 1
        await self.more.put(
            race_service_pb2.WatchResponse(
                event=common_pb2.EventEnvelope(event_number=number, race=ended)
            )
        )
        await self.more.put(None)

    async def turn(self, tile: int, request_id: str | None = None) -> Any:
        self.turns.append(tile)
        await self._end_game()
        return race_service_pb2.TurnTileResponse()

    async def press_ready(self, request_id: str | None = None) -> Any:
        self.presses += 1
        await self._end_game()
        return race_service_pb2.PressReadyResponse()

    async def call(self, rpc: str, request: Any, request_id: str | None = None) -> Any:
        if rpc == "TurnTile":
            return await self.turn(request.tile, request_id)
        return await self.press_ready(request_id)


def playing_view() -> views_pb2.RaceView:
    """Board 1, six turns in: tiles 1 and 2 found (symbol 5), tile 3 showing (symbol 7)."""
    now = wall_ms()
    view = views_pb2.RaceView(
        table_id=SEAT.table_id,
        player="bot",
        event_number=40,
        server_time_ms=now,
        phase=views_pb2.RaceView.PHASE_PLAYING,
        board=1,
        status=views_pb2.RaceView.STATUS_PLAYING,
        starts_at_ms=now - 20_000,
        ends_at_ms=now + 100_000,
        turns=6,
        pairs=1,
    )
    for tile in range(1, 21):
        state = views_pb2.RaceView.TILE_STATE_DOWN
        if tile in (1, 2):
            state = views_pb2.RaceView.TILE_STATE_FOUND
        elif tile == 3:
            state = views_pb2.RaceView.TILE_STATE_SHOWING
        t = view.tiles.add(tile=tile, state=state)
        if tile in (1, 2):
            t.symbol = 5
        elif tile == 3:
            t.symbol = 7
    return view


async def test_a_resumed_seat_starts_from_a_snapshot_and_forgets_what_was_seen_before() -> None:
    session = Session(playing_view())
    player = player_of(session, poll_s=0.05, resume=True, strength="strong")
    assert player.strength is Strength.STRONG  # as the seat's record kept it
    await asyncio.wait_for(player.run(), 10)
    assert session.afters == [FORGET_AFTER]  # a snapshot, never the faces of the history
    memory = player.policy.memory  # type: ignore[attr-defined]
    assert memory.turn >= 6 and memory.board == 1
    [tile] = session.turns  # the second tile of the attempt: one that is down
    assert tile not in (1, 2, 3)
    assert memory.recall() == {}  # nothing from before the takeover
    assert player.ended is SeatEnd.GAME_OVER


async def test_a_new_seat_watches_the_table_from_its_first_event() -> None:
    view = views_pb2.RaceView(player="bot", event_number=4, phase=views_pb2.RaceView.PHASE_READY)
    view.board, view.status = 1, views_pb2.RaceView.STATUS_WAITING
    session = Session(view)
    player = player_of(session, poll_s=0.05)
    await asyncio.wait_for(player.run(), 10)
    assert session.afters == [0] and session.presses == 1
    assert session.skips == [True]  # its replies' events are folded, not sent down the view too


async def test_a_seat_sends_nothing_while_its_replica_may_not_act() -> None:
    view = views_pb2.RaceView(player="bot", event_number=4, phase=views_pb2.RaceView.PHASE_READY)
    view.board, view.status = 1, views_pb2.RaceView.STATUS_WAITING
    session = Session(view)
    allowed = False
    player = player_of(session, poll_s=0.05, may_act=lambda: allowed)
    task = asyncio.create_task(player.run())
    await asyncio.sleep(0.5)
    assert session.presses == 0  # Ready is open, but the lease is in doubt
    allowed = True
    await asyncio.wait_for(task, 10)
    assert session.presses == 1


async def test_a_seat_handed_over_stops_at_once() -> None:
    view = views_pb2.RaceView(player="bot", event_number=4, phase=views_pb2.RaceView.PHASE_READY)
    view.board, view.status = 1, views_pb2.RaceView.STATUS_WAITING
    session = Session(view)
    player = player_of(session, poll_s=0.05, may_act=lambda: False)
    task = asyncio.create_task(player.run())
    await asyncio.sleep(0.2)
    player.hand_over()
    await asyncio.wait_for(task, 5)
    assert player.ended is SeatEnd.HANDED_OVER and session.presses == 0


def test_the_strength_shown_is_passed_on_once() -> None:
    shown: list[str] = []
    player = player_of(None, on_strength=shown.append)
    player.observe(race_service_pb2.WatchResponse(event=assigned("weak")))
    player.observe(race_service_pb2.WatchResponse(event=assigned("weak")))
    assert shown == ["weak"]
