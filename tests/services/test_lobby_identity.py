"""Signing in with a key, pure: player ids, challenges, session tokens, the two kinds of token
kept apart, the callers of a signed-in player, the directory's index of a player's seats, and
PlayerService's checks in front of the players service (a fake answers here).

The same through the real stack: tests/security/test_player_identity.py.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from match.v1 import common_pb2, players_pb2, race_pb2, referee_pb2
from match_bus import subjects
from match_players.identity import SIGN_IN_PREFIX, is_keyed, player_id, sign_in_message
from services.lobby import directory as directory_module
from services.lobby.callers import caller
from services.lobby.config import (
    DEFAULT_CHALLENGE_TTL_S,
    DEFAULT_SESSION_TTL_S,
    DEFAULT_SIGN_IN_LIMIT,
    ConfigError,
    LobbyConfig,
)
from services.lobby.directory import TableDirectory
from services.lobby.edge import NO_SESSION, SEAT_NOT_SESSION, SESSION_NOT_SEAT, Auth, Limits
from services.lobby.errors import ApiError
from services.lobby.identity import (
    EXPIRED_CHALLENGE,
    FOREIGN_CHALLENGE,
    FORGED,
    OTHER_KEY,
    REPLAYED,
    Challenges,
    SessionError,
    SessionExpired,
    Sessions,
)
from services.lobby.ids import Ids
from services.lobby.limits import Limiter, Rate
from services.lobby.players import PlayerServicer
from services.lobby.players_client import PLAYERS_DOWN, read_answer
from services.lobby.tokens import TokenError, Tokens

SECRET = bytes(range(32))
RACE = common_pb2.GAME_KIND_MATCH_RACE
MATCH_CARDS = common_pb2.GAME_KIND_MATCH_CARDS
Code = grpc.StatusCode


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Key:
    """A player's key pair, as a client keeps it."""

    def __init__(self) -> None:
        self.private = Ed25519PrivateKey.generate()
        self.public = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.player = player_id(self.public)

    def sign(self, challenge: str) -> bytes:
        return self.private.sign(sign_in_message(challenge))


