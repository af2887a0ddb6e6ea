from match.v1 import common_pb2 as _common_pb2
from match.v1 import concentration_pb2 as _concentration_pb2
from match.v1 import match_cards_pb2 as _match_cards_pb2
from match.v1 import match_five_pb2 as _match_five_pb2
from match.v1 import number_match_pb2 as _number_match_pb2
from match.v1 import race_pb2 as _race_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotStrength(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_STRENGTH_UNSPECIFIED: _ClassVar[BotStrength]
    BOT_STRENGTH_WEAK: _ClassVar[BotStrength]
    BOT_STRENGTH_MEDIUM: _ClassVar[BotStrength]
    BOT_STRENGTH_STRONG: _ClassVar[BotStrength]
BOT_STRENGTH_UNSPECIFIED: BotStrength
BOT_STRENGTH_WEAK: BotStrength
BOT_STRENGTH_MEDIUM: BotStrength
BOT_STRENGTH_STRONG: BotStrength

class DealRequest(_message.Message):
    __slots__ = ("table_id", "game_id", "game_kind", "race", "concentration", "match_cards", "number_match", "match_five")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    RACE_FIELD_NUMBER: _ClassVar[int]
    CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
    MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game_id: str
    game_kind: _common_pb2.GameKind
    race: _race_pb2.RaceSettings
    concentration: _concentration_pb2.ConcentrationSettings
    match_cards: _match_cards_pb2.MatchCardsSettings
    number_match: _number_match_pb2.NumberMatchSettings
    match_five: _match_five_pb2.MatchFiveSettings
    def __init__(self, table_id: _Optional[str] = ..., game_id: _Optional[str] = ..., game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ..., race: _Optional[_Union[_race_pb2.RaceSettings, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_pb2.ConcentrationSettings, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_pb2.MatchCardsSettings, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_pb2.NumberMatchSettings, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_pb2.MatchFiveSettings, _Mapping]] = ...) -> None: ...

class RaceDeal(_message.Message):
    __slots__ = ("boards", "bot_strength")
    class Board(_message.Message):
        __slots__ = ("layout",)
        LAYOUT_FIELD_NUMBER: _ClassVar[int]
        layout: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, layout: _Optional[_Iterable[int]] = ...) -> None: ...
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    BOT_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    boards: _containers.RepeatedCompositeFieldContainer[RaceDeal.Board]
    bot_strength: BotStrength
    def __init__(self, boards: _Optional[_Iterable[_Union[RaceDeal.Board, _Mapping]]] = ..., bot_strength: _Optional[_Union[BotStrength, str]] = ...) -> None: ...

class Deal(_message.Message):
    __slots__ = ("game_id", "deal_version", "commitment", "race", "concentration", "match_cards", "number_match", "match_five")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    RACE_FIELD_NUMBER: _ClassVar[int]
    CONCENTRATION_FIELD_NUMBER: _ClassVar[int]
    MATCH_CARDS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_MATCH_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIVE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    deal_version: str
    commitment: str
    race: RaceDeal
    concentration: _concentration_pb2.ConcentrationDeal
    match_cards: _match_cards_pb2.MatchCardsDeal
    number_match: _number_match_pb2.NumberMatchDeal
    match_five: _match_five_pb2.MatchFiveDeal
    def __init__(self, game_id: _Optional[str] = ..., deal_version: _Optional[str] = ..., commitment: _Optional[str] = ..., race: _Optional[_Union[RaceDeal, _Mapping]] = ..., concentration: _Optional[_Union[_concentration_pb2.ConcentrationDeal, _Mapping]] = ..., match_cards: _Optional[_Union[_match_cards_pb2.MatchCardsDeal, _Mapping]] = ..., number_match: _Optional[_Union[_number_match_pb2.NumberMatchDeal, _Mapping]] = ..., match_five: _Optional[_Union[_match_five_pb2.MatchFiveDeal, _Mapping]] = ...) -> None: ...

class DealResponse(_message.Message):
    __slots__ = ("deal", "refusal")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    deal: Deal
    refusal: _common_pb2.Refusal
    def __init__(self, deal: _Optional[_Union[Deal, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...

class RevealSeedRequest(_message.Message):
    __slots__ = ("table_id", "game_id")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game_id: str
    def __init__(self, table_id: _Optional[str] = ..., game_id: _Optional[str] = ...) -> None: ...

class RevealedSeed(_message.Message):
    __slots__ = ("game_id", "seed", "deal_version", "commitment")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seed: bytes
    deal_version: str
    commitment: str
    def __init__(self, game_id: _Optional[str] = ..., seed: _Optional[bytes] = ..., deal_version: _Optional[str] = ..., commitment: _Optional[str] = ...) -> None: ...

class RevealSeedResponse(_message.Message):
    __slots__ = ("seed", "refusal")
    SEED_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    seed: RevealedSeed
    refusal: _common_pb2.Refusal
    def __init__(self, seed: _Optional[_Union[RevealedSeed, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...

class CommitSeedRequest(_message.Message):
    __slots__ = ("table_id", "game_id", "game_kind")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_KIND_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    game_id: str
    game_kind: _common_pb2.GameKind
    def __init__(self, table_id: _Optional[str] = ..., game_id: _Optional[str] = ..., game_kind: _Optional[_Union[_common_pb2.GameKind, str]] = ...) -> None: ...

class SeedCommitment(_message.Message):
    __slots__ = ("game_id", "deal_version", "commitment")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    deal_version: str
    commitment: str
    def __init__(self, game_id: _Optional[str] = ..., deal_version: _Optional[str] = ..., commitment: _Optional[str] = ...) -> None: ...

class CommitSeedResponse(_message.Message):
    __slots__ = ("commitment", "refusal")
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    commitment: SeedCommitment
    refusal: _common_pb2.Refusal
    def __init__(self, commitment: _Optional[_Union[SeedCommitment, _Mapping]] = ..., refusal: _Optional[_Union[_common_pb2.Refusal, _Mapping]] = ...) -> None: ...
