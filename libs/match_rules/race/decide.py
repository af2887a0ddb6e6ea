"""``decide``: all the judgement of Match, the race.

Every command first lets time pass up to its ``now`` (deadlines fire at the instant they were
due), then is judged on that state. A refused command raises RuleError and yields no event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from match_rules.decide import Log, Rules
from match_rules.errors import Code, RuleError
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.errors import RaceCode
from match_rules.race.score import board_results, standings
from match_rules.race.settings import (
    BOARDS,
    CAP_MS,
    COUNTDOWN_MS,
    FASTEST_HONEST_CLEAR_MS,
    GRACE_MS,
    MAX_HINTS_PER_BOARD,
    MAX_PLAYERS,
    MAX_READY_WINDOW_MS,
    MIN_PLAYERS,
    MIN_READY_WINDOW_MS,
    PAIRS,
    PAUSE_MS,
    TILES,
    TURNS_PER_BOARD,
)
from match_rules.race.state import Board, Phase, PlayerBoard, RaceState, evolve


class _Log(Log[RaceState, ev.Event]):
    """The events decided so far, and the state after each; and the board being played."""

    @property
    def board(self) -> Board:
        assert self.state.board is not None
        return self.state.board


def next_deadline(state: RaceState) -> int | None:
    """The next instant at which time alone changes the game, for the shell's timer."""
    board = state.board
    if board is None or state.phase in (Phase.NOT_STARTED, Phase.OVER):
        return None
    if state.phase is Phase.READY:
        return board.ready_deadline
    assert board.starts_at is not None
    if state.phase is Phase.COUNTDOWN:
        return board.starts_at
    if board.grace_until is not None:
        return board.grace_until
    return board.starts_at + CAP_MS


def is_terminal(state: RaceState) -> bool:
    return state.phase is Phase.OVER


# --- time ------------------------------------------------------------------------------------


def _pass_time(log: _Log, now: int) -> None:
    while (due := next_deadline(log.state)) is not None and due <= now:
        board = log.board
        if log.state.phase is Phase.READY:
            for player in log.state.remaining:
                if player not in board.ready:
                    log.emit(ev.PlayerMissedReady(due, board.number, player))
            _start_countdown_or_end(log, due)
        elif log.state.phase is Phase.COUNTDOWN:
            log.emit(ev.BoardStarted(due, board.number))
        else:
            reason = ev.EndReason.GRACE_OVER if board.taken_by else ev.EndReason.TIME_CAP
            _end_board(log, due, reason)


def _start_countdown_or_end(log: _Log, at: int) -> None:
    if log.state.remaining:
        log.emit(ev.CountdownStarted(at, log.board.number, at + COUNTDOWN_MS))
    else:
        _end_game(log, at)


def _end_board(log: _Log, at: int, reason: ev.EndReason) -> None:
    number = log.board.number
    log.emit(ev.BoardEnded(at, number, reason))
    results = board_results(log.state, log.board, at)
    log.emit(ev.BoardRevealed(at, number, log.state.layout(number), results))
    if number < BOARDS and log.state.remaining:
        log.emit(ev.ReadyOpened(at, number + 1, at + log.state.ready_window_ms))
    else:
        _end_game(log, at)


def _end_game(log: _Log, at: int) -> None:
    s = log.state
    log.emit(ev.GameEnded(at, standings(s.players, s.out, s.results)))


def _after_someone_done(log: _Log, at: int) -> None:
    """Once the board is over for every player, it ends for everybody, now."""
    if all(pb.outcome is not None for pb in log.board.players.values()):
        _end_board(log, at, ev.EndReason.ALL_DONE)


# --- checks shared by the commands -----------------------------------------------------------


def _check_in_game(state: RaceState, player: str) -> None:
    if state.phase is Phase.NOT_STARTED:
        raise RuleError(Code.GAME_NOT_STARTED, "the game has not started: the table is not full")
    if player not in state.players:
        raise RuleError(Code.NOT_SEATED, f"{player!r} has no seat at this table")
    if state.phase is Phase.OVER:
        raise RuleError(Code.GAME_OVER, "the game is over; the results are final")
    if player in state.out:
        raise RuleError(RaceCode.PLAYER_OUT, "you are out of this game and can no longer play")


def _playing_board(log: _Log, player: str) -> PlayerBoard:
    state = log.state
    if state.phase is not Phase.PLAYING:
        board = log.board
        when = (
            f"it becomes turnable at {board.starts_at}"
            if board.starts_at is not None
            else "everybody must press Ready first"
        )
        raise RuleError(RaceCode.BOARD_NOT_STARTED, f"board {board.number} has not started: {when}")
    mine = log.board.players[player]
    if mine.outcome is not None:
        raise RuleError(
            RaceCode.BOARD_OVER,
            f"your board {log.board.number} is over ({mine.outcome.value}); wait for the reveal",
        )
    return mine


# --- commands --------------------------------------------------------------------------------


def _start(log: _Log, c: cmd.StartGame) -> None:
    if log.state.phase is not Phase.NOT_STARTED:
        raise RuleError(Code.GAME_ALREADY_STARTED, "this game has already started")
    problem = _setup_problem(c)
    if problem:
        raise RuleError(Code.INVALID_SETUP, problem)
    log.emit(
        ev.GameStarted(
            c.now, c.players, c.bots, c.ready_window_ms, c.hints_per_board, c.deal_version
        )
    )
    log.emit(ev.ReadyOpened(c.now, 1, c.now + c.ready_window_ms))


