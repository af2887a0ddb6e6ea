from match.v1 import common_pb2 as _common_pb2
from match.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PressReadyRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class PressReadyResponse(_message.Message):
    __slots__ = ("events", "counters")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    counters: _views_pb2.RaceCounters
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., counters: _Optional[_Union[_views_pb2.RaceCounters, _Mapping]] = ...) -> None: ...

class TurnTileRequest(_message.Message):
    __slots__ = ("table_id", "tile")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    tile: int
    def __init__(self, table_id: _Optional[str] = ..., tile: _Optional[int] = ...) -> None: ...

class TurnTileResponse(_message.Message):
    __slots__ = ("events", "counters")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    counters: _views_pb2.RaceCounters
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., counters: _Optional[_Union[_views_pb2.RaceCounters, _Mapping]] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ("events", "counters")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    counters: _views_pb2.RaceCounters
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., counters: _Optional[_Union[_views_pb2.RaceCounters, _Mapping]] = ...) -> None: ...

class RequestHintRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class RequestHintResponse(_message.Message):
    __slots__ = ("events", "counters")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    COUNTERS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    counters: _views_pb2.RaceCounters
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., counters: _Optional[_Union[_views_pb2.RaceCounters, _Mapping]] = ...) -> None: ...

class WatchRequest(_message.Message):
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

class WatchResponse(_message.Message):
    __slots__ = ("snapshot", "event", "events")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    snapshot: _views_pb2.RaceView
    event: _common_pb2.EventEnvelope
    events: _common_pb2.EventBatch
    def __init__(self, snapshot: _Optional[_Union[_views_pb2.RaceView, _Mapping]] = ..., event: _Optional[_Union[_common_pb2.EventEnvelope, _Mapping]] = ..., events: _Optional[_Union[_common_pb2.EventBatch, _Mapping]] = ...) -> None: ...

class MatchRaceServicePlayRequest(_message.Message):
    __slots__ = ("request_id", "press_ready", "turn_tile", "resign", "request_hint", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    PRESS_READY_FIELD_NUMBER: _ClassVar[int]
    TURN_TILE_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_HINT_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    press_ready: PressReadyRequest
    turn_tile: TurnTileRequest
    resign: ResignRequest
    request_hint: RequestHintRequest
    watch: WatchRequest
    def __init__(self, request_id: _Optional[str] = ..., press_ready: _Optional[_Union[PressReadyRequest, _Mapping]] = ..., turn_tile: _Optional[_Union[TurnTileRequest, _Mapping]] = ..., resign: _Optional[_Union[ResignRequest, _Mapping]] = ..., request_hint: _Optional[_Union[RequestHintRequest, _Mapping]] = ..., watch: _Optional[_Union[WatchRequest, _Mapping]] = ...) -> None: ...

class MatchRaceServicePlayResponse(_message.Message):
    __slots__ = ("request_id", "refusal", "press_ready", "turn_tile", "resign", "request_hint", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    PRESS_READY_FIELD_NUMBER: _ClassVar[int]
    TURN_TILE_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_HINT_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    refusal: _common_pb2.PlayRefusal
    press_ready: PressReadyResponse
    turn_tile: TurnTileResponse
    resign: ResignResponse
    request_hint: RequestHintResponse
    watch: WatchResponse
    def __init__(self, request_id: _Optional[str] = ..., refusal: _Optional[_Union[_common_pb2.PlayRefusal, _Mapping]] = ..., press_ready: _Optional[_Union[PressReadyResponse, _Mapping]] = ..., turn_tile: _Optional[_Union[TurnTileResponse, _Mapping]] = ..., resign: _Optional[_Union[ResignResponse, _Mapping]] = ..., request_hint: _Optional[_Union[RequestHintResponse, _Mapping]] = ..., watch: _Optional[_Union[WatchResponse, _Mapping]] = ...) -> None: ...
