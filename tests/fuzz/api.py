"""The public gRPC API as the fuzz suite sees it: every method, its messages, the statuses
docs/api.md documents for it, raw calls with bytes, and hypothesis strategies for requests.

A raw call sends bytes as the request body (``request_serializer=None``), so the lobby's own
parsing is under test, not the client's. Every call has a timeout: a hang fails as
DEADLINE_EXCEEDED.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2
from hypothesis import strategies as st

from match.v1 import lobby_pb2, players_pb2, race_service_pb2

CALL_TIMEOUT_S = 5.0
# A connection of its own for every channel (gRPC shares one between channels with the same
# target and settings by default): the lobby's rate limits are per connection.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]

S = grpc.StatusCode
# Never an answer to anything a client sends: a crash, an unexpected exception, a hang.
NEVER = {S.UNKNOWN, S.INTERNAL, S.DEADLINE_EXCEEDED, S.DATA_LOSS}
# Any call may be refused for its size (over 64 KiB, or metadata over gRPC's limit) or rate.
ANY = {S.RESOURCE_EXHAUSTED, S.INVALID_ARGUMENT}
TOKEN = {S.UNAUTHENTICATED, S.PERMISSION_DENIED}  # docs/api.md, "Authentication"
# The referee's refusals (docs/api.md, "Errors": the categories and the table slugs).
REFUSALS = {S.FAILED_PRECONDITION, S.PERMISSION_DENIED, S.NOT_FOUND, S.RESOURCE_EXHAUSTED}


@dataclass(frozen=True)
class Method:
    path: str
    request: type[Message]
    response: type[Message]
    allowed: frozenset[grpc.StatusCode]  # what docs/api.md says it may end with, besides OK
    streaming: bool = False

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[1]


def _m(
    path: str,
    request: type[Message],
    response: type[Message],
    allowed: set[grpc.StatusCode],
    streaming: bool = False,
) -> Method:
    return Method(path, request, response, frozenset(allowed | ANY), streaming)


L, R = "/match.v1.LobbyService/", "/match.v1.MatchRaceService/"
P, Pl = "/match.v1.PlayerService/", players_pb2
# The players service's answers may be missing (UNAVAILABLE: docs/api.md, PlayerService).
READ = {S.UNAVAILABLE}
METHODS = (
    _m(L + "CreateTable", lobby_pb2.CreateTableRequest, lobby_pb2.CreateTableResponse,
       {S.UNIMPLEMENTED} | REFUSALS | TOKEN),  # TOKEN: a bad session (docs/api.md)
    _m(L + "ListTables", lobby_pb2.ListTablesRequest, lobby_pb2.ListTablesResponse, set()),
    _m(L + "JoinTable", lobby_pb2.JoinTableRequest, lobby_pb2.JoinTableResponse,
       REFUSALS | TOKEN),
    _m(L + "LeaveTable", lobby_pb2.LeaveTableRequest, lobby_pb2.LeaveTableResponse,
       TOKEN | REFUSALS),
    _m(L + "StartTable", lobby_pb2.StartTableRequest, lobby_pb2.StartTableResponse,
       TOKEN | REFUSALS),
    _m(L + "GetTable", lobby_pb2.GetTableRequest, lobby_pb2.GetTableResponse,
       TOKEN | {S.NOT_FOUND}),
    _m(L + "Rematch", lobby_pb2.RematchRequest, lobby_pb2.RematchResponse,
       TOKEN | REFUSALS),
    _m(R + "PressReady", race_service_pb2.PressReadyRequest,
       race_service_pb2.PressReadyResponse, TOKEN | REFUSALS),
    _m(R + "TurnTile", race_service_pb2.TurnTileRequest, race_service_pb2.TurnTileResponse,
       TOKEN | REFUSALS),
    _m(R + "Resign", race_service_pb2.ResignRequest, race_service_pb2.ResignResponse,
       TOKEN | REFUSALS),
    _m(R + "RequestHint", race_service_pb2.RequestHintRequest,
       race_service_pb2.RequestHintResponse, TOKEN | REFUSALS),
    _m(R + "Watch", race_service_pb2.WatchRequest, race_service_pb2.WatchResponse,
       TOKEN | {S.NOT_FOUND, S.UNAVAILABLE}, streaming=True),
    _m(P + "GetChallenge", Pl.GetChallengeRequest, Pl.GetChallengeResponse, set()),
    _m(P + "SignIn", Pl.SignInRequest, Pl.SignInResponse, TOKEN),
    _m(P + "FindMySeats", Pl.FindMySeatsRequest, Pl.FindMySeatsResponse, TOKEN),
    _m(P + "GetMyProfile", Pl.GetMyProfileRequest, Pl.GetMyProfileResponse, TOKEN | READ),
    _m(P + "GetMyStatistics", Pl.GetMyStatisticsRequest, Pl.GetMyStatisticsResponse,
       TOKEN | READ),
    _m(P + "GetMyStreak", Pl.GetMyStreakRequest, Pl.GetMyStreakResponse, TOKEN | READ),
    _m(P + "GetProfile", Pl.GetProfileRequest, Pl.GetProfileResponse, {S.NOT_FOUND} | READ),
    _m(P + "GetLeaderboard", Pl.GetLeaderboardRequest, Pl.GetLeaderboardResponse,
       {S.OUT_OF_RANGE} | READ),
    # Served by the lobby too (docs/api.md): an unknown service name is NOT_FOUND.
    _m("/grpc.health.v1.Health/Check", health_pb2.HealthCheckRequest,
       health_pb2.HealthCheckResponse, {S.NOT_FOUND}),
)  # fmt: skip
BY_NAME = {m.name: m for m in METHODS}


@dataclass
class Outcome:
    """How one raw call ended: its status, its message, its trailers, what it sent back."""

    code: grpc.StatusCode
    details: str
    trailers: dict[str, str]
    replies: list[bytes]

    def retry_after_ms(self) -> int | None:
        raw = self.trailers.get("retry-after-ms")
        return int(raw) if raw is not None else None


def _trailers(error: grpc.RpcError) -> dict[str, str]:
    out = {}
    for key, value in error.trailing_metadata() or ():
        out[key] = value.decode() if isinstance(value, bytes) else str(value)
    return out


def call(
    channel: grpc.Channel,
    method: Method,
    body: bytes,
    metadata: Sequence[tuple[str, str]] = (),
    timeout: float = CALL_TIMEOUT_S,
) -> Outcome:
    """Send ``body`` as the request of ``method``; how it ended. A stream is read to its end
    (within the timeout)."""
    replies: list[bytes] = []
    try:
        if method.streaming:
            stream = channel.unary_stream(
                method.path, request_serializer=None, response_deserializer=None
            )
            for item in stream(body, timeout=timeout, metadata=tuple(metadata)):
                replies.append(item)
        else:
            unary = channel.unary_unary(
                method.path, request_serializer=None, response_deserializer=None
            )
            replies.append(unary(body, timeout=timeout, metadata=tuple(metadata)))
    except grpc.RpcError as error:
        return Outcome(error.code(), error.details() or "", _trailers(error), replies)
    return Outcome(S.OK, "", {}, replies)


def problems(method: Method, outcome: Outcome) -> list[str]:
    """What is wrong with how a call ended (nothing, for an answer the docs allow)."""
    found = []
    if outcome.code in NEVER or (outcome.code != S.OK and outcome.code not in method.allowed):
        found.append(f"{method.name} ended {outcome.code.name}: {outcome.details!r}")
    for sign in ("Traceback", "<class ", "Exception", 'File "'):
        if sign in outcome.details:
            found.append(f"{method.name}'s message shows an internal detail: {outcome.details!r}")
    if outcome.code == S.RESOURCE_EXHAUSTED and "retry-after-ms" in outcome.trailers:
        value = outcome.retry_after_ms()
        if value is None or value < 1:
            found.append(f"{method.name}: retry-after-ms {outcome.trailers!r}")
    return found


def decoded(method: Method, outcome: Outcome) -> Iterator[Any]:
    """The replies of a call as messages (what the leak check reads)."""
    for raw in outcome.replies:
        yield method.response.FromString(raw)


# --- hypothesis strategies -------------------------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


@st.composite
def wire(draw: st.DrawFn) -> bytes:
    """Bytes shaped like protobuf: fields 1..20 of any wire type with any payload (often a
    real field of the request with the wrong type, or a string that is not UTF-8)."""
    out = bytearray()
    for _ in range(draw(st.integers(0, 6))):
        number = draw(st.integers(1, 20))
        kind = draw(st.sampled_from((0, 1, 2, 5, 3, 7)))  # 3 and 7: groups, invalid
        out += _varint(number << 3 | kind)
        if kind == 0:
            out += _varint(draw(st.integers(0, 2**64 - 1)))
        elif kind == 1:
            out += draw(st.binary(min_size=8, max_size=8))
        elif kind == 5:
            out += draw(st.binary(min_size=4, max_size=4))
        elif kind == 2:
            payload = draw(st.binary(max_size=48))
            claimed = len(payload) + draw(st.sampled_from((0, 0, 0, 1, -1, 1000)))
            out += _varint(max(claimed, 0)) + payload
    return bytes(out)


def bodies() -> st.SearchStrategy[bytes]:
    """Any bytes, and bytes that look like protobuf."""
    return st.one_of(st.binary(max_size=600), wire())


TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=string.ascii_lowercase + string.digits, min_size=7, max_size=33),
    st.text(alphabet="23456789ABCDEFGHJKMNPQRSTUVWXYZ -", min_size=6, max_size=12),
    st.sampled_from(("", " ", "Ann", "abcdef0123456789", "\x00", "\u202e", "a" * 33)),
)


def _field(field: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if field.type == FieldDescriptor.TYPE_STRING:
        return TEXT
    if field.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=40)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if field.type == FieldDescriptor.TYPE_ENUM:
        return st.integers(-1, 8)
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return messages(field.message_type, depth + 1)
    if field.type in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        return st.one_of(st.integers(0, 25), st.integers(0, 2**32 - 1))
    if field.type in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return st.one_of(st.integers(0, 600), st.integers(0, 2**64 - 1))
    if field.type in (
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
    ):
        return st.integers(-(2**31), 2**31 - 1)
    return st.integers(-(2**63), 2**63 - 1)


def messages(descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[bytes]:
    """A valid message of ``descriptor`` with any values in its fields (each field maybe
    unset), serialized."""
    fields = [f for f in descriptor.fields if not f.is_repeated]
    if depth > 1:
        fields = []
    drawn = st.fixed_dictionaries({}, optional={f.name: _field(f, depth) for f in fields})

    def build(values: dict[str, Any]) -> bytes:
        message = _class(descriptor)()
        for name, value in values.items():
            field = descriptor.fields_by_name[name]
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                getattr(message, name).ParseFromString(value)
            else:
                setattr(message, name, value)
        return message.SerializeToString()

    return drawn.map(build)


def _class(descriptor: Descriptor) -> Callable[[], Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "


def metadata() -> st.SearchStrategy[list[tuple[str, str]]]:
    """What a client may put beside a request: maybe a bearer token (garbled), a request id, a
    bot key (never the right one)."""
    token = st.one_of(
        st.text(alphabet=PRINTABLE, max_size=80).map(lambda t: f"Bearer {t}"),
        st.text(alphabet=PRINTABLE, max_size=40),
        st.sampled_from(("Bearer ", "Bearer a.b", "bearer x.y", "Basic YWJj")),
    )
    entries = st.fixed_dictionaries(
        {},
        optional={
            "authorization": token,
            "x-request-id": st.text(alphabet=PRINTABLE, max_size=80),
            "x-match-bot-key": st.text(alphabet=PRINTABLE, max_size=40),
        },
    )
    return entries.map(lambda d: sorted(d.items()))


async def acall(
    channel: grpc.aio.Channel,
    method: Method,
    body: bytes,
    metadata: Sequence[tuple[str, str]] = (),
    timeout: float = CALL_TIMEOUT_S,
) -> Outcome:
    """:func:`call` over an asyncio channel."""
    replies: list[bytes] = []
    try:
        if method.streaming:
            stream = channel.unary_stream(
                method.path, request_serializer=None, response_deserializer=None
            )
            async for item in stream(body, timeout=timeout, metadata=tuple(metadata)):
                replies.append(item)
        else:
            unary = channel.unary_unary(
                method.path, request_serializer=None, response_deserializer=None
            )
            replies.append(await unary(body, timeout=timeout, metadata=tuple(metadata)))
    except grpc.aio.AioRpcError as error:
        return Outcome(error.code(), error.details() or "", _trailers(error), replies)
    return Outcome(S.OK, "", {}, replies)
