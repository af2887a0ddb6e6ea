"""The lobby as a real process, over a real nats-server and real gRPC.

The referee is played by ``ScriptedReferee``: it answers the lobby's NATS requests with canned
replies and appends real TableRecords to JetStream, so Watch reads a real table log. The full
stack (referee, dealer, lobby) is tested in test_lobby_integration.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import nats
import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import (  # type: ignore[import-untyped]
    reflection_pb2,
    reflection_pb2_grpc,
)
from nats.aio.client import Client
from nats.aio.msg import Msg

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    race_command_pb2,
    race_pb2,
    race_service_pb2,
    race_service_pb2_grpc,
    referee_pb2,
    views_pb2,
)
from match_bus import subjects
from match_bus.jetstream import TableLog, ensure_stream
from match_client.client import retry_after_ms
from match_launch.child import tied
from match_launch.natsserver import NatsServer, free_port
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.game import to_proto
from services.lobby.tokens import Tokens
from tests.conftest import secret_file
from tests.rules.race.helpers import Game

ROOT = Path(__file__).resolve().parents[2]
SECRET = bytes(range(32))
BOT_KEY = "bot-key-for-tests"
RACE = common_pb2.GAME_KIND_MATCH_RACE
OPEN, PRIVATE = common_pb2.VISIBILITY_OPEN, common_pb2.VISIBILITY_PRIVATE
COMMITMENT = "c0" * 32
Refusal = common_pb2.Refusal
StatusCode = grpc.StatusCode
WAIT_S = 10.0


# --- the lobby process ------------------------------------------------------------------------


@dataclass
class Lobby:
    addr: str
    log: Path


def _wait_serving(addr: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 20
    with grpc.insecure_channel(addr) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the lobby exited:\n{log.read_text()}")
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.1)
    raise RuntimeError(f"the lobby did not serve in time:\n{log.read_text()}")


@pytest.fixture
def lobby_env() -> dict[str, str]:
    """More environment for the lobby: a test overrides it with ``parametrize``."""
    return {}


@pytest.fixture
def lobby(nats_server: NatsServer, tmp_path: Path, lobby_env: dict[str, str]) -> Iterator[Lobby]:
    port = free_port()
    addr = f"127.0.0.1:{port}"
    log = tmp_path / "lobby.log"
    env = {
        **os.environ,
        "NATS_URL": nats_server.url,
        "LOBBY_ADDR": addr,
        "METRICS_PORT": "0",
        "MATCH_TOKEN_SECRET_FILE": secret_file(tmp_path, "token.secret", SECRET.hex()),
        "MATCH_BOT_KEY_FILE": secret_file(tmp_path, "bot.key", BOT_KEY),
        "LOG_FORMAT": "json",
        # The scripted referee's clock starts in 1970: its invite codes must not look expired.
        "LOBBY_INVITE_TTL_S": str(10**12),
        **lobby_env,
    }
    env["LOBBY_ADDR"] = env["LOBBY_ADDR"].format(port=port)  # a test may bind elsewhere
    with open(log, "wb") as out:
        process = subprocess.Popen(
            tied([sys.executable, "-m", "services.lobby"]),
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=out,
        )
    try:
        _wait_serving(addr, process, log)
        yield Lobby(addr, log)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    assert "Traceback" not in log.read_text(), log.read_text()


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    await ensure_stream(client.jetstream())
    try:
        yield client
    finally:
        await client.drain()


@pytest.fixture
async def channel(lobby: Lobby) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(lobby.addr) as ch:
        yield ch


@pytest.fixture
def tables(channel: grpc.aio.Channel) -> lobby_pb2_grpc.LobbyServiceStub:
    return lobby_pb2_grpc.LobbyServiceStub(channel)


@pytest.fixture
def race(channel: grpc.aio.Channel) -> race_service_pb2_grpc.MatchRaceServiceStub:
    return race_service_pb2_grpc.MatchRaceServiceStub(channel)


def bearer(token: str, **extra: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"), *extra.items())


async def status_of(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def trailer(error: grpc.aio.AioRpcError, key: str) -> str | None:
    for k, v in error.trailing_metadata() or ():
        if k == key:
            return str(v)
    return None


# --- the scripted referee ---------------------------------------------------------------------


@dataclass
class _Table:
    visibility: int
    invite_code: str
    seats: int
    seated: dict[int, str] = field(default_factory=dict)
    last_seq: int = 0
    next_event: int = 1
    records: int = 0
    at: int = 1_000_000


class ScriptedReferee:
    """Answers like the referee, from a script, and writes real records to the table log."""

    def __init__(self, nc: Client) -> None:
        self._nc = nc
        self._log = TableLog(nc.jetstream())
        self.tables: dict[str, _Table] = {}
        self.table_commands: list[referee_pb2.TableCommand] = []
        self.race_commands: list[race_command_pb2.RaceCommand] = []
        self.refusal: Refusal | None = None  # refuse every command with this, when set
        self.race_accepted: race_command_pb2.RaceCommandReply.Accepted | None = None
        self.subjects: list[str] = []  # where each command arrived
        self.retries: list[referee_pb2.TableCommand | race_command_pb2.RaceCommand] = []
        self.lose_answers = False  # apply commands but never answer (a lost reply)
        # (table, player, request id) -> the first reply: a retry gets it again, as from the
        # real referee, and changes nothing
        self.first_replies: dict[tuple[str, str, str], bytes] = {}
        self._created_at = 1_000_000

    async def start(self) -> ScriptedReferee:
        # One referee for every partition: match.referee.p<NN>.<table|race>.<table_id>
        await self._nc.subscribe(subjects.REFEREE_ALL, cb=self._on)
        return self

    async def _on(self, msg: Msg) -> None:
        self.subjects.append(msg.subject)
        kind = msg.subject.split(".")[3]  # match.referee.p<NN>.<table|race>.<table_id>
        command: referee_pb2.TableCommand | race_command_pb2.RaceCommand
        if kind == "table":
            command = referee_pb2.TableCommand.FromString(msg.data)
        else:
            command = race_command_pb2.RaceCommand.FromString(msg.data)
        key = (command.table_id, command.player_id, command.request_id)
        if key in self.first_replies:
            self.retries.append(command)
            await msg.respond(self.first_replies[key])
            return
        if isinstance(command, referee_pb2.TableCommand):
            self.table_commands.append(command)
            reply: Message = await self._table(command)
        else:
            self.race_commands.append(command)
            reply = self._race(command)
        self.first_replies[key] = data = reply.SerializeToString()
        if self.lose_answers:
            return  # applied, but the answer never reaches the lobby
        await msg.respond(data)

    async def append(
        self,
        table_id: str,
        bodies: list[common_pb2.TableEvent | ev.Event],
        refusal: Refusal | None = None,
    ) -> list[common_pb2.EventEnvelope]:
        """One record: the bodies as the next events of the table (or a refusal, no events)."""
        table = self.tables[table_id]
        envelopes = []
        for body in bodies:
            env = common_pb2.EventEnvelope(
                table_id=table_id,
                game_id=table_id,
                game_kind=RACE,
                event_number=table.next_event,
                server_time_ms=table.at,
            )
            if isinstance(body, common_pb2.TableEvent):
                env.table.CopyFrom(body)
            else:
                env.race.CopyFrom(to_proto(body))
                env.server_time_ms = table.at = body.at
            table.next_event += 1
            envelopes.append(env)
        table.records += 1
        record = referee_pb2.TableRecord(
            table_id=table_id,
            first_event_number=envelopes[0].event_number if envelopes else table.next_event,
            events=envelopes,
            refusal=refusal,
            record_number=table.records,
        )
        table.last_seq = await self._log.append(
            table_id, record.SerializeToString(), f"{table_id}:{table.last_seq}", table.last_seq
        )
        return envelopes

    async def _table(self, command: referee_pb2.TableCommand) -> referee_pb2.TableCommandReply:
        if self.refusal is not None:
            return referee_pb2.TableCommandReply(refusal=self.refusal)
        Event = common_pb2.TableEvent
        which = command.WhichOneof("command")
        player = command.player_id
        if which == "create_table":
            made = command.create_table
            self._created_at += 1000  # tables are made a second apart on this clock
            self.tables[command.table_id] = table = _Table(
                made.visibility, made.invite_code, made.seats, at=self._created_at
            )
            table.seated[1] = player
            events = await self.append(
                command.table_id,
                [
                    Event(
                        table_created=Event.TableCreated(
                            seats=made.seats,
                            visibility=made.visibility,
                            creator=player,
                            invite_code=made.invite_code,
                            race=made.race,
                        )
                    ),
                    Event(
                        seed_committed=Event.SeedCommitted(
                            deal_version="match-deal-v1", commitment=COMMITMENT
                        )
                    ),
                    Event(
                        player_seated=Event.PlayerSeated(
                            seat=1, player_id=player, display_name=made.display_name
                        )
                    ),
                ],
            )
            return self._accepted(1, events)
        table = self.tables[command.table_id]
        if which == "join_table":
            join = command.join_table
            if table.visibility == PRIVATE and join.invite_code != table.invite_code:
                return referee_pb2.TableCommandReply(
                    refusal=Refusal(
                        code="invite_required",
                        message="this table is private: join it with its invite code",
                        category=Refusal.CATEGORY_PERMISSION_DENIED,
                    )
                )
            seat = min(n for n in range(1, table.seats + 1) if n not in table.seated)
            table.seated[seat] = player
            seated = Event.PlayerSeated(
                seat=seat, player_id=player, display_name=join.display_name, is_bot=join.is_bot
            )
            return self._accepted(
                seat, await self.append(command.table_id, [Event(player_seated=seated)])
            )
        if which == "leave_table":
            seat = next(n for n, p in table.seated.items() if p == player)
            del table.seated[seat]
            left = Event.PlayerLeft(seat=seat, player_id=player)
            return self._accepted(0, await self.append(command.table_id, [Event(player_left=left)]))
        fill = Event.FillRequested(fill_at_ms=table.at)
        return self._accepted(0, await self.append(command.table_id, [Event(fill_requested=fill)]))

    @staticmethod
    def _accepted(
        seat: int, events: list[common_pb2.EventEnvelope]
    ) -> referee_pb2.TableCommandReply:
        accepted = referee_pb2.TableCommandReply.Accepted(seat=seat, events=events)
        return referee_pb2.TableCommandReply(accepted=accepted)

    def _race(self, command: race_command_pb2.RaceCommand) -> race_command_pb2.RaceCommandReply:
        if self.refusal is not None:
            return race_command_pb2.RaceCommandReply(refusal=self.refusal)
        accepted = self.race_accepted or race_command_pb2.RaceCommandReply.Accepted(
            counters=views_pb2.RaceCounters(event_number=7, board=1)
        )
        return race_command_pb2.RaceCommandReply(accepted=accepted)


@pytest.fixture
async def referee(nc: Client) -> ScriptedReferee:
    return await ScriptedReferee(nc).start()


async def create(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    visibility: int = OPEN,
    seats: int = 2,
    name: str = "Ann",
) -> lobby_pb2.CreateTableResponse:
    request = lobby_pb2.CreateTableRequest(
        game_kind=RACE, seats=seats, visibility=visibility, display_name=name
    )
    response: lobby_pb2.CreateTableResponse = await tables.CreateTable(request, timeout=WAIT_S)
    return response


# --- the server itself ------------------------------------------------------------------------


async def test_health_is_serving_for_the_server_and_both_services(
    channel: grpc.aio.Channel,
) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    for service in ("", "match.v1.LobbyService", "match.v1.MatchRaceService"):
        answer = await stub.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING, service


async def test_reflection_lists_the_services(channel: grpc.aio.Channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)

    async def ask() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")

    names = set()
    async for answer in stub.ServerReflectionInfo(ask()):
        names |= {s.name for s in answer.list_services_response.service}
    assert {"match.v1.LobbyService", "match.v1.MatchRaceService"} <= names
    assert "grpc.health.v1.Health" in names


async def test_an_oversized_request_is_refused_and_the_lobby_goes_on(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    request = lobby_pb2.CreateTableRequest(display_name="x" * 100_000)  # > 64 KiB
    for _ in range(3):
        error = await status_of(tables.CreateTable(request))
        assert error.code() == StatusCode.RESOURCE_EXHAUSTED
    assert referee.table_commands == []
    made = await create(tables)  # the same connection, served as before
    assert made.seat == 1 and len(referee.table_commands) == 1


# --- tables -----------------------------------------------------------------------------------


async def test_create_table_forwards_resolved_settings_and_returns_a_seat(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = await create(tables, name="  Ann  ")
    assert len(made.table_id) == 16 and subjects.valid_table_id(made.table_id)
    assert made.seat == 1 and made.invite_code == ""
    claims = Tokens(SECRET, 60).verify(made.player_token)
    assert (claims.table, claims.player, claims.seat) == (made.table_id, made.player_id, 1)
    (command,) = referee.table_commands
    assert command.table_id == made.table_id and command.player_id == made.player_id
    assert command.request_id
    create_table = command.create_table
    assert create_table.display_name == "Ann"
    assert create_table.race.ready_window_ms == 30_000
    assert create_table.race.HasField("hints_per_board")
    assert create_table.race.hints_per_board == 3


async def test_open_tables_are_listed_newest_first_in_pages(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = [await create(tables, seats=3) for _ in range(3)]
    await create(tables, visibility=PRIVATE)
    full = await create(tables, seats=2)
    await tables.JoinTable(lobby_pb2.JoinTableRequest(table_id=full.table_id, display_name="B"))

    expected = [m.table_id for m in reversed(made)]
    for _ in range(50):  # the listing follows the log: give it a moment
        everything = await tables.ListTables(lobby_pb2.ListTablesRequest())
        if [t.table_id for t in everything.tables] == expected:
            break
        await asyncio.sleep(0.1)
    first = await tables.ListTables(lobby_pb2.ListTablesRequest(page_size=2))
    assert first.next_page_token == f"{first.tables[1].created_at_ms}.{first.tables[1].table_id}"
    listed = [t.table_id for t in first.tables]
    second = await tables.ListTables(
        lobby_pb2.ListTablesRequest(page_size=2, page_token=first.next_page_token)
    )
    listed += [t.table_id for t in second.tables]
    assert listed == expected
    assert second.next_page_token == ""
    assert all(t.status == lobby_pb2.Table.STATUS_WAITING for t in first.tables)
    assert first.tables[0].taken[0].display_name == "Ann"
    assert first.tables[0].commitment == COMMITMENT

    for bad in ("x", "2", "12.UPPER0CASE", "12.short", "1234567890123456.0123456789abcdef"):
        error = await status_of(tables.ListTables(lobby_pb2.ListTablesRequest(page_token=bad)))
        assert error.code() == StatusCode.INVALID_ARGUMENT, bad


async def test_a_private_table_is_joined_by_its_invite_code_and_shown_to_its_players(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = await create(tables, visibility=PRIVATE, seats=3)
    code = made.invite_code
    assert len(code) == 12 and code.isalnum() and code.upper() == code

    typed = f"{code[:4].lower()}-{code[4:].lower()}"
    joined = await tables.JoinTable(
        lobby_pb2.JoinTableRequest(invite_code=typed, display_name="Bob")
    )
    assert (joined.table_id, joined.seat) == (made.table_id, 2)
    assert referee.table_commands[-1].join_table.invite_code == code

    get = lobby_pb2.GetTableRequest(table_id=made.table_id)
    error = await status_of(tables.GetTable(get))
    assert error.code() == StatusCode.UNAUTHENTICATED
    other = await create(tables)
    error = await status_of(tables.GetTable(get, metadata=bearer(other.player_token)))
    assert error.code() == StatusCode.PERMISSION_DENIED
    seen = await tables.GetTable(get, metadata=bearer(joined.player_token))
    assert seen.table.invite_code == code
    assert [s.display_name for s in seen.table.taken] == ["Ann", "Bob"]

    error = await status_of(
        tables.JoinTable(lobby_pb2.JoinTableRequest(invite_code="ZZZZZZZZ", display_name="C"))
    )
    assert error.code() == StatusCode.NOT_FOUND
    error = await status_of(
        tables.JoinTable(lobby_pb2.JoinTableRequest(invite_code="0OIL", display_name="C"))
    )
    assert error.code() == StatusCode.INVALID_ARGUMENT


async def test_get_table_of_an_open_table_needs_no_token(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = await create(tables)
    seen = await tables.GetTable(lobby_pb2.GetTableRequest(table_id=made.table_id))
    assert seen.table.table_id == made.table_id
    assert seen.table.race.ready_window_ms == 30_000
    error = await status_of(tables.GetTable(lobby_pb2.GetTableRequest(table_id="0123456789abcdef")))
    assert error.code() == StatusCode.NOT_FOUND
    assert "0123456789abcdef" in error.details()


async def test_a_bot_joins_only_with_the_bot_key(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = await create(tables, seats=3)
    join = lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Robo")
    await tables.JoinTable(join, metadata=(("x-match-bot-key", BOT_KEY),))
    assert referee.table_commands[-1].join_table.is_bot
    await tables.JoinTable(join)
    assert not referee.table_commands[-1].join_table.is_bot
    error = await status_of(tables.JoinTable(join, metadata=(("x-match-bot-key", "guess"),)))
    assert error.code() == StatusCode.PERMISSION_DENIED
    assert len(referee.table_commands) == 3


async def test_a_player_who_left_cannot_use_their_token(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables, seats=3)
    joined = await tables.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
    )
    leave = lobby_pb2.LeaveTableRequest(table_id=made.table_id)
    await tables.LeaveTable(leave, metadata=bearer(joined.player_token))
    assert referee.table_commands[-1].player_id == joined.player_id
    for _ in range(50):
        seen = await tables.GetTable(lobby_pb2.GetTableRequest(table_id=made.table_id))
        if len(seen.table.taken) == 1:
            break
        await asyncio.sleep(0.1)
    ready = race_service_pb2.PressReadyRequest(table_id=made.table_id)
    error = await status_of(race.PressReady(ready, metadata=bearer(joined.player_token)))
    assert error.code() == StatusCode.UNAUTHENTICATED and "left" in error.details()


async def test_start_table_returns_the_table(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = await create(tables, seats=4)
    started = await tables.StartTable(
        lobby_pb2.StartTableRequest(table_id=made.table_id), metadata=bearer(made.player_token)
    )
    assert referee.table_commands[-1].HasField("start_table")
    assert started.table.table_id == made.table_id
    assert started.table.fill_at_ms == referee.tables[made.table_id].at


# --- tokens -----------------------------------------------------------------------------------


async def test_tokens_are_checked(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables)
    other = await create(tables)
    ready = race_service_pb2.PressReadyRequest(table_id=made.table_id)

    error = await status_of(race.PressReady(ready))
    assert error.code() == StatusCode.UNAUTHENTICATED and "authorization" in error.details()
    error = await status_of(race.PressReady(ready, metadata=bearer("not.a-token")))
    assert error.code() == StatusCode.UNAUTHENTICATED
    error = await status_of(race.PressReady(ready, metadata=(("authorization", "Basic abc"),)))
    assert error.code() == StatusCode.UNAUTHENTICATED
    forged = Tokens(b"another secret, not the lobby's", 60).issue(made.table_id, "mallory", 1)
    error = await status_of(race.PressReady(ready, metadata=bearer(forged)))
    assert error.code() == StatusCode.UNAUTHENTICATED
    expired = Tokens(SECRET, 60, clock=lambda: time.time() - 3600).issue(
        made.table_id, made.player_id, 1
    )
    error = await status_of(race.PressReady(ready, metadata=bearer(expired)))
    assert error.code() == StatusCode.UNAUTHENTICATED and "expired" in error.details()
    error = await status_of(race.PressReady(ready, metadata=bearer(other.player_token)))
    assert error.code() == StatusCode.PERMISSION_DENIED

    assert referee.race_commands == []
    await race.PressReady(ready, metadata=bearer(made.player_token))
    assert referee.race_commands[-1].player_id == made.player_id


async def test_a_token_acts_only_at_its_own_table_everything_else_is_permission_denied(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    """A token names its table and seat; a request names only a table (the player is the
    token's). So the only way to act for another seat is another table's token: refused as
    PERMISSION_DENIED (the token is good, it is not good here), never forwarded."""
    a = await create(tables, visibility=PRIVATE, seats=3)
    b = await create(tables, seats=3)
    forwarded = len(referee.table_commands)
    t = b.table_id
    wrong = bearer(a.player_token)
    sent = {
        "LeaveTable": tables.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=t), metadata=wrong),
        "StartTable": tables.StartTable(lobby_pb2.StartTableRequest(table_id=t), metadata=wrong),
        "PressReady": race.PressReady(
            race_service_pb2.PressReadyRequest(table_id=t), metadata=wrong
        ),
        "TurnTile": race.TurnTile(
            race_service_pb2.TurnTileRequest(table_id=t, tile=1), metadata=wrong
        ),
        "Resign": race.Resign(race_service_pb2.ResignRequest(table_id=t), metadata=wrong),
        "RequestHint": race.RequestHint(
            race_service_pb2.RequestHintRequest(table_id=t), metadata=wrong
        ),
    }
    for name, call in sent.items():
        error = await status_of(call)
        assert error.code() == StatusCode.PERMISSION_DENIED, name
        assert "for another table" in error.details() and t in error.details(), name
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await read(watch(race, t, a.player_token))
    assert caught.value.code() == StatusCode.PERMISSION_DENIED
    error = await status_of(
        tables.GetTable(
            lobby_pb2.GetTableRequest(table_id=a.table_id), metadata=bearer(b.player_token)
        )
    )
    assert error.code() == StatusCode.PERMISSION_DENIED and "another table" in error.details()
    assert len(referee.table_commands) == forwarded and referee.race_commands == []


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"seats": 5}, "seats must be 2 to 4"),
        ({"seats": 1}, "seats must be 2 to 4"),
        ({"display_name": ""}, "display_name must be 1 to 32"),
        ({"display_name": "x" * 33}, "display_name must be 1 to 32"),
        ({"display_name": "tab\there"}, "invisible, blank or control"),
        ({"visibility": common_pb2.VISIBILITY_UNSPECIFIED}, "visibility"),
        ({"game_kind": common_pb2.GAME_KIND_UNSPECIFIED}, "game_kind"),
        ({"race": race_pb2.RaceSettings(ready_window_ms=5000)}, "ready_window_ms"),
        ({"race": race_pb2.RaceSettings(ready_window_ms=120_001)}, "ready_window_ms"),
        ({"race": race_pb2.RaceSettings(hints_per_board=11)}, "hints_per_board"),
    ],
)
async def test_a_bad_create_table_is_invalid_argument(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    referee: ScriptedReferee,
    change: dict[str, object],
    words: str,
) -> None:
    fields: dict[str, object] = {
        "game_kind": RACE,
        "seats": 2,
        "visibility": OPEN,
        "display_name": "Ann",
        **change,
    }
    error = await status_of(tables.CreateTable(lobby_pb2.CreateTableRequest(**fields)))
    assert error.code() == StatusCode.INVALID_ARGUMENT
    assert words in error.details()
    assert referee.table_commands == []


async def test_a_game_not_played_here_is_invalid_argument_naming_the_kinds(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    # Every kind the contract names is played here now (Match Cards the third): a kind number
    # from a newer contract stands for the game this lobby does not host.
    request = lobby_pb2.CreateTableRequest(game_kind=99, seats=2, visibility=OPEN, display_name="A")
    error = await status_of(tables.CreateTable(request))
    assert error.code() == StatusCode.INVALID_ARGUMENT
    assert "is not played here" in error.details()
    assert "GAME_KIND_MATCH_RACE" in error.details()
    assert "GAME_KIND_CONCENTRATION" in error.details()
    assert "GAME_KIND_MATCH_CARDS" in error.details()
    assert referee.table_commands == []


async def test_a_tile_outside_1_to_20_is_invalid_argument(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables)
    for tile in (0, 21):
        turn = race_service_pb2.TurnTileRequest(table_id=made.table_id, tile=tile)
        error = await status_of(race.TurnTile(turn, metadata=bearer(made.player_token)))
        assert error.code() == StatusCode.INVALID_ARGUMENT
        assert error.details() == f"tiles are numbered 1 to 20, got {tile}"
        assert trailer(error, "match-refusal-code") == "tile_out_of_range"  # as the referee says
    bad_id = race_service_pb2.TurnTileRequest(table_id="NOT.A>TABLE", tile=1)
    error = await status_of(race.TurnTile(bad_id, metadata=bearer(made.player_token)))
    assert error.code() == StatusCode.INVALID_ARGUMENT
    assert referee.race_commands == []


# --- forwarding and refusals ------------------------------------------------------------------


async def test_a_command_carries_the_player_and_request_id_and_returns_the_reply(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables)
    own = to_proto(ev.TileTurned(at=5, board=1, player=made.player_id, tile=4, symbol=9, turn=1))
    referee.race_accepted = race_command_pb2.RaceCommandReply.Accepted(
        events=[common_pb2.EventEnvelope(table_id=made.table_id, event_number=8, race=own)],
        counters=views_pb2.RaceCounters(event_number=8, board=1, turns=1),
    )
    turn = race_service_pb2.TurnTileRequest(table_id=made.table_id, tile=4)
    answer = await race.TurnTile(
        turn, metadata=bearer(made.player_token, **{"x-request-id": "retry-me-0123456789"})
    )
    (command,) = referee.race_commands
    assert command.table_id == made.table_id and command.player_id == made.player_id
    assert command.request_id == "retry-me-0123456789" and command.turn_tile.tile == 4
    assert answer.events[0].race.tile_turned.symbol == 9
    assert answer.counters.turns == 1

    for call in (race.PressReady, race.Resign, race.RequestHint):
        request_type = {
            race.PressReady: race_service_pb2.PressReadyRequest,
            race.Resign: race_service_pb2.ResignRequest,
            race.RequestHint: race_service_pb2.RequestHintRequest,
        }[call]
        await call(request_type(table_id=made.table_id), metadata=bearer(made.player_token))
    assert [c.WhichOneof("command") for c in referee.race_commands] == [
        "turn_tile",
        "press_ready",
        "resign",
        "request_hint",
    ]
    assert len({c.request_id for c in referee.race_commands}) == 4


async def test_a_reply_holding_another_players_face_is_not_forwarded(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables)
    theirs = to_proto(ev.TileTurned(at=5, board=1, player="someone", tile=4, symbol=9, turn=1))
    referee.race_accepted = race_command_pb2.RaceCommandReply.Accepted(
        events=[common_pb2.EventEnvelope(table_id=made.table_id, event_number=8, race=theirs)]
    )
    turn = race_service_pb2.TurnTileRequest(table_id=made.table_id, tile=4)
    error = await status_of(race.TurnTile(turn, metadata=bearer(made.player_token)))
    assert error.code() == StatusCode.INTERNAL
    assert "9" not in error.details() and "Traceback" not in error.details()


@pytest.mark.parametrize(
    ("category", "status"),
    [
        (Refusal.CATEGORY_FAILED_PRECONDITION, StatusCode.FAILED_PRECONDITION),
        (Refusal.CATEGORY_INVALID_ARGUMENT, StatusCode.INVALID_ARGUMENT),
        (Refusal.CATEGORY_PERMISSION_DENIED, StatusCode.PERMISSION_DENIED),
        (Refusal.CATEGORY_RESOURCE_EXHAUSTED, StatusCode.RESOURCE_EXHAUSTED),
        (Refusal.CATEGORY_NOT_FOUND, StatusCode.NOT_FOUND),
        (Refusal.CATEGORY_UNAVAILABLE, StatusCode.UNAVAILABLE),
        (Refusal.CATEGORY_UNSPECIFIED, StatusCode.FAILED_PRECONDITION),
    ],
)
async def test_a_refusal_becomes_its_categorys_status_with_message_and_code(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
    category: int,
    status: grpc.StatusCode,
) -> None:
    made = await create(tables)
    referee.refusal = Refusal(code="some_slug", message="Do this instead.", category=category)
    turn = race_service_pb2.TurnTileRequest(table_id=made.table_id, tile=3)
    error = await status_of(race.TurnTile(turn, metadata=bearer(made.player_token)))
    assert (error.code(), error.details()) == (status, "Do this instead.")
    assert trailer(error, "match-refusal-code") == "some_slug"

    join = lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
    error = await status_of(tables.JoinTable(join))
    assert (error.code(), error.details()) == (status, "Do this instead.")
    assert trailer(error, "match-refusal-code") == "some_slug"


@pytest.mark.parametrize("lobby_env", [{"LOBBY_REFEREE_WAIT_S": "1.5"}])
async def test_no_referee_is_unavailable_after_the_wait(
    tables: lobby_pb2_grpc.LobbyServiceStub,
) -> None:
    started = time.monotonic()
    error = await status_of(
        tables.CreateTable(
            lobby_pb2.CreateTableRequest(
                game_kind=RACE, seats=2, visibility=OPEN, display_name="Ann"
            )
        )
    )
    assert error.code() == StatusCode.UNAVAILABLE
    assert error.details() == "the referee is not answering; try again"
    assert 1.5 <= time.monotonic() - started < 5


async def test_a_referee_that_comes_up_seconds_later_still_answers(
    tables: lobby_pb2_grpc.LobbyServiceStub, nc: Client
) -> None:
    call = create(tables)
    late = asyncio.create_task(call)
    # "No responders" meanwhile (a referee failover takes up to ~5 s): nobody got the command,
    # so the lobby asks again, by default for up to 10 s.
    await asyncio.sleep(2.5)
    assert not late.done()
    referee = await ScriptedReferee(nc).start()
    made = await late
    assert [c.player_id for c in referee.table_commands] == [made.player_id]


@pytest.mark.parametrize("lobby_env", [{"LOBBY_REFEREE_TIMEOUT_S": "1"}])
async def test_a_lost_answer_is_unavailable_and_a_retry_with_the_same_id_gets_it(
    lobby: Lobby,
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables)
    turn = race_service_pb2.TurnTileRequest(table_id=made.table_id, tile=4)
    referee.lose_answers = True  # the referee applies the turn; its answer is lost
    error = await status_of(race.TurnTile(turn, metadata=bearer(made.player_token)))
    assert error.code() == StatusCode.UNAVAILABLE
    assert "may have been applied" in error.details()
    assert "retry with the same x-request-id" in error.details()
    (lost,) = referee.race_commands
    # Without an x-request-id of its own, the caller learns the one the lobby made up.
    assert lost.request_id in error.details()
    assert trailer(error, "x-request-id") == lost.request_id

    referee.lose_answers = False
    retry = bearer(made.player_token, **{"x-request-id": lost.request_id})
    answer = await race.TurnTile(turn, metadata=retry)
    assert answer.counters.event_number == 7
    assert referee.race_commands == [lost]  # applied once; the retry got the first answer
    assert [c.request_id for c in referee.retries] == [lost.request_id]
    # The id gets a CreateTable's or JoinTable's seat on a retry: it is not written to the log.
    logged = lobby.log.read_text()
    assert "the caller may retry with the same x-request-id" in logged
    assert lost.request_id not in logged


# --- partitions and request ids ---------------------------------------------------------------


def request_id() -> tuple[tuple[str, str], ...]:
    return (("x-request-id", uuid.uuid4().hex),)


async def test_commands_go_to_their_tables_partition(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = [await create(tables) for _ in range(6)]
    for m in made:
        await race.PressReady(
            race_service_pb2.PressReadyRequest(table_id=m.table_id),
            metadata=bearer(m.player_token),
        )
    expected = [subjects.referee_table(m.table_id) for m in made]
    expected += [subjects.referee_race(m.table_id) for m in made]
    assert referee.subjects == expected
    assert all(s.startswith("match.referee.p") for s in expected)
    assert len({subjects.partition_of(m.table_id) for m in made}) > 1  # 16**-5 to fail


async def test_a_create_table_retried_with_its_request_id_gets_the_same_table_and_code(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    request = lobby_pb2.CreateTableRequest(
        game_kind=RACE, seats=2, visibility=PRIVATE, display_name="Ann"
    )
    key = "5e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b"
    once = (*request_id(), ("x-client-key", key))
    first = await tables.CreateTable(request, metadata=once)
    again = await tables.CreateTable(request, metadata=once)  # a retry: maybe another lobby
    assert (again.table_id, again.player_id, again.seat) == (first.table_id, first.player_id, 1)
    # The second attempt drew its own invite code, but the table has the first one.
    (retried,) = referee.retries
    assert isinstance(retried, referee_pb2.TableCommand)
    assert (retried.table_id, retried.player_id) == (first.table_id, first.player_id)
    assert retried.create_table.invite_code != first.invite_code
    assert again.invite_code == first.invite_code
    assert Tokens(SECRET, 60).verify(again.player_token).player == first.player_id
    assert len(referee.table_commands) == 1

    # The ids are keyed hashes of the caller and the request id: every lobby with the secret
    # agrees, for the same caller only.
    rid, me = once[0][1], f"key:{key}"
    mac = hmac.new(SECRET, f"table-id\0{me}\0{rid}".encode(), hashlib.sha256).hexdigest()
    assert first.table_id == mac[:16]
    mac = hmac.new(
        SECRET, f"player-id\0{first.table_id}\0{me}\0{rid}".encode(), hashlib.sha256
    ).hexdigest()
    assert first.player_id == mac[:16]
    # The same request id without the key (this connection is the caller) is another table.
    replayed = await tables.CreateTable(request, metadata=once[:1])
    assert replayed.table_id != first.table_id and replayed.invite_code != first.invite_code

    other = await tables.CreateTable(request, metadata=request_id())
    assert other.table_id != first.table_id and other.invite_code != first.invite_code


async def test_without_a_request_id_every_create_table_is_a_new_table(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    first, second = await create(tables), await create(tables)
    assert first.table_id != second.table_id and first.player_id != second.player_id
    assert referee.retries == [] and len(referee.table_commands) == 2


async def test_a_join_table_retried_with_its_request_id_gets_the_same_seat(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = await create(tables, seats=4)
    join = lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
    once = request_id()
    first = await tables.JoinTable(join, metadata=once)
    again = await tables.JoinTable(join, metadata=once)
    assert first.seat == 2 and (again.player_id, again.seat) == (first.player_id, 2)
    (retried,) = referee.retries
    assert retried.player_id == first.player_id
    other = await tables.JoinTable(join, metadata=request_id())
    assert other.player_id != first.player_id and other.seat == 3


@pytest.mark.parametrize(
    "bad", ["ann-1", "x" * 15, "x" * 65, "sixteen chars ok", "sixteen/chars/ok"]
)
async def test_a_short_or_malformed_request_id_is_invalid_argument(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
    bad: str,
) -> None:
    made = await create(tables)
    md = (("x-request-id", bad),)
    create_request = lobby_pb2.CreateTableRequest(
        game_kind=RACE, seats=2, visibility=OPEN, display_name="Ann"
    )
    for call in (
        tables.CreateTable(create_request, metadata=md),
        tables.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob"), metadata=md
        ),
        race.PressReady(
            race_service_pb2.PressReadyRequest(table_id=made.table_id),
            metadata=bearer(made.player_token, **dict(md)),
        ),
    ):
        error = await status_of(call)
        assert error.code() == StatusCode.INVALID_ARGUMENT
        assert "x-request-id must be 16 to 64" in error.details()
        assert "uuid4" in error.details()
    assert len(referee.table_commands) == 1 and referee.race_commands == []
    await tables.CreateTable(create_request, metadata=(("x-request-id", "x7k2p9q4m1z8r3v6"),))


# --- rate limits ------------------------------------------------------------------------------

METRICS_PORT = free_port()


def limited_count(kind: str) -> float:
    """match_lobby_rate_limited_total{kind} from the lobby's /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{METRICS_PORT}/metrics", timeout=5) as page:
        text = page.read().decode()
    for line in text.splitlines():
        if line.startswith(f'match_lobby_rate_limited_total{{kind="{kind}"}}'):
            return float(line.split()[-1])
    return 0.0


def retry_after(error: grpc.aio.AioRpcError) -> int:
    value = retry_after_ms(error)
    assert value is not None, error.trailing_metadata()
    return value


# A token every 5 s, 3 at once: nothing on this machine stalls long enough to refill one.
@pytest.mark.parametrize(
    "lobby_env",
    [{"LOBBY_RATE_PLAYER": "0.2", "LOBBY_BURST_PLAYER": "3", "METRICS_PORT": str(METRICS_PORT)}],
)
async def test_a_player_over_the_limit_is_told_to_wait_and_nothing_reaches_the_referee(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    ann = await create(tables, name="Ann")  # no token yet: only the connection is counted
    bob = await tables.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=ann.table_id, display_name="Bob")
    )
    other = await create(tables, name="Cat")
    ready = race_service_pb2.PressReadyRequest(table_id=ann.table_id)
    began = time.monotonic()  # the bucket refills from Ann's first call: 5 s for a token
    stream = watch(race, ann.table_id, ann.player_token)  # a Watch counts once, when it opens
    assert [kind(e) for e in await events(stream, 4)] == [
        "table_created",
        "seed_committed",
        "player_seated",
        "player_seated",
    ]
    for _ in range(2):
        await race.PressReady(ready, metadata=bearer(ann.player_token))
    assert len(referee.race_commands) == 2

    error = await status_of(race.PressReady(ready, metadata=bearer(ann.player_token)))
    assert error.code() == StatusCode.RESOURCE_EXHAUSTED
    wait = retry_after(error)
    assert 5000 - (time.monotonic() - began) * 1000 - 100 < wait <= 5000  # however slow it was
    assert error.details() == f"too many requests from this player: wait {wait} ms and try again"
    error = await status_of(
        race.TurnTile(
            race_service_pb2.TurnTileRequest(table_id=ann.table_id, tile=3),
            metadata=bearer(ann.player_token),
        )
    )
    assert error.code() == StatusCode.RESOURCE_EXHAUSTED and retry_after(error) <= wait
    error = await status_of(  # every call that shows Ann's token counts
        tables.GetTable(
            lobby_pb2.GetTableRequest(table_id=ann.table_id), metadata=bearer(ann.player_token)
        )
    )
    assert error.code() == StatusCode.RESOURCE_EXHAUSTED
    assert len(referee.race_commands) == 2  # nothing was forwarded: nothing changed
    assert await asyncio.to_thread(limited_count, "player") == 3

    # Ann's open Watch goes on; Bob at her table and Cat at another are not held back.
    await race.PressReady(ready, metadata=bearer(bob.player_token))
    await race.PressReady(
        race_service_pb2.PressReadyRequest(table_id=other.table_id),
        metadata=bearer(other.player_token),
    )
    assert [c.player_id for c in referee.race_commands[2:]] == [bob.player_id, other.player_id]
    seated = common_pb2.TableEvent(fill_requested=common_pb2.TableEvent.FillRequested())
    (appended,) = await referee.append(ann.table_id, [seated])
    (seen,) = await events(stream, 1)
    assert seen.event_number == appended.event_number
    stream.cancel()
    # Without a token only the connection counts: ListTables is not Ann's.
    await tables.ListTables(lobby_pb2.ListTablesRequest())
    assert await asyncio.to_thread(limited_count, "address") == 0