def refused(call: Callable[[], object]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call()
    return caught.value


# --- player ids ---------------------------------------------------------------------------------


def test_a_player_id_is_k_and_23_hex_digits_of_the_keys_hash() -> None:
    assert player_id(bytes(32)) == "k17474d3c6c75c45f9f2ea92"  # a vector for other clients
    key = bytes(range(32))
    digest = hashlib.sha256(b"match-player-v1\0" + key).hexdigest()
    assert player_id(key) == "k" + digest[:23]
    assert is_keyed(player_id(key))
    assert SIGN_IN_PREFIX == b"match-sign-in-v1\n"
    assert sign_in_message("c1.x") == b"match-sign-in-v1\nc1.x"


@pytest.mark.parametrize(
    "other",
    ["0123456789abcdef", "K17474d3c6c75c45f9f2ea92", "k17474d3c6c75c45f9f2ea9", "cpu-1", ""],
)
def test_anonymous_and_bot_ids_are_not_keyed(other: str) -> None:
    assert not is_keyed(other)


def test_a_key_of_another_size_has_no_player_id() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        player_id(bytes(33))


# --- challenges ---------------------------------------------------------------------------------


def test_a_signed_challenge_signs_in_once() -> None:
    clock, key = Clock(), Key()
    challenges = Challenges(SECRET, 60, clock)
    challenge = challenges.issue(key.public)
    assert challenge.player == key.player
    assert challenge.expires_at_ms == int(clock.now * 1000) + 60_000
    assert challenges.sign_in(key.public, challenge.text, key.sign(challenge.text)) == key.player
    again = refused(
        lambda: challenges.sign_in(key.public, challenge.text, key.sign(challenge.text))
    )
    assert (again.code, again.message) == (Code.UNAUTHENTICATED, REPLAYED)
    # Another replica (the same secret) checks it too; it does not know it was used.
    other = Challenges(SECRET, 60, clock)
    assert other.sign_in(key.public, challenge.text, key.sign(challenge.text)) == key.player


def test_a_forged_signature_is_refused_and_does_not_use_the_challenge_up() -> None:
    key, thief = Key(), Key()
    challenges = Challenges(SECRET, 60, Clock())
    challenge = challenges.issue(key.public).text
    for signature in (thief.sign(challenge), bytes(64), key.private.sign(challenge.encode())):
        error = refused(lambda s=signature: challenges.sign_in(key.public, challenge, s))
        assert (error.code, error.message) == (Code.UNAUTHENTICATED, FORGED)
    assert challenges.remembered() == 0
    assert challenges.sign_in(key.public, challenge, key.sign(challenge)) == key.player


def test_an_expired_challenge_is_refused() -> None:
    clock, key = Clock(), Key()
    challenges = Challenges(SECRET, 60, clock)
    challenge = challenges.issue(key.public).text
    clock.now += 60
    error = refused(lambda: challenges.sign_in(key.public, challenge, key.sign(challenge)))
    assert (error.code, error.message) == (Code.UNAUTHENTICATED, EXPIRED_CHALLENGE)
    assert "expired" in error.message and "ask for a new one" in error.message


def test_a_challenge_for_another_key_is_refused_even_signed_by_that_key() -> None:
    mine, other = Key(), Key()
    challenges = Challenges(SECRET, 60, Clock())
    challenge = challenges.issue(mine.public).text
    error = refused(lambda: challenges.sign_in(other.public, challenge, other.sign(challenge)))
    assert (error.code, error.message) == (Code.UNAUTHENTICATED, OTHER_KEY)


def test_a_challenge_not_made_by_this_lobby_is_refused() -> None:
    key = Key()
    clock = Clock()
    foreign = Challenges(b"another secret!!" * 2, 60, clock).issue(key.public).text
    challenges = Challenges(SECRET, 60, clock)
    mine = challenges.issue(key.public).text
    longer = mine.replace(mine.split(".")[2], str(int(mine.split(".")[2]) + 10**9))
    for text in (foreign, longer, mine + "0", "c1." + "x" * 300, "hello"):
        error = refused(lambda t=text: challenges.sign_in(key.public, t, key.sign(t)))
        assert (error.code, error.message) == (Code.UNAUTHENTICATED, FOREIGN_CHALLENGE)


@pytest.mark.parametrize(
    ("public", "challenge", "signature", "says"),
    [
        (bytes(31), "c", bytes(64), "public_key must be the raw Ed25519 public key, 32 bytes"),
        (b"", "c", bytes(64), "got 0 bytes"),
        (None, "", bytes(64), "challenge is required"),
        (None, "c", bytes(63), "signature must be the Ed25519 signature, 64 bytes"),
    ],
)
def test_malformed_sign_ins_are_invalid_arguments(
    public: bytes | None, challenge: str, signature: bytes, says: str
) -> None:
    challenges = Challenges(SECRET, 60, Clock())
    key = Key().public if public is None else public
    error = refused(lambda: challenges.sign_in(key, challenge, signature))
    assert error.code == Code.INVALID_ARGUMENT and says in error.message
    assert refused(lambda: challenges.issue(bytes(16))).code == Code.INVALID_ARGUMENT


def test_used_challenges_are_forgotten_when_they_expire_and_bounded_meanwhile() -> None:
    clock = Clock()
    challenges = Challenges(SECRET, 60, clock, max_used=3)
    keys = [Key() for _ in range(4)]
    for key in keys[:3]:
        text = challenges.issue(key.public).text
        challenges.sign_in(key.public, text, key.sign(text))
    text = challenges.issue(keys[3].public).text
    full = refused(lambda: challenges.sign_in(keys[3].public, text, keys[3].sign(text)))
    assert full.code == Code.RESOURCE_EXHAUSTED and "too many sign-ins" in full.message
    assert dict(full.trailers)["retry-after-ms"] == "60000"
    clock.now += 61  # the three expired: forgotten; a new challenge signs in
    text = challenges.issue(keys[3].public).text
    assert challenges.sign_in(keys[3].public, text, keys[3].sign(text)) == keys[3].player
    assert challenges.remembered() == 1


# --- session tokens -----------------------------------------------------------------------------


def test_a_session_names_its_player_and_expires() -> None:
    clock = Clock()
    sessions = Sessions(SECRET, 3600, clock)
    token, expires_at_ms = sessions.issue("k" + "a" * 23)
    assert expires_at_ms == (int(clock.now) + 3600) * 1000
    assert sessions.verify(token).player == "k" + "a" * 23
    clock.now += 3600
    with pytest.raises(SessionExpired, match="sign in again"):
        sessions.verify(token)


def test_a_seat_token_is_no_session_and_a_session_no_seat_token() -> None:
    tokens, sessions = Tokens(SECRET, 3600), Sessions(SECRET, 3600)
    seat = tokens.issue("table0001", "k" + "a" * 23, 1)
    session, _ = sessions.issue("k" + "a" * 23)
    with pytest.raises(SessionError, match="not one this lobby issued"):
        sessions.verify(seat)
    with pytest.raises(TokenError, match="not one this lobby issued"):
        tokens.verify(session)


def _signed(payload: dict[str, Any], key: bytes) -> str:
    data = json.dumps(payload).encode()
    mac = hmac.new(key, data, hashlib.sha256).digest()
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    return f"{b64(data)}.{b64(mac)}"


def test_a_session_must_say_it_is_one_for_a_keyed_player() -> None:
    key = hmac.new(SECRET, b"match-session-v1", hashlib.sha256).digest()
    sessions = Sessions(SECRET, 3600)
    good = {"kind": "session", "player": "k" + "b" * 23, "exp": 2**40}
    assert sessions.verify(_signed(good, key)).player == "k" + "b" * 23
    for bad in (
        {**good, "kind": "seat"},
        {**good, "player": "0123456789abcdef"},
        {**good, "exp": "never"},
        {"player": good["player"], "exp": good["exp"]},
    ):
        with pytest.raises(SessionError, match="garbled"):
            sessions.verify(_signed(bad, key))
    with pytest.raises(SessionError, match="not one this lobby issued"):
        Sessions(b"x" * 32, 3600).verify(_signed(good, key))
    for garbled in ("", "a.b.c", "!!.??", "x" * 600):
        with pytest.raises(SessionError):
            sessions.verify(garbled)


# --- the edge: which token where ----------------------------------------------------------------


class Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, message: str, trailers: Any = ()) -> None:
        super().__init__(message)
        self.code, self.message, self.trailers = code, message, dict(trailers or ())


