from match.v1 import race_pb2 as _race_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RaceView(_message.Message):
    __slots__ = ("table_id", "game_id", "event_number", "server_time_ms", "player", "phase", "board", "ready_deadline_ms", "starts_at_ms", "ends_at_ms", "tiles", "status", "turns", "pairs", "hints_left", "paused_until_ms", "outcome", "opponents", "revealed", "standings", "deal_version", "commitment", "seed")
    class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PHASE_UNSPECIFIED: _ClassVar[RaceView.Phase]
        PHASE_WAITING_FOR_PLAYERS: _ClassVar[RaceView.Phase]
        PHASE_READY: _ClassVar[RaceView.Phase]
        PHASE_COUNTDOWN: _ClassVar[RaceView.Phase]
        PHASE_PLAYING: _ClassVar[RaceView.Phase]
        PHASE_BETWEEN_BOARDS: _ClassVar[RaceView.Phase]
        PHASE_GAME_OVER: _ClassVar[RaceView.Phase]
    PHASE_UNSPECIFIED: RaceView.Phase
    PHASE_WAITING_FOR_PLAYERS: RaceView.Phase
    PHASE_READY: RaceView.Phase
    PHASE_COUNTDOWN: RaceView.Phase
    PHASE_PLAYING: RaceView.Phase
    PHASE_BETWEEN_BOARDS: RaceView.Phase
    PHASE_GAME_OVER: RaceView.Phase
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSPECIFIED: _ClassVar[RaceView.Status]
        STATUS_WAITING: _ClassVar[RaceView.Status]
        STATUS_READY: _ClassVar[RaceView.Status]
        STATUS_PLAYING: _ClassVar[RaceView.Status]
        STATUS_DONE: _ClassVar[RaceView.Status]
        STATUS_OUT: _ClassVar[RaceView.Status]
    STATUS_UNSPECIFIED: RaceView.Status
    STATUS_WAITING: RaceView.Status
    STATUS_READY: RaceView.Status
    STATUS_PLAYING: RaceView.Status
    STATUS_DONE: RaceView.Status
    STATUS_OUT: RaceView.Status
    class TileState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TILE_STATE_UNSPECIFIED: _ClassVar[RaceView.TileState]
        TILE_STATE_DOWN: _ClassVar[RaceView.TileState]
        TILE_STATE_SHOWING: _ClassVar[RaceView.TileState]
        TILE_STATE_FOUND: _ClassVar[RaceView.TileState]
    TILE_STATE_UNSPECIFIED: RaceView.TileState
    TILE_STATE_DOWN: RaceView.TileState
    TILE_STATE_SHOWING: RaceView.TileState
    TILE_STATE_FOUND: RaceView.TileState
    class TileView(_message.Message):
        __slots__ = ("tile", "state", "symbol")
        TILE_FIELD_NUMBER: _ClassVar[int]
        STATE_FIELD_NUMBER: _ClassVar[int]
        SYMBOL_FIELD_NUMBER: _ClassVar[int]
        tile: int
        state: RaceView.TileState
        symbol: int
        def __init__(self, tile: _Optional[int] = ..., state: _Optional[_Union[RaceView.TileState, str]] = ..., symbol: _Optional[int] = ...) -> None: ...
    class Progress(_message.Message):
        __slots__ = ("board", "pairs", "turns", "hints")
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        TURNS_FIELD_NUMBER: _ClassVar[int]
        HINTS_FIELD_NUMBER: _ClassVar[int]
        board: int
        pairs: int
        turns: int
        hints: int
        def __init__(self, board: _Optional[int] = ..., pairs: _Optional[int] = ..., turns: _Optional[int] = ..., hints: _Optional[int] = ...) -> None: ...
    class OpponentView(_message.Message):
        __slots__ = ("player", "status", "boards", "display_name", "is_bot")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        STATUS_FIELD_NUMBER: _ClassVar[int]
        BOARDS_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        IS_BOT_FIELD_NUMBER: _ClassVar[int]
        player: str
        status: RaceView.Status
        boards: _containers.RepeatedCompositeFieldContainer[RaceView.Progress]
        display_name: str
        is_bot: bool
        def __init__(self, player: _Optional[str] = ..., status: _Optional[_Union[RaceView.Status, str]] = ..., boards: _Optional[_Iterable[_Union[RaceView.Progress, _Mapping]]] = ..., display_name: _Optional[str] = ..., is_bot: _Optional[bool] = ...) -> None: ...
    class RevealedBoard(_message.Message):
        __slots__ = ("board", "layout", "results")
        BOARD_FIELD_NUMBER: _ClassVar[int]
        LAYOUT_FIELD_NUMBER: _ClassVar[int]
        RESULTS_FIELD_NUMBER: _ClassVar[int]
        board: int
        layout: _containers.RepeatedScalarFieldContainer[int]
        results: _containers.RepeatedCompositeFieldContainer[_race_pb2.RaceEvent.BoardResult]
        def __init__(self, board: _Optional[int] = ..., layout: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[_Union[_race_pb2.RaceEvent.BoardResult, _Mapping]]] = ...) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    READY_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_MS_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_MS_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    HINTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    PAUSED_UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game_id: str
    event_number: int
    server_time_ms: int
    player: str
    phase: RaceView.Phase
    board: int
    ready_deadline_ms: int
    starts_at_ms: int
    ends_at_ms: int
    tiles: _containers.RepeatedCompositeFieldContainer[RaceView.TileView]
    status: RaceView.Status
    turns: int
    pairs: int
    hints_left: int
    paused_until_ms: int
    outcome: _race_pb2.RaceEvent.Outcome
    opponents: _containers.RepeatedCompositeFieldContainer[RaceView.OpponentView]
    revealed: _containers.RepeatedCompositeFieldContainer[RaceView.RevealedBoard]
    standings: _containers.RepeatedCompositeFieldContainer[_race_pb2.RaceEvent.Standing]
    deal_version: str
    commitment: str
    seed: bytes
    def __init__(self, table_id: _Optional[str] = ..., game_id: _Optional[str] = ..., event_number: _Optional[int] = ..., server_time_ms: _Optional[int] = ..., player: _Optional[str] = ..., phase: _Optional[_Union[RaceView.Phase, str]] = ..., board: _Optional[int] = ..., ready_deadline_ms: _Optional[int] = ..., starts_at_ms: _Optional[int] = ..., ends_at_ms: _Optional[int] = ..., tiles: _Optional[_Iterable[_Union[RaceView.TileView, _Mapping]]] = ..., status: _Optional[_Union[RaceView.Status, str]] = ..., turns: _Optional[int] = ..., pairs: _Optional[int] = ..., hints_left: _Optional[int] = ..., paused_until_ms: _Optional[int] = ..., outcome: _Optional[_Union[_race_pb2.RaceEvent.Outcome, str]] = ..., opponents: _Optional[_Iterable[_Union[RaceView.OpponentView, _Mapping]]] = ..., revealed: _Optional[_Iterable[_Union[RaceView.RevealedBoard, _Mapping]]] = ..., standings: _Optional[_Iterable[_Union[_race_pb2.RaceEvent.Standing, _Mapping]]] = ..., deal_version: _Optional[str] = ..., commitment: _Optional[str] = ..., seed: _Optional[bytes] = ...) -> None: ...

class RaceCounters(_message.Message):
    __slots__ = ("event_number", "server_time_ms", "board", "status", "turns", "pairs", "hints_left", "paused_until_ms")
    EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    HINTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    PAUSED_UNTIL_MS_FIELD_NUMBER: _ClassVar[int]
    event_number: int
    server_time_ms: int
    board: int
    status: RaceView.Status
    turns: int
    pairs: int
    hints_left: int
    paused_until_ms: int
    def __init__(self, event_number: _Optional[int] = ..., server_time_ms: _Optional[int] = ..., board: _Optional[int] = ..., status: _Optional[_Union[RaceView.Status, str]] = ..., turns: _Optional[int] = ..., pairs: _Optional[int] = ..., hints_left: _Optional[int] = ..., paused_until_ms: _Optional[int] = ...) -> None: ...
