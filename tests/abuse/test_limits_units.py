"""Issue 34's limits, unit by unit: the fair share of a pool, the open-file budget, the
settings (the stack tests: test_connections.py, test_shared_caps.py)."""

from __future__ import annotations

import resource

import pytest

from services.fairshare import FairShare
from services.lobby.config import ConfigError, GrpcLimits, LobbyConfig
from services.lobby.files import MIN_CONNECTIONS, FileBudgetError, fit
from services.lobby.service import server_options
from services.peers import client_address
from services.webedge import ConnectionLimits, WebConfig


def fill(share: FairShare, addresses: int, need: int = 1) -> int:
    """What ``addresses`` take when each takes all it may, in turns; the pool used."""
    held = [0] * addresses
    used, moved = 0, True
    while moved:
        moved = False
        for a in range(addresses):
            if share.allows(held[a], need, used):
                held[a] += need
                used += need
                moved = True
    return used


def test_an_address_has_its_whole_cap_while_the_pool_is_half_empty_then_less() -> None:
    share = FairShare(capacity=400, per_address=10)
    assert share.share(0) == share.share(200) == 10
    assert share.share(300) == 5 and share.share(400) == 0
    assert share.allows(9, 1, 200) and not share.allows(10, 1, 0)  # the cap per address
    assert not share.allows(5, 1, 300) and share.allows(4, 1, 300)


def test_a_newcomer_always_gets_in_while_the_pool_has_room() -> None:
    share = FairShare(capacity=400, per_address=10)
    assert share.allows(0, 1, 399) and not share.allows(0, 1, 400)
    assert share.allows(0, 3, 397) and not share.allows(0, 3, 398)
    assert not share.allows(0, 11, 0)  # more than an address may ever hold


@pytest.mark.parametrize(("addresses", "most"), [(1, 10), (45, 277), (20, 141)])
def test_a_few_dozen_addresses_leave_room(addresses: int, most: int) -> None:
    """45 addresses at 10 tables each (the issue's Watch attack) take 277 of 400, not 400;
    for bots, 20 addresses at 12 seats take about 141 of 200 seats (the formula, in seats)."""
    watch = FairShare(capacity=400, per_address=10)
    if addresses == 20:
        assert fill(FairShare(capacity=200, per_address=12), 20, need=3) <= most + 3
    else:
        assert fill(watch, addresses) <= most + 1
        assert fill(watch, addresses) >= most - 10


def test_off_means_off() -> None:
    assert FairShare(0, 0).allows(10**6, 1, 10**6)
    assert FairShare(10, 0).allows(9, 1, 9) and not FairShare(10, 0).allows(9, 1, 10)
    assert FairShare(0, 5).allows(4, 1, 10**6) and not FairShare(0, 5).allows(5, 1, 0)


def test_the_open_file_budget_raises_the_soft_limit_as_far_as_it_needs() -> None:
    budget = fit(web=512, grpc=512, reserve=256, soft=1024, hard=20_000)
    assert (budget.web, budget.grpc, budget.soft_limit, budget.note) == (512, 512, 1280, "")
    unlimited = fit(512, 512, 256, 1024, resource.RLIM_INFINITY)
    assert unlimited.soft_limit == 1280 and not unlimited.note
    assert fit(512, 512, 256, 4096, 4096).soft_limit == 4096  # never lowered
    assert fit(0, 512, 256, 1024, 1024).note == ""  # no web edge: 768 fit


def test_the_open_file_budget_lowers_the_caps_or_refuses_to_start() -> None:
    budget = fit(web=512, grpc=512, reserve=256, soft=1024, hard=1024)
    assert (budget.web, budget.grpc, budget.soft_limit) == (384, 384, 1024)
    assert "web edge takes at most 384" in budget.note and "raise the limit to 1280" in budget.note
    with pytest.raises(FileBudgetError, match="ulimit -n 1280"):
        fit(512, 512, 256, 256 + 2 * MIN_CONNECTIONS - 1, 256 + 2 * MIN_CONNECTIONS - 1)