# The lobby listens on both loopbacks: 127.0.0.1 and ::1 are two client addresses.
@pytest.mark.parametrize(
    "lobby_env", [{"LOBBY_RATE_ADDR": "0.2", "LOBBY_BURST_ADDR": "4", "LOBBY_ADDR": "[::]:{port}"}]
)
async def test_an_address_over_the_limit_is_told_to_wait_and_others_are_not(
    lobby: Lobby, tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee
) -> None:
    made = await create(tables)  # 1
    for _ in range(3):  # 2, 3, 4
        await tables.ListTables(lobby_pb2.ListTablesRequest())
    for call in (
        tables.ListTables(lobby_pb2.ListTablesRequest()),
        tables.GetTable(lobby_pb2.GetTableRequest(table_id=made.table_id)),
        tables.JoinTable(lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="B")),
    ):
        error = await status_of(call)
        assert error.code() == StatusCode.RESOURCE_EXHAUSTED
        assert "too many requests from this address: wait" in error.details()
        assert 0 < retry_after(error) <= 5000
    assert len(referee.table_commands) == 1  # the join was not forwarded
    # The bot service plays all its seats over one connection: its key exempts it (each seat
    # is still counted as a player); a wrong key does not.
    bot = (("x-match-bot-key", BOT_KEY),)
    await tables.ListTables(lobby_pb2.ListTablesRequest(), metadata=bot)
    error = await status_of(
        tables.ListTables(lobby_pb2.ListTablesRequest(), metadata=(("x-match-bot-key", "guess"),))
    )
    assert error.code() == StatusCode.RESOURCE_EXHAUSTED

    # A new connection from the same address shares its bucket: more connections buy nothing.
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with grpc.aio.insecure_channel(lobby.addr, options=options) as fresh:
        again = lobby_pb2_grpc.LobbyServiceStub(fresh)
        error = await status_of(again.ListTables(lobby_pb2.ListTablesRequest()))
        assert error.code() == StatusCode.RESOURCE_EXHAUSTED
    # Another address (::1 rather than 127.0.0.1) is not held back.
    port = lobby.addr.rsplit(":", 1)[1]
    async with grpc.aio.insecure_channel(f"[::1]:{port}", options=options) as elsewhere:
        other = lobby_pb2_grpc.LobbyServiceStub(elsewhere)
        joined = await other.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
        )
    assert joined.seat == 2 and len(referee.table_commands) == 2


