"""``decide``: all the judgement of Concentration.

Every command first lets time pass up to its ``now`` (whatever was due fires at the instant it
was due, earliest first), then is judged on that state. A refused command raises RuleError and
yields no event.

Times (docs/rules-concentration.md): a miss stays face up for everybody :data:`MISS_SHOW_MS`
before it turns down and play passes; with the host's time limit ``L`` (30 or 60 s) each flip
of a turn must come within ``L`` (the seed's limit is for the second card; at a table of two or
more the first gets the same; a solo player's first card waits for ever); without one, a table
of two or more waits :data:`IDLE_MS` for each flip, so that nobody holds the table hostage, and
a solo game waits for ever. A CPU seat flips :data:`CPU_THINK_MS` after its turn began or after
its first card. A player whose connection drops has :data:`TAKEOVER_MS` to come back before the
CPU takes the seat (a solo table has nobody to hand it to: it waits as it was left).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from match_rules.concentration import commands as cmd
from match_rules.concentration import cpu
from match_rules.concentration import events as ev
from match_rules.concentration.errors import ConcentrationCode
from match_rules.concentration.settings import MAX_PLAYERS, MIN_PLAYERS, check, pair
from match_rules.concentration.state import ConcentrationState, Phase, evolve
from match_rules.decide import Log, Rules
from match_rules.errors import Code, RuleError

MISS_SHOW_MS = 1_500
IDLE_MS = 120_000
CPU_THINK_MS = 700
TAKEOVER_MS = 30_000

# What is due at one instant fires in this order.
_TURN_DOWN, _TIME_OUT, _TAKEOVER, _CPU_FLIP = range(4)


_Log = Log[ConcentrationState, ev.Event]  # the events decided so far, and the state after each


def wait_ms(state: ConcentrationState, first: bool) -> int | None:
    """How long the turn's first (or second) flip may take at this table (None: for ever)."""
    if len(state.players) == 1 and first:
        return None  # nobody to pass the turn to: the solo player's first card waits
    if state.settings.turn_limit_ms:
        return state.settings.turn_limit_ms
    return IDLE_MS if len(state.players) > 1 else None


def _deadline(state: ConcentrationState, at: int, first: bool) -> int | None:
    wait = wait_ms(state, first)
    return None if wait is None else at + wait


def cpu_flip_at(state: ConcentrationState) -> int | None:
    """When the CPU flips next: its seat's turn, no miss showing."""
    if state.turn in state.cpus and state.turn_down_at is None:
        return state.flip_from + CPU_THINK_MS
    return None


def _due(state: ConcentrationState) -> tuple[int, int, int] | None:
    """The earliest thing time alone will do: (when, what, whose seat); at one instant, in the
    order of ``what``, then seat by seat."""
    if state.phase is not Phase.PLAYING:
        return None
    due = [(at, _TAKEOVER, state.seat(p)) for p, at in state.dropped.items()]
    if state.turn_down_at is not None:
        due.append((state.turn_down_at, _TURN_DOWN, 0))  # pragma: no mutate: one of its kind
    if state.deadline is not None:
        due.append((state.deadline, _TIME_OUT, 0))  # pragma: no mutate: one of its kind
    flip = cpu_flip_at(state)
    if flip is not None:
        due.append((flip, _CPU_FLIP, 0))  # pragma: no mutate: one of its kind
    return min(due, default=None)


def next_deadline(state: ConcentrationState) -> int | None:
    """The next instant at which time alone changes the game, for the shell's timer."""
    due = _due(state)
    return None if due is None else due[0]


def is_terminal(state: ConcentrationState) -> bool:
    return state.phase is Phase.OVER


# --- time ------------------------------------------------------------------------------------


def _pass_time(log: _Log, now: int) -> None:
    while (due := _due(log.state)) is not None and due[0] <= now:
        at, what, seat = due
        state = log.state
        assert state.turn is not None
        if what == _TAKEOVER:
            log.emit(ev.SeatHandedToCpu(at, state.players[seat - 1]))
        elif what == _CPU_FLIP:
            _cpu_flip(log, at)
        elif what == _TURN_DOWN:
            log.emit(ev.CardsTurnedDown(at, state.up))
            _pass_turn(log, at)
        else:
            first = state.up[0] if state.up else None
            tries = state.tries[state.turn] + (1 if first is not None else 0)
            log.emit(ev.TimeRanOut(at, state.turn, first, tries))
            _pass_turn(log, at)


