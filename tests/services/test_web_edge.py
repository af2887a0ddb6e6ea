"""The lobby's web edge (services/webedge.py) against the real lobby, referee and dealer: the
same handlers as the gRPC port, in the Connect protocol, as a browser's fetch sends it.

Each case here is asked of both edges where both can be asked, and their answers compared: the
same status, the same sentence, the same refusal slug, the same bucket.
"""

from __future__ import annotations

import json
import struct
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import httpx
import pytest

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_launch.natsserver import free_port
from match_launch.stack import Stack
from services.webedge import MAX_BODY, WebConfig, WebConfigError, connect_code, grpc_peer

RACE = common_pb2.GAME_KIND_MATCH_RACE
LOBBY = "match.v1.LobbyService"
RACE_SERVICE = "match.v1.MatchRaceService"


def _start(tmp_path: Path, **env: str) -> Iterator[Stack]:
    env = {"LOBBY_METRICS_PORT": str(free_port()), **env}
    s = Stack(tmp_path / "stack", services=("dealer", "referee", "lobby"), env=env)
    s.start()
    try:
        yield s
    finally:
        s.stop()
    assert "Traceback" not in s.log("lobby"), s.log("lobby")


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    yield from _start(tmp_path)


@pytest.fixture
async def web(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.web_url, timeout=10.0) as client:
        yield client


def _create(name: str = "Ann") -> lobby_pb2.CreateTableRequest:
    return lobby_pb2.CreateTableRequest(
        game_kind=RACE,
        seats=2,
        visibility=common_pb2.VISIBILITY_OPEN,
        display_name=name,
        race=race_pb2.RaceSettings(ready_window_ms=60_000),
    )


def _proto(token: str | None = None) -> dict[str, str]:
    headers = {"content-type": "application/proto", "x-request-id": str(uuid.uuid4())}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return headers


def _envelope(body: bytes) -> bytes:
    return struct.pack(">BI", 0, len(body)) + body


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    frames = []
    while data:
        flags, size = struct.unpack(">BI", data[:5])
        frames.append((flags, data[5 : 5 + size]))
        data = data[5 + size :]
    return frames


async def test_a_table_made_in_the_browser_is_the_table_grpc_sees(
    web: httpx.AsyncClient, channel: grpc.aio.Channel
) -> None:
    made = await web.post(
        f"/{LOBBY}/CreateTable", content=_create().SerializeToString(), headers=_proto()
    )
    assert made.status_code == 200, made.text
    seat = lobby_pb2.CreateTableResponse.FromString(made.content)
    assert seat.seat == 1 and seat.player_token

    # JSON, as a page may send it, reads the same table over the same handler.
    got = await web.post(f"/{LOBBY}/GetTable", json={"tableId": seat.table_id})
    assert got.status_code == 200, got.text
    assert got.json()["table"]["taken"][0]["displayName"] == "Ann"

    table = await lobby_pb2_grpc.LobbyServiceStub(channel).GetTable(
        lobby_pb2.GetTableRequest(table_id=seat.table_id)
    )
    assert table.table.taken[0].player_id == seat.player_id

    # The seat's token from the web edge acts at the gRPC edge, and the other way round.
    race = race_service_pb2_grpc.MatchRaceServiceStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await race.TurnTile(
            race_service_pb2.TurnTileRequest(table_id=seat.table_id, tile=3),
            metadata=(("authorization", f"Bearer {seat.player_token}"),),
        )
    grpc_slug = dict(caught.value.trailing_metadata() or ())["match-refusal-code"]
    turned = await web.post(
        f"/{RACE_SERVICE}/TurnTile",
        content=race_service_pb2.TurnTileRequest(
            table_id=seat.table_id, tile=3
        ).SerializeToString(),
        headers=_proto(seat.player_token),
    )
    body = turned.json()
    assert (body["code"], body["message"]) == (
        caught.value.code().name.lower(),
        caught.value.details(),
    )
    assert turned.headers["trailer-match-refusal-code"] == grpc_slug


async def test_refusals_match_the_grpc_edge_code_and_sentence(
    web: httpx.AsyncClient, channel: grpc.aio.Channel
) -> None:
    tables = lobby_pb2_grpc.LobbyServiceStub(channel)
    cases = [
        ("CreateTable", lobby_pb2.CreateTableRequest(seats=2, display_name="Ann"), None),
        ("JoinTable", lobby_pb2.JoinTableRequest(table_id="nope", display_name="Bo"), None),
        ("GetTable", lobby_pb2.GetTableRequest(table_id="t" * 16), None),
        ("LeaveTable", lobby_pb2.LeaveTableRequest(table_id="t" * 16), None),
        ("StartTable", lobby_pb2.StartTableRequest(table_id="t" * 16), "forged.token"),
    ]
    for method, request, token in cases:
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await getattr(tables, method)(request, metadata=metadata)
        answer = await web.post(
            f"/{LOBBY}/{method}", content=request.SerializeToString(), headers=_proto(token)
        )
        assert answer.json() == {
            "code": connect_code(caught.value.code()).value,
            "message": caught.value.details(),
        }, method


