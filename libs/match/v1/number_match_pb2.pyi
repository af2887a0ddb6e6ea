from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class NumberMatchSettings(_message.Message):
    __slots__ = ("level", "daily_date", "utc_offset_minutes", "replay_seed")
    class Level(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        LEVEL_UNSPECIFIED: _ClassVar[NumberMatchSettings.Level]
        LEVEL_EASY: _ClassVar[NumberMatchSettings.Level]
        LEVEL_MEDIUM: _ClassVar[NumberMatchSettings.Level]
        LEVEL_HARD: _ClassVar[NumberMatchSettings.Level]
        LEVEL_EXPERT: _ClassVar[NumberMatchSettings.Level]
        LEVEL_CLASSIC: _ClassVar[NumberMatchSettings.Level]
    LEVEL_UNSPECIFIED: NumberMatchSettings.Level
    LEVEL_EASY: NumberMatchSettings.Level
    LEVEL_MEDIUM: NumberMatchSettings.Level
    LEVEL_HARD: NumberMatchSettings.Level
    LEVEL_EXPERT: NumberMatchSettings.Level
    LEVEL_CLASSIC: NumberMatchSettings.Level
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    DAILY_DATE_FIELD_NUMBER: _ClassVar[int]
    UTC_OFFSET_MINUTES_FIELD_NUMBER: _ClassVar[int]
    REPLAY_SEED_FIELD_NUMBER: _ClassVar[int]
    level: NumberMatchSettings.Level
    daily_date: str
    utc_offset_minutes: int
    replay_seed: bytes
    def __init__(self, level: _Optional[_Union[NumberMatchSettings.Level, str]] = ..., daily_date: _Optional[str] = ..., utc_offset_minutes: _Optional[int] = ..., replay_seed: _Optional[bytes] = ...) -> None: ...

class NumberMatchStep(_message.Message):
    __slots__ = ("add", "first", "second")
    ADD_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    add: bool
    first: int
    second: int
    def __init__(self, add: _Optional[bool] = ..., first: _Optional[int] = ..., second: _Optional[int] = ...) -> None: ...

class NumberMatchDeal(_message.Message):
    __slots__ = ("board", "witness", "attempt", "additions")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    WITNESS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    ADDITIONS_FIELD_NUMBER: _ClassVar[int]
    board: _containers.RepeatedScalarFieldContainer[int]
    witness: _containers.RepeatedCompositeFieldContainer[NumberMatchStep]
    attempt: int
    additions: int
    def __init__(self, board: _Optional[_Iterable[int]] = ..., witness: _Optional[_Iterable[_Union[NumberMatchStep, _Mapping]]] = ..., attempt: _Optional[int] = ..., additions: _Optional[int] = ...) -> None: ...

class NumberMatchEvent(_message.Message):
    __slots__ = ("game_started", "cells_paired", "numbers_added", "hint_given", "move_undone", "game_over")
    class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        OUTCOME_UNSPECIFIED: _ClassVar[NumberMatchEvent.Outcome]
        OUTCOME_CLEARED: _ClassVar[NumberMatchEvent.Outcome]
        OUTCOME_NO_MOVES: _ClassVar[NumberMatchEvent.Outcome]
        OUTCOME_GAVE_UP: _ClassVar[NumberMatchEvent.Outcome]
        OUTCOME_IDLE: _ClassVar[NumberMatchEvent.Outcome]
    OUTCOME_UNSPECIFIED: NumberMatchEvent.Outcome
    OUTCOME_CLEARED: NumberMatchEvent.Outcome
    OUTCOME_NO_MOVES: NumberMatchEvent.Outcome
    OUTCOME_GAVE_UP: NumberMatchEvent.Outcome
    OUTCOME_IDLE: NumberMatchEvent.Outcome
    class HintKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        HINT_KIND_UNSPECIFIED: _ClassVar[NumberMatchEvent.HintKind]
        HINT_KIND_PAIR: _ClassVar[NumberMatchEvent.HintKind]
        HINT_KIND_ADD: _ClassVar[NumberMatchEvent.HintKind]
        HINT_KIND_STUCK: _ClassVar[NumberMatchEvent.HintKind]
    HINT_KIND_UNSPECIFIED: NumberMatchEvent.HintKind
    HINT_KIND_PAIR: NumberMatchEvent.HintKind
    HINT_KIND_ADD: NumberMatchEvent.HintKind
    HINT_KIND_STUCK: NumberMatchEvent.HintKind
    class Undone(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNDONE_UNSPECIFIED: _ClassVar[NumberMatchEvent.Undone]
        UNDONE_PAIR: _ClassVar[NumberMatchEvent.Undone]
        UNDONE_ADD: _ClassVar[NumberMatchEvent.Undone]
    UNDONE_UNSPECIFIED: NumberMatchEvent.Undone
    UNDONE_PAIR: NumberMatchEvent.Undone
    UNDONE_ADD: NumberMatchEvent.Undone
    class GameStarted(_message.Message):
        __slots__ = ("at", "player", "settings", "deal_version", "board", "additions", "hints", "witness_commitment", "daily_date", "replay")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        SETTINGS_FIELD_NUMBER: _ClassVar[int]
        DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        ADDITIONS_FIELD_NUMBER: _ClassVar[int]
        HINTS_FIELD_NUMBER: _ClassVar[int]
        WITNESS_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
        DAILY_DATE_FIELD_NUMBER: _ClassVar[int]
        REPLAY_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        settings: NumberMatchSettings
        deal_version: str
        board: _containers.RepeatedScalarFieldContainer[int]
        additions: int
        hints: int
        witness_commitment: str
        daily_date: str
        replay: bool
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., settings: _Optional[_Union[NumberMatchSettings, _Mapping]] = ..., deal_version: _Optional[str] = ..., board: _Optional[_Iterable[int]] = ..., additions: _Optional[int] = ..., hints: _Optional[int] = ..., witness_commitment: _Optional[str] = ..., daily_date: _Optional[str] = ..., replay: _Optional[bool] = ...) -> None: ...
    class CellsPaired(_message.Message):
        __slots__ = ("at", "player", "first", "second", "points", "rows_removed", "score")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        FIRST_FIELD_NUMBER: _ClassVar[int]
        SECOND_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        ROWS_REMOVED_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        first: int
        second: int
        points: int
        rows_removed: int
        score: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., first: _Optional[int] = ..., second: _Optional[int] = ..., points: _Optional[int] = ..., rows_removed: _Optional[int] = ..., score: _Optional[int] = ...) -> None: ...
    class NumbersAdded(_message.Message):
        __slots__ = ("at", "player", "count", "additions_left")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        ADDITIONS_LEFT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        count: int
        additions_left: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., count: _Optional[int] = ..., additions_left: _Optional[int] = ...) -> None: ...
    class HintGiven(_message.Message):
        __slots__ = ("at", "player", "kind", "first", "second", "hints_left")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        KIND_FIELD_NUMBER: _ClassVar[int]
        FIRST_FIELD_NUMBER: _ClassVar[int]
        SECOND_FIELD_NUMBER: _ClassVar[int]
        HINTS_LEFT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        kind: NumberMatchEvent.HintKind
        first: int
        second: int
        hints_left: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., kind: _Optional[_Union[NumberMatchEvent.HintKind, str]] = ..., first: _Optional[int] = ..., second: _Optional[int] = ..., hints_left: _Optional[int] = ...) -> None: ...
    class MoveUndone(_message.Message):
        __slots__ = ("at", "player", "undone", "score", "additions_left")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        UNDONE_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        ADDITIONS_LEFT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        undone: NumberMatchEvent.Undone
        score: int
        additions_left: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., undone: _Optional[_Union[NumberMatchEvent.Undone, str]] = ..., score: _Optional[int] = ..., additions_left: _Optional[int] = ...) -> None: ...
    class GameOver(_message.Message):
        __slots__ = ("at", "player", "outcome", "score", "time_ms", "moves", "hints_used", "witness")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        OUTCOME_FIELD_NUMBER: _ClassVar[int]
        SCORE_FIELD_NUMBER: _ClassVar[int]
        TIME_MS_FIELD_NUMBER: _ClassVar[int]
        MOVES_FIELD_NUMBER: _ClassVar[int]
        HINTS_USED_FIELD_NUMBER: _ClassVar[int]
        WITNESS_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        outcome: NumberMatchEvent.Outcome
        score: int
        time_ms: int
        moves: int
        hints_used: int
        witness: _containers.RepeatedCompositeFieldContainer[NumberMatchStep]
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., outcome: _Optional[_Union[NumberMatchEvent.Outcome, str]] = ..., score: _Optional[int] = ..., time_ms: _Optional[int] = ..., moves: _Optional[int] = ..., hints_used: _Optional[int] = ..., witness: _Optional[_Iterable[_Union[NumberMatchStep, _Mapping]]] = ...) -> None: ...
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    CELLS_PAIRED_FIELD_NUMBER: _ClassVar[int]
    NUMBERS_ADDED_FIELD_NUMBER: _ClassVar[int]
    HINT_GIVEN_FIELD_NUMBER: _ClassVar[int]
    MOVE_UNDONE_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    game_started: NumberMatchEvent.GameStarted
    cells_paired: NumberMatchEvent.CellsPaired
    numbers_added: NumberMatchEvent.NumbersAdded
    hint_given: NumberMatchEvent.HintGiven
    move_undone: NumberMatchEvent.MoveUndone
    game_over: NumberMatchEvent.GameOver
    def __init__(self, game_started: _Optional[_Union[NumberMatchEvent.GameStarted, _Mapping]] = ..., cells_paired: _Optional[_Union[NumberMatchEvent.CellsPaired, _Mapping]] = ..., numbers_added: _Optional[_Union[NumberMatchEvent.NumbersAdded, _Mapping]] = ..., hint_given: _Optional[_Union[NumberMatchEvent.HintGiven, _Mapping]] = ..., move_undone: _Optional[_Union[NumberMatchEvent.MoveUndone, _Mapping]] = ..., game_over: _Optional[_Union[NumberMatchEvent.GameOver, _Mapping]] = ...) -> None: ...

