"""Rematch through the real stack (nats-server, dealer, referee, lobby; real gRPC): a finished
race of two people is played again with the same players, same settings, a new seed, each
taking their seat by asking; the finished table's GetTable tells the others. Every bad call is
refused with its own code, slug and message, and changes nothing."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_launch.stack import Stack
from services.lobby import validation
from services.lobby.ids import Ids
from tests.conftest import running
from tests.e2e.test_players import sign_in

RACE = common_pb2.GAME_KIND_MATCH_RACE
PRIVATE = common_pb2.VISIBILITY_PRIVATE
OPEN = common_pb2.VISIBILITY_OPEN
SETTINGS = race_pb2.RaceSettings(ready_window_ms=45_000, hints_per_board=0)
Status = lobby_pb2.Table
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


def md(token: str | None = None, request_id: str | None = None) -> tuple[tuple[str, str], ...]:
    out = [("x-request-id", request_id or uuid.uuid4().hex)]
    if token:
        out.append(("authorization", f"Bearer {token}"))
    return tuple(out)


async def refused(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


def slug_of(error: grpc.aio.AioRpcError) -> str | None:
    return dict(error.trailing_metadata() or ()).get("match-refusal-code")


class Pair:
    """Two people at a private race table: Ann made it, Bob joined by its code."""

    def __init__(self, ann: Any, bob: Any) -> None:
        self.ann, self.bob = ann, bob
        self.table_id = ann.table_id


async def seated_pair(lobby: Any) -> Pair:
    ann = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            game_kind=RACE, seats=2, visibility=PRIVATE, display_name="Ann", race=SETTINGS
        ),
        metadata=md(),
    )
    bob = await lobby.JoinTable(
        lobby_pb2.JoinTableRequest(invite_code=ann.invite_code, display_name="Bob"), metadata=md()
    )
    return Pair(ann, bob)


async def table(lobby: Any, table_id: str, token: str) -> Any:
    return (
        await lobby.GetTable(lobby_pb2.GetTableRequest(table_id=table_id), metadata=md(token))
    ).table


async def until(check: Any, timeout: float = WAIT_S) -> Any:
    end = time.monotonic() + timeout
    while True:
        got = await check()
        if got:
            return got
        assert time.monotonic() < end, "not seen in time"
        await asyncio.sleep(0.05)


async def both_resign(lobby: Any, race: Any, pair: Pair) -> None:
    """Both resign before the first board (the game is over at once), once it has started."""
    for seat in (pair.ann, pair.bob):
        for _ in range(200):
            try:
                await race.Resign(
                    race_service_pb2.ResignRequest(table_id=pair.table_id),
                    metadata=md(seat.player_token),
                )
                break
            except grpc.aio.AioRpcError as error:  # the deal may not be in yet
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                await asyncio.sleep(0.05)

    async def over() -> bool:
        t = await table(lobby, pair.table_id, pair.ann.player_token)
        return bool(t.status == Status.STATUS_FINISHED)

    await until(over)


async def test_a_finished_race_is_played_again_by_the_same_two_players_each_asking(
    channel: grpc.aio.Channel, stack: Stack
) -> None:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    pair = await seated_pair(lobby)
    old_id = pair.table_id

    # Not over yet: refused, and no table is made.
    not_over = await refused(
        lobby.Rematch(lobby_pb2.RematchRequest(table_id=old_id), metadata=md(pair.ann.player_token))
    )
    assert not_over.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert slug_of(not_over) == "game_not_over" and "not over" in (not_over.details() or "")
    assert not (await table(lobby, old_id, pair.ann.player_token)).HasField("rematch")

    await both_resign(lobby, race, pair)
    old = await table(lobby, old_id, pair.bob.player_token)
    assert not old.HasField("rematch")  # nobody asked yet

    # Ann offers: a new private table, same game, settings and seats, her seat 1, same id.
    request_id = uuid.uuid4().hex
    offer = await lobby.Rematch(
        lobby_pb2.RematchRequest(table_id=old_id), metadata=md(pair.ann.player_token, request_id)
    )
    assert offer.offered and offer.seat == 1 and offer.table_id != old_id
    assert offer.player_id == pair.ann.player_id
    again = await lobby.Rematch(  # a retry (same request id): the same answer, nothing new
        lobby_pb2.RematchRequest(table_id=old_id), metadata=md(pair.ann.player_token, request_id)
    )
    assert (again.table_id, again.seat, again.player_id) == (offer.table_id, 1, offer.player_id)
    new = await table(lobby, offer.table_id, offer.player_token)
    assert new.visibility == PRIVATE and new.seats == 2 and new.game_kind == RACE
    assert new.race == SETTINGS and new.status == Status.STATUS_WAITING
    assert [(s.player_id, s.display_name) for s in new.taken] == [(pair.ann.player_id, "Ann")]
    assert new.invite_code == ""  # a rematch's code is shown to nobody
    assert new.commitment and new.commitment != old.commitment  # a new seed

    # Bob sees the offer on the finished table, and who has accepted.
    seen = (await table(lobby, old_id, pair.bob.player_token)).rematch
    assert seen.table_id == offer.table_id and list(seen.accepted) == [pair.ann.player_id]
    assert seen.status == Status.STATUS_WAITING and not seen.expired

    # Twice (a new request id): refused, nothing changes.
    twice = await refused(
        lobby.Rematch(lobby_pb2.RematchRequest(table_id=old_id), metadata=md(pair.ann.player_token))
    )
    assert twice.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert slug_of(twice) == "rematch_already_seated"
    assert offer.table_id in (twice.details() or "")

    # A stranger: another table's token is refused; the rematch's code (never shown) too.
    other = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            game_kind=RACE, seats=2, visibility=OPEN, display_name="Carl", race=SETTINGS
        ),
        metadata=md(),
    )
    stranger = await refused(
        lobby.Rematch(lobby_pb2.RematchRequest(table_id=old_id), metadata=md(other.player_token))
    )
    assert stranger.code() == grpc.StatusCode.PERMISSION_DENIED
    no_token = await refused(lobby.Rematch(lobby_pb2.RematchRequest(table_id=old_id)))
    assert no_token.code() == grpc.StatusCode.UNAUTHENTICATED
    ids = Ids(bytes.fromhex(stack.secrets["MATCH_TOKEN_SECRET"]))
    code = ids.rematch_code(offer.table_id, validation.INVITE_ALPHABET, validation.INVITE_LENGTH)
    by_code = await refused(
        lobby.JoinTable(
            lobby_pb2.JoinTableRequest(invite_code=code, display_name="Carl"), metadata=md()
        )
    )
    assert by_code.code() == grpc.StatusCode.PERMISSION_DENIED
    assert slug_of(by_code) == "rematch_players_only"
    bad_id = await refused(
        lobby.Rematch(
            lobby_pb2.RematchRequest(table_id="NOT-AN-ID"), metadata=md(pair.ann.player_token)
        )
    )
    assert bad_id.code() == grpc.StatusCode.INVALID_ARGUMENT
    new = await table(lobby, offer.table_id, offer.player_token)
    assert [s.player_id for s in new.taken] == [pair.ann.player_id]  # nothing changed

    # Bob accepts: seat 2 under his id, and the game starts with both.
    accept = await lobby.Rematch(
        lobby_pb2.RematchRequest(table_id=old_id), metadata=md(pair.bob.player_token)
    )
    assert not accept.offered and accept.table_id == offer.table_id and accept.seat == 2
    assert accept.player_id == pair.bob.player_id

    async def started() -> Any:
        t = await table(lobby, offer.table_id, accept.player_token)
        return t if t.status == Status.STATUS_PLAYING else None

    playing = await until(started)
    assert [s.display_name for s in playing.taken] == ["Ann", "Bob"]
    seen = (await table(lobby, old_id, pair.ann.player_token)).rematch
    assert sorted(seen.accepted) == sorted([pair.ann.player_id, pair.bob.player_id])
    assert seen.status == Status.STATUS_PLAYING
    # After it filled: asking again is refused (each has a seat there).
    late = await refused(
        lobby.Rematch(lobby_pb2.RematchRequest(table_id=old_id), metadata=md(pair.bob.player_token))
    )
    assert late.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert slug_of(late) in ("rematch_started", "rematch_already_seated")
    # The new seat plays: its token works at the new table.
    await race.PressReady(
        race_service_pb2.PressReadyRequest(table_id=offer.table_id),
        metadata=md(accept.player_token),
    )


async def test_a_signed_in_player_finds_the_rematch_seat_without_its_code(
    channel: grpc.aio.Channel, stack: Stack
) -> None:
    """FindMySeats shows a keyed player's rematch seat (to resume it) but not the rematch's
    invite code: only Rematch seats there, and joining with the code is refused."""
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    players = players_pb2_grpc.PlayerServiceStub(channel)
    (ann_id, ann_session), (bob_id, bob_session) = await sign_in(players), await sign_in(players)
    ann = await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            game_kind=RACE, seats=2, visibility=PRIVATE, display_name="Ann", race=SETTINGS
        ),
        metadata=md(ann_session),
    )
    bob = await lobby.JoinTable(
        lobby_pb2.JoinTableRequest(invite_code=ann.invite_code, display_name="Bob"),
        metadata=md(bob_session),
    )
    assert (ann.player_id, bob.player_id) == (ann_id, bob_id)
    pair = Pair(ann, bob)
    await both_resign(lobby, race, pair)
    offer = await lobby.Rematch(
        lobby_pb2.RematchRequest(table_id=pair.table_id), metadata=md(ann.player_token)
    )
    found = await players.FindMySeats(players_pb2.FindMySeatsRequest(), metadata=md(ann_session))
    seats = {s.table_id: s for s in found.seats}
    assert offer.table_id in seats and pair.table_id not in seats  # that game is over
    assert seats[offer.table_id].seat == 1 and seats[offer.table_id].player_token
    assert seats[offer.table_id].table.invite_code == ""


async def test_two_players_asking_at_once_get_one_rematch_table(
    channel: grpc.aio.Channel,
) -> None:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    pair = await seated_pair(lobby)
    await both_resign(lobby, race, pair)
    a, b = await asyncio.gather(
        *(
            lobby.Rematch(
                lobby_pb2.RematchRequest(table_id=pair.table_id), metadata=md(s.player_token)
            )
            for s in (pair.ann, pair.bob)
        )
    )
    assert a.table_id == b.table_id
    assert sorted([a.seat, b.seat]) == [1, 2] and sorted([a.offered, b.offered]) == [False, True]


def seat(n: int, player: str, bot: bool = False) -> Any:
    return lobby_pb2.Table.Seat(seat=n, player_id=player, display_name=player.title(), is_bot=bot)


@pytest.mark.parametrize(
    ("taken", "status", "code", "slug"),
    [
        (
            [seat(1, "ann")],
            Status.STATUS_FINISHED,
            grpc.StatusCode.FAILED_PRECONDITION,
            "rematch_solo",
        ),
        (
            [seat(1, "ann"), seat(2, "cpu-2", bot=True)],
            Status.STATUS_FINISHED,
            grpc.StatusCode.FAILED_PRECONDITION,
            "rematch_with_bot",
        ),
        (
            [seat(1, "ann"), seat(2, "bob")],
            Status.STATUS_PLAYING,
            grpc.StatusCode.FAILED_PRECONDITION,
            "game_not_over",
        ),
        (
            [seat(1, "bob"), seat(2, "cy")],
            Status.STATUS_FINISHED,
            grpc.StatusCode.PERMISSION_DENIED,
            "not_seated",
        ),
    ],
)
def test_who_may_not_ask_for_a_rematch(taken: list[Any], status: int, code: Any, slug: str) -> None:
    """The tables the stack test does not reach: one player, a bot seated (a private table
    seats none), not over, not the caller's."""
    from services.lobby.errors import ApiError
    from services.lobby.rematch import check_rematch

    t = lobby_pb2.Table(table_id="t1234567", seats=len(taken), taken=taken, status=status)
    with pytest.raises(ApiError) as caught:
        check_rematch(t, "ann")
    assert (caught.value.code, caught.value.refusal_code) == (code, slug)
    assert "t1234567" in caught.value.message


def test_a_rematch_table_and_its_code_are_the_same_for_every_player_and_unlike_another() -> None:
    ids = Ids(b"k" * 32)
    assert ids.rematch_table("aaaa0000") == ids.rematch_table("aaaa0000")
    assert ids.rematch_table("aaaa0000") != ids.rematch_table("aaaa0001")
    code = ids.rematch_code(ids.rematch_table("aaaa0000"), validation.INVITE_ALPHABET, 12)
    assert validation.invite_code(code) == code
    assert Ids(b"j" * 32).rematch_table("aaaa0000") != ids.rematch_table("aaaa0000")
