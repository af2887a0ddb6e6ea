from match.v1 import common_pb2 as _common_pb2
from match.v1 import concentration_pb2 as _concentration_pb2
from match.v1 import concentration_command_pb2 as _concentration_command_pb2
from match.v1 import match_cards_pb2 as _match_cards_pb2
from match.v1 import match_cards_command_pb2 as _match_cards_command_pb2
from match.v1 import match_five_pb2 as _match_five_pb2
from match.v1 import match_five_command_pb2 as _match_five_command_pb2
from match.v1 import number_match_pb2 as _number_match_pb2
from match.v1 import number_match_command_pb2 as _number_match_command_pb2
from match.v1 import race_pb2 as _race_pb2
from match.v1 import race_command_pb2 as _race_command_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TableCommand(_message.Message):
    __slots__ = ("table_id", "player_id", "request_id", "create_table", "join_table", "leave_table", "start_table", "presence")
    class CreateTable(_message.Message):
        __slots__ = ("game_kind", "seats", "visibility", "invite_code", "display_name", "race", "concentration", "match_cards", "number_match", "match_five")
        GAME_KIND_FIELD_NUMBER: _ClassVar[int]
        SEATS_FIELD_NUMBER: _ClassVar[int]
        VISIBILITY_FIELD_NUMBER: _ClassVar[int]
        INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        RACE_FIELD_NUMBER: _ClassVar[int]
        CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
        MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
        NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
        MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
        game_kind: _common_pb2.GameKind
        seats: int
        visibility: _common_pb2.Visibility
        invite_code: str
        display_name: str
        race: _race_pb2.RaceSettings
        concentration: _concentration_pb2.ConcentrationSettings
        match_cards: _match_cards_pb2.MatchCardsSettings
        number_match: _number_match_pb2.NumberMatchSettings
        match_five: _match_five_pb2.MatchFiveSettings
        def __init__(self, game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., seats: _Optional[int] = ..., visibility: _Optional[_Union[_common_pb2.Visibility, str]] = ..., invite_code: _Optional[str] = ..., display_name: _Optional[str] = ..., race: _Optional[_Union[_race_pb2.RaceSettings, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_pb2.ConcentrationSettings, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_pb2.MatchCardsSettings, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_pb2.NumberMatchSettings, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_pb2.MatchFiveSettings, _Mapping]] = ...) -> None: ...
    class JoinTable(_message.Message):
        __slots__ = ("display_name", "is_bot", "invite_code")
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        IS_BOT_FIELD_NUMBER: _ClassVar[int]
        INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
        display_name: str
        is_bot: bool
        invite_code: str
        def __init__(self, display_name: _Optional[str] = ..., is_bot: _Optional[bool] = ..., invite_code: _Optional[str] = ...) -> None: ...
    class LeaveTable(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class StartTable(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Presence(_message.Message):
        __slots__ = ("present",)
        PRESENT_FIELD_NUMBER: _ClassVar[int]
        present: bool
        def __init__(self, present: _Optional[bool] = ...) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TABLE_FIELD_NUMBER: _ClassVar[int]
    JOIN_TABLE_FIELD_NUMBER: _ClassVar[int]
    LEAVE_TABLE_FIELD_NUMBER: _ClassVar[int]
    START_TABLE_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    request_id: str
    create_table: TableCommand.CreateTable
    join_table: TableCommand.JoinTable
    leave_table: TableCommand.LeaveTable
    start_table: TableCommand.StartTable
    presence: TableCommand.Presence
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., request_id: _Optional[str] = ..., create_table: _Optional[_Union[TableCommand.CreateTable, _Mapping]] = ..., join_table: _Optional[_Union[TableCommand.JoinTable, _Mapping]] = ..., leave_table: _Optional[_Union[TableCommand.LeaveTable, _Mapping]] = ..., start_table: _Optional[_Union[TableCommand.StartTable, _Mapping]] = ..., presence: _Optional[_Union[TableCommand.Presence, _Mapping]] = ...) -> None: ...

class TableCommandReply(_message.Message):
    __slots__ = ("accepted", "refusal")
    class Accepted(_message.Message):
        __slots__ = ("seat", "events")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        EVENTS_FIELD_NUMBER: _ClassVar[int]
        seat: int
        events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
        def __init__(self, seat: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ...) -> None: ...
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    accepted: TableCommandReply.Accepted
    refusal: _common_pb2.Refusal
    def __init__(self, accepted: _Optional[_Union[TableCommandReply.Accepted, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...

class StampedCommand(_message.Message):
    __slots__ = ("received_at_ms", "race", "table", "tick", "concentration", "match_cards", "number_match", "match_five")
    class Tick(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    RECEIVED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    RACE_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    TICK_FIELD_NUMBER: _ClassVar[int]
    CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
    MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
    received_at_ms: int
    race: _race_command_pb2.RaceCommand
    table: TableCommand
    tick: StampedCommand.Tick
    concentration: _concentration_command_pb2.ConcentrationCommand
    match_cards: _match_cards_command_pb2.MatchCardsCommand
    number_match: _number_match_command_pb2.NumberMatchCommand
    match_five: _match_five_command_pb2.MatchFiveCommand
    def __init__(self, received_at_ms: _Optional[int] = ..., race: _Optional[_Union[_race_command_pb2.RaceCommand, _Mapping]] = ..., table: _Optional[_Union[TableCommand, _Mapping]] = ..., tick: _Optional[_Union[StampedCommand.Tick, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_command_pb2.ConcentrationCommand, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_command_pb2.MatchCardsCommand, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_command_pb2.NumberMatchCommand, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_command_pb2.MatchFiveCommand, _Mapping]] = ...) -> None: ...

class TableRecord(_message.Message):
    __slots__ = ("table_id", "first_event_number", "events", "command", "refusal", "record_number")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    RECORD_NUMBER_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    first_event_number: int
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    command: StampedCommand
    refusal: _common_pb2.Refusal
    record_number: int
    def __init__(self, table_id: _Optional[str] = ..., first_event_number: _Optional[int] = ..., events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., command: _Optional[_Union[StampedCommand, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ..., record_number: _Optional[int] = ...) -> None: ...

class RecordFrame(_message.Message):
    __slots__ = ("records",)
    class Entry(_message.Message):
        __slots__ = ("table_id", "record", "facts", "numbers")
        TABLE_ID_FIELD_NUMBER: _ClassVar[int]
        RECORD_FIELD_NUMBER: _ClassVar[int]
        FACTS_FIELD_NUMBER: _ClassVar[int]
        NUMBERS_FIELD_NUMBER: _ClassVar[int]
        table_id: str
        record: bytes
        facts: str
        numbers: str
        def __init__(self, table_id: _Optional[str] = ..., record: _Optional[bytes] = ..., facts: _Optional[str] = ..., numbers: _Optional[str] = ...) -> None: ...
    RECORDS_FIELD_NUMBER: _ClassVar[int]
    records: _containers.RepeatedCompositeFieldContainer[RecordFrame.Entry]
    def __init__(self, records: _Optional[_Iterable[_Union[RecordFrame.Entry, _Mapping]]] = ...) -> None: ...

class LedgerRecordsRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class LedgerRecordsResponse(_message.Message):
    __slots__ = ("entries",)
    class Entry(_message.Message):
        __slots__ = ("stream_sequence", "record", "frame_index")
        STREAM_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
        RECORD_FIELD_NUMBER: _ClassVar[int]
        FRAME_INDEX_FIELD_NUMBER: _ClassVar[int]
        stream_sequence: int
        record: bytes
        frame_index: int
        def __init__(self, stream_sequence: _Optional[int] = ..., record: _Optional[bytes] = ..., frame_index: _Optional[int] = ...) -> None: ...
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[LedgerRecordsResponse.Entry]
    def __init__(self, entries: _Optional[_Iterable[_Union[LedgerRecordsResponse.Entry, _Mapping]]] = ...) -> None: ...