def _setup_problem(c: cmd.StartGame) -> str | None:
    if not MIN_PLAYERS <= len(c.players) <= MAX_PLAYERS:
        return f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(c.players)}"
    if len(set(c.players)) != len(c.players) or not all(c.players):
        return "every player needs a distinct, non-empty id"
    if not c.bots <= set(c.players):
        return "every bot must hold a seat"
    if not MIN_READY_WINDOW_MS <= c.ready_window_ms <= MAX_READY_WINDOW_MS:
        return (
            f"the Ready deadline must be {MIN_READY_WINDOW_MS // 1000} to "
            f"{MAX_READY_WINDOW_MS // 1000} s, got {c.ready_window_ms} ms"
        )
    if not 0 <= c.hints_per_board <= MAX_HINTS_PER_BOARD:
        return f"hints per board must be 0 to {MAX_HINTS_PER_BOARD}, got {c.hints_per_board}"
    return None


def _ready(log: _Log, c: cmd.PressReady) -> None:
    _check_in_game(log.state, c.player)
    board = log.board
    if log.state.phase is not Phase.READY:
        raise RuleError(
            RaceCode.READY_NOT_OPEN, f"Ready is not open: board {board.number} is already under way"
        )
    if c.player in board.ready:
        raise RuleError(
            RaceCode.ALREADY_READY, f"you already pressed Ready for board {board.number}"
        )
    log.emit(ev.PlayerReady(c.now, board.number, c.player))
    _countdown_if_all_ready(log, c.now)


def _countdown_if_all_ready(log: _Log, at: int) -> None:
    if set(log.state.remaining) <= log.board.ready:
        _start_countdown_or_end(log, at)


def _turn(log: _Log, c: cmd.TurnTile) -> None:
    _check_in_game(log.state, c.player)
    if not 1 <= c.tile <= TILES:
        raise RuleError(
            RaceCode.TILE_OUT_OF_RANGE, f"tiles are numbered 1 to {TILES}, got {c.tile}"
        )
    mine = _playing_board(log, c.player)
    if c.now < mine.paused_until:
        raise RuleError(
            Code.PAUSED,
            f"your board is paused after a miss for {mine.paused_until - c.now} ms more",
        )
    if c.tile in mine.found or c.tile in mine.showing:
        raise RuleError(RaceCode.TILE_FACE_UP, f"tile {c.tile} is already face up; turn another")
    number, now, layout = log.board.number, c.now, log.state.layout(log.board.number)
    if len(mine.showing) == 2:
        a, b = mine.showing
        log.emit(ev.TilesTurnedDown(now, number, c.player, (a, b)))
    turn = mine.turns + 1
    symbol = layout[c.tile - 1]
    log.emit(ev.TileTurned(now, number, c.player, c.tile, symbol, turn))
    mine = log.board.players[c.player]
    if len(mine.showing) == 2:
        first, second = mine.showing
        if layout[first - 1] == symbol:
            log.emit(ev.PairFound(now, number, c.player, (first, second), symbol, mine.pairs + 1))
            if log.board.players[c.player].pairs == PAIRS:
                _cleared(log, c.player, now)
        else:
            log.emit(ev.AttemptMissed(now, number, c.player, (first, second), now + PAUSE_MS))
    if turn == TURNS_PER_BOARD and log.board.players[c.player].outcome is None:
        log.emit(ev.TurnsExhausted(now, number, c.player))
    _after_someone_done(log, now)


def _cleared(log: _Log, player: str, now: int) -> None:
    board = log.board
    assert board.starts_at is not None
    elapsed = now - board.starts_at
    if elapsed < FASTEST_HONEST_CLEAR_MS:
        log.emit(ev.ClearDisqualified(now, board.number, player, elapsed))
        return
    log.emit(ev.BoardCleared(now, board.number, player, elapsed))
    if board.taken_by is None:
        log.emit(ev.BoardTaken(now, board.number, player, now + GRACE_MS))


def _resign(log: _Log, c: cmd.Resign) -> None:
    _check_in_game(log.state, c.player)
    log.emit(ev.PlayerResigned(c.now, log.board.number, c.player))
    if log.state.phase is Phase.PLAYING:
        _after_someone_done(log, c.now)
    elif not log.state.remaining:
        _end_game(log, c.now)
    elif log.state.phase is Phase.READY:
        _countdown_if_all_ready(log, c.now)


def _hint(log: _Log, c: cmd.RequestHint) -> None:
    _check_in_game(log.state, c.player)
    if not log.state.bots:
        raise RuleError(RaceCode.HINT_NO_BOT, "hints are given only at a table with a bot")
    mine = _playing_board(log, c.player)
    if len(mine.showing) != 1:
        raise RuleError(
            RaceCode.HINT_NEEDS_ONE_TILE,
            "a hint marks the partner of the one tile you have showing: turn one tile first",
        )
    limit = log.state.hints_per_board
    if mine.hints >= limit:
        raise RuleError(Code.HINT_LIMIT_REACHED, f"you have used all {limit} hints for this board")
    (tile,) = mine.showing
    layout = log.state.layout(log.board.number)
    partner = next(
        t for t in range(1, TILES + 1) if t != tile and layout[t - 1] == layout[tile - 1]
    )
    log.emit(ev.HintGiven(c.now, log.board.number, c.player, tile, partner, mine.hints + 1))


_HANDLERS: dict[type, Callable[[_Log, Any], None]] = {
    cmd.StartGame: _start,
    cmd.PressReady: _ready,
    cmd.TurnTile: _turn,
    cmd.Resign: _resign,
    cmd.RequestHint: _hint,
}

RULES = Rules(evolve, _pass_time, _HANDLERS, cmd.Tick, next_deadline, is_terminal, _Log)
decide_steps = RULES.decide_steps
decide = RULES.decide
