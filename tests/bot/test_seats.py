"""The seat book's decisions, as pure functions (services/bot/seats.py): records, orphans, which
replica acts first; and the bot's replica settings."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import replace
from types import SimpleNamespace

import nats.errors
import pytest

from services.bot import seats
from services.bot.config import BotConfig, ConfigError
from services.bot.seats import Identity, SeatRecord

A = Identity("bot-a", "a1")
B = Identity("bot-b", "b1")


def record(owner: Identity = A, **kw: object) -> SeatRecord:
    base = SeatRecord(
        table_id="abcdef0123456789",
        seat=2,
        player_id="p2",
        token="tok.sig",
        owner=owner.replica,
        incarnation=owner.incarnation,
        name="Bot 1",
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def test_a_record_survives_the_round_trip() -> None:
    r = record(strength="weak")
    assert r.key == "abcdef0123456789.2"
    assert SeatRecord.decode(r.encode()) == r
    assert json.loads(r.encode())["v"] == seats.RECORD_VERSION


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[]",
        json.dumps({"table_id": "t"}).encode(),
        json.dumps({"v": 99, "table_id": "t"}).encode(),
        json.dumps({**json.loads(record().encode()), "seat": "2"}).encode(),
        json.dumps({**json.loads(record().encode()), "token": ""}).encode(),
        json.dumps({**json.loads(record().encode()), "strength": 3}).encode(),
        json.dumps({**json.loads(record().encode()), "extra": 1}).encode(),
    ],
)
def test_anything_else_is_not_a_record(data: bytes) -> None:
    assert SeatRecord.decode(data) is None


def test_a_seat_is_orphaned_when_its_owner_has_no_heartbeat() -> None:
    r = record(A)
    assert not seats.orphaned(r, {A.key: A.incarnation}, B, set())
    assert seats.orphaned(r, {}, B, set())  # A's heartbeat expired
    assert seats.orphaned(r, {B.key: B.incarnation}, B, set())


def test_a_restarted_replica_orphans_the_seats_of_its_former_life() -> None:
    again = Identity("bot-a", "a2")  # same replica id, new process
    r = record(A)
    live = {again.key: again.incarnation}
    assert seats.orphaned(r, live, again, set())
    assert seats.orphaned(r, live, B, set())


def test_own_seats_are_orphans_only_while_nobody_here_plays_them() -> None:
    r = record(A)
    assert not seats.orphaned(r, {A.key: A.incarnation}, A, {r.key})
    assert seats.orphaned(r, {A.key: A.incarnation}, A, set())


def test_claiming_changes_the_owner_only() -> None:
    r = record(A, strength="strong")
    mine = r.for_owner(B)
    assert mine.owned_by(B) and not mine.owned_by(A)
    assert (mine.token, mine.player_id, mine.strength) == (r.token, r.player_id, r.strength)


def test_replica_keys_are_valid_kv_keys_and_distinct() -> None:
    assert seats.replica_key("bot-a") == "bot-a"
    odd = ["host.example-12", "a b", "a:b", "a_b", "ünï", "x" * 100]
    keys = [seats.replica_key(r) for r in odd]
    assert len(set(keys)) == len(keys)
    for key in keys:
        assert all(c.isascii() and (c.isalnum() or c in "_-") for c in key), key


def test_every_replica_agrees_which_one_goes_first() -> None:
    live = ["bot-a", "bot-b", "bot-c"]
    for table in ("t1", "t2", "abcdef0123456789"):
        assert seats.preferred(table, live) == seats.preferred(table, reversed(live))
    assert seats.preferred("t1", []) is None
    shares = Counter(seats.preferred(f"table{i:04d}", live) for i in range(3000))
    assert set(shares) == set(live)
    assert all(800 < n < 1200 for n in shares.values()), shares  # about a third each


def test_a_table_moves_only_when_its_replica_goes() -> None:
    live = ["bot-a", "bot-b", "bot-c"]
    before = {f"t{i}": seats.preferred(f"t{i}", live) for i in range(300)}
    after = {t: seats.preferred(t, ["bot-a", "bot-b"]) for t in before}
    for table, replica in before.items():
        if replica != "bot-c":
            assert after[table] == replica


def test_the_preferred_replica_fills_at_once_the_others_after_the_grace() -> None:
    live = ["bot-a", "bot-b"]
    first = seats.preferred("t1", live)
    other = "bot-b" if first == "bot-a" else "bot-a"
    assert first is not None
    assert seats.may_fill("t1", 1_000, 1_000, live, first, grace_ms=2_000)
    assert not seats.may_fill("t1", 1_000, 2_999, live, other, grace_ms=2_000)
    assert seats.may_fill("t1", 1_000, 3_000, live, other, grace_ms=2_000)
    assert seats.may_fill("t1", 1_000, 1_000, [], other, grace_ms=2_000)  # nobody known yet


def test_replica_settings_from_the_environment(bot_key: dict[str, str]) -> None:
    c = BotConfig.from_env({**bot_key, "MATCH_REPLICA_ID": "bot-7"})
    assert (c.replica_id, c.stream_replicas) == ("bot-7", 1)
    d = BotConfig.from_env({**bot_key, "MATCH_STREAM_REPLICAS": "3"})
    assert d.stream_replicas == 3 and d.replica_id  # host-pid by default
    with pytest.raises(ConfigError, match="MATCH_STREAM_REPLICAS"):
        BotConfig.from_env({**bot_key, "MATCH_STREAM_REPLICAS": "0"})
    with pytest.raises(ConfigError, match="MATCH_STREAM_REPLICAS"):
        BotConfig.from_env({**bot_key, "MATCH_STREAM_REPLICAS": "three"})


class QuietWatcher:
    """A stand-in for nats-py's KV watcher, for the scan's own logic: it delivers what it is
    given and never the "caught up" marker, as nats-py does when an entry it counted is removed
    before it is delivered; the server's count of what is left is ``pending``."""

    def __init__(self, pending: list[int], *entries: object) -> None:
        self._updates: asyncio.Queue[object] = asyncio.Queue()
        for entry in entries:
            self._updates.put_nowait(entry)
        self._sub = SimpleNamespace(_consumer=None, consumer_info=self._info)
        self._pending = pending

    async def _info(self) -> SimpleNamespace:  # each answer in turn; the last one stays
        pending = self._pending.pop(0) if len(self._pending) > 1 else self._pending[0]
        return SimpleNamespace(num_pending=pending)

    async def updates(self, timeout: float) -> object:
        try:
            return await asyncio.wait_for(self._updates.get(), timeout)
        except TimeoutError:
            raise nats.errors.TimeoutError from None

    async def stop(self) -> None:
        pass