def test_the_connection_limits_have_defaults_and_knobs() -> None:
    assert WebConfig.from_env({}, "LOBBY").limits == ConnectionLimits(512, 64, 10.0, 10.0, 5.0)
    web = WebConfig.from_env(
        {
            "LOBBY_WEB_MAX_CONNECTIONS": "100",
            "LOBBY_WEB_MAX_CONNECTIONS_PER_ADDRESS": "8",
            "LOBBY_WEB_HEADER_TIMEOUT_S": "2",
            "LOBBY_WEB_BODY_TIMEOUT_S": "3",
            "LOBBY_WEB_IDLE_TIMEOUT_S": "4",
            "LOBBY_IPV6_PREFIX": "56",
        },
        "LOBBY",
    ).limits
    assert web == ConnectionLimits(100, 8, 2.0, 3.0, 4.0, ipv6_prefix=56)
    config = LobbyConfig.from_env(
        {
            "LOBBY_GRPC_MAX_CONNECTIONS": "50",
            "LOBBY_GRPC_HANDSHAKE_TIMEOUT_S": "1.5",
            "LOBBY_GRPC_IDLE_TIMEOUT_S": "0",
            "LOBBY_FD_RESERVE": "100",
            "LOBBY_IPV6_PREFIX": "48",
            "LOBBY_MAX_WATCHED_TABLES_PER_ADDRESS": "3",
        }
    )
    assert config.grpc_limits == GrpcLimits(50, 1.5, 0.0)
    assert (config.fd_reserve, config.ipv6_prefix) == (100, 48)
    assert config.watch_limits.tables_per_address == 3
    options = dict(server_options(config.grpc_limits))
    assert options["grpc.max_allowed_incoming_connections"] == 50
    assert options["grpc.server_handshake_timeout_ms"] == 1500
    assert "grpc.max_connection_idle_ms" not in options  # 0: off
    defaults = LobbyConfig.from_env({})
    assert (defaults.grpc_limits, defaults.fd_reserve, defaults.ipv6_prefix) == (
        GrpcLimits(512, 10.0, 300.0),
        256,
        64,
    )


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"LOBBY_IPV6_PREFIX": "8"}, "LOBBY_IPV6_PREFIX must be a prefix length from 16 to 128"),
        (
            {"LOBBY_IPV6_PREFIX": "/56"},
            r"^LOBBY_IPV6_PREFIX must be a whole number, not '/56' \(a prefix length from 16 to",
        ),
        (
            {"LOBBY_FD_RESERVE": "-5"},
            r"^LOBBY_FD_RESERVE must be a whole number of descriptors, 0 or more, not '-5'$",
        ),
        (
            {"LOBBY_SESSION_TTL_S": "0"},
            r"^LOBBY_SESSION_TTL_S must be a whole number of seconds, 1 or more, not '0'$",
        ),
        ({"LOBBY_WAITING_MAX": "x"}, r"LOBBY_WAITING_MAX must be .*, not 'x' \(0: no cap\)$"),
        ({"LOBBY_WEB_MAX_CONNECTIONS": "lots"}, "LOBBY_WEB_MAX_CONNECTIONS must be a whole"),
        ({"LOBBY_WEB_HEADER_TIMEOUT_S": "-1"}, "LOBBY_WEB_HEADER_TIMEOUT_S must be a number"),
        ({"LOBBY_GRPC_MAX_CONNECTIONS": "-1"}, "LOBBY_GRPC_MAX_CONNECTIONS must be a whole number"),
    ],
)
def test_limits_that_cannot_work_are_refused(env: dict[str, str], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        LobbyConfig.from_env(env)


def test_an_ipv6_client_is_its_prefix_as_set() -> None:
    peer = "ipv6:[2001:db8:1:2a:3:4:5:6]:443"
    assert client_address(peer) == "ipv6:2001:db8:1:2a::/64"
    assert client_address(peer, 56) == "ipv6:2001:db8:1::/56"
    other = "ipv6:[2001:db8:1:2b::9]:443"  # another /64 of the same /56
    assert client_address(other, 56) == client_address(peer, 56)
    assert client_address(other) != client_address(peer)