class Context:
    """Just enough of grpc.aio.ServicerContext."""

    def __init__(self, *metadata: tuple[str, str], peer: str = "ipv4:127.0.0.1:5000") -> None:
        self._metadata = metadata
        self._peer = peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    async def abort(self, code: grpc.StatusCode, message: str, trailers: Any = ()) -> None:
        raise Aborted(code, message, trailers)


def bearer(token: str) -> tuple[str, str]:
    return ("authorization", f"Bearer {token}")


def _auth(clock: Clock | None = None, limits: Limits | None = None) -> Auth:
    clock = clock or Clock()
    return Auth(Tokens(SECRET, 3600, clock), None, limits, Sessions(SECRET, 86_400, clock))


def test_each_kind_of_token_is_refused_where_the_other_is_wanted_saying_so() -> None:
    clock = Clock()
    auth = _auth(clock)
    player = Key().player
    seat = auth.tokens.issue("table0001", player, 1)
    session, _ = auth.sessions.issue(player)
    assert auth.session(Context(bearer(session))) is not None
    assert auth.claims(Context(bearer(seat))) is not None
    error = refused(lambda: auth.session(Context(bearer(seat))))
    assert (error.code, error.message) == (Code.UNAUTHENTICATED, SEAT_NOT_SESSION)
    error = refused(lambda: auth.player(Context(bearer(session)), "table0001"))
    assert (error.code, error.message) == (Code.UNAUTHENTICATED, SESSION_NOT_SEAT)
    assert auth.session(Context()) is None
    error = refused(lambda: auth.signed_in(Context()))
    assert (error.code, error.message) == (Code.UNAUTHENTICATED, NO_SESSION)
    error = refused(lambda: auth.signed_in(Context(("authorization", "Basic x"))))
    assert (error.code, error.message) == (Code.UNAUTHENTICATED, NO_SESSION)
    clock.now += 86_400  # both expired: still told apart
    error = refused(lambda: auth.session(Context(bearer(seat))))
    assert error.message == SEAT_NOT_SESSION
    error = refused(lambda: auth.signed_in(Context(bearer(session))))
    assert "the session expired" in error.message
    error = refused(lambda: auth.player(Context(bearer(session)), "table0001"))
    assert error.message == SESSION_NOT_SEAT


