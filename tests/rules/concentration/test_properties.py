"""What holds in every game of Concentration, over random deals, settings and play."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from match_rules.concentration import commands as cmd
from match_rules.concentration import decide, evolve, initial_state, next_deadline, player_view
from match_rules.concentration import events as ev
from match_rules.concentration.cpu import Table, choose
from match_rules.concentration.deal import deal
from match_rules.concentration.settings import DECK_SIZES, Matching, Pictures, Settings
from match_rules.concentration.state import ConcentrationState
from match_rules.concentration.view import CardState
from match_rules.errors import RuleError

SETTINGS = st.one_of(
    st.builds(Settings, st.just(Pictures.EMOJI), st.sampled_from(DECK_SIZES)),
    st.builds(
        Settings,
        st.just(Pictures.PLAYING_CARDS),
        st.sampled_from(DECK_SIZES),
        st.booleans(),
        st.sampled_from(list(Matching)),
        st.sampled_from([0, 30_000]),
    ),
)


def sight(state: ConcentrationState) -> Table:
    """What a seat sees of the table, as the CPU policy takes it."""
    view = player_view(state, "")
    down = tuple(c.card for c in view.cards if c.state is CardState.DOWN)
    up = tuple((c.card, c.face or "") for c in view.cards if c.state is CardState.UP)
    return Table(down, up[:1], state.settings.matching)


def play(
    seed: bytes,
    table: Settings,
    players: int,
    moves: int,
    rng: random.Random,
    perfect: bool = False,
) -> tuple[ConcentrationState, list[ev.Event], list[cmd.Command]]:
    """A random game: mostly flips of cards face down, some wrong ones, some waits; with
    ``perfect``, every seat remembers every face it saw (so the game always ends)."""
    names = tuple(f"p{i}" for i in range(players))
    dealt = deal(seed, table)
    state = initial_state(dealt.cards, dealt.cpu_seed, dealt.cpu_strength)
    log: list[ev.Event] = []
    commands: list[cmd.Command] = [cmd.StartGame(0, names, frozenset(), table, "v")]
    now = 0
    memory: dict[int, str] = {}
    for n in range(moves + 1):
        if state.turn is None and n:
            break  # over
        if n and perfect and (due := next_deadline(state)) is not None and due <= now + 1_600:
            now = due
            commands.append(cmd.Tick(now))  # the miss turns down: then the next seat flips
        elif n and perfect:
            now += 1_600
            seen = {c: f for c, f in memory.items() if c not in state.taken}
            card = choose(sight(state), seen, seed, rng.randrange(2**16))
            commands.append(cmd.FlipCard(now, state.turn or "", card))
        elif n:
            now += rng.choice([0, 200, 1_600, 40_000])
            if rng.random() < 0.1:
                commands.append(cmd.FlipCard(now, rng.choice(names), rng.randint(0, 60)))
            elif rng.random() < 0.15:
                commands.append(cmd.Tick(now))
            else:
                card = choose(sight(state), {}, seed, rng.randrange(2**16))
                commands.append(cmd.FlipCard(now, state.turn or "", card))
        try:
            events = decide(state, commands[-1])
        except RuleError:
            continue
        for event in events:
            state = evolve(state, event)
            if isinstance(event, ev.CardFlipped):
                memory[event.card] = event.face
        log += events
    return state, log, commands


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=32, max_size=32), SETTINGS, st.integers(1, 6), st.randoms())
def test_folding_the_events_again_gives_the_same_state_and_counts_stay_in_bounds(
    seed: bytes, table: Settings, players: int, rng: random.Random
) -> None:
    state, log, _ = play(seed, table, players, 120, rng)
    again = initial_state(state.cards, state.cpu_seed, state.cpu_strength)
    for event in log:
        again = evolve(again, event)
    assert again == state
    assert 2 * sum(state.pairs.values()) == len(state.taken) <= table.deck_size
    assert all(state.tries[p] >= state.pairs[p] for p in state.players)
    assert len(state.up) <= 2


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=32, max_size=32), SETTINGS, st.integers(1, 6), st.randoms())
def test_no_face_is_shown_before_its_card_is_flipped(
    seed: bytes, table: Settings, players: int, rng: random.Random
) -> None:
    state, log, _ = play(seed, table, players, 80, rng)
    flipped: set[int] = set()
    projection = initial_state()
    for event in log:
        if isinstance(event, ev.CardFlipped):
            assert event.face == state.face(event.card)
            flipped.add(event.card)
        projection = evolve(projection, event)
        for card in player_view(projection, "p0").cards:
            if card.face is not None:
                assert card.card in flipped and card.state is not CardState.DOWN


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=32, max_size=32), SETTINGS, st.integers(1, 6), st.integers(0, 2**32))
def test_the_same_commands_give_the_same_events(
    seed: bytes, table: Settings, players: int, salt: int
) -> None:
    _, log, commands = play(seed, table, players, 60, random.Random(salt))
    dealt = deal(seed, table)
    state = initial_state(dealt.cards, dealt.cpu_seed, dealt.cpu_strength)
    replayed: list[ev.Event] = []
    for command in commands:
        try:
            events = decide(state, command)
        except RuleError:
            continue
        for event in events:
            state = evolve(state, event)
        replayed += events
    assert replayed == log


@settings(max_examples=20, deadline=None)
@given(st.binary(min_size=32, max_size=32), SETTINGS, st.integers(1, 6), st.integers(0, 2**32))
def test_every_game_played_on_ends_with_every_card_taken(
    seed: bytes, table: Settings, players: int, salt: int
) -> None:
    state, log, _ = play(seed, table, players, 2_000, random.Random(salt), perfect=True)
    assert isinstance(log[-1], ev.GameEnded)
    assert len(state.taken) == table.deck_size
    assert sum(s.pairs for s in log[-1].standings) == table.pairs
