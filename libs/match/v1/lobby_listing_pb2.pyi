from match.v1 import lobby_pb2 as _lobby_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListingSnapshot(_message.Message):
    __slots__ = ("version", "sequence", "stream_created", "log_ms", "tables", "expired", "archived", "finished", "quarantined", "left", "invites", "first_sequence", "gaps")
    class Listed(_message.Message):
        __slots__ = ("table_id", "table", "records", "next_event", "waiting", "botted", "filling", "unfolded")
        TABLE_ID_FIELD_NUMBER: _ClassVar[int]
        TABLE_FIELD_NUMBER: _ClassVar[int]
        RECORDS_FIELD_NUMBER: _ClassVar[int]
        NEXT_EVENT_FIELD_NUMBER: _ClassVar[int]
        WAITING_FIELD_NUMBER: _ClassVar[int]
        BOTTED_FIELD_NUMBER: _ClassVar[int]
        FILLING_FIELD_NUMBER: _ClassVar[int]
        UNFOLDED_FIELD_NUMBER: _ClassVar[int]
        table_id: str
        table: _lobby_pb2.Table
        records: int
        next_event: int
        waiting: bool
        botted: bool
        filling: bool
        unfolded: bool
        def __init__(self, table_id: _Optional[str] = ..., table: _Optional[_Union[_lobby_pb2.Table, _Mapping]] = ..., records: _Optional[int] = ..., next_event: _Optional[int] = ..., waiting: _Optional[bool] = ..., botted: _Optional[bool] = ..., filling: _Optional[bool] = ..., unfolded: _Optional[bool] = ...) -> None: ...
    class Finished(_message.Message):
        __slots__ = ("table_id", "ended_ms")
        TABLE_ID_FIELD_NUMBER: _ClassVar[int]
        ENDED_MS_FIELD_NUMBER: _ClassVar[int]
        table_id: str
        ended_ms: int
        def __init__(self, table_id: _Optional[str] = ..., ended_ms: _Optional[int] = ...) -> None: ...
    class Quarantined(_message.Message):
        __slots__ = ("table_id", "sequence", "index", "problem")
        TABLE_ID_FIELD_NUMBER: _ClassVar[int]
        SEQUENCE_FIELD_NUMBER: _ClassVar[int]
        INDEX_FIELD_NUMBER: _ClassVar[int]
        PROBLEM_FIELD_NUMBER: _ClassVar[int]
        table_id: str
        sequence: int
        index: int
        problem: str
        def __init__(self, table_id: _Optional[str] = ..., sequence: _Optional[int] = ..., index: _Optional[int] = ..., problem: _Optional[str] = ...) -> None: ...
    class SeatsGivenUp(_message.Message):
        __slots__ = ("table_id", "player_ids")
        TABLE_ID_FIELD_NUMBER: _ClassVar[int]
        PLAYER_IDS_FIELD_NUMBER: _ClassVar[int]
        table_id: str
        player_ids: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, table_id: _Optional[str] = ..., player_ids: _Optional[_Iterable[str]] = ...) -> None: ...
    class Gap(_message.Message):
        __slots__ = ("first", "last")
        FIRST_FIELD_NUMBER: _ClassVar[int]
        LAST_FIELD_NUMBER: _ClassVar[int]
        first: int
        last: int
        def __init__(self, first: _Optional[int] = ..., last: _Optional[int] = ...) -> None: ...
    class Invite(_message.Message):
        __slots__ = ("code", "table_id")
        CODE_FIELD_NUMBER: _ClassVar[int]
        TABLE_ID_FIELD_NUMBER: _ClassVar[int]
        code: str
        table_id: str
        def __init__(self, code: _Optional[str] = ..., table_id: _Optional[str] = ...) -> None: ...
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    STREAM_CREATED_FIELD_NUMBER: _ClassVar[int]
    LOG_MS_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    QUARANTINED_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    INVITES_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    GAPS_FIELD_NUMBER: _ClassVar[int]
    version: int
    sequence: int
    stream_created: str
    log_ms: int
    tables: _containers.RepeatedCompositeFieldContainer[ListingSnapshot.Listed]
    expired: _containers.RepeatedScalarFieldContainer[str]
    archived: _containers.RepeatedScalarFieldContainer[str]
    finished: _containers.RepeatedCompositeFieldContainer[ListingSnapshot.Finished]
    quarantined: _containers.RepeatedCompositeFieldContainer[ListingSnapshot.Quarantined]
    left: _containers.RepeatedCompositeFieldContainer[ListingSnapshot.SeatsGivenUp]
    invites: _containers.RepeatedCompositeFieldContainer[ListingSnapshot.Invite]
    first_sequence: int
    gaps: _containers.RepeatedCompositeFieldContainer[ListingSnapshot.Gap]
    def __init__(self, version: _Optional[int] = ..., sequence: _Optional[int] = ..., stream_created: _Optional[str] = ..., log_ms: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[ListingSnapshot.Listed, _Mapping]]] = ..., expired: _Optional[_Iterable[str]] = ..., archived: _Optional[_Iterable[str]] = ..., finished: _Optional[_Iterable[_Union[ListingSnapshot.Finished, _Mapping]]] = ..., quarantined: _Optional[_Iterable[_Union[ListingSnapshot.Quarantined, _Mapping]]] = ..., left: _Optional[_Iterable[_Union[ListingSnapshot.SeatsGivenUp, _Mapping]]] = ..., invites: _Optional[_Iterable[_Union[ListingSnapshot.Invite, _Mapping]]] = ..., first_sequence: _Optional[int] = ..., gaps: _Optional[_Iterable[_Union[ListingSnapshot.Gap, _Mapping]]] = ...) -> None: ...