def test_a_signed_in_caller_is_their_player_whatever_the_client_key() -> None:
    context = Context(("x-client-key", "3f9a1c7e5b2d4f60a8c1e3b5d7f9a2c4"))
    assert caller(context) == "key:3f9a1c7e5b2d4f60a8c1e3b5d7f9a2c4"
    assert caller(context, "k" + "a" * 23) == "player:k" + "a" * 23
    assert caller(Context(peer="ipv4:1.2.3.4:5"), "k" + "a" * 23) == "player:k" + "a" * 23
    bad = Context(("x-client-key", "0000000000000000"))
    assert refused(lambda: caller(bad, "k" + "a" * 23)).code == Code.INVALID_ARGUMENT


def test_the_sign_in_settings_have_defaults_and_knobs() -> None:
    config = LobbyConfig.from_env({})
    assert config.challenge_ttl_s == DEFAULT_CHALLENGE_TTL_S == 60
    assert config.session_ttl_s == DEFAULT_SESSION_TTL_S == 86_400
    assert config.sign_in_limit == DEFAULT_SIGN_IN_LIMIT
    assert config.players_timeout_s == 2.0
    config = LobbyConfig.from_env(
        {
            "LOBBY_CHALLENGE_TTL_S": "30",
            "LOBBY_SESSION_TTL_S": "600",
            "LOBBY_RATE_SIGN_IN": "2",
            "LOBBY_BURST_SIGN_IN": "5",
            "LOBBY_PLAYERS_TIMEOUT_S": "0.5",
        }
    )
    assert (config.challenge_ttl_s, config.session_ttl_s) == (30, 600)
    assert (config.sign_in_limit, config.players_timeout_s) == (Rate(2, 5), 0.5)
    for name in ("LOBBY_CHALLENGE_TTL_S", "LOBBY_SESSION_TTL_S", "LOBBY_PLAYERS_TIMEOUT_S"):
        with pytest.raises(ConfigError, match=name):
            LobbyConfig.from_env({name: "0"})


# --- the directory: a keyed player's seats ------------------------------------------------------


def _env(table_id: str, number: int, at: int = 0, **event: Any) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        table_id=table_id,
        game_kind=RACE,
        event_number=number,
        server_time_ms=at,
        table=common_pb2.TableEvent(**event),
    )


