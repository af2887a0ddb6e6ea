"""``decide``: all the judgement of Concentration.

Every command first lets time pass up to its ``now`` (deadlines fire at the instant they were
due), then is judged on that state. A refused command raises RuleError and yields no event.

Times (docs/rules-concentration.md): a miss stays face up for everybody :data:`MISS_SHOW_MS`
before it turns down and play passes; with the host's time limit ``L`` (30 or 60 s) each flip
of a turn must come within ``L`` (the seed's limit is for the second card; the first gets the
same); without one, a table of two or more waits :data:`IDLE_MS` for each flip, so that nobody
holds the table hostage, and a solo game waits for ever.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration.settings import MAX_PLAYERS, MIN_PLAYERS, check, pair
from match_rules.concentration.state import ConcentrationState, Phase, evolve
from match_rules.errors import Code, RuleError

MISS_SHOW_MS = 1_500
IDLE_MS = 120_000


class _Log:
    """The events decided so far, and the state after each."""

    def __init__(self, state: ConcentrationState) -> None:
        self.state = state
        self.steps: list[tuple[ev.Event, ConcentrationState]] = []

    def emit(self, event: ev.Event) -> None:
        self.state = evolve(self.state, event)
        self.steps.append((event, self.state))


def wait_ms(state: ConcentrationState) -> int | None:
    """How long one flip may take at this table (None: for ever)."""
    if state.settings.turn_limit_ms:
        return state.settings.turn_limit_ms
    return IDLE_MS if len(state.players) > 1 else None


def _deadline(state: ConcentrationState, at: int) -> int | None:
    wait = wait_ms(state)
    return None if wait is None else at + wait


def next_deadline(state: ConcentrationState) -> int | None:
    """The next instant at which time alone changes the game, for the shell's timer."""
    if state.phase is not Phase.PLAYING:
        return None
    if state.turn_down_at is not None:
        return state.turn_down_at
    return state.deadline


def is_terminal(state: ConcentrationState) -> bool:
    return state.phase is Phase.OVER


def decide(state: ConcentrationState, command: cmd.Command) -> list[ev.Event]:
    return [event for event, _ in decide_steps(state, command)]


def decide_steps(
    state: ConcentrationState, command: cmd.Command
) -> list[tuple[ev.Event, ConcentrationState]]:
    """``decide``, with the state after each event."""
    if command.now < state.now:
        if isinstance(command, cmd.Tick):
            return []
        raise RuleError(
            Code.STALE_TIME,
            f"the command is stamped {command.now}, before the game's latest event at "
            f"{state.now}; the referee's clock must not run backwards",
        )
    log = _Log(state)
    _pass_time(log, command.now)
    handler = _HANDLERS.get(type(command))  # a Tick only lets time pass
    if handler is not None:
        handler(log, command)
    return log.steps


# --- time ------------------------------------------------------------------------------------


def _pass_time(log: _Log, now: int) -> None:
    while (due := next_deadline(log.state)) is not None and due <= now:
        state = log.state
        assert state.turn is not None
        if state.turn_down_at is not None:
            log.emit(ev.CardsTurnedDown(due, state.up))
        else:
            first = state.up[0] if state.up else None
            tries = state.tries[state.turn] + (1 if first is not None else 0)
            log.emit(ev.TimeRanOut(due, state.turn, first, tries))
        _pass_turn(log, due)


def _pass_turn(log: _Log, at: int) -> None:
    state = log.state
    assert state.turn is not None
    log.emit(ev.TurnBegan(at, state.next_player(state.turn), _deadline(state, at)))


# --- commands --------------------------------------------------------------------------------


def _start(log: _Log, c: cmd.StartGame) -> None:
    state = log.state
    if state.phase is not Phase.NOT_STARTED:
        raise RuleError(Code.GAME_ALREADY_STARTED, "this game has already started")
    problem = _setup_problem(state, c)
    if problem:
        raise RuleError(Code.INVALID_SETUP, problem)
    log.emit(ev.GameStarted(c.now, c.players, c.cpus, check(c.settings), c.deal_version))
    log.emit(ev.TurnBegan(c.now, c.players[0], _deadline(log.state, c.now)))