# --- Watch ------------------------------------------------------------------------------------

FILLER = 501  # more events than the lobby replays to a viewer: they get a snapshot instead


@dataclass
class Seated:
    table_id: str
    ann: str
    ann_token: str
    bob: str
    bob_token: str
    game: Game
    playing_from: int  # the number of the last event before anybody turned a tile


async def seated_and_playing(
    tables: lobby_pb2_grpc.LobbyServiceStub, referee: ScriptedReferee, filler: int = 0
) -> Seated:
    """Ann and Bob at a table (events 1..4), ``filler`` harmless table events, then board 1
    under way (6 events); nobody has turned a tile yet."""
    made = await create(tables, name="Ann")
    joined = await tables.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
    )
    if filler:
        fill = common_pb2.TableEvent(fill_requested=common_pb2.TableEvent.FillRequested())
        await referee.append(made.table_id, [fill] * filler)
    game = Game.playing((made.player_id, joined.player_id))
    envelopes = await referee.append(made.table_id, list(game.log))
    return Seated(
        made.table_id,
        made.player_id,
        made.player_token,
        joined.player_id,
        joined.player_token,
        game,
        envelopes[-1].event_number,
    )


async def play(referee: ScriptedReferee, seated: Seated, command: cmd.Command) -> int:
    """Decide ``command`` with the rules, append its events; the number of the first one."""
    events = seated.game.when(command)
    envelopes = await referee.append(seated.table_id, list(events))
    return envelopes[0].event_number


