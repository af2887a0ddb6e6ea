from match.v1 import common_pb2 as _common_pb2
from match.v1 import views_pb2 as _views_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RaceCommand(_message.Message):
    __slots__ = ("table_id", "player_id", "request_id", "start_game", "press_ready", "turn_tile", "resign", "request_hint")
    class StartGame(_message.Message):
        __slots__ = ("game_id", "players", "bots", "ready_window_ms", "hints_per_board")
        GAME_ID_FIELD_NUMBER: _ClassVar[int]
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        BOTS_FIELD_NUMBER: _ClassVar[int]
        READY_WINDOW_MS_FIELD_NUMBER: _ClassVar[int]
        HINTS_PER_BOARD_FIELD_NUMBER: _ClassVar[int]
        game_id: str
        players: _containers.RepeatedScalarFieldContainer[str]
        bots: _containers.RepeatedScalarFieldContainer[str]
        ready_window_ms: int
        hints_per_board: int
        def __init__(self, game_id: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., bots: _Optional[_Iterable[str]] = ..., ready_window_ms: _Optional[int] = ..., hints_per_board: _Optional[int] = ...) -> None: ...
    class PressReady(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class TurnTile(_message.Message):
        __slots__ = ("tile",)
        TILE_FIELD_NUMBER: _ClassVar[int]
        tile: int
        def __init__(self, tile: _Optional[int] = ...) -> None: ...
    class Resign(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class RequestHint(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    START_GAME_FIELD_NUMBER: _ClassVar[int]
    PRESS_READY_FIELD_NUMBER: _ClassVar[int]
    TURN_TILE_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_HINT_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    player_id: str
    request_id: str
    start_game: RaceCommand.StartGame
    press_ready: RaceCommand.PressReady
    turn_tile: RaceCommand.TurnTile
    resign: RaceCommand.Resign
    request_hint: RaceCommand.RequestHint
    def __init__(self, table_id: _Optional[str] = ..., player_id: _Optional[str] = ..., request_id: _Optional[str] = ..., start_game: _Optional[_Union[RaceCommand.StartGame, _Mapping]] = ..., press_ready: _Optional[_Union[RaceCommand.PressReady, _Mapping]] = ..., turn_tile: _Optional[_Union[RaceCommand.TurnTile, _Mapping]] = ..., resign: _Optional[_Union[RaceCommand.Resign, _Mapping]] = ..., request_hint: _Optional[_Union[RaceCommand.RequestHint, _Mapping]] = ...) -> None: ...

class RaceCommandReply(_message.Message):
    __slots__ = ("accepted", "refusal")
    class Accepted(_message.Message):
        __slots__ = ("events", "counters")
        EVENTS_FIELD_NUMBER: _ClassVar[int]
        COUNTERS_FIELD_NUMBER: _ClassVar[int]
        events: _containers.RepeatedCompositeFieldContainer[_common_pb2.EventEnvelope]
        counters: _views_pb2.RaceCounters
        def __init__(self, events: _Optional[_Iterable[_Union[_common_pb2.EventEnvelope, _Mapping]]] = ..., counters: _Optional[_Union[_views_pb2.RaceCounters, _Mapping]] = ...) -> None: ...
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    accepted: RaceCommandReply.Accepted
    refusal: _common_pb2.Refusal
    def __init__(self, accepted: _Optional[_Union[RaceCommandReply.Accepted, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...
