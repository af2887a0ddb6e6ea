"""The lobby serves every registered game: Concentration through the real stack (nats-server,
dealer, referee, lobby; real gRPC). Its table made, listed with its settings, joined, started
with CPU players; flips through ConcentrationService; Watch (events, snapshot, resume); a
seated player's presence; and every bad call refused with its own code and message."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from match.v1 import (
    common_pb2,
    concentration_pb2,
    concentration_service_pb2,
    concentration_service_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_launch.stack import Stack
from tests.conftest import running

CONC = common_pb2.GAME_KIND_CONCENTRATION
RACE = common_pb2.GAME_KIND_MATCH_RACE
OPEN = common_pb2.VISIBILITY_OPEN
Settings = concentration_pb2.ConcentrationSettings
View = concentration_pb2.ConcentrationView
SMALL = Settings(pictures=Settings.PICTURES_PLAYING_CARDS, cards=24)
WatchRequest = concentration_service_pb2.ConcentrationServiceWatchRequest
WAIT_S = 20.0


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee", "lobby"),
        env={"REFEREE_CLOCK_RATE": "10", "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000))},
    )
    yield from running(s)
    for name in ("lobby", "referee", "dealer"):
        assert "Traceback" not in s.log(name), s.log(name)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def stubs(channel: grpc.aio.Channel) -> tuple[Any, Any, Any]:
    return (
        lobby_pb2_grpc.LobbyServiceStub(channel),
        concentration_service_pb2_grpc.ConcentrationServiceStub(channel),
        race_service_pb2_grpc.MatchRaceServiceStub(channel),
    )


async def create(lobby: Any, seats: int, name: str = "Ann", **settings: Any) -> Any:
    request = lobby_pb2.CreateTableRequest(
        game_kind=CONC, seats=seats, visibility=OPEN, display_name=name, **settings
    )
    return await lobby.CreateTable(request)


async def refused(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def slug_of(error: grpc.aio.AioRpcError) -> str | None:
    return dict(error.trailing_metadata() or ()).get("match-refusal-code")


class Follower:
    """One Watch stream, read in the background."""

    def __init__(self, game: Any, table_id: str, token: str | None, after: int = 0) -> None:
        md = bearer(token) if token else ()
        self.call = game.Watch(
            WatchRequest(table_id=table_id, after_event_number=after), metadata=md
        )
        self.items: list[Any] = []
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for item in self.call:
            self.items.append(item)

    def events(self) -> list[Any]:
        return [i.event for i in self.items if i.WhichOneof("item") == "event"]

    def kinds(self) -> list[str]:
        out = []
        for env in self.events():
            body = env.concentration if env.HasField("concentration") else env.table
            out.append(body.WhichOneof("event") or "")
        return out

    async def until(self, check: Any, timeout: float = WAIT_S) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not check():
            if self.task.done():
                self.task.result()
                raise AssertionError(f"the stream ended: {self.kinds()}")
            assert loop.time() < end, f"not seen in time: {self.kinds()}"
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        self.call.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def listed(lobby: Any, table_id: str, kind: int) -> Any:
    for _ in range(100):
        page = await lobby.ListTables(lobby_pb2.ListTablesRequest(game_kind=kind))
        found = [t for t in page.tables if t.table_id == table_id]
        if found:
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {table_id} was never listed")


async def test_a_concentration_table_is_made_listed_joined_started_with_cpus_and_played(
    channel: grpc.aio.Channel,
) -> None:
    lobby, game, _ = stubs(channel)
    made = await create(lobby, 3, concentration=SMALL)
    table = await listed(lobby, made.table_id, CONC)
    assert table.game_kind == CONC and table.WhichOneof("settings") == "concentration"
    assert table.concentration.cards == 24 and table.concentration.matching
    assert made.table_id not in [
        t.table_id
        for t in (await lobby.ListTables(lobby_pb2.ListTablesRequest(game_kind=RACE))).tables
    ]
    every = await lobby.ListTables(lobby_pb2.ListTablesRequest())
    assert made.table_id in [t.table_id for t in every.tables]

    bob = await lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
    )
    assert bob.seat == 2
    ann_watch = Follower(game, made.table_id, made.player_token)
    started = await lobby.StartTable(
        lobby_pb2.StartTableRequest(table_id=made.table_id), metadata=bearer(made.player_token)
    )
    assert started.table.status == lobby_pb2.Table.STATUS_PLAYING
    assert [s.is_bot for s in started.table.taken] == [False, False, True]
    await ann_watch.until(lambda: "turn_began" in ann_watch.kinds())
    first = next(
        e.concentration.game_started for e in ann_watch.events() if e.HasField("concentration")
    )
    assert list(first.players[:2]) == [made.player_id, bob.player_id] and len(first.cpus) == 1
    assert ann_watch.events()[0].event_number == 1  # a new viewer gets every event from 1

    flipped = await game.FlipCard(
        concentration_service_pb2.FlipCardRequest(table_id=made.table_id, card=1),
        metadata=bearer(made.player_token),
    )
    kinds = [e.concentration.WhichOneof("event") for e in flipped.events]
    assert kinds[0] == "card_flipped" and flipped.events[0].concentration.card_flipped.face
    assert flipped.view.cards[0].state == View.CARD_STATE_UP
    await ann_watch.until(lambda: "card_flipped" in ann_watch.kinds())

    # Out of turn, the referee's refusal comes back with its slug; nothing changed.
    out_of_turn = await refused(
        game.FlipCard(
            concentration_service_pb2.FlipCardRequest(table_id=made.table_id, card=2),
            metadata=bearer(bob.player_token),
        )
    )
    assert out_of_turn.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert slug_of(out_of_turn) == "not_your_turn"

    # A snapshot (asked from beyond the last event), then the events as they happen.
    last = ann_watch.events()[-1].event_number
    late = Follower(game, made.table_id, bob.player_token, after=10**9)
    await late.until(lambda: bool(late.items))
    view = late.items[0].snapshot
    assert view.event_number >= last and view.phase == View.PHASE_PLAYING
    assert [s.display_name for s in view.seats][:2] == ["Ann", "Bob"] and view.seats[2].cpu
    assert view.commitment and not view.HasField("seed")
    assert sum(1 for c in view.cards if c.state == View.CARD_STATE_DOWN and c.face) == 0
    await game.FlipCard(
        concentration_service_pb2.FlipCardRequest(table_id=made.table_id, card=2),
        metadata=bearer(made.player_token),
    )
    await late.until(lambda: any(e.event_number > view.event_number for e in late.events()))

    # Resuming after an event number: the later events only, none twice.
    resumed = Follower(game, made.table_id, made.player_token, after=last)
    await resumed.until(lambda: len(resumed.events()) >= 2)
    numbers = [e.event_number for e in resumed.events()]
    assert numbers[0] == last + 1 and numbers == sorted(set(numbers))

    # Anybody may watch a Concentration table (everything is public).
    spectator = Follower(game, made.table_id, None, after=10**9)
    await spectator.until(lambda: bool(spectator.items))
    assert spectator.items[0].snapshot.you == ""
    for follower in (ann_watch, late, resumed, spectator):
        await follower.stop()


async def test_a_seated_players_last_stream_ending_drops_them_and_a_new_one_brings_them_back(
    channel: grpc.aio.Channel,
) -> None:
    lobby, game, _ = stubs(channel)
    made = await create(lobby, 2, concentration=SMALL)
    bob = await lobby.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
    )
    ann = Follower(game, made.table_id, made.player_token)
    bob_first = Follower(game, made.table_id, bob.player_token)
    bob_second = Follower(game, made.table_id, bob.player_token)
    await bob_second.until(lambda: "turn_began" in bob_second.kinds())
    await bob_first.until(lambda: "turn_began" in bob_first.kinds())
    await bob_first.stop()  # another stream of his is still open: nothing to tell
    await asyncio.sleep(0.5)
    assert "player_dropped" not in ann.kinds()
    last = bob_second.events()[-1].event_number
    await bob_second.stop()  # his last one
    await ann.until(lambda: "player_dropped" in ann.kinds())
    dropped = [e for e in ann.events() if e.concentration.WhichOneof("event") == "player_dropped"]
    assert dropped[0].concentration.player_dropped.player == bob.player_id
    back = Follower(game, made.table_id, bob.player_token, after=last)
    await ann.until(lambda: "player_returned" in ann.kinds())
    assert "seat_handed_to_cpu" not in ann.kinds()
    for follower in (ann, back):
        await follower.stop()


async def test_bad_tables_and_calls_are_refused_each_with_its_own_code_and_message(
    channel: grpc.aio.Channel,
) -> None:
    lobby, game, race = stubs(channel)
    bad = await refused(create(lobby, 2, concentration=Settings(cards=40)))
    assert bad.code() == grpc.StatusCode.INVALID_ARGUMENT and "40" in bad.details()
    jokers = await refused(create(lobby, 2, concentration=Settings(jokers=True)))
    assert jokers.code() == grpc.StatusCode.INVALID_ARGUMENT and "joker" in jokers.details()
    seven = await refused(create(lobby, 7, concentration=SMALL))
    assert seven.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert seven.details() == "seats must be 1 to 6, got 7"
    other = await refused(create(lobby, 2, race=race_pb2.RaceSettings()))
    assert other.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "`race` are not for GAME_KIND_CONCENTRATION" in other.details()
    unknown = await refused(
        lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=99,  # a kind from a newer contract
                seats=2,
                visibility=OPEN,
                display_name="A",
            )
        )
    )
    assert unknown.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "game kind 99 is not played here" in unknown.details()
    assert "GAME_KIND_CONCENTRATION" in unknown.details()

    # A call of one game's service at another game's table.
    conc = await create(lobby, 2, concentration=SMALL)
    racing = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(game_kind=RACE, seats=2, visibility=OPEN, display_name="Ann")
    )
    await listed(lobby, racing.table_id, RACE)
    await listed(lobby, conc.table_id, CONC)
    flip = await refused(
        game.FlipCard(
            concentration_service_pb2.FlipCardRequest(table_id=racing.table_id, card=1),
            metadata=bearer(racing.player_token),
        )
    )
    assert flip.code() == grpc.StatusCode.FAILED_PRECONDITION and slug_of(flip) == "wrong_game"
    assert "plays GAME_KIND_MATCH_RACE, not GAME_KIND_CONCENTRATION" in flip.details()
    turn = await refused(
        race.TurnTile(
            race_service_pb2.TurnTileRequest(table_id=conc.table_id, tile=1),
            metadata=bearer(conc.player_token),
        )
    )
    assert turn.code() == grpc.StatusCode.FAILED_PRECONDITION and slug_of(turn) == "wrong_game"
    watching = Follower(game, racing.table_id, racing.player_token)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await watching.task
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert slug_of(caught.value) == "wrong_game" and watching.items == []
    # Another table's token, and no token, for a flip.
    stranger = await refused(
        game.FlipCard(
            concentration_service_pb2.FlipCardRequest(table_id=conc.table_id, card=1),
            metadata=bearer(racing.player_token),
        )
    )
    assert stranger.code() == grpc.StatusCode.PERMISSION_DENIED
    anonymous = await refused(
        game.FlipCard(concentration_service_pb2.FlipCardRequest(table_id=conc.table_id, card=1))
    )
    assert anonymous.code() == grpc.StatusCode.UNAUTHENTICATED
