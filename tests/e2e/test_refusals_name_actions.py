"""Refusals a person can act on, through the real stack (issue 31, item 11): LeaveTable after
the start names what each game offers instead (only the race has Resign), MATCH 5's ballot 0
is a wrong argument and not "closed", Match Cards' cards off every board carry the
``match-refusal-code`` every other refusal carries, and Concentration's FlipCard reply carries
the seed's commitment as Watch's snapshots do. Nothing a refusal answers changes anything."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from match.v1 import (
    common_pb2,
    concentration_pb2,
    concentration_service_pb2,
    concentration_service_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    match_cards_service_pb2,
    match_cards_service_pb2_grpc,
    match_five_pb2,
    race_pb2,
)
from match_client.client import refusal_code
from match_launch.stack import Stack
from tests.e2e.conftest import fast_stack
from tests.e2e.players_match_five import M5Player

WAITING = lobby_pb2.Table.STATUS_WAITING
SMALL = concentration_pb2.ConcentrationSettings(
    pictures=concentration_pb2.ConcentrationSettings.PICTURES_PLAYING_CARDS,
    cards=24,
    matching=concentration_pb2.ConcentrationSettings.MATCHING_IDENTICAL,
)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    yield from fast_stack(tmp_path_factory.mktemp("refusals"))


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"), ("x-request-id", uuid.uuid4().hex))


async def refused(call: Any) -> tuple[grpc.StatusCode, str | None, str]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call
    details = error.value.details() or ""
    assert details, "a message a person can act on"
    return error.value.code(), refusal_code(error.value), details


async def seat(
    lobby: lobby_pb2_grpc.LobbyServiceStub, kind: int, seats: int, **settings: Any
) -> lobby_pb2.CreateTableResponse:
    return await lobby.CreateTable(
        lobby_pb2.CreateTableRequest(
            game_kind=kind,  # type: ignore[arg-type]
            seats=seats,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name="Ann",
            **settings,
        )
    )


async def playing(lobby: lobby_pb2_grpc.LobbyServiceStub, made: Any) -> lobby_pb2.Table:
    """The table once its game has started (as the lobby's listing has it)."""
    deadline = time.monotonic() + 30
    while True:
        table = (
            await lobby.GetTable(
                lobby_pb2.GetTableRequest(table_id=made.table_id),
                metadata=bearer(made.player_token),
            )
        ).table
        if table.status != WAITING:
            return table
        assert time.monotonic() < deadline, "the game did not start"
        await asyncio.sleep(0.2)


# What each game's refusal of LeaveTable names, and what it must not: only the race resigns.
INSTEAD = {
    common_pb2.GAME_KIND_MATCH_RACE: "Resign",
    common_pb2.GAME_KIND_CONCENTRATION: "CPU player takes your seat",
    common_pb2.GAME_KIND_MATCH_CARDS: "TurnCard",
    common_pb2.GAME_KIND_NUMBER_MATCH: "EndGame",
    common_pb2.GAME_KIND_MATCH_FIVE: "Done",
}


async def test_leaving_a_started_game_names_what_that_game_offers_instead(
    stack: Stack, channel: grpc.aio.Channel
) -> None:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    tables = {
        common_pb2.GAME_KIND_MATCH_RACE: await seat(
            lobby, common_pb2.GAME_KIND_MATCH_RACE, 2,
            race=race_pb2.RaceSettings(ready_window_ms=60_000),
        ),
        common_pb2.GAME_KIND_CONCENTRATION: await seat(
            lobby, common_pb2.GAME_KIND_CONCENTRATION, 1, concentration=SMALL
        ),
        common_pb2.GAME_KIND_MATCH_CARDS: await seat(lobby, common_pb2.GAME_KIND_MATCH_CARDS, 1),
        common_pb2.GAME_KIND_NUMBER_MATCH: await seat(lobby, common_pb2.GAME_KIND_NUMBER_MATCH, 1),
        common_pb2.GAME_KIND_MATCH_FIVE: await seat(
            lobby, common_pb2.GAME_KIND_MATCH_FIVE, 2,
            match_five=match_five_pb2.MatchFiveSettings(writing_seconds=600, vote_seconds=300),
        ),
    }  # fmt: skip
    for kind in (common_pb2.GAME_KIND_MATCH_RACE, common_pb2.GAME_KIND_MATCH_FIVE):
        await lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=tables[kind].table_id, display_name="Bob")
        )
    for kind, made in tables.items():
        before = await playing(lobby, made)
        code, slug, message = await refused(
            lobby.LeaveTable(
                lobby_pb2.LeaveTableRequest(table_id=made.table_id),
                metadata=bearer(made.player_token),
            )
        )
        assert (code, slug) == (grpc.StatusCode.FAILED_PRECONDITION, "table_started"), message
        assert message.startswith("the game has started, so the seat cannot be left: ")
        assert INSTEAD[kind] in message, message
        if kind != common_pb2.GAME_KIND_MATCH_RACE:
            assert "resign" not in message.lower(), message
        after = (
            await lobby.GetTable(
                lobby_pb2.GetTableRequest(table_id=made.table_id),
                metadata=bearer(made.player_token),
            )
        ).table
        assert [s.player_id for s in after.taken] == [s.player_id for s in before.taken]
        assert made.player_id in [s.player_id for s in after.taken]


