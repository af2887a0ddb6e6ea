"""Player identity through the real stack (nats-server, dealer, referee, lobby; real gRPC): sign
in with a fresh Ed25519 key, sit down under the key's player id, find the seat again from
another connection, and every way of misusing a key, a challenge or a token refused with a
clear message, changing nothing.

The players service is not part of this stack: a fake answerer subscribed on
``match.players.query`` (as the ``players`` NATS identity) stands in for it, to test the
lobby's side of the read-model calls, down to nobody answering.

The pure parts: tests/services/test_lobby_identity.py.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc  # type: ignore[import-untyped]
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import (  # type: ignore[import-untyped]
    reflection_pb2,
    reflection_pb2_grpc,
)
from nats.aio.msg import Msg

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    players_pb2,
    players_pb2_grpc,
    race_service_pb2,
    race_service_pb2_grpc,
)
from match_bus import subjects
from match_launch.stack import Stack
from match_players.identity import player_id, sign_in_message
from services.lobby.edge import NO_SESSION, SEAT_NOT_SESSION, SESSION_NOT_SEAT
from services.lobby.identity import (
    EXPIRED_CHALLENGE,
    FORGED,
    OTHER_KEY,
    REPLAYED,
    WEAK_KEY,
    Sessions,
)
from services.lobby.players_client import PLAYERS_DOWN

RACE = common_pb2.GAME_KIND_MATCH_RACE
OPEN, PRIVATE = common_pb2.VISIBILITY_OPEN, common_pb2.VISIBILITY_PRIVATE
CHALLENGE_TTL_S = 3  # short, so that one can be seen expiring
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own
Code = grpc.StatusCode


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        Path(tmp_path_factory.mktemp("player-identity")),
        services=("dealer", "referee", "lobby"),
        env={
            "REFEREE_FILL_WAIT_MS": "3600000",  # no bot sits down here
            "LOBBY_CHALLENGE_TTL_S": str(CHALLENGE_TTL_S),
            "LOBBY_BURST_SIGN_IN": "1000",  # every sign-in here comes from 127.0.0.1
            "LOBBY_RATE_CREATE": "0",
            "LOBBY_WAITING_PER_ADDR": "0",
        },
    )
    s.start()
    try:
        yield s
    finally:
        s.stop()
    assert "Traceback" not in s.log("lobby"), s.log("lobby")
    assert not s.nats_refusals(), "\n".join(s.nats_refusals())


class Client:
    """One player's process: its own connection, the three services' stubs."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.players = players_pb2_grpc.PlayerServiceStub(channel)
        self.tables = lobby_pb2_grpc.LobbyServiceStub(channel)
        self.race = race_service_pb2_grpc.MatchRaceServiceStub(channel)


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[Client]:
    async with grpc.aio.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION) as channel:
        yield Client(channel)


@pytest.fixture
async def other(stack: Stack) -> AsyncIterator[Client]:
    """A second process of the same player (or another player): a connection of its own."""
    async with grpc.aio.insecure_channel(stack.lobby_addr, options=OWN_CONNECTION) as channel:
        yield Client(channel)


class Key:
    def __init__(self) -> None:
        self.private = Ed25519PrivateKey.generate()
        self.public = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.player = player_id(self.public)

    def sign(self, challenge: str) -> bytes:
        return self.private.sign(sign_in_message(challenge))


async def sign_in(client: Client, key: Key) -> str:
    """A session token for ``key``."""
    challenge = await client.players.GetChallenge(
        players_pb2.GetChallengeRequest(public_key=key.public)
    )
    assert challenge.player_id == key.player
    assert challenge.expires_at_ms > time.time() * 1000
    signed = await client.players.SignIn(
        players_pb2.SignInRequest(
            public_key=key.public,
            challenge=challenge.challenge,
            signature=key.sign(challenge.challenge),
        )
    )
    assert signed.player_id == key.player
    assert signed.expires_at_ms > (time.time() + 23 * 3600) * 1000
    return str(signed.session_token)


