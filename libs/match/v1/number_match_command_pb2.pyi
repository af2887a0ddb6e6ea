from match.v1 import common_pb2 as _common_pb2
from match.v1 import number_match_pb2 as _number_match_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NumberMatchCommand(_message.Message):
    __slots__ = ("table_id", "player_id", "request_id", "pair_cells", "add_numbers", "ask_hint", "undo", "end_game")
    class PairCells(_message.Message):
        __slots__ = ("first", "second")
        FIRST_FIELD_NUMBER: _ClassVar[int]
        SECOND_FIELD_NUMBER: _ClassVar[int]
        first: int
        second: int
        def __init__(self, first: _Optional[int] = ..., second: _Optional[int] = ...) -> None: ...
    class AddNumbers(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class AskHint(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Undo(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class EndGame(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    PAIR_CELLS_FIELD_NUMBER: _ClassVar[int]
    ADD_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    ASK_HINT_FIELD_NUMBER: _ClassVar[int]
    UNDO_FIELD_NUMBER: _ClassVar[int]
    END_GAME_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    request_id: str
    pair_cells: NumberMatchCommand.PairCells
    add_numbers: NumberMatchCommand.AddNumbers
    ask_hint: NumberMatchCommand.AskHint
    undo: NumberMatchCommand.Undo
    end_game: NumberMatchCommand.EndGame
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., request_id: _Optional[str] = ..., pair_cells: _Optional[_Union[NumberMatchCommand.PairCells, _Mapping]] = ..., add_numbers: _Optional[_Union[NumberMatchCommand.AddNumbers, _Mapping]] = ..., ask_hint: _Optional[_Union[NumberMatchCommand.AskHint, _Mapping]] = ..., undo: _Optional[_Union[NumberMatchCommand.Undo, _Mapping]] = ..., end_game: _Optional[_Union[NumberMatchCommand.EndGame, _Mapping]] = ...) -> None: ...

class NumberMatchCommandReply(_message.Message):
    __slots__ = ("accepted", "refusal")
    class Accepted(_message.Message):
        __slots__ = ("events", "view")
        EVENTS_FIELD_NUMBER: _ClassVar[int]
        VIEW_FIELD_NUMBER: _ClassVar[int]
        events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
        view: _number_match_pb2.NumberMatchView
        def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., view: _Optional[_Union[_number_match_pb2.NumberMatchView, _Mapping]] = ...) -> None: ...
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    accepted: NumberMatchCommandReply.Accepted
    refusal: _common_pb2.Refusal
    def __init__(self, accepted: _Optional[_Union[NumberMatchCommandReply.Accepted, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...
