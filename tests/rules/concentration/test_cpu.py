"""The CPU player: played by the rules at a Tick, seeded by the deal, seeing only public events."""

from __future__ import annotations

import itertools

import pytest

from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration import initial_state, next_deadline
from match_rules.concentration.cpu import (
    KEEP_PER_MILLE,
    NOTHING,
    Table,
    choose,
    keeps,
    recall,
    remember,
)
from match_rules.concentration.decide import CPU_THINK_MS, MISS_SHOW_MS, TAKEOVER_MS, decide
from match_rules.concentration.errors import ConcentrationCode
from match_rules.concentration.settings import Matching, Pictures, Settings
from match_rules.concentration.state import evolve
from match_rules.deal import DealStream, Strength, uniform
from tests.rules.concentration.helpers import ANN, BOB, CARDS, CAT, CPU_SEED, SMALL, Game, T

DOWN = tuple(range(1, 25))


def test_a_cpu_seat_flips_cpu_think_ms_after_its_turn_began_and_after_its_first_card() -> None:
    g = Game.started(cpus=frozenset({BOB}))
    g.flip(T, ANN, 1, 3)  # a miss: Bob's turn once it turns down
    g.when(cmd.Tick(T + MISS_SHOW_MS))
    began = T + MISS_SHOW_MS
    assert next_deadline(g.state) == began + CPU_THINK_MS
    assert g.when(cmd.Tick(began + CPU_THINK_MS - 1)) == []
    first = g.when(cmd.Tick(began + CPU_THINK_MS))
    assert [type(e) for e in first] == [ev.CardFlipped, ev.SecondCardDue]
    assert first[0].at == began + CPU_THINK_MS and first[0].player == BOB
    assert next_deadline(g.state) == began + 2 * CPU_THINK_MS
    second = g.when(cmd.Tick(began + 2 * CPU_THINK_MS))
    assert isinstance(second[0], ev.CardFlipped) and second[0].player == BOB
    assert second[0].card != first[0].card


def test_a_person_may_not_flip_for_a_cpu_seat() -> None:
    g = Game.started(cpus=frozenset({ANN}))
    error = g.refused(cmd.FlipCard(T, ANN, 1), ConcentrationCode.SEAT_PLAYED_BY_CPU)
    assert "the CPU plays this seat" in error.message


def test_cpu_players_play_a_whole_game_by_themselves_the_same_way_every_time() -> None:
    def run() -> list[ev.Event]:
        g = Game.started(players=(ANN, BOB, CAT), cpus=frozenset({ANN, BOB, CAT}))
        g.when(cmd.Tick(T + 3_600_000))
        return g.log

    log = run()
    assert isinstance(log[-1], ev.GameEnded)
    assert sum(s.pairs for s in log[-1].standings) == 12
    assert run() == log
    flips = [e for e in log if isinstance(e, ev.CardFlipped)]
    assert {e.player for e in flips} == {ANN, BOB, CAT}
    gaps = {b.at - a.at for a, b in itertools.pairwise(flips)}
    assert gaps <= {0, CPU_THINK_MS, MISS_SHOW_MS + CPU_THINK_MS}


def test_another_cpu_seed_plays_another_game() -> None:
    g = Game.started(cpus=frozenset({ANN, BOB}))
    other = Game(initial_state(CARDS, bytes(32)))
    other.when(cmd.StartGame(T, (ANN, BOB), frozenset({ANN, BOB}), SMALL, "v"))
    g.when(cmd.Tick(T + 600_000))
    other.when(cmd.Tick(T + 600_000))
    assert g.log != other.log


def test_the_cpu_recalls_what_it_saw_at_its_strength() -> None:
    for strength, share in KEEP_PER_MILLE.items():
        kept = sum(keeps(CPU_SEED, 2, seq, strength) for seq in range(2000))
        assert abs(kept / 2000 - share / 1000) < 0.04
    assert keeps(CPU_SEED, 2, 7, Strength.MEDIUM) == keeps(CPU_SEED, 2, 7, Strength.MEDIUM)
    memory = {n: (f"p{n}", n) for n in range(1, 200)}
    weak = recall(memory, CPU_SEED, 1, Strength.WEAK)
    strong = recall(memory, CPU_SEED, 1, Strength.STRONG)
    assert len(weak) < len(strong) and set(weak) <= set(memory)


