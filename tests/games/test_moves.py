"""Each game of two or more says how much each player played (``Results.moves``) and how much
makes a game played (``Results.rated_moves``): the players service rates a game only when every
player other than a bot made that many (docs/players.md, "Ratings that resist farming")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from match_rules import registry
from tests.games.harness import harness, play

# Each game of two or more says in its harness (tests/games/harness_<slug>.py) what it counts.
MULTI = sorted(g.slug for g in registry.games() if g.max_seats >= 2)


def over(slug: str, salt: int) -> tuple[Any, Any]:
    game = registry.by_slug(slug)
    for n in range(200):
        rng = random.Random(salt * 1000 + n)
        run = play(game, rng.randbytes(32), rng, moves=600)
        state = run.states[-1]
        if game.is_terminal(state) and len(run.players) >= 2:
            return game, state
    raise AssertionError(f"no finished {slug} game of two or more")  # pragma: no cover


@pytest.mark.parametrize("slug", MULTI)
@pytest.mark.parametrize("salt", [1, 2, 3])
def test_a_game_of_two_or_more_counts_each_players_moves(slug: str, salt: int) -> None:
    game, state = over(slug, salt)
    results = game.results(state)
    assert results is not None
    counted = harness(slug).counted_moves
    assert counted is not None, f"tests/games/harness_{slug}.py: counted_moves is missing"
    count, minimum = counted
    assert results.rated_moves == minimum
    assert {m.player: m.count for m in results.moves} == {
        s.player: count(state, s.player) for s in results.standings
    }


def test_a_solo_game_counts_nothing_and_every_other_game_something() -> None:
    for game in registry.games():
        counted = harness(game.slug).counted_moves
        assert (counted is None) == (game.max_seats < 2), game.slug
