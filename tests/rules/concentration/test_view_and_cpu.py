"""What a Concentration player sees, and the CPU that plays a seat with only that."""

from __future__ import annotations

import random

import pytest

from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration import initial_state, player_view, redact
from match_rules.concentration.cpu import KEEP, NOTHING, choose, remember
from match_rules.concentration.decide import MISS_SHOW_MS
from match_rules.concentration.settings import Matching, Pictures, Settings
from match_rules.concentration.state import ConcentrationState, Phase, evolve
from match_rules.concentration.view import CardState, CardView, SeatView
from match_rules.deal import Strength
from tests.rules.concentration.helpers import ANN, BOB, PAIRS, SMALL, Game, T


def test_the_view_shows_faces_up_and_taken_never_a_face_down() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 2)  # taken
    g.flip(T, ANN, 3, 5)  # a miss, showing
    view = player_view(g.state, BOB)
    assert view.cards[0] == CardView(1, CardState.TAKEN, "p0", ANN)
    assert view.cards[2] == CardView(3, CardState.UP, "p1")
    assert view.cards[3] == CardView(4, CardState.DOWN, None)
    assert view.turn_down_at == T + MISS_SHOW_MS
    g.when(cmd.Tick(T + MISS_SHOW_MS))
    again = player_view(g.state, BOB)
    assert again.cards[2] == CardView(3, CardState.DOWN, None)  # seen once, face down now
    assert again.seats == (SeatView(ANN, 1, 2, False), SeatView(BOB, 0, 0, False))
    assert again.turn == BOB and again.you == BOB and again.phase is Phase.PLAYING


def test_every_event_is_public_and_names_only_flipped_faces() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 2)
    g.flip(T, ANN, 3, 5)
    flipped = {e.card for e in g.log if isinstance(e, ev.CardFlipped)}
    for event in g.log:
        assert redact(event, BOB) is event
        if isinstance(event, ev.CardFlipped):
            assert event.card in flipped


def test_a_projection_without_the_deal_sees_the_same_and_cannot_deal() -> None:
    g = Game.started()
    g.flip(T, ANN, 1, 2)
    projection = initial_state()
    for event in g.log:
        projection = evolve(projection, event)
    assert player_view(projection, ANN) == player_view(g.state, ANN)
    with pytest.raises(ValueError, match="no deal"):
        projection.face(1)
    assert player_view(ConcentrationState(cards=None), ANN).cards == ()


def test_the_view_at_the_end_carries_the_standings() -> None:
    g = Game.started(players=(ANN,))
    for a, b in PAIRS:
        g.flip(T, ANN, a, b)
    view = player_view(g.state, ANN)
    assert view.phase is Phase.OVER and view.winners == (ANN,) and not view.draw
    assert view.standings == (ev.Standing(ANN, 1, 12, 12),)


# --- the CPU -----------------------------------------------------------------------------------


def test_the_cpu_takes_a_pair_it_remembers() -> None:
    g = Game.started(cpus=frozenset({ANN}))
    memory = NOTHING
    for card, face in ((5, "p2"), (6, "p2")):
        memory = remember(memory, ev.CardFlipped(T, BOB, card, face), Strength.STRONG, _always())
    card = choose(player_view(g.state, ANN), memory, random.Random(1))
    assert card == 5
    g.when(cmd.FlipCard(T, ANN, card, by_cpu=True))
    assert choose(player_view(g.state, ANN), memory, random.Random(1)) == 6


def test_the_cpu_flips_a_card_it_does_not_know_without_a_pair_in_mind() -> None:
    g = Game.started(cpus=frozenset({ANN}))
    memory = remember(NOTHING, ev.CardFlipped(T, BOB, 5, "p2"), Strength.WEAK, _always())
    for seed in range(20):
        card = choose(player_view(g.state, ANN), memory, random.Random(seed))
        assert card != 5 and 1 <= card <= 24
    g.when(cmd.FlipCard(T, ANN, 7, by_cpu=True))  # p3 up: its partner unknown
    second = choose(player_view(g.state, ANN), memory, random.Random(3))
    assert second not in (5, 7)


def test_the_cpu_forgets_at_its_strength_and_forgets_taken_cards() -> None:
    seen = ev.CardFlipped(T, BOB, 5, "p2")
    kept = {s: sum(bool(remember(NOTHING, seen, s, random.Random(i))) for i in range(2000))
            for s in Strength}  # fmt: skip
    for strength, share in KEEP.items():
        assert abs(kept[strength] / 2000 - share) < 0.05
    memory = remember(NOTHING, seen, Strength.STRONG, _always())
    memory = remember(memory, ev.PairTaken(T, BOB, (5, 6), 1, 1), Strength.STRONG, _always())
    assert memory == {}
    assert remember(memory, ev.TurnBegan(T, BOB, None), Strength.STRONG, _always()) == {}


def test_the_cpu_pairs_by_the_table_s_matching() -> None:
    settings = Settings(Pictures.PLAYING_CARDS, 24, matching=Matching.RANK_AND_COLOUR)
    state = _started(initial_state(("AS", "2H", "AC", "2D", *["3S"] * 20)), settings)
    memory = remember(NOTHING, ev.CardFlipped(T, BOB, 3, "AC"), Strength.STRONG, _always())
    state = evolve(state, ev.CardFlipped(T, ANN, 1, "AS"))
    assert choose(player_view(state, ANN), memory, random.Random(0)) == 3


def _started(state: ConcentrationState, settings: Settings) -> ConcentrationState:
    state = evolve(state, ev.GameStarted(T, (ANN, BOB), frozenset({ANN}), settings, "v"))
    return evolve(state, ev.TurnBegan(T, ANN, None))


class _always(random.Random):
    def random(self) -> float:
        return 0.0


def test_settings_used_here_are_valid() -> None:
    assert SMALL.deck_size == 24 and SMALL.pairs == 12