def bearer(token: str, request_id: str | None = None) -> tuple[tuple[str, str], ...]:
    md = [("authorization", f"Bearer {token}")]
    if request_id is not None:
        md.append(("x-request-id", request_id))
    return tuple(md)


def rid() -> tuple[tuple[str, str], ...]:
    return (("x-request-id", uuid.uuid4().hex),)


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def trailer(error: grpc.aio.AioRpcError, key: str) -> str | None:
    return next((str(v) for k, v in error.trailing_metadata() or () if k == key), None)


def create(name: str = "Ann", seats: int = 3, private: bool = True) -> lobby_pb2.CreateTableRequest:
    return lobby_pb2.CreateTableRequest(
        game_kind=RACE, seats=seats, visibility=PRIVATE if private else OPEN, display_name=name
    )


# --- signing in and getting back to a seat ------------------------------------------------------


async def test_the_player_service_is_served_checked_and_reflected(stack: Stack) -> None:
    async with grpc.aio.insecure_channel(stack.lobby_addr) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        checked = await health.Check(
            health_pb2.HealthCheckRequest(service="match.v1.PlayerService")
        )
        assert checked.status == health_pb2.HealthCheckResponse.SERVING
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        ask = reflection_pb2.ServerReflectionRequest(list_services="")
        async for answer in reflection.ServerReflectionInfo(iter([ask])):
            names = {s.name for s in answer.list_services_response.service}
            assert "match.v1.PlayerService" in names
            break


async def test_a_signed_in_player_sits_under_their_key_and_finds_the_seat_again(
    client: Client, other: Client
) -> None:
    ann = Key()
    session = await sign_in(client, ann)
    request_id = uuid.uuid4().hex
    made = await client.tables.CreateTable(create(), metadata=bearer(session, request_id))
    assert made.player_id == ann.player and made.seat == 1
    table = (
        await client.tables.GetTable(
            lobby_pb2.GetTableRequest(table_id=made.table_id),
            metadata=bearer(made.player_token),
        )
    ).table
    assert [s.player_id for s in table.taken] == [ann.player]

    # A retry of the same CreateTable from another process of the same key: the same table.
    again = await other.tables.CreateTable(create(), metadata=bearer(session, request_id))
    assert (again.table_id, again.player_id, again.invite_code) == (
        made.table_id,
        ann.player,
        made.invite_code,
    )

    # Another process of the same key signs in on its own and finds the seat.
    for finder in (client, other):
        own = await sign_in(finder, ann)
        found = await finder.players.FindMySeats(
            players_pb2.FindMySeatsRequest(), metadata=bearer(own)
        )
        (seat,) = [s for s in found.seats if s.table_id == made.table_id]
        assert (seat.seat, seat.display_name, seat.game_kind) == (1, "Ann", RACE)
        assert seat.table.invite_code == made.invite_code  # seated: the code is shown
        shown = await finder.tables.GetTable(
            lobby_pb2.GetTableRequest(table_id=made.table_id),
            metadata=bearer(seat.player_token),
        )
        assert shown.table.invite_code == made.invite_code
    by_session = await other.tables.GetTable(
        lobby_pb2.GetTableRequest(table_id=made.table_id), metadata=bearer(session)
    )
    assert by_session.table.invite_code == made.invite_code  # a session seated there: shown
    only = await other.players.FindMySeats(
        players_pb2.FindMySeatsRequest(table_id=made.table_id), metadata=bearer(session)
    )
    assert [s.table_id for s in only.seats] == [made.table_id]

    # Without a session nothing changes: an anonymous player with a derived id.
    anonymous = await client.tables.CreateTable(create("Cy"), metadata=rid())
    assert len(anonymous.player_id) == 16 and not anonymous.player_id.startswith("k")


