"""Each game of two or more says how much each player played (``Results.moves``) and how much
makes a game played (``Results.rated_moves``): the players service rates a game only when every
player other than a bot made that many (docs/players.md, "Ratings that resist farming")."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from match_rules import registry
from tests.games.harness import play

# What each game counts as a move, from its own state, and the minimum its rules page names.
COUNTED: dict[str, tuple[Callable[[Any, str], int], int]] = {
    "race": (lambda state, p: next(s.turns for s in state.standings if s.player == p), 10),
    "concentration": (lambda state, p: state.tries.get(p, 0), 3),
    "match_cards": (
        lambda state, p: next(s.groups + s.failed for s in state.standings if s.player == p),
        3,
    ),
    "match_five": (lambda state, p: len(state.sheets.get(p, {})), 3),
}


def over(slug: str, salt: int) -> tuple[Any, Any]:
    game = registry.by_slug(slug)
    for n in range(200):
        rng = random.Random(salt * 1000 + n)
        run = play(game, rng.randbytes(32), rng, moves=600)
        state = run.states[-1]
        if game.is_terminal(state) and len(run.players) >= 2:
            return game, state
    raise AssertionError(f"no finished {slug} game of two or more")  # pragma: no cover


@pytest.mark.parametrize("slug", sorted(COUNTED))
@pytest.mark.parametrize("salt", [1, 2, 3])
def test_a_game_of_two_or_more_counts_each_players_moves(slug: str, salt: int) -> None:
    game, state = over(slug, salt)
    results = game.results(state)
    assert results is not None
    count, minimum = COUNTED[slug]
    assert results.rated_moves == minimum
    assert {m.player: m.count for m in results.moves} == {
        s.player: count(state, s.player) for s in results.standings
    }


def test_every_game_of_two_or_more_is_listed_here() -> None:
    assert {g.slug for g in registry.games() if g.max_seats >= 2} == set(COUNTED)