async def test_match_cards_cards_off_every_board_carry_the_refusal_code(
    stack: Stack, channel: grpc.aio.Channel
) -> None:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    cards = match_cards_service_pb2_grpc.MatchCardsServiceStub(channel)
    made = await seat(lobby, common_pb2.GAME_KIND_MATCH_CARDS, 1)  # 12 cards: starts at once
    await playing(lobby, made)
    for card in (0, 61, 1000, 13):  # 13: on some board, not this one (the referee says so)
        code, slug, message = await refused(
            cards.TurnCard(
                match_cards_service_pb2.TurnCardRequest(table_id=made.table_id, card=card),
                metadata=bearer(made.player_token),
            )
        )
        assert (code, slug) == (grpc.StatusCode.INVALID_ARGUMENT, "card_out_of_range"), message
        assert "cards are numbered" in message and f"got {card}" in message
    turned = await cards.TurnCard(
        match_cards_service_pb2.TurnCardRequest(table_id=made.table_id, card=1),
        metadata=bearer(made.player_token),
    )
    assert turned.events  # the refusals changed nothing: card 1 turns, the first of the game


async def test_concentrations_flip_reply_carries_the_commitment_watch_shows(
    stack: Stack, channel: grpc.aio.Channel
) -> None:
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    game = concentration_service_pb2_grpc.ConcentrationServiceStub(channel)
    made = await seat(lobby, common_pb2.GAME_KIND_CONCENTRATION, 1, concentration=SMALL)
    table = await playing(lobby, made)
    assert len(table.commitment) == 64
    flipped = await game.FlipCard(
        concentration_service_pb2.FlipCardRequest(table_id=made.table_id, card=1),
        metadata=bearer(made.player_token),
    )
    assert flipped.view.commitment == table.commitment
    stream = game.Watch(
        concentration_service_pb2.ConcentrationServiceWatchRequest(
            table_id=made.table_id, after_event_number=10_000
        ),
        metadata=bearer(made.player_token),
    )
    first = await stream.read()
    stream.cancel()
    assert first.snapshot.commitment == flipped.view.commitment


async def test_match_five_ballot_0_is_a_wrong_argument_not_a_closed_ballot(
    stack: Stack, channel: grpc.aio.Channel
) -> None:
    ann, bob = M5Player("Ann", channel), M5Player("Bob", channel)
    await ann.create(2, match_five_pb2.MatchFiveSettings(writing_seconds=600, vote_seconds=300))
    await bob.join(ann.table_id)
    ann.watch()
    await ann.wait_for("round_started")
    await ann.write(1, "Shark")
    await bob.write(1, "Whale")
    await ann.done()
    await bob.done()
    await ann.wait_for("combination_opened")
    for player, rpc, fields in (
        (bob, "Vote", {"ballot": 0, "accept": True}),
        (bob, "CallMatch", {"ballot": 0}),
    ):
        code, slug, message = await refused(player._call(rpc, **fields))
        assert (code, slug) == (grpc.StatusCode.INVALID_ARGUMENT, "ballot_out_of_range"), message
        assert "there is no ballot 0: ballots are numbered from 1" in message
        assert "closed" not in message
    assert await bob.vote(1, True)  # nothing changed: ballot 1 is open to Bob's vote
