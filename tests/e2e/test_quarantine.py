"""A bad record harms only its own table: the whole system, restarted over a stream that holds
bytes on a subject that names no table, junk on a table's subject, and a well-formed record
out of a table's numbering.

The module's stack is set up once: four tables made through the lobby, the three bad records
appended by an operator's connection, then every process (NATS too) stopped and started
again, which is when each service reads the stream from its start. The tests then check that
every other table goes on and a new game plays to its end, that the two bad tables are refused
with FAILED_PRECONDITION ``table_quarantined`` and the record's stream sequence everywhere,
that the metrics count them and the logs name them once, and that ``match-audit`` reports them
without a traceback.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import nats
import pytest
from nats.aio.client import Client

from match.v1 import common_pb2, lobby_pb2, race_service_pb2, referee_pb2
from match_audit.cli import main as match_audit
from match_bus import subjects
from match_bus.clock import Clock
from match_bus.jetstream import TableLog
from match_launch.natsserver import free_port
from match_launch.stack import Stack
from tests.audit.game import play_short_game, stack_env
from tests.e2e.players_race import Player

METRICS = ("referee", "lobby", "ledger")


async def operator(stack: Stack) -> Client:
    """A NATS connection with the operator's rights, the admin identity: the only one that may
    write to the table log besides the referee (the only place these tests connect)."""
    return await stack.connect_nats("admin")


@dataclass(frozen=True)
class Seat:
    table_id: str
    player_id: str
    token: str

    def player(self, name: str, channel: grpc.aio.Channel, clock: Clock) -> Player:
        player = Player(name, channel, clock)
        player.table_id, player.player_id, player.token = self.table_id, self.player_id, self.token
        return player


@dataclass(frozen=True)
class Setup:
    stack: Stack
    clock: Clock
    metrics: dict[str, int]  # service -> its metrics port
    junk: Seat  # Ann's seat at an open table whose log then got bytes that are no record
    junk_sequence: int
    replayed: Seat  # Ann's seat at an open table whose first record was appended again
    replayed_sequence: int
    stray_sequence: int  # bytes on match.events.x
    waiting: Seat  # Ann's seat at a private table for two, waiting for Bob
    invite: str
    listed: str  # an open table nobody touches
    restarted_at: dict[str, int]  # service -> where its log was when it started again


async def _make_tables(stack: Stack, clock: Clock) -> dict[str, tuple[Seat, str]]:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
        made = {}
        for name, visibility, seats in (
            ("junk", common_pb2.VISIBILITY_OPEN, 3),
            ("replayed", common_pb2.VISIBILITY_OPEN, 3),
            ("waiting", common_pb2.VISIBILITY_PRIVATE, 2),
            ("listed", common_pb2.VISIBILITY_OPEN, 3),
        ):
            ann = Player("Ann", channel, clock)
            reply = await ann.create(seats=seats, visibility=visibility)
            made[name] = (
                Seat(reply.table_id, reply.player_id, reply.player_token),
                reply.invite_code,
            )
        return made


async def _append_bad_records(stack: Stack, junk: str, replayed: str) -> tuple[int, int, int]:
    nc = await operator(stack)
    try:
        js = nc.jetstream()
        stray = await js.publish("match.events.x", b"forged")
        garbage = await js.publish(subjects.events(junk), b"forged")
        (first,) = await TableLog(js).read(replayed)  # its one record, appended again
        again = await js.publish(subjects.events(replayed), first.data)
        return stray.seq, garbage.seq, again.seq
    finally:
        await nc.close()


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    env = stack_env()
    metrics = {service: free_port() for service in METRICS}
    env.update({f"{service.upper()}_METRICS_PORT": str(p) for service, p in metrics.items()})
    stack = Stack(tmp_path_factory.mktemp("quarantine") / "stack", env=env)
    clock = Clock(float(env["REFEREE_CLOCK_RATE"]), int(env["REFEREE_CLOCK_ANCHOR_MS"]))
    stack.start()
    try:
        made = asyncio.run(_make_tables(stack, clock))
        stray, junk, replayed = asyncio.run(
            _append_bad_records(stack, made["junk"][0].table_id, made["replayed"][0].table_id)
        )
        stack.stop()  # every process, NATS too, as after `make run` is stopped
        restarted_at = {s: len(stack.log(s, tail=0)) for s in METRICS}
        stack.start()
        yield Setup(
            stack=stack,
            clock=clock,
            metrics=metrics,
            junk=made["junk"][0],
            junk_sequence=junk,
            replayed=made["replayed"][0],
            replayed_sequence=replayed,
            stray_sequence=stray,
            waiting=made["waiting"][0],
            invite=made["waiting"][1],
            listed=made["listed"][0].table_id,
            restarted_at=restarted_at,
        )
    finally:
        stack.stop()
    assert not stack.nats_refusals(), "\n".join(stack.nats_refusals())  # every grant was enough


def quarantine_message(table_id: str, sequence: int, problem: str) -> str:
    return (
        f"table {table_id} is quarantined: record at stream sequence {sequence} {problem}; "
        "an operator must repair its log"
    )


def refusal_code(error: grpc.aio.AioRpcError) -> str | None:
    return next(
        (str(v) for k, v in error.trailing_metadata() or () if k == "match-refusal-code"), None
    )


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def metric(port: int, name: str) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert found is not None, f"no {name} on port {port}"
    return float(found.group(1))


async def metric_becomes(port: int, name: str, value: float, within_s: float = 15.0) -> None:
    deadline = time.monotonic() + within_s
    while (seen := metric(port, name)) != value:
        assert time.monotonic() < deadline, f"{name} is {seen}, not {value}"
        await asyncio.sleep(0.2)


def logged(setup: Setup, service: str, event: str, since: int = 0) -> list[dict[str, object]]:
    """The JSON log lines of ``service`` whose event starts with ``event``."""
    text = setup.stack.log(service, tail=0)[since:]
    lines = [json.loads(line) for line in text.splitlines()]
    return [line for line in lines if str(line.get("event", "")).startswith(event)]


async def test_every_other_table_goes_on_and_the_bad_ones_are_refused(setup: Setup) -> None:
    bad = {
        setup.junk.table_id: quarantine_message(
            setup.junk.table_id, setup.junk_sequence, "does not decode as a TableRecord"
        ),
        setup.replayed.table_id: quarantine_message(
            setup.replayed.table_id,
            setup.replayed_sequence,
            "is record number 1 where 2 was due",
        ),
    }
    async with grpc.aio.insecure_channel(setup.stack.lobby_addr) as channel:
        # A new game plays to its end.
        game = await play_short_game(channel, setup.clock)
        assert game not in bad

        # The table made before the restart goes on: Bob takes the last seat, the game ends.
        ann = setup.waiting.player("Ann", channel, setup.clock)
        bob = Player("Bob", channel, setup.clock)
        await bob.join(invite_code=setup.invite)
        ann.watch()
        try:
            await ann.wait_for("ready_opened", board=1, timeout=20)
            await ann.resign()
            await bob.resign()
            await ann.wait_for("game_ended", timeout=20)
        finally:
            await ann.stop_watch()

        # The bad tables are refused with the record's stream sequence, by whoever answers.
        for seat in (setup.junk, setup.replayed):
            message = bad[seat.table_id]
            ann = seat.player("Ann", channel, setup.clock)
            for call in (
                ann.race.PressReady(  # the referee
                    race_service_pb2.PressReadyRequest(table_id=seat.table_id),
                    metadata=ann.metadata(),
                ),
                ann.lobby.JoinTable(  # the lobby's listing
                    lobby_pb2.JoinTableRequest(table_id=seat.table_id, display_name="Bob")
                ),
                ann.lobby.GetTable(lobby_pb2.GetTableRequest(table_id=seat.table_id)),
            ):
                error = await refused(call)
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
                assert (error.details(), refusal_code(error)) == (message, "table_quarantined")
            watch = ann.race.Watch(
                race_service_pb2.WatchRequest(table_id=seat.table_id), metadata=ann.metadata()
            )
            with pytest.raises(grpc.aio.AioRpcError) as stopped:
                async for _ in watch:
                    pass
            assert stopped.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert stopped.value.details() == message

        listing = await ann.lobby.ListTables(lobby_pb2.ListTablesRequest())
        listed = {t.table_id for t in listing.tables}
        assert setup.listed in listed and not listed & set(bad)

    port = setup.metrics
    await metric_becomes(port["referee"], "match_referee_quarantined_tables", 2)
    await metric_becomes(port["referee"], "match_referee_stray_records_total", 1)
    await metric_becomes(port["lobby"], "match_lobby_quarantined_tables", 2)
    await metric_becomes(port["lobby"], "match_lobby_stray_records_total", 1)
    await metric_becomes(port["ledger"], "match_ledger_quarantined_tables", 2)

    for service in ("referee", "lobby"):  # each process once, here since the restart
        since = setup.restarted_at[service]
        lines = logged(setup, service, "table quarantined", since)
        assert sorted((line["table_id"], line["sequence"]) for line in lines) == sorted(
            [
                (setup.junk.table_id, setup.junk_sequence),
                (setup.replayed.table_id, setup.replayed_sequence),
            ]
        ), f"{service} logs each quarantine once"
        (stray,) = logged(setup, service, "skipped a record on a subject that names", since)
        assert (stray["subject"], stray["sequence"]) == ("match.events.x", setup.stray_sequence)
    assert not logged(setup, "referee", "could not take partitions on")
    (ledger_stray,) = logged(setup, "ledger", "stored a record from a subject that names")
    assert ledger_stray["sequence"] == setup.stray_sequence


def audit(setup: Setup, *argv: str) -> tuple[int, str]:
    """``match-audit`` against the stack's ledger, asked again while the ledger catches up."""
    deadline = time.monotonic() + 30
    while True:
        out, err = io.StringIO(), io.StringIO()
        code = match_audit([*argv, "--addr", setup.stack.ledger_addr], out=out, err=err)
        said = out.getvalue() + err.getvalue()
        if "still storing" not in said or time.monotonic() > deadline:
            return code, said
        time.sleep(0.2)


