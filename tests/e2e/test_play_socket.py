"""Play over the lobby's web edge WebSocket (services/websocket.py), against the real stack.

The five games' whole games run again with every game call of a seat on its Play stream carried
by a WebSocket (tests/e2e/socket.py under tests/e2e/play.py), their leak checks included: what
another seat may not see never arrives on the socket. Then what is the socket's own: the edge's
Origin and Host checks, no token in a URL, the first message (the seat's token) and what ends
the socket when it is missing or wrong, the size limit, the refusals and rate limits answered on
the open socket as on a gRPC Play stream, the stream caps shared with gRPC, and the edge's
connection guard counting a socket until it closes.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from match.v1 import race_service_pb2
from match_bus.clock import Clock
from match_launch.stack import Stack
from tests.e2e.conftest import RATE, fast_stack
from tests.e2e.play import PlayChannel
from tests.e2e.players_race import Player
from tests.e2e.socket import SocketChannel, hello, open_socket
from tests.e2e.test_concentration import (
    test_two_players_take_turns_a_pair_keeps_the_turn_and_the_most_pairs_win as test_concentration_over_the_socket,  # noqa: E501
)
from tests.e2e.test_match_cards import (
    test_a_challenge_table_of_two_each_sees_only_the_others_progress as test_match_cards_over_the_socket,  # noqa: E501
)
from tests.e2e.test_match_five import (
    test_a_whole_game_of_three_with_every_rule_of_the_reading as test_match_five_over_the_socket,
)
from tests.e2e.test_number_match import (
    test_every_level_is_cleared_with_its_hints_and_the_audit_replays_the_witness as test_number_match_over_the_socket,  # noqa: E501
)
from tests.e2e.test_race import test_a_whole_game_through_the_api as test_race_over_the_socket

__all__ = [
    "test_concentration_over_the_socket",
    "test_match_cards_over_the_socket",
    "test_match_five_over_the_socket",
    "test_number_match_over_the_socket",
    "test_race_over_the_socket",
]

PATH = "/match.v1.MatchRaceService/Play"
Request = race_service_pb2.MatchRaceServicePlayRequest
Response = race_service_pb2.MatchRaceServicePlayResponse
UNAUTHENTICATED = 4000 + grpc.StatusCode.UNAUTHENTICATED.value[0]
INVALID_ARGUMENT = 4000 + grpc.StatusCode.INVALID_ARGUMENT.value[0]
EXHAUSTED = 4000 + grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]


@pytest.fixture
async def channel(stack: Stack) -> AsyncIterator[Any]:
    """The drivers' channel, with every game call of a seat on its Play stream, on a socket."""
    async with grpc.aio.insecure_channel(stack.lobby_addr) as ch:
        sockets = SocketChannel(ch, stack.web_url)
        play = PlayChannel(sockets)  # type: ignore[arg-type]
        yield play
        await play.close()
        await sockets.close()
        assert sockets.opened >= 1, "no game call went over a WebSocket"


def rid() -> str:
    return uuid.uuid4().hex


async def seat(stack: Stack, token: str) -> ClientConnection:
    """A socket at the race's Play, its first message the seat's token."""
    ws = await open_socket(stack.web_url, PATH)
    await ws.send(hello([("authorization", f"Bearer {token}")]))
    return ws


async def ask(ws: ClientConnection, request: Any) -> Any:
    """Send ``request``; the next answer that is not an item of the view."""
    await ws.send(request.SerializeToString())
    while True:
        answer = Response.FromString(await asyncio.wait_for(ws.recv(), 10))
        if answer.WhichOneof("body") != "watch":
            assert answer.request_id == request.request_id
            return answer


async def closed(ws: ClientConnection, timeout: float = 10) -> tuple[int, str, list[Any]]:
    """Read until the socket closes: its close code and reason, and what came before."""
    before = []
    try:
        while True:
            before.append(Response.FromString(await asyncio.wait_for(ws.recv(), timeout)))
    except ConnectionClosed as ended:
        assert ended.rcvd is not None, "closed without a close frame"
        return ended.rcvd.code, ended.rcvd.reason, before


async def seated_pair(raw: grpc.aio.Channel, clock: Any) -> tuple[Player, Player]:
    ann, bob = Player("Ann", raw, clock), Player("Bob", raw, clock)
    created = await ann.create(seats=3, window=60_000)  # not full: not started
    await bob.join(created.table_id)
    return ann, bob


async def refused_upgrade(stack: Stack, path: str, **kwargs: Any) -> tuple[int, str]:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await open_socket(stack.web_url, path, **kwargs)
    response = refused.value.response
    return response.status_code, response.body.decode()


