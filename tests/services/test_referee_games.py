"""The referee hosts every registered game, over real NATS with the real dealer: Concentration
tables made with their settings (and refused with bad ones, nothing appended), filled by players
or by the host's StartTable with CPU players, flips judged, a solo game played to its reveal; a
command for another game's table refused; the race's presence answered with nothing appended."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client

from match.v1 import (
    common_pb2,
    concentration_command_pb2,
    concentration_pb2,
    race_command_pb2,
    referee_pb2,
)
from match_bus import subjects
from match_bus.jetstream import TableLog
from match_launch.stack import Stack
from match_rules import registry
from tests.conftest import running
from tests.services.ready import until_the_referee_answers

RATE = 10.0
CONCENTRATION = registry.by_slug("concentration")
Settings = concentration_pb2.ConcentrationSettings
Reply = concentration_command_pb2.ConcentrationCommandReply
# 24 playing cards, two copies of each of 12 faces: a pair is two equal faces.
SMALL = Settings(
    pictures=Settings.PICTURES_PLAYING_CARDS, cards=24, matching=Settings.MATCHING_IDENTICAL
)
INVALID = common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT


@pytest.fixture
def stack(tmp_path: Path) -> Any:
    anchor = str(int(time.time() * 1000))
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee"),
        env={"REFEREE_CLOCK_RATE": str(RATE), "REFEREE_CLOCK_ANCHOR_MS": anchor},
    )
    yield from running(s)


@pytest.fixture
async def nc(stack: Stack) -> AsyncIterator[Client]:
    client = await stack.connect_nats()
    await until_the_referee_answers(client)
    yield client
    await client.close()


async def table_cmd(
    nc: Client, table: str, player: str, **command: Any
) -> referee_pb2.TableCommandReply:
    request = referee_pb2.TableCommand(table_id=table, player_id=player, **command)
    for attempt in range(50):  # the referee (or the dealer it asks) may still be starting
        try:
            msg = await nc.request(subjects.referee_table(table), request.SerializeToString(), 5)
        except nats.errors.NoRespondersError:
            await asyncio.sleep(0.1 * attempt)
            continue
        reply = referee_pb2.TableCommandReply.FromString(msg.data)
        if reply.refusal.code != "unavailable":  # nothing changed: safe to ask again
            return reply
        await asyncio.sleep(0.1 * attempt)
    raise AssertionError("referee never answered")


async def flip(nc: Client, table: str, player: str, card: int) -> Any:
    request = concentration_command_pb2.ConcentrationCommand(
        table_id=table, player_id=player, flip_card={"card": card}
    )
    subject = subjects.referee_game("concentration", table)
    return Reply.FromString((await nc.request(subject, request.SerializeToString(), 5)).data)


def create(seats: int, settings: Settings | None = SMALL, **more: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "game_kind": common_pb2.GAME_KIND_CONCENTRATION,
        "seats": seats,
        "visibility": common_pb2.VISIBILITY_OPEN,
        "display_name": "Ann",
        **more,
    }
    made = referee_pb2.TableCommand.CreateTable(**fields)
    if settings is not None:
        made.concentration.CopyFrom(settings)
    return {"create_table": made}


def game_events(envelopes: Any) -> list[tuple[str, Any]]:
    """(oneof name, body) of each Concentration event."""
    out = []
    for env in envelopes:
        if env.HasField("concentration"):
            which = env.concentration.WhichOneof("event")
            out.append((which, getattr(env.concentration, which)))
    return out


def of(envelopes: Any, kind: str) -> list[Any]:
    return [body for which, body in game_events(envelopes) if which == kind]


async def records(nc: Client, table: str) -> list[referee_pb2.TableRecord]:
    stored = await TableLog(nc.jetstream()).read(table)
    return [referee_pb2.TableRecord.FromString(r.data) for r in stored]


async def test_a_concentration_table_is_made_with_its_settings_filled_and_its_flips_judged(
    nc: Client, stack: Stack
) -> None:
    table = "c1abcdef01"
    made = await table_cmd(nc, table, "ann", **create(2))
    assert made.WhichOneof("result") == "accepted", made
    created, committed, seated = made.accepted.events
    assert created.game_kind == common_pb2.GAME_KIND_CONCENTRATION
    assert created.table.table_created.concentration == CONCENTRATION.settings(SMALL)
    assert committed.table.seed_committed.deal_version == CONCENTRATION.deal_version
    assert seated.table.player_seated.player_id == "ann"
    early = await flip(nc, table, "ann", 1)
    assert early.refusal.code == "game_not_started"

    joined = await table_cmd(nc, table, "bob", join_table={"display_name": "Bob"})
    assert joined.accepted.seat == 2
    (started,) = of(joined.accepted.events, "game_started")
    assert list(started.players) == ["ann", "bob"] and not started.cpus
    assert started.settings == CONCENTRATION.settings(SMALL)
    assert not any(e.table.HasField("bots_assigned") for e in joined.accepted.events)

    first = await flip(nc, table, "ann", 1)
    assert first.WhichOneof("result") == "accepted", first
    (flipped,) = of(first.accepted.events, "card_flipped")
    assert (flipped.player, flipped.card) == ("ann", 1) and flipped.face
    for player, card, code, category in (
        ("bob", 2, "not_your_turn", common_pb2.Refusal.CATEGORY_FAILED_PRECONDITION),
        ("ann", 1, "card_face_up", common_pb2.Refusal.CATEGORY_FAILED_PRECONDITION),
        ("ann", 25, "card_out_of_range", INVALID),
    ):
        refused = await flip(nc, table, player, card)
        assert (refused.refusal.code, refused.refusal.category) == (code, category), refused
        assert refused.refusal.message
    stranger = await flip(nc, table, "mallory", 2)
    assert stranger.refusal.code in ("not_seated", "not_your_turn")

    logged = await records(nc, table)
    stamped = [r for r in logged if r.command.HasField("concentration")]
    assert [r.refusal.code for r in stamped if r.HasField("refusal")][:3] == [
        "not_your_turn",
        "card_face_up",
        "card_out_of_range",
    ]
    numbers = [e.event_number for r in logged for e in r.events]
    assert numbers == list(range(1, len(numbers) + 1))
    assert {e.game_kind for r in logged for e in r.events} == {common_pb2.GAME_KIND_CONCENTRATION}


async def test_bad_settings_and_seats_are_refused_each_with_its_own_code_and_nothing_appended(
    nc: Client, stack: Stack
) -> None:
    cases = {
        "c2seats0001": create(7),
        "c2emoji0001": create(2, Settings(pictures=Settings.PICTURES_EMOJI, jokers=True)),
        "c2deck00001": create(2, Settings(cards=40)),
    }
    codes = {}
    for table, command in cases.items():
        reply = await table_cmd(nc, table, "ann", **command)
        assert reply.WhichOneof("result") == "refusal", (table, reply)
        assert reply.refusal.category == INVALID and reply.refusal.message, reply
        codes[table] = reply.refusal.code
        assert await records(nc, table) == []  # nothing appended
    assert codes["c2seats0001"] == "invalid_seats"
    assert len(set(codes.values())) == 3, codes  # each its own code

    race_settings = create(2, None, race={"ready_window_ms": 30_000})
    other = await table_cmd(nc, "c2other0001", "ann", **race_settings)
    assert (other.refusal.code, other.refusal.category) == ("wrong_game", INVALID)
    unset = await table_cmd(nc, "c2kind00001", "ann", **create(2, game_kind=0))
    assert (unset.refusal.code, unset.refusal.category) == ("unsupported_game", INVALID)
    assert "GAME_KIND_MATCH_RACE" in unset.refusal.message
    assert "GAME_KIND_CONCENTRATION" in unset.refusal.message
    for table in ("c2other0001", "c2kind00001"):
        assert await records(nc, table) == []
    defaults = await table_cmd(nc, "c2defaults1", "ann", **create(2, None))
    assert defaults.accepted.events[0].table.table_created.concentration == (
        CONCENTRATION.settings(None)
    )


async def test_start_table_seats_a_cpu_player_in_every_empty_seat_and_starts_the_game(
    nc: Client, stack: Stack
) -> None:
    table = "c3abcdef01"
    await table_cmd(nc, table, "ann", **create(4))
    await table_cmd(nc, table, "bob", join_table={"display_name": "Bob"})
    started = await table_cmd(nc, table, "ann", start_table={})
    assert started.WhichOneof("result") == "accepted", started
    seats = [e.table.player_seated for e in started.accepted.events if e.HasField("table")]
    assert [(s.seat, s.player_id, s.display_name, s.is_bot) for s in seats] == [
        (3, "cpu-3", "CPU 3", True),
        (4, "cpu-4", "CPU 4", True),
    ]
    assert not any(e.table.HasField("fill_requested") for e in started.accepted.events)
    (game,) = of(started.accepted.events, "game_started")
    assert list(game.players) == ["ann", "bob", "cpu-3", "cpu-4"]
    assert sorted(game.cpus) == ["cpu-3", "cpu-4"]
    again = await table_cmd(nc, table, "ann", start_table={})
    assert again.refusal.code == "table_started"
    late = await table_cmd(nc, table, "cat", join_table={"display_name": "Cat"})
    assert late.refusal.code == "table_started"
    (record,) = [r for r in await records(nc, table) if r.command.table.HasField("start_table")]
    assert len(record.events) == len(started.accepted.events)  # one record: seats and start


async def test_a_solo_table_starts_at_once_and_its_seed_is_revealed_when_every_pair_is_taken(
    nc: Client, stack: Stack
) -> None:
    table = "c4abcdef01"
    made = await table_cmd(nc, table, "ann", **create(1))
    assert made.WhichOneof("result") == "accepted", made
    (started,) = of(made.accepted.events, "game_started")
    assert list(started.players) == ["ann"]
    faces: dict[int, str] = {}
    taken: set[int] = set()

    async def turn(card: int) -> list[tuple[str, Any]]:
        for _ in range(100):
            reply = await flip(nc, table, "ann", card)
            if reply.WhichOneof("result") == "accepted":
                events = game_events(reply.accepted.events)
                for which, body in events:
                    if which == "card_flipped":
                        faces[body.card] = body.face
                    elif which == "pair_taken":
                        taken.update(body.cards)
                return events
            await asyncio.sleep(0.05)  # a miss still showing: the cards go down first
        raise AssertionError(f"card {card} was never flipped: {reply}")

    ended = False
    while not ended:
        down = [c for c in range(1, 25) if c not in taken]
        known = {}
        pair = None
        for card in down:
            face = faces.get(card)
            if face is not None and face in known:
                pair = (known[face], card)
                break
            if face is not None:
                known[face] = card
        if pair is None:
            first = next(c for c in down if c not in faces)
            await turn(first)
            match = next((c for c in down if c != first and faces.get(c) == faces[first]), None)
            second = match or next(c for c in down if c not in faces)
        else:
            first, second = pair
            await turn(first)
        events = await turn(second)
        ended = any(which == "game_ended" for which, _ in events)
    assert len(taken) == 24
    for _ in range(100):  # the referee asks the dealer to reveal; the dealer checks the end
        revealed = [
            e.table.seed_revealed
            for r in await records(nc, table)
            for e in r.events
            if e.table.HasField("seed_revealed")
        ]
        if revealed:
            break
        await asyncio.sleep(0.1)
    (seed,) = revealed
    assert seed.deal_version == CONCENTRATION.deal_version
    dealt = CONCENTRATION.deal(seed.seed, CONCENTRATION.settings(SMALL))
    assert all(dealt.cards[card - 1] == face for card, face in faces.items())


async def test_a_command_for_a_table_of_another_game_is_refused(nc: Client, stack: Stack) -> None:
    race, concentration = "c5race0001", "c5conc0001"
    made = await table_cmd(
        nc,
        race,
        "ann",
        create_table={
            "game_kind": common_pb2.GAME_KIND_MATCH_RACE,
            "seats": 2,
            "visibility": common_pb2.VISIBILITY_OPEN,
            "display_name": "Ann",
            "race": {"ready_window_ms": 30_000},
        },
    )
    assert made.WhichOneof("result") == "accepted", made
    await table_cmd(nc, concentration, "ann", **create(2))
    wrong = await flip(nc, race, "ann", 1)
    assert (wrong.refusal.code, wrong.refusal.category) == ("wrong_game", INVALID)
    assert "race" in wrong.refusal.message
    ready = race_command_pb2.RaceCommand(table_id=concentration, player_id="ann", press_ready={})
    msg = await nc.request(subjects.referee_race(concentration), ready.SerializeToString(), 5)
    refused = race_command_pb2.RaceCommandReply.FromString(msg.data)
    assert (refused.refusal.code, refused.refusal.category) == ("wrong_game", INVALID)
    for table in (race, concentration):
        assert len(await records(nc, table)) == 1  # only its creation


async def test_presence_counts_only_for_seated_players_of_a_started_game(
    nc: Client, stack: Stack
) -> None:
    race = "c6race0001"
    await table_cmd(
        nc,
        race,
        "ann",
        create_table={
            "game_kind": common_pb2.GAME_KIND_MATCH_RACE,
            "seats": 2,
            "visibility": common_pb2.VISIBILITY_OPEN,
            "display_name": "Ann",
            "race": {"ready_window_ms": 120_000},  # no deadline passes during the test
        },
    )
    before = await table_cmd(nc, race, "ann", presence={"present": False})
    assert before.refusal.code == "game_not_started"
    await table_cmd(nc, race, "bob", join_table={"display_name": "Bob"})
    count = len(await records(nc, race))
    gone = await table_cmd(nc, race, "ann", presence={"present": False})
    assert gone.WhichOneof("result") == "accepted", gone
    assert gone.accepted.seat == 1 and not gone.accepted.events
    back = await table_cmd(nc, race, "ann", presence={"present": True})
    assert back.WhichOneof("result") == "accepted" and not back.accepted.events
    stranger = await table_cmd(nc, race, "zed", presence={"present": False})
    assert stranger.refusal.code == "not_seated"
    assert len(await records(nc, race)) == count  # the race does not care: nothing appended

    concentration = "c6conc0001"
    await table_cmd(nc, concentration, "ann", **create(2))
    await table_cmd(nc, concentration, "bob", join_table={"display_name": "Bob"})
    dropped = await table_cmd(nc, concentration, "bob", presence={"present": False})
    assert dropped.WhichOneof("result") == "accepted", dropped
    (event,) = of(dropped.accepted.events, "player_dropped")
    assert event.player == "bob" and event.takeover_at > event.at
    returned = await table_cmd(nc, concentration, "bob", presence={"present": True})
    assert [w for w, _ in game_events(returned.accepted.events)] == ["player_returned"]
    logged = await records(nc, concentration)
    assert [r.command.table.WhichOneof("command") for r in logged[-2:]] == ["presence"] * 2