def test_the_cpu_memory_records_public_flips_and_forgets_taken_cards() -> None:
    memory = remember(NOTHING, ev.CardFlipped(T, BOB, 5, "p2"), 7)
    assert memory == {5: ("p2", 7)}
    memory = remember(memory, ev.CardFlipped(T, BOB, 6, "p2"), 8)
    assert remember(memory, ev.TurnBegan(T, BOB, None), 9) == memory
    assert remember(memory, ev.PairTaken(T, BOB, (5, 6), 1, 1), 10) == {}


def test_the_state_keeps_a_memory_per_cpu_seat_and_a_handed_seat_starts_empty() -> None:
    g = Game.started(players=(ANN, BOB, CAT), cpus=frozenset({CAT}))
    assert g.state.memory == {CAT: {}}
    g.flip(T, ANN, 5)
    assert g.state.memory[CAT] == {5: ("p2", g.state.seq - 1)}
    g.when(cmd.PlayerAway(T + 1, BOB))
    g.when(cmd.Tick(T + 1 + TAKEOVER_MS))
    assert g.state.memory[BOB] == {} and g.state.memory[CAT]


def test_the_cpu_takes_a_pair_it_recalls() -> None:
    table = Table(DOWN, (), Matching.IDENTICAL)
    assert choose(table, {9: "x", 5: "p2", 6: "p2"}, CPU_SEED, 1) == 5
    up = Table(tuple(c for c in DOWN if c != 5), ((5, "p2"),), Matching.IDENTICAL)
    assert choose(up, {5: "p2", 6: "p2"}, CPU_SEED, 2) == 6


def test_the_cpu_flips_a_card_it_does_not_recall_without_a_pair_in_mind() -> None:
    known = {5: "p2", 9: "p4"}
    picks = {choose(Table(DOWN, (), Matching.IDENTICAL), known, CPU_SEED, seq) for seq in range(50)}
    assert picks.isdisjoint(known) and len(picks) > 5
    up = Table(tuple(c for c in DOWN if c != 7), ((7, "p3"),), Matching.IDENTICAL)
    assert choose(up, known, CPU_SEED, 3) not in (5, 7, 9)
    everything = {n: f"p{n}" for n in (1, 2)}  # only cards it knows are left, none pairs
    assert choose(Table((1, 2), (), Matching.IDENTICAL), everything, CPU_SEED, 4) in (1, 2)


def test_the_cpu_pairs_by_the_table_s_matching() -> None:
    rank_and_colour = Table((2, 3, 4), ((1, "AS"),), Matching.RANK_AND_COLOUR)
    assert choose(rank_and_colour, {2: "AH", 3: "AC"}, CPU_SEED, 0) == 3
    assert choose(Table((2, 3, 4), ((1, "AS"),), Matching.RANK), {2: "AH"}, CPU_SEED, 0) == 2


def test_a_seat_handed_to_the_cpu_mid_turn_flips_its_second_card_think_ms_later() -> None:
    g = Game.started()
    g.flip(T, ANN, 1)
    g.when(cmd.PlayerAway(T + 10, ANN))
    takeover = T + 10 + TAKEOVER_MS
    events = g.when(cmd.Tick(takeover))
    assert events == [ev.SeatHandedToCpu(takeover, ANN)]
    assert next_deadline(g.state) == takeover + CPU_THINK_MS
    flipped = g.when(cmd.Tick(takeover + CPU_THINK_MS))[0]
    assert isinstance(flipped, ev.CardFlipped) and flipped.player == ANN and flipped.card != 1


def test_a_projection_without_the_deal_cannot_play_the_cpu() -> None:
    projection = initial_state()
    played = Game.started(cpus=frozenset({ANN}))
    for event in played.log:
        projection = evolve(projection, event)
    with pytest.raises(ValueError, match="no deal"):
        decide(projection, cmd.Tick(T + CPU_THINK_MS))