class Feed:
    """Records for a directory, numbered as the referee numbers them."""

    def __init__(self, directory: TableDirectory) -> None:
        self.directory = directory
        self.seq = 0
        self.records: dict[str, int] = {}
        self.events: dict[str, int] = {}

    def add(self, table_id: str, *envs: common_pb2.EventEnvelope) -> None:
        record = self.records.get(table_id, 0) + 1
        first = self.events.get(table_id, 0) + 1
        for i, env in enumerate(envs):
            env.event_number = first + i
        self.records[table_id], self.events[table_id] = record, first + len(envs) - 1
        self.seq += 1
        data = referee_pb2.TableRecord(
            table_id=table_id, record_number=record, first_event_number=first, events=envs
        ).SerializeToString()
        self.directory.take(subjects.events(table_id), self.seq, data)

    def make(self, table_id: str, at: int, host: str, seats: int = 3) -> None:
        made = common_pb2.TableEvent.TableCreated(
            seats=seats, visibility=common_pb2.VISIBILITY_OPEN
        )
        self.add(table_id, _env(table_id, 0, at, table_created=made))
        self.seat(table_id, 1, host)

    def seat(self, table_id: str, seat: int, player: str, bot: bool = False) -> None:
        seated = common_pb2.TableEvent.PlayerSeated(
            seat=seat, player_id=player, display_name=f"P{seat}", is_bot=bot
        )
        self.add(table_id, _env(table_id, 0, player_seated=seated))

    def leave(self, table_id: str, player: str) -> None:
        left = common_pb2.TableEvent.PlayerLeft(player_id=player)
        self.add(table_id, _env(table_id, 0, player_left=left))


def _directory() -> tuple[TableDirectory, Feed]:
    directory = TableDirectory(js=None)  # type: ignore[arg-type]  # folding only
    return directory, Feed(directory)


ANN, BOB = "k" + "a" * 23, "k" + "b" * 23


def test_a_keyed_player_who_left_and_sat_down_again_has_a_working_token() -> None:
    directory, feed = _directory()
    feed.make("table0001", 1_000, "0123456789abcdef")
    feed.seat("table0001", 2, ANN)
    feed.leave("table0001", ANN)
    assert directory.has_left("table0001", ANN)
    assert directory.seats_of(ANN) == []
    feed.seat("table0001", 3, ANN)
    assert not directory.has_left("table0001", ANN)
    (table,) = directory.seats_of(ANN)
    assert [s.seat for s in table.taken if s.player_id == ANN] == [3]
    feed.leave("table0001", ANN)
    assert directory.has_left("table0001", ANN)


def test_a_players_seats_are_indexed_newest_first_until_the_table_is_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    directory, feed = _directory()
    feed.make("table0001", 1_000, ANN)
    feed.make("table0002", 3_000, BOB)
    feed.make("table0003", 2_000, ANN)
    feed.seat("table0002", 2, ANN)
    feed.seat("table0002", 3, "cpu-3", bot=True)
    assert [t.table_id for t in directory.seats_of(ANN)] == ["table0002", "table0003", "table0001"]
    assert [t.table_id for t in directory.seats_of(ANN, "table0003")] == ["table0003"]
    assert directory.seats_of(ANN, "table0009") == []
    assert [t.table_id for t in directory.seats_of(BOB)] == ["table0002"]
    assert directory.indexed_players() == 2  # bots and anonymous players are not indexed

    # Expired: gone from the index.
    feed.add("table0001", _env("table0001", 0, table_expired=common_pb2.TableEvent.TableExpired()))
    assert [t.table_id for t in directory.seats_of(ANN)] == ["table0002", "table0003"]

    # Finished (the game's own projection says so): gone.
    monkeypatch.setattr(directory_module, "of_slug", lambda slug: _Ends() if slug else None)
    for event in ("game_started", "game_ended"):
        env = common_pb2.EventEnvelope(table_id="table0002", game_kind=RACE)
        getattr(env.race, event).SetInParent()
        feed.add("table0002", env)
    assert directory.is_over("table0002")
    assert [t.table_id for t in directory.seats_of(ANN)] == ["table0003"]
    assert directory.seats_of(BOB) == []

    # Quarantined (a record out of order): gone.
    bad = referee_pb2.TableRecord(table_id="table0003", record_number=9, first_event_number=9)
    feed.seq += 1
    directory.take(subjects.events("table0003"), feed.seq, bad.SerializeToString())
    assert directory.quarantined("table0003") is not None
    assert directory.seats_of(ANN) == []
    assert directory.indexed_players() == 0