async def test_a_body_that_does_not_parse_is_refused_as_grpc_refuses_it(
    web: httpx.AsyncClient, channel: grpc.aio.Channel
) -> None:
    garbage = b"\xff\xff\xff\xff"
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await channel.unary_unary(f"/{LOBBY}/CreateTable")(garbage)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    answer = await web.post(f"/{LOBBY}/CreateTable", content=garbage, headers=_proto())
    assert answer.status_code == 400
    assert answer.json() == {"code": "invalid_argument", "message": caught.value.details()}

    bad_json = await web.post(
        f"/{LOBBY}/CreateTable",
        content=b'{"seats": "many"}',
        headers={"content-type": "application/json"},
    )
    assert bad_json.status_code == 400
    assert bad_json.json()["code"] == "invalid_argument"
    assert "match.v1.CreateTableRequest" in bad_json.json()["message"]


def _metric(stack: Stack, line_start: str) -> float:
    text = httpx.get(f"http://127.0.0.1:{stack.env['LOBBY_METRICS_PORT']}/metrics").text
    found = [line for line in text.splitlines() if line.startswith(line_start)]
    return float(found[0].rsplit(" ", 1)[1]) if found else 0.0


async def test_what_only_the_web_edge_can_be_sent_gets_a_clear_error(
    web: httpx.AsyncClient, stack: Stack
) -> None:
    big = await web.post(f"/{LOBBY}/CreateTable", content=b"\0" * (MAX_BODY + 1), headers=_proto())
    assert big.status_code == 429
    assert big.json()["code"] == "resource_exhausted"
    assert f"at most {MAX_BODY}" in big.json()["message"]

    text = await web.post(
        f"/{LOBBY}/CreateTable", content=b"{}", headers={"content-type": "text/plain"}
    )
    assert text.status_code == 415
    assert "application/proto or application/json" in text.text
    assert text.headers["accept-post"] == "application/proto, application/json"

    get = await web.get(f"/{LOBBY}/ListTables")
    assert get.status_code == 405 and "POST" in get.text

    unknown = await web.post("/match.v1.NoSuchService/Call", json={})
    assert unknown.status_code == 405 or unknown.status_code == 404

    missing = await web.post(f"/{LOBBY}/NoSuchCall", json={})
    assert missing.status_code == 404

    for reason in ("size", "content_type", "method"):
        assert _metric(stack, f'match_web_refused_total{{reason="{reason}"}}') == 1.0, reason


async def test_web_calls_are_counted_with_the_grpc_calls(
    web: httpx.AsyncClient, stack: Stack
) -> None:
    key = 'match_lobby_requests_total{code="INVALID_ARGUMENT",method="CreateTable"}'
    before = _metric(stack, key)
    answer = await web.post(f"/{LOBBY}/CreateTable", json={"seats": 2})
    assert answer.status_code == 400
    assert _metric(stack, key) == before + 1


async def test_another_origin_is_refused_and_the_own_origin_served(
    web: httpx.AsyncClient, stack: Stack
) -> None:
    other = await web.post(
        f"/{LOBBY}/ListTables", json={}, headers={"origin": "http://evil.example"}
    )
    assert other.status_code == 403
    assert "http://evil.example" in other.text
    assert "access-control-allow-origin" not in other.headers

    preflight = await web.options(
        f"/{LOBBY}/ListTables",
        headers={"origin": "http://evil.example", "access-control-request-method": "POST"},
    )
    assert preflight.status_code == 403

    own = await web.post(
        f"/{LOBBY}/ListTables",
        json={"gameKind": "GAME_KIND_MATCH_RACE"},
        headers={"origin": stack.web_url},
    )
    assert own.status_code == 200, own.text


async def test_a_listed_origin_gets_cors_headers(tmp_path: Path) -> None:
    origin = "https://play.example.org"
    for stack in _start(tmp_path, LOBBY_WEB_ORIGINS=f"{origin}, http://localhost:5173"):
        async with httpx.AsyncClient(base_url=stack.web_url, timeout=10.0) as web:
            preflight = await web.options(
                f"/{LOBBY}/CreateTable",
                headers={"origin": origin, "access-control-request-method": "POST"},
            )
            assert preflight.status_code == 204
            assert preflight.headers["access-control-allow-origin"] == origin
            assert "authorization" in preflight.headers["access-control-allow-headers"]
            listed = await web.post(f"/{LOBBY}/ListTables", json={}, headers={"origin": origin})
            assert listed.status_code == 200
            assert listed.headers["access-control-allow-origin"] == origin
            assert "match-refusal-code" in listed.headers["access-control-expose-headers"]


