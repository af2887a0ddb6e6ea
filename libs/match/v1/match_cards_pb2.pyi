from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchCardsSettings(_message.Message):
    __slots__ = ("mode", "cards", "difficulty", "pictures", "code")
    class Mode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MODE_UNSPECIFIED: _ClassVar[MatchCardsSettings.Mode]
        MODE_PAIRS: _ClassVar[MatchCardsSettings.Mode]
        MODE_TRIPLES: _ClassVar[MatchCardsSettings.Mode]
    MODE_UNSPECIFIED: MatchCardsSettings.Mode
    MODE_PAIRS: MatchCardsSettings.Mode
    MODE_TRIPLES: MatchCardsSettings.Mode
    class Difficulty(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DIFFICULTY_UNSPECIFIED: _ClassVar[MatchCardsSettings.Difficulty]
        DIFFICULTY_EASY: _ClassVar[MatchCardsSettings.Difficulty]
        DIFFICULTY_MEDIUM: _ClassVar[MatchCardsSettings.Difficulty]
        DIFFICULTY_HARD: _ClassVar[MatchCardsSettings.Difficulty]
    DIFFICULTY_UNSPECIFIED: MatchCardsSettings.Difficulty
    DIFFICULTY_EASY: MatchCardsSettings.Difficulty
    DIFFICULTY_MEDIUM: MatchCardsSettings.Difficulty
    DIFFICULTY_HARD: MatchCardsSettings.Difficulty
    MODE_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DIFFICULTY_FIELD_NUMBER: _ClassVar[int]
    PICTURES_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    mode: MatchCardsSettings.Mode
    cards: int
    difficulty: MatchCardsSettings.Difficulty
    pictures: str
    code: str
    def __init__(self, mode: _Optional[_Union[MatchCardsSettings.Mode, str]] = ..., cards: _Optional[int] = ..., difficulty: _Optional[_Union[MatchCardsSettings.Difficulty, str]] = ..., pictures: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class MatchCardsDeal(_message.Message):
    __slots__ = ("cards", "code")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    code: str
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., code: _Optional[str] = ...) -> None: ...

class MatchCardsPicture(_message.Message):
    __slots__ = ("id", "name")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class MatchCardsStanding(_message.Message):
    __slots__ = ("player", "place", "won", "groups", "failed", "time_ms")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    player: str
    place: int
    won: bool
    groups: int
    failed: int
    time_ms: int
    def __init__(self, player: _Optional[str] = ..., place: _Optional[int] = ..., won: _Optional[bool] = ..., groups: _Optional[int] = ..., failed: _Optional[int] = ..., time_ms: _Optional[int] = ...) -> None: ...

class MatchCardsEvent(_message.Message):
    __slots__ = ("game_started", "card_turned", "group_found", "attempt_failed", "notice_turned_off", "player_finished", "game_ended", "opponent_progress")
    class GameStarted(_message.Message):
        __slots__ = ("at", "players", "settings", "deal_version", "limit", "ends_at")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        SETTINGS_FIELD_NUMBER: _ClassVar[int]
        DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
        LIMIT_FIELD_NUMBER: _ClassVar[int]
        ENDS_AT_FIELD_NUMBER: _ClassVar[int]
        at: int
        players: _containers.RepeatedScalarFieldContainer[str]
        settings: MatchCardsSettings
        deal_version: str
        limit: int
        ends_at: int
        def __init__(self, at: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., settings: _Optional[_Union[MatchCardsSettings, _Mapping]] = ..., deal_version: _Optional[str] = ..., limit: _Optional[int] = ..., ends_at: _Optional[int] = ...) -> None: ...
    class CardTurned(_message.Message):
        __slots__ = ("at", "player", "card", "picture", "compare_at")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        PICTURE_FIELD_NUMBER: _ClassVar[int]
        COMPARE_AT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        card: int
        picture: str
        compare_at: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., card: _Optional[int] = ..., picture: _Optional[str] = ..., compare_at: _Optional[int] = ...) -> None: ...
    class GroupFound(_message.Message):
        __slots__ = ("at", "player", "cards", "groups", "notice")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        GROUPS_FIELD_NUMBER: _ClassVar[int]
        NOTICE_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        cards: _containers.RepeatedScalarFieldContainer[int]
        groups: int
        notice: bool
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., cards: _Optional[_Iterable[int]] = ..., groups: _Optional[int] = ..., notice: _Optional[bool] = ...) -> None: ...
    class AttemptFailed(_message.Message):
        __slots__ = ("at", "player", "cards", "failed", "notice")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        FAILED_FIELD_NUMBER: _ClassVar[int]
        NOTICE_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        cards: _containers.RepeatedScalarFieldContainer[int]
        failed: int
        notice: bool
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., cards: _Optional[_Iterable[int]] = ..., failed: _Optional[int] = ..., notice: _Optional[bool] = ...) -> None: ...
    class NoticeTurnedOff(_message.Message):
        __slots__ = ("at", "player")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...
    class PlayerFinished(_message.Message):
        __slots__ = ("at", "player", "won", "groups", "failed", "time_ms")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        WON_FIELD_NUMBER: _ClassVar[int]
        GROUPS_FIELD_NUMBER: _ClassVar[int]
        FAILED_FIELD_NUMBER: _ClassVar[int]
        TIME_MS_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        won: bool
        groups: int
        failed: int
        time_ms: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., won: _Optional[bool] = ..., groups: _Optional[int] = ..., failed: _Optional[int] = ..., time_ms: _Optional[int] = ...) -> None: ...
    class GameEnded(_message.Message):
        __slots__ = ("at", "standings", "code", "replay")
        AT_FIELD_NUMBER: _ClassVar[int]
        STANDINGS_FIELD_NUMBER: _ClassVar[int]
        CODE_FIELD_NUMBER: _ClassVar[int]
        REPLAY_FIELD_NUMBER: _ClassVar[int]
        at: int
        standings: _containers.RepeatedCompositeFieldContainer[MatchCardsStanding]
        code: str
        replay: bool
        def __init__(self, at: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[MatchCardsStanding, _Mapping]]] = ..., code: _Optional[str] = ..., replay: _Optional[bool] = ...) -> None: ...
    class OpponentProgress(_message.Message):
        __slots__ = ("at", "player", "turned", "groups", "failed")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TURNED_FIELD_NUMBER: _ClassVar[int]
        GROUPS_FIELD_NUMBER: _ClassVar[int]
        FAILED_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        turned: int
        groups: int
        failed: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., turned: _Optional[int] = ..., groups: _Optional[int] = ..., failed: _Optional[int] = ...) -> None: ...
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    CARD_TURNED_FIELD_NUMBER: _ClassVar[int]
    GROUP_FOUND_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FAILED_FIELD_NUMBER: _ClassVar[int]
    NOTICE_TURNED_OFF_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FINISHED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    game_started: MatchCardsEvent.GameStarted
    card_turned: MatchCardsEvent.CardTurned
    group_found: MatchCardsEvent.GroupFound
    attempt_failed: MatchCardsEvent.AttemptFailed
    notice_turned_off: MatchCardsEvent.NoticeTurnedOff
    player_finished: MatchCardsEvent.PlayerFinished
    game_ended: MatchCardsEvent.GameEnded
    opponent_progress: MatchCardsEvent.OpponentProgress
    def __init__(self, game_started: _Optional[_Union[MatchCardsEvent.GameStarted, _Mapping]] = ..., card_turned: _Optional[_Union[MatchCardsEvent.CardTurned, _Mapping]] = ..., group_found: _Optional[_Union[MatchCardsEvent.GroupFound, _Mapping]] = ..., attempt_failed: _Optional[_Union[MatchCardsEvent.AttemptFailed, _Mapping]] = ..., notice_turned_off: _Optional[_Union[MatchCardsEvent.NoticeTurnedOff, _Mapping]] = ..., player_finished: _Optional[_Union[MatchCardsEvent.PlayerFinished, _Mapping]] = ..., game_ended: _Optional[_Union[MatchCardsEvent.GameEnded, _Mapping]] = ..., opponent_progress: _Optional[_Union[MatchCardsEvent.OpponentProgress, _Mapping]] = ...) -> None: ...

