from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RaceSettings(_message.Message):
    __slots__ = ("ready_window_ms", "hints_per_board")
    READY_WINDOW_MS_FIELD_NUMBER: _ClassVar[int]
    HINTS_PER_BOARD_FIELD_NUMBER: _ClassVar[int]
    ready_window_ms: int
    hints_per_board: int
    def __init__(self, ready_window_ms: _Optional[int] = ..., hints_per_board: _Optional[int] = ...) -> None: ...

class RaceEvent(_message.Message):
    __slots__ = ("game_started", "ready_opened", "player_ready", "player_missed_ready", "countdown_started", "board_started", "tiles_turned_down", "tile_turned", "pair_found", "attempt_missed", "hint_given", "turns_exhausted", "board_cleared", "clear_disqualified", "board_taken", "player_resigned", "board_ended", "board_revealed", "game_ended", "opponent_moved")
    class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        OUTCOME_UNSPECIFIED: _ClassVar[RaceEvent.Outcome]
        OUTCOME_CLEARED: _ClassVar[RaceEvent.Outcome]
        OUTCOME_DISQUALIFIED: _ClassVar[RaceEvent.Outcome]
        OUTCOME_OUT_OF_TURNS: _ClassVar[RaceEvent.Outcome]
        OUTCOME_RESIGNED: _ClassVar[RaceEvent.Outcome]
        OUTCOME_BOARD_ENDED: _ClassVar[RaceEvent.Outcome]
        OUTCOME_OUT: _ClassVar[RaceEvent.Outcome]
        OUTCOME_NOT_PLAYED: _ClassVar[RaceEvent.Outcome]
    OUTCOME_UNSPECIFIED: RaceEvent.Outcome
    OUTCOME_CLEARED: RaceEvent.Outcome
    OUTCOME_DISQUALIFIED: RaceEvent.Outcome
    OUTCOME_OUT_OF_TURNS: RaceEvent.Outcome
    OUTCOME_RESIGNED: RaceEvent.Outcome
    OUTCOME_BOARD_ENDED: RaceEvent.Outcome
    OUTCOME_OUT: RaceEvent.Outcome
    OUTCOME_NOT_PLAYED: RaceEvent.Outcome
    class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        END_REASON_UNSPECIFIED: _ClassVar[RaceEvent.EndReason]
        END_REASON_ALL_DONE: _ClassVar[RaceEvent.EndReason]
        END_REASON_GRACE_OVER: _ClassVar[RaceEvent.EndReason]
        END_REASON_TIME_CAP: _ClassVar[RaceEvent.EndReason]
    END_REASON_UNSPECIFIED: RaceEvent.EndReason
    END_REASON_ALL_DONE: RaceEvent.EndReason
    END_REASON_GRACE_OVER: RaceEvent.EndReason
    END_REASON_TIME_CAP: RaceEvent.EndReason
    class GameStarted(_message.Message):
        __slots__ = ("at", "players", "bots", "ready_window_ms", "hints_per_board", "deal_version")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        BOTS_FIELD_NUMBER: _ClassVar[int]
        READY_WINDOW_MS_FIELD_NUMBER: _ClassVar[int]
        HINTS_PER_BOARD_FIELD_NUMBER: _ClassVar[int]
        DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
        at: int
        players: _containers.RepeatedScalarFieldContainer[str]
        bots: _containers.RepeatedScalarFieldContainer[str]
        ready_window_ms: int
        hints_per_board: int
        deal_version: str
        def __init__(self, at: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., bots: _Optional[_Iterable[str]] = ..., ready_window_ms: _Optional[int] = ..., hints_per_board: _Optional[int] = ..., deal_version: _Optional[str] = ...) -> None: ...
    class ReadyOpened(_message.Message):
        __slots__ = ("at", "board", "deadline")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        DEADLINE_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        deadline: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., deadline: _Optional[int] = ...) -> None: ...
    class PlayerReady(_message.Message):
        __slots__ = ("at", "board", "player")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...
    class PlayerMissedReady(_message.Message):
        __slots__ = ("at", "board", "player")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...
    class CountdownStarted(_message.Message):
        __slots__ = ("at", "board", "starts_at")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        STARTS_AT_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        starts_at: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., starts_at: _Optional[int] = ...) -> None: ...
    class BoardStarted(_message.Message):
        __slots__ = ("at", "board")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ...) -> None: ...
    class TilesTurnedDown(_message.Message):
        __slots__ = ("at", "board", "player", "tiles")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TILES_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        tiles: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., tiles: _Optional[_Iterable[int]] = ...) -> None: ...
    class TileTurned(_message.Message):
        __slots__ = ("at", "board", "player", "tile", "symbol", "turn")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TILE_FIELD_NUMBER: _ClassVar[int]
        SYMBOL_FIELD_NUMBER: _ClassVar[int]
        TURN_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        tile: int
        symbol: int
        turn: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., tile: _Optional[int] = ..., symbol: _Optional[int] = ..., turn: _Optional[int] = ...) -> None: ...
    class PairFound(_message.Message):
        __slots__ = ("at", "board", "player", "tiles", "symbol", "pairs")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TILES_FIELD_NUMBER: _ClassVar[int]
        SYMBOL_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        tiles: _containers.RepeatedScalarFieldContainer[int]
        symbol: int
        pairs: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., tiles: _Optional[_Iterable[int]] = ..., symbol: _Optional[int] = ..., pairs: _Optional[int] = ...) -> None: ...
    class AttemptMissed(_message.Message):
        __slots__ = ("at", "board", "player", "tiles", "paused_until")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TILES_FIELD_NUMBER: _ClassVar[int]
        PAUSED_UNTIL_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        tiles: _containers.RepeatedScalarFieldContainer[int]
        paused_until: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., tiles: _Optional[_Iterable[int]] = ..., paused_until: _Optional[int] = ...) -> None: ...
    class HintGiven(_message.Message):
        __slots__ = ("at", "board", "player", "tile", "partner", "hints_used")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TILE_FIELD_NUMBER: _ClassVar[int]
        PARTNER_FIELD_NUMBER: _ClassVar[int]
        HINTS_USED_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        tile: int
        partner: int
        hints_used: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., tile: _Optional[int] = ..., partner: _Optional[int] = ..., hints_used: _Optional[int] = ...) -> None: ...
    class TurnsExhausted(_message.Message):
        __slots__ = ("at", "board", "player")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...
    class BoardCleared(_message.Message):
        __slots__ = ("at", "board", "player", "elapsed_ms")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        elapsed_ms: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., elapsed_ms: _Optional[int] = ...) -> None: ...
    class ClearDisqualified(_message.Message):
        __slots__ = ("at", "board", "player", "elapsed_ms")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        elapsed_ms: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., elapsed_ms: _Optional[int] = ...) -> None: ...
    class BoardTaken(_message.Message):
        __slots__ = ("at", "board", "player", "grace_until")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        GRACE_UNTIL_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        grace_until: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., grace_until: _Optional[int] = ...) -> None: ...
    class PlayerResigned(_message.Message):
        __slots__ = ("at", "board", "player")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...
    class BoardEnded(_message.Message):
        __slots__ = ("at", "board", "reason")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        reason: RaceEvent.EndReason
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., reason: _Optional[_Union[RaceEvent.EndReason, str]] = ...) -> None: ...
    class BoardResult(_message.Message):
        __slots__ = ("player", "outcome", "pairs", "found", "turns", "time_ms", "hints")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        OUTCOME_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        FOUND_FIELD_NUMBER: _ClassVar[int]
        TURNS_FIELD_NUMBER: _ClassVar[int]
        TIME_MS_FIELD_NUMBER: _ClassVar[int]
        HINTS_FIELD_NUMBER: _ClassVar[int]
        player: str
        outcome: RaceEvent.Outcome
        pairs: int
        found: int
        turns: int
        time_ms: int
        hints: int
        def __init__(self, player: _Optional[str] = ..., outcome: _Optional[_Union[RaceEvent.Outcome, str]] = ..., pairs: _Optional[int] = ..., found: _Optional[int] = ..., turns: _Optional[int] = ..., time_ms: _Optional[int] = ..., hints: _Optional[int] = ...) -> None: ...
    class BoardRevealed(_message.Message):
        __slots__ = ("at", "board", "layout", "results")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        LAYOUT_FIELD_NUMBER: _ClassVar[int]
        RESULTS_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        layout: _containers.RepeatedScalarFieldContainer[int]
        results: _containers.RepeatedCompositeFieldContainer[RaceEvent.BoardResult]
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., layout: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[_Union[RaceEvent.BoardResult, _Mapping]]] = ...) -> None: ...
    class Standing(_message.Message):
        __slots__ = ("player", "place", "pairs", "time_ms", "turns", "hints", "out")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        PLACE_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        TIME_MS_FIELD_NUMBER: _ClassVar[int]
        TURNS_FIELD_NUMBER: _ClassVar[int]
        HINTS_FIELD_NUMBER: _ClassVar[int]
        OUT_FIELD_NUMBER: _ClassVar[int]
        player: str
        place: int
        pairs: int
        time_ms: int
        turns: int
        hints: int
        out: bool
        def __init__(self, player: _Optional[str] = ..., place: _Optional[int] = ..., pairs: _Optional[int] = ..., time_ms: _Optional[int] = ..., turns: _Optional[int] = ..., hints: _Optional[int] = ..., out: _Optional[bool] = ...) -> None: ...
    class GameEnded(_message.Message):
        __slots__ = ("at", "standings")
        AT_FIELD_NUMBER: _ClassVar[int]
        STANDINGS_FIELD_NUMBER: _ClassVar[int]
        at: int
        standings: _containers.RepeatedCompositeFieldContainer[RaceEvent.Standing]
        def __init__(self, at: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[RaceEvent.Standing, _Mapping]]] = ...) -> None: ...
    class OpponentMoved(_message.Message):
        __slots__ = ("at", "board", "player", "turns", "pairs", "hints")
        AT_FIELD_NUMBER: _ClassVar[int]
        BOARD_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TURNS_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        HINTS_FIELD_NUMBER: _ClassVar[int]
        at: int
        board: int
        player: str
        turns: int
        pairs: int
        hints: int
        def __init__(self, at: _Optional[int] = ..., board: _Optional[int] = ..., player: _Optional[str] = ..., turns: _Optional[int] = ..., pairs: _Optional[int] = ..., hints: _Optional[int] = ...) -> None: ...
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    READY_OPENED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_READY_FIELD_NUMBER: _ClassVar[int]
    PLAYER_MISSED_READY_FIELD_NUMBER: _ClassVar[int]
    COUNTDOWN_STARTED_FIELD_NUMBER: _ClassVar[int]
    BOARD_STARTED_FIELD_NUMBER: _ClassVar[int]
    TILES_TURNED_DOWN_FIELD_NUMBER: _ClassVar[int]
    TILE_TURNED_FIELD_NUMBER: _ClassVar[int]
    PAIR_FOUND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_MISSED_FIELD_NUMBER: _ClassVar[int]
    HINT_GIVEN_FIELD_NUMBER: _ClassVar[int]
    TURNS_EXHAUSTED_FIELD_NUMBER: _ClassVar[int]
    BOARD_CLEARED_FIELD_NUMBER: _ClassVar[int]
    CLEAR_DISQUALIFIED_FIELD_NUMBER: _ClassVar[int]
    BOARD_TAKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_RESIGNED_FIELD_NUMBER: _ClassVar[int]
    BOARD_ENDED_FIELD_NUMBER: _ClassVar[int]
    BOARD_REVEALED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_MOVED_FIELD_NUMBER: _ClassVar[int]
    game_started: RaceEvent.GameStarted
    ready_opened: RaceEvent.ReadyOpened
    player_ready: RaceEvent.PlayerReady
    player_missed_ready: RaceEvent.PlayerMissedReady
    countdown_started: RaceEvent.CountdownStarted
    board_started: RaceEvent.BoardStarted
    tiles_turned_down: RaceEvent.TilesTurnedDown
    tile_turned: RaceEvent.TileTurned
    pair_found: RaceEvent.PairFound
    attempt_missed: RaceEvent.AttemptMissed
    hint_given: RaceEvent.HintGiven
    turns_exhausted: RaceEvent.TurnsExhausted
    board_cleared: RaceEvent.BoardCleared
    clear_disqualified: RaceEvent.ClearDisqualified
    board_taken: RaceEvent.BoardTaken
    player_resigned: RaceEvent.PlayerResigned
    board_ended: RaceEvent.BoardEnded
    board_revealed: RaceEvent.BoardRevealed
    game_ended: RaceEvent.GameEnded
    opponent_moved: RaceEvent.OpponentMoved
    def __init__(self, game_started: _Optional[_Union[RaceEvent.GameStarted, _Mapping]] = ..., ready_opened: _Optional[_Union[RaceEvent.ReadyOpened, _Mapping]] = ..., player_ready: _Optional[_Union[RaceEvent.PlayerReady, _Mapping]] = ..., player_missed_ready: _Optional[_Union[RaceEvent.PlayerMissedReady, _Mapping]] = ..., countdown_started: _Optional[_Union[RaceEvent.CountdownStarted, _Mapping]] = ..., board_started: _Optional[_Union[RaceEvent.BoardStarted, _Mapping]] = ..., tiles_turned_down: _Optional[_Union[RaceEvent.TilesTurnedDown, _Mapping]] = ..., tile_turned: _Optional[_Union[RaceEvent.TileTurned, _Mapping]] = ..., pair_found: _Optional[_Union[RaceEvent.PairFound, _Mapping]] = ..., attempt_missed: _Optional[_Union[RaceEvent.AttemptMissed, _Mapping]] = ..., hint_given: _Optional[_Union[RaceEvent.HintGiven, _Mapping]] = ..., turns_exhausted: _Optional[_Union[RaceEvent.TurnsExhausted, _Mapping]] = ..., board_cleared: _Optional[_Union[RaceEvent.BoardCleared, _Mapping]] = ..., clear_disqualified: _Optional[_Union[RaceEvent.ClearDisqualified, _Mapping]] = ..., board_taken: _Optional[_Union[RaceEvent.BoardTaken, _Mapping]] = ..., player_resigned: _Optional[_Union[RaceEvent.PlayerResigned, _Mapping]] = ..., board_ended: _Optional[_Union[RaceEvent.BoardEnded, _Mapping]] = ..., board_revealed: _Optional[_Union[RaceEvent.BoardRevealed, _Mapping]] = ..., game_ended: _Optional[_Union[RaceEvent.GameEnded, _Mapping]] = ..., opponent_moved: _Optional[_Union[RaceEvent.OpponentMoved, _Mapping]] = ...) -> None: ...