def watch(
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    table_id: str,
    token: str,
    after: int = 0,
    batch: bool = False,
) -> grpc.aio.UnaryStreamCall:
    return race.Watch(
        race_service_pb2.WatchRequest(table_id=table_id, after_event_number=after, batch=batch),
        metadata=bearer(token),
    )


async def read(call: grpc.aio.UnaryStreamCall) -> race_service_pb2.WatchResponse:
    item = await asyncio.wait_for(call.read(), WAIT_S)
    assert item is not grpc.aio.EOF, "the stream ended"
    return item


async def events(call: grpc.aio.UnaryStreamCall, n: int) -> list[common_pb2.EventEnvelope]:
    out = []
    for _ in range(n):
        item = await read(call)
        assert item.WhichOneof("item") == "event", item
        out.append(item.event)
    return out


async def batches(call: grpc.aio.UnaryStreamCall, n: int) -> list[list[common_pb2.EventEnvelope]]:
    """Items of a batched Watch until they hold ``n`` events: each item's events."""
    out: list[list[common_pb2.EventEnvelope]] = []
    while sum(map(len, out)) < n:
        item = await read(call)
        assert item.WhichOneof("item") == "events", item
        out.append(list(item.events.events))
    assert sum(map(len, out)) == n
    return out


async def snapshot(call: grpc.aio.UnaryStreamCall) -> views_pb2.RaceView:
    item = await read(call)
    assert item.WhichOneof("item") == "snapshot", item
    return item.snapshot


