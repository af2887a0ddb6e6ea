from match.v1 import concentration_pb2 as _concentration_pb2
from match.v1 import match_cards_pb2 as _match_cards_pb2
from match.v1 import match_five_pb2 as _match_five_pb2
from match.v1 import number_match_pb2 as _number_match_pb2
from match.v1 import race_pb2 as _race_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GameKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_KIND_UNSPECIFIED: _ClassVar[GameKind]
    GAME_KIND_MATCH_RACE: _ClassVar[GameKind]
    GAME_KIND_CONCENTRATION: _ClassVar[GameKind]
    GAME_KIND_MATCH_CARDS: _ClassVar[GameKind]
    GAME_KIND_NUMBER_MATCH: _ClassVar[GameKind]
    GAME_KIND_MATCH_FIVE: _ClassVar[GameKind]

class Visibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VISIBILITY_UNSPECIFIED: _ClassVar[Visibility]
    VISIBILITY_OPEN: _ClassVar[Visibility]
    VISIBILITY_PRIVATE: _ClassVar[Visibility]
GAME_KIND_UNSPECIFIED: GameKind
GAME_KIND_MATCH_RACE: GameKind
GAME_KIND_CONCENTRATION: GameKind
GAME_KIND_MATCH_CARDS: GameKind
GAME_KIND_NUMBER_MATCH: GameKind
GAME_KIND_MATCH_FIVE: GameKind
VISIBILITY_UNSPECIFIED: Visibility
VISIBILITY_OPEN: Visibility
VISIBILITY_PRIVATE: Visibility

class Refusal(_message.Message):
    __slots__ = ("code", "message", "category")
    class Category(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CATEGORY_UNSPECIFIED: _ClassVar[Refusal.Category]
        CATEGORY_INVALID_ARGUMENT: _ClassVar[Refusal.Category]
        CATEGORY_FAILED_PRECONDITION: _ClassVar[Refusal.Category]
        CATEGORY_PERMISSION_DENIED: _ClassVar[Refusal.Category]
        CATEGORY_RESOURCE_EXHAUSTED: _ClassVar[Refusal.Category]
        CATEGORY_NOT_FOUND: _ClassVar[Refusal.Category]
        CATEGORY_UNAVAILABLE: _ClassVar[Refusal.Category]
    CATEGORY_UNSPECIFIED: Refusal.Category
    CATEGORY_INVALID_ARGUMENT: Refusal.Category
    CATEGORY_FAILED_PRECONDITION: Refusal.Category
    CATEGORY_PERMISSION_DENIED: Refusal.Category
    CATEGORY_RESOURCE_EXHAUSTED: Refusal.Category
    CATEGORY_NOT_FOUND: Refusal.Category
    CATEGORY_UNAVAILABLE: Refusal.Category
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    category: Refusal.Category
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., category: _Optional[_Union[Refusal.Category, str]] = ...) -> None: ...

