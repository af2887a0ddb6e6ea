"""Play: a seat's commands and view on one bidirectional stream, against the real stack.

The whole games of the five games' end-to-end tests run here again with every game call on the
seats' Play streams (tests/e2e/play.py), their leak checks included; then what is Play's own:
a refused message leaves the stream open, an authentication failure ends it UNAUTHENTICATED, and
a message over the player's rate is refused RESOURCE_EXHAUSTED on the stream as a unary call is.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from nats.aio.client import Client

from match.v1 import lobby_pb2, race_service_pb2
from match_launch.stack import Stack
from tests.e2e.conftest import fast_stack
from tests.e2e.play import PlayChannel
from tests.e2e.players_race import Player, fetch_deal, pairs_of
from tests.e2e.test_concentration import (
    test_two_players_take_turns_a_pair_keeps_the_turn_and_the_most_pairs_win as test_concentration_over_play,  # noqa: E501
)
from tests.e2e.test_match_cards import (
    test_a_challenge_table_of_two_each_sees_only_the_others_progress as test_match_cards_over_play,
)
from tests.e2e.test_match_five import (
    test_a_whole_game_of_three_with_every_rule_of_the_reading as test_match_five_over_play,
)
from tests.e2e.test_number_match import (
    test_every_level_is_cleared_with_its_hints_and_the_audit_replays_the_witness as test_number_match_over_play,  # noqa: E501
)
from tests.e2e.test_race import test_a_whole_game_through_the_api as test_race_over_play

__all__ = [
    "test_concentration_over_play",
    "test_match_cards_over_play",
    "test_match_five_over_play",
    "test_number_match_over_play",
    "test_race_over_play",
]

PATH = "/match.v1.MatchRaceService/Play"
Request = race_service_pb2.MatchRaceServicePlayRequest
Response = race_service_pb2.MatchRaceServicePlayResponse


@pytest.fixture
async def channel(stack: Stack) -> AsyncIterator[Any]:
    """The drivers' channel, with every game call of a seat on its Play stream."""
    async with grpc.aio.insecure_channel(stack.lobby_addr) as ch:
        play = PlayChannel(ch)
        yield play
        opened = sum(s.opened for s in play.streams.values())
        await play.close()
        assert opened >= 1, "no game call went over Play"


def rid() -> str:
    return uuid.uuid4().hex


def open_play(ch: grpc.aio.Channel, token: str) -> Any:
    method = ch.stream_stream(
        PATH,
        request_serializer=Request.SerializeToString,
        response_deserializer=Response.FromString,
    )
    return method(metadata=(("authorization", f"Bearer {token}"),))


async def ask(call: Any, request: Any) -> Any:
    """Send ``request``; the next answer that is not an item of the view."""
    await call.write(request)
    while True:
        answer = await asyncio.wait_for(call.read(), 10)
        assert answer is not grpc.aio.EOF, "the stream ended"
        if answer.WhichOneof("body") != "watch":
            assert answer.request_id == request.request_id
            return answer


async def seated_pair(raw: grpc.aio.Channel, clock: Any) -> tuple[Player, Player]:
    ann, bob = Player("Ann", raw, clock), Player("Bob", raw, clock)
    created = await ann.create(seats=3, window=60_000)  # not full: not started
    await bob.join(created.table_id)
    return ann, bob