async def test_a_keyed_player_joins_once_leaves_and_joins_again_with_a_working_token(
    client: Client, other: Client
) -> None:
    ann, bob = Key(), Key()
    made = await client.tables.CreateTable(
        create(seats=3), metadata=bearer(await sign_in(client, ann), uuid.uuid4().hex)
    )
    bob_session = await sign_in(other, bob)
    join = lobby_pb2.JoinTableRequest(invite_code=made.invite_code, display_name="Bob")
    first_id = uuid.uuid4().hex
    seated = await other.tables.JoinTable(join, metadata=bearer(bob_session, first_id))
    assert seated.player_id == bob.player
    retried = await other.tables.JoinTable(join, metadata=bearer(bob_session, first_id))
    assert (retried.player_id, retried.seat) == (bob.player, seated.seat)
    twice = await refused(
        other.tables.JoinTable(join, metadata=bearer(bob_session, uuid.uuid4().hex))
    )
    assert twice.code() == Code.FAILED_PRECONDITION
    assert trailer(twice, "match-refusal-code") == "already_seated"

    leave = lobby_pb2.LeaveTableRequest(table_id=made.table_id)
    await other.tables.LeaveTable(leave, metadata=bearer(seated.player_token, uuid.uuid4().hex))
    gone = await refused(other.tables.LeaveTable(leave, metadata=bearer(seated.player_token)))
    assert gone.code() == Code.UNAUTHENTICATED and "you left this table" in gone.details()
    shown = await refused(  # nor does it show the private table, its invite code with it
        other.tables.GetTable(
            lobby_pb2.GetTableRequest(table_id=made.table_id),
            metadata=bearer(seated.player_token),
        )
    )
    assert shown.code() == Code.UNAUTHENTICATED and "you left this table" in shown.details()
    found = await other.players.FindMySeats(
        players_pb2.FindMySeatsRequest(), metadata=bearer(bob_session)
    )
    assert list(found.seats) == []

    back = await other.tables.JoinTable(join, metadata=bearer(bob_session, uuid.uuid4().hex))
    assert back.player_id == bob.player
    found = await other.players.FindMySeats(
        players_pb2.FindMySeatsRequest(), metadata=bearer(bob_session)
    )
    assert [(s.table_id, s.seat) for s in found.seats] == [(made.table_id, back.seat)]
    # The token works: the lobby no longer counts Bob as gone (directory.has_left).
    for _ in range(50):
        try:
            await other.tables.LeaveTable(leave, metadata=bearer(back.player_token, rid()[0][1]))
            break
        except grpc.aio.AioRpcError as error:  # the listing may lag the log by a moment
            assert error.code() == Code.UNAUTHENTICATED, error.details()
            await asyncio.sleep(0.1)
    else:
        raise AssertionError("the token of the seat taken again never worked")


# --- refused, changing nothing ------------------------------------------------------------------


async def test_forged_replayed_expired_and_foreign_challenges_are_refused(client: Client) -> None:
    ann, eve = Key(), Key()
    ask = players_pb2.GetChallengeRequest(public_key=ann.public)
    challenge = (await client.players.GetChallenge(ask)).challenge

    def sign_in_request(key: Key, signature: bytes) -> players_pb2.SignInRequest:
        return players_pb2.SignInRequest(
            public_key=key.public, challenge=challenge, signature=signature
        )

    forged = await refused(client.players.SignIn(sign_in_request(ann, eve.sign(challenge))))
    assert (forged.code(), forged.details()) == (Code.UNAUTHENTICATED, FORGED)
    foreign = await refused(client.players.SignIn(sign_in_request(eve, eve.sign(challenge))))
    assert (foreign.code(), foreign.details()) == (Code.UNAUTHENTICATED, OTHER_KEY)

    good = sign_in_request(ann, ann.sign(challenge))
    assert (await client.players.SignIn(good)).player_id == ann.player  # the forgery used nothing
    replay = await refused(client.players.SignIn(good))
    assert (replay.code(), replay.details()) == (Code.UNAUTHENTICATED, REPLAYED)

    late = (await client.players.GetChallenge(ask)).challenge
    await asyncio.sleep(CHALLENGE_TTL_S + 0.5)
    expired = await refused(
        client.players.SignIn(
            players_pb2.SignInRequest(
                public_key=ann.public, challenge=late, signature=ann.sign(late)
            )
        )
    )
    assert (expired.code(), expired.details()) == (Code.UNAUTHENTICATED, EXPIRED_CHALLENGE)

    short = await refused(
        client.players.GetChallenge(players_pb2.GetChallengeRequest(public_key=b"short"))
    )
    assert short.code() == Code.INVALID_ARGUMENT and "32 bytes" in short.details()