async def test_the_edge_refuses_another_sites_page_another_name_and_a_token_in_the_url(
    stack: Stack, clock: Any
) -> None:
    status, text = await refused_upgrade(stack, PATH, origin="https://evil.example")
    assert status == 403
    assert "requests from https://evil.example are not allowed here" in text
    port = int(stack.web_addr.rpartition(":")[2])  # a name of another's pointed at the edge
    with pytest.raises(websockets.InvalidStatus) as rebound:
        await connect(f"ws://rebound.example:{port}{PATH}", host="127.0.0.1", port=port)
    assert rebound.value.response.status_code == 403
    assert "does not answer to the name 'rebound.example'" in rebound.value.response.body.decode()

    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        ann, _ = await seated_pair(raw, clock)
    status, text = await refused_upgrade(stack, f"{PATH}?token={ann.token}")
    assert status == 400
    assert "send the seat's token in the first message, never in a URL" in text
    status, text = await refused_upgrade(stack, "/match.v1.MatchRaceService/TurnTile")
    assert status == 404 and "/<package>.<Service>/Play" in text

    # The same token in the first message opens it.
    ws = await seat(stack, ann.token)
    answer = await ask(ws, Request(request_id=rid(), turn_tile={"tile": 99}))
    assert answer.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    await ws.close()


async def test_the_first_message_is_the_seats_token_or_the_socket_closes_saying_why(
    stack: Stack, clock: Any
) -> None:
    ws = await open_socket(stack.web_url, PATH)
    await ws.send(Request(request_id=rid(), press_ready={}).SerializeToString())
    code, reason, _ = await closed(ws)
    assert code == UNAUTHENTICATED
    assert reason.startswith("the first message was binary: send the call's metadata first")

    ws = await open_socket(stack.web_url, PATH)
    await ws.send("Bearer abc")
    code, reason, _ = await closed(ws)
    assert code == INVALID_ARGUMENT
    assert reason.startswith("the first message is not a JSON object of strings")

    ws = await open_socket(stack.web_url, PATH)
    await ws.send(hello([("x-client-key", rid())]))
    code, reason, last = await closed(ws)
    assert code == UNAUTHENTICATED
    assert reason == "send your player token as metadata `authorization: Bearer <player_token>`"
    assert last[-1].request_id == "" and last[-1].refusal.message == reason

    ws = await open_socket(stack.web_url, PATH)
    await ws.send(hello([("authorization", "Bearer not.a-token")]))
    code, _, last = await closed(ws)
    assert code == UNAUTHENTICATED
    assert last[-1].refusal.status_code == grpc.StatusCode.UNAUTHENTICATED.value[0]

    ws = await open_socket(stack.web_url, PATH)  # nothing sent: closed after the header timeout
    code, reason, _ = await closed(ws, timeout=15)
    assert code == UNAUTHENTICATED
    assert reason.startswith("no first message within 10 s: send the call's metadata first")

    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        ann, _ = await seated_pair(raw, clock)
    ws = await seat(stack, ann.token)
    await ws.send("a text message")
    code, reason, _ = await closed(ws)
    assert code == INVALID_ARGUMENT and reason.startswith("a text message after the first")


async def test_a_refused_message_leaves_the_socket_open_with_the_unary_answer(
    stack: Stack, clock: Any
) -> None:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        ann, _ = await seated_pair(raw, clock)
        ws = await seat(stack, ann.token)
        bad_id = await ask(ws, Request(request_id="1", press_ready={}))
        assert bad_id.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert "request_id must be" in bad_id.refusal.message

        with pytest.raises(grpc.aio.AioRpcError) as unary:
            await ann.turn(99)
        refused = await ask(ws, Request(request_id=rid(), turn_tile={"tile": 99}))
        assert refused.WhichOneof("body") == "refusal"
        assert refused.refusal.status_code == unary.value.code().value[0]
        assert refused.refusal.message == unary.value.details()
        slug = dict(unary.value.trailing_metadata() or ()).get("match-refusal-code", "")
        assert refused.refusal.refusal_code == slug

        await ws.send(b"\xff\xff\xff")  # not a PlayRequest: refused, the socket stays open
        garbage = Response.FromString(await asyncio.wait_for(ws.recv(), 10))
        assert garbage.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert "is not a valid" in garbage.refusal.message

        # Still open: the view starts, and a command is answered by the referee.
        await ws.send(Request(request_id=rid(), watch={}).SerializeToString())
        first = Response.FromString(await asyncio.wait_for(ws.recv(), 10))
        assert first.WhichOneof("body") == "watch"
        await ann.start_table()  # a bot takes the empty seat: the game starts
        while True:
            item = Response.FromString(await asyncio.wait_for(ws.recv(), 30))
            assert item.WhichOneof("body") == "watch", item
            if item.watch.event.race.WhichOneof("event") == "game_started":
                break
        same = rid()
        ready = await ask(ws, Request(request_id=same, press_ready={}))
        assert ready.WhichOneof("body") == "press_ready", ready
        again = await ask(ws, Request(request_id=same, press_ready={}))
        assert again.press_ready == ready.press_ready  # the first answer, not a second press
        await ws.close()


