"""The state of one game of Match, the race, and ``evolve``: it records, it never judges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING

from match_rules.race import events as ev
from match_rules.race.settings import BOARDS, PAIRS, SYMBOLS, TILES

if TYPE_CHECKING:  # mypy checks each call's fields against dataclasses.replace
    from dataclasses import replace
else:  # the same, faster: match_rules.copying
    from match_rules.copying import replace


class Phase(Enum):
    NOT_STARTED = "not_started"
    READY = "ready"  # Ready is open for the current board
    COUNTDOWN = "countdown"  # everybody remaining is ready; the board starts at ``starts_at``
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class PlayerBoard:
    """One player's own copy of the current board."""

    turns: int = 0
    found: frozenset[int] = frozenset()  # tiles of found pairs
    showing: tuple[int, ...] = ()  # one tile of an attempt, or the two of a missed one
    paused_until: int = 0
    hints: int = 0
    outcome: ev.Outcome | None = None  # None while the player still plays this board
    last_pair_at: int | None = None
    faces: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))  # tile -> face

    @property
    def pairs(self) -> int:
        return len(self.found) // 2


@dataclass(frozen=True, slots=True)
class Board:
    number: int  # 1..3
    ready_deadline: int
    players: Mapping[str, PlayerBoard]
    ready: frozenset[str] = frozenset()
    starts_at: int | None = None  # T0: the same instant for everybody
    taken_by: str | None = None
    grace_until: int | None = None
    ended_at: int | None = None


@dataclass(frozen=True, slots=True)
class RaceState:
    """A game folded from its events.

    The referee's state holds the deal, which ``decide`` needs; a projection folded from the
    events alone (``initial_state()`` with no deal, as the lobby keeps one) holds only what the
    events say, and serves ``player_view`` and ``redact`` just as well. Neither is ever sent to a
    client as it is.
    """

    deal: tuple[tuple[int, ...], ...] | None
    phase: Phase = Phase.NOT_STARTED
    now: int = 0  # the ``at`` of the latest event: time never runs backwards
    players: tuple[str, ...] = ()
    bots: frozenset[str] = frozenset()
    ready_window_ms: int = 0
    hints_per_board: int = 0
    deal_version: str = ""
    out: frozenset[str] = frozenset()  # out of the game: missed a Ready, or resigned
    board: Board | None = None
    results: tuple[tuple[ev.BoardResult, ...], ...] = ()  # one entry per revealed board
    revealed: tuple[tuple[int, ...], ...] = ()  # the layouts of the revealed boards
    standings: tuple[ev.Standing, ...] = field(default=())

    def layout(self, board: int) -> tuple[int, ...]:
        """The deal of a board: only the referee's state has it."""
        if self.deal is None:
            raise ValueError("this state is a projection of the events: it holds no deal")
        return self.deal[board - 1]

    @property
    def remaining(self) -> tuple[str, ...]:
        """Players still in the game, in seat order."""
        return tuple(p for p in self.players if p not in self.out)


def validate_deal(deal: tuple[tuple[int, ...], ...]) -> None:
    """A deal is three boards of 20 tiles: ten symbols from 0..24, each on exactly two tiles."""
    if len(deal) != BOARDS:
        raise ValueError(f"a deal has {BOARDS} boards, got {len(deal)}")
    for number, layout in enumerate(deal, start=1):
        if len(layout) != TILES:
            raise ValueError(f"board {number} has {len(layout)} tiles, needs {TILES}")
        symbols = set(layout)
        if len(symbols) != PAIRS or any(layout.count(s) != 2 for s in symbols):
            raise ValueError(f"board {number} must hold {PAIRS} symbols twice each")
        if not all(0 <= s < SYMBOLS for s in symbols):
            raise ValueError(f"board {number} has a symbol outside 0..{SYMBOLS - 1}")


def initial_state(deal: tuple[tuple[int, ...], ...] | None = None) -> RaceState:
    """The state before StartGame. The referee passes in the deal from the dealer; a projection
    that only folds events for ``player_view`` passes none."""
    if deal is None:
        return RaceState(deal=None)
    validate_deal(deal)
    return RaceState(deal=tuple(tuple(b) for b in deal))


def _with_player(board: Board, player: str, **changes: object) -> Board:
    players = dict(board.players)
    players[player] = replace(players[player], **changes)  # type: ignore[arg-type]
    return replace(board, players=MappingProxyType(players))