async def test_the_identity_point_as_a_key_is_refused_a_challenge_and_a_session(
    client: Client,
) -> None:
    # Under OpenSSL's rules R = identity, S = 0 "signs" anything for this key: a session for a
    # player id nobody holds a private key for (tests/security/test_weak_keys.py has the rest).
    identity = bytes([1]) + bytes(31)
    asked = await refused(
        client.players.GetChallenge(players_pb2.GetChallengeRequest(public_key=identity))
    )
    assert (asked.code(), asked.details()) == (Code.INVALID_ARGUMENT, WEAK_KEY)
    real = (
        await client.players.GetChallenge(players_pb2.GetChallengeRequest(public_key=Key().public))
    ).challenge
    signed = await refused(
        client.players.SignIn(
            players_pb2.SignInRequest(
                public_key=identity, challenge=real, signature=identity + bytes(32)
            )
        )
    )
    assert (signed.code(), signed.details()) == (Code.INVALID_ARGUMENT, WEAK_KEY)


async def test_a_seat_token_is_no_session_and_a_session_acts_at_no_table(
    client: Client, other: Client, stack: Stack
) -> None:
    ann, bob = Key(), Key()
    ann_session, bob_session = await sign_in(client, ann), await sign_in(other, bob)
    anns = await client.tables.CreateTable(create(private=False), metadata=bearer(ann_session))
    bobs = await other.tables.CreateTable(create("Bob"), metadata=bearer(bob_session))
    before = await client.tables.ListTables(lobby_pb2.ListTablesRequest(page_size=100))

    # A seat's token where a session is wanted.
    for call in (
        client.tables.CreateTable(create(private=False), metadata=bearer(anns.player_token)),
        client.tables.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=anns.table_id, display_name="Ann"),
            metadata=bearer(anns.player_token),
        ),
        client.players.FindMySeats(
            players_pb2.FindMySeatsRequest(), metadata=bearer(anns.player_token)
        ),
    ):
        error = await refused(call)
        assert (error.code(), error.details()) == (Code.UNAUTHENTICATED, SEAT_NOT_SESSION)
    after = await client.tables.ListTables(lobby_pb2.ListTablesRequest(page_size=100))
    assert [t.table_id for t in after.tables] == [t.table_id for t in before.tables]

    # A session where a seat's token is wanted: at the player's own table and at another's.
    for table_id in (anns.table_id, bobs.table_id):
        for call in (
            client.race.PressReady(
                race_service_pb2.PressReadyRequest(table_id=table_id), metadata=bearer(ann_session)
            ),
            client.tables.LeaveTable(
                lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=bearer(ann_session)
            ),
        ):
            error = await refused(call)
            assert (error.code(), error.details()) == (Code.UNAUTHENTICATED, SESSION_NOT_SEAT)
    # Ann's seat token at Bob's table; Ann's session asking for Bob's seat.
    elsewhere = await refused(
        client.tables.LeaveTable(
            lobby_pb2.LeaveTableRequest(table_id=bobs.table_id), metadata=bearer(anns.player_token)
        )
    )
    assert elsewhere.code() == Code.PERMISSION_DENIED and "another table" in elsewhere.details()
    none = await client.players.FindMySeats(
        players_pb2.FindMySeatsRequest(table_id=bobs.table_id), metadata=bearer(ann_session)
    )
    assert list(none.seats) == []
    private = await refused(
        client.tables.GetTable(
            lobby_pb2.GetTableRequest(table_id=bobs.table_id), metadata=bearer(anns.player_token)
        )
    )
    assert private.code() == Code.PERMISSION_DENIED
    private = await refused(
        client.tables.GetTable(
            lobby_pb2.GetTableRequest(table_id=bobs.table_id), metadata=bearer(ann_session)
        )
    )
    assert private.code() == Code.PERMISSION_DENIED and "no seat there" in private.details()

    # Forged and expired sessions.
    secret = bytes.fromhex(stack.secrets["MATCH_TOKEN_SECRET"])
    old = Sessions(secret, 60, clock=lambda: time.time() - 120).issue(ann.player)[0]
    forged = Sessions(b"not the lobby's secret!!" * 2, 3600).issue(ann.player)[0]
    mangled = ann_session[:-3] + ("AAA" if not ann_session.endswith("AAA") else "BBB")
    for token, says in (
        (old, "the session expired"),
        (forged, "not one this lobby issued"),
        (mangled, "the session token"),
    ):
        error = await refused(client.tables.CreateTable(create(), metadata=bearer(token)))
        assert error.code() == Code.UNAUTHENTICATED and says in error.details(), error.details()
    missing = await refused(client.players.FindMySeats(players_pb2.FindMySeatsRequest()))
    assert (missing.code(), missing.details()) == (Code.UNAUTHENTICATED, NO_SESSION)


