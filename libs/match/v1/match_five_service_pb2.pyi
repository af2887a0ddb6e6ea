from match.v1 import common_pb2 as _common_pb2
from match.v1 import match_five_pb2 as _match_five_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WriteLinkRequest(_message.Message):
    __slots__ = ("table_id", "combination", "text")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    COMBINATION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    combination: int
    text: str
    def __init__(self, table_id: _Optional[str] = ..., combination: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class WriteLinkResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _match_five_pb2.MatchFiveView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_match_five_pb2.MatchFiveView, _Mapping]] = ...) -> None: ...

class EraseLinkRequest(_message.Message):
    __slots__ = ("table_id", "combination")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    COMBINATION_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    combination: int
    def __init__(self, table_id: _Optional[str] = ..., combination: _Optional[int] = ...) -> None: ...

class EraseLinkResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _match_five_pb2.MatchFiveView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_match_five_pb2.MatchFiveView, _Mapping]] = ...) -> None: ...

class DoneRequest(_message.Message):
    __slots__ = ("table_id",)
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    def __init__(self, table_id: _Optional[str] = ...) -> None: ...

class DoneResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _match_five_pb2.MatchFiveView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_match_five_pb2.MatchFiveView, _Mapping]] = ...) -> None: ...

class VoteRequest(_message.Message):
    __slots__ = ("table_id", "ballot", "accept")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    BALLOT_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    ballot: int
    accept: bool
    def __init__(self, table_id: _Optional[str] = ..., ballot: _Optional[int] = ..., accept: _Optional[bool] = ...) -> None: ...

class VoteResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _match_five_pb2.MatchFiveView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_match_five_pb2.MatchFiveView, _Mapping]] = ...) -> None: ...

class CallMatchRequest(_message.Message):
    __slots__ = ("table_id", "ballot")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    BALLOT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    ballot: int
    def __init__(self, table_id: _Optional[str] = ..., ballot: _Optional[int] = ...) -> None: ...

class CallMatchResponse(_message.Message):
    __slots__ = ("events", "view")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
    view: _match_five_pb2.MatchFiveView
    def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_match_five_pb2.MatchFiveView, _Mapping]] = ...) -> None: ...

class MatchFiveServiceWatchRequest(_message.Message):
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

class MatchFiveServiceWatchResponse(_message.Message):
    __slots__ = ("snapshot", "event", "events")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    snapshot: _match_five_pb2.MatchFiveView
    event: _common_pb2.EventEnvelope
    events: _common_pb2.EventBatch
    def __init__(self, snapshot: _Optional[_Union[_match_five_pb2.MatchFiveView, _Mapping]] = ..., event: _Optional[_Union[_common_pb2.EventEnvelope, _Mapping]] = ..., events: _Optional[_Union[_common_pb2.EventBatch, _Mapping]] = ...) -> None: ...

class MatchFiveServicePlayRequest(_message.Message):
    __slots__ = ("request_id", "write_link", "erase_link", "done", "vote", "call_match", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    WRITE_LINK_FIELD_NUMBER: _ClassVar[int]
    ERASE_LINK_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    VOTE_FIELD_NUMBER: _ClassVar[int]
    CALL_MATCH_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    write_link: WriteLinkRequest
    erase_link: EraseLinkRequest
    done: DoneRequest
    vote: VoteRequest
    call_match: CallMatchRequest
    watch: MatchFiveServiceWatchRequest
    def __init__(self, request_id: _Optional[str] = ..., write_link: _Optional[_Union[WriteLinkRequest, _Mapping]] = ..., erase_link: _Optional[_Union[EraseLinkRequest, _Mapping]] = ..., done: _Optional[_Union[DoneRequest, _Mapping]] = ..., vote: _Optional[_Union[VoteRequest, _Mapping]] = ..., call_match: _Optional[_Union[CallMatchRequest, _Mapping]] = ..., watch: _Optional[_Union[MatchFiveServiceWatchRequest, _Mapping]] = ...) -> None: ...

class MatchFiveServicePlayResponse(_message.Message):
    __slots__ = ("request_id", "refusal", "write_link", "erase_link", "done", "vote", "call_match", "watch")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    WRITE_LINK_FIELD_NUMBER: _ClassVar[int]
    ERASE_LINK_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    VOTE_FIELD_NUMBER: _ClassVar[int]
    CALL_MATCH_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    refusal: _common_pb2.PlayRefusal
    write_link: WriteLinkResponse
    erase_link: EraseLinkResponse
    done: DoneResponse
    vote: VoteResponse
    call_match: CallMatchResponse
    watch: MatchFiveServiceWatchResponse
    def __init__(self, request_id: _Optional[str] = ..., refusal: _Optional[_Union[_common_pb2.PlayRefusal, _Mapping]] = ..., write_link: _Optional[_Union[WriteLinkResponse, _Mapping]] = ..., erase_link: _Optional[_Union[EraseLinkResponse, _Mapping]] = ..., done: _Optional[_Union[DoneResponse, _Mapping]] = ..., vote: _Optional[_Union[VoteResponse, _Mapping]] = ..., call_match: _Optional[_Union[CallMatchResponse, _Mapping]] = ..., watch: _Optional[_Union[MatchFiveServiceWatchResponse, _Mapping]] = ...) -> None: ...
