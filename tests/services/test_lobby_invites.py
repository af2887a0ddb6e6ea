"""Invite codes: their length, their budget of wrong guesses per client address
(services/lobby/invites.py) and JoinTable's look-up under it, many calls at once, their expiry,
and the knobs (services/lobby/config.py)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from services.lobby import validation
from services.lobby.config import ConfigError, LobbyConfig
from services.lobby.edge import Auth
from services.lobby.errors import RETRY_AFTER_KEY, ApiError
from services.lobby.invites import FailureBudget, InviteRules
from services.lobby.limits import Rate
from services.lobby.servicers import LobbyServicer
from services.lobby.tokens import Tokens


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


class WrongCode(Exception):
    """What a block raises when the code opens nothing (the lobby raises NOT_FOUND)."""


async def wrong(budget: FailureBudget, key: str = "1.2.3.4") -> float:
    """Try a code that opens nothing: 0.0 if it was looked up (and charged), else the wait
    (s) the refusal gave."""
    try:
        async with budget.guess(key):
            raise WrongCode
    except WrongCode:
        return 0.0
    except ApiError as refused:
        assert refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "too many wrong invite codes from your address" in refused.message
        return int(dict(refused.trailers)[RETRY_AFTER_KEY]) / 1000


async def right(budget: FailureBudget, key: str = "1.2.3.4", held: bool = False) -> None:
    """Try a code that opens a table (found at once, or after holding a unit)."""
    async with budget.guess(key) as guess:
        if held:
            guess.hold()
            await asyncio.sleep(0)


async def test_the_budget_allows_its_burst_of_failures_then_refuses_until_it_refills() -> None:
    clock = FakeClock()
    budget = FailureBudget(Rate(per_s=1.0, burst=3.0), clock)
    for _ in range(3):
        assert await wrong(budget) == 0.0
    assert await wrong(budget) == pytest.approx(1.0)
    assert await wrong(budget, "5.6.7.8") == 0.0  # another address is not held back
    clock.now += 0.5
    assert await wrong(budget) == pytest.approx(0.5)
    clock.now += 0.5
    assert await wrong(budget) == 0.0
    assert await wrong(budget) == pytest.approx(1.0)
    clock.now += 10
    assert await wrong(budget, "9.9.9.9") == 0.0 and len(budget) == 1  # the others full: gone


async def test_a_right_code_costs_nothing_but_is_refused_while_the_budget_is_spent() -> None:
    budget = FailureBudget(Rate(per_s=0.01, burst=2.0), FakeClock())
    for _ in range(10):
        await right(budget)
        await right(budget, held=True)  # held while the listing caught up, then given back
    assert budget.held("1.2.3.4") == 0
    assert await wrong(budget) == 0.0
    assert await wrong(budget) == 0.0
    assert await wrong(budget) > 0  # two wrong ones: spent
    with pytest.raises(ApiError) as refused:
        await right(budget)  # nothing tells a guess that it was right
    assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_the_budget_holds_a_bounded_number_of_addresses() -> None:
    budget = FailureBudget(Rate(per_s=0.001, burst=2.0), FakeClock(), max_keys=100)
    for i in range(1000):
        budget.debit(f"10.0.{i // 256}.{i % 256}")
    assert len(budget) == 100


async def test_a_budget_of_zero_is_off() -> None:
    budget = FailureBudget(Rate(0, 0), FakeClock())
    for _ in range(100):
        assert await wrong(budget) == 0.0
    await right(budget, held=True)
    assert len(budget) == 0 and budget.held("1.2.3.4") == 0


# --- JoinTable's look-up (LobbyServicer._table_of_invite), many calls at once ----------------

RIGHT, OTHER = "RIGHTCODE234", "OTHERCODE234"
VENUE = "ipv4:203.0.113.7"  # one address: a venue behind one NAT


class Listing:
    """The lobby's listing (services.lobby.directory.TableDirectory) as the look-up reads it:
    ``lagging`` codes are there only once ``sync`` has waited for the log."""

    def __init__(
        self, tables: dict[str, str], lagging: dict[str, str] | None = None, behind: bool = False
    ) -> None:
        self._known = dict(tables)
        self._lagging = dict(lagging or {})
        self._behind = behind  # sync never catches up in time (a busy system)
        self.syncs = 0

    def table_of_invite(self, code: str) -> str | None:
        return self._known.get(code)

    def made_at(self, table_id: str) -> int:
        return 0

    async def sync(self) -> bool:
        self.syncs += 1
        await asyncio.sleep(0.01)  # a round trip to NATS: every other call runs meanwhile
        if self._behind:
            return False
        self._known.update(self._lagging)
        return True


class Peer:
    def __init__(self, port: int) -> None:
        self._port = port

    def peer(self) -> str:
        return f"{VENUE}:{self._port}"  # each person their own connection, one address


AUTH = Auth(Tokens(b"k" * 32, 60), None)  # keys each caller by its address, limits off


def lobby(listing: Listing, budget: FailureBudget) -> Any:
    rules = InviteRules(ttl_ms=3_600_000, failures=budget, now_ms=lambda: 0)
    return LobbyServicer(AUTH, None, listing, None, invites=rules)  # type: ignore[arg-type]


async def join_all(servicer: Any, codes: list[str]) -> list[str]:
    """Each code's answer: the table id, or the status of the refusal."""

    async def one(n: int, code: str) -> str:
        try:
            return str(await servicer._table_of_invite(code, Peer(40_000 + n)))
        except ApiError as error:
            return str(error.code.name)

    return list(await asyncio.gather(*(one(n, c) for n, c in enumerate(codes))))