@pytest.mark.parametrize("name", ["Ann\x07", "Ann\nBob", "\u200bAnn"])
async def test_a_display_name_with_control_characters_is_refused(client: Client, name: str) -> None:
    session = await sign_in(client, Key())
    error = await refused(client.tables.CreateTable(create(name), metadata=bearer(session)))
    assert error.code() == Code.INVALID_ARGUMENT, error.details()
    found = await client.players.FindMySeats(
        players_pb2.FindMySeatsRequest(), metadata=bearer(session)
    )
    assert list(found.seats) == []


# --- the read models: the lobby's side, a fake players service ----------------------------------


NOBODY = "k0" + "a" * 22  # the one player the fake knows nothing of (a real key's id is random)


class FakePlayersService:
    """Answers match.players.query as the players service would, from a script."""

    def __init__(self) -> None:
        self.asked: list[players_pb2.PlayersQuery] = []
        self.silent = False

    async def answer(self, msg: Msg) -> None:
        query = players_pb2.PlayersQuery.FromString(msg.data)
        self.asked.append(query)
        if self.silent:
            return
        which = query.WhichOneof("query")
        answer = players_pb2.PlayersAnswer()
        if which == "leaderboard":
            answer.leaderboard.CopyFrom(
                players_pb2.GetLeaderboardResponse(
                    rows=[players_pb2.LeaderboardRow(rank=1, player_id="k" + "1" * 23, value=30)],
                    page=query.leaderboard.page,
                    pages=2,
                    total=2 * query.leaderboard.page_size,
                    unit="rating",
                )
            )
        elif which == "profile" and query.player_id == NOBODY:
            answer.refusal.CopyFrom(
                common_pb2.Refusal(
                    code="unknown_player",
                    message="no player has that id",
                    category=common_pb2.Refusal.CATEGORY_NOT_FOUND,
                )
            )
        elif which == "profile":
            answer.profile.CopyFrom(
                players_pb2.Profile(player_id=query.player_id, display_name="A")
            )
        elif which == "statistics":
            answer.statistics.CopyFrom(
                players_pb2.GetMyStatisticsResponse(
                    games=[players_pb2.GameStatistics(game_kind=RACE, games=3, wins=1)]
                )
            )
        elif which == "streak":
            answer.streak.CopyFrom(players_pb2.GetMyStreakResponse(current=2, best=4))
        await msg.respond(answer.SerializeToString())


@pytest.fixture
async def players_service(stack: Stack) -> AsyncIterator[FakePlayersService]:
    nc = await stack.connect_nats("players")
    fake = FakePlayersService()
    try:
        sub = await nc.subscribe(
            subjects.PLAYERS_QUERY, queue=subjects.PLAYERS_QUEUE, cb=fake.answer
        )
        await nc.flush()
        yield fake
        await sub.unsubscribe()
    finally:
        await nc.drain()