def symbols_in(view: views_pb2.RaceView) -> dict[int, int]:
    return {t.tile: t.symbol for t in view.tiles if t.HasField("symbol")}


def kind(envelope: common_pb2.EventEnvelope) -> str:
    body = envelope.race if envelope.HasField("race") else envelope.table
    return body.WhichOneof("event") or ""


async def test_watch_sends_another_players_turn_as_opponent_moved_only(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    s = await seated_and_playing(tables, referee)
    t0 = s.game.t0
    bob = watch(race, s.table_id, s.bob_token, after=s.playing_from)
    ann = watch(race, s.table_id, s.ann_token, after=s.playing_from)

    first = await play(referee, s, cmd.TurnTile(t0 + 1000, s.ann, 1))
    await play(referee, s, cmd.TurnTile(t0 + 2000, s.ann, 2))  # the pair (1, 2), symbol 0

    seen_by_bob = await events(bob, 3)
    assert [e.event_number for e in seen_by_bob] == [first, first + 1, first + 2]
    assert [kind(e) for e in seen_by_bob] == ["opponent_moved"] * 3
    moved = [e.race.opponent_moved for e in seen_by_bob]
    assert [(m.player, m.board, m.turns, m.pairs) for m in moved] == [
        (s.ann, 1, 1, 0),
        (s.ann, 1, 2, 0),
        (s.ann, 1, 2, 1),
    ]
    assert all(e.table_id == s.table_id and e.server_time_ms for e in seen_by_bob)

    seen_by_ann = await events(ann, 3)
    assert [kind(e) for e in seen_by_ann] == ["tile_turned", "tile_turned", "pair_found"]
    assert seen_by_ann[0].race.tile_turned.symbol == 0
    assert list(seen_by_ann[2].race.pair_found.tiles) == [1, 2]
    bob.cancel()
    ann.cancel()


async def test_a_new_viewer_gets_the_tables_events_from_the_first_redacted(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    s = await seated_and_playing(tables, referee)
    turned = await play(referee, s, cmd.TurnTile(s.game.t0 + 1000, s.ann, 1))

    bob = watch(race, s.table_id, s.bob_token)  # after 0: nothing yet
    got = await events(bob, turned)
    assert [e.event_number for e in got] == list(range(1, turned + 1))
    assert [kind(e) for e in got[:4]] == [
        "table_created",
        "seed_committed",
        "player_seated",
        "player_seated",
    ]
    assert kind(got[4]) == "game_started"
    assert kind(got[-1]) == "opponent_moved"
    assert got[-1].race.opponent_moved.turns == 1
    bob.cancel()


async def test_watch_resumes_after_an_event_number_with_the_later_events_only(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    s = await seated_and_playing(tables, referee)
    t0 = s.game.t0
    turned = await play(referee, s, cmd.TurnTile(t0 + 1000, s.ann, 1))
    await play(referee, s, cmd.TurnTile(t0 + 1500, s.bob, 5))
    # a refused command is a record without events: nothing to send
    await referee.append(
        s.table_id,
        [],
        refusal=Refusal(code="paused", category=Refusal.CATEGORY_FAILED_PRECONDITION),
    )

    bob = watch(race, s.table_id, s.bob_token, after=turned - 1)
    resumed = await events(bob, 2)
    assert [e.event_number for e in resumed] == [turned, turned + 1]
    assert kind(resumed[0]) == "opponent_moved"
    assert resumed[1].race.tile_turned.player == s.bob
    assert resumed[1].race.tile_turned.symbol == 2  # board 1: tile t carries (t-1)//2

    live = await play(referee, s, cmd.TurnTile(t0 + 2500, s.ann, 2))
    more = await events(bob, 2)
    assert [e.event_number for e in more] == [live, live + 1]
    assert [kind(e) for e in more] == ["opponent_moved"] * 2
    bob.cancel()

    ahead = watch(race, s.table_id, s.bob_token, after=live + 100)  # it knows another history
    assert (await snapshot(ahead)).event_number == live + 1
    ahead.cancel()


async def test_a_batched_watch_sends_the_same_events_a_records_together(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    s = await seated_and_playing(tables, referee)
    t0 = s.game.t0
    for at, tile in ((1000, 1), (2000, 2), (3000, 3)):
        last = await play(referee, s, cmd.TurnTile(t0 + at, s.ann, tile))
    one_each = watch(race, s.table_id, s.bob_token)
    batched = watch(race, s.table_id, s.bob_token, batch=True)

    # The backlog: the same events, in the same order, in items of at most 64.
    plain = await events(one_each, last)
    backlog = await batches(batched, last)
    assert len(backlog) == -(-last // 64) and all(0 < len(b) <= 64 for b in backlog)
    wire = [e.SerializeToString() for e in plain]
    assert [e.SerializeToString() for b in backlog for e in b] == wire

    # Live: one item per record, holding all of that record's events.
    sizes = []
    for at, tile in ((4000, 5), (5000, 4)):  # a miss (3 and 5), then the next turn
        sent = await referee.append(
            s.table_id, list(s.game.when(cmd.TurnTile(t0 + at, s.ann, tile)))
        )
        (item,) = await batches(batched, len(sent))
        sizes.append(len(item))
        assert [e.event_number for e in item] == [e.event_number for e in sent]
        assert [kind(e) for e in item] == ["opponent_moved"] * len(sent)
        assert [e.SerializeToString() for e in await events(one_each, len(sent))] == [
            e.SerializeToString() for e in item
        ]
    assert max(sizes) > 1  # a record of several events came as one item
    one_each.cancel()
    batched.cancel()


async def test_a_snapshot_holds_no_face_of_another_player(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    s = await seated_and_playing(tables, referee, filler=FILLER)
    t0 = s.game.t0
    await play(referee, s, cmd.TurnTile(t0 + 1000, s.ann, 1))
    await play(referee, s, cmd.TurnTile(t0 + 1100, s.ann, 2))  # pair found, both up for good
    await play(referee, s, cmd.TurnTile(t0 + 1200, s.ann, 3))  # showing
    last = await play(referee, s, cmd.TurnTile(t0 + 1300, s.bob, 7))

    bob = watch(race, s.table_id, s.bob_token)
    bob_view = await snapshot(bob)
    assert bob_view.event_number == last
    assert bob_view.phase == views_pb2.RaceView.PHASE_PLAYING
    assert symbols_in(bob_view) == {7: 3}
    (ann_seen,) = bob_view.opponents
    assert (ann_seen.player, ann_seen.display_name, ann_seen.is_bot) == (s.ann, "Ann", False)
    assert [(p.board, p.pairs, p.turns) for p in ann_seen.boards] == [(1, 1, 3)]
    assert bob_view.commitment == COMMITMENT and not bob_view.HasField("seed")
    assert bob_view.deal_version == "match-deal-v1"
    assert bob_view.status == views_pb2.RaceView.STATUS_PLAYING
    assert bob_view.starts_at_ms == t0 and bob_view.ends_at_ms == t0 + 120_000

    ann_view = await snapshot(watch(race, s.table_id, s.ann_token))
    assert symbols_in(ann_view) == {1: 0, 2: 0, 3: 1}
    states = {t.tile: t.state for t in ann_view.tiles}
    assert states[1] == views_pb2.RaceView.TILE_STATE_FOUND
    assert states[3] == views_pb2.RaceView.TILE_STATE_SHOWING
    assert ann_view.turns == 3 and ann_view.pairs == 1

    live = await play(referee, s, cmd.TurnTile(t0 + 1400, s.ann, 4))  # ann misses: 3 and 4
    after_snapshot = await events(bob, 2)
    assert [e.event_number for e in after_snapshot] == [live, live + 1]
    assert [kind(e) for e in after_snapshot] == ["opponent_moved"] * 2
    bob.cancel()


async def test_a_snapshot_before_the_game_shows_the_seated_players(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables, seats=3)
    joined = await tables.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=made.table_id, display_name="Bob")
    )
    call = watch(race, made.table_id, made.player_token, after=1000)
    view = await snapshot(call)
    assert view.phase == views_pb2.RaceView.PHASE_WAITING_FOR_PLAYERS
    assert view.event_number == 4 and view.board == 0
    assert [(o.player, o.display_name) for o in view.opponents] == [(joined.player_id, "Bob")]
    assert symbols_in(view) == {} and len(view.tiles) == 20
    call.cancel()


async def test_watch_ends_once_the_game_is_over_and_its_seed_is_out(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    s = await seated_and_playing(tables, referee, filler=FILLER)
    t0 = s.game.t0
    await play(referee, s, cmd.TurnTile(t0 + 1000, s.ann, 1))
    bob = watch(race, s.table_id, s.bob_token, after=s.playing_from)
    await play(referee, s, cmd.Resign(t0 + 2000, s.ann))
    ended = await play(referee, s, cmd.Resign(t0 + 3000, s.bob))  # resigned, ended, revealed
    seed = bytes(range(32))
    Event = common_pb2.TableEvent
    revealed = Event(seed_revealed=Event.SeedRevealed(seed=seed, deal_version="match-deal-v1"))
    await referee.append(s.table_id, [revealed])

    got = await events(bob, 7)
    assert [kind(e) for e in got] == [
        "opponent_moved",
        "player_resigned",
        "player_resigned",
        "board_ended",
        "board_revealed",
        "game_ended",
        "seed_revealed",
    ]
    assert got[-1].event_number == ended + 4
    assert await asyncio.wait_for(bob.read(), WAIT_S) is grpc.aio.EOF
    assert await bob.code() == StatusCode.OK

    after_the_end = watch(race, s.table_id, s.ann_token)
    view = await snapshot(after_the_end)
    assert view.phase == views_pb2.RaceView.PHASE_GAME_OVER
    assert view.seed == seed
    assert [r.board for r in view.revealed] == [1]
    assert len(view.revealed[0].layout) == 20 and len(view.revealed[0].results) == 2
    assert [st.player for st in view.standings] == [s.ann, s.bob]
    assert await asyncio.wait_for(after_the_end.read(), WAIT_S) is grpc.aio.EOF


async def test_watch_needs_a_token_for_that_table(
    tables: lobby_pb2_grpc.LobbyServiceStub,
    race: race_service_pb2_grpc.MatchRaceServiceStub,
    referee: ScriptedReferee,
) -> None:
    made = await create(tables)
    other = await create(tables)
    call = watch(race, made.table_id, other.player_token)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await read(call)
    assert caught.value.code() == StatusCode.PERMISSION_DENIED
    call = race.Watch(race_service_pb2.WatchRequest(table_id=made.table_id))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await read(call)
    assert caught.value.code() == StatusCode.UNAUTHENTICATED
