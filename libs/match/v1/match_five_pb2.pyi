from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MatchFiveSettings(_message.Message):
    __slots__ = ("writing_seconds", "vote_seconds")
    WRITING_SECONDS_FIELD_NUMBER: _ClassVar[int]
    VOTE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    writing_seconds: int
    vote_seconds: int
    def __init__(self, writing_seconds: _Optional[int] = ..., vote_seconds: _Optional[int] = ...) -> None: ...

class MatchFiveDeal(_message.Message):
    __slots__ = ("dice", "faces_1", "faces_2")
    DICE_FIELD_NUMBER: _ClassVar[int]
    FACES_1_FIELD_NUMBER: _ClassVar[int]
    FACES_2_FIELD_NUMBER: _ClassVar[int]
    dice: _containers.RepeatedScalarFieldContainer[int]
    faces_1: _containers.RepeatedScalarFieldContainer[int]
    faces_2: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, dice: _Optional[_Iterable[int]] = ..., faces_1: _Optional[_Iterable[int]] = ..., faces_2: _Optional[_Iterable[int]] = ...) -> None: ...

class MatchFiveEvent(_message.Message):
    __slots__ = ("game_started", "round_started", "link_written", "link_erased", "writing_progress", "player_done", "combination_opened", "vote_cast", "match_called", "combination_closed", "round_scored", "game_ended")
    class GameStarted(_message.Message):
        __slots__ = ("at", "players", "settings", "deal_version", "dice")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYERS_FIELD_NUMBER: _ClassVar[int]
        SETTINGS_FIELD_NUMBER: _ClassVar[int]
        DEAL_VERSION_FIELD_NUMBER: _ClassVar[int]
        DICE_FIELD_NUMBER: _ClassVar[int]
        at: int
        players: _containers.RepeatedScalarFieldContainer[str]
        settings: MatchFiveSettings
        deal_version: str
        dice: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, at: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., settings: _Optional[_Union[MatchFiveSettings, _Mapping]] = ..., deal_version: _Optional[str] = ..., dice: _Optional[_Iterable[int]] = ...) -> None: ...
    class RoundStarted(_message.Message):
        __slots__ = ("at", "round", "faces", "categories", "writing_ends_at")
        AT_FIELD_NUMBER: _ClassVar[int]
        ROUND_FIELD_NUMBER: _ClassVar[int]
        FACES_FIELD_NUMBER: _ClassVar[int]
        CATEGORIES_FIELD_NUMBER: _ClassVar[int]
        WRITING_ENDS_AT_FIELD_NUMBER: _ClassVar[int]
        at: int
        round: int
        faces: _containers.RepeatedScalarFieldContainer[int]
        categories: _containers.RepeatedScalarFieldContainer[str]
        writing_ends_at: int
        def __init__(self, at: _Optional[int] = ..., round: _Optional[int] = ..., faces: _Optional[_Iterable[int]] = ..., categories: _Optional[_Iterable[str]] = ..., writing_ends_at: _Optional[int] = ...) -> None: ...
    class LinkWritten(_message.Message):
        __slots__ = ("at", "player", "round", "combination", "text")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        ROUND_FIELD_NUMBER: _ClassVar[int]
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        TEXT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        round: int
        combination: int
        text: str
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., round: _Optional[int] = ..., combination: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...
    class LinkErased(_message.Message):
        __slots__ = ("at", "player", "round", "combination")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        ROUND_FIELD_NUMBER: _ClassVar[int]
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        round: int
        combination: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., round: _Optional[int] = ..., combination: _Optional[int] = ...) -> None: ...
    class WritingProgress(_message.Message):
        __slots__ = ("at", "player", "links")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        LINKS_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        links: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., links: _Optional[int] = ...) -> None: ...
    class PlayerDone(_message.Message):
        __slots__ = ("at", "player", "round", "combination")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        ROUND_FIELD_NUMBER: _ClassVar[int]
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        round: int
        combination: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., round: _Optional[int] = ..., combination: _Optional[int] = ...) -> None: ...
    class ReadLink(_message.Message):
        __slots__ = ("ballot", "player", "text", "group")
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TEXT_FIELD_NUMBER: _ClassVar[int]
        GROUP_FIELD_NUMBER: _ClassVar[int]
        ballot: int
        player: str
        text: str
        group: int
        def __init__(self, ballot: _Optional[int] = ..., player: _Optional[str] = ..., text: _Optional[str] = ..., group: _Optional[int] = ...) -> None: ...
    class CombinationOpened(_message.Message):
        __slots__ = ("at", "round", "combination", "links", "votes_end_at")
        AT_FIELD_NUMBER: _ClassVar[int]
        ROUND_FIELD_NUMBER: _ClassVar[int]
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        LINKS_FIELD_NUMBER: _ClassVar[int]
        VOTES_END_AT_FIELD_NUMBER: _ClassVar[int]
        at: int
        round: int
        combination: int
        links: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.ReadLink]
        votes_end_at: int
        def __init__(self, at: _Optional[int] = ..., round: _Optional[int] = ..., combination: _Optional[int] = ..., links: _Optional[_Iterable[_Union[MatchFiveEvent.ReadLink, _Mapping]]] = ..., votes_end_at: _Optional[int] = ...) -> None: ...
    class VoteCast(_message.Message):
        __slots__ = ("at", "player", "ballot", "accept")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        ACCEPT_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        ballot: int
        accept: bool
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., ballot: _Optional[int] = ..., accept: _Optional[bool] = ...) -> None: ...
    class MatchCalled(_message.Message):
        __slots__ = ("at", "player", "ballot", "own", "target")
        AT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        OWN_FIELD_NUMBER: _ClassVar[int]
        TARGET_FIELD_NUMBER: _ClassVar[int]
        at: int
        player: str
        ballot: int
        own: int
        target: int
        def __init__(self, at: _Optional[int] = ..., player: _Optional[str] = ..., ballot: _Optional[int] = ..., own: _Optional[int] = ..., target: _Optional[int] = ...) -> None: ...
    class BallotResult(_message.Message):
        __slots__ = ("ballot", "accepted", "accepts", "contests", "author_ignored")
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        ACCEPTED_FIELD_NUMBER: _ClassVar[int]
        ACCEPTS_FIELD_NUMBER: _ClassVar[int]
        CONTESTS_FIELD_NUMBER: _ClassVar[int]
        AUTHOR_IGNORED_FIELD_NUMBER: _ClassVar[int]
        ballot: int
        accepted: bool
        accepts: int
        contests: int
        author_ignored: bool
        def __init__(self, ballot: _Optional[int] = ..., accepted: _Optional[bool] = ..., accepts: _Optional[int] = ..., contests: _Optional[int] = ..., author_ignored: _Optional[bool] = ...) -> None: ...
    class LinkScore(_message.Message):
        __slots__ = ("ballot", "player", "matching", "points")
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        MATCHING_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        ballot: int
        player: str
        matching: bool
        points: int
        def __init__(self, ballot: _Optional[int] = ..., player: _Optional[str] = ..., matching: _Optional[bool] = ..., points: _Optional[int] = ...) -> None: ...
    class CombinationClosed(_message.Message):
        __slots__ = ("at", "round", "combination", "results", "scores")
        AT_FIELD_NUMBER: _ClassVar[int]
        ROUND_FIELD_NUMBER: _ClassVar[int]
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        RESULTS_FIELD_NUMBER: _ClassVar[int]
        SCORES_FIELD_NUMBER: _ClassVar[int]
        at: int
        round: int
        combination: int
        results: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.BallotResult]
        scores: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.LinkScore]
        def __init__(self, at: _Optional[int] = ..., round: _Optional[int] = ..., combination: _Optional[int] = ..., results: _Optional[_Iterable[_Union[MatchFiveEvent.BallotResult, _Mapping]]] = ..., scores: _Optional[_Iterable[_Union[MatchFiveEvent.LinkScore, _Mapping]]] = ...) -> None: ...
    class PlayerScore(_message.Message):
        __slots__ = ("player", "points", "matching", "total")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        MATCHING_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        player: str
        points: int
        matching: int
        total: int
        def __init__(self, player: _Optional[str] = ..., points: _Optional[int] = ..., matching: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...
    class RoundScored(_message.Message):
        __slots__ = ("at", "round", "scores")
        AT_FIELD_NUMBER: _ClassVar[int]
        ROUND_FIELD_NUMBER: _ClassVar[int]
        SCORES_FIELD_NUMBER: _ClassVar[int]
        at: int
        round: int
        scores: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.PlayerScore]
        def __init__(self, at: _Optional[int] = ..., round: _Optional[int] = ..., scores: _Optional[_Iterable[_Union[MatchFiveEvent.PlayerScore, _Mapping]]] = ...) -> None: ...
    class Standing(_message.Message):
        __slots__ = ("player", "place", "points", "matching")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        PLACE_FIELD_NUMBER: _ClassVar[int]
        POINTS_FIELD_NUMBER: _ClassVar[int]
        MATCHING_FIELD_NUMBER: _ClassVar[int]
        player: str
        place: int
        points: int
        matching: int
        def __init__(self, player: _Optional[str] = ..., place: _Optional[int] = ..., points: _Optional[int] = ..., matching: _Optional[int] = ...) -> None: ...
    class GameEnded(_message.Message):
        __slots__ = ("at", "standings")
        AT_FIELD_NUMBER: _ClassVar[int]
        STANDINGS_FIELD_NUMBER: _ClassVar[int]
        at: int
        standings: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.Standing]
        def __init__(self, at: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[MatchFiveEvent.Standing, _Mapping]]] = ...) -> None: ...
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    LINK_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    LINK_ERASED_FIELD_NUMBER: _ClassVar[int]
    WRITING_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_DONE_FIELD_NUMBER: _ClassVar[int]
    COMBINATION_OPENED_FIELD_NUMBER: _ClassVar[int]
    VOTE_CAST_FIELD_NUMBER: _ClassVar[int]
    MATCH_CALLED_FIELD_NUMBER: _ClassVar[int]
    COMBINATION_CLOSED_FIELD_NUMBER: _ClassVar[int]
    ROUND_SCORED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    game_started: MatchFiveEvent.GameStarted
    round_started: MatchFiveEvent.RoundStarted
    link_written: MatchFiveEvent.LinkWritten
    link_erased: MatchFiveEvent.LinkErased
    writing_progress: MatchFiveEvent.WritingProgress
    player_done: MatchFiveEvent.PlayerDone
    combination_opened: MatchFiveEvent.CombinationOpened
    vote_cast: MatchFiveEvent.VoteCast
    match_called: MatchFiveEvent.MatchCalled
    combination_closed: MatchFiveEvent.CombinationClosed
    round_scored: MatchFiveEvent.RoundScored
    game_ended: MatchFiveEvent.GameEnded
    def __init__(self, game_started: _Optional[_Union[MatchFiveEvent.GameStarted, _Mapping]] = ..., round_started: _Optional[_Union[MatchFiveEvent.RoundStarted, _Mapping]] = ..., link_written: _Optional[_Union[MatchFiveEvent.LinkWritten, _Mapping]] = ..., link_erased: _Optional[_Union[MatchFiveEvent.LinkErased, _Mapping]] = ..., writing_progress: _Optional[_Union[MatchFiveEvent.WritingProgress, _Mapping]] = ..., player_done: _Optional[_Union[MatchFiveEvent.PlayerDone, _Mapping]] = ..., combination_opened: _Optional[_Union[MatchFiveEvent.CombinationOpened, _Mapping]] = ..., vote_cast: _Optional[_Union[MatchFiveEvent.VoteCast, _Mapping]] = ..., match_called: _Optional[_Union[MatchFiveEvent.MatchCalled, _Mapping]] = ..., combination_closed: _Optional[_Union[MatchFiveEvent.CombinationClosed, _Mapping]] = ..., round_scored: _Optional[_Union[MatchFiveEvent.RoundScored, _Mapping]] = ..., game_ended: _Optional[_Union[MatchFiveEvent.GameEnded, _Mapping]] = ...) -> None: ...

