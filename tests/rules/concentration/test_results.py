"""What a finished game of Concentration gives the players' read models (``Results.winners``,
``figures``, ``entries``): worked out by hand for small games, and the same from a state
folded from the log alone."""

from __future__ import annotations

from match_rules.concentration import commands as cmd
from match_rules.concentration import events as ev
from match_rules.concentration.game import GAME
from match_rules.concentration.settings import Pictures, Settings
from match_rules.concentration.state import ConcentrationState
from match_rules.game import Entry, Figure, Keep, Results
from tests.rules.concentration.helpers import ANN, BOB, CARDS, CAT, PAIRS, Game, T


def folded(log: list[ev.Event]) -> ConcentrationState:
    """The state the players service folds: the logged events through the wire, no deal."""
    state = GAME.initial_state(None)
    for event in log:
        state = GAME.evolve(state, GAME.decode(GAME.encode(event)))
    return state


def results(game: Game) -> Results:
    """The results of a finished game; the same from the log alone."""
    got = GAME.results(game.state)
    assert got is not None
    assert GAME.results(folded(game.log)) == got
    return got


def test_solo_the_player_wins_and_keeps_their_tries_per_deck_size() -> None:
    """24 cards alone: one miss (cards 1 and 3), then the 12 pairs: 13 tries."""
    g = Game.started(players=(ANN,))
    g.flip(T, ANN, 1, 3)
    g.when(cmd.Tick(T + 1_500))  # the miss turns down; Ann flips again
    for a, b in PAIRS:
        assert GAME.results(g.state) is None
        g.flip(T + 2_000, ANN, a, b)
    got = results(g)
    assert got.winners == frozenset({ANN}) and not got.draw and got.ranked
    assert got.figures == (
        Figure(ANN, "pairs", 12, Keep.SUM),
        Figure(ANN, "best_tries/24-cards", 13, Keep.MIN),
        Figure(ANN, "tries", 13, Keep.SUM),
    )
    assert got.entries == (Entry("solo-24-cards", ANN, 13, "tries", lower_is_better=True),)
    assert got.daily == ()


def test_solo_with_jokers_counts_the_cards_on_the_table() -> None:
    """24 playing cards and two jokers: a 26-card board, cleared without a miss."""
    settings = Settings(pictures=Pictures.PLAYING_CARDS, cards=24, jokers=True)
    g = Game.started(players=(ANN,), settings=settings, cards=(*CARDS, "JK", "JK"))
    for a, b in [*PAIRS, (25, 26)]:
        g.flip(T, ANN, a, b)
    got = results(g)
    assert got.figures == (
        Figure(ANN, "pairs", 13, Keep.SUM),
        Figure(ANN, "best_tries/26-cards", 13, Keep.MIN),
        Figure(ANN, "tries", 13, Keep.SUM),
    )
    assert got.entries == (Entry("solo-26-cards", ANN, 13, "tries", True),)


def test_a_table_of_two_the_most_pairs_wins_and_no_leaderboard_but_the_rating() -> None:
    """Ann misses, Bob takes all 12 pairs."""
    g = Game.started()
    g.flip(T, ANN, 1, 3)
    g.when(cmd.Tick(T + 1_500))
    for a, b in PAIRS:
        g.flip(T + 1_500, BOB, a, b)
    got = results(g)
    assert got.winners == frozenset({BOB}) and not got.draw
    assert got.figures == (Figure(BOB, "pairs", 12, Keep.SUM), Figure(ANN, "pairs", 0, Keep.SUM))
    assert got.entries == () and got.daily == ()


def play_six_each(players: tuple[str, ...]) -> Game:
    """Ann takes the first 6 pairs and misses (cards 13 and 15); Bob takes the other 6."""
    g = Game.started(players=players)
    for a, b in PAIRS[:6]:
        g.flip(T, ANN, a, b)
    g.flip(T, ANN, 13, 15)
    g.when(cmd.Tick(T + 1_500))
    for a, b in PAIRS[6:]:
        g.flip(T + 1_500, BOB, a, b)
    return g


def test_players_tied_for_the_most_pairs_all_win() -> None:
    got = results(play_six_each((ANN, BOB, CAT)))
    assert [(s.player, s.place) for s in got.standings] == [(ANN, 1), (BOB, 1), (CAT, 3)]
    assert not got.draw and got.winners == frozenset({ANN, BOB})
    assert got.figures == (
        Figure(ANN, "pairs", 6, Keep.SUM),
        Figure(BOB, "pairs", 6, Keep.SUM),
        Figure(CAT, "pairs", 0, Keep.SUM),
    )


def test_everybody_tied_is_a_draw_and_nobody_wins() -> None:
    got = results(play_six_each((ANN, BOB)))
    assert got.draw and got.winners == frozenset()
    assert got.figures == (Figure(ANN, "pairs", 6, Keep.SUM), Figure(BOB, "pairs", 6, Keep.SUM))
    assert got.entries == ()
