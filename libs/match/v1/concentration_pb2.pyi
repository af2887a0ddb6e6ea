from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ConcentrationSettings(_message.Message):
    __slots__ = ("pictures", "cards", "jokers", "matching", "turn_limit_ms")
    class Pictures(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PICTURES_UNSPECIFIED: _ClassVar[ConcentrationSettings.Pictures]
        PICTURES_EMOJI: _ClassVar[ConcentrationSettings.Pictures]
        PICTURES_PLAYING_CARDS: _ClassVar[ConcentrationSettings.Pictures]
    PICTURES_UNSPECIFIED: ConcentrationSettings.Pictures
    PICTURES_EMOJI: ConcentrationSettings.Pictures
    PICTURES_PLAYING_CARDS: ConcentrationSettings.Pictures
    class Matching(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MATCHING_UNSPECIFIED: _ClassVar[ConcentrationSettings.Matching]
        MATCHING_IDENTICAL: _ClassVar[ConcentrationSettings.Matching]
        MATCHING_RANK_AND_COLOUR: _ClassVar[ConcentrationSettings.Matching]
        MATCHING_RANK: _ClassVar[ConcentrationSettings.Matching]
    MATCHING_UNSPECIFIED: ConcentrationSettings.Matching
    MATCHING_IDENTICAL: ConcentrationSettings.Matching
    MATCHING_RANK_AND_COLOUR: ConcentrationSettings.Matching
    MATCHING_RANK: ConcentrationSettings.Matching
    PICTURES_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    MATCHING_FIELD_NUMBER: _ClassVar[int]
    TURN_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    pictures: ConcentrationSettings.Pictures
    cards: int
    jokers: bool
    matching: ConcentrationSettings.Matching
    turn_limit_ms: int
    def __init__(self, pictures: _Optional[_Union[ConcentrationSettings.Pictures, str]] = ..., cards: _Optional[int] = ..., jokers: _Optional[bool] = ..., matching: _Optional[_Union[ConcentrationSettings.Matching, str]] = ..., turn_limit_ms: _Optional[int] = ...) -> None: ...

class ConcentrationDeal(_message.Message):
    __slots__ = ("cards", "cpu_strength", "cpu_seed")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    CPU_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    CPU_SEED_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    cpu_strength: str
    cpu_seed: bytes
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., cpu_strength: _Optional[str] = ..., cpu_seed: _Optional[bytes] = ...) -> None: ...

class ConcentrationStanding(_message.Message):
    __slots__ = ("player", "place", "pairs", "tries")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    TRIES_FIELD_NUMBER: _ClassVar[int]
    player: str
    place: int
    pairs: int
    tries: int
    def __init__(self, player: _Optional[str] = ..., place: _Optional[int] = ..., pairs: _Optional[int] = ..., tries: _Optional[int] = ...) -> None: ...

class ConcentrationEvent(_message.Message):
    __slots__ = ("game_started", "turn_began", "card_flipped", "second_card_due", "pair_taken", "attempt_missed", "cards_turned_down", "time_ran_out", "seat_handed_to_cpu", "game_ended", "player_dropped", "player_returned")
    class GameStarted(_message.Message):
        __slots__ = ("at", "players", "cpus", "settings", "deal_version")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        CPUS_FIELD_NUMBER: _ClassVar[int]
        SETTINGS_FIELD_NUMBER: _ClassVar[int]
        DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
        at: int
        players: _containers.RepeatedScalarFieldContainer[str]
        cpus: _containers.RepeatedScalarFieldContainer[str]
        settings: ConcentrationSettings
        deal_version: str
        def __init__(self, at: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., cpus: _Optional[_Iterable[str]] = ..., settings: _Optional[_Union[ConcentrationSettings, _Mapping]] = ..., deal_version: _Optional[str] = ...) -> None: ...
    class TurnBegan(_message.Message):
        __slots__ = ("at", "player", "deadline")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        DEADLINE_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        deadline: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., deadline: _Optional[int] = ...) -> None: ...
    class CardFlipped(_message.Message):
        __slots__ = ("at", "player", "card", "face")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        FACE_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        card: int
        face: str
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., card: _Optional[int] = ..., face: _Optional[str] = ...) -> None: ...
    class SecondCardDue(_message.Message):
        __slots__ = ("at", "player", "deadline")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        DEADLINE_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        deadline: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., deadline: _Optional[int] = ...) -> None: ...
    class PairTaken(_message.Message):
        __slots__ = ("at", "player", "cards", "pairs", "tries")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        TRIES_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        cards: _containers.RepeatedScalarFieldContainer[int]
        pairs: int
        tries: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., cards: _Optional[_Iterable[int]] = ..., pairs: _Optional[int] = ..., tries: _Optional[int] = ...) -> None: ...
    class AttemptMissed(_message.Message):
        __slots__ = ("at", "player", "cards", "tries", "turn_down_at")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        TRIES_FIELD_NUMBER: _ClassVar[int]
        TURN_DOWN_AT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        cards: _containers.RepeatedScalarFieldContainer[int]
        tries: int
        turn_down_at: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., cards: _Optional[_Iterable[int]] = ..., tries: _Optional[int] = ..., turn_down_at: _Optional[int] = ...) -> None: ...
    class CardsTurnedDown(_message.Message):
        __slots__ = ("at", "cards")
        AT_FIELD_NUMBER: _ClassVar[int]
        CARDS_FIELD_NUMBER: _ClassVar[int]
        at: int
        cards: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, at: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ...) -> None: ...
    class TimeRanOut(_message.Message):
        __slots__ = ("at", "player", "card", "tries")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        TRIES_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        card: int
        tries: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., card: _Optional[int] = ..., tries: _Optional[int] = ...) -> None: ...
    class PlayerDropped(_message.Message):
        __slots__ = ("at", "player", "takeover_at")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TAKEOVER_AT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        takeover_at: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., takeover_at: _Optional[int] = ...) -> None: ...
    class PlayerReturned(_message.Message):
        __slots__ = ("at", "player")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...
    class SeatHandedToCpu(_message.Message):
        __slots__ = ("at", "player")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...
    class GameEnded(_message.Message):
        __slots__ = ("at", "standings", "winners", "draw")
        AT_FIELD_NUMBER: _ClassVar[int]
        STANDINGS_FIELD_NUMBER: _ClassVar[int]
        WINNERS_FIELD_NUMBER: _ClassVar[int]
        DRAW_FIELD_NUMBER: _ClassVar[int]
        at: int
        standings: _containers.RepeatedCompositeFieldContainer[ConcentrationStanding]
        winners: _containers.RepeatedScalarFieldContainer[str]
        draw: bool
        def __init__(self, at: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[ConcentrationStanding, _Mapping]]] = ..., winners: _Optional[_Iterable[str]] = ..., draw: _Optional[bool] = ...) -> None: ...
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_BEGAN_FIELD_NUMBER: _ClassVar[int]
    CARD_FLIPPED_FIELD_NUMBER: _ClassVar[int]
    SECOND_CARD_DUE_FIELD_NUMBER: _ClassVar[int]
    PAIR_TAKEN_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_MISSED_FIELD_NUMBER: _ClassVar[int]
    CARDS_TURNED_DOWN_FIELD_NUMBER: _ClassVar[int]
    TIME_RAN_OUT_FIELD_NUMBER: _ClassVar[int]
    SEAT_HANDED_TO_CPU_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_DROPPED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_RETURNED_FIELD_NUMBER: _ClassVar[int]
    game_started: ConcentrationEvent.GameStarted
    turn_began: ConcentrationEvent.TurnBegan
    card_flipped: ConcentrationEvent.CardFlipped
    second_card_due: ConcentrationEvent.SecondCardDue
    pair_taken: ConcentrationEvent.PairTaken
    attempt_missed: ConcentrationEvent.AttemptMissed
    cards_turned_down: ConcentrationEvent.CardsTurnedDown
    time_ran_out: ConcentrationEvent.TimeRanOut
    seat_handed_to_cpu: ConcentrationEvent.SeatHandedToCpu
    game_ended: ConcentrationEvent.GameEnded
    player_dropped: ConcentrationEvent.PlayerDropped
    player_returned: ConcentrationEvent.PlayerReturned
    def __init__(self, game_started: _Optional[_Union[ConcentrationEvent.GameStarted, _Mapping]] = ..., turn_began: _Optional[_Union[ConcentrationEvent.TurnBegan, _Mapping]] = ..., card_flipped: _Optional[_Union[ConcentrationEvent.CardFlipped, _Mapping]] = ..., second_card_due: _Optional[_Union[ConcentrationEvent.SecondCardDue, _Mapping]] = ..., pair_taken: _Optional[_Union[ConcentrationEvent.PairTaken, _Mapping]] = ..., attempt_missed: _Optional[_Union[ConcentrationEvent.AttemptMissed, _Mapping]] = ..., cards_turned_down: _Optional[_Union[ConcentrationEvent.CardsTurnedDown, _Mapping]] = ..., time_ran_out: _Optional[_Union[ConcentrationEvent.TimeRanOut, _Mapping]] = ..., seat_handed_to_cpu: _Optional[_Union[ConcentrationEvent.SeatHandedToCpu, _Mapping]] = ..., game_ended: _Optional[_Union[ConcentrationEvent.GameEnded, _Mapping]] = ..., player_dropped: _Optional[_Union[ConcentrationEvent.PlayerDropped, _Mapping]] = ..., player_returned: _Optional[_Union[ConcentrationEvent.PlayerReturned, _Mapping]] = ...) -> None: ...

