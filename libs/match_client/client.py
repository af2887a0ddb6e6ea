"""``MatchClient``: a thin, typed async wrapper over the lobby's and the players service's gRPC
API (a seat's calls to its game: ``match_client.session.GameSession``).

No game logic lives here. Every call sends a fresh ``x-request-id``; every call made for a seat
sends ``authorization: Bearer <token>``. Errors are the ``grpc.aio.AioRpcError`` the server
ended the call with; :func:`refusal_code` reads the rules' refusal slug from it.

A client signed in with a player's key (:meth:`MatchClient.sign_in`) sends its session token
as ``authorization: Bearer <session>`` with CreateTable and JoinTable, so the seat is the
player's, and with the calls of PlayerService that need it; it signs in again before the session
runs out. A client that never signs in plays anonymously, as before.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar, cast

import grpc  # type: ignore[import-untyped, unused-ignore]
import grpc.aio  # type: ignore[import-untyped, unused-ignore]
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.message import Message

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
)
from match_client import identity
from match_client.programs import runnable
from match_rules import registry

DEFAULT_ADDRESS = "127.0.0.1:50051"
REFUSAL_CODE_KEY = "match-refusal-code"
RETRY_AFTER_KEY = "retry-after-ms"
BOT_KEY_HEADER = "x-match-bot-key"
REQUEST_ID_HEADER = "x-request-id"
# A secret of this client, made once: the lobby answers a CreateTable or JoinTable retried with
# the same request id only to the caller with the same key (docs/api.md, "Request ids").
CLIENT_KEY_HEADER = "x-client-key"
DEFAULT_TIMEOUT_S = 10.0


def match_command(
    rest: str = "",
    address: str | None = None,
    ca_file: str | os.PathLike[str] | None = None,
    tls: bool = False,
    program: str = "match",
) -> str:
    """``program`` with the options that reach this lobby, then ``rest``: a command printed for
    the player to copy works as printed, on any address (``--addr`` unless it is the default;
    the CA or ``--tls`` a TLS lobby needs). Global options go before the subcommand, where both
    ``match`` and ``match-audit`` take them. ``program`` is how the line names ``match``
    (``programs.runnable("match")`` for a line the user pastes into their shell)."""
    words = [program]
    if address and address != DEFAULT_ADDRESS:
        words += ["--addr", shlex.quote(address)]
    if ca_file:
        words += ["--ca", shlex.quote(str(ca_file))]
    elif tls:
        words.append("--tls")
    return " ".join([*words, rest] if rest else words)


# Sign in again when the session has less than this left (a create or join must not carry a
# session that runs out on its way).
RENEW_BEFORE_MS = 60_000
# Reconnect within seconds once a restarted server is back (gRPC's default backoff grows to
# two minutes).
CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 500),
    ("grpc.min_reconnect_backoff_ms", 500),
    ("grpc.max_reconnect_backoff_ms", 5_000),
]

Metadata = Sequence[tuple[str, str]]
_Req = TypeVar("_Req", contravariant=True)
_Resp = TypeVar("_Resp", covariant=True)


class _Unary(Protocol[_Req, _Resp]):
    def __call__(
        self, request: _Req, *, timeout: float | None = ..., metadata: Metadata | None = ...
    ) -> Awaitable[_Resp]: ...


def default_address() -> str:
    """``MATCH_ADDR`` from the environment, else 127.0.0.1:50051."""
    return os.environ.get("MATCH_ADDR") or DEFAULT_ADDRESS


def default_ca() -> str | None:
    """``MATCH_CA`` from the environment (the CA certificate that signed the lobby's), else
    None."""
    return os.environ.get("MATCH_CA") or None


def channel_credentials(ca_file: str | os.PathLike[str] | None = None, tls: bool = False) -> Any:
    """TLS credentials that verify the server against the CA certificates in ``ca_file`` (PEM),
    or, with ``tls`` alone, against the system's trusted roots; None (plain text) with neither.
    Raises OSError when ``ca_file`` cannot be read."""
    if ca_file:
        return grpc.ssl_channel_credentials(root_certificates=Path(ca_file).read_bytes())
    if tls:
        return grpc.ssl_channel_credentials()
    return None


def new_request_id() -> str:
    return uuid.uuid4().hex


def _trailer(err: BaseException, wanted: str) -> str | None:
    trailing = getattr(err, "trailing_metadata", None)
    if trailing is None:
        return None
    items: Any = trailing()
    for key, value in items or ():
        if key == wanted:
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def refusal_code(err: BaseException) -> str | None:
    """The refusal slug (e.g. ``"tile_face_up"``) in a failed call's trailing metadata
    ``match-refusal-code``, or None when the error is not a refusal of the rules."""
    return _trailer(err, REFUSAL_CODE_KEY)


def retry_after_ms(err: BaseException) -> int | None:
    """How long to wait before calling again (trailing metadata ``retry-after-ms`` of a
    RESOURCE_EXHAUSTED the lobby's rate limit gave), or None when the error says nothing."""
    text = _trailer(err, RETRY_AFTER_KEY)
    return int(text) if text is not None and text.isdigit() else None


def status_name(err: BaseException) -> str:
    """The gRPC status name of a failed call (e.g. ``"FAILED_PRECONDITION"``), or ``"UNKNOWN"``."""
    code = getattr(err, "code", None)
    if code is None:
        return "UNKNOWN"
    value: Any = code()
    return str(getattr(value, "name", value))


_T = TypeVar("_T")


async def sent_politely(send: Callable[[], Awaitable[_T]], tries: int) -> _T:
    """``send()``, sent again (the same request, so the same request id) after the wait a
    RESOURCE_EXHAUSTED of the lobby's rate limit names (nothing was applied), up to ``tries``
    sends in all; any other failure, or the last one, is raised."""
    for _ in range(tries - 1):
        try:
            return await send()
        except Exception as err:
            wait = retry_after_ms(err) if is_rpc_error(err) else None
            if wait is None or status_name(err) != "RESOURCE_EXHAUSTED":
                raise
            await asyncio.sleep(wait / 1000)
    return await send()


def error_details(err: BaseException) -> str:
    """The message the server gave with a failed call (the refusal's sentence)."""
    details = getattr(err, "details", None)
    text: Any = details() if details is not None else None
    return str(text) if text else str(err)


def is_rpc_error(err: BaseException) -> bool:
    return isinstance(err, grpc.aio.AioRpcError)


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat at a table: what CreateTable or JoinTable returned. ``token`` is a secret."""

    table_id: str
    player_id: str
    token: str
    seat: int
    invite_code: str = ""


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in player: what SignIn answered. ``token`` is a secret."""

    player_id: str
    token: str
    expires_at_ms: int  # unix ms


def now_ms() -> int:
    return int(time.time() * 1000)


class MatchClient:
    """The lobby and the players service over one gRPC channel (a seat's game calls:
    :class:`match_client.session.GameSession`, over the same channel). Use ``async with`` or
    call ``close``.

    Plain text by default; ``ca_file`` (a PEM file of the CA that signed the lobby's
    certificate) or ``tls=True`` (the system's trusted roots) speaks TLS and verifies the
    server's certificate against the address's host name."""

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        timeout: float = DEFAULT_TIMEOUT_S,
        *,
        ca_file: str | os.PathLike[str] | None = None,
        tls: bool = False,
        client_key: str | None = None,
    ) -> None:
        self.address = address
        self.ca_file = ca_file
        self.tls = tls
        self.timeout = timeout
        # Who this client is to the lobby when it plays without a key (signed in, the key's
        # player is): keep it across reconnects, so a retried create or join still gets its
        # first answer.
        self.client_key = client_key or new_request_id()
        self._key: Ed25519PrivateKey | None = None
        self.signed_in: Session | None = None
        self._signing_in = asyncio.Lock()
        self.now_ms: Callable[[], int] = now_ms  # the wall clock the session expires by
        credentials = channel_credentials(ca_file, tls)
        self._channel: Any = (
            grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
            if credentials is None
            else grpc.aio.secure_channel(address, credentials, options=CHANNEL_OPTIONS)
        )
        lobby: Any = lobby_pb2_grpc.LobbyServiceStub(self._channel)  # type: ignore[no-untyped-call, unused-ignore]
        self._create: _Unary[lobby_pb2.CreateTableRequest, lobby_pb2.CreateTableResponse] = (
            lobby.CreateTable
        )
        self._list: _Unary[lobby_pb2.ListTablesRequest, lobby_pb2.ListTablesResponse] = (
            lobby.ListTables
        )
        self._join: _Unary[lobby_pb2.JoinTableRequest, lobby_pb2.JoinTableResponse] = (
            lobby.JoinTable
        )
        self._leave: _Unary[lobby_pb2.LeaveTableRequest, lobby_pb2.LeaveTableResponse] = (
            lobby.LeaveTable
        )
        self._start: _Unary[lobby_pb2.StartTableRequest, lobby_pb2.StartTableResponse] = (
            lobby.StartTable
        )
        self._get: _Unary[lobby_pb2.GetTableRequest, lobby_pb2.GetTableResponse] = lobby.GetTable
        self._rematch: _Unary[lobby_pb2.RematchRequest, lobby_pb2.RematchResponse] = lobby.Rematch
        players: Any = players_pb2_grpc.PlayerServiceStub(self._channel)  # type: ignore[no-untyped-call, unused-ignore]
        self._challenge: _Unary[
            players_pb2.GetChallengeRequest, players_pb2.GetChallengeResponse
        ] = players.GetChallenge
        self._sign_in: _Unary[players_pb2.SignInRequest, players_pb2.SignInResponse] = (
            players.SignIn
        )
        self._my_seats: _Unary[players_pb2.FindMySeatsRequest, players_pb2.FindMySeatsResponse] = (
            players.FindMySeats
        )
        self._my_profile: _Unary[
            players_pb2.GetMyProfileRequest, players_pb2.GetMyProfileResponse
        ] = players.GetMyProfile
        self._my_statistics: _Unary[
            players_pb2.GetMyStatisticsRequest, players_pb2.GetMyStatisticsResponse
        ] = players.GetMyStatistics
        self._my_streak: _Unary[players_pb2.GetMyStreakRequest, players_pb2.GetMyStreakResponse] = (
            players.GetMyStreak
        )
        self._profile: _Unary[players_pb2.GetProfileRequest, players_pb2.GetProfileResponse] = (
            players.GetProfile
        )
        self._leaderboard: _Unary[
            players_pb2.GetLeaderboardRequest, players_pb2.GetLeaderboardResponse
        ] = players.GetLeaderboard

    def command(self, rest: str = "") -> str:
        """The ``match`` command line ``rest`` that reaches this client's lobby (match_command),
        with ``match`` named so that it runs in the user's shell (programs.runnable)."""
        return match_command(rest, self.address, self.ca_file, self.tls, runnable("match"))

    async def __aenter__(self) -> MatchClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self._channel.close()

    def metadata(self, token: str | None = None, request_id: str | None = None) -> Metadata:
        """A fresh ``x-request-id`` (or the one given, for a retry), this client's key and the
        bearer token."""
        md = [
            (REQUEST_ID_HEADER, request_id or new_request_id()),
            (CLIENT_KEY_HEADER, self.client_key),
        ]
        if token:
            md.append(("authorization", f"Bearer {token}"))
        return md

    # --- the player's key ----------------------------------------------------------------

    @property
    def player_id(self) -> str | None:
        """The signed-in player's id; None for an anonymous client."""
        return self.signed_in.player_id if self.signed_in is not None else None

    async def sign_in(self, private_key: Ed25519PrivateKey) -> Session:
        """Prove the key to the lobby (GetChallenge, then SignIn with the challenge signed) and
        keep the session: from now on CreateTable and JoinTable seat this player, and the
        client signs in again with the same key when the session is about to run out."""
        public = identity.public_bytes(private_key)
        challenge = await self._challenge(
            players_pb2.GetChallengeRequest(public_key=public),
            timeout=self.timeout,
            metadata=self.metadata(),
        )
        signature = private_key.sign(identity.sign_in_message(challenge.challenge))
        request = players_pb2.SignInRequest(
            public_key=public, challenge=challenge.challenge, signature=signature
        )
        r = await self._sign_in(request, timeout=self.timeout, metadata=self.metadata())
        self._key = private_key
        self.signed_in = Session(r.player_id, r.session_token, r.expires_at_ms)
        return self.signed_in

    async def session_token(self) -> str | None:
        """The session token, signed in again first when it has less than a minute left; None
        for an anonymous client."""
        key = self._key
        if key is None:
            return None
        async with self._signing_in:
            session = self.signed_in
            if session is None or session.expires_at_ms - self.now_ms() < RENEW_BEFORE_MS:
                session = await self.sign_in(key)
        return session.token

    async def _as_player(
        self, send: Callable[[Metadata], Awaitable[_T]], request_id: str | None, anonymous: bool
    ) -> _T:
        """``send`` with the session (when signed in and not ``anonymous``); once more after
        signing in again when the lobby says the session is not good (UNAUTHENTICATED: it ran
        out, or the lobby's secret changed), with the same request id."""
        request_id = request_id or new_request_id()
        if anonymous or self._key is None:
            return await send(self.metadata(request_id=request_id))
        try:
            return await send(self.metadata(await self.session_token(), request_id))
        except Exception as err:
            if not is_rpc_error(err) or status_name(err) != "UNAUTHENTICATED":
                raise
        self.signed_in = None
        return await send(self.metadata(await self.session_token(), request_id))

    async def find_my_seats(self, table_id: str = "") -> list[players_pb2.MySeat]:
        """The signed-in player's seats at tables whose game is not over, newest table first,
        each with a fresh seat token (only ``table_id``'s when given)."""
        request = players_pb2.FindMySeatsRequest(table_id=table_id)

        async def send(md: Metadata) -> players_pb2.FindMySeatsResponse:
            return await self._my_seats(request, timeout=self.timeout, metadata=md)

        return list((await self._as_player(send, None, False)).seats)

    def my_seat(self, found: players_pb2.MySeat) -> Seat:
        """A seat FindMySeats answered, as the seat calls want it."""
        return Seat(
            found.table_id,
            self.player_id or "",
            found.player_token,
            found.seat,
            found.table.invite_code,
        )

    async def my_profile(self) -> players_pb2.Profile:
        """The signed-in player's profile (as others see it)."""

        async def send(md: Metadata) -> players_pb2.GetMyProfileResponse:
            request = players_pb2.GetMyProfileRequest()
            return await self._my_profile(request, timeout=self.timeout, metadata=md)

        return (await self._as_player(send, None, False)).profile

    async def my_statistics(self) -> list[players_pb2.GameStatistics]:
        """The signed-in player's statistics, one entry per game played."""

        async def send(md: Metadata) -> players_pb2.GetMyStatisticsResponse:
            request = players_pb2.GetMyStatisticsRequest()
            return await self._my_statistics(request, timeout=self.timeout, metadata=md)

        return list((await self._as_player(send, None, False)).games)

    async def my_streak(self) -> players_pb2.GetMyStreakResponse:
        """The signed-in player's daily puzzle streak (Number Match)."""

        async def send(md: Metadata) -> players_pb2.GetMyStreakResponse:
            request = players_pb2.GetMyStreakRequest()
            return await self._my_streak(request, timeout=self.timeout, metadata=md)

        return await self._as_player(send, None, False)

    async def profile(self, player_id: str) -> players_pb2.Profile:
        """Any player's public profile: the display name and the ratings."""
        request = players_pb2.GetProfileRequest(player_id=player_id)
        r = await self._profile(request, timeout=self.timeout, metadata=self.metadata())
        return r.profile

    async def leaderboard(
        self,
        kind: common_pb2.GameKind,
        board: str = "",
        page: int = 1,
        page_size: int = 20,
    ) -> players_pb2.GetLeaderboardResponse:
        """One page of a game's leaderboard (``board`` "" is the game's main one)."""
        request = players_pb2.GetLeaderboardRequest(
            game_kind=kind, board=board, page=page, page_size=page_size
        )
        return await self._leaderboard(request, timeout=self.timeout, metadata=self.metadata())

    # --- lobby ---------------------------------------------------------------------------

    async def create_table(
        self,
        settings: Message | None = None,
        seats: int | None = None,
        visibility: common_pb2.Visibility = common_pb2.VISIBILITY_OPEN,
        display_name: str = "Player",
        request_id: str | None = None,
    ) -> Seat:
        """Make a table and take seat 1 (the host's). The game is the one whose settings
        ``settings`` are (the CreateTableRequest member of that message's type, named after the
        game's slug); None: the first registered game with its default settings. ``seats``
        None: the game's fewest. Retrying with the same ``request_id`` returns the same table
        and seat."""
        member = settings_member(settings)
        game = registry.by_slug(member) if member else registry.games()[0]
        request = lobby_pb2.CreateTableRequest(
            game_kind=cast(common_pb2.GameKind, game.kind),
            seats=game.min_seats if seats is None else seats,
            visibility=visibility,
            display_name=display_name,
        )
        if settings is not None:
            getattr(request, member).CopyFrom(settings)
        return await self._create_seat(request, request_id)

    async def _create_seat(
        self, request: lobby_pb2.CreateTableRequest, request_id: str | None
    ) -> Seat:
        """CreateTable, as the signed-in player when there is one."""

        async def send(md: Metadata) -> lobby_pb2.CreateTableResponse:
            return await self._create(request, timeout=self.timeout, metadata=md)

        r = await self._as_player(send, request_id, False)
        return Seat(r.table_id, r.player_id, r.player_token, r.seat, r.invite_code)

    async def join_table(
        self,
        table_id: str | None = None,
        invite_code: str | None = None,
        display_name: str = "Player",
        bot_key: str | None = None,
        request_id: str | None = None,
        anonymous: bool = False,
    ) -> Seat:
        """Take a free seat: an open table by id, or a private one by invite code (exactly one).
        ``bot_key`` marks the caller as the bot (metadata ``x-match-bot-key``). A signed-in
        client takes it as its player, unless ``anonymous``."""
        if (table_id is None) == (invite_code is None):
            raise ValueError("join_table needs exactly one of table_id and invite_code")
        if table_id is not None:
            request = lobby_pb2.JoinTableRequest(table_id=table_id, display_name=display_name)
        else:
            request = lobby_pb2.JoinTableRequest(invite_code=invite_code, display_name=display_name)

        async def send(md: Metadata) -> lobby_pb2.JoinTableResponse:
            if bot_key:
                md = [*md, (BOT_KEY_HEADER, bot_key)]
            return await self._join(request, timeout=self.timeout, metadata=md)

        r = await self._as_player(send, request_id, anonymous)
        return Seat(r.table_id, r.player_id, r.player_token, r.seat, invite_code or "")

    async def leave(self, table_id: str, token: str, request_id: str | None = None) -> None:
        """Give up a seat before the game starts."""
        request = lobby_pb2.LeaveTableRequest(table_id=table_id)
        md = self.metadata(token, request_id)
        await self._leave(request, timeout=self.timeout, metadata=md)

    async def rematch(
        self, table_id: str, token: str, request_id: str | None = None
    ) -> tuple[Seat, bool]:
        """Play the finished table ``table_id`` again with its players (``token``: the seat's
        there): the caller's seat at the rematch table, and True when this call made it (the
        offer; the others take their seats by asking too)."""
        request = lobby_pb2.RematchRequest(table_id=table_id)
        md = self.metadata(token, request_id)
        r = await self._rematch(request, timeout=self.timeout, metadata=md)
        return Seat(r.table_id, r.player_id, r.player_token, r.seat), r.offered

    async def start_table(
        self, table_id: str, token: str, request_id: str | None = None
    ) -> lobby_pb2.Table:
        """Host only, open tables only: the bot fills the empty seats now."""
        request = lobby_pb2.StartTableRequest(table_id=table_id)
        md = self.metadata(token, request_id)
        r = await self._start(request, timeout=self.timeout, metadata=md)
        return r.table

    async def list_tables(
        self,
        game_kind: common_pb2.GameKind | None = None,
        page_size: int = 100,
        max_pages: int = 10,
        fill_due_by_ms: int = 0,
    ) -> list[lobby_pb2.Table]:
        """The open tables with a free seat, newest first (following pages up to ``max_pages``).
        With ``fill_due_by_ms``: only those whose bot fill time is at most then, soonest due
        first (what the bot polls). ``game_kind`` None: the first registered game's."""
        kind = registry.games()[0].kind if game_kind is None else game_kind
        tables: list[lobby_pb2.Table] = []
        token = ""
        for _ in range(max_pages):
            request = lobby_pb2.ListTablesRequest(
                game_kind=cast(common_pb2.GameKind, kind),
                page_size=page_size,
                page_token=token,
                fill_due_by_ms=fill_due_by_ms,
            )
            r = await self._list(request, timeout=self.timeout, metadata=self.metadata())
            tables.extend(r.tables)
            token = r.next_page_token
            if not token:
                break
        return tables

    async def get_table(self, table_id: str, token: str | None = None) -> lobby_pb2.Table:
        """One table (a private table needs the token of a seat at it)."""
        request = lobby_pb2.GetTableRequest(table_id=table_id)
        r = await self._get(request, timeout=self.timeout, metadata=self.metadata(token))
        return r.table


def settings_member(settings: Message | None) -> str:
    """The CreateTableRequest member that carries ``settings`` ("" for None)."""
    if settings is None:
        return ""
    for field in lobby_pb2.CreateTableRequest.DESCRIPTOR.fields:
        if field.message_type is settings.DESCRIPTOR:
            return str(field.name)
    raise ValueError(f"{settings.DESCRIPTOR.full_name} is no game's table settings")