def _setup_problem(state: ConcentrationState, c: cmd.StartGame) -> str | None:
    if not MIN_PLAYERS <= len(c.players) <= MAX_PLAYERS:
        return f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(c.players)}"
    if len(set(c.players)) != len(c.players) or not all(c.players):
        return "every player needs a distinct, non-empty id"
    if not c.cpus <= set(c.players):
        return "every CPU player must hold a seat"
    check(c.settings)
    if state.cards is not None and len(state.cards) != c.settings.deck_size:
        return f"the deal has {len(state.cards)} cards, the settings {c.settings.deck_size}"
    return None


def _check_in_game(state: ConcentrationState, player: str) -> None:
    if state.phase is Phase.NOT_STARTED:
        raise RuleError(Code.GAME_NOT_STARTED, "the game has not started: the host starts it")
    if player not in state.players:
        raise RuleError(Code.NOT_SEATED, f"{player!r} has no seat at this table")
    if state.phase is Phase.OVER:
        raise RuleError(Code.GAME_OVER, "the game is over; the results are final")


def _flip(log: _Log, c: cmd.FlipCard) -> None:
    state = log.state
    _check_in_game(state, c.player)
    if not 1 <= c.card <= state.size:
        raise RuleError(
            Code.CARD_OUT_OF_RANGE, f"cards are numbered 1 to {state.size}, got {c.card}"
        )
    if (c.player in state.cpus) != c.by_cpu:
        raise RuleError(
            Code.SEAT_PLAYED_BY_CPU,
            "the CPU plays this seat now: its player did not come back in time"
            if c.player in state.cpus
            else "a person plays this seat: the CPU may not move for them",
        )
    if state.turn_down_at is not None:
        raise RuleError(
            Code.PAUSED,
            f"the missed pair is still showing for {state.turn_down_at - c.now} ms more",
        )
    if state.turn != c.player:
        raise RuleError(Code.NOT_YOUR_TURN, f"it is {state.turn}'s turn to flip, not yours")
    if c.card in state.taken:
        raise RuleError(Code.CARD_TAKEN, f"card {c.card} was taken; its place stays empty")
    if c.card in state.up:
        raise RuleError(Code.CARD_FACE_UP, f"card {c.card} is face up already: flip another")
    log.emit(ev.CardFlipped(c.now, c.player, c.card, state.face(c.card)))
    if len(log.state.up) == 1:
        log.emit(ev.SecondCardDue(c.now, c.player, _deadline(log.state, c.now)))
        return
    _judge(log, c.player, c.now)


def _judge(log: _Log, player: str, now: int) -> None:
    state = log.state
    first, second = state.up
    tries = state.tries[player] + 1
    if not pair(state.faces[first], state.faces[second], state.settings.matching):
        log.emit(ev.AttemptMissed(now, player, (first, second), tries, now + MISS_SHOW_MS))
        return
    log.emit(ev.PairTaken(now, player, (first, second), state.pairs[player] + 1, tries))
    if len(log.state.taken) == log.state.size:
        _end_game(log, now)
    else:
        log.emit(ev.TurnBegan(now, player, _deadline(log.state, now)))


def _end_game(log: _Log, at: int) -> None:
    state = log.state
    pairs = state.pairs
    standings = sorted(
        (
            ev.Standing(p, 1 + sum(1 for q in state.players if pairs[q] > pairs[p]), pairs[p],
                        state.tries[p])
            for p in state.players
        ),
        key=lambda s: s.place,
    )  # fmt: skip
    winners = tuple(s.player for s in standings if s.place == 1)
    draw = len(state.players) > 1 and len(winners) == len(state.players)
    log.emit(ev.GameEnded(at, tuple(standings), winners, draw))


def _hand_to_cpu(log: _Log, c: cmd.HandToCpu) -> None:
    _check_in_game(log.state, c.player)
    if c.player in log.state.cpus:
        raise RuleError(Code.SEAT_PLAYED_BY_CPU, f"the CPU plays {c.player}'s seat already")
    log.emit(ev.SeatHandedToCpu(c.now, c.player))


_HANDLERS: dict[type, Callable[[_Log, Any], None]] = {
    cmd.StartGame: _start,
    cmd.FlipCard: _flip,
    cmd.HandToCpu: _hand_to_cpu,
}
