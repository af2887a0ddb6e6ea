"""The race bot's small parts, each against its documented rule (match_rules.race.bot and
docs/rules-match.md, "The bot"): the grid's neighbours, a slip, memory's edges, the median
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
