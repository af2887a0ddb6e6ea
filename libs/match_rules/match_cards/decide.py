"""``decide``: all the judgement of Match Cards.

Every command first lets time pass up to its ``now``: whatever was due fires at the instant it
was due (compares earliest first, then seat by seat; the cap last), then the command is judged
on that state. A refused command raises RuleError and yields no event.

Times (docs/rules-match-cards.md): an attempt's cards are compared :data:`COMPARE_MS` after its
last card was turned, at the referee's timer; nothing can be turned meanwhile. Whoever has not
finished :data:`CAP_MS` after the start has lost, so that no table stays open for ever.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from match_rules.decide import Log, Rules
from match_rules.errors import Code, RuleError
from match_rules.match_cards import commands as cmd
from match_rules.match_cards import events as ev
from match_rules.match_cards.errors import MatchCardsCode
from match_rules.match_cards.settings import MAX_PLAYERS, MIN_PLAYERS, Difficulty, check
from match_rules.match_cards.state import MatchCardsState, Phase, evolve

COMPARE_MS = 1_500
CAP_MS = 3_600_000  # one hour


_Log = Log[MatchCardsState, ev.Event]  # the events decided so far, and the state after each


def _due(state: MatchCardsState) -> tuple[int, int, str] | None:
    """The earliest thing time alone will do: (when, seat, whose compare); the cap's seat
    comes after every player's, so at one instant the compares are judged first."""
    if state.phase is not Phase.PLAYING:
        return None
    due = [
        (b.compare_at, n, p)
        for n, p in enumerate(state.players, start=1)  # pragma: no mutate (only the order counts)
        if (b := state.board(p)).compare_at is not None
    ]
    due.append((state.ends_at, len(state.players) + 1, ""))  # pragma: no mutate (after every seat)
    return min(due)


def next_deadline(state: MatchCardsState) -> int | None:
    """The next instant at which time alone changes the game, for the referee's timer."""
    due = _due(state)
    return None if due is None else due[0]


def is_terminal(state: MatchCardsState) -> bool:
    return state.phase is Phase.OVER


# --- time ------------------------------------------------------------------------------------


def _pass_time(log: _Log, now: int) -> None:
    while (due := _due(log.state)) is not None and due[0] <= now:
        at, _, player = due
        if player:
            _compare(log, player, at)
        else:  # the cap: everybody still playing has lost
            for p in log.state.players:
                if log.state.board(p).finished_at is None:
                    _finish(log, p, at, won=False)
            _end_game(log, at)


def _compare(log: _Log, player: str, at: int) -> None:
    state = log.state
    b = state.board(player)
    same = len({b.pictures[c] for c in b.up}) == 1
    if same:
        log.emit(ev.GroupFound(at, player, b.up, b.groups + 1, b.notice))
        if log.state.board(player).groups == state.settings.groups:
            _finish(log, player, at, won=True)
    else:
        log.emit(ev.AttemptFailed(at, player, b.up, b.failed + 1, b.notice))
        if log.state.board(player).failed >= state.limit:
            _finish(log, player, at, won=False)
    if all(log.state.board(p).finished_at is not None for p in state.players):
        _end_game(log, at)


def _finish(log: _Log, player: str, at: int, won: bool) -> None:
    b = log.state.board(player)
    log.emit(ev.PlayerFinished(at, player, won, b.groups, b.failed, at - log.state.started_at))


def rank(rows: list[tuple[str, bool, int, int, int]]) -> tuple[ev.Standing, ...]:
    """Standings of (player, won, groups, failed, time_ms): more groups found, then fewer failed
    attempts, then less time; players equal on all three share a place."""

    def key(row: tuple[str, bool, int, int, int]) -> tuple[int, int, int]:
        return (-row[2], row[3], row[4])

    ordered = sorted(rows, key=key)
    return tuple(
        ev.Standing(r[0], 1 + sum(1 for o in rows if key(o) < key(r)), r[1], r[2], r[3], r[4])
        for r in ordered
    )