class MatchFiveView(_message.Message):
    __slots__ = ("table_id", "event_number", "server_time_ms", "phase", "you", "settings", "round", "categories", "combinations", "deadline_ms", "combination", "ballots", "players", "closed", "read", "rounds", "standings", "commitment", "seed")
    class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PHASE_UNSPECIFIED: _ClassVar[MatchFiveView.Phase]
        PHASE_WAITING_FOR_PLAYERS: _ClassVar[MatchFiveView.Phase]
        PHASE_WRITING: _ClassVar[MatchFiveView.Phase]
        PHASE_READING: _ClassVar[MatchFiveView.Phase]
        PHASE_GAME_OVER: _ClassVar[MatchFiveView.Phase]
    PHASE_UNSPECIFIED: MatchFiveView.Phase
    PHASE_WAITING_FOR_PLAYERS: MatchFiveView.Phase
    PHASE_WRITING: MatchFiveView.Phase
    PHASE_READING: MatchFiveView.Phase
    PHASE_GAME_OVER: MatchFiveView.Phase
    class Combination(_message.Message):
        __slots__ = ("combination", "colours", "categories", "your_link")
        COMBINATION_FIELD_NUMBER: _ClassVar[int]
        COLOURS_FIELD_NUMBER: _ClassVar[int]
        CATEGORIES_FIELD_NUMBER: _ClassVar[int]
        YOUR_LINK_FIELD_NUMBER: _ClassVar[int]
        combination: int
        colours: _containers.RepeatedScalarFieldContainer[str]
        categories: _containers.RepeatedScalarFieldContainer[str]
        your_link: str
        def __init__(self, combination: _Optional[int] = ..., colours: _Optional[_Iterable[str]] = ..., categories: _Optional[_Iterable[str]] = ..., your_link: _Optional[str] = ...) -> None: ...
    class Player(_message.Message):
        __slots__ = ("player", "display_name", "links", "done", "total")
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        LINKS_FIELD_NUMBER: _ClassVar[int]
        DONE_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        player: str
        display_name: str
        links: int
        done: bool
        total: int
        def __init__(self, player: _Optional[str] = ..., display_name: _Optional[str] = ..., links: _Optional[int] = ..., done: _Optional[bool] = ..., total: _Optional[int] = ...) -> None: ...
    class Ballot(_message.Message):
        __slots__ = ("ballot", "player", "text", "group", "own", "target", "your_vote", "votes")
        BALLOT_FIELD_NUMBER: _ClassVar[int]
        PLAYER_FIELD_NUMBER: _ClassVar[int]
        TEXT_FIELD_NUMBER: _ClassVar[int]
        GROUP_FIELD_NUMBER: _ClassVar[int]
        OWN_FIELD_NUMBER: _ClassVar[int]
        TARGET_FIELD_NUMBER: _ClassVar[int]
        YOUR_VOTE_FIELD_NUMBER: _ClassVar[int]
        VOTES_FIELD_NUMBER: _ClassVar[int]
        ballot: int
        player: str
        text: str
        group: int
        own: int
        target: int
        your_vote: int
        votes: int
        def __init__(self, ballot: _Optional[int] = ..., player: _Optional[str] = ..., text: _Optional[str] = ..., group: _Optional[int] = ..., own: _Optional[int] = ..., target: _Optional[int] = ..., your_vote: _Optional[int] = ..., votes: _Optional[int] = ...) -> None: ...
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERVER_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    CATEGORIES_FIELD_NUMBER: _ClassVar[int]
    COMBINATIONS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    COMBINATION_FIELD_NUMBER: _ClassVar[int]
    BALLOTS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    READ_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    event_number: int
    server_time_ms: int
    phase: MatchFiveView.Phase
    you: str
    settings: MatchFiveSettings
    round: int
    categories: _containers.RepeatedScalarFieldContainer[str]
    combinations: _containers.RepeatedCompositeFieldContainer[MatchFiveView.Combination]
    deadline_ms: int
    combination: int
    ballots: _containers.RepeatedCompositeFieldContainer[MatchFiveView.Ballot]
    players: _containers.RepeatedCompositeFieldContainer[MatchFiveView.Player]
    closed: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.CombinationClosed]
    read: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.CombinationOpened]
    rounds: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.RoundScored]
    standings: _containers.RepeatedCompositeFieldContainer[MatchFiveEvent.Standing]
    commitment: str
    seed: bytes
    def __init__(self, table_id: _Optional[str] = ..., event_number: _Optional[int] = ..., server_time_ms: _Optional[int] = ..., phase: _Optional[_Union[MatchFiveView.Phase, str]] = ..., you: _Optional[str] = ..., settings: _Optional[_Union[MatchFiveSettings, _Mapping]] = ..., round: _Optional[int] = ..., categories: _Optional[_Iterable[str]] = ..., combinations: _Optional[_Iterable[_Union[MatchFiveView.Combination, _Mapping]]] = ..., deadline_ms: _Optional[int] = ..., combination: _Optional[int] = ..., ballots: _Optional[_Iterable[_Union[MatchFiveView.Ballot, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[MatchFiveView.Player, _Mapping]]] = ..., closed: _Optional[_Iterable[_Union[MatchFiveEvent.CombinationClosed, _Mapping]]] = ..., read: _Optional[_Iterable[_Union[MatchFiveEvent.CombinationOpened, _Mapping]]] = ..., rounds: _Optional[_Iterable[_Union[MatchFiveEvent.RoundScored, _Mapping]]] = ..., standings: _Optional[_Iterable[_Union[MatchFiveEvent.Standing, _Mapping]]] = ..., commitment: _Optional[str] = ..., seed: _Optional[bytes] = ...) -> None: ...
