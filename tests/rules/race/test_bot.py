"""The race's bot (match_rules.race.bot), pure: what it remembers and forgets, what it turns, how
long it thinks."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from match_rules.deal import Strength
from match_rules.race import bot

T0 = 1_000_000
ALL = set(range(1, 21))
STRENGTHS = list(Strength)


def random_position(
    r: random.Random,
) -> tuple[list[int], set[int], dict[int, int], tuple[int, ...]]:
    """A layout, the found tiles, what the bot knows, and the tiles it has up."""
    layout = r.sample(range(25), 10) * 2
    r.shuffle(layout)
    pairs = [[t for t in range(1, 21) if layout[t - 1] == s] for s in set(layout)]
    found = {t for p in r.sample(pairs, r.randint(0, 9)) for t in p}
    known = {t: layout[t - 1] for t in r.sample(sorted(ALL), r.randint(0, 20))}
    down = sorted(ALL - found)
    turned = tuple(r.sample(down, r.choice((0, 1, 2))))
    if len(turned) == 2 and layout[turned[0] - 1] == layout[turned[1] - 1]:
        turned = turned[:1]  # two tiles stay up only after a miss
    known.update({t: layout[t - 1] for t in turned})  # the bot sees what it has up
    return layout, found, known, turned


# --- what to turn ------------------------------------------------------------------------


@pytest.mark.parametrize("slip", [0.0, 0.1, 1.0])
@pytest.mark.parametrize("seed", range(200))
def test_never_picks_a_face_up_tile(seed: int, slip: float) -> None:
    r = random.Random(seed)
    _, found, known, turned = random_position(r)
    move = bot.next_move(known, found, turned, r, slip)
    assert move is not None
    assert move.tile in ALL and move.tile not in found and move.tile not in turned
    random_move = bot.random_move(found, turned, r)
    assert random_move is not None and random_move.tile not in found | set(turned)


def test_nothing_to_turn_when_everything_is_up() -> None:
    r = random.Random(0)
    assert bot.next_move({}, ALL, (), r) is None
    assert bot.next_move({1: 3}, ALL - {1}, (1,), r) is None
    assert bot.random_move(ALL, (), r) is None


def test_picks_a_known_pair_first() -> None:
    known = {3: 7, 11: 7, 5: 2}
    assert bot.next_move(known, set(), (), random.Random(0)) == bot.Move(3, known=True)
    assert bot.next_move(known, set(), (3,), random.Random(0)) == bot.Move(11, known=True)
    # After a miss (2 and 6 still up) with the pair (2, 14) known: 14 first, then 2.
    known = {2: 1, 6: 3, 14: 1}
    assert bot.next_move(known, set(), (2, 6), random.Random(0)) == bot.Move(14, True)


def test_a_pair_it_remembers_comes_before_any_new_tile() -> None:
    memory = bot.Memory(profile=bot.PROFILES[Strength.STRONG], rng=random.Random(1))
    memory.see(1, 4, 9, 1)
    memory.see(1, 17, 9, 2)
    move = bot.next_move(memory.recall(), set(), (), random.Random(0))
    assert move == bot.Move(4, known=True)


def test_an_unknown_tile_then_its_partner_if_known() -> None:
    r = random.Random(0)
    move = bot.next_move({5: 2, 8: 4}, set(), (), r)
    assert move is not None and not move.known and move.tile not in (5, 8)
    known = {5: 2, 8: 4, move.tile: 4}
    assert bot.next_move(known, set(), (move.tile,), r) == bot.Move(8, known=True)
    second = bot.next_move({5: 2, 1: 9}, set(), (1,), r)  # partner unknown: a new tile
    assert second is not None and not second.known and second.tile not in (1, 5)


def test_a_slip_turns_a_neighbour_that_is_down() -> None:
    assert sorted(bot.neighbours(1)) == [2, 5]
    assert sorted(bot.neighbours(6)) == [2, 5, 7, 10]
    assert sorted(bot.neighbours(20)) == [16, 19]
    r = random.Random(3)

    def tiles(found: set[int], slip: float) -> set[int]:
        out = set()
        for _ in range(200):
            move = bot.next_move({3: 7, 11: 7}, found, (), r, slip)
            assert move is not None and move.known
            out.add(move.tile)
        return out

    # Going for the pair (3, 11), it reaches for 3 and lands next to it, on a tile that is down.
    assert tiles({7, 8}, slip=1.0) == {2, 4}
    assert tiles(set(), slip=0.0) == {3}


def test_slips_happen_at_the_strengths_rate() -> None:
    r = random.Random(5)
    n = 4_000
    slips = sum(bot.slipped(6, set(), r, 0.1) != 6 for _ in range(n))
    assert abs(slips / n - 0.1) < 4 * math.sqrt(0.1 * 0.9 / n)


# --- memory and forgetting ---------------------------------------------------------------


def remembered_after(profile: bot.Profile, turns: int, trials: int, seed: int) -> float:
    """The share of faces still remembered ``turns`` own turns after they were seen."""
    kept = 0
    for i in range(trials):
        m = bot.Memory(profile=profile, rng=random.Random(f"{seed}/{i}"))
        m.see(1, 1, 5, 1)
        for k in range(1, turns + 1):
            m.see(1, 2 + k % 18, 6, 1 + k)  # other faces, one per own turn
        kept += 1 in m.recall()
    return kept / trials


@pytest.mark.parametrize("strength", STRENGTHS)
def test_forgets_at_its_rate(strength: Strength) -> None:
    profile = bot.PROFILES[strength]
    trials = 3_000
    for turns in (1, round(profile.half_life_turns), 2 * round(profile.half_life_turns)):
        expected = 0.5 ** (turns / profile.half_life_turns)
        measured = remembered_after(profile, turns, trials, seed=turns)
        sigma = math.sqrt(expected * (1 - expected) / trials)
        assert abs(measured - expected) < 4 * sigma, (strength, turns, measured, expected)
    assert profile.forget_per_turn == pytest.approx(1 - 0.5 ** (1 / profile.half_life_turns))


def test_the_strengths_are_ordered_and_the_perfect_memory_never_forgets() -> None:
    weak, medium, strong = (bot.PROFILES[s] for s in STRENGTHS)
    assert weak.half_life_turns < medium.half_life_turns < strong.half_life_turns
    assert weak.slip > medium.slip > strong.slip
    assert bot.PERFECT.forget_per_turn == 0.0
    assert remembered_after(bot.PERFECT, 60, 20, seed=0) == 1.0


def test_a_turn_seen_twice_counts_once_and_a_new_board_starts_afresh() -> None:
    m = bot.Memory(profile=bot.PROFILES[Strength.WEAK], rng=random.Random(0))
    m.see(1, 3, 7, 1)
    state = dict(m.faces)
    m.see(1, 3, 7, 1)  # the reply and the Watch stream both carry turn 1
    assert m.faces == state and m.turn == 1
    m.see(2, 4, 9, 1)
    assert (m.board, m.turn, set(m.faces)) == (2, 1, {4})
    m.see(1, 5, 5, 7)  # a late event of the old board changes nothing
    assert set(m.faces) == {4}
    m.catch_up(2, 10)  # a snapshot: ten turns taken
    assert m.turn == 10
    m.see(2, 6, 2, 10)  # an event the snapshot already counted
    assert 6 not in m.faces


def test_seeing_a_tile_again_draws_a_new_lifetime() -> None:
    m = bot.Memory(profile=bot.PROFILES[Strength.WEAK], rng=random.Random(4))
    m.see(1, 3, 7, 1)
    first = m.faces[3][1]
    m.see(1, 3, 7, 2)
    assert m.faces[3][1] != first and m.faces[3][1] >= 2


def test_what_it_sees_up_is_known_even_when_forgotten() -> None:
    known = bot.known_faces({1: 4}, {2: 4, 3: 5})
    assert known == {1: 4, 2: 4, 3: 5}
    assert bot.known_faces({1: 4}, {1: 6}) == {1: 6}  # what is up wins


# --- when to turn ------------------------------------------------------------------------


def test_thinking_varies_like_a_person() -> None:
    r = random.Random(11)
    samples = {k: [bot.think_ms(r, 1.0, k) for _ in range(4_000)] for k in bot.Think}
    for kind, times in samples.items():
        median = statistics.median(times)
        assert abs(median / bot.THINK_MEDIAN_MS[kind] - 1) < 0.05, (kind, median)
        q1, _, q3 = statistics.quantiles(times, n=4)
        assert 1.4 < q3 / q1 < 1.8  # a person's spread, not a metronome
        assert min(times) >= bot.THINK_MIN_MS and max(times) <= bot.THINK_MAX_MS
    medians = {k: statistics.median(v) for k, v in samples.items()}
    assert medians[bot.Think.KNOWN] < medians[bot.Think.NEW] < medians[bot.Think.AFTER_MISS]
    assert medians[bot.Think.AFTER_MISS] > 1_000  # it looks at the two faces of a miss


def test_bot_pace_scales_the_thinking() -> None:
    for kind in bot.Think:
        slow = bot.think_ms(random.Random(2), 1.0, kind)
        fast = bot.think_ms(random.Random(2), 0.1, kind)
        assert abs(fast - slow * 0.1) <= 1


def test_what_kind_of_turn_it_is() -> None:
    new, known = bot.Move(1, known=False), bot.Move(1, known=True)
    assert bot.think_kind((), new) is bot.Think.NEW
    assert bot.think_kind((), known) is bot.Think.KNOWN
    assert bot.think_kind((4,), new) is bot.Think.SECOND
    assert bot.think_kind((4,), known) is bot.Think.KNOWN
    assert bot.think_kind((4, 5), known) is bot.Think.AFTER_MISS


@pytest.mark.parametrize("seed", range(100))
def test_never_plans_a_clear_before_t0_plus_12_s(seed: int) -> None:
    r = random.Random(seed)
    now = T0 + r.randint(0, 15_000)
    pace = r.choice((1.0, 0.1, 0.01, 0.001))
    think = bot.think_ms(r, pace, r.choice(list(bot.Think)))
    paused = r.choice((0, now + r.randint(-1_000, 1_000)))
    at = bot.earliest_turn_ms(
        now_ms=now, think=think, starts_at_ms=T0, paused_until_ms=paused, clearing=True
    )
    assert at >= T0 + 12_000 and at >= T0 + bot.CLEAR_NOT_BEFORE_MS
    assert at >= now + think
    if paused:
        assert at > paused  # and never inside the pause after a miss


def test_only_the_last_pair_may_clear() -> None:
    assert not bot.may_clear(set(range(1, 17)))
    assert bot.may_clear(set(range(1, 19)))


# --- strength and randomness -------------------------------------------------------------


def test_strengths_are_read_from_their_names() -> None:
    assert bot.parse_strength("weak") is Strength.WEAK
    assert bot.parse_strength(" Strong ") is Strength.STRONG
    assert bot.parse_strength("") is None
    assert bot.parse_strength("perfect") is None
    assert bot.DEFAULT_STRENGTH is Strength.MEDIUM


def test_each_seat_and_game_has_its_own_reproducible_randomness() -> None:
    a = bot.seat_rng("table1", "p1").random()
    assert a == bot.seat_rng("table1", "p1").random()
    assert a != bot.seat_rng("table1", "p2").random()
    assert a != bot.seat_rng("table2", "p1").random()
    assert a != bot.seat_rng("table1", "p1", "memory").random()


def test_a_snapshot_of_an_older_board_changes_nothing() -> None:
    m = bot.Memory(profile=bot.PERFECT)
    m.see(2, 5, 7, 3)
    m.catch_up(1, 40)  # a late snapshot of board 1
    assert (m.board, m.turn, m.seen) == (2, 3, {5: 7})
    m.catch_up(2, 6)
    assert m.turn == 6


def test_a_tile_it_does_not_know_has_no_partner() -> None:
    assert bot.partner_of({1: 4, 2: 4}, set(), 3) is None
    assert bot.partner_of({1: 4, 2: 4}, {2}, 1) is None  # its partner is already found
    assert bot.partner_of({1: 4, 2: 4}, set(), 1) == 2


def test_a_known_pair_whose_two_tiles_are_up_is_skipped() -> None:
    """Both tiles of the first known pair are up (a miss showing): the next known pair."""
    plan = bot.choose_tiles({1: 4, 2: 4, 7: 9, 8: 9}, set(), (1, 2), random.Random(0))
    assert plan == (7, 8)


def test_the_second_tile_is_the_known_partner() -> None:
    assert bot.choose_second({3: 6, 11: 6}, set(), 3, random.Random(0)) == 11
    assert bot.choose_second({}, set(ALL - {3}), 3, random.Random(0)) is None


def test_next_tile_is_the_tile_of_the_next_move() -> None:
    assert bot.next_tile({3: 6, 11: 6}, set(), (), random.Random(0)) == 3
    assert bot.next_tile({}, ALL, (), random.Random(0)) is None


def test_ready_takes_half_a_second_to_two_at_a_persons_pace() -> None:
    r = random.Random(5)
    delays = [bot.ready_delay_ms(r, 1.0) for _ in range(500)]
    assert min(delays) >= bot.READY_MIN_MS and max(delays) <= bot.READY_MAX_MS
    assert all(50 <= bot.ready_delay_ms(r, 0.1) <= 200 for _ in range(100))
    assert all(bot.ready_delay_ms(r, 1.0, left_ms=1_000) <= 500 for _ in range(100))
    assert bot.ready_delay_ms(r, 1.0, left_ms=0) == 0
    assert bot.ready_delay_ms(r, 1.0, left_ms=-300) == 0  # already closed: at once


def test_a_turn_that_cannot_clear_waits_only_for_thinking_and_the_pause() -> None:
    at = bot.earliest_turn_ms(
        now_ms=T0 + 1_000, think=700, starts_at_ms=T0, paused_until_ms=0, clearing=False
    )
    assert at == T0 + 1_700
    at = bot.earliest_turn_ms(
        now_ms=T0 + 1_000, think=700, starts_at_ms=T0, paused_until_ms=T0 + 1_900, clearing=False
    )
    assert at == T0 + 1_900 + bot.PAUSE_SLACK_MS