class _Ends:
    """A game whose projection starts at game_started and ends at game_ended."""

    slug = "race"

    def decode(self, message: race_pb2.RaceEvent) -> str:
        return str(message.WhichOneof("event"))

    def initial_state(self, settings: object) -> str:
        return "waiting"

    def evolve(self, state: str, event: str) -> str:
        return event

    def is_started(self, state: str) -> bool:
        return state != "waiting"

    def is_terminal(self, state: str) -> bool:
        return state == "game_ended"


# --- PlayerService in front of the players service (a fake one) --------------------------------


class FakePlayers:
    """Answers every question from a script; remembers the questions."""

    def __init__(self, answer: players_pb2.PlayersAnswer | ApiError) -> None:
        self.answer = answer
        self.asked: list[players_pb2.PlayersQuery] = []

    async def ask(self, query: players_pb2.PlayersQuery) -> players_pb2.PlayersAnswer:
        self.asked.append(query)
        if isinstance(self.answer, ApiError):
            raise self.answer
        return read_answer(self.answer.SerializeToString(), query.WhichOneof("query"))


def _servicer(
    players: FakePlayers, directory: TableDirectory | None = None, limits: Limits | None = None
) -> PlayerServicer:
    auth = _auth(limits=limits)
    return PlayerServicer(
        auth,
        Challenges(SECRET, 60),
        directory or _directory()[0],
        players,  # type: ignore[arg-type]
        Ids(SECRET),
    )


async def _aborted(call: Awaitable[object]) -> Aborted:
    with pytest.raises(Aborted) as caught:
        await call
    return caught.value


def _board(pages: int) -> players_pb2.PlayersAnswer:
    return players_pb2.PlayersAnswer(
        leaderboard=players_pb2.GetLeaderboardResponse(page=1, pages=pages, total=pages * 20)
    )


async def test_a_leaderboard_request_is_checked_and_filled_in_before_it_is_asked() -> None:
    players = FakePlayers(_board(3))
    servicer = _servicer(players)
    Req = players_pb2.GetLeaderboardRequest
    await servicer.GetLeaderboard(Req(game_kind=RACE), Context())
    asked = players.asked[-1]
    assert asked.WhichOneof("query") == "leaderboard" and not asked.player_id
    assert (asked.leaderboard.page, asked.leaderboard.page_size) == (1, 20)
    await servicer.GetLeaderboard(
        Req(game_kind=RACE, board="level-3", page=3, page_size=100), Context()
    )
    # Match Cards' code boards are listed as 77 characters; any case names the same board, which
    # is asked for by its canonical (lower-case) name (issue 31, item 9).
    code = "code-MM3-PBMB-" + "-".join(["ABCDE"] * 10) + "-FGH"
    assert len(code) == 77
    await servicer.GetLeaderboard(Req(game_kind=MATCH_CARDS, board=code), Context())
    assert players.asked[-1].leaderboard.board == code.lower()
    await servicer.GetLeaderboard(Req(game_kind=RACE, board="a" * 80), Context())
    for wrong in ("a" * 81, "a b", "level_3", "level-3\n", "café", "İ"):
        error = await _aborted(servicer.GetLeaderboard(Req(game_kind=RACE, board=wrong), Context()))
        assert error.code == Code.INVALID_ARGUMENT, wrong
        assert "is not a board name: at most 80 letters, digits and dashes" in error.message
    for bad, says in (
        (Req(), "game_kind is required"),
        (Req(game_kind=99), "is not played here"),
        (Req(game_kind=RACE, page_size=101), "page_size must be 1 to 100"),
    ):
        error = await _aborted(servicer.GetLeaderboard(bad, Context()))
        assert error.code == Code.INVALID_ARGUMENT and says in error.message, error.message
    assert len(players.asked) == 4


