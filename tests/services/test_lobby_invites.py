"""Invite codes: their length, their budget of wrong guesses per client address
(services/lobby/invites.py), their expiry, and the knobs (services/lobby/config.py)."""

from __future__ import annotations

import math

import pytest

from services.lobby import validation
from services.lobby.config import ConfigError, LobbyConfig
from services.lobby.invites import FailureBudget, InviteRules
from services.lobby.limits import Rate


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_code_is_12_characters_and_about_59_bits() -> None:
    codes = {validation.new_invite_code() for _ in range(1000)}
    assert len(codes) == 1000
    assert all(len(c) == 12 and set(c) <= set(validation.INVITE_ALPHABET) for c in codes)
    assert 59 < 12 * math.log2(len(validation.INVITE_ALPHABET)) < 60
    code = codes.pop()
    assert validation.invite_code(f" {code[:4].lower()}-{code[4:8]} {code[8:]} ") == code
    assert validation.invite_code("ABCDEFGH") == "ABCDEFGH"  # a code made before: 8


def test_the_budget_allows_its_burst_of_failures_then_refuses_until_it_refills() -> None:
    clock = FakeClock()
    budget = FailureBudget(Rate(per_s=1.0, burst=3.0), clock)
    for _ in range(3):
        assert budget.spend("1.2.3.4") == 0.0
    assert budget.spend("1.2.3.4") == pytest.approx(1.0)
    assert budget.spend("5.6.7.8") == 0.0  # another address is not held back
    clock.now += 0.5
    assert budget.spend("1.2.3.4") == pytest.approx(0.5)
    clock.now += 0.5
    assert budget.spend("1.2.3.4") == 0.0
    assert budget.spend("1.2.3.4") == pytest.approx(1.0)
    clock.now += 10
    assert budget.spend("9.9.9.9") == 0.0 and len(budget) == 1  # the others full: forgotten


def test_a_right_code_gives_its_unit_back() -> None:
    budget = FailureBudget(Rate(per_s=0.01, burst=2.0), FakeClock())
    for _ in range(10):
        assert budget.spend("1.2.3.4") == 0.0
        budget.refund("1.2.3.4")
    assert budget.spend("1.2.3.4") == 0.0
    assert budget.spend("1.2.3.4") == 0.0
    assert budget.spend("1.2.3.4") > 0  # two wrong ones: spent


def test_the_budget_holds_a_bounded_number_of_addresses() -> None:
    budget = FailureBudget(Rate(per_s=0.001, burst=2.0), FakeClock(), max_keys=100)
    for i in range(1000):
        budget.spend(f"10.0.{i // 256}.{i % 256}")
    assert len(budget) == 100


def test_a_budget_of_zero_is_off() -> None:
    budget = FailureBudget(Rate(0, 0), FakeClock())
    for _ in range(100):
        assert budget.spend("1.2.3.4") == 0.0
    budget.refund("1.2.3.4")
    assert len(budget) == 0


def test_a_code_expires_its_ttl_after_the_table_was_made() -> None:
    rules = InviteRules(ttl_ms=3_600_000, failures=FailureBudget(Rate(0, 0)), now_ms=lambda: 0)
    made = -3_600_000
    assert not rules.expired(made)
    assert rules.expired(made - 1)


def test_the_invite_knobs_come_from_the_environment() -> None:
    default = LobbyConfig.from_env({})
    assert default.invite_ttl_s == 3600
    assert default.invite_failures.burst == 10
    assert default.invite_failures.per_s * 60 == pytest.approx(10)
    config = LobbyConfig.from_env(
        {
            "LOBBY_INVITE_TTL_S": "60",
            "LOBBY_INVITE_FAIL_BURST": "3",
            "LOBBY_INVITE_FAIL_PER_MIN": "30",
            "REFEREE_CLOCK_RATE": "10",
            "REFEREE_CLOCK_ANCHOR_MS": "1000",
        }
    )
    assert config.invite_ttl_s == 60 and config.invite_failures == Rate(0.5, 3)
    assert (config.clock.rate, config.clock.anchor_ms) == (10, 1000)
    off = LobbyConfig.from_env({"LOBBY_INVITE_FAIL_BURST": "0"})
    assert not off.invite_failures.enabled


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"LOBBY_INVITE_TTL_S": "0"}, "LOBBY_INVITE_TTL_S must be more than 0"),
        ({"LOBBY_INVITE_TTL_S": "soon"}, "LOBBY_INVITE_TTL_S must be a number"),
        ({"LOBBY_INVITE_FAIL_BURST": "0.5"}, "LOBBY_INVITE_FAIL_BURST must be at least 1"),
        ({"LOBBY_INVITE_FAIL_PER_MIN": "-1"}, "LOBBY_INVITE_FAIL_PER_MIN must be 0 or more"),
        ({"REFEREE_CLOCK_RATE": "0"}, "REFEREE_CLOCK_RATE must be more than 0"),
    ],
)
def test_a_bad_invite_setting_is_a_config_error(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        LobbyConfig.from_env(env)