async def test_both_edges_draw_on_one_bucket(tmp_path: Path) -> None:
    """Three tables a minute per address, whichever edge asks: the web edge is not a way
    around the gRPC edge's limits."""
    env = {"LOBBY_RATE_CREATE": "0.05", "LOBBY_BURST_CREATE": "3"}
    for stack in _start(tmp_path, **env):
        async with (
            httpx.AsyncClient(base_url=stack.web_url, timeout=10.0) as web,
            grpc.aio.insecure_channel(stack.lobby_addr) as channel,
        ):
            tables = lobby_pb2_grpc.LobbyServiceStub(channel)
            await tables.CreateTable(_create("A"))
            await tables.CreateTable(_create("B"))
            third = await web.post(
                f"/{LOBBY}/CreateTable", content=_create("C").SerializeToString(), headers=_proto()
            )
            assert third.status_code == 200, third.text
            fourth = await web.post(
                f"/{LOBBY}/CreateTable", content=_create("D").SerializeToString(), headers=_proto()
            )
            assert fourth.status_code == 429
            assert fourth.json()["code"] == "resource_exhausted"
            assert int(fourth.headers["trailer-retry-after-ms"]) > 0
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await tables.CreateTable(_create("E"))
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_watch_streams_the_same_snapshot_as_grpc(
    web: httpx.AsyncClient, channel: grpc.aio.Channel
) -> None:
    tables = lobby_pb2_grpc.LobbyServiceStub(channel)
    seat = await tables.CreateTable(_create())
    request = race_service_pb2.WatchRequest(table_id=seat.table_id)
    watch = race_service_pb2_grpc.MatchRaceServiceStub(channel).Watch(
        request, metadata=(("authorization", f"Bearer {seat.player_token}"),)
    )
    first = await watch.read()
    watch.cancel()

    async with web.stream(
        "POST",
        f"/{RACE_SERVICE}/Watch",
        content=_envelope(request.SerializeToString()),
        headers={
            "content-type": "application/connect+proto",
            "authorization": f"Bearer {seat.player_token}",
        },
    ) as stream:
        assert stream.status_code == 200
        data = b""
        async for chunk in stream.aiter_bytes():
            data += chunk
            if len(data) >= 5 and len(data) >= 5 + struct.unpack(">I", data[1:5])[0]:
                break
    flags, message = _frames(data)[0]
    assert flags == 0
    assert race_service_pb2.WatchResponse.FromString(message) == first

    # Without the seat's token the stream ends with the gRPC edge's status and sentence.
    async with web.stream(
        "POST",
        f"/{RACE_SERVICE}/Watch",
        content=_envelope(json.dumps({"tableId": seat.table_id}).encode()),
        headers={"content-type": "application/connect+json"},
    ) as stream:
        frames = _frames(await stream.aread())
    flags, end = frames[-1]
    assert flags == 2  # end of stream
    error = json.loads(end)["error"]
    assert error["code"] == "unauthenticated"
    assert "authorization: Bearer" in error["message"]


def test_the_page_and_its_settings_are_served(stack: Stack) -> None:
    config = httpx.get(f"{stack.web_url}/config.json")
    assert config.json() == {"auditUrl": stack.ledger_web_url, "auditAddr": stack.ledger_addr}
    page = httpx.get(f"{stack.web_url}/")
    if page.status_code == 404:  # a checkout whose bundle is not built says how to build it
        assert "make install" in page.text
    else:
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    escape = httpx.get(f"{stack.web_url}/../../pyproject.toml")
    assert escape.status_code == 404


# --- pure parts -------------------------------------------------------------------------------


def test_a_browser_is_keyed_by_its_address_as_a_grpc_client_is() -> None:
    assert grpc_peer("203.0.113.7:53124") == "ipv4:203.0.113.7:53124"
    assert grpc_peer("::1:53124") == "ipv6:[::1]:53124"
    assert grpc_peer(None) == "unknown"


def test_every_grpc_status_has_its_connect_code() -> None:
    for status in grpc.StatusCode:
        if status == grpc.StatusCode.OK:  # a call that ends OK has no error to map
            continue
        code = connect_code(status)
        if status == grpc.StatusCode.CANCELLED:
            assert code.value == "canceled"
        else:
            assert code.name == status.name, status


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"LOBBY_WEB_ADDR": "8080"}, "host:port"),
        ({"LOBBY_WEB_ADDR": "127.0.0.1:http"}, "host:port"),
        ({"LOBBY_WEB_ORIGINS": "play.example.org"}, "not an origin"),
        ({"LOBBY_WEB_ORIGINS": "https://play.example.org/app"}, "not an origin"),
    ],
)
def test_edge_settings_that_cannot_work_are_refused(env: dict[str, str], problem: str) -> None:
    with pytest.raises(WebConfigError, match=problem):
        WebConfig.from_env(env, "LOBBY")


def test_edge_settings() -> None:
    config = WebConfig.from_env(
        {"LOBBY_WEB_ADDR": "0.0.0.0:8080", "LOBBY_WEB_ORIGINS": "https://a.example/, "}, "LOBBY"
    )
    assert config == WebConfig("0.0.0.0:8080", frozenset({"https://a.example"}))
    assert WebConfig.from_env({}, "LOBBY") == WebConfig()