class TableEvent(_message.Message):
    __slots__ = ("table_created", "player_seated", "player_left", "seed_committed", "seed_revealed", "fill_requested", "bots_assigned", "table_expired")
    class TableCreated(_message.Message):
        __slots__ = ("seats", "visibility", "creator", "invite_code", "fill_at_ms", "expires_at_ms", "race", "concentration", "match_cards", "number_match", "match_five")
        SEATS_FIELD_NUMBER: _ClassVar[int]
        VISIBILITY_FIELD_NUMBER: _ClassVar[int]
        CREATOR_FIELD_NUMBER: _ClassVar[int]
        INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
        FILL_AT_MS_FIELD_NUMBER: _ClassVar[int]
        EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
        RACE_FIELD_NUMBER: _ClassVar[int]
        CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
        MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
        NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
        MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
        seats: int
        visibility: Visibility
        creator: str
        invite_code: str
        fill_at_ms: int
        expires_at_ms: int
        race: _race_pb2.RaceSettings
        concentration: _concentration_pb2.ConcentrationSettings
        match_cards: _match_cards_pb2.MatchCardsSettings
        number_match: _number_match_pb2.NumberMatchSettings
        match_five: _match_five_pb2.MatchFiveSettings
        def __init__(self, seats: _Optional[int] = ..., visibility: _Optional[_Union[Visibility, str]] = ..., creator: _Optional[str] = ..., invite_code: _Optional[str] = ..., fill_at_ms: _Optional[int] = ..., expires_at_ms: _Optional[int] = ..., race: _Optional[_Union[_race_pb2.RaceSettings, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_pb2.ConcentrationSettings, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_pb2.MatchCardsSettings, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_pb2.NumberMatchSettings, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_pb2.MatchFiveSettings, _Mapping]] = ...) -> None: ...
    class PlayerSeated(_message.Message):
        __slots__ = ("seat", "player_id", "display_name", "is_bot")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        IS_BOT_FIELD_NUMBER: _ClassVar[int]
        seat: int
        player_id: str
        display_name: str
        is_bot: bool
        def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ..., display_name: _Optional[str] = ..., is_bot: _Optional[bool] = ...) -> None: ...
    class PlayerLeft(_message.Message):
        __slots__ = ("seat", "player_id")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
        seat: int
        player_id: str
        def __init__(self, seat: _Optional[int] = ..., player_id: _Optional[str] = ...) -> None: ...
    class SeedCommitted(_message.Message):
        __slots__ = ("deal_version", "commitment")
        DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
        COMMITMENT_FIELD_NUMBER: _ClassVar[int]
        deal_version: str
        commitment: str
        def __init__(self, deal_version: _Optional[str] = ..., commitment: _Optional[str] = ...) -> None: ...
    class SeedRevealed(_message.Message):
        __slots__ = ("seed", "deal_version")
        SEED_FIELD_NUMBER: _ClassVar[int]
        DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
        seed: bytes
        deal_version: str
        def __init__(self, seed: _Optional[bytes] = ..., deal_version: _Optional[str] = ...) -> None: ...
    class FillRequested(_message.Message):
        __slots__ = ("fill_at_ms",)
        FILL_AT_MS_FIELD_NUMBER: _ClassVar[int]
        fill_at_ms: int
        def __init__(self, fill_at_ms: _Optional[int] = ...) -> None: ...
    class BotsAssigned(_message.Message):
        __slots__ = ("strength",)
        STRENGTH_FIELD_NUMBER: _ClassVar[int]
        strength: str
        def __init__(self, strength: _Optional[str] = ...) -> None: ...
    class TableExpired(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    TABLE_CREATED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SEATED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_LEFT_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITTED_FIELD_NUMBER: _ClassVar[int]
    SEED_REVEALED_FIELD_NUMBER: _ClassVar[int]
    FILL_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    BOTS_ASSIGNED_FIELD_NUMBER: _ClassVar[int]
    TABLE_EXPIRED_FIELD_NUMBER: _ClassVar[int]
    table_created: TableEvent.TableCreated
    player_seated: TableEvent.PlayerSeated
    player_left: TableEvent.PlayerLeft
    seed_committed: TableEvent.SeedCommitted
    seed_revealed: TableEvent.SeedRevealed
    fill_requested: TableEvent.FillRequested
    bots_assigned: TableEvent.BotsAssigned
    table_expired: TableEvent.TableExpired
    def __init__(self, table_created: _Optional[_Union[TableEvent.TableCreated, _Mapping]] = ..., player_seated: _Optional[_Union[TableEvent.PlayerSeated, _Mapping]] = ..., player_left: _Optional[_Union[TableEvent.PlayerLeft, _Mapping]] = ..., seed_committed: _Optional[_Union[TableEvent.SeedCommitted, _Mapping]] = ..., seed_revealed: _Optional[_Union[TableEvent.SeedRevealed, _Mapping]] = ..., fill_requested: _Optional[_Union[TableEvent.FillRequested, _Mapping]] = ..., bots_assigned: _Optional[_Union[TableEvent.BotsAssigned, _Mapping]] = ..., table_expired: _Optional[_Union[TableEvent.TableExpired, _Mapping]] = ...) -> None: ...

class EventBatch(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[EventEnvelope]
    def __init__(self, events: _Optional[_Iterable[_Union[EventEnvelope, _Mapping]]] = ...) -> None: ...

class EventEnvelope(_message.Message):
    __slots__ = ("table_id", "game_id", "game_kind", "event_number", "server_time_ms", "table", "race", "concentration", "match_cards", "number_match", "match_five")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    RACE_FIELD_NUMBER: _ClassVar[int]
    CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
    MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game_id: str
    game_kind: GameKind
    event_number: int
    server_time_ms: int
    table: TableEvent
    race: _race_pb2.RaceEvent
    concentration: _concentration_pb2.ConcentrationEvent
    match_cards: _match_cards_pb2.MatchCardsEvent
    number_match: _number_match_pb2.NumberMatchEvent
    match_five: _match_five_pb2.MatchFiveEvent
    def __init__(self, table_id: _Optional[str] = ..., game_id: _Optional[str] = ..., game_kind: _Optional[_Union[GameKind, str]] = ..., event_number: _Optional[int] = ..., server_time_ms: _Optional[int] = ..., table: _Optional[_Union[TableEvent, _Mapping]] = ..., race: _Optional[_Union[_race_pb2.RaceEvent, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_pb2.ConcentrationEvent, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_pb2.MatchCardsEvent, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_pb2.NumberMatchEvent, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_pb2.MatchFiveEvent, _Mapping]] = ...) -> None: ...

class PlayRefusal(_message.Message):
    __slots__ = ("status_code", "message", "refusal_code", "retry_after_ms")
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_CODE_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    status_code: int
    message: str
    refusal_code: str
    retry_after_ms: int
    def __init__(self, status_code: _Optional[int] = ..., message: _Optional[str] = ..., refusal_code: _Optional[str] = ..., retry_after_ms: _Optional[int] = ...) -> None: ...