async def test_a_page_past_the_last_is_out_of_range() -> None:
    servicer = _servicer(FakePlayers(_board(2)))
    Req = players_pb2.GetLeaderboardRequest
    error = await _aborted(servicer.GetLeaderboard(Req(game_kind=RACE, page=3), Context()))
    assert error.code == Code.OUT_OF_RANGE and "there are only 2 pages" in error.message
    empty = _servicer(FakePlayers(_board(0)))
    assert (await empty.GetLeaderboard(Req(game_kind=RACE, page=1), Context())).pages == 0
    error = await _aborted(empty.GetLeaderboard(Req(game_kind=RACE, page=2), Context()))
    assert error.code == Code.OUT_OF_RANGE and "there is only 1 page" in error.message


@pytest.mark.parametrize(
    ("category", "code"),
    [
        (common_pb2.Refusal.CATEGORY_NOT_FOUND, Code.NOT_FOUND),
        (common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT, Code.INVALID_ARGUMENT),
        (common_pb2.Refusal.CATEGORY_UNAVAILABLE, Code.UNAVAILABLE),
        (common_pb2.Refusal.CATEGORY_UNSPECIFIED, Code.FAILED_PRECONDITION),
    ],
)
async def test_a_refusal_of_the_players_service_keeps_its_category(
    category: int, code: grpc.StatusCode
) -> None:
    refusal = common_pb2.Refusal(code="unknown_player", message="no such player", category=category)
    servicer = _servicer(FakePlayers(players_pb2.PlayersAnswer(refusal=refusal)))
    error = await _aborted(
        servicer.GetProfile(players_pb2.GetProfileRequest(player_id=ANN), Context())
    )
    assert (error.code, error.message) == (code, "no such player")
    assert error.trailers == {"match-refusal-code": "unknown_player"}


async def test_a_profile_is_asked_for_a_keyed_id_only() -> None:
    profile = players_pb2.Profile(player_id=ANN, display_name="Ann")
    players = FakePlayers(players_pb2.PlayersAnswer(profile=profile))
    servicer = _servicer(players)
    answer = await servicer.GetProfile(players_pb2.GetProfileRequest(player_id=ANN), Context())
    assert answer.profile == profile
    assert players.asked[-1].player_id == ANN and players.asked[-1].profile.player_id == ANN
    for bad in ("", "0123456789abcdef", ANN.upper(), ANN + "0", "k" + "g" * 23):
        request = players_pb2.GetProfileRequest(player_id=bad)
        error = await _aborted(servicer.GetProfile(request, Context()))
        assert error.code == Code.INVALID_ARGUMENT, bad
    assert len(players.asked) == 1


async def test_an_answer_to_another_question_is_an_internal_error() -> None:
    servicer = _servicer(FakePlayers(_board(1)))
    error = await _aborted(
        servicer.GetProfile(players_pb2.GetProfileRequest(player_id=ANN), Context())
    )
    assert error.code == Code.INTERNAL and "try again" in error.message


async def test_my_questions_need_a_session_and_ask_about_its_player() -> None:
    streak = players_pb2.GetMyStreakResponse(current=3, best=5, last_date="2026-01-02", solved=9)
    players = FakePlayers(players_pb2.PlayersAnswer(streak=streak))
    servicer = _servicer(players)
    for call in (servicer.GetMyStreak, servicer.GetMyProfile, servicer.GetMyStatistics):
        error = await _aborted(call(players_pb2.GetMyStreakRequest(), Context()))  # type: ignore[operator]
        assert (error.code, error.message) == (Code.UNAUTHENTICATED, NO_SESSION)
    session, _ = servicer.auth.sessions.issue(ANN)
    answer = await servicer.GetMyStreak(players_pb2.GetMyStreakRequest(), Context(bearer(session)))
    assert answer == streak
    assert players.asked[-1].player_id == ANN and players.asked[-1].WhichOneof("query") == "streak"