def _pass_turn(log: _Log, at: int) -> None:
    state = log.state
    assert state.turn is not None
    log.emit(ev.TurnBegan(at, state.next_player(state.turn), _deadline(state, at, first=True)))


def _cpu_flip(log: _Log, at: int) -> None:
    """The CPU flips for the seat whose turn it is, with what that seat saw."""
    state = log.state
    player = state.turn
    assert player is not None
    if state.cpu_seed is None:
        raise ValueError("this state holds no deal: the CPU has no random source")
    table = cpu.Table(
        down=tuple(
            n for n in range(1, state.size + 1) if n not in state.taken and n not in state.up
        ),
        up=tuple((n, state.faces[n]) for n in state.up),
        matching=state.settings.matching,
    )
    known = cpu.recall(state.memory[player], state.cpu_seed, state.seat(player), state.cpu_strength)
    _flip_card(log, at, player, cpu.choose(table, known, state.cpu_seed, state.seq))


# --- commands --------------------------------------------------------------------------------


def _start(log: _Log, c: cmd.StartGame) -> None:
    state = log.state
    if state.phase is not Phase.NOT_STARTED:
        raise RuleError(Code.GAME_ALREADY_STARTED, "this game has already started")
    problem = _setup_problem(state, c)
    if problem:
        raise RuleError(Code.INVALID_SETUP, problem)
    log.emit(ev.GameStarted(c.now, c.players, c.cpus, check(c.settings), c.deal_version))
    log.emit(ev.TurnBegan(c.now, c.players[0], _deadline(log.state, c.now, first=True)))


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
    if c.player in state.cpus:
        raise RuleError(
            ConcentrationCode.SEAT_PLAYED_BY_CPU,
            "the CPU plays this seat: it was a CPU seat from the start, or its player did not "
            "come back in time",
        )
    if state.turn_down_at is not None:
        raise RuleError(
            Code.PAUSED,
            f"the missed pair is still showing for {state.turn_down_at - c.now} ms more",
        )
    if state.turn != c.player:
        raise RuleError(
            ConcentrationCode.NOT_YOUR_TURN, f"it is {state.turn}'s turn to flip, not yours"
        )
    if c.card in state.taken:
        raise RuleError(
            ConcentrationCode.CARD_TAKEN, f"card {c.card} was taken; its place stays empty"
        )
    if c.card in state.up:
        raise RuleError(
            ConcentrationCode.CARD_FACE_UP, f"card {c.card} is face up already: flip another"
        )
    _flip_card(log, c.now, c.player, c.card)


def _flip_card(log: _Log, now: int, player: str, card: int) -> None:
    log.emit(ev.CardFlipped(now, player, card, log.state.face(card)))
    if len(log.state.up) == 1:
        due = _deadline(log.state, now, first=False)  # pragma: no mutate: None is as False
        log.emit(ev.SecondCardDue(now, player, due))
        return
    _judge(log, player, now)


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
        log.emit(ev.TurnBegan(now, player, _deadline(log.state, now, first=True)))


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


def _away(log: _Log, c: cmd.PlayerAway) -> None:
    """A person's connection dropped: the CPU takes the seat in TAKEOVER_MS unless they are
    back. Nothing for a seat the CPU plays, a player with no seat, a solo game, a player
    dropped already, before or after the game: the lobby sends what it sees, the rules judge."""
    state = log.state
    if (
        state.phase is Phase.PLAYING
        and len(state.players) > 1
        and c.player in state.players
        and c.player not in state.cpus
        and c.player not in state.dropped
    ):
        log.emit(ev.PlayerDropped(c.now, c.player, c.now + TAKEOVER_MS))


def _back(log: _Log, c: cmd.PlayerBack) -> None:
    """A dropped player is back in time: the seat stays theirs. Nothing otherwise."""
    if c.player in log.state.dropped:
        log.emit(ev.PlayerReturned(c.now, c.player))


_HANDLERS: dict[type, Callable[[_Log, Any], None]] = {
    cmd.StartGame: _start,
    cmd.FlipCard: _flip,
    cmd.PlayerAway: _away,
    cmd.PlayerBack: _back,
}

RULES = Rules(evolve, _pass_time, _HANDLERS, cmd.Tick, next_deadline, is_terminal)
decide_steps = RULES.decide_steps
decide = RULES.decide
