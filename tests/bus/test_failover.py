"""When a service leaves its NATS node (match_bus.failover's pure decisions), and where it goes."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from nats.aio.client import Server

from match_bus.failover import (
    AVOID_PENALTY,
    MAX_BACKOFF,
    Chooser,
    Failover,
    FailoverSettings,
    Judge,
    unavailable,
)


def test_it_takes_the_full_count_of_misses_in_a_row_to_move() -> None:
    judge = Judge(misses=3)
    assert [judge.missed(elsewhere=2) for _ in range(3)] == [False, False, True]


def test_an_answer_between_misses_starts_the_count_again() -> None:
    judge = Judge(misses=3)
    for _ in range(5):  # a slow node, answering now and then: never left
        assert not judge.missed(elsewhere=2)
        assert not judge.missed(elsewhere=2)
        judge.answered()


def test_a_node_that_is_the_only_one_is_never_left() -> None:
    judge = Judge(misses=1)
    assert not any(judge.missed(elsewhere=0) for _ in range(100))


def test_moves_that_bring_no_answer_come_ever_more_slowly_until_one_does() -> None:
    judge = Judge(misses=2)
    gaps = []
    for _ in range(6):  # the whole cluster without a quorum: every node misses
        count = 1
        while not judge.missed(elsewhere=2):
            count += 1
        gaps.append(count)
        judge.reconnected()
    assert gaps == [2, 4, 8, 16, 2 * MAX_BACKOFF, 2 * MAX_BACKOFF]
    judge.answered()
    assert [judge.missed(elsewhere=2) for _ in range(2)] == [False, True]


def test_a_new_connection_is_judged_afresh() -> None:
    judge = Judge(misses=3)
    judge.missed(elsewhere=2)
    judge.missed(elsewhere=2)
    judge.reconnected()
    assert [judge.missed(elsewhere=2) for _ in range(3)] == [False, False, True]


def server(netloc: str, reconnects: int = 0) -> Server:
    return Server(uri=urlparse(f"nats://{netloc}"), reconnects=reconnects)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_node_just_left_is_tried_last_for_a_while() -> None:
    clock = Clock()
    chooser = Chooser(reconnect_wait_s=0.5, avoid_s=60.0, clock=clock)
    pool = [server("a:4222"), server("b:4222"), server("c:4222")]
    assert chooser(pool, {}) == (pool[0], 0.0)  # nothing avoided: the pool's (shuffled) order
    chooser.avoid("a:4222")
    assert chooser(pool, {}) == (pool[1], 0.0)
    # b and c refuse: a is tried once each has failed AVOID_PENALTY times, not before
    failing = [pool[0], server("b:4222", AVOID_PENALTY - 1), server("c:4222", AVOID_PENALTY - 1)]
    assert chooser(failing, {})[0].uri.netloc == "b:4222"
    failing = [pool[0], server("b:4222", AVOID_PENALTY), server("c:4222", AVOID_PENALTY)]
    assert chooser(failing, {}) == (pool[0], 0.0)
    clock.now += 61.0  # the avoidance has run out
    assert chooser(pool, {})[0].uri.netloc == "a:4222"


def test_a_server_that_failed_its_last_try_is_waited_for() -> None:
    chooser = Chooser(reconnect_wait_s=0.5)
    assert chooser([server("a:4222", 3)], {}) == (server("a:4222", 3), 0.5)
    assert chooser([], {}) == (None, 0.5)


def test_only_an_error_saying_unavailable_counts_as_no_answer() -> None:
    assert unavailable(b'{"error": {"code": 503, "err_code": 10008, "description": "x"}}')
    assert not unavailable(b'{"type": "io.nats.jetstream.api.v1.account_info_response"}')
    assert not unavailable(b'{"error": {"code": 400, "err_code": 10003}}')
    assert not unavailable(b"not json")
    assert not unavailable(b"[1, 2]")


def test_the_settings_come_from_the_environment_and_bad_ones_are_named() -> None:
    assert FailoverSettings.from_env({}) == FailoverSettings(1.0, 1.0, 3)
    env = {
        "MATCH_NATS_PROBE_S": "2.5",
        "MATCH_NATS_PROBE_TIMEOUT_S": "0.5",
        "MATCH_NATS_PROBE_MISSES": "4",
    }
    assert FailoverSettings.from_env(env) == FailoverSettings(2.5, 0.5, 4)
    assert FailoverSettings.from_env({"MATCH_NATS_PROBE_S": "0"}).interval_s == 0.0
    bad = [
        ({"MATCH_NATS_PROBE_S": "soon"}, "MATCH_NATS_PROBE_S must be a number, not 'soon'"),
        ({"MATCH_NATS_PROBE_S": "-1"}, "MATCH_NATS_PROBE_S must be 0"),
        ({"MATCH_NATS_PROBE_TIMEOUT_S": "0"}, "MATCH_NATS_PROBE_TIMEOUT_S must be more than 0"),
        ({"MATCH_NATS_PROBE_MISSES": "0"}, "MATCH_NATS_PROBE_MISSES must be a whole number"),
        ({"MATCH_NATS_PROBE_MISSES": "2.5"}, "MATCH_NATS_PROBE_MISSES must be a whole number"),
    ]
    for env, message in bad:
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            FailoverSettings.from_env(env)


def test_a_server_seen_reaching_the_quorum_is_tried_first_once() -> None:
    chooser = Chooser(reconnect_wait_s=0.5)
    pool = [server("a:4222"), server("b:4222"), server("c:4222")]
    chooser.avoid("a:4222", prefer="c:4222")
    assert chooser(pool, {})[0].uri.netloc == "c:4222"
    assert chooser(pool, {})[0].uri.netloc == "b:4222"  # c refused: the others as before


async def still_missing(nc: object, timeout_s: float) -> str:
    return "probe timed out"  # the node asked once more, and again no answer


class FakeClient:
    """Only what Failover.missed reads of a connection, and its one act: force_reconnect."""

    def __init__(self, here: str, pool: list[str]) -> None:
        self.connected_url = urlparse(f"nats://{here}")
        self.server_pool = [server(netloc) for netloc in pool]
        self.is_connected = True
        self.forced = 0

    async def force_reconnect(self) -> None:
        self.forced += 1


async def test_it_moves_only_to_a_server_that_reaches_the_quorum() -> None:
    asked: list[str] = []
    answers = {"nats://b:4222": False, "nats://c:4222": True}

    async def healthy(url: str) -> bool:
        asked.append(url)
        return answers[url]

    chooser = Chooser(reconnect_wait_s=0.5)
    watch = Failover(FailoverSettings(misses=2), chooser, healthy, still_missing)
    nc = FakeClient("a:4222", ["a:4222", "b:4222", "c:4222"])
    watch.nc = nc  # type: ignore[assignment]
    await watch.missed("probe timed out")
    assert (nc.forced, asked) == (0, [])  # one miss is not a reason
    await watch.missed("probe timed out")
    assert nc.forced == 1 and sorted(asked) == ["nats://b:4222", "nats://c:4222"]
    assert chooser.preferred == "c:4222" and "a:4222" in chooser.avoided
    await watch.missed("probe timed out")  # moving already: nothing more until reconnected
    assert nc.forced == 1


async def test_it_stays_when_no_other_server_reaches_the_quorum_either() -> None:
    async def healthy(url: str) -> bool:
        return False  # an election under way everywhere, or the whole cluster without one

    watch = Failover(
        FailoverSettings(misses=1), Chooser(reconnect_wait_s=0.5), healthy, still_missing
    )
    nc = FakeClient("a:4222", ["a:4222", "b:4222"])
    watch.nc = nc  # type: ignore[assignment]
    for _ in range(5):
        await watch.missed("JetStream unavailable")
    assert nc.forced == 0 and not watch.moving


async def test_a_lone_server_is_not_even_compared() -> None:
    async def healthy(url: str) -> bool:
        raise AssertionError("nothing to ask")

    watch = Failover(FailoverSettings(misses=1), Chooser(reconnect_wait_s=0.5), healthy)
    nc = FakeClient("a:4222", ["a:4222"])
    watch.nc = nc  # type: ignore[assignment]
    for _ in range(5):
        await watch.missed("probe timed out")
    assert nc.forced == 0


async def test_it_stays_when_its_own_node_answers_when_asked_again() -> None:
    async def healthy(url: str) -> bool:
        return True

    async def answers(nc: object, timeout_s: float) -> None:
        return None  # the appends timed out while a stream elected a leader; the node is fine

    watch = Failover(FailoverSettings(misses=2), Chooser(reconnect_wait_s=0.5), healthy, answers)
    nc = FakeClient("a:4222", ["a:4222", "b:4222"])
    watch.nc = nc  # type: ignore[assignment]
    for _ in range(6):
        await watch.missed("append timed out")
    assert nc.forced == 0 and not watch.moving
    assert watch.judge.backoff == 1  # an answer: the next move needs the full count only
