"""The player's key on the client: kept owner-only in the config directory, never used loose
nor replaced when broken, exported on request; signing in with it (the lobby faked), the
session sent with a create or a join and renewed before it runs out; and the key's seats found
first by ``--resume``."""

from __future__ import annotations

import asyncio
import io
import os
import stat
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from match.v1 import (
    concentration_pb2,
    lobby_pb2,
    match_cards_pb2,
    match_five_pb2,
    number_match_pb2,
    players_pb2,
)
from match_client import cli, identity
from match_client.client import MatchClient, Metadata, Seat
from match_client.programs import runnable
from match_client.seats import KeptTokens, KeyedSeats, SeatStore, resume_finders
from match_players.identity import player_id

# --- the key file ----------------------------------------------------------------------------


def test_the_config_directory_env_then_xdg_then_home() -> None:
    env = {"MATCH_CONFIG_DIR": "/a", "XDG_CONFIG_HOME": "/b", "HOME": "/c"}
    assert identity.config_dir(env) == Path("/a")
    assert identity.config_dir({"XDG_CONFIG_HOME": "/b", "HOME": "/c"}) == Path("/b/match")
    assert identity.config_dir({"HOME": "/c"}) == Path("/c/.config/match")


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The loosest umask: whatever is made is as open as the code asks."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_a_key_is_made_once_owner_only_and_is_the_same_player_after(
    tmp_path: Path, open_umask: None
) -> None:
    directory = tmp_path / "config" / "match"
    key, made = identity.load_or_create(directory)
    assert made
    assert key.path == directory / "key.pem"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(key.path.stat().st_mode) == 0o600
    text = key.path.read_bytes()
    assert text.startswith(b"-----BEGIN PRIVATE KEY-----\n")  # PKCS#8, unencrypted
    loaded = serialization.load_pem_private_key(text, password=None)
    assert isinstance(loaded, Ed25519PrivateKey)
    assert key.player_id == player_id(key.public)
    assert key.player_id.startswith("k") and len(key.player_id) == 24
    assert [p.name for p in directory.iterdir()] == ["key.pem"]  # no temporary file left

    again, made_again = identity.load_or_create(directory)
    assert not made_again and again.player_id == key.player_id
    assert key.path.read_bytes() == text