async def test_a_refused_message_leaves_the_stream_open_with_the_unary_answer(
    stack: Stack, clock: Any
) -> None:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        ann, _ = await seated_pair(raw, clock)
        call = open_play(raw, ann.token)
        bad_id = await ask(call, Request(request_id="1", press_ready={}))
        assert bad_id.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert "request_id must be" in bad_id.refusal.message

        with pytest.raises(grpc.aio.AioRpcError) as unary:
            await ann.turn(99)
        refused = await ask(call, Request(request_id=rid(), turn_tile={"tile": 99}))
        assert refused.WhichOneof("body") == "refusal"
        assert refused.refusal.status_code == unary.value.code().value[0]
        assert refused.refusal.message == unary.value.details()
        slug = dict(unary.value.trailing_metadata() or ()).get("match-refusal-code", "")
        assert refused.refusal.refusal_code == slug

        other = await ask(call, Request(request_id=rid(), turn_tile={"table_id": "x" * 12}))
        assert other.refusal.status_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        nothing = await ask(call, Request(request_id=rid()))
        assert nothing.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]

        # Bytes that are no request at all: refused under an empty id, and that stream goes on.
        as_bytes = raw.stream_stream(
            PATH, request_serializer=bytes, response_deserializer=Response.FromString
        )(metadata=(("authorization", f"Bearer {ann.token}"),))
        await as_bytes.write(b"\x0a\xff")  # field 1, 255 bytes long, then nothing
        garbled = await asyncio.wait_for(as_bytes.read(), 10)
        assert garbled.request_id == ""
        assert garbled.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert "not a valid match.v1.MatchRaceServicePlayRequest" in garbled.refusal.message
        await as_bytes.write(
            Request(request_id="b" * 32, turn_tile={"tile": 99}).SerializeToString()
        )
        after = await asyncio.wait_for(as_bytes.read(), 10)
        assert (after.request_id, after.WhichOneof("body")) == ("b" * 32, "refusal")
        as_bytes.cancel()

        # Still open: the view starts, and a command is answered by the referee.
        await call.write(Request(request_id=rid(), watch={}))
        first = await asyncio.wait_for(call.read(), 10)
        assert first.WhichOneof("body") == "watch"
        await ann.start_table()  # a bot takes the empty seat: the game starts
        while True:
            item = await asyncio.wait_for(call.read(), 30)
            assert item.WhichOneof("body") == "watch", item
            if item.watch.event.race.WhichOneof("event") == "game_started":
                break
        same = rid()
        ready = await ask(call, Request(request_id=same, press_ready={}))
        assert ready.WhichOneof("body") == "press_ready", ready
        again = await ask(call, Request(request_id=same, press_ready={}))
        assert again.press_ready == ready.press_ready  # the first answer, not a second press
        call.cancel()


async def test_a_bad_token_or_a_seat_given_up_ends_the_stream_unauthenticated(
    stack: Stack, clock: Any
) -> None:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        # The token is checked at the open, before any message: the stream ends at once. (No
        # write first: grpc.aio's client reports a write that fails as the call ends as its own
        # INTERNAL "Internal error from Core" in place of the server's status, grpc/grpc#36066;
        # one run in eight here.)
        call = open_play(raw, "not.a-token")
        with pytest.raises(grpc.aio.AioRpcError):
            await asyncio.wait_for(call.read(), 10)
        assert await call.code() == grpc.StatusCode.UNAUTHENTICATED

        _, bob = await seated_pair(raw, clock)
        call = open_play(raw, bob.token)
        answer = await ask(call, Request(request_id=rid(), turn_tile={"tile": 99}))
        assert answer.WhichOneof("body") == "refusal"
        await bob.lobby.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=bob.table_id), metadata=bob.metadata()
        )
        for _ in range(50):  # until this lobby's listing has the leave
            try:  # the write fails too once the server has ended the stream
                await call.write(Request(request_id=rid(), turn_tile={"tile": 99}))
                await asyncio.wait_for(call.read(), 10)
            except grpc.aio.AioRpcError:
                assert await call.code() == grpc.StatusCode.UNAUTHENTICATED
                assert "you left this table" in (await call.details() or "")
                return
            await asyncio.sleep(0.1)
        raise AssertionError("the stream of a seat given up stayed open")


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Stack]:
    # A token every 5 s, 3 at once: the burst is spent before one comes back, however slow
    # the machine is.
    yield from fast_stack(tmp_path, LOBBY_RATE_PLAYER="0.2", LOBBY_BURST_PLAYER="3")