def test_match_audit_reports_a_quarantined_table(setup: Setup, tmp_path: Path) -> None:
    key = str(setup.stack.verifier_key_file)
    for seat, sequence, problem in (
        (setup.junk, setup.junk_sequence, "does not decode as a TableRecord"),
        (setup.replayed, setup.replayed_sequence, "is record number 1 where 2 was due"),
    ):
        game = seat.table_id
        for argv in (
            ["verify", game, "--key", key],
            ["replay", game],
            ["export", game, "-o", str(tmp_path / f"{game}.jsonl")],
        ):
            code, said = audit(setup, *argv)
            assert code == 2, said
            assert (
                f"table {game} is quarantined: record at stream sequence {sequence} {problem}"
                in (said)
            ), said
            assert "Traceback" not in said
        assert not (tmp_path / f"{game}.jsonl").exists()


def test_a_records_request_for_a_quarantined_table_still_answers(setup: Setup) -> None:
    """The ledger mirrors the stream: the bad record is stored (a leaf of its tree), only the
    audit API declines to serve the table."""

    async def ask() -> list[tuple[int, bytes]]:
        nc = await operator(setup.stack)
        try:
            request = referee_pb2.LedgerRecordsRequest(table_id=setup.junk.table_id)
            for _ in range(50):
                try:
                    msg = await nc.request(
                        subjects.LEDGER_RECORDS, request.SerializeToString(), timeout=2
                    )
                except nats.errors.TimeoutError:
                    continue
                answer = referee_pb2.LedgerRecordsResponse.FromString(msg.data)
                return [(e.stream_sequence, e.record) for e in answer.entries]
            raise AssertionError("the ledger never answered")
        finally:
            await nc.close()

    entries = asyncio.run(ask())
    assert entries[-1] == (setup.junk_sequence, b"forged")