class ConcentrationView(_message.Message):
    __slots__ = ("table_id", "event_number", "server_time_ms", "phase", "you", "settings", "cards", "seats", "turn", "deadline_ms", "turn_down_at_ms", "standings", "winners", "draw", "commitment", "seed")
    class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PHASE_UNSPECIFIED: _ClassVar[ConcentrationView.Phase]
        PHASE_WAITING_FOR_PLAYERS: _ClassVar[ConcentrationView.Phase]
        PHASE_PLAYING: _ClassVar[ConcentrationView.Phase]
        PHASE_GAME_OVER: _ClassVar[ConcentrationView.Phase]
    PHASE_UNSPECIFIED: ConcentrationView.Phase
    PHASE_WAITING_FOR_PLAYERS: ConcentrationView.Phase
    PHASE_PLAYING: ConcentrationView.Phase
    PHASE_GAME_OVER: ConcentrationView.Phase
    class CardState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CARD_STATE_UNSPECIFIED: _ClassVar[ConcentrationView.CardState]
        CARD_STATE_DOWN: _ClassVar[ConcentrationView.CardState]
        CARD_STATE_UP: _ClassVar[ConcentrationView.CardState]
        CARD_STATE_TAKEN: _ClassVar[ConcentrationView.CardState]
    CARD_STATE_UNSPECIFIED: ConcentrationView.CardState
    CARD_STATE_DOWN: ConcentrationView.CardState
    CARD_STATE_UP: ConcentrationView.CardState
    CARD_STATE_TAKEN: ConcentrationView.CardState
    class Card(_message.Message):
        __slots__ = ("card", "state", "face", "taken_by")
        CARD_FIELD_NUMBER: _ClassVar[int]
        STATE_FIELD_NUMBER: _ClassVar[int]
        FACE_FIELD_NUMBER: _ClassVar[int]
        TAKEN_BY_FIELD_NUMBER: _ClassVar[int]
        card: int
        state: ConcentrationView.CardState
        face: str
        taken_by: str
        def __init__(self, card: _Optional[int] = ..., state: _Optional[_Union[ConcentrationView.CardState, str]] = ..., face: _Optional[str] = ..., taken_by: _Optional[str] = ...) -> None: ...
    class Seat(_message.Message):
        __slots__ = ("player", "display_name", "pairs", "tries", "cpu", "takeover_at_ms")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        TRIES_FIELD_NUMBER: _ClassVar[int]
        CPU_FIELD_NUMBER: _ClassVar[int]
        TAKEOVER_AT_MS_FIELD_NUMBER: _ClassVar[int]
        player: str
        display_name: str
        pairs: int
        tries: int
        cpu: bool
        takeover_at_ms: int
        def __init__(self, player: _Optional[str] = ..., display_name: _Optional[str] = ..., pairs: _Optional[int] = ..., tries: _Optional[int] = ..., cpu: _Optional[bool] = ..., takeover_at_ms: _Optional[int] = ...) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    TURN_DOWN_AT_MS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    event_number: int
    server_time_ms: int
    phase: ConcentrationView.Phase
    you: str
    settings: ConcentrationSettings
    cards: _containers.RepeatedCompositeFieldContainer[ConcentrationView.Card]
    seats: _containers.RepeatedCompositeFieldContainer[ConcentrationView.Seat]
    turn: str
    deadline_ms: int
    turn_down_at_ms: int
    standings: _containers.RepeatedCompositeFieldContainer[ConcentrationStanding]
    winners: _containers.RepeatedScalarFieldContainer[str]
    draw: bool
    commitment: str
    seed: bytes
    def __init__(self, table_id: _Optional[str] = ..., event_number: _Optional[int] = ..., server_time_ms: _Optional[int] = ..., phase: _Optional[_Union[ConcentrationView.Phase, str]] = ..., you: _Optional[str] = ..., settings: _Optional[_Union[ConcentrationSettings, _Mapping]] = ..., cards: _Optional[_Iterable[_Union[ConcentrationView.Card, _Mapping]]] = ..., seats: _Optional[_Iterable[_Union[ConcentrationView.Seat, _Mapping]]] = ..., turn: _Optional[str] = ..., deadline_ms: _Optional[int] = ..., turn_down_at_ms: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[ConcentrationStanding, _Mapping]]] = ..., winners: _Optional[_Iterable[str]] = ..., draw: _Optional[bool] = ..., commitment: _Optional[str] = ..., seed: _Optional[bytes] = ...) -> None: ...