async def test_my_figures_before_any_game_are_empty_not_an_error() -> None:
    unknown = ApiError(Code.NOT_FOUND, "no games yet")
    servicer = _servicer(FakePlayers(unknown))
    context = Context(bearer(servicer.auth.sessions.issue(ANN)[0]))
    profile = await servicer.GetMyProfile(players_pb2.GetMyProfileRequest(), context)
    assert profile.profile == players_pb2.Profile(player_id=ANN)
    stats = await servicer.GetMyStatistics(players_pb2.GetMyStatisticsRequest(), context)
    assert stats == players_pb2.GetMyStatisticsResponse()
    assert await servicer.GetMyStreak(players_pb2.GetMyStreakRequest(), context) == (
        players_pb2.GetMyStreakResponse()
    )
    down = _servicer(FakePlayers(ApiError(Code.UNAVAILABLE, PLAYERS_DOWN)))
    context = Context(bearer(down.auth.sessions.issue(ANN)[0]))
    error = await _aborted(down.GetMyProfile(players_pb2.GetMyProfileRequest(), context))
    assert (error.code, error.message) == (Code.UNAVAILABLE, PLAYERS_DOWN)


async def test_find_my_seats_gives_a_fresh_token_for_each_seat_of_the_caller() -> None:
    directory, feed = _directory()
    feed.make("table0001", 1_000, ANN)
    feed.make("table0002", 2_000, BOB)
    servicer = _servicer(FakePlayers(_board(1)), directory)
    context = Context(bearer(servicer.auth.sessions.issue(ANN)[0]))
    found = await servicer.FindMySeats(players_pb2.FindMySeatsRequest(), context)
    (seat,) = found.seats
    assert (seat.table_id, seat.seat, seat.display_name, seat.game_kind) == (
        "table0001",
        1,
        "P1",
        RACE,
    )
    claims = servicer.auth.tokens.verify(seat.player_token)
    assert (claims.table, claims.player, claims.seat) == ("table0001", ANN, 1)
    assert seat.table.table_id == "table0001"
    mine = await servicer.FindMySeats(players_pb2.FindMySeatsRequest(table_id="table0002"), context)
    assert list(mine.seats) == []  # Bob's table: nothing of Bob's
    error = await _aborted(
        servicer.FindMySeats(players_pb2.FindMySeatsRequest(table_id="NOT-A-TABLE"), context)
    )
    assert error.code == Code.INVALID_ARGUMENT
    error = await _aborted(servicer.FindMySeats(players_pb2.FindMySeatsRequest(), Context()))
    assert (error.code, error.message) == (Code.UNAUTHENTICATED, NO_SESSION)


async def test_sign_ins_are_counted_per_address() -> None:
    limits = Limits(sign_in=Limiter(Rate(per_s=0.001, burst=2)))
    servicer = _servicer(FakePlayers(_board(1)), limits=limits)
    key = Key()
    request = players_pb2.GetChallengeRequest(public_key=key.public)
    here, there = Context(peer="ipv4:10.0.0.1:1"), Context(peer="ipv4:10.0.0.2:1")
    challenge = await servicer.GetChallenge(request, here)
    signed = players_pb2.SignInRequest(
        public_key=key.public,
        challenge=challenge.challenge,
        signature=key.sign(challenge.challenge),
    )
    answer = await servicer.SignIn(signed, here)
    assert answer.player_id == key.player == challenge.player_id
    assert servicer.auth.sessions.verify(answer.session_token).player == key.player
    error = await _aborted(servicer.GetChallenge(request, Context(peer="ipv4:10.0.0.1:2")))
    assert error.code == Code.RESOURCE_EXHAUSTED and "retry-after-ms" in error.trailers
    assert "sign-ins" in error.message
    assert (await servicer.GetChallenge(request, there)).player_id == key.player