class MatchCardsView(_message.Message):
    __slots__ = ("table_id", "event_number", "server_time_ms", "phase", "you", "settings", "limit", "groups_total", "started_at_ms", "ends_at_ms", "columns", "cards", "compare_at_ms", "notice", "notice_on", "players", "standings", "code", "replay", "commitment", "seed")
    class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PHASE_UNSPECIFIED: _ClassVar[MatchCardsView.Phase]
        PHASE_WAITING_FOR_PLAYERS: _ClassVar[MatchCardsView.Phase]
        PHASE_PLAYING: _ClassVar[MatchCardsView.Phase]
        PHASE_GAME_OVER: _ClassVar[MatchCardsView.Phase]
    PHASE_UNSPECIFIED: MatchCardsView.Phase
    PHASE_WAITING_FOR_PLAYERS: MatchCardsView.Phase
    PHASE_PLAYING: MatchCardsView.Phase
    PHASE_GAME_OVER: MatchCardsView.Phase
    class CardState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CARD_STATE_UNSPECIFIED: _ClassVar[MatchCardsView.CardState]
        CARD_STATE_DOWN: _ClassVar[MatchCardsView.CardState]
        CARD_STATE_UP: _ClassVar[MatchCardsView.CardState]
        CARD_STATE_FOUND: _ClassVar[MatchCardsView.CardState]
    CARD_STATE_UNSPECIFIED: MatchCardsView.CardState
    CARD_STATE_DOWN: MatchCardsView.CardState
    CARD_STATE_UP: MatchCardsView.CardState
    CARD_STATE_FOUND: MatchCardsView.CardState
    class Card(_message.Message):
        __slots__ = ("card", "state", "picture")
        CARD_FIELD_NUMBER: _ClassVar[int]
        STATE_FIELD_NUMBER: _ClassVar[int]
        PICTURE_FIELD_NUMBER: _ClassVar[int]
        card: int
        state: MatchCardsView.CardState
        picture: MatchCardsPicture
        def __init__(self, card: _Optional[int] = ..., state: _Optional[_Union[MatchCardsView.CardState, str]] = ..., picture: _Optional[_Union[MatchCardsPicture, _Mapping]] = ...) -> None: ...
    class Player(_message.Message):
        __slots__ = ("player", "display_name", "turned", "groups", "failed", "finished", "won", "time_ms")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        TURNED_FIELD_NUMBER: _ClassVar[int]
        GROUPS_FIELD_NUMBER: _ClassVar[int]
        FAILED_FIELD_NUMBER: _ClassVar[int]
        FINISHED_FIELD_NUMBER: _ClassVar[int]
        WON_FIELD_NUMBER: _ClassVar[int]
        TIME_MS_FIELD_NUMBER: _ClassVar[int]
        player: str
        display_name: str
        turned: int
        groups: int
        failed: int
        finished: bool
        won: bool
        time_ms: int
        def __init__(self, player: _Optional[str] = ..., display_name: _Optional[str] = ..., turned: _Optional[int] = ..., groups: _Optional[int] = ..., failed: _Optional[int] = ..., finished: _Optional[bool] = ..., won: _Optional[bool] = ..., time_ms: _Optional[int] = ...) -> None: ...
    class Notice(_message.Message):
        __slots__ = ("cards", "same")
        CARDS_FIELD_NUMBER: _ClassVar[int]
        SAME_FIELD_NUMBER: _ClassVar[int]
        cards: _containers.RepeatedScalarFieldContainer[int]
        same: bool
        def __init__(self, cards: _Optional[_Iterable[int]] = ..., same: _Optional[bool] = ...) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    GROUPS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    ENDS_AT_MS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    COMPARE_AT_MS_FIELD_NUMBER: _ClassVar[int]
    NOTICE_FIELD_NUMBER: _ClassVar[int]
    NOTICE_ON_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    event_number: int
    server_time_ms: int
    phase: MatchCardsView.Phase
    you: str
    settings: MatchCardsSettings
    limit: int
    groups_total: int
    started_at_ms: int
    ends_at_ms: int
    columns: int
    cards: _containers.RepeatedCompositeFieldContainer[MatchCardsView.Card]
    compare_at_ms: int
    notice: MatchCardsView.Notice
    notice_on: bool
    players: _containers.RepeatedCompositeFieldContainer[MatchCardsView.Player]
    standings: _containers.RepeatedCompositeFieldContainer[MatchCardsStanding]
    code: str
    replay: bool
    commitment: str
    seed: bytes
    def __init__(self, table_id: _Optional[str] = ..., event_number: _Optional[int] = ..., server_time_ms: _Optional[int] = ..., phase: _Optional[_Union[MatchCardsView.Phase, str]] = ..., you: _Optional[str] = ..., settings: _Optional[_Union[MatchCardsSettings, _Mapping]] = ..., limit: _Optional[int] = ..., groups_total: _Optional[int] = ..., started_at_ms: _Optional[int] = ..., ends_at_ms: _Optional[int] = ..., columns: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[MatchCardsView.Card, _Mapping]]] = ..., compare_at_ms: _Optional[int] = ..., notice: _Optional[_Union[MatchCardsView.Notice, _Mapping]] = ..., notice_on: _Optional[bool] = ..., players: _Optional[_Iterable[_Union[MatchCardsView.Player, _Mapping]]] = ..., standings: _Optional[_Iterable[_Union[MatchCardsStanding, _Mapping]]] = ..., code: _Optional[str] = ..., replay: _Optional[bool] = ..., commitment: _Optional[str] = ..., seed: _Optional[bytes] = ...) -> None: ...
