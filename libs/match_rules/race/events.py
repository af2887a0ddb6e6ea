"""Events of Match, the race: what happened, in the past tense, stamped with the referee's ``at``.

Timer events carry the instant they were due, not the instant a tick noticed them, so a replay
gives the same times whatever the referee was doing. Events that name a tile or a face of one
player's board (:data:`PRIVATE_EVENTS`) may be shown to that player only; see ``view.redact``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Outcome(Enum):
    """How a player's board ended for them."""

    CLEARED = "cleared"
    DISQUALIFIED = "disqualified"
    OUT_OF_TURNS = "out_of_turns"
    RESIGNED = "resigned"
    BOARD_ENDED = "board_ended"  # still playing when the board ended for everybody
    OUT = "out"  # out of the game before this board began
    NOT_PLAYED = "not_played"  # the game ended before this board was played


class EndReason(Enum):
    ALL_DONE = "all_done"
    GRACE_OVER = "grace_over"
    TIME_CAP = "time_cap"


@dataclass(frozen=True, slots=True)
class GameStarted:
    at: int
    players: tuple[str, ...]
    bots: frozenset[str]
    ready_window_ms: int
    hints_per_board: int
    deal_version: str


@dataclass(frozen=True, slots=True)
class ReadyOpened:
    at: int
    board: int
    deadline: int


@dataclass(frozen=True, slots=True)
class PlayerReady:
    at: int
    board: int
    player: str


@dataclass(frozen=True, slots=True)
class PlayerMissedReady:
    """The Ready deadline passed without this player: they are out of the game."""

    at: int
    board: int
    player: str


@dataclass(frozen=True, slots=True)
class CountdownStarted:
    at: int
    board: int
    starts_at: int


@dataclass(frozen=True, slots=True)
class BoardStarted:
    at: int
    board: int


@dataclass(frozen=True, slots=True)
class TilesTurnedDown:
    """The two tiles of a missed attempt go back down (at the player's next accepted turn)."""

    at: int
    board: int
    player: str
    tiles: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TileTurned:
    at: int
    board: int
    player: str
    tile: int
    symbol: int
    turn: int  # 1..80: this player's turns on this board so far, this one included


@dataclass(frozen=True, slots=True)
class PairFound:
    at: int
    board: int
    player: str
    tiles: tuple[int, int]
    symbol: int
    pairs: int  # this player's pairs on this board so far


@dataclass(frozen=True, slots=True)
class AttemptMissed:
    at: int
    board: int
    player: str
    tiles: tuple[int, int]
    paused_until: int


@dataclass(frozen=True, slots=True)
class HintGiven:
    """The place of the partner of the player's one showing tile: a tile number, never a face."""

    at: int
    board: int
    player: str
    tile: int
    partner: int
    hints_used: int


@dataclass(frozen=True, slots=True)
class TurnsExhausted:
    at: int
    board: int
    player: str


@dataclass(frozen=True, slots=True)
class BoardCleared:
    at: int
    board: int
    player: str
    elapsed_ms: int


@dataclass(frozen=True, slots=True)
class ClearDisqualified:
    """A clear under 12 s: the player scores nothing on this board; nobody else is affected."""

    at: int
    board: int
    player: str
    elapsed_ms: int


@dataclass(frozen=True, slots=True)
class BoardTaken:
    """The first qualifying clear takes the board and starts the grace for everybody else."""

    at: int
    board: int
    player: str
    grace_until: int


@dataclass(frozen=True, slots=True)
class PlayerResigned:
    at: int
    board: int
    player: str


@dataclass(frozen=True, slots=True)
class BoardEnded:
    at: int
    board: int
    reason: EndReason


@dataclass(frozen=True, slots=True)
class BoardResult:
    player: str
    outcome: Outcome
    pairs: int  # as scored: 0 when disqualified
    found: int  # as found on the board, shown even when disqualified
    turns: int
    time_ms: int
    hints: int


@dataclass(frozen=True, slots=True)
class BoardRevealed:
    """The whole layout, for everybody, once the board has ended for every player."""

    at: int
    board: int
    layout: tuple[int, ...]
    results: tuple[BoardResult, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    place: int
    pairs: int
    time_ms: int
    turns: int
    hints: int
    out: bool


@dataclass(frozen=True, slots=True)
class GameEnded:
    at: int
    standings: tuple[Standing, ...]


Event = (
    GameStarted
    | ReadyOpened
    | PlayerReady
    | PlayerMissedReady
    | CountdownStarted
    | BoardStarted
    | TilesTurnedDown
    | TileTurned
    | PairFound
    | AttemptMissed
    | HintGiven
    | TurnsExhausted
    | BoardCleared
    | ClearDisqualified
    | BoardTaken
    | PlayerResigned
    | BoardEnded
    | BoardRevealed
    | GameEnded
)

PRIVATE_EVENTS = (TilesTurnedDown, TileTurned, PairFound, AttemptMissed, HintGiven)
