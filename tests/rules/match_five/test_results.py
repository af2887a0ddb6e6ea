"""What a finished game of MATCH 5 gives the players' read models (``Results.winners``,
``figures``): worked out by hand for small games, and the same from a state folded from the
log alone."""

from __future__ import annotations

from match_rules.game import Figure, Keep, Results
from match_rules.match_five.game import GAME
from match_rules.match_five.state import MatchFiveState
from tests.rules.match_five.helpers import ANN, BOB, CY, T0, Table

END = T0 + 10**9  # long after every timer: both rounds are read and scored


def folded(table: Table) -> MatchFiveState:
    """The state the players service folds: the logged events through the wire, no deal."""
    state = GAME.initial_state(None)
    for event in table.events:
        state = GAME.evolve(state, GAME.decode(GAME.encode(event)))
    return state


def results(table: Table) -> Results:
    """The results of a finished game; the same from the log alone."""
    got = GAME.results(table.state)
    assert got is not None
    assert GAME.results(folded(table)) == got
    return got


def figures(player: str, points: int, matches: int) -> tuple[Figure, ...]:
    return (
        Figure(player, "points", points, Keep.SUM),
        Figure(player, "best_points", points, Keep.MAX),
        Figure(player, "matches", matches, Keep.SUM),
    )


def test_a_win_alone() -> None:
    """Ann and Bob match on "Sun" (2 points each); Ann's "Moon" is hers alone (1 more)."""
    table = Table()
    table.write(ANN, 1, "Sun")
    table.write(ANN, 2, "Moon")
    table.write(BOB, 1, "sun")
    table.tick(END)
    got = results(table)
    assert [(s.player, s.place, s.score) for s in got.standings] == [
        (ANN, 1, 3),
        (BOB, 2, 2),
        (CY, 3, 0),
    ]
    assert not got.draw and got.winners == frozenset({ANN})
    assert got.figures == (*figures(ANN, 3, 1), *figures(BOB, 2, 1), *figures(CY, 0, 0))
    assert got.entries == () and got.daily == ()  # the main board is the rating


def test_equal_points_the_most_matching_links_win_and_a_tie_on_both_shares_the_victory() -> None:
    """Ann and Bob match on "Sun": 2 points, 1 matching link each. Cy's "Moon" and "Star" make
    2 points too, but no matching link: Ann and Bob share the victory."""
    table = Table()
    table.write(ANN, 1, "Sun")
    table.write(BOB, 1, "sun")
    table.write(CY, 2, "Moon")
    table.write(CY, 3, "Star")
    table.tick(END)
    got = results(table)
    assert [(s.player, s.place) for s in got.standings] == [(ANN, 1), (BOB, 1), (CY, 3)]
    assert not got.draw and got.winners == frozenset({ANN, BOB})
    assert got.figures == (*figures(ANN, 2, 1), *figures(BOB, 2, 1), *figures(CY, 2, 0))


def test_everybody_tied_is_a_draw_and_nobody_wins() -> None:
    table = Table(players=(ANN, BOB))
    table.tick(END)
    got = results(table)
    assert got.draw and got.winners == frozenset()
    assert got.figures == (*figures(ANN, 0, 0), *figures(BOB, 0, 0))
    assert got.entries == ()