class Bucket:
    def __init__(self, watcher: QuietWatcher) -> None:
        self.watcher = watcher

    async def watchall(self, **_: object) -> QuietWatcher:
        return self.watcher


def entry(key: str, value: bytes) -> SimpleNamespace:
    return SimpleNamespace(key=key, value=value, operation=None)


@pytest.fixture
def quick_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seats, "SCAN_QUIET_S", 0.05)
    monkeypatch.setattr(seats, "SCAN_TIMEOUT_S", 0.5)
    monkeypatch.setattr(seats, "SCAN_GRACE_S", 1.0)


@pytest.mark.usefixtures("quick_scan")
async def test_a_scan_whose_caught_up_marker_never_comes_ends_when_nothing_is_left() -> None:
    first = entry("a", b"1")  # delivered; the entry counted after it expired on the way
    scanned = await seats._latest(Bucket(QuietWatcher([0], first)))  # type: ignore[arg-type]
    assert scanned == {"a": first}


@pytest.mark.usefixtures("quick_scan")
async def test_a_quiet_scan_with_entries_left_waits_until_the_server_has_none() -> None:
    first = entry("a", b"1")  # then two quiet checks with one left (it expires meanwhile)
    scanned = await seats._latest(Bucket(QuietWatcher([1, 1, 0], first)))  # type: ignore[arg-type]
    assert scanned == {"a": first}


@pytest.mark.usefixtures("quick_scan")
async def test_a_quiet_scan_takes_an_entry_still_on_its_way() -> None:
    watcher = QuietWatcher([0], entry("a", b"1"))
    late = entry("b", b"2")

    async def arrive() -> None:  # after the server said nothing is left, inside the grace
        await asyncio.sleep(seats.SCAN_QUIET_S + 0.2)
        watcher._updates.put_nowait(late)

    arriving = asyncio.create_task(arrive())
    scanned = await seats._latest(Bucket(watcher))  # type: ignore[arg-type]
    await arriving
    assert set(scanned) == {"a", "b"}


@pytest.mark.usefixtures("quick_scan")
async def test_a_slow_scan_that_goes_on_making_progress_is_not_cut_off() -> None:
    watcher = QuietWatcher([1])
    keys = ["a", "b", "c", "d"]

    async def trickle() -> None:  # an entry every 0.3 s: 1.2 s in all, the time-out is 0.5
        for key in keys:
            await asyncio.sleep(0.3)
            watcher._updates.put_nowait(entry(key, b"1"))
        watcher._updates.put_nowait(None)  # caught up

    coming = asyncio.create_task(trickle())
    scanned = await seats._latest(Bucket(watcher))  # type: ignore[arg-type]
    await coming
    assert sorted(scanned) == keys


@pytest.mark.usefixtures("quick_scan")
async def test_a_scan_with_entries_left_that_never_come_fails_in_time() -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(nats.errors.TimeoutError):
        await seats._latest(Bucket(QuietWatcher([3], entry("a", b"1"))))  # type: ignore[arg-type]
    assert seats.SCAN_TIMEOUT_S <= loop.time() - started < seats.SCAN_TIMEOUT_S + 0.5
