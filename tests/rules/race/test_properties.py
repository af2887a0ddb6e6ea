"""What must hold in every game: random games over random deals and random commands."""

from __future__ import annotations

from dataclasses import dataclass, fields

from hypothesis import given, settings
from hypothesis import strategies as st

from match_rules.decider import fold
from match_rules.errors import RuleError
from match_rules.race import RACE, decide_steps, initial_state, player_counters, player_view, redact
from match_rules.race import commands as cmd
from match_rules.race import events as ev
from match_rules.race.constants import PAIRS, TILES, TURNS_PER_BOARD
from match_rules.race.state import RaceState

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


Move = cmd.Command | PairMove | AllReady
Game = tuple[tuple[tuple[int, ...], ...], cmd.StartGame, list[Move]]


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
    n = draw(st.integers(2, 4))
    players = PLAYERS[:n]
    bots = frozenset(draw(st.sets(st.sampled_from(players), max_size=n - 1)))
    start = cmd.StartGame(
        0, players, bots, draw(st.integers(10_000, 120_000)), draw(st.integers(0, 3)), "test"
    )
    commands: list[Move] = []
    now = 0
    for _ in range(draw(st.integers(0, 600))):
        big = draw(st.integers(0, 19)) == 0
        now += draw(st.integers(0, 40_000 if big else 1_200))
        kind = draw(st.sampled_from("TTTTTTTTTTPPPPPPPPPPAARHHKS"))
        who = draw(st.sampled_from((*players, "stranger")))
        if kind == "T":
            commands.append(cmd.TurnTile(now, who, draw(st.integers(0, TILES + 1))))
        elif kind == "P":
            commands.append(PairMove(now, who, draw(st.integers(0, 9))))
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
                events = RACE.decide(state, command)
            except RuleError as error:
                refusals.append((command, error.code.slug))
                continue
            steps = decide_steps(state, command)
            assert [e for e, _ in steps] == events
            for event, stepped in zip(events, (s for _, s in steps), strict=True):
                state = RACE.evolve(state, event)
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
    return [cmd.TurnTile(move.now, move.player, a), cmd.TurnTile(move.now, move.player, b)]


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
    final = fold(RACE, initial_state(deal), log)
    assert RACE.is_terminal(final), "every game ends once its deadlines have passed"
    assert RACE.next_deadline(final) is None
    assert [e.at for e in log] == sorted(e.at for e in log), "time never runs backwards"
    (ended,) = [e for e in log if isinstance(e, ev.GameEnded)]
    assert sorted(s.player for s in ended.standings) == sorted(start.players)
    assert all(1 <= s.place <= len(start.players) for s in ended.standings)
    assert len([e for e in log if isinstance(e, ev.BoardRevealed)]) <= 3


@settings(max_examples=60, deadline=None)
@given(games())
def test_the_same_deal_and_commands_give_the_same_events_and_refusals(
    game: Game,
) -> None:
    deal, start, commands = game
    assert run(deal, start, commands) == run(deal, start, commands)


@settings(max_examples=60, deadline=None)
@given(games(), st.data())
def test_folding_the_events_again_gives_the_same_state_at_every_point(
    game: Game,
    data: st.DataObject,
) -> None:
    deal, start, commands = game
    log, _ = run(deal, start, commands)
    cut = data.draw(st.integers(0, len(log)))
    state = initial_state(deal)
    for event in log[:cut]:
        state = RACE.evolve(state, event)
    assert fold(RACE, initial_state(deal), log[:cut]) == state