def test_a_loose_directory_is_closed_when_the_key_is_made(tmp_path: Path) -> None:
    directory = tmp_path / "match"
    directory.mkdir()
    directory.chmod(0o755)
    identity.load_or_create(directory)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_file_others_may_read_is_refused_with_the_fix(tmp_path: Path, mode: int) -> None:
    key, _ = identity.load_or_create(tmp_path)
    key.path.chmod(mode)
    before = key.path.read_bytes()
    with pytest.raises(identity.KeyFileError) as refused:
        identity.load_or_create(tmp_path)
    assert f"chmod 600 {key.path}" in str(refused.value)
    assert f"mode {mode:04o}" in str(refused.value)
    assert key.path.read_bytes() == before and stat.S_IMODE(key.path.stat().st_mode) == mode
    key.path.chmod(0o600)
    assert identity.load_or_create(tmp_path)[0].player_id == key.player_id


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a key at all\n",
        b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    ],
    ids=["empty", "text", "garbled", "not-ed25519"],
)
def test_a_broken_key_file_is_an_error_and_never_replaced(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "key.pem"
    path.write_bytes(content)
    path.chmod(0o600)
    with pytest.raises(identity.KeyFileError) as broken:
        identity.load_or_create(tmp_path)
    message = str(broken.value)
    assert f"the key file {path} is not a usable key" in message
    assert "It is left as it is" in message and f"({runnable('match')} key export)" in message
    assert path.read_bytes() == content  # not replaced: it may be the only copy


def test_a_dangling_link_where_the_key_was_is_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "key.pem"
    path.symlink_to(tmp_path / "elsewhere.pem")
    with pytest.raises(identity.KeyFileError, match="no key in"):
        identity.load_or_create(tmp_path)
    assert path.is_symlink() and not (tmp_path / "elsewhere.pem").exists()


def test_export_writes_a_new_owner_only_file_or_stdout(tmp_path: Path, open_umask: None) -> None:
    key, _ = identity.load_or_create(tmp_path / "config")
    out = tmp_path / "backup.pem"
    identity.export(key, out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert identity.load(out).player_id == key.player_id
    with pytest.raises(identity.KeyFileError, match="exists: it is not replaced"):
        identity.export(key, out)
    with pytest.raises(identity.KeyFileError, match="the key file itself"):
        identity.export(key, key.path)
    buffer = io.BytesIO()
    identity.export(key, None, buffer)
    assert buffer.getvalue() == key.path.read_bytes()


def key_args(*argv: str) -> Any:
    return cli.build_parser().parse_args(["key", *argv])


def test_match_key_show_and_export(tmp_path: Path) -> None:
    settings = cli.Settings.from_env({"MATCH_CONFIG_DIR": str(tmp_path / "config")})
    said: list[str] = []
    assert cli.key_command(key_args("show"), settings, said.append) == 1
    assert said == [
        f"no player key yet (in {tmp_path / 'config' / 'key.pem'}): `{runnable('match')} play` "
        "makes one the first time"
    ]
    assert not (tmp_path / "config").exists()  # show and export make no key

    key, _ = identity.load_or_create(tmp_path / "config")
    said.clear()
    assert cli.key_command(key_args("show"), settings, said.append) == 0
    assert said == [
        f"player {key.player_id}",
        f"key: {key.path} (keep a copy: {runnable('match')} key export --out FILE)",
    ]
    said.clear()
    buffer = io.BytesIO()
    assert cli.key_command(key_args("export"), settings, said.append, buffer) == 0
    assert buffer.getvalue() == key.path.read_bytes() and said == []
    out = tmp_path / "backup.pem"
    assert cli.key_command(key_args("export", "--out", str(out)), settings, said.append) == 0
    assert said[0].startswith(f"your key is in {out} (owner-only). Keep it safe")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    said.clear()
    assert cli.key_command(key_args("export", "--out", str(out)), settings, said.append) == 1
    assert said == [f"error: {out} exists: it is not replaced; give another file"]

    key.path.chmod(0o644)
    said.clear()
    assert cli.key_command(key_args("show"), settings, said.append) == 1
    assert said[0].startswith("error: the key file") and said[0].endswith(f"chmod 600 {key.path}")


def test_play_makes_the_key_with_a_note_where_it_is(tmp_path: Path) -> None:
    settings = cli.Settings.from_env({"MATCH_CONFIG_DIR": str(tmp_path / "config")})
    said: list[str] = []
    key = cli.user_key(settings, said.append)
    assert key is not None
    assert said == [
        f"you are player {key.player_id}: your key is {key.path}; it is the only proof, keep a "
        f"copy ({runnable('match')} key export)"
    ]
    said.clear()
    again = cli.user_key(settings, said.append)
    assert again is not None and again.player_id == key.player_id and said == []


def test_the_commands_parse() -> None:
    parser = cli.build_parser()
    a = parser.parse_args(["play", "--resume", "--anonymous"])
    assert (a.resume, a.anonymous) == ("", True)
    assert parser.parse_args(["watch"]).anonymous is False
    p = parser.parse_args(["profile"])
    assert (p.command, p.player_id) == ("profile", None)
    assert parser.parse_args(["profile", "k" + "0" * 23]).player_id == "k" + "0" * 23
    b = parser.parse_args(["leaderboard", "--game", "number-match", "--board", "level-3"])
    assert (b.game, b.board, b.page) == ("number-match", "level-3", 1)
    assert parser.parse_args(["leaderboard", "--game", "race", "--page", "2"]).page == 2
    with pytest.raises(SystemExit):
        parser.parse_args(["leaderboard"])  # --game is required
    with pytest.raises(SystemExit):
        parser.parse_args(["leaderboard", "--game", "chess"])
    assert parser.parse_args(["key", "export", "--out", "f"]).out == "f"


# --- signing in, against a faked lobby -------------------------------------------------------


def unauthenticated(details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(
        grpc.StatusCode.UNAUTHENTICATED, grpc.aio.Metadata(), grpc.aio.Metadata(), details
    )


class FakeLobby:
    """GetChallenge, SignIn, CreateTable and JoinTable as the lobby answers them, keeping what
    each call was sent."""

    def __init__(self, now_ms: Callable[[], int]) -> None:
        self.now_ms = now_ms
        self.sessions = 0
        self.signed: list[tuple[bytes, bytes, bytes]] = []  # (public key, message, signature)
        self.calls: list[tuple[str, dict[str, str]]] = []
        self.refuse_next = False

    def install(self, client: MatchClient) -> None:
        client._challenge = self.challenge  # type: ignore[assignment]
        client._sign_in = self.sign_in  # type: ignore[assignment]
        client._create = self.create  # type: ignore[assignment]
        client._join = self.join  # type: ignore[assignment]

    async def challenge(
        self, request: players_pb2.GetChallengeRequest, *, timeout: float, metadata: Metadata
    ) -> players_pb2.GetChallengeResponse:
        return players_pb2.GetChallengeResponse(
            challenge=f"c1.challenge-{len(self.signed) + 1}",
            expires_at_ms=self.now_ms() + 60_000,
            player_id=player_id(request.public_key),
        )

    async def sign_in(
        self, request: players_pb2.SignInRequest, *, timeout: float, metadata: Metadata
    ) -> players_pb2.SignInResponse:
        message = b"match-sign-in-v1\n" + request.challenge.encode()
        Ed25519PublicKey.from_public_bytes(request.public_key).verify(request.signature, message)
        self.signed.append((request.public_key, message, request.signature))
        self.sessions += 1
        return players_pb2.SignInResponse(
            player_id=player_id(request.public_key),
            session_token=f"session-{self.sessions}",
            expires_at_ms=self.now_ms() + 3_600_000,
        )

    def _seen(self, name: str, metadata: Metadata) -> dict[str, str]:
        md = dict(metadata)
        self.calls.append((name, md))
        if self.refuse_next:
            self.refuse_next = False
            raise unauthenticated("the session expired: sign in again")
        return md

    async def create(
        self, request: lobby_pb2.CreateTableRequest, *, timeout: float, metadata: Metadata
    ) -> lobby_pb2.CreateTableResponse:
        self._seen("create", metadata)
        return lobby_pb2.CreateTableResponse(
            table_id="t1", player_id="p", player_token="seat-token", seat=1
        )

    async def join(
        self, request: lobby_pb2.JoinTableRequest, *, timeout: float, metadata: Metadata
    ) -> lobby_pb2.JoinTableResponse:
        self._seen("join", metadata)
        return lobby_pb2.JoinTableResponse(
            table_id=request.table_id, player_id="p", player_token="seat-token", seat=2
        )


async def test_sign_in_signs_the_challenge_and_seats_the_player() -> None:
    clock = {"now": 1_000_000}
    async with MatchClient("127.0.0.1:1") as client:
        client.now_ms = lambda: clock["now"]
        lobby = FakeLobby(client.now_ms)
        lobby.install(client)
        key = Ed25519PrivateKey.generate()

        # anonymous, as before: no authorization
        await client.create_table()
        assert "authorization" not in lobby.calls[-1][1]
        assert client.player_id is None and await client.session_token() is None

        session = await client.sign_in(key)
        public, message, signature = lobby.signed[0]
        assert public == identity.public_bytes(key)
        assert message == b"match-sign-in-v1\nc1.challenge-1"
        assert len(signature) == 64
        assert session.player_id == client.player_id == player_id(public)
        assert session.token == "session-1"

        # the session goes with every create and join, the bot key too
        await client.create_table()
        await client.create_table(concentration_pb2.ConcentrationSettings())
        await client.create_table(match_cards_pb2.MatchCardsSettings())
        await client.create_table(number_match_pb2.NumberMatchSettings())
        await client.create_table(match_five_pb2.MatchFiveSettings())
        await client.join_table(table_id="t9", bot_key="bk")
        sent = lobby.calls[1:]
        assert [name for name, _ in sent] == ["create"] * 5 + ["join"]
        assert all(md["authorization"] == "Bearer session-1" for _, md in sent)
        assert sent[-1][1]["x-match-bot-key"] == "bk"
        assert all(md["x-client-key"] == client.client_key for _, md in sent)
        assert lobby.sessions == 1  # no sign-in per call

        # anonymous on request (a demo's other players)
        await client.join_table(table_id="t9", anonymous=True)
        assert "authorization" not in lobby.calls[-1][1]

        # a minute before it runs out, the client signs in again first
        clock["now"] += 3_600_000 - 59_000
        await client.join_table(table_id="t9")
        assert lobby.sessions == 2 and lobby.calls[-1][1]["authorization"] == "Bearer session-2"
        assert lobby.signed[1][1] == b"match-sign-in-v1\nc1.challenge-2"

        # a session the lobby no longer takes: signed in again, sent again with the same id
        lobby.refuse_next = True
        seat = await client.create_table(request_id="r-1")
        first, second = lobby.calls[-2:]
        assert first[1]["authorization"] == "Bearer session-2"
        assert second[1]["authorization"] == "Bearer session-3"
        assert first[1]["x-request-id"] == second[1]["x-request-id"] == "r-1"
        assert seat.token == "seat-token"


async def test_concurrent_calls_sign_in_once() -> None:
    async with MatchClient("127.0.0.1:1") as client:
        lobby = FakeLobby(client.now_ms)
        lobby.install(client)
        await client.sign_in(Ed25519PrivateKey.generate())
        client.signed_in = None  # as if it ran out
        await asyncio.gather(*(client.join_table(table_id=f"t{i}") for i in range(5)))
        assert lobby.sessions == 2


async def test_an_anonymous_client_is_refused_only_by_the_lobby() -> None:
    """Without a key nothing changes: an UNAUTHENTICATED is the caller's to see."""
    async with MatchClient("127.0.0.1:1") as client:
        lobby = FakeLobby(client.now_ms)
        lobby.install(client)
        lobby.refuse_next = True
        with pytest.raises(grpc.aio.AioRpcError):
            await client.create_table()
        assert lobby.sessions == 0 and len(lobby.calls) == 1


# --- the key's seats first -------------------------------------------------------------------


class SeatsClient:
    """What KeyedSeats asks of a client."""

    def __init__(self, player: str | None, seats: list[players_pb2.MySeat] | Exception) -> None:
        self.player_id = player
        self.seats = seats
        self.asked: list[str] = []

    async def find_my_seats(self, table_id: str = "") -> list[players_pb2.MySeat]:
        self.asked.append(table_id)
        if isinstance(self.seats, Exception):
            raise self.seats
        return [s for s in self.seats if not table_id or s.table_id == table_id]

    def my_seat(self, found: players_pb2.MySeat) -> Seat:
        return MatchClient.my_seat(self, found)  # type: ignore[arg-type]


def my_seat(table: str, seat: int, invite: str = "") -> players_pb2.MySeat:
    return players_pb2.MySeat(
        table_id=table,
        seat=seat,
        player_token=f"fresh-{table}",
        table=lobby_pb2.Table(table_id=table, invite_code=invite),
        display_name="Ann",
    )


def find(client: SeatsClient, table: str | None) -> Awaitable[Seat | None]:
    return KeyedSeats().find(client, "a:1", table)  # type: ignore[arg-type]


async def test_the_keys_seats_come_first_newest_table_first() -> None:
    assert [type(f) for f in resume_finders(SeatStore(Path("/nonexistent")))] == [
        KeyedSeats,
        KeptTokens,
    ]
    client = SeatsClient("k1", [my_seat("new", 2, "INV1"), my_seat("old", 1)])
    assert await find(client, None) == Seat("new", "k1", "fresh-new", 2, "INV1")
    assert await find(client, "old") == Seat("old", "k1", "fresh-old", 1, "")
    assert await find(client, "gone") is None
    assert client.asked == ["", "old", "gone"]
    anonymous = SeatsClient(None, [my_seat("new", 2)])
    assert await find(anonymous, None) is None and anonymous.asked == []


async def test_a_lobby_that_cannot_say_leaves_it_to_the_kept_tokens() -> None:
    unknown = grpc.aio.AioRpcError(
        grpc.StatusCode.UNIMPLEMENTED, grpc.aio.Metadata(), grpc.aio.Metadata(), "no"
    )
    assert await find(SeatsClient("k1", unknown), None) is None
    down = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "down"
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await find(SeatsClient("k1", down), None)
