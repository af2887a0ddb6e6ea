"""Least privilege on NATS, tried as an attacker would: every service connects with its own
identity, and each tries what it must not do. NATS must refuse it, and nothing may change.

One stack for the module (all five services up, so every stream and bucket exists), the same
server configuration `make run` uses (match_bus.access). The stack fixtures of the other test
folders check the other half: no service was refused anything while whole games were played.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from nats.aio.client import Client
from nats.errors import Error as NatsError

from match_bus import access, subjects
from match_bus.access import Identities
from match_launch.stack import Stack

Attempt = Callable[[Client], Awaitable[object]]
TABLE = "abcdefgh12"  # a well-formed table id


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(tmp_path_factory.mktemp("perm") / "stack")
    s.start()
    try:
        yield s
    finally:
        s.stop()


async def refusals(stack: Stack, name: str, attempt: Attempt) -> list[str]:
    """Connect as ``name``, try ``attempt``, and return what NATS refused (lower case)."""
    seen: list[str] = []

    async def on_error(error: Exception) -> None:
        seen.append(str(error).lower())

    nc = await stack.connect_nats(name, error_cb=on_error, allow_reconnect=False)
    try:
        with contextlib.suppress(NatsError, TimeoutError):
            await asyncio.wait_for(attempt(nc), 2.0)
        await nc.flush()
        for _ in range(40):  # the server's -ERR comes asynchronously
            if seen:
                break
            await asyncio.sleep(0.05)
    finally:
        await nc.close()
    return seen


def refused(seen: list[str], subject: str) -> bool:
    return any("permissions violation" in e and subject.lower() in e for e in seen)


async def last_sequence(stack: Stack, stream: str) -> int:
    nc = await stack.connect_nats()
    try:
        return (await nc.jetstream().stream_info(stream)).state.last_seq
    finally:
        await nc.close()


# --- nobody without an identity -----------------------------------------------------------


async def refused_connect(url: str, **options: str) -> None:
    nc = Client()
    try:
        with pytest.raises(NatsError, match="Authorization Violation"):
            await nc.connect(url, allow_reconnect=False, max_reconnect_attempts=0, **options)  # type: ignore[arg-type]
    finally:
        await nc.close()  # the refused connection's socket too


async def test_a_client_without_credentials_is_refused(stack: Stack) -> None:
    await refused_connect(stack.url)


async def test_a_key_the_server_does_not_know_is_refused(stack: Stack, tmp_path: Path) -> None:
    stranger = Identities(tmp_path / "other").ensure()
    await refused_connect(stack.url, **stranger.connect_options("admin"))


# --- the table log: the referee is its only writer ----------------------------------------


@pytest.mark.parametrize("name", ["lobby", "dealer", "ledger", "bot"])
async def test_only_the_referee_appends_to_the_table_log(stack: Stack, name: str) -> None:
    before = await last_sequence(stack, subjects.EVENTS_STREAM)
    subject = subjects.events(TABLE)
    seen = await refusals(stack, name, lambda nc: nc.jetstream().publish(subject, b"forged"))
    assert refused(seen, subject), seen
    assert await last_sequence(stack, subjects.EVENTS_STREAM) == before


@pytest.mark.parametrize("name", access.SERVICES)
async def test_no_service_deletes_or_purges_the_log(stack: Stack, name: str) -> None:
    subject = f"$JS.API.STREAM.DELETE.{subjects.EVENTS_STREAM}"
    seen = await refusals(stack, name, lambda nc: nc.request(subject, b"", timeout=0.5))
    assert refused(seen, subject), seen
    purge = f"$JS.API.STREAM.PURGE.{subjects.EVENTS_STREAM}"
    assert refused(await refusals(stack, name, lambda nc: nc.request(purge, b"", 0.5)), purge)


@pytest.mark.parametrize(
    "stream",
    [
        f"KV_{subjects.SEEDS_BUCKET}",
        f"KV_{subjects.REFEREE_LEASES_BUCKET}",
        f"KV_{access.BOT_REPLICAS_BUCKET}",
        *subjects.EVENTS_COPIES.values(),
    ],
)
async def test_the_bot_purges_no_stream_but_its_seat_book(stack: Stack, stream: str) -> None:
    """The bot may purge its seat book (the markers of seats given back), and nothing else."""
    purge = f"$JS.API.STREAM.PURGE.{stream}"
    assert refused(await refusals(stack, "bot", lambda nc: nc.request(purge, b"", 0.5)), purge)


# --- commands: only the lobby sends them, only the referee answers them ---------------------


@pytest.mark.parametrize("name", ["dealer", "ledger", "bot"])
async def test_only_the_lobby_sends_commands_to_the_referee(stack: Stack, name: str) -> None:
    subject = subjects.referee_table(TABLE)
    seen = await refusals(stack, name, lambda nc: nc.request(subject, b"", timeout=0.5))
    assert refused(seen, subject), seen


@pytest.mark.parametrize("name", ["lobby", "dealer", "ledger", "bot"])
async def test_nobody_but_the_referee_answers_commands(stack: Stack, name: str) -> None:
    seen = await refusals(stack, name, lambda nc: nc.subscribe(subjects.REFEREE_ALL))
    assert refused(seen, subjects.REFEREE_ALL), seen


# --- seeds and deals: the dealer holds them, the referee alone asks --------------------------


@pytest.mark.parametrize("name", ["lobby", "ledger", "bot"])
@pytest.mark.parametrize(
    "subject", [subjects.DEALER_COMMIT, subjects.DEALER_DEAL, subjects.DEALER_REVEAL]
)
async def test_only_the_referee_asks_the_dealer(stack: Stack, name: str, subject: str) -> None:
    seen = await refusals(stack, name, lambda nc: nc.request(subject, b"", timeout=0.5))
    assert refused(seen, subject), seen


@pytest.mark.parametrize("name", ["referee", "lobby", "ledger", "bot"])
@pytest.mark.parametrize("subject", ["match.dealer.>", subjects.DEALER_REVEAL])
async def test_nobody_but_the_dealer_answers_as_the_dealer(
    stack: Stack, name: str, subject: str
) -> None:
    """A fake dealer could answer a reveal with a seed of its choosing: nobody may listen."""
    seen = await refusals(stack, name, lambda nc: nc.subscribe(subject, queue="dealer"))
    assert refused(seen, subject), seen


@pytest.mark.parametrize("name", ["referee", "lobby", "ledger", "bot"])
async def test_nobody_but_the_dealer_writes_or_reads_a_seed(stack: Stack, name: str) -> None:
    put = f"$KV.{subjects.SEEDS_BUCKET}.{TABLE}"
    assert refused(await refusals(stack, name, lambda nc: nc.publish(put, b"0" * 32)), put)
    get = f"$JS.API.DIRECT.GET.KV_{subjects.SEEDS_BUCKET}.$KV.{subjects.SEEDS_BUCKET}.{TABLE}"
    assert refused(await refusals(stack, name, lambda nc: nc.request(get, b"", 0.5)), get)
    watch = f"$JS.API.CONSUMER.CREATE.KV_{subjects.SEEDS_BUCKET}"
    assert refused(await refusals(stack, name, lambda nc: nc.request(watch, b"{}", 0.5)), watch)


@pytest.mark.parametrize("name", ["lobby", "dealer", "ledger", "bot"])
async def test_nobody_reads_the_answers_another_service_gets(stack: Stack, name: str) -> None:
    """The dealer's deals travel to the referee's inbox: nobody else may listen there."""
    for other in ("referee", "lobby"):
        if other == name:
            continue
        prefix = f"{access.inbox(other)}.>"
        seen = await refusals(stack, name, lambda nc, p=prefix: nc.subscribe(p))  # type: ignore[misc]
        assert refused(seen, prefix), seen
    seen = await refusals(stack, name, lambda nc: nc.subscribe("_INBOX.>"))
    assert refused(seen, "_INBOX.>"), seen


async def test_the_bot_cannot_read_the_table_log(stack: Stack) -> None:
    subject = f"$JS.API.CONSUMER.CREATE.{subjects.EVENTS_STREAM}"
    seen = await refusals(stack, "bot", lambda nc: nc.request(subject, b"{}", 0.5))
    assert refused(seen, subject), seen
    get = f"$JS.API.STREAM.MSG.GET.{subjects.EVENTS_STREAM}"
    assert refused(await refusals(stack, "bot", lambda nc: nc.request(get, b"{}", 0.5)), get)


# --- the other buckets -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["lobby", "dealer", "ledger", "bot"])
async def test_only_the_referee_writes_the_leases(stack: Stack, name: str) -> None:
    subject = f"$KV.{subjects.REFEREE_LEASES_BUCKET}.p00"
    seen = await refusals(stack, name, lambda nc: nc.publish(subject, b"mine"))
    assert refused(seen, subject), seen


@pytest.mark.parametrize("name", ["referee", "lobby", "dealer", "ledger"])
async def test_only_the_bot_writes_its_seats(stack: Stack, name: str) -> None:
    subject = f"$KV.{access.BOT_SEATS_BUCKET}.{TABLE}.1"
    seen = await refusals(stack, name, lambda nc: nc.publish(subject, b"mine"))
    assert refused(seen, subject), seen


@pytest.mark.parametrize("name", ["referee", "lobby", "dealer", "bot"])
async def test_only_the_ledger_answers_for_the_ledger(stack: Stack, name: str) -> None:
    seen = await refusals(stack, name, lambda nc: nc.subscribe(subjects.LEDGER_RECORDS))
    assert refused(seen, subjects.LEDGER_RECORDS), seen


async def test_what_a_service_may_do_still_works(stack: Stack) -> None:
    """The other side of each refusal: the same connection, on a granted subject, is served."""
    nc = await stack.connect_nats("lobby")
    try:
        info = await nc.jetstream().stream_info(subjects.EVENTS_STREAM)
        assert info.config.name == subjects.EVENTS_STREAM
    finally:
        await nc.close()
    nc = await stack.connect_nats("dealer")
    try:
        kv = await nc.jetstream().key_value(subjects.SEEDS_BUCKET)
        assert (await kv.status()).bucket == subjects.SEEDS_BUCKET
    finally:
        await nc.close()


async def test_the_bot_removes_the_markers_of_its_seats_given_back(stack: Stack) -> None:
    """The bot's one purge, as the bot: a seat recorded and given back leaves nothing behind
    after the next scan (services/bot/seats.py); every other purge it tries is refused above."""
    from services.bot.seats import Identity, SeatBook, SeatRecord

    me = Identity.new("bot-permissions")
    seat = SeatRecord(
        table_id=TABLE, seat=1, player_id="p1", token="t", owner=me.replica,
        incarnation=me.incarnation,
    )  # fmt: skip
    nc = await stack.connect_nats("bot")
    try:
        js = nc.jetstream()
        book = await SeatBook.open(js, me)
        assert await book.release(seat.key, await book.record(seat))
        subject = f"$KV.{access.BOT_SEATS_BUCKET}.{seat.key}"
        stream = f"KV_{access.BOT_SEATS_BUCKET}"
        info = await js.stream_info(stream, subjects_filter=subject)
        assert (info.state.subjects or {}).get(subject) == 1  # the marker
        assert [r for _, r in await book.seats() if r.key == seat.key] == []
        info = await js.stream_info(stream, subjects_filter=subject)
        assert subject not in (info.state.subjects or {})  # removed, as the bot
    finally:
        await nc.close()
