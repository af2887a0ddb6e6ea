"""The race bot's small parts, each against its documented rule (match_rules.race.bot and
docs/rules-race.md, "The bot"): the grid's neighbours, a slip, memory's edges, the median
thinking time, the seat's default stream."""

from __future__ import annotations

import math
import random

from match_rules.race import bot


def test_the_neighbours_left_right_above_below_on_the_4_by_5_grid() -> None:
    """Four tiles a row, five rows: 1-4, 5-8, ..., 17-20."""
    assert bot.neighbours(7) == [6, 8, 3, 11]
    assert bot.neighbours(1) == [2, 5]
    assert bot.neighbours(20) == [19, 16]
    assert bot.neighbours(16) == [15, 12, 20]


def test_no_slip_draws_nothing() -> None:
    rng = random.Random(5)
    assert bot.slipped(7, (), rng, 0.0) == 7
    assert rng.random() == random.Random(5).random()  # the stream is untouched


def test_the_last_tile_is_remembered_until_its_last_turn() -> None:
    memory = bot.Memory(profile=bot.PROFILES[bot.DEFAULT_STRENGTH], rng=random.Random(1))
    memory.see(1, 20, 9, 1)
    assert memory.recall() == {20: 9}
    memory.faces[20] = (9, 5.0)  # remembered up to and including own turn 5
    memory.catch_up(1, 5)
    assert memory.recall() == {20: 9}
    memory.catch_up(1, 6)
    assert memory.recall() == {}


def test_a_face_lasts_an_exponential_time_with_the_strengths_half_life() -> None:
    for strength, profile in bot.PROFILES.items():
        if math.isinf(profile.half_life_turns):
            continue
        memory = bot.Memory(profile=profile, rng=random.Random(3))
        expected = random.Random(3).expovariate(math.log(2) / profile.half_life_turns)
        assert memory.lifetime() == expected, strength


def test_the_board_may_be_cleared_only_with_the_last_pair_left() -> None:
    assert bot.may_clear(range(1, 19)) and not bot.may_clear(range(1, 18))


def test_a_random_move_is_an_unknown_tile_that_is_down() -> None:
    move = bot.random_move(range(1, 19), (19,), random.Random(2))
    assert move is not None and move.tile == 20 and move.known is False
    assert bot.random_move(range(1, 21), (), random.Random(2)) is None


def test_thinking_is_lognormal_around_the_kinds_median() -> None:
    for kind in bot.Think:
        gauss = random.Random(4).gauss(0.0, 1.0)
        ms = bot.THINK_MEDIAN_MS[kind] * math.exp(bot.THINK_SIGMA * gauss)
        expected = round(min(max(ms, bot.THINK_MIN_MS), bot.THINK_MAX_MS) * 1.5)
        assert bot.think_ms(random.Random(4), 1.5, kind) == expected, kind


def test_a_seats_default_stream_is_its_play_stream() -> None:
    assert bot.seat_rng("t", "p").random() == bot.seat_rng("t", "p", "play").random()


def test_a_new_tile_is_one_it_does_not_know_while_there_is_one() -> None:
    """It knows tiles 1-16, no two alike: the first tile of an attempt, and the second when it
    does not know the first one's partner, is one of the four it does not know."""
    memory = {t: t for t in range(1, 17)}
    for seed in range(20):
        plan = bot.choose_tiles(memory, (), (), random.Random(seed))
        assert len(plan) == 1 and plan[0] in (17, 18, 19, 20), seed
        second = bot.choose_second(memory, (), 17, random.Random(seed))
        assert second in (18, 19, 20), seed


def test_knowing_every_tile_that_is_down_it_still_turns_one() -> None:
    """docs/bot.md: when it knows every tile that is down (and no pair among them), any tile
    that is down; nothing only when nothing is down."""
    memory = {t: t for t in bot.ALL_TILES}  # no two alike
    found = range(1, 17)
    plans = {bot.choose_tiles(memory, found, (17, 18), random.Random(s)) for s in range(20)}
    assert plans == {(19,), (20,)}
    seconds = {bot.choose_second(memory, found, 17, random.Random(s)) for s in range(20)}
    assert seconds == {18, 19, 20}


def test_with_one_tile_up_the_second_is_its_partner_before_any_other_known_pair() -> None:
    """Tile 5 is up and it knows 9 is its partner; it also knows the pair (1, 2)."""
    known = {1: 7, 2: 7, 5: 3, 9: 3}
    assert bot.next_move(known, set(), (5,), random.Random(0)) == bot.Move(9, known=True)


def test_a_tile_it_does_not_know_is_turned_as_not_known() -> None:
    first = bot.next_move({}, set(), (), random.Random(0))
    assert first is not None and first.known is False
    second = bot.next_move({1: 9}, set(), (1,), random.Random(0))
    assert second is not None and second.known is False


def test_next_tile_draws_and_slips_as_next_move_does() -> None:
    for seed in range(10):
        move = bot.next_move({1: 4}, set(), (), random.Random(seed), 0.5)
        assert move is not None
        assert bot.next_tile({1: 4}, set(), (), random.Random(seed), 0.5) == move.tile
    # going for the pair (3, 11) with slip 1: always a neighbour of 3 that is down
    slips = {bot.next_tile({3: 6, 11: 6}, set(), (), random.Random(s), 1.0) for s in range(20)}
    assert slips == {2, 4, 7}


def test_a_draw_below_the_slip_probability_slips_and_one_at_it_does_not() -> None:
    """A slip happens with probability ``slip``: when the draw in [0, 1) is below it."""
    draw = random.Random(8).random()
    assert bot.slipped(6, (), random.Random(8), draw) == 6
    assert bot.slipped(6, (), random.Random(8), draw + 1e-9) in bot.neighbours(6)


def test_without_a_pause_a_turn_waits_for_its_thinking_alone() -> None:
    for now, think in ((0, 0), (0, 20), (5_000, 700)):
        at = bot.earliest_turn_ms(
            now_ms=now, think=think, starts_at_ms=0, paused_until_ms=0, clearing=False
        )
        assert at == now + think
