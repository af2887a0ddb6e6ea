"""What a finished game of Match Cards gives the players' read models (``Results.winners``,
``figures``, ``entries``): worked out by hand for small games, and the same from a state
folded from the log alone."""

from __future__ import annotations

from match_rules.game import Entry, Figure, Keep, Results
from match_rules.match_cards import commands as cmd
from match_rules.match_cards.game import GAME, level
from match_rules.match_cards.settings import Difficulty, Mode, Settings
from match_rules.match_cards.state import MatchCardsState
from tests.rules.match_cards.helpers import CODE, T0, Game

EASY_12 = "level-12-pairs-easy"


def folded(game: Game) -> MatchCardsState:
    """The state the players service folds: the logged events through the wire, no deal."""
    state = GAME.initial_state(None)
    for event in game.events:
        state = GAME.evolve(state, GAME.decode(GAME.encode(event)))
    return state


def results(game: Game) -> Results:
    """The results of a finished game; the same from the log alone."""
    got = GAME.results(game.state)
    assert got is not None
    assert GAME.results(folded(game)) == got
    return got


def clear(game: Game, at: int, player: str = "ann") -> int:
    """``player`` finds every group, one attempt each from ``at``; the instant of the last."""
    for group in game.groups():
        at = game.attempt(group, at, player)
    return at


def misses(game: Game, players: tuple[str, ...], times: int, at: int = T0) -> int:
    """``times`` failed attempts by each of ``players``, side by side from ``at`` (a card of
    the second group and one of the third: never the first group)."""
    groups = game.groups()
    miss = [groups[1][0], groups[2][0]]
    for _ in range(times):
        for player in players:
            for card in miss:
                game.turn(card, at, player)
        at += 1_500
        game.run(cmd.Tick(at))
    return at


def test_the_level_names_the_size_the_groups_and_the_difficulty() -> None:
    assert level(Settings()) == EASY_12
    assert level(Settings(Mode.TRIPLES, 18, Difficulty.HARD)) == "level-18-triples-hard"


def test_a_solo_win_keeps_the_time_on_the_levels_board_and_on_the_codes() -> None:
    """One failed attempt (compared at T0 + 1.5 s), then the 6 pairs, one every 1.5 s: the last
    found at T0 + 10.5 s."""
    game = Game()
    at = game.attempt(game.miss(), T0)
    assert clear(game, at) == T0 + 10_500
    got = results(game)
    assert got.ranked and not got.draw and got.winners == frozenset({"ann"})
    assert got.figures == (
        Figure("ann", "failed_attempts", 1, Keep.SUM),
        Figure("ann", f"best_time_ms/{EASY_12}", 10_500, Keep.MIN),
    )
    assert got.entries == (
        Entry(EASY_12, "ann", 10_500, "ms", lower_is_better=True),
        Entry(f"code-{CODE}", "ann", 10_500, "ms", lower_is_better=True),
    )
    assert got.daily == ()


def test_triples_at_medium_are_their_own_level() -> None:
    game = Game(Settings(Mode.TRIPLES, 18, Difficulty.MEDIUM))
    clear(game, T0)  # 6 triples, the last found at T0 + 9 s
    got = results(game)
    name = "level-18-triples-medium"
    assert got.figures == (
        Figure("ann", "failed_attempts", 0, Keep.SUM),
        Figure("ann", f"best_time_ms/{name}", 9_000, Keep.MIN),
    )
    assert [(e.board, e.value) for e in got.entries] == [
        (name, 9_000),
        (f"code-{game.code}", 9_000),
    ]


def test_a_solo_loss_has_no_winner_no_time_and_no_entry() -> None:
    """Hard, 12 cards: the 11th failed attempt loses."""
    game = Game(Settings(Mode.PAIRS, 12, Difficulty.HARD))
    misses(game, ("ann",), 11)
    got = results(game)
    assert got.ranked and got.winners == frozenset()
    assert got.figures == (Figure("ann", "failed_attempts", 11, Keep.SUM),)
    assert got.entries == ()


def test_a_replayed_code_counts_in_the_statistics_and_on_no_board() -> None:
    game = Game(Settings(Mode.PAIRS, 12, code=CODE))
    clear(game, T0)
    got = results(game)
    assert not got.ranked and got.winners == frozenset({"ann"})
    assert got.figures == (
        Figure("ann", "failed_attempts", 0, Keep.SUM),
        Figure("ann", f"best_time_ms/{EASY_12}", 9_000, Keep.MIN),
    )
    assert got.entries == () and got.daily == ()


def test_a_challenge_the_first_place_wins_and_every_clear_is_on_the_boards() -> None:
    """Ann clears her copy by T0 + 9 s with no miss; Bob then misses once and clears his by
    T0 + 19.5 s: both won their copy, Ann is first."""
    game = Game(players=("ann", "bob"))
    assert clear(game, T0) == T0 + 9_000
    assert GAME.results(game.state) is None  # Bob still plays
    at = game.attempt(game.miss(), T0 + 9_000, "bob")
    assert clear(game, at, "bob") == T0 + 19_500
    got = results(game)
    assert [(s.player, s.place) for s in got.standings] == [("ann", 1), ("bob", 2)]
    assert not got.draw and got.winners == frozenset({"ann"})
    assert got.figures == (
        Figure("ann", "failed_attempts", 0, Keep.SUM),
        Figure("ann", f"best_time_ms/{EASY_12}", 9_000, Keep.MIN),
        Figure("bob", "failed_attempts", 1, Keep.SUM),
        Figure("bob", f"best_time_ms/{EASY_12}", 19_500, Keep.MIN),
    )
    code = f"code-{CODE}"
    assert got.entries == (
        Entry(EASY_12, "ann", 9_000, "ms", True),
        Entry(code, "ann", 9_000, "ms", True),
        Entry(EASY_12, "bob", 19_500, "ms", True),
        Entry(code, "bob", 19_500, "ms", True),
    )


def test_a_challenge_the_first_place_wins_even_when_nobody_cleared() -> None:
    """Hard: Ann finds one pair, then both lose by 11 failed attempts; Ann is first."""
    game = Game(Settings(Mode.PAIRS, 12, Difficulty.HARD), players=("ann", "bob"))
    at = game.attempt(game.groups()[0], T0)
    misses(game, ("ann", "bob"), 11, at)
    got = results(game)
    assert [(s.player, s.place, s.score) for s in got.standings] == [("ann", 1, 1), ("bob", 2, 0)]
    assert got.winners == frozenset({"ann"})
    assert got.figures == (
        Figure("ann", "failed_attempts", 11, Keep.SUM),
        Figure("bob", "failed_attempts", 11, Keep.SUM),
    )
    assert got.entries == ()


def test_a_challenge_all_tied_is_a_draw_and_nobody_wins() -> None:
    game = Game(Settings(Mode.PAIRS, 12, Difficulty.HARD), players=("ann", "bob"))
    misses(game, ("ann", "bob"), 11)
    got = results(game)
    assert got.draw and got.winners == frozenset()
    assert got.figures == (
        Figure("ann", "failed_attempts", 11, Keep.SUM),
        Figure("bob", "failed_attempts", 11, Keep.SUM),
    )
    assert got.entries == ()