def _end_game(log: _Log, at: int) -> None:
    state = log.state
    rows = []
    for p in state.players:
        b = state.board(p)
        assert b.finished_at is not None
        rows.append((p, b.won, b.groups, b.failed, b.finished_at - state.started_at))
    log.emit(ev.GameEnded(at, rank(rows), state.code, state.settings.replay))


# --- commands --------------------------------------------------------------------------------


def _start(log: _Log, c: cmd.StartGame) -> None:
    state = log.state
    if state.phase is not Phase.NOT_STARTED:
        raise RuleError(Code.GAME_ALREADY_STARTED, "this game has already started")
    problem = _setup_problem(state, c)
    if problem:
        raise RuleError(Code.INVALID_SETUP, problem)
    settings = check(c.settings)
    log.emit(
        ev.GameStarted(c.now, c.players, settings, c.deal_version, settings.limit, c.now + CAP_MS)
    )


def _setup_problem(state: MatchCardsState, c: cmd.StartGame) -> str | None:
    if not MIN_PLAYERS <= len(c.players) <= MAX_PLAYERS:
        return f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(c.players)}"
    if len(set(c.players)) != len(c.players) or not all(c.players):
        return "every player needs a distinct, non-empty id"
    check(c.settings)
    if state.cards is not None and len(state.cards) != c.settings.cards:
        return f"the deal has {len(state.cards)} cards, the settings {c.settings.cards}"
    return None


def _check_playing(state: MatchCardsState, player: str) -> None:
    if state.phase is Phase.NOT_STARTED:
        raise RuleError(Code.GAME_NOT_STARTED, "the game has not started: every seat must be taken")
    if player not in state.players:
        raise RuleError(Code.NOT_SEATED, f"{player!r} has no seat at this table")
    if state.phase is Phase.OVER:
        raise RuleError(Code.GAME_OVER, "the game is over; the results are final")
    if state.board(player).finished_at is not None:
        raise RuleError(
            MatchCardsCode.PLAYER_FINISHED,
            "your game is over: wait for the others to finish to see the results",
        )


def _turn(log: _Log, c: cmd.TurnCard) -> None:
    state = log.state
    _check_playing(state, c.player)
    if not 1 <= c.card <= state.size:
        raise RuleError(
            Code.CARD_OUT_OF_RANGE, f"cards are numbered 1 to {state.size}, got {c.card}"
        )
    b = state.board(c.player)
    if b.compare_at is not None:
        raise RuleError(
            MatchCardsCode.COMPARING,
            f"the attempt's {len(b.up)} cards are being compared for {b.compare_at - c.now} ms "
            "more: nothing can be turned until then",
        )
    if c.card in b.found:
        raise RuleError(
            MatchCardsCode.CARD_FOUND, f"card {c.card} was found: it stays up; turn a hidden one"
        )
    if c.card in b.up:
        raise RuleError(
            MatchCardsCode.CARD_TURNED,
            f"card {c.card} is already turned in this attempt: turn another",
        )
    full = len(b.up) + 1 == state.settings.group
    compare_at = c.now + COMPARE_MS if full else None
    log.emit(ev.CardTurned(c.now, c.player, c.card, state.picture(c.card), compare_at))


def _notice_off(log: _Log, c: cmd.TurnOffNotice) -> None:
    state = log.state
    _check_playing(state, c.player)
    if state.board(c.player).notice:
        log.emit(ev.NoticeTurnedOff(c.now, c.player))
        return
    if state.settings.difficulty is not Difficulty.HARD:
        raise RuleError(
            MatchCardsCode.NO_NOTICE, "only Hard shows the Same/Different pictures notice"
        )
    raise RuleError(
        MatchCardsCode.NOTICE_ALREADY_OFF, "the notice is off already for the rest of the game"
    )


_HANDLERS: dict[type, Callable[[_Log, Any], None]] = {
    cmd.StartGame: _start,
    cmd.TurnCard: _turn,
    cmd.TurnOffNotice: _notice_off,
}

RULES = Rules(evolve, _pass_time, _HANDLERS, cmd.Tick, next_deadline, is_terminal)
decide_steps = RULES.decide_steps
decide = RULES.decide