async def test_a_message_over_the_size_limit_closes_the_socket_1009(
    stack: Stack, clock: Any
) -> None:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as raw:
        ann, _ = await seated_pair(raw, clock)
    ws = await seat(stack, ann.token)
    answer = await ask(ws, Request(request_id=rid(), turn_tile={"tile": 99}))
    assert answer.WhichOneof("body") == "refusal"
    big = Request(request_id=rid(), turn_tile={"table_id": "x" * (64 * 1024)})
    await ws.send(big.SerializeToString())
    code, reason, _ = await closed(ws)
    assert code == 1009, reason
    assert "exceeds limit of 65536 bytes" in reason


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Stack]:
    yield from fast_stack(
        tmp_path,
        LOBBY_RATE_PLAYER="0.2",  # a token every 5 s: the burst of 3 is spent before one comes back
        LOBBY_BURST_PLAYER="3",
        LOBBY_MAX_WATCHES_PER_PLAYER="1",
        LOBBY_WEB_HEADER_TIMEOUT_S="1",
        LOBBY_WEB_BODY_TIMEOUT_S="1",
        LOBBY_METRICS_PORT=str(free_port()),
    )


def free_port() -> int:
    from match_launch.stack import free_port as port

    return port()


def web_connections(stack: Stack) -> float:
    text = httpx.get(f"http://127.0.0.1:{stack.env['LOBBY_METRICS_PORT']}/metrics").text
    for line in text.splitlines():
        if line.startswith("match_web_connections "):
            return float(line.split()[1])
    raise AssertionError("no match_web_connections in the lobby's metrics")


async def test_rate_limits_caps_and_the_connection_guard_are_the_grpc_streams(
    limited: Stack,
) -> None:
    clock = Clock(RATE, int(limited.env["REFEREE_CLOCK_ANCHOR_MS"]))
    async with grpc.aio.insecure_channel(limited.lobby_addr) as raw:
        ann, bob = await seated_pair(raw, clock)
        # One stream per player (LOBBY_MAX_WATCHES_PER_PLAYER=1), over gRPC and sockets alike.
        held = raw.stream_stream(
            PATH,
            request_serializer=Request.SerializeToString,
            response_deserializer=Response.FromString,
        )(metadata=(("authorization", f"Bearer {bob.token}"),))
        await held.write(Request(request_id=rid(), turn_tile={"tile": 99}))
        assert (await asyncio.wait_for(held.read(), 10)).WhichOneof("body") == "refusal"
        ws = await seat(limited, bob.token)
        code, reason, last = await closed(ws)
        assert code == EXHAUSTED
        assert reason.startswith("too many Watch streams open for this player (1 at most)")
        assert last[-1].refusal.retry_after_ms > 0
        held.cancel()

        ws = await seat(limited, ann.token)  # the open takes none of the player's calls
        await asyncio.sleep(1.5)  # past the edge's header and body timeouts: still open
        answers = [await ask(ws, Request(request_id=rid(), turn_tile={"tile": 99}))]
        while answers[-1].refusal.status_code != grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]:
            assert len(answers) < 5, answers
            answers.append(await ask(ws, Request(request_id=rid(), turn_tile={"tile": 99})))
        assert len(answers) == 4  # the burst of 3, as three unary calls would have had
        limit = answers[-1].refusal
        assert limit.retry_after_ms > 0
        assert limit.message.startswith("too many requests from this player: wait")
        with pytest.raises(grpc.aio.AioRpcError) as unary:
            await ann.turn(99)
        assert unary.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        await asyncio.sleep(limit.retry_after_ms / 1000 + 0.2)  # a token again: answered
        later = await ask(ws, Request(request_id=rid(), turn_tile={"tile": 99}))
        assert later.refusal.status_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]

        # The socket is one of the edge's connections while it is open, and only then.
        assert web_connections(limited) >= 1
        await ws.close()
        for _ in range(50):
            if web_connections(limited) == 0:
                break
            await asyncio.sleep(0.1)
        assert web_connections(limited) == 0
