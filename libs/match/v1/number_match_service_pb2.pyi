from match.v1 import common_pb2 as _common_pb2
from match.v1 import number_match_pb2 as _number_match_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PairCellsRequest(_message.Message):
    __slots__ = ("table_id", "first", "second")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    first: int
    second: int
    def __init__(self, table_id: _Optional[str] = ..., first: _Optional[int] = ..., second: _Optional[int] = ...) -> None: ...

class PairCellsResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _number_match_pb2.NumberMatchView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_number_match_pb2.NumberMatchView, _Mapping]] = ...) -> None: ...

class AddNumbersRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class AddNumbersResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _number_match_pb2.NumberMatchView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_number_match_pb2.NumberMatchView, _Mapping]] = ...) -> None: ...

class AskHintRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class AskHintResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _number_match_pb2.NumberMatchView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_number_match_pb2.NumberMatchView, _Mapping]] = ...) -> None: ...

class UndoRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class UndoResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _number_match_pb2.NumberMatchView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_number_match_pb2.NumberMatchView, _Mapping]] = ...) -> None: ...

class EndGameRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class EndGameResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _number_match_pb2.NumberMatchView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_number_match_pb2.NumberMatchView, _Mapping]] = ...) -> None: ...

class NumberMatchServiceWatchRequest(_message.Message):
    __slots__ = ("table_id", "after_event_number", "batch", "skip_answered")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    SKIP_ANSWERED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    after_event_number: int
    batch: bool
    skip_answered: bool
    def __init__(self, table_id: _Optional[str] = ..., after_event_number: _Optional[int] = ..., batch: _Optional[bool] = ..., skip_answered: _Optional[bool] = ...) -> None: ...

class NumberMatchServiceWatchResponse(_message.Message):
    __slots__ = ("snapshot", "event", "events")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    snapshot: _number_match_pb2.NumberMatchView
    event: _common_pb2.EventEnvelope
    events: _common_pb2.EventBatch
    def __init__(self, snapshot: _Optional[_Union[_number_match_pb2.NumberMatchView, _Mapping]] = ..., event: _Optional[_Union[_common_pb2.EventEnvelope, _Mapping]] = ..., events: _Optional[_Union[_common_pb2.EventBatch, _Mapping]] = ...) -> None: ...

class NumberMatchServicePlayRequest(_message.Message):
    __slots__ = ("request_id", "pair_cells", "add_numbers", "ask_hint", "undo", "end_game", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    PAIR_CELLS_FIELD_NUMBER: _ClassVar[int]
    ADD_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    ASK_HINT_FIELD_NUMBER: _ClassVar[int]
    UNDO_FIELD_NUMBER: _ClassVar[int]
    END_GAME_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    pair_cells: PairCellsRequest
    add_numbers: AddNumbersRequest
    ask_hint: AskHintRequest
    undo: UndoRequest
    end_game: EndGameRequest
    watch: NumberMatchServiceWatchRequest
    def __init__(self, request_id: _Optional[str] = ..., pair_cells: _Optional[_Union[PairCellsRequest, _Mapping]] = ..., add_numbers: _Optional[_Union[AddNumbersRequest, _Mapping]] = ..., ask_hint: _Optional[_Union[AskHintRequest, _Mapping]] = ..., undo: _Optional[_Union[UndoRequest, _Mapping]] = ..., end_game: _Optional[_Union[EndGameRequest, _Mapping]] = ..., watch: _Optional[_Union[NumberMatchServiceWatchRequest, _Mapping]] = ...) -> None: ...

class NumberMatchServicePlayResponse(_message.Message):
    __slots__ = ("request_id", "refusal", "pair_cells", "add_numbers", "ask_hint", "undo", "end_game", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    PAIR_CELLS_FIELD_NUMBER: _ClassVar[int]
    ADD_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    ASK_HINT_FIELD_NUMBER: _ClassVar[int]
    UNDO_FIELD_NUMBER: _ClassVar[int]
    END_GAME_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    refusal: _common_pb2.PlayRefusal
    pair_cells: PairCellsResponse
    add_numbers: AddNumbersResponse
    ask_hint: AskHintResponse
    undo: UndoResponse
    end_game: EndGameResponse
    watch: NumberMatchServiceWatchResponse
    def __init__(self, request_id: _Optional[str] = ..., refusal: _Optional[_Union[_common_pb2.PlayRefusal, _Mapping]] = ..., pair_cells: _Optional[_Union[PairCellsResponse, _Mapping]] = ..., add_numbers: _Optional[_Union[AddNumbersResponse, _Mapping]] = ..., ask_hint: _Optional[_Union[AskHintResponse, _Mapping]] = ..., undo: _Optional[_Union[UndoResponse, _Mapping]] = ..., end_game: _Optional[_Union[EndGameResponse, _Mapping]] = ..., watch: _Optional[_Union[NumberMatchServiceWatchResponse, _Mapping]] = ...) -> None: ...
