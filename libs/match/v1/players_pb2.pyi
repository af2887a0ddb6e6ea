from match.v1 import common_pb2 as _common_pb2
from match.v1 import lobby_pb2 as _lobby_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetChallengeRequest(_message.Message):
    __slots__ = ("public_key",)
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    public_key: bytes
    def __init__(self, public_key: _Optional[bytes] = ...) -> None: ...

class GetChallengeResponse(_message.Message):
    __slots__ = ("challenge", "expires_at_ms", "player_id")
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    challenge: str
    expires_at_ms: int
    player_id: str
    def __init__(self, challenge: _Optional[str] = ..., expires_at_ms: _Optional[int] = ..., player_id: _Optional[str] = ...) -> None: ...

class SignInRequest(_message.Message):
    __slots__ = ("public_key", "challenge", "signature")
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    public_key: bytes
    challenge: str
    signature: bytes
    def __init__(self, public_key: _Optional[bytes] = ..., challenge: _Optional[str] = ..., signature: _Optional[bytes] = ...) -> None: ...

class SignInResponse(_message.Message):
    __slots__ = ("player_id", "session_token", "expires_at_ms")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    session_token: str
    expires_at_ms: int
    def __init__(self, player_id: _Optional[str] = ..., session_token: _Optional[str] = ..., expires_at_ms: _Optional[int] = ...) -> None: ...

class FindMySeatsRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class MySeat(_message.Message):
    __slots__ = ("table_id", "game_kind", "seat", "player_token", "table", "display_name")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game_kind: _common_pb2.GameKind
    seat: int
    player_token: str
    table: _lobby_pb2.Table
    display_name: str
    def __init__(self, table_id: _Optional[str] = ..., game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., seat: _Optional[int] = ..., player_token: _Optional[str] = ..., table: _Optional[_Union[_lobby_pb2.Table, _Mapping]] = ..., display_name: _Optional[str] = ...) -> None: ...

class FindMySeatsResponse(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[MySeat]
    def __init__(self, seats: _Optional[_Iterable[_Union[MySeat, _Mapping]]] = ...) -> None: ...

class Rating(_message.Message):
    __slots__ = ("game_kind", "rating", "mu", "sigma", "games", "provisional")
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    game_kind: _common_pb2.GameKind
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool
    def __init__(self, game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., rating: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., games: _Optional[int] = ..., provisional: _Optional[bool] = ...) -> None: ...

class Profile(_message.Message):
    __slots__ = ("player_id", "display_name", "ratings", "first_game_at_ms")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    FIRST_GAME_AT_MS_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    display_name: str
    ratings: _containers.RepeatedCompositeFieldContainer[Rating]
    first_game_at_ms: int
    def __init__(self, player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., ratings: _Optional[_Iterable[_Union[Rating, _Mapping]]] = ..., first_game_at_ms: _Optional[int] = ...) -> None: ...

class GetMyProfileRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetMyProfileResponse(_message.Message):
    __slots__ = ("profile",)
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    profile: Profile
    def __init__(self, profile: _Optional[_Union[Profile, _Mapping]] = ...) -> None: ...

class GetProfileRequest(_message.Message):
    __slots__ = ("player_id",)
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    def __init__(self, player_id: _Optional[str] = ...) -> None: ...

class GetProfileResponse(_message.Message):
    __slots__ = ("profile",)
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    profile: Profile
    def __init__(self, profile: _Optional[_Union[Profile, _Mapping]] = ...) -> None: ...

class Statistic(_message.Message):
    __slots__ = ("name", "value", "keep")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    keep: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., keep: _Optional[str] = ...) -> None: ...

class GameStatistics(_message.Message):
    __slots__ = ("game_kind", "games", "wins", "draws", "figures")
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    FIGURES_FIELD_NUMBER: _ClassVar[int]
    game_kind: _common_pb2.GameKind
    games: int
    wins: int
    draws: int
    figures: _containers.RepeatedCompositeFieldContainer[Statistic]
    def __init__(self, game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., draws: _Optional[int] = ..., figures: _Optional[_Iterable[_Union[Statistic, _Mapping]]] = ...) -> None: ...

class GetMyStatisticsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetMyStatisticsResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameStatistics]
    def __init__(self, games: _Optional[_Iterable[_Union[GameStatistics, _Mapping]]] = ...) -> None: ...

class GetMyStreakRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetMyStreakResponse(_message.Message):
    __slots__ = ("current", "best", "last_date", "solved")
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    LAST_DATE_FIELD_NUMBER: _ClassVar[int]
    SOLVED_FIELD_NUMBER: _ClassVar[int]
    current: int
    best: int
    last_date: str
    solved: int
    def __init__(self, current: _Optional[int] = ..., best: _Optional[int] = ..., last_date: _Optional[str] = ..., solved: _Optional[int] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("game_kind", "board", "page", "page_size")
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    game_kind: _common_pb2.GameKind
    board: str
    page: int
    page_size: int
    def __init__(self, game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., board: _Optional[str] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class LeaderboardRow(_message.Message):
    __slots__ = ("rank", "player_id", "display_name", "value", "provisional", "games")
    RANK_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    rank: int
    player_id: str
    display_name: str
    value: float
    provisional: bool
    games: int
    def __init__(self, rank: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., value: _Optional[float] = ..., provisional: _Optional[bool] = ..., games: _Optional[int] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("rows", "page", "pages", "total", "unit", "lower_is_better", "boards")
    ROWS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    LOWER_IS_BETTER_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[LeaderboardRow]
    page: int
    pages: int
    total: int
    unit: str
    lower_is_better: bool
    boards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rows: _Optional[_Iterable[_Union[LeaderboardRow, _Mapping]]] = ..., page: _Optional[int] = ..., pages: _Optional[int] = ..., total: _Optional[int] = ..., unit: _Optional[str] = ..., lower_is_better: _Optional[bool] = ..., boards: _Optional[_Iterable[str]] = ...) -> None: ...

class PlayersQuery(_message.Message):
    __slots__ = ("player_id", "profile", "statistics", "streak", "leaderboard")
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    STREAK_FIELD_NUMBER: _ClassVar[int]
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    player_id: str
    profile: GetProfileRequest
    statistics: GetMyStatisticsRequest
    streak: GetMyStreakRequest
    leaderboard: GetLeaderboardRequest
    def __init__(self, player_id: _Optional[str] = ..., profile: _Optional[_Union[GetProfileRequest, _Mapping]] = ..., statistics: _Optional[_Union[GetMyStatisticsRequest, _Mapping]] = ..., streak: _Optional[_Union[GetMyStreakRequest, _Mapping]] = ..., leaderboard: _Optional[_Union[GetLeaderboardRequest, _Mapping]] = ...) -> None: ...

class PlayersAnswer(_message.Message):
    __slots__ = ("profile", "statistics", "streak", "leaderboard", "refusal")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    STREAK_FIELD_NUMBER: _ClassVar[int]
    LEADERBOARD_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    profile: Profile
    statistics: GetMyStatisticsResponse
    streak: GetMyStreakResponse
    leaderboard: GetLeaderboardResponse
    refusal: _common_pb2.Refusal
    def __init__(self, profile: _Optional[_Union[Profile, _Mapping]] = ..., statistics: _Optional[_Union[GetMyStatisticsResponse, _Mapping]] = ..., streak: _Optional[_Union[GetMyStreakResponse, _Mapping]] = ..., leaderboard: _Optional[_Union[GetLeaderboardResponse, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...
