from match.v1 import common_pb2 as _common_pb2
from match.v1 import match_five_pb2 as _match_five_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchFiveCommand(_message.Message):
    __slots__ = ("table_id", "player_id", "request_id", "write_link", "erase_link", "done", "vote", "call_match")
    class WriteLink(_message.Message):
        __slots__ = ("combination", "text")
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        TEXT_FIELD_NUMBER: _ClassVar[int]
        combination: int
        text: str
        def __init__(self, combination: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...
    class EraseLink(_message.Message):
        __slots__ = ("combination",)
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        combination: int
        def __init__(self, combination: _Optional[int] = ...) -> None: ...
    class Done(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Vote(_message.Message):
        __slots__ = ("ballot", "accept")
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        ACCEPT_FIELD_NUMBER: _ClassVar[int]
        ballot: int
        accept: bool
        def __init__(self, ballot: _Optional[int] = ..., accept: _Optional[bool] = ...) -> None: ...
    class CallMatch(_message.Message):
        __slots__ = ("ballot",)
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        ballot: int
        def __init__(self, ballot: _Optional[int] = ...) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    WRITE_LINK_FIELD_NUMBER: _ClassVar[int]
    ERASE_LINK_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    VOTE_FIELD_NUMBER: _ClassVar[int]
    CALL_MATCH_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    request_id: str
    write_link: MatchFiveCommand.WriteLink
    erase_link: MatchFiveCommand.EraseLink
    done: MatchFiveCommand.Done
    vote: MatchFiveCommand.Vote
    call_match: MatchFiveCommand.CallMatch
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., request_id: _Optional[str] = ..., write_link: _Optional[_Union[MatchFiveCommand.WriteLink, _Mapping]] = ..., erase_link: _Optional[_Union[MatchFiveCommand.EraseLink, _Mapping]] = ..., done: _Optional[_Union[MatchFiveCommand.Done, _Mapping]] = ..., vote: _Optional[_Union[MatchFiveCommand.Vote, _Mapping]] = ..., call_match: _Optional[_Union[MatchFiveCommand.CallMatch, _Mapping]] = ...) -> None: ...

class MatchFiveCommandReply(_message.Message):
    __slots__ = ("accepted", "refusal")
    class Accepted(_message.Message):
        __slots__ = ("events", "view")
        EVENTS_FIELD_NUMBER: _ClassVar[int]
        VIEW_FIELD_NUMBER: _ClassVar[int]
        events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
        view: _match_five_pb2.MatchFiveView
        def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_match_five_pb2.MatchFiveView, _Mapping]] = ...) -> None: ...
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    accepted: MatchFiveCommandReply.Accepted
    refusal: _common_pb2.Refusal
    def __init__(self, accepted: _Optional[_Union[MatchFiveCommandReply.Accepted, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...
