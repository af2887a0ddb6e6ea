from match.v1 import common_pb2 as _common_pb2
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

class Table(_message.Message):
    __slots__ = ("table_id", "game_kind", "visibility", "seats", "taken", "status", "game_id", "created_at_ms", "invite_code", "race", "concentration", "match_cards", "number_match", "match_five", "fill_at_ms", "commitment", "expires_at_ms", "rematch")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSPECIFIED: _ClassVar[Table.Status]
        STATUS_WAITING: _ClassVar[Table.Status]
        STATUS_PLAYING: _ClassVar[Table.Status]
        STATUS_FINISHED: _ClassVar[Table.Status]
    STATUS_UNSPECIFIED: Table.Status
    STATUS_WAITING: Table.Status
    STATUS_PLAYING: Table.Status
    STATUS_FINISHED: Table.Status
    class Seat(_message.Message):
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
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    RACE_FIELD_NUMBER: _ClassVar[int]
    CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
    MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
    FILL_AT_MS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    REMATCH_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game_kind: _common_pb2.GameKind
    visibility: _common_pb2.Visibility
    seats: int
    taken: _containers.RepeatedCompositeFieldContainer[Table.Seat]
    status: Table.Status
    game_id: str
    created_at_ms: int
    invite_code: str
    race: _race_pb2.RaceSettings
    concentration: _concentration_pb2.ConcentrationSettings
    match_cards: _match_cards_pb2.MatchCardsSettings
    number_match: _number_match_pb2.NumberMatchSettings
    match_five: _match_five_pb2.MatchFiveSettings
    fill_at_ms: int
    commitment: str
    expires_at_ms: int
    rematch: Rematch
    def __init__(self, table_id: _Optional[str] = ..., game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., visibility: _Optional[_Union[_common_pb2.Visibility, str]] = ..., seats: _Optional[int] = ..., taken: _Optional[_Iterable[_Union[Table.Seat, _Mapping]]] = ..., status: _Optional[_Union[Table.Status, str]] = ..., game_id: _Optional[str] = ..., created_at_ms: _Optional[int] = ..., invite_code: _Optional[str] = ..., race: _Optional[_Union[_race_pb2.RaceSettings, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_pb2.ConcentrationSettings, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_pb2.MatchCardsSettings, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_pb2.NumberMatchSettings, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_pb2.MatchFiveSettings, _Mapping]] = ..., fill_at_ms: _Optional[int] = ..., commitment: _Optional[str] = ..., expires_at_ms: _Optional[int] = ..., rematch: _Optional[_Union[Rematch, _Mapping]] = ...) -> None: ...

class Rematch(_message.Message):
    __slots__ = ("table_id", "accepted", "status", "expired")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    accepted: _containers.RepeatedScalarFieldContainer[str]
    status: Table.Status
    expired: bool
    def __init__(self, table_id: _Optional[str] = ..., accepted: _Optional[_Iterable[str]] = ..., status: _Optional[_Union[Table.Status, str]] = ..., expired: _Optional[bool] = ...) -> None: ...

class CreateTableRequest(_message.Message):
    __slots__ = ("game_kind", "seats", "visibility", "display_name", "race", "concentration", "match_cards", "number_match", "match_five")
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    RACE_FIELD_NUMBER: _ClassVar[int]
    CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
    MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
    game_kind: _common_pb2.GameKind
    seats: int
    visibility: _common_pb2.Visibility
    display_name: str
    race: _race_pb2.RaceSettings
    concentration: _concentration_pb2.ConcentrationSettings
    match_cards: _match_cards_pb2.MatchCardsSettings
    number_match: _number_match_pb2.NumberMatchSettings
    match_five: _match_five_pb2.MatchFiveSettings
    def __init__(self, game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., seats: _Optional[int] = ..., visibility: _Optional[_Union[_common_pb2.Visibility, str]] = ..., display_name: _Optional[str] = ..., race: _Optional[_Union[_race_pb2.RaceSettings, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_pb2.ConcentrationSettings, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_pb2.MatchCardsSettings, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_pb2.NumberMatchSettings, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_pb2.MatchFiveSettings, _Mapping]] = ...) -> None: ...

class CreateTableResponse(_message.Message):
    __slots__ = ("table_id", "invite_code", "player_id", "player_token", "seat")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    invite_code: str
    player_id: str
    player_token: str
    seat: int
    def __init__(self, table_id: _Optional[str] = ..., invite_code: _Optional[str] = ..., player_id: _Optional[str] = ..., player_token: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class ListTablesRequest(_message.Message):
    __slots__ = ("game_kind", "page_size", "page_token", "fill_due_by_ms")
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    FILL_DUE_BY_MS_FIELD_NUMBER: _ClassVar[int]
    game_kind: _common_pb2.GameKind
    page_size: int
    page_token: str
    fill_due_by_ms: int
    def __init__(self, game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., fill_due_by_ms: _Optional[int] = ...) -> None: ...

class ListTablesResponse(_message.Message):
    __slots__ = ("tables", "next_page_token")
    TABLES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tables: _containers.RepeatedCompositeFieldContainer[Table]
    next_page_token: str
    def __init__(self, tables: _Optional[_Iterable[_Union[Table, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class JoinTableRequest(_message.Message):
    __slots__ = ("table_id", "invite_code", "display_name")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    invite_code: str
    display_name: str
    def __init__(self, table_id: _Optional[str] = ..., invite_code: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class JoinTableResponse(_message.Message):
    __slots__ = ("table_id", "player_id", "player_token", "seat")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    player_token: str
    seat: int
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., player_token: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class LeaveTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class LeaveTableResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StartTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class StartTableResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: Table
    def __init__(self, table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...

class GetTableRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class GetTableResponse(_message.Message):
    __slots__ = ("table",)
    TABLE_FIELD_NUMBER: _ClassVar[int]
    table: Table
    def __init__(self, table: _Optional[_Union[Table, _Mapping]] = ...) -> None: ...

class RematchRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class RematchResponse(_message.Message):
    __slots__ = ("table_id", "player_id", "player_token", "seat", "offered")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OFFERED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    player_token: str
    seat: int
    offered: bool
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., player_token: _Optional[str] = ..., seat: _Optional[int] = ..., offered: _Optional[bool] = ...) -> None: ...
