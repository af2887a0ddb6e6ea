"""The caps on Watch streams (services/lobby/fanout.py, limits.py) without NATS: boundaries on
both sides, the client address a stream is counted under, and their configuration. The real
stack under attack: tests/abuse/test_watch.py."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from services.lobby.config import DEFAULT_WATCH_LIMITS, ConfigError, _watch_limits
from services.lobby.errors import ApiError
from services.lobby.fanout import OLD_COPY_TABLES, Watches
from services.lobby.limits import Counts, WatchLimits
from services.peers import client_address

NO_NATS: Any = None  # admitting never touches NATS; only a feed does


def refusal(watches: Watches, player: str, address: str | None) -> ApiError:
    with pytest.raises(ApiError) as caught, watches.admitted(player, address):
        pass
    return caught.value


def test_a_player_holds_four_streams_and_the_fifth_is_refused_with_a_wait() -> None:
    watches = Watches(NO_NATS, NO_NATS, WatchLimits(per_player=4, per_address=0, per_lobby=0))
    with (
        watches.admitted("ann", "10.0.0.1"),
        watches.admitted("ann", "10.0.0.2"),
        watches.admitted("ann", "10.0.0.3"),
        watches.admitted("ann", "10.0.0.4"),  # the 4th: admitted
    ):
        error = refusal(watches, "ann", "10.0.0.5")  # the 5th, from anywhere
        assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error.message == (
            "too many Watch streams open for this player (4 at most): close one, or wait "
            "2000 ms and try again"
        )
        assert ("retry-after-ms", "2000") in error.trailing_metadata
        with watches.admitted("bob", "10.0.0.1"):  # another player is not held back
            assert watches.open == 5
    with watches.admitted("ann", "10.0.0.1"):  # a stream that ended gave its place back
        assert watches.open == 1
    assert watches.open == 0


def test_an_address_is_counted_over_all_its_players_and_the_bot_is_not() -> None:
    watches = Watches(NO_NATS, NO_NATS, WatchLimits(per_player=0, per_address=2, per_lobby=0))
    with watches.admitted("ann", "10.0.0.1"), watches.admitted("bob", "10.0.0.1"):
        assert "from this address (2 at most)" in refusal(watches, "cat", "10.0.0.1").message
        with watches.admitted("cat", "10.0.0.2"), watches.admitted("bot", None):
            assert watches.open == 4


def test_the_lobby_cap_counts_every_stream() -> None:
    watches = Watches(NO_NATS, NO_NATS, WatchLimits(per_player=0, per_address=0, per_lobby=2))
    with watches.admitted("ann", "a"), watches.admitted("bob", None):
        assert "on this lobby (2 at most)" in refusal(watches, "cat", "c").message


def test_counts_forget_keys_at_zero_and_zero_is_no_cap() -> None:
    counts = Counts(cap=0)
    for _ in range(10_000):
        counts.add("k")
    assert not counts.full("k") and counts["k"] == 10_000
    capped = Counts(cap=1)
    capped.add("k")
    assert capped.full("k") and not capped.full("j")
    capped.remove("k")
    assert len(capped) == 0 and capped["k"] == 0


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:54321", "ipv4:127.0.0.1"),
        ("ipv4:127.0.0.1:1", "ipv4:127.0.0.1"),  # another connection, the same address
        ("ipv6:[2001:db8:1:2:3:4:5:6]:443", "ipv6:2001:db8:1:2::/64"),
        ("ipv6:%5B2001:db8:1:2:ffff::1%5D:443", "ipv6:2001:db8:1:2::/64"),  # as gRPC writes it
        ("ipv6:[::1]:50051", "ipv6:::/64"),
        ("unix:/tmp/lobby.sock", "unix"),
        ("something-else", "something-else"),
    ],
)
def test_a_stream_is_counted_under_its_address_without_the_port(peer: str, address: str) -> None:
    assert client_address(peer) == address


def test_the_watch_caps_come_from_the_environment() -> None:
    assert _watch_limits({}) == DEFAULT_WATCH_LIMITS == WatchLimits(4, 64, 2000, 1000, 5.0)
    assert _watch_limits(
        {
            "LOBBY_MAX_WATCHES_PER_PLAYER": "2",
            "LOBBY_MAX_WATCHES_PER_ADDRESS": "0",
            "LOBBY_MAX_WATCHES": "10",
            "LOBBY_MAX_WATCHED_TABLES": "3",
            "LOBBY_WATCH_LINGER_S": "0.5",
        }
    ) == WatchLimits(2, 0, 10, 3, 0.5)
    for bad in ("-1", "1.5", "many"):
        with pytest.raises(ConfigError, match="LOBBY_MAX_WATCHES_PER_PLAYER"):
            _watch_limits({"LOBBY_MAX_WATCHES_PER_PLAYER": bad})


class SilentLog:
    """A NATS connection (and JetStream) that never delivers: feeds are made, nothing arrives."""

    async def subscribe(self, *args: object, **kwargs: object) -> None:
        await asyncio.Event().wait()


async def test_one_feed_per_table_and_a_lingering_one_makes_room() -> None:
    silent: Any = SilentLog()
    watches = Watches(silent, silent, WatchLimits(tables=1, linger_s=60))
    async with watches.feed("t1") as first, watches.feed("t1") as again:
        assert first is again and first.watchers == 2 and list(watches.feeds) == ["t1"]
        with pytest.raises(ApiError) as caught:
            async with watches.feed("t2"):
                pass
        assert "for distinct tables on this lobby (1 at most)" in caught.value.message
    assert first.watchers == 0 and first.linger is not None  # lingering, still followed
    async with watches.feed("t2"):  # the idle one goes to make room
        assert list(watches.feeds) == ["t2"]
    await watches.close()
    assert watches.feeds == {}


async def test_a_copy_that_does_not_push_holds_the_tables_followed_to_the_old_cap() -> None:
    """Each table followed from a copy made before the push holds a consumer, 1,000 for every
    replica together: the replica follows at most OLD_COPY_TABLES until its copy pushes."""
    silent: Any = SilentLog()
    watches = Watches(silent, silent, WatchLimits(per_player=0, per_address=0, per_lobby=0))
    assert watches.limits.tables == 1000
    assert watches.tables_cap == OLD_COPY_TABLES  # not known to push yet
    for i in range(OLD_COPY_TABLES):
        watches._join(f"t{i}", None)
    with pytest.raises(ApiError) as caught:
        watches._join("one-more", None)
    assert f"for distinct tables on this lobby ({OLD_COPY_TABLES} at most)" in caught.value.message
    watches._pushing = True  # as copy_pushes finds once the operator added the push
    assert watches.tables_cap == 1000
    watches._join("one-more", None)
    await watches.close()
