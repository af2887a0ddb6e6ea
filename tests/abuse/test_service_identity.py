"""Abuse: what one compromised service identity can do to the others (issue 34, finding 4).

The reproduction, at a bounded scale on a real stack, with the credentials of the ``players``
and ``lobby`` identities (their NKey seeds, as a thief would have them):

* a flood of consumers, more than a stream takes (nats-server 2.15 gives a stream without its
  own limit 1000): on the table log and on the lobby's copy of it it is refused outright, on
  its own copy it stops at that copy's cap, and a player's Watch still works afterwards;
* deleting the ledger's durable consumer, or re-creating it with another filter (a create
  request may name any consumer in its body): refused, and the consumer is unchanged;
* a forged record pushed where the lobby's copy of the log pushes a watched table's records
  (``match.live.>``), to show a player what never happened: refused to every service identity.

What must hold is in docs/operations.md, "Threat model" and "Limits".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from nats.aio.client import Client
from nats.errors import Error as NatsError

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_bus import subjects
from match_launch.stack import Stack

FLOOD = 1100  # consumers tried per stream: more than nats-server's default cap of 1000
HOUR_NS = 3600 * 10**9


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack of its own: not ``running``, which fails on any refusal NATS logged, and here
    the refusals are the point (each is checked where it is tried)."""
    s = Stack(Path(tmp_path_factory.mktemp("abuse-identity")))
    s.start()
    try:
        yield s
    finally:
        s.stop()


class Attacker:
    """A connection with a service's credentials that notes what NATS refused it."""

    def __init__(self, nc: Client, refused: list[str]) -> None:
        self.nc = nc
        self.refused = refused

    @classmethod
    async def connect(cls, stack: Stack, identity: str) -> Attacker:
        refused: list[str] = []

        async def on_error(error: Exception) -> None:
            refused.append(str(error).lower())

        nc = await stack.connect_nats(identity, error_cb=on_error, allow_reconnect=False)
        return cls(nc, refused)

    async def api(
        self, subject: str, body: dict[str, object], timeout: float = 1.0
    ) -> dict[str, object] | None:
        """A JetStream API request: its answer, or None when nothing answered in ``timeout``
        (refused: the server drops what the identity may not publish)."""
        try:
            reply = await self.nc.request(subject, json.dumps(body).encode(), timeout=timeout)
        except (NatsError, TimeoutError):
            return None
        answer: dict[str, object] = json.loads(reply.data)
        return answer

    async def flood(self, stream: str, timeout: float = 1.0) -> tuple[int, object]:
        """Make consumers on ``stream`` that outlive their maker by an hour, until one is not
        made: how many were, and the answer that stopped them (None: no answer in
        ``timeout``)."""
        made = 0
        for i in range(FLOOD):
            config = {
                "deliver_subject": f"_INBOX.nobody.{i}",  # nobody listens: nothing is sent
                "ack_policy": "none",
                "inactive_threshold": HOUR_NS,
            }
            answer = await self.api(
                f"$JS.API.CONSUMER.CREATE.{stream}",
                {"stream_name": stream, "config": config},
                timeout,
            )
            if answer is None or "error" in answer:
                return made, answer and answer["error"]
            made += 1
        return made, "never stopped"

    async def was_refused(self, subject: str) -> bool:
        with contextlib.suppress(NatsError):
            await self.nc.flush()
        for _ in range(40):  # the server's -ERR comes asynchronously
            if any("permissions violation" in e and subject.lower() in e for e in self.refused):
                return True
            await asyncio.sleep(0.05)
        return False


async def consumer_count(stack: Stack, stream: str) -> int:
    nc = await stack.connect_nats()
    try:
        return int((await nc.jetstream().stream_info(stream)).state.consumer_count)
    finally:
        await nc.close()


async def victims_table(stack: Stack) -> tuple[str, str]:
    """A new player's private table: its id and the player's token. A command the referee did
    not answer in time is sent again with the same request id, as a client would."""
    request = lobby_pb2.CreateTableRequest(
        game_kind=common_pb2.GAME_KIND_MATCH_RACE,
        seats=2,
        visibility=common_pb2.VISIBILITY_PRIVATE,
        display_name="Victim",
        race=race_pb2.RaceSettings(ready_window_ms=120_000),
    )
    request_id = uuid.uuid4().hex
    async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        for attempt in range(5):
            try:
                made = await lobby.CreateTable(
                    request, metadata=(("x-request-id", request_id),), timeout=30
                )
                return made.table_id, made.player_token
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or attempt == 4:
                    raise
                await asyncio.sleep(1.0)
    raise AssertionError("unreachable")