async def test_the_read_models_are_asked_of_the_players_service(
    client: Client, players_service: FakePlayersService
) -> None:
    ann = Key()
    session = await sign_in(client, ann)
    mine = bearer(session)
    profile = await client.players.GetMyProfile(players_pb2.GetMyProfileRequest(), metadata=mine)
    assert profile.profile.player_id == ann.player
    stats = await client.players.GetMyStatistics(
        players_pb2.GetMyStatisticsRequest(), metadata=mine
    )
    assert [(g.game_kind, g.games, g.wins) for g in stats.games] == [(RACE, 3, 1)]
    streak = await client.players.GetMyStreak(players_pb2.GetMyStreakRequest(), metadata=mine)
    assert (streak.current, streak.best) == (2, 4)
    assert [q.player_id for q in players_service.asked] == [ann.player] * 3

    other = await client.players.GetProfile(players_pb2.GetProfileRequest(player_id=ann.player))
    assert other.profile.player_id == ann.player
    unknown = await refused(
        client.players.GetProfile(players_pb2.GetProfileRequest(player_id=NOBODY))
    )
    assert (unknown.code(), unknown.details()) == (Code.NOT_FOUND, "no player has that id")
    assert trailer(unknown, "match-refusal-code") == "unknown_player"
    asked = len(players_service.asked)
    bad = await refused(
        client.players.GetProfile(players_pb2.GetProfileRequest(player_id="0123456789abcdef"))
    )
    assert bad.code() == Code.INVALID_ARGUMENT

    board = await client.players.GetLeaderboard(
        players_pb2.GetLeaderboardRequest(game_kind=RACE, page=2)
    )
    assert (board.page, board.pages, board.unit) == (2, 2, "rating")
    assert players_service.asked[-1].leaderboard.page_size == 20
    past = await refused(
        client.players.GetLeaderboard(players_pb2.GetLeaderboardRequest(game_kind=RACE, page=3))
    )
    assert past.code() == Code.OUT_OF_RANGE and "there are only 2 pages" in past.details()
    wrong = await refused(
        client.players.GetLeaderboard(
            players_pb2.GetLeaderboardRequest(game_kind=RACE, board="level hard!")
        )
    )
    # any case names a board (the listing's lower case is canonical); spaces and "!" never do
    assert wrong.code() == Code.INVALID_ARGUMENT and "is not a board name" in wrong.details()
    assert len(players_service.asked) == asked + 2  # nothing malformed was asked

    anonymous = await refused(client.players.GetMyProfile(players_pb2.GetMyProfileRequest()))
    assert (anonymous.code(), anonymous.details()) == (Code.UNAUTHENTICATED, NO_SESSION)


async def test_a_players_service_that_does_not_answer_is_unavailable(
    client: Client, stack: Stack
) -> None:
    board = players_pb2.GetLeaderboardRequest(game_kind=RACE)
    nobody = await refused(client.players.GetLeaderboard(board))  # nobody subscribed
    assert (nobody.code(), nobody.details()) == (Code.UNAVAILABLE, PLAYERS_DOWN)

    nc = await stack.connect_nats("players")
    silent = FakePlayersService()
    silent.silent = True  # subscribed, never answers: the lobby's 2 s run out
    try:
        await nc.subscribe(subjects.PLAYERS_QUERY, queue=subjects.PLAYERS_QUEUE, cb=silent.answer)
        await nc.flush()
        session = await sign_in(client, Key())
        quiet = await refused(
            client.players.GetMyStreak(players_pb2.GetMyStreakRequest(), metadata=bearer(session))
        )
        assert (quiet.code(), quiet.details()) == (Code.UNAVAILABLE, PLAYERS_DOWN)
        # The question reached a subscriber (not "no responders"): the lobby gave up waiting.
        assert len(silent.asked) == 1
    finally:
        await nc.drain()