class NumberMatchView(_message.Message):
    __slots__ = ("table_id", "event_number", "server_time_ms", "phase", "you", "settings", "columns", "board", "additions_left", "hints_left", "score", "moves", "can_undo", "started_at_ms", "idle_ends_at_ms", "hint", "outcome", "time_ms", "witness_commitment", "witness", "replay", "commitment", "seed")
    class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PHASE_UNSPECIFIED: _ClassVar[NumberMatchView.Phase]
        PHASE_WAITING_FOR_PLAYERS: _ClassVar[NumberMatchView.Phase]
        PHASE_PLAYING: _ClassVar[NumberMatchView.Phase]
        PHASE_GAME_OVER: _ClassVar[NumberMatchView.Phase]
    PHASE_UNSPECIFIED: NumberMatchView.Phase
    PHASE_WAITING_FOR_PLAYERS: NumberMatchView.Phase
    PHASE_PLAYING: NumberMatchView.Phase
    PHASE_GAME_OVER: NumberMatchView.Phase
    class Hint(_message.Message):
        __slots__ = ("kind", "first", "second")
        KIND_FIELD_NUMBER: _ClassVar[int]
        FIRST_FIELD_NUMBER: _ClassVar[int]
        SECOND_FIELD_NUMBER: _ClassVar[int]
        kind: NumberMatchEvent.HintKind
        first: int
        second: int
        def __init__(self, kind: _Optional[_Union[NumberMatchEvent.HintKind, str]] = ..., first: _Optional[int] = ..., second: _Optional[int] = ...) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    ADDITIONS_LEFT_FIELD_NUMBER: _ClassVar[int]
    HINTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    CAN_UNDO_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    IDLE_ENDS_AT_MS_FIELD_NUMBER: _ClassVar[int]
    HINT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    WITNESS_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    WITNESS_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    event_number: int
    server_time_ms: int
    phase: NumberMatchView.Phase
    you: str
    settings: NumberMatchSettings
    columns: int
    board: _containers.RepeatedScalarFieldContainer[int]
    additions_left: int
    hints_left: int
    score: int
    moves: int
    can_undo: bool
    started_at_ms: int
    idle_ends_at_ms: int
    hint: NumberMatchView.Hint
    outcome: NumberMatchEvent.Outcome
    time_ms: int
    witness_commitment: str
    witness: _containers.RepeatedCompositeFieldContainer[NumberMatchStep]
    replay: bool
    commitment: str
    seed: bytes
    def __init__(self, table_id: _Optional[str] = ..., event_number: _Optional[int] = ..., server_time_ms: _Optional[int] = ..., phase: _Optional[_Union[NumberMatchView.Phase, str]] = ..., you: _Optional[str] = ..., settings: _Optional[_Union[NumberMatchSettings, _Mapping]] = ..., columns: _Optional[int] = ..., board: _Optional[_Iterable[int]] = ..., additions_left: _Optional[int] = ..., hints_left: _Optional[int] = ..., score: _Optional[int] = ..., moves: _Optional[int] = ..., can_undo: _Optional[bool] = ..., started_at_ms: _Optional[int] = ..., idle_ends_at_ms: _Optional[int] = ..., hint: _Optional[_Union[NumberMatchView.Hint, _Mapping]] = ..., outcome: _Optional[_Union[NumberMatchEvent.Outcome, str]] = ..., time_ms: _Optional[int] = ..., witness_commitment: _Optional[str] = ..., witness: _Optional[_Iterable[_Union[NumberMatchStep, _Mapping]]] = ..., replay: _Optional[bool] = ..., commitment: _Optional[str] = ..., seed: _Optional[bytes] = ...) -> None: ...
