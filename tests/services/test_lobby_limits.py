"""The lobby's rate limits (services/lobby/limits.py on a fake clock, then through the real
stack), its configuration, and the ids it derives from request ids."""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Iterator
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import pytest

from match.v1 import common_pb2, race_service_pb2
from match_bus import subjects
from match_bus.jetstream import TableLog
from match_client.client import MatchClient, new_request_id, refusal_code, retry_after_ms
from match_client.session import GameSession
from match_launch.stack import Stack
from services.lobby import validation
from services.lobby.config import (
    DEFAULT_ADDRESS_LIMIT,
    DEFAULT_PLAYER_LIMIT,
    ConfigError,
    LobbyConfig,
)
from services.lobby.errors import ApiError
from services.lobby.ids import Ids
from services.lobby.limits import MAX_KEYS, Limiter, Rate
from services.lobby.limits import retry_after_ms as wait_ms

SECRET = bytes(range(32))


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# --- token buckets ----------------------------------------------------------------------------


def test_a_bucket_allows_its_burst_then_one_call_per_token() -> None:
    clock = FakeClock()
    limiter = Limiter(Rate(per_s=2, burst=3), clock)
    assert [limiter.take("ann") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("ann") == pytest.approx(0.5)  # one token comes in half a second
    clock.now += 0.25
    assert limiter.take("ann") == pytest.approx(0.25)  # a refused call takes nothing
    clock.now += 0.25
    assert limiter.take("ann") == 0.0
    assert limiter.take("ann") == pytest.approx(0.5)
    clock.now += 100  # a long quiet spell fills the bucket, no further
    assert [limiter.take("ann") for _ in range(4)][-2:] == [0.0, pytest.approx(0.5)]


def test_buckets_are_independent() -> None:
    clock = FakeClock()
    limiter = Limiter(Rate(per_s=1, burst=1), clock)
    assert limiter.take("ann") == 0.0
    assert limiter.take("ann") > 0
    assert limiter.take("bob") == 0.0
    assert limiter.take("ann") > 0


def test_a_limit_of_zero_is_off() -> None:
    for rate in (Rate(0, 10), Rate(10, 0), Rate(0, 0)):
        limiter = Limiter(rate, FakeClock())
        assert not rate.enabled
        assert all(limiter.take("ann") == 0.0 for _ in range(1000))
        assert len(limiter) == 0


def test_a_clock_going_back_gives_no_tokens() -> None:
    clock = FakeClock()
    limiter = Limiter(Rate(per_s=1, burst=1), clock)
    assert limiter.take("ann") == 0.0
    clock.now -= 50
    assert limiter.take("ann") == pytest.approx(1.0)


def test_idle_buckets_are_dropped_once_full_again() -> None:
    clock = FakeClock()
    limiter = Limiter(Rate(per_s=10, burst=20), clock)  # empty to full: 2 s
    for n in range(100):
        for _ in range(20):
            assert limiter.take(f"player-{n}") == 0.0
    assert len(limiter) == 100
    clock.now += 1.9
    limiter.take("late")
    assert len(limiter) == 101  # nobody is full yet: dropping one would forgive it
    while limiter.take("player-0") == 0.0:  # drained again
        pass
    clock.now += 0.2
    limiter.take("later")
    # the 99 others and late are full again (the same as new): dropped; player-0 is not
    assert len(limiter) == 2
    assert limiter.take("player-0") == 0.0  # its refill was kept, no more
    assert any(limiter.take("player-0") > 0 for _ in range(3))
    clock.now += 10
    limiter.take("last")
    assert len(limiter) == 1


def test_the_number_of_buckets_is_capped() -> None:
    clock = FakeClock()
    limiter = Limiter(Rate(per_s=1, burst=5), clock, max_keys=100)
    for n in range(1000):
        limiter.take(f"conn-{n}")
        assert len(limiter) <= 100
    assert MAX_KEYS >= 10_000


def test_retry_after_is_whole_milliseconds_rounded_up() -> None:
    assert [wait_ms(0.0001), wait_ms(0.25), wait_ms(0.2501), wait_ms(4.9999)] == [
        1,
        250,
        251,
        5000,
    ]


# --- configuration ----------------------------------------------------------------------------


def test_the_defaults_leave_room_for_people_and_the_bot() -> None:
    config = LobbyConfig.from_env({})
    assert config.referee_wait_s == 10.0  # longer than a referee failover (~5 s)
    assert config.referee_timeout_s == 5.0
    assert config.player_limit == DEFAULT_PLAYER_LIMIT == Rate(20, 40)
    assert config.address_limit == DEFAULT_ADDRESS_LIMIT == Rate(200, 400)


def test_limits_and_waits_come_from_the_environment() -> None:
    config = LobbyConfig.from_env(
        {
            "LOBBY_RATE_PLAYER": "5",
            "LOBBY_BURST_PLAYER": "7.5",
            "LOBBY_RATE_CONN": "0",
            "LOBBY_BURST_CONN": "9",
            "LOBBY_REFEREE_WAIT_S": "2.5",
            "LOBBY_REFEREE_TIMEOUT_S": "1",
        }
    )
    assert config.player_limit == Rate(5, 7.5)
    assert not config.address_limit.enabled
    assert (config.referee_wait_s, config.referee_timeout_s) == (2.5, 1.0)


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"LOBBY_RATE_PLAYER": "fast"}, "LOBBY_RATE_PLAYER must be a number"),
        ({"LOBBY_RATE_CONN": "-1"}, "LOBBY_RATE_CONN must be a number, 0 or more, not '-1'"),
        ({"LOBBY_BURST_CONN": "nan"}, "LOBBY_BURST_CONN must be a number, 0 or more"),
        ({"LOBBY_BURST_PLAYER": "0.5"}, "LOBBY_BURST_PLAYER must be at least 1"),
        ({"LOBBY_REFEREE_WAIT_S": "inf"}, "LOBBY_REFEREE_WAIT_S must be a number, 0 or more"),
        ({"LOBBY_REFEREE_TIMEOUT_S": "0"}, "LOBBY_REFEREE_TIMEOUT_S must be more than 0"),
    ],
)
def test_a_bad_setting_is_a_config_error(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        LobbyConfig.from_env(env)


# --- ids from request ids ---------------------------------------------------------------------


def test_ids_are_keyed_hashes_of_the_caller_and_the_request_id() -> None:
    ids = Ids(SECRET)
    rid, me = "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "key:5e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b"
    table = ids.table(rid, me)
    assert (
        table
        == hmac.new(SECRET, f"table-id\0{me}\0{rid}".encode(), hashlib.sha256).hexdigest()[:16]
    )
    assert subjects.valid_table_id(table)
    player = ids.player(table, rid, me)
    assert (
        player
        == (
            hmac.new(
                SECRET, f"player-id\0{table}\0{me}\0{rid}".encode(), hashlib.sha256
            ).hexdigest()[:16]
        )
    )
    assert subjects.valid_table_id(player) and player != table
    assert Ids(SECRET).table(rid, me) == table  # every lobby with the secret agrees
    assert Ids(bytes(32)).table(rid, me) != table  # nobody without it can tell
    assert ids.player("another0table000", rid, me) != player
    assert ids.table(uuid.uuid4().hex, me) != ids.table(uuid.uuid4().hex, me)
    # The same request id from another caller names another table and another player.
    assert ids.table(rid, "peer:ipv4:127.0.0.1:50000") != table
    assert ids.player(table, rid, "peer:ipv4:127.0.0.1:50000") != player


def test_a_request_id_is_16_to_64_safe_characters() -> None:
    assert len(validation.request_id(None)) == 32  # made up: random
    for good in ("A.b_c:d-0123456789", "q7Zk2pX9mW4rT8vL" * 4, uuid.uuid4().hex, str(uuid.uuid4())):
        assert validation.request_id(good) == good
    for bad in (
        "",
        "ann-1",
        "x7" * 7 + "y",
        "x7z" * 21 + "yy",
        "with space 12345",
        "slash/0123456789ab",
    ):
        with pytest.raises(ApiError) as caught:
            validation.request_id(bad)
        assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "16 to 64" in caught.value.message and "uuid4" in caught.value.message


# --- through the real stack -------------------------------------------------------------------


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    # A player may make 3 calls, then one every 10 s: nothing here waits that long.
    s = Stack(
        tmp_path / "stack",
        services=("dealer", "referee", "lobby"),
        env={"LOBBY_RATE_PLAYER": "0.1", "LOBBY_BURST_PLAYER": "3"},
    )
    s.start()
    try:
        yield s
    finally:
        s.stop()
    for name in ("lobby", "referee", "dealer"):
        assert "Traceback" not in s.log(name), s.log(name)
    assert not s.nats_refusals(), "\n".join(s.nats_refusals())  # every grant was enough


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[MatchClient]:
    async with MatchClient(stack.lobby_addr) as c:
        yield c


async def records(stack: Stack, table_id: str) -> int:
    """How many records the table's log holds (every command the referee judged is one)."""
    nc = await stack.connect_nats()
    try:
        return len(await TableLog(nc.jetstream()).read(table_id))
    finally:
        await nc.close()


async def refused(call: Awaitable[object]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


async def test_a_limited_player_reaches_no_referee_and_others_play_on(
    stack: Stack, client: MatchClient
) -> None:
    ann = await client.create_table(seats=2, visibility=common_pb2.VISIBILITY_PRIVATE)
    bob = await client.join_table(invite_code=ann.invite_code, display_name="Bob")
    cat = await client.create_table(seats=2, display_name="Cat")
    ann_s = GameSession.of(client, "race", ann)
    bob_s = GameSession.of(client, "race", bob)

    # The game has started but no board is under way: the referee refuses a turn, and every
    # command it judges, refusals too, is a record of the table's log.
    began = time.monotonic()  # the bucket refills from Ann's first call: 10 s for a token
    for _ in range(3):
        error = await refused(ann_s.send("TurnTile", tile=1))
        assert refusal_code(error) in ("board_not_started", "ready_not_open")
    before = await records(stack, ann.table_id)
    for _ in range(5):
        error = await refused(ann_s.send("TurnTile", tile=1))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refusal_code(error) is None
        waited = retry_after_ms(error)
        since_ms = (time.monotonic() - began) * 1000  # however slow the machine was
        assert waited is not None and 10_000 - since_ms - 100 < waited <= 10_000
        assert f"wait {waited} ms" in (error.details() or "")
    error = await refused(ann_s.send("PressReady"))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert await records(stack, ann.table_id) == before  # nothing reached the referee

    reply = await bob_s.send("PressReady")  # Bob, at Ann's table, is not held back
    assert [e.race.WhichOneof("event") for e in reply.events] == ["player_ready"]
    assert await records(stack, ann.table_id) == before + 1
    table = await client.get_table(cat.table_id, cat.token)  # nor Cat, at hers
    assert table.table_id == cat.table_id

    # A request over 64 KiB is refused at the door, and the lobby keeps serving.
    error = await refused(
        ann_s.call("PressReady", race_service_pb2.PressReadyRequest(table_id="x" * 70_000))
    )
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert retry_after_ms(error) is None
    dan = await client.create_table(seats=2, display_name="Dan")
    assert dan.seat == 1 and dan.table_id != cat.table_id


def test_the_request_ids_the_sdk_makes_are_accepted() -> None:
    """The SDK (and so the bot and the CLI) sends uuid4 hex ids: 32 characters."""
    for _ in range(100):
        rid = new_request_id()
        assert validation.request_id(rid) == rid