async def test_a_message_over_the_players_rate_is_refused_on_the_stream_as_unary(
    limited: Stack, clock: Any
) -> None:
    async with grpc.aio.insecure_channel(limited.lobby_addr) as raw:
        ann, _ = await seated_pair(raw, clock)
        call = open_play(raw, ann.token)  # the open takes none of the player's calls
        answers = [await ask(call, Request(request_id=rid(), turn_tile={"tile": 99}))]
        while answers[-1].refusal.status_code != grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]:
            assert len(answers) < 5, answers
            answers.append(await ask(call, Request(request_id=rid(), turn_tile={"tile": 99})))
        assert len(answers) == 4  # the burst of 3, as three unary calls would have had
        limit = answers[-1].refusal
        assert limit.retry_after_ms > 0
        assert limit.message.startswith("too many requests from this player: wait")
        with pytest.raises(grpc.aio.AioRpcError) as unary:
            await ann.turn(99)
        assert unary.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert (unary.value.details() or "").startswith("too many requests from this player")
        await asyncio.sleep(limit.retry_after_ms / 1000 + 0.2)  # a token again: answered
        later = await ask(call, Request(request_id=rid(), turn_tile={"tile": 99}))
        assert later.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        call.cancel()


async def test_a_view_that_skips_the_answers_sends_every_other_event_once(
    stack: Stack, clock: Any, nc: Client
) -> None:
    """``skip_answered``: what Ann's answers carried never comes down her view as well, and her
    answers and her view together are exactly what her plain Watch sends, event for event."""
    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        ann, bob = Player("Ann", raw, clock), Player("Bob", raw, clock)
        await ann.create(seats=2, window=60_000)
        await bob.join(ann.table_id)
        ann.watch()  # the plain Watch: every event, the reference
        call = open_play(raw, ann.token)
        view: list[Any] = []  # the Play view's events
        answered: list[Any] = []  # the events the Play answers carried
        answers: asyncio.Queue[Any] = asyncio.Queue()

        async def read() -> None:
            async for item in call:
                if item.WhichOneof("body") == "watch":
                    assert item.watch.WhichOneof("item") == "events", item  # batched, no snapshot
                    view.extend(item.watch.events.events)
                else:
                    await answers.put(item)

        async def command(**member: Any) -> Any:
            request = Request(request_id=rid(), **member)
            await call.write(request)
            answer = await asyncio.wait_for(answers.get(), 10)
            assert answer.request_id == request.request_id
            body = getattr(answer, answer.WhichOneof("body"))
            answered.extend(body.events)
            return body

        reader = asyncio.create_task(read())
        await call.write(Request(request_id=rid(), watch={"batch": True, "skip_answered": True}))
        await ann.wait_for("game_started", timeout=30)
        layout = (await fetch_deal(nc, ann.table_id))[0]
        await command(press_ready={})
        await bob.ready()
        await ann.wait_for("board_started", board=1, timeout=30)
        for a, b in pairs_of(layout)[:3]:
            await command(turn_tile={"tile": a})
            await command(turn_tile={"tile": b})
        await bob.turn(pairs_of(layout)[0][0])  # Ann sees it as OpponentMoved, on her view only
        await ann.wait_for("opponent_moved", timeout=30)

        reference = {e.event_number: e for i in ann.stream for e in [i.event] if i.event.ByteSize()}
        for _ in range(100):  # until the Play view has caught up with the plain Watch
            if {e.event_number for e in view + answered} >= set(reference):
                break
            await asyncio.sleep(0.05)
        in_view = [e.event_number for e in view]
        in_answers = [e.event_number for e in answered]
        assert len(in_answers) >= 7 and len(set(in_answers)) == len(in_answers)
        assert not set(in_view) & set(in_answers), "an answered event came down the view too"
        assert in_view == sorted(set(in_view))  # in order, each once
        assert set(in_view) | set(in_answers) == set(reference)
        for envelope in view + answered:  # the same bytes as the plain Watch's, redaction and all
            assert envelope == reference[envelope.event_number]
        assert any(e.race.WhichOneof("event") == "opponent_moved" for e in view)
        call.cancel()
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        await ann.stop_watch()
