"""What must hold in every game: random games over random deals and random commands.

The games reach every limit of the rules (10 hints a board and the 11th refused, a stale clock,
Ready windows of 10 and 120 s and just outside): :func:`test_the_strategy_reaches_every_limit`
shows that it does. Determinism is checked in a fresh interpreter with another
``PYTHONHASHSEED`` (tests/games/replay.py), byte for byte; re-folding goes through the wire.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import subprocess
import sys
from dataclasses import dataclass, fields
from functools import reduce
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from match.v1 import dealer_pb2, race_pb2
from match_rules.errors import RuleError
from match_rules.race import commands as cmd
from match_rules.race import (
    decide,
    decide_steps,
    evolve,
    initial_state,
    is_terminal,
    next_deadline,
    player_counters,
    player_view,
    redact,
)
from match_rules.race import events as ev
from match_rules.race.game import GAME
from match_rules.race.settings import (
    MAX_HINTS_PER_BOARD,
    MAX_READY_WINDOW_MS,
    MIN_READY_WINDOW_MS,
    PAIRS,
    TILES,
    TURNS_PER_BOARD,
)
from match_rules.race.state import RaceState
from tests.games.replay import encoded

ROOT = Path(__file__).resolve().parents[3]

PLAYERS = ("p1", "p2", "p3", "p4")


@dataclass(frozen=True)
class AllReady:
    """Test-only: everybody still in the game presses Ready (as people do, mostly)."""

    now: int


@dataclass(frozen=True)
class PairMove:
    """Test-only: turn the k-th pair of whatever board is current, as a player with a perfect
    memory would, so that random games also clear boards (fast and slow), take and lose them."""

    now: int
    player: str
    k: int
    hint: bool = False  # ask for a hint between the two tiles (as a player who forgot would)


Move = cmd.Command | PairMove | AllReady
Game = tuple[tuple[tuple[int, ...], ...], cmd.StartGame, list[Move]]

# The mix of commands a game draws from: the usual one, and one that asks for hints until none
# are left (so that 10 hints a board and the 11th are reached, not only the default 3).
MIXES = ("TTTTTTTTTTPPPPPPPPPPAARHHKSB", "IIIIIIIIIIIITTHHAARB")
# Ready windows: the edges (10 and 120 s), just outside them (refused), and anything between.
WINDOWS = st.one_of(
    st.sampled_from(
        (MIN_READY_WINDOW_MS, MAX_READY_WINDOW_MS, MIN_READY_WINDOW_MS - 1, MAX_READY_WINDOW_MS + 1)
    ),
    st.integers(MIN_READY_WINDOW_MS, MAX_READY_WINDOW_MS),
)
HINTS = st.one_of(
    st.sampled_from((0, MAX_HINTS_PER_BOARD, MAX_HINTS_PER_BOARD + 1)),
    st.integers(0, MAX_HINTS_PER_BOARD),
)


@st.composite
def deals(draw: st.DrawFn) -> tuple[tuple[int, ...], ...]:
    boards = []
    for _ in range(3):
        symbols = draw(st.lists(st.integers(0, 24), min_size=10, max_size=10, unique=True))
        boards.append(tuple(draw(st.permutations(symbols * 2))))
    return tuple(boards)


@st.composite
def games(draw: st.DrawFn) -> Game:
    deal = draw(deals())
    mix = draw(st.sampled_from(MIXES))
    hinting = mix == MIXES[1]
    n = draw(st.integers(2, 4))
    players = PLAYERS[:n]
    bots = frozenset(draw(st.sets(st.sampled_from(players[1:]), min_size=hinting, max_size=n - 1)))
    start = cmd.StartGame(0, players, bots, draw(WINDOWS), draw(HINTS), "test")
    commands: list[Move] = []
    window_ok = MIN_READY_WINDOW_MS <= start.ready_window_ms <= MAX_READY_WINDOW_MS
    if not window_ok or start.hints_per_board > MAX_HINTS_PER_BOARD:
        commands.append(cmd.StartGame(0, players, bots, 30_000, 3, "test"))  # the retry
    now = 0
    for _ in range(draw(st.integers(0, 600))):
        big = draw(st.integers(0, 19)) == 0
        now += draw(st.integers(0, 40_000 if big else 1_200))
        kind = draw(st.sampled_from(mix))
        who = draw(st.sampled_from((*players, "stranger")))
        if kind == "B":  # a command stamped before the game's clock: refused as stale
            commands.append(cmd.PressReady(max(now - draw(st.integers(1, 5_000)), 0), who))
        elif kind == "T":
            commands.append(cmd.TurnTile(now, who, draw(st.integers(0, TILES + 1))))
        elif kind in "PI":
            hinter = players[0] if kind == "I" else who  # players[0] is never a bot
            commands.append(PairMove(now, hinter, draw(st.integers(0, 9)), kind == "I"))
        elif kind == "A":
            commands.append(AllReady(now))
        elif kind == "R":
            commands.append(cmd.PressReady(now, who))
        elif kind == "H":
            commands.append(cmd.RequestHint(now, who))
        elif kind == "K":
            commands.append(cmd.Resign(now, who))
        else:
            commands.append(cmd.Tick(now))
    commands.append(cmd.Tick(now + 10_000_000))  # let every deadline pass: the game must end
    return deal, start, commands


def run(
    deal: tuple[tuple[int, ...], ...], start: cmd.StartGame, moves: list[Move]
) -> tuple[list[ev.Event], list[tuple[cmd.Command, str]]]:
    """Play the moves; every refused command must yield no event. Checks after every event."""
    state = initial_state(deal)
    log: list[ev.Event] = []
    refusals: list[tuple[cmd.Command, str]] = []
    for move in (start, *moves):
        for command in _expand(state, move):
            try:
                events = decide(state, command)
            except RuleError as error:
                refusals.append((command, error.code.slug))
                continue
            steps = decide_steps(state, command)
            assert [e for e, _ in steps] == events
            for event, stepped in zip(events, (s for _, s in steps), strict=True):
                state = evolve(state, event)
                assert stepped == state, "decide_steps gives the states evolve gives"
                log.append(event)
                check_after(state, event, deal)
    return log, refusals


def _expand(state: RaceState, move: Move) -> list[cmd.Command]:
    if isinstance(move, AllReady):
        return [cmd.PressReady(move.now, p) for p in state.remaining]
    if not isinstance(move, PairMove):
        return [move]
    board = state.board
    number = board.number if board is not None else 1
    layout = state.deal[number - 1]
    mine = board.players.get(move.player) if board is not None else None
    found = mine.found if mine is not None else frozenset()
    unfound = sorted({layout[t - 1] for t in range(1, TILES + 1) if t not in found})
    symbol = unfound[move.k % len(unfound)] if unfound else layout[0]
    a, b = (t for t in range(1, TILES + 1) if layout[t - 1] == symbol)
    hint = [cmd.RequestHint(move.now, move.player)] if move.hint else []
    return [cmd.TurnTile(move.now, move.player, a), *hint, cmd.TurnTile(move.now, move.player, b)]


_up: dict[str, set[int]] = {}  # per player: tiles that player turned that are up now (model)


def check_after(state: RaceState, event: ev.Event, deal: tuple[tuple[int, ...], ...]) -> None:
    """After every event: views leak nothing, counts stay in bounds, redaction holds."""
    if isinstance(event, ev.ReadyOpened | ev.GameStarted):
        _up.clear()
    if isinstance(event, ev.TileTurned):
        _up.setdefault(event.player, set()).add(event.tile)
    if isinstance(event, ev.TilesTurnedDown):
        _up[event.player] -= set(event.tiles)
    for player in (*state.players, "stranger"):
        view = player_view(state, player)
        counts = player_counters(state, player)
        assert counts == type(counts)(**{f.name: getattr(view, f.name) for f in fields(counts)})
        shown = {t.tile: t.symbol for t in view.tiles if t.symbol is not None}
        if state.board is not None and state.board.ended_at is None:
            assert set(shown) <= _up.get(player, set()), "a face the player did not turn"
            for tile, symbol in shown.items():
                assert deal[state.board.number - 1][tile - 1] == symbol
        assert 0 <= view.turns <= TURNS_PER_BOARD and 0 <= view.pairs <= PAIRS
        assert 0 <= view.hints_left <= state.hints_per_board
        for opponent in view.opponents:
            for progress in opponent.boards:
                assert 0 <= progress.pairs <= PAIRS and 0 <= progress.turns <= TURNS_PER_BOARD
        seen = redact(state, event, player)
        owner = getattr(event, "player", player)
        if owner != player:
            names = {f.name for f in fields(seen)}  # type: ignore[arg-type]
            assert not names & {"tile", "tiles", "symbol", "partner"}, seen


@settings(max_examples=100, deadline=None)
@given(games())
def test_in_every_game_nothing_leaks_counts_hold_and_the_game_ends(
    game: Game,
) -> None:
    deal, start, commands = game
    log, _ = run(deal, start, commands)
    final = reduce(evolve, log, initial_state(deal))
    assert is_terminal(final), "every game ends once its deadlines have passed"
    assert next_deadline(final) is None
    assert [e.at for e in log] == sorted(e.at for e in log), "time never runs backwards"
    (ended,) = [e for e in log if isinstance(e, ev.GameEnded)]
    assert sorted(s.player for s in ended.standings) == sorted(start.players)
    assert all(1 <= s.place <= len(start.players) for s in ended.standings)
    assert len([e for e in log if isinstance(e, ev.BoardRevealed)]) <= 3


def commands_of(
    deal: tuple[tuple[int, ...], ...], start: cmd.StartGame, moves: list[Move]
) -> list[cmd.Command]:
    """The domain commands the moves expand to, as the game played them."""
    state = initial_state(deal)
    out: list[cmd.Command] = []
    for move in (start, *moves):
        for command in _expand(state, move):
            out.append(command)
            try:
                for event in decide(state, command):
                    state = evolve(state, event)
            except RuleError:
                pass
    return out


def replay_elsewhere(
    deal: tuple[tuple[int, ...], ...], commands: list[cmd.Command], hash_seed: str
) -> list[str]:
    """tests/games/replay.py in a fresh interpreter with ``PYTHONHASHSEED=hash_seed``."""
    wire = dealer_pb2.RaceDeal(boards=[dealer_pb2.RaceDeal.Board(layout=b) for b in deal])
    request = {
        "slug": GAME.slug,
        "seed": (b"\0" * 32).hex(),
        "settings": race_pb2.RaceSettings().SerializeToString(deterministic=True).hex(),
        "deal": wire.SerializeToString(deterministic=True).hex(),
        "commands": base64.b64encode(pickle.dumps(commands)).decode(),
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.games.replay"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.integers(1, 2**32 - 1))
def test_a_fresh_interpreter_with_another_hash_seed_gives_the_same_bytes_and_refusals(
    game: Game, hash_seed: int
) -> None:
    deal, start, moves = game
    log, refusals = run(deal, start, moves)
    commands = commands_of(deal, start, moves)
    refused = iter(code for _, code in refusals)
    expected: list[str] = []
    state = initial_state(deal)
    for command in commands:  # what this process saw, in the order the other one prints it
        try:
            steps = decide_steps(state, command)
        except RuleError:
            expected.append(f"refused:{next(refused)}")
            continue
        for event, state in steps:  # noqa: B007
            expected.extend(encoded(GAME, [event]))
    assert next(refused, None) is None
    assert len(expected) == len(log) + len(refusals)
    here = os.environ.get("PYTHONHASHSEED", "")
    other = str(hash_seed) if str(hash_seed) != here else str(hash_seed + 1)
    assert replay_elsewhere(deal, commands, other) == expected


@settings(max_examples=60, deadline=None)
@given(games(), st.data())
def test_folding_the_events_read_back_from_the_wire_gives_the_state_decide_gave(
    game: Game,
    data: st.DataObject,
) -> None:
    """The referee rebuilds a table by folding the events it reads back from the log: decoded
    from their bytes, they must give at every point the state ``decide_steps`` gave live."""
    deal, start, commands = game
    live: list[tuple[ev.Event, RaceState]] = []
    state = initial_state(deal)
    for command in commands_of(deal, start, commands):
        try:
            steps = decide_steps(state, command)
        except RuleError:
            continue
        live.extend(steps)
        if steps:
            state = steps[-1][1]
    cut = data.draw(st.integers(0, len(live)))
    wire = [
        GAME.decode(race_pb2.RaceEvent.FromString(GAME.encode(e).SerializeToString()))
        for e, _ in live[:cut]
    ]
    assert wire == [e for e, _ in live[:cut]]
    expected = live[cut - 1][1] if cut else initial_state(deal)
    assert reduce(evolve, wire, initial_state(deal)) == expected


def limit_games() -> dict[str, Game]:
    """Games at each limit, written out: the random games draw these settings at their edges
    (``WINDOWS``, ``HINTS``, the ``B`` and ``I`` moves); here each limit is certainly reached."""
    deal = tuple(tuple(s for s in range(10) for _ in (0, 1)) for _ in range(3))
    two = ("p1", "p2")

    def ready(now: int) -> AllReady:
        return AllReady(now)

    hints = [ready(1_000), cmd.Tick(5_000)]
    hints += [PairMove(5_000 + 100 * k, "p1", 0, hint=True) for k in range(8)]  # tiles 1-16
    hints += [cmd.TurnTile(6_000, "p1", 17), cmd.RequestHint(6_000, "p1")]  # the 9th
    hints += [cmd.TurnTile(6_000, "p1", 19)]  # a miss: paused
    hints += [cmd.TurnTile(8_000, "p1", 18), cmd.RequestHint(8_000, "p1")]  # the 10th
    hints += [cmd.TurnTile(8_000, "p1", 17), cmd.TurnTile(8_100, "p1", 19)]
    hints += [cmd.RequestHint(8_100, "p1")]  # the 11th: refused, tiles 19 and 20 still down
    return {
        "10 hints": (deal, cmd.StartGame(0, two, frozenset({"p2"}), 10_000, 10, "t"), hints),
        "11 hints": (deal, cmd.StartGame(0, two, frozenset(), 10_000, 11, "t"), []),
        "stale": (
            deal,
            cmd.StartGame(0, two, frozenset(), 10_000, 3, "t"),
            [cmd.PressReady(2_000, "p1"), cmd.PressReady(1_999, "p2")],
        ),
        "120 s": (
            deal,
            cmd.StartGame(0, two, frozenset(), MAX_READY_WINDOW_MS, 3, "t"),
            [cmd.PressReady(MAX_READY_WINDOW_MS - 1, "p1"), cmd.Tick(MAX_READY_WINDOW_MS)],
        ),
        "120.001 s": (deal, cmd.StartGame(0, two, frozenset(), 120_001, 3, "t"), []),
    }


def test_the_checks_hold_at_every_limit() -> None:
    games_ = limit_games()
    log, refusals = run(*games_["10 hints"])
    assert [e.hints_used for e in log if isinstance(e, ev.HintGiven)] == list(range(1, 11))
    assert [code for _, code in refusals] == ["hint_limit_reached"]
    assert [code for _, code in run(*games_["11 hints"])[1]] == ["invalid_setup"]
    log, refusals = run(*games_["stale"])
    assert [code for _, code in refusals] == ["stale_time"]
    log, _ = run(*games_["120 s"])
    assert [e for e in log if isinstance(e, ev.PlayerMissedReady)] == [
        ev.PlayerMissedReady(MAX_READY_WINDOW_MS, 1, "p2")
    ]
    assert [code for _, code in run(*games_["120.001 s"])[1]] == ["invalid_setup"]