def _set_board(state: RaceState, board: Board, at: int) -> RaceState:
    return replace(state, board=board, now=at)


def evolve(state: RaceState, event: ev.Event) -> RaceState:
    """Apply one recorded event. Only sets, appends and increments; all judgement is in decide."""
    board = state.board
    match event:
        case ev.GameStarted():
            return replace(
                state,
                now=event.at,
                players=event.players,
                bots=event.bots,
                ready_window_ms=event.ready_window_ms,
                hints_per_board=event.hints_per_board,
                deal_version=event.deal_version,
            )
        case ev.ReadyOpened():
            players = {
                p: PlayerBoard(outcome=ev.Outcome.OUT if p in state.out else None)
                for p in state.players
            }
            new = Board(event.board, event.deadline, MappingProxyType(players))
            return replace(state, phase=Phase.READY, board=new, now=event.at)
        case ev.GameEnded():
            return replace(state, phase=Phase.OVER, standings=event.standings, now=event.at)
    assert board is not None, f"{type(event).__name__} before any board"
    match event:
        case ev.PlayerReady():
            return _set_board(state, replace(board, ready=board.ready | {event.player}), event.at)
        case ev.PlayerMissedReady():
            board = _with_player(board, event.player, outcome=ev.Outcome.OUT)
            state = replace(state, out=state.out | {event.player})
            return _set_board(state, board, event.at)
        case ev.CountdownStarted():
            board = replace(board, starts_at=event.starts_at)
            return replace(state, phase=Phase.COUNTDOWN, board=board, now=event.at)
        case ev.BoardStarted():
            return replace(state, phase=Phase.PLAYING, now=event.at)
        case ev.TilesTurnedDown():
            faces = dict(board.players[event.player].faces)
            for tile in event.tiles:
                del faces[tile]
            board = _with_player(board, event.player, showing=(), faces=MappingProxyType(faces))
            return _set_board(state, board, event.at)
        case ev.TileTurned():
            mine = board.players[event.player]
            board = _with_player(
                board,
                event.player,
                turns=event.turn,
                showing=(*mine.showing, event.tile),
                faces=MappingProxyType({**mine.faces, event.tile: event.symbol}),
            )
            return _set_board(state, board, event.at)
        case ev.PairFound():
            mine = board.players[event.player]
            board = _with_player(
                board,
                event.player,
                found=mine.found | set(event.tiles),
                showing=(),
                last_pair_at=event.at,
            )
            return _set_board(state, board, event.at)
        case ev.AttemptMissed():
            board = _with_player(board, event.player, paused_until=event.paused_until)
            return _set_board(state, board, event.at)
        case ev.HintGiven():
            board = _with_player(board, event.player, hints=event.hints_used)
            return _set_board(state, board, event.at)
        case ev.TurnsExhausted():
            board = _with_player(board, event.player, outcome=ev.Outcome.OUT_OF_TURNS)
            return _set_board(state, board, event.at)
        case ev.BoardCleared():
            board = _with_player(board, event.player, outcome=ev.Outcome.CLEARED)
            return _set_board(state, board, event.at)
        case ev.ClearDisqualified():
            board = _with_player(board, event.player, outcome=ev.Outcome.DISQUALIFIED)
            return _set_board(state, board, event.at)
        case ev.BoardTaken():
            board = replace(board, taken_by=event.player, grace_until=event.grace_until)
            return _set_board(state, board, event.at)
        case ev.PlayerResigned():
            if board.players[event.player].outcome is None:
                board = _with_player(board, event.player, outcome=ev.Outcome.RESIGNED)
            state = replace(state, out=state.out | {event.player})
            return _set_board(state, board, event.at)
        case ev.BoardEnded():
            players = {
                p: pb if pb.outcome is not None else replace(pb, outcome=ev.Outcome.BOARD_ENDED)
                for p, pb in board.players.items()
            }
            board = replace(board, ended_at=event.at, players=MappingProxyType(players))
            return _set_board(state, board, event.at)
        case ev.BoardRevealed():
            return replace(
                state,
                results=(*state.results, event.results),
                revealed=(*state.revealed, event.layout),
                now=event.at,
            )
    raise TypeError(f"not an event of Match: {event!r}")  # pragma: no cover - exhaustive above