def default_budget() -> FailureBudget:
    return FailureBudget(LobbyConfig.from_env({}).invite_failures, FakeClock())  # 10, 1 per 6 s


@pytest.mark.parametrize("lagging", [False, True], ids=["listed", "listing-behind"])
async def test_30_right_codes_at_once_from_one_address_are_never_charged(lagging: bool) -> None:
    # Listed: the usual case. Behind: the table was made a moment ago (or on another replica)
    # and every look-up waits for the listing; before the fix the 11th on was refused.
    listing = Listing({}, {RIGHT: "t1"}) if lagging else Listing({RIGHT: "t1"})
    budget = default_budget()
    servicer = lobby(listing, budget)
    assert await join_all(servicer, [RIGHT] * 30) == ["t1"] * 30
    assert budget.held(VENUE) == 0 and budget.wait_s(VENUE) == 0.0
    assert (listing.syncs > 0) is lagging
    # The whole budget is still there: 10 wrong codes are answered, the 11th is refused.
    answers = await join_all(servicer, [OTHER] * 11)
    assert answers == ["NOT_FOUND"] * 10 + ["RESOURCE_EXHAUSTED"]
    # ... and now a right code is refused too: nothing tells a guess that it was right.
    assert await join_all(servicer, [RIGHT]) == ["RESOURCE_EXHAUSTED"]


async def test_wrong_codes_at_once_are_answered_only_as_far_as_the_budget_goes() -> None:
    # Every wrong code waits for the listing to catch up (it does not know the code): a budget
    # only checked before the look-up would let all 200 through while they wait.
    listing = Listing({RIGHT: "t1"})
    budget = default_budget()
    answers = await join_all(lobby(listing, budget), [f"GUESS{n:07d}" for n in range(200)])
    assert answers.count("NOT_FOUND") == 10
    assert answers.count("RESOURCE_EXHAUSTED") == 190
    assert budget.held(VENUE) == 0 and budget.wait_s(VENUE) == pytest.approx(6.0)


async def test_a_right_code_among_wrong_ones_in_flight_gets_no_free_answer() -> None:
    # 10 wrong codes hold the whole budget while the listing catches up; a right code sent
    # meanwhile must not be answered before them (it would be an 11th guess): it waits, and
    # once they are charged it is refused like any other.
    listing = Listing({RIGHT: "t1"})
    budget = default_budget()
    codes = [f"GUESS{n:07d}" for n in range(10)] + [RIGHT]
    answers = await join_all(lobby(listing, budget), codes)
    assert answers == ["NOT_FOUND"] * 10 + ["RESOURCE_EXHAUSTED"]


async def test_right_and_wrong_codes_mixed_the_wrong_ones_alone_are_charged() -> None:
    # A venue: 25 right codes (some tables just made, not listed yet) and 4 typos, at once.
    listing = Listing({RIGHT: "t1"}, {OTHER: "t2"})
    budget = default_budget()
    codes = [RIGHT, OTHER, "TYPO12345678", RIGHT, OTHER] * 5 + ["TYPO00000000"] * 4
    answers = await join_all(lobby(listing, budget), codes)
    assert answers.count("t1") == 10 and answers.count("t2") == 10
    assert answers.count("NOT_FOUND") == 9 and "RESOURCE_EXHAUSTED" not in answers
    assert [await wrong(budget, VENUE) for _ in range(2)] == [0.0, pytest.approx(6.0)]


async def test_an_expired_code_is_charged_and_refused_as_before() -> None:
    listing = Listing({RIGHT: "t1"})
    budget = FailureBudget(Rate(per_s=0.01, burst=1.0), FakeClock())
    rules = InviteRules(ttl_ms=1000, failures=budget, now_ms=lambda: 5000)
    servicer: Any = LobbyServicer(AUTH, None, listing, None, invites=rules)  # type: ignore[arg-type]
    assert await join_all(servicer, [RIGHT, RIGHT]) == ["FAILED_PRECONDITION", "RESOURCE_EXHAUSTED"]
    assert listing.syncs == 0


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
        ({"LOBBY_INVITE_FAIL_PER_MIN": "-1"}, "LOBBY_INVITE_FAIL_PER_MIN must be a number, 0 or"),
        ({"REFEREE_CLOCK_RATE": "0"}, "REFEREE_CLOCK_RATE must be a number above 0, not '0'"),
    ],
)
def test_a_bad_invite_setting_is_a_config_error(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        LobbyConfig.from_env(env)


async def test_a_listing_that_cannot_catch_up_says_so_and_charges_nothing() -> None:
    # Under load the listing may stay behind the log for longer than the look-up waits: the
    # code may well be right, so the answer is UNAVAILABLE (try again), not NOT_FOUND, and the
    # budget is untouched; a code the listing knows is still answered at once.
    listing = Listing({OTHER: "t2"}, {RIGHT: "t1"}, behind=True)
    budget = default_budget()
    servicer = lobby(listing, budget)
    assert await join_all(servicer, [RIGHT] * 30) == ["UNAVAILABLE"] * 30
    assert await join_all(servicer, [OTHER]) == ["t2"]
    try:
        await servicer._table_of_invite(RIGHT, Peer(1))
    except ApiError as error:
        assert error.refusal_code == "listing_behind"
        assert "try again in a moment" in error.message
    else:
        raise AssertionError("a code the listing cannot look up was answered")
    # The whole budget is still there: ten wrong codes, then the eleventh is refused.
    listing._behind = False
    answers = await join_all(servicer, ["WRONGCODE234"] * 11)
    assert answers == ["NOT_FOUND"] * 10 + ["RESOURCE_EXHAUSTED"]