def test_the_cpu_plays_playing_cards_with_jokers() -> None:
    settings = Settings(Pictures.PLAYING_CARDS, 24, True, Matching.RANK)
    cards = (*("A23456"[n // 4] + "SHDC"[n % 4] for n in range(24)), "JK", "JK")
    g = Game.started(settings=settings, cards=cards, cpus=frozenset({ANN, BOB}))
    g.when(cmd.Tick(T + 3_600_000))
    assert isinstance(g.log[-1], ev.GameEnded)


def test_a_sighting_is_kept_as_docs_dealing_md_draws_it() -> None:
    """docs/dealing.md: the stream keyed by the CPU seed, version ``concentration-cpu-v1``,
    label ``keep/<seat>/<n>``; kept when ``uniform(1000) < 350, 700 or 950`` (weak, medium,
    strong). Over 3,000 game events every threshold is met exactly at least once."""
    limits = {Strength.WEAK: 350, Strength.MEDIUM: 700, Strength.STRONG: 950}
    on_the_limit = set()
    for seat in (1, 2):
        for n in range(1_500):
            draw = uniform(DealStream(CPU_SEED, f"keep/{seat}/{n}", "concentration-cpu-v1"), 1000)
            for strength, limit in limits.items():
                assert keeps(CPU_SEED, seat, n, strength) is (draw < limit), (seat, n, strength)
                if draw == limit:
                    on_the_limit.add(strength)
    assert on_the_limit == set(limits)


def test_a_seat_recalls_exactly_the_sightings_it_kept() -> None:
    """Each sighting by its own draw (docs/dealing.md, ``keep/<seat>/<n>``): seat 2's memory
    is not seat 1's."""
    memory = {card: (f"p{card}", 10 + card) for card in range(1, 25)}
    for seat in (1, 2):
        kept = {
            card: face
            for card, (face, n) in memory.items()
            if uniform(DealStream(CPU_SEED, f"keep/{seat}/{n}", "concentration-cpu-v1"), 1000) < 700
        }
        assert recall(memory, CPU_SEED, seat, Strength.MEDIUM) == kept, seat


def test_a_blind_flip_is_drawn_as_docs_dealing_md_says() -> None:
    """docs/dealing.md: ``uniform(len(candidates))`` over the candidates, ascending, from the
    stream of the CPU seed, version ``concentration-cpu-v1``, label ``flip/<n>``."""
    known = {5: "p2", 9: "p4"}
    candidates = [c for c in DOWN if c not in known]
    for n in range(40):
        stream = DealStream(CPU_SEED, f"flip/{n}", "concentration-cpu-v1")
        expected = candidates[uniform(stream, len(candidates))]
        assert choose(Table(DOWN, (), Matching.IDENTICAL), known, CPU_SEED, n) == expected, n


@pytest.mark.parametrize("strength", list(Strength))
def test_every_cpu_flip_comes_from_its_seats_memory_the_tables_matching_and_its_draw(
    strength: Strength,
) -> None:
    """A whole game of three CPU seats, by rank with jokers, replayed from its public events:
    each flip is ``choose`` over the cards still down (1 to N, none taken or up), with what that
    seat kept of what it saw (``keep/<seat>/<n>``), paired by the table's matching, drawn with
    the number of game events folded before it (``flip/<n>``)."""
    settings = Settings(Pictures.PLAYING_CARDS, 24, True, Matching.RANK)
    cards = (*("A23456"[n // 4] + "SHDC"[n % 4] for n in range(24)), "JK", "JK")
    players = (ANN, BOB, CAT)
    g = Game.started(players, settings, frozenset(players), cards, strength)
    g.when(cmd.Tick(T + 3_600_000))
    assert isinstance(g.log[-1], ev.GameEnded)
    seen: dict[str, dict[int, tuple[str, int]]] = {p: {} for p in players}
    faces: dict[int, str] = {}
    taken: set[int] = set()
    up: list[int] = []
    flips = 0
    for folded, event in enumerate(g.log):
        if isinstance(event, ev.CardFlipped):
            known = recall(seen[event.player], CPU_SEED, players.index(event.player) + 1, strength)
            down = tuple(n for n in range(1, 27) if n not in taken and n not in up)
            table = Table(down, tuple((n, faces[n]) for n in up), Matching.RANK)
            assert event.card == choose(table, known, CPU_SEED, folded), (folded, event)
            faces[event.card] = event.face
            up.append(event.card)
            flips += 1
        elif isinstance(event, ev.PairTaken):
            taken.update(event.cards)
            up.clear()
        elif isinstance(event, ev.CardsTurnedDown | ev.TimeRanOut):
            up.clear()
        for player in players:
            seen[player] = dict(remember(seen[player], event, folded + 1))
    assert flips >= 26 and taken == set(range(1, 27))