async def watch_works(stack: Stack, table_id: str, token: str) -> str:
    """The player Watches its table from its first event: "" when the first item arrives,
    else what went wrong."""
    async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
        call = race_service_pb2_grpc.MatchRaceServiceStub(channel).Watch(
            race_service_pb2.WatchRequest(table_id=table_id),
            metadata=(("authorization", f"Bearer {token}"),),
        )
        try:
            first = await asyncio.wait_for(call.read(), 40)
        except (grpc.aio.AioRpcError, TimeoutError) as error:
            return repr(error)
        finally:
            call.cancel()
        return "" if first is not grpc.aio.EOF else "the stream ended at once"


async def test_a_service_identity_cannot_use_up_the_consumers_others_need(stack: Stack) -> None:
    table_id, token = await victims_table(stack)  # made first: the attack is on its Watch
    players = await Attacker.connect(stack, "players")
    try:
        on_log = await players.flood(subjects.EVENTS_STREAM)
        on_lobby_copy = await players.flood(subjects.LOBBY_EVENTS)
        # Allowed, so answered: each create may take a slow machine's while; the cap stops it.
        on_own_copy = await players.flood(subjects.PLAYERS_EVENTS, timeout=10.0)
        log_refused = await players.was_refused(f"$JS.API.CONSUMER.CREATE.{subjects.EVENTS_STREAM}")
        copy_refused = await players.was_refused(f"$JS.API.CONSUMER.CREATE.{subjects.LOBBY_EVENTS}")
    finally:
        await players.nc.close()
    watched = await watch_works(
        stack, table_id, token
    )  # after the flood: its consumers outlive it by an hour
    print(
        f"\nabuse-identity: players made {on_log[0]} consumers on the log, {on_lobby_copy[0]} "
        f"on the lobby's copy, {on_own_copy[0]} on its own ({on_own_copy[1]}); "
        f"a victim's Watch: {watched or 'works'}"
    )
    assert on_log == (0, None) and log_refused, on_log
    assert on_lobby_copy == (0, None) and copy_refused, on_lobby_copy
    cap = subjects.COPY_MAX_CONSUMERS["players"]
    assert on_own_copy[0] < cap, on_own_copy  # its own follower holds one of them
    assert await consumer_count(stack, subjects.PLAYERS_EVENTS) == cap
    assert isinstance(on_own_copy[1], dict) and on_own_copy[1]["err_code"] == 10026  # the cap
    assert watched == "", watched


@pytest.mark.parametrize("identity", ["players", "lobby"])
async def test_a_reader_cannot_delete_or_rewrite_the_ledgers_consumer(
    stack: Stack, identity: str
) -> None:
    admin = await stack.connect_nats()
    try:
        before = await admin.jetstream().consumer_info(
            subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE
        )
    finally:
        await admin.close()
    attacker = await Attacker.connect(stack, identity)
    stream, durable = subjects.EVENTS_STREAM, subjects.LEDGER_DURABLE
    rewritten = {**before.config.as_dict(), "filter_subject": "match.nothing"}
    rewritten.pop("durable_name", None)  # named in the body only: the unnamed create subject
    attempts = {
        f"$JS.API.CONSUMER.DELETE.{stream}.{durable}": {},
        f"$JS.API.CONSUMER.CREATE.{stream}": {"stream_name": stream, "config": rewritten},
        f"$JS.API.CONSUMER.CREATE.{stream}.{durable}": {"stream_name": stream, "config": rewritten},
    }
    try:
        answers = {subject: await attacker.api(subject, body) for subject, body in attempts.items()}
        refused = {subject: await attacker.was_refused(subject) for subject in attempts}
    finally:
        await attacker.nc.close()
    admin = await stack.connect_nats()
    try:
        after = await admin.jetstream().consumer_info(stream, durable)
    finally:
        await admin.close()
    assert answers == dict.fromkeys(attempts), answers  # no answer: nothing was done
    assert all(refused.values()), refused
    assert after.created == before.created  # the same consumer, not one made again
    assert after.config.filter_subject == subjects.EVENTS_ALL


@pytest.mark.parametrize("identity", ["dealer", "ledger", "referee", "lobby", "bot", "players"])
async def test_no_service_identity_can_push_a_record_to_the_lobbies(
    stack: Stack, identity: str
) -> None:
    """Only nats-server itself (the lobby copy's RePublish) publishes on ``match.live.>``."""
    subject = subjects.live("forged000001")
    attacker = await Attacker.connect(stack, identity)
    try:
        await attacker.nc.publish(subject, b"a forged record", headers={"Nats-Sequence": "1"})
        refused = await attacker.was_refused(subject)
    finally:
        await attacker.nc.close()
    assert refused, identity
