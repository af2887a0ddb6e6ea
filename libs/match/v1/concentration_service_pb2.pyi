from match.v1 import common_pb2 as _common_pb2
from match.v1 import concentration_pb2 as _concentration_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FlipCardRequest(_message.Message):
    __slots__ = ("table_id", "card")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    card: int
    def __init__(self, table_id: _Optional[str] = ..., card: _Optional[int] = ...) -> None: ...

class FlipCardResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _concentration_pb2.ConcentrationView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_concentration_pb2.ConcentrationView, _Mapping]] = ...) -> None: ...

class ConcentrationServiceWatchRequest(_message.Message):
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

class ConcentrationServiceWatchResponse(_message.Message):
    __slots__ = ("snapshot", "event", "events")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    snapshot: _concentration_pb2.ConcentrationView
    event: _common_pb2.EventEnvelope
    events: _common_pb2.EventBatch
    def __init__(self, snapshot: _Optional[_Union[_concentration_pb2.ConcentrationView, _Mapping]] = ..., event: _Optional[_Union[_common_pb2.EventEnvelope, _Mapping]] = ..., events: _Optional[_Union[_common_pb2.EventBatch, _Mapping]] = ...) -> None: ...

class ConcentrationServicePlayRequest(_message.Message):
    __slots__ = ("request_id", "flip_card", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    FLIP_CARD_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    flip_card: FlipCardRequest
    watch: ConcentrationServiceWatchRequest
    def __init__(self, request_id: _Optional[str] = ..., flip_card: _Optional[_Union[FlipCardRequest, _Mapping]] = ..., watch: _Optional[_Union[ConcentrationServiceWatchRequest, _Mapping]] = ...) -> None: ...

class ConcentrationServicePlayResponse(_message.Message):
    __slots__ = ("request_id", "refusal", "flip_card", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    FLIP_CARD_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    refusal: _common_pb2.PlayRefusal
    flip_card: FlipCardResponse
    watch: ConcentrationServiceWatchResponse
    def __init__(self, request_id: _Optional[str] = ..., refusal: _Optional[_Union[_common_pb2.PlayRefusal, _Mapping]] = ..., flip_card: _Optional[_Union[FlipCardResponse, _Mapping]] = ..., watch: _Optional[_Union[ConcentrationServiceWatchResponse, _Mapping]] = ...) -> None: ...
