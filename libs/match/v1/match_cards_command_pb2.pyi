from match.v1 import common_pb2 as _common_pb2
from match.v1 import match_cards_pb2 as _match_cards_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchCardsCommand(_message.Message):
    __slots__ = ("table_id", "player_id", "request_id", "turn_card", "turn_off_notice")
    class TurnCard(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: int
        def __init__(self, card: _Optional[int] = ...) -> None: ...
    class TurnOffNotice(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_CARD_FIELD_NUMBER: _ClassVar[int]
    TURN_OFF_NOTICE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    request_id: str
    turn_card: MatchCardsCommand.TurnCard
    turn_off_notice: MatchCardsCommand.TurnOffNotice
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., request_id: _Optional[str] = ..., turn_card: _Optional[_Union[MatchCardsCommand.TurnCard, _Mapping]] = ..., turn_off_notice: _Optional[_Union[MatchCardsCommand.TurnOffNotice, _Mapping]] = ...) -> None: ...

class MatchCardsCommandReply(_message.Message):
    __slots__ = ("accepted", "refusal")
    class Accepted(_message.Message):
        __slots__ = ("events", "view")
        EVENTS_FIELD_NUMBER: _ClassVar[int]
        VIEW_FIELD_NUMBER: _ClassVar[int]
        events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
        view: _match_cards_pb2.MatchCardsView
        def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_match_cards_pb2.MatchCardsView, _Mapping]] = ...) -> None: ...
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    accepted: MatchCardsCommandReply.Accepted
    refusal: _common_pb2.Refusal
    def __init__(self, accepted: _Optional[_Union[MatchCardsCommandReply.Accepted, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...
