"""What each player may see: ``player_view`` and ``redact``, applied to everything that leaves.

A player sees the faces of their own tiles that are up now (found pairs, and the tiles of an
attempt until they go back down). Of everybody else: pairs found, turns taken and hints used per
board, and whether they are playing, done or out; never a tile number, a face or a position. A
board's whole layout after its reveal; the standings when the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from match_rules.race import events as ev
from match_rules.race.settings import CAP_MS, TILES
from match_rules.race.state import Phase, PlayerBoard, RaceState


class TileState(Enum):
    DOWN = "down"
    SHOWING = "showing"
    FOUND = "found"


class Status(Enum):
    WAITING = "waiting"  # Ready is open and the player has not pressed it
    READY = "ready"
    PLAYING = "playing"
    DONE = "done"  # this board is over for them
    OUT = "out"  # out of the game


@dataclass(frozen=True, slots=True)
class TileView:
    tile: int
    state: TileState
    symbol: int | None  # only when up, and only on the player's own board


@dataclass(frozen=True, slots=True)
class Progress:
    """Another player's progress on a board: counts, never places."""

    board: int
    pairs: int
    turns: int
    hints: int


@dataclass(frozen=True, slots=True)
class OpponentView:
    player: str
    status: Status
    boards: tuple[Progress, ...]  # boards played so far, current one last


@dataclass(frozen=True, slots=True)
class RaceView:
    player: str
    phase: Phase
    board: int  # 0 before the game starts
    ready_deadline: int | None
    starts_at: int | None
    ends_at: int | None  # the cap, or the end of the grace once somebody has cleared
    status: Status
    tiles: tuple[TileView, ...]
    turns: int
    pairs: int
    hints_left: int
    paused_until: int
    outcome: ev.Outcome | None
    opponents: tuple[OpponentView, ...]
    revealed: tuple[tuple[int, ...], ...]  # layouts of boards 1..n after their reveal
    results: tuple[tuple[ev.BoardResult, ...], ...]
    standings: tuple[ev.Standing, ...]


@dataclass(frozen=True, slots=True)
class Counters:
    """A player's own counts, as every command's reply carries them: ``player_view`` in short."""

    board: int
    status: Status
    turns: int
    pairs: int
    hints_left: int
    paused_until: int


@dataclass(frozen=True, slots=True)
class OpponentMoved:
    """What another player's private event (a turn, a pair, a miss, a hint) shows to you."""

    at: int
    board: int
    player: str
    turns: int
    pairs: int
    hints: int


_EMPTY = PlayerBoard()


def _status(state: RaceState, player: str, pb: PlayerBoard) -> Status:
    if player in state.out:
        return Status.OUT
    if state.phase is Phase.READY:
        assert state.board is not None
        return Status.READY if player in state.board.ready else Status.WAITING
    if state.phase is Phase.COUNTDOWN:
        return Status.READY
    if state.phase is Phase.PLAYING and pb.outcome is None:
        return Status.PLAYING
    return Status.DONE


def _progress(state: RaceState, player: str) -> tuple[Progress, ...]:
    past = tuple(
        Progress(n, r.found, r.turns, r.hints)
        for n, board in enumerate(state.results, start=1)
        for r in board
        if r.player == player
    )
    board = state.board
    if board is None or board.ended_at is not None:
        return past
    pb = board.players[player]
    if pb.outcome is ev.Outcome.OUT:  # out before this board began: nothing to show
        return past
    return (*past, Progress(board.number, pb.pairs, pb.turns, pb.hints))


def _mine(state: RaceState, player: str) -> PlayerBoard:
    board = state.board
    live = board is not None and board.ended_at is None
    return board.players.get(player, _EMPTY) if board is not None and live else _EMPTY


def player_counters(state: RaceState, player: str) -> Counters:
    """The counts of ``player_view``, without building the whole view."""
    mine = _mine(state, player)
    return Counters(
        board=state.board.number if state.board is not None else 0,
        status=_status(state, player, mine),
        turns=mine.turns,
        pairs=mine.pairs,
        hints_left=max(state.hints_per_board - mine.hints, 0) if state.bots else 0,
        paused_until=mine.paused_until,
    )


def player_view(state: RaceState, player: str) -> RaceView:
    """The game as ``player`` may see it. Safe to send to that player and nobody else."""
    board = state.board
    live = board is not None and board.ended_at is None
    mine = _mine(state, player)
    counts = player_counters(state, player)
    tiles = []
    for t in range(1, TILES + 1):
        if t in mine.found:
            tiles.append(TileView(t, TileState.FOUND, mine.faces[t]))
        elif t in mine.showing:
            tiles.append(TileView(t, TileState.SHOWING, mine.faces[t]))
        else:
            tiles.append(TileView(t, TileState.DOWN, None))
    ends_at = None
    if board is not None and board.starts_at is not None:
        ends_at = board.grace_until or board.starts_at + CAP_MS
    return RaceView(
        player=player,
        phase=state.phase,
        board=counts.board,
        ready_deadline=board.ready_deadline if board is not None else None,
        starts_at=board.starts_at if board is not None else None,
        ends_at=ends_at,
        status=counts.status,
        tiles=tuple(tiles),
        turns=counts.turns,
        pairs=counts.pairs,
        hints_left=counts.hints_left,
        paused_until=counts.paused_until,
        outcome=mine.outcome,
        opponents=tuple(
            OpponentView(
                p,
                _status(state, p, board.players[p] if live and board else _EMPTY),
                _progress(state, p),
            )
            for p in state.players
            if p != player
        ),
        revealed=state.revealed,
        results=state.results,
        standings=state.standings,
    )


def redact(state_after: RaceState, event: ev.Event, viewer: str) -> ev.Event | OpponentMoved:
    """The event as ``viewer`` may see it. ``state_after`` is the state once it was applied.

    Events that name a tile or face of one player's board go to that player as they are; every
    other viewer gets the counts only. Every other event is public.
    """
    if not isinstance(event, ev.PRIVATE_EVENTS) or event.player == viewer:
        return event
    board = state_after.board
    assert board is not None
    pb = board.players[event.player]
    return OpponentMoved(event.at, event.board, event.player, pb.turns, pb.pairs, pb.hints)
