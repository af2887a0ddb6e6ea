"""The players' read models (services/players/book.py) over finished games made by hand: what
each figure, board, rating and streak becomes, and that nothing is counted twice."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from match.v1 import common_pb2, players_pb2
from match_rules.game import DailySolve, Entry, Figure, Keep, Moves, Results, Standing
from services.players.book import (
    DAILY_GAIN_CAP,
    NEW_KEY_MS,
    NOT_PLAYED,
    PROVISIONAL_GAMES,
    RATED,
    RATING_BASE,
    REPEAT_LIMIT,
    REPEAT_WINDOW_MS,
    REPEATED,
    STREAK_GAP_MS,
    Book,
    Unknown,
    shown_rating,
)
from services.players.facts import Finished, Seated, finished
from services.players.service import answer
from tests.services.players.games import keyed, race_game

A, B, C = keyed(1), keyed(2), keyed(3)
INVALID = common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT
DAY = 24 * 3600 * 1000
T0 = 1_800_000_000_000


@dataclass(frozen=True)
class FakeGame:
    kind: int = 7
    slug: str = "fake"


def game(
    game_id: str,
    standings: list[tuple[str, int]],
    *,
    bots: tuple[str, ...] = (),
    draw: bool = False,
    winners: tuple[str, ...] = (),
    figures: tuple[Figure, ...] = (),
    entries: tuple[Entry, ...] = (),
    daily: tuple[DailySolve, ...] = (),
    ranked: bool = True,
    at: int = T0,
    kind: int = 7,
    moves: dict[str, int] | None = None,  # default: everybody made 10
    rated_moves: int = 1,
) -> Finished:
    seats = tuple(Seated(p, f"name-{p[-1]}", p in bots) for p, _ in standings)
    made = {p: 10 for p, _ in standings} if moves is None else moves
    results = Results(
        tuple(Standing(p, place, 0, "") for p, place in standings),
        draw,
        ranked,
        frozenset(winners),
        figures,
        entries,
        daily,
        tuple(Moves(p, n) for p, n in made.items()),
        rated_moves,
    )
    return Finished(game_id, FakeGame(kind=kind), at, seats, results)  # type: ignore[arg-type]


@pytest.fixture
def book(tmp_path: Path) -> Book:
    return Book(tmp_path / "players.sqlite3")


def test_a_win_moves_the_winner_up_and_the_loser_down_and_a_draw_is_halfway(book: Book) -> None:
    book.count(1, game("g1", [(A, 1), (B, 2)], winners=(A,)))
    book.count(2, game("g2", [(A, 1), (C, 1)], draw=True))
    a = book.profile(A).ratings[0]
    b = book.profile(B).ratings[0]
    c = book.profile(C).ratings[0]
    assert a.mu > 25 > b.mu
    assert a.games == 2 and b.games == 1
    assert a.provisional and PROVISIONAL_GAMES > 2
    assert a.rating == pytest.approx(shown_rating(a.mu, a.sigma))
    # A draw between two newcomers of equal rating leaves mu where it was: halfway.
    fresh = Book(":memory:")
    fresh.count(1, game("d", [(A, 1), (B, 1)], draw=True))
    won, lost = Book(":memory:"), Book(":memory:")
    won.count(1, game("w", [(A, 1), (B, 2)], winners=(A,)))
    lost.count(1, game("l", [(A, 2), (B, 1)], winners=(B,)))
    mu = {name: b.profile(A).ratings[0].mu for name, b in
          (("draw", fresh), ("win", won), ("loss", lost))}  # fmt: skip
    assert mu["draw"] == pytest.approx((mu["win"] + mu["loss"]) / 2)
    assert c.mu > 25  # a draw with a player rated higher raises the lower one


def test_bots_and_anonymous_seats_play_as_newcomers_and_keep_nothing(book: Book) -> None:
    bot, anonymous = "botseat01", "0123456789abcdef"
    book.count(1, game("g1", [(A, 1), (bot, 2), (anonymous, 3)], bots=(bot,), winners=(A,)))
    assert book.profile(A).ratings[0].mu > 25
    for who in (bot, anonymous):
        with pytest.raises(Unknown):
            book.profile(who)
    assert book.statistics(bot).games == []
    # Against a bot, the same as against a newcomer with a key.
    other = Book(":memory:")
    other.count(1, game("g1", [(A, 1), (B, 2), (C, 3)], winners=(A,)))
    assert other.profile(A).ratings[0].mu == pytest.approx(book.profile(A).ratings[0].mu)


def test_a_solo_game_or_an_unranked_one_moves_no_rating(book: Book) -> None:
    book.count(1, game("solo", [(A, 1)], winners=(A,)))
    book.count(2, game("replay", [(A, 1), (B, 2)], winners=(A,), ranked=False))
    assert book.profile(A).ratings == []
    stats = book.statistics(A).games[0]
    assert (stats.games, stats.wins, stats.draws) == (2, 2, 0)


def test_figures_are_summed_or_the_best_kept(book: Book) -> None:
    def figures(tries: int, best: int, score: int) -> tuple[Figure, ...]:
        return (Figure(A, "tries", tries, Keep.SUM), Figure(A, "best_time_ms/easy", best, Keep.MIN),
                Figure(A, "best_score/level-1", score, Keep.MAX),
                Figure(B, "tries", 99, Keep.SUM))  # fmt: skip

    book.count(1, game("g1", [(A, 1)], figures=figures(10, 5_000, 30)))
    book.count(2, game("g2", [(A, 1)], figures=figures(7, 6_000, 45)))
    got = {f.name: (f.value, f.keep) for f in book.statistics(A).games[0].figures}
    assert got == {"tries": (17, "sum"), "best_time_ms/easy": (5_000, "min"),
                   "best_score/level-1": (45, "max")}  # fmt: skip
    with pytest.raises(Unknown):  # B was not seated: its figure is nobody's
        book.profile(B)


def test_a_board_keeps_each_players_best_and_ranks_ties_together(book: Book) -> None:
    def times(*pairs: tuple[str, int]) -> tuple[Entry, ...]:
        return tuple(Entry("level-1", p, v, "ms", lower_is_better=True) for p, v in pairs)

    book.count(1, game("g1", [(A, 1)], entries=times((A, 9_000))))
    book.count(2, game("g2", [(B, 1)], entries=times((B, 7_000))))
    book.count(3, game("g3", [(A, 1)], entries=times((A, 7_000))))
    book.count(4, game("g4", [(C, 1)], entries=times((C, 8_000))))
    book.count(5, game("g5", [(A, 1)], entries=times((A, 12_000))))
    page = book.leaderboard(7, "level-1", 1, 20)
    assert [(r.rank, r.player_id, r.value, r.games) for r in page.rows] == [
        (1, A, 7_000, 3), (1, B, 7_000, 1), (3, C, 8_000, 1)]  # fmt: skip
    assert (page.pages, page.total, page.unit, page.lower_is_better) == (1, 3, "ms", True)
    second = book.leaderboard(7, "level-1", 2, 2)
    assert [(r.rank, r.player_id) for r in second.rows] == [(3, C)]
    assert book.leaderboard(7, "level-1", 3, 2).rows == []
    assert book.leaderboard(7, "no-such-board", 1, 20).pages == 0
    assert book.boards(7) == ["level-1"]


def test_a_board_the_game_does_not_have_is_refused_naming_the_boards_it_has(book: Book) -> None:
    """A misspelt board is an error that lists the game's boards, not an empty page; the main
    board always opens, empty or not."""
    kind = common_pb2.GAME_KIND_NUMBER_MATCH
    entries = (Entry("level-hard", A, 300, "points"), Entry("", A, 300, "points"))
    book.count(1, game("g1", [(A, 1)], entries=entries, kind=kind))

    def ask(game_kind: common_pb2.GameKind, board: str) -> players_pb2.PlayersAnswer:
        request = players_pb2.GetLeaderboardRequest(
            game_kind=game_kind, board=board, page=1, page_size=20
        )
        return answer(book, players_pb2.PlayersQuery(leaderboard=request), T0)

    refused = ask(kind, "nope").refusal
    assert (refused.code, refused.category) == ("unknown_board", INVALID)
    assert refused.message == (
        "Number Match has no board 'nope': its boards are the main board (an empty board name), "
        "level-hard. A board appears once a ranked game puts a result on it"
    )
    for name in ("", "level-hard", "LEVEL-HARD"):
        assert ask(kind, name).leaderboard.total == 1, name
    race = common_pb2.GAME_KIND_MATCH_RACE  # nobody has played it: its main board, empty
    assert ask(race, "").WhichOneof("answer") == "leaderboard"
    assert ask(race, "").leaderboard.pages == 0
    assert ask(race, "level-hard").refusal.message.startswith(
        "Match, the race has no board 'level-hard': its boards are the main board (an empty "
        "board name). "
    )
    assert book.boards(kind) == ["", "level-hard"]  # nothing changed


def test_a_first_only_board_keeps_the_first_try(book: Book) -> None:
    def daily(value: int) -> tuple[Entry, ...]:
        return (Entry("daily-2027-01-01", A, value, "points", first_only=True),)

    book.count(1, game("g1", [(A, 1)], entries=daily(40)))
    book.count(2, game("g2", [(A, 1)], entries=daily(90)))  # played again, the board learnt
    rows = book.leaderboard(7, "daily-2027-01-01", 1, 20).rows
    assert [(r.value, r.games) for r in rows] == [(40, 2)]


def test_an_unranked_game_puts_nothing_on_a_board_nor_in_a_streak(book: Book) -> None:
    book.count(1, game("g1", [(A, 1)], entries=(Entry("", A, 50, "points"),),
                       daily=(DailySolve(A, "2027-01-01"),), ranked=False))  # fmt: skip
    assert book.boards(7) == []
    assert book.streak(A, T0).solved == 0


def test_the_rating_board_is_the_main_board_of_a_rated_game(book: Book) -> None:
    book.count(1, game("g1", [(A, 1), (B, 2)], winners=(A,)))
    book.count(2, game("g2", [(C, 1), (B, 2)], winners=(C,)))
    page = book.leaderboard(7, "", 1, 20)
    assert [r.player_id for r in page.rows][-1] == B
    assert page.rows[0].rank == 1 and page.rows[0].provisional
    assert page.unit == "rating" and not page.lower_is_better
    assert page.rows[0].value == pytest.approx(
        book.profile(page.rows[0].player_id).ratings[0].rating
    )
    assert book.boards(7) == [""]


def solve(book: Book, seq: int, day: str, at: int) -> None:
    book.count(seq, game(f"d{seq}", [(A, 1)], daily=(DailySolve(A, day),), at=at))


def test_a_streak_counts_consecutive_days_solved_within_48_hours(book: Book) -> None:
    solve(book, 1, "2027-01-01", T0)
    solve(book, 2, "2027-01-02", T0 + DAY)
    solve(book, 3, "2027-01-02", T0 + DAY + 60_000)  # the same day again: nothing
    solve(book, 4, "2027-01-03", T0 + 2 * DAY)
    got = book.streak(A, T0 + 2 * DAY)
    assert (got.current, got.best, got.last_date, got.solved) == (3, 3, "2027-01-03", 3)
    solve(book, 5, "2027-01-05", T0 + 4 * DAY)  # a day missed: a new streak
    got = book.streak(A, T0 + 4 * DAY)
    assert (got.current, got.best, got.solved) == (1, 3, 4)
    # The streak reads 0 once the next daily can no longer continue it.
    assert book.streak(A, T0 + 4 * DAY + STREAK_GAP_MS - 1).current == 1
    assert book.streak(A, T0 + 4 * DAY + STREAK_GAP_MS).current == 0
    assert book.streak(B, T0).current == 0


def test_a_time_zone_change_cannot_buy_an_extra_day(book: Book) -> None:
    # Solved 1 January at its very start, then 2 January 48 h later by moving the clock's zone
    # 26 hours west: a player who stayed put could not have done it, so the streak starts again.
    solve(book, 1, "2027-01-01", T0)
    solve(book, 2, "2027-01-02", T0 + STREAK_GAP_MS)
    assert book.streak(A, T0 + STREAK_GAP_MS).current == 1
    solve(book, 3, "2027-01-03", T0 + STREAK_GAP_MS + DAY)
    assert book.streak(A, T0 + STREAK_GAP_MS + DAY).best == 2
    # An older date never counts again, whatever the zone says now.
    solve(book, 4, "2027-01-02", T0 + STREAK_GAP_MS + DAY + 1)
    assert book.streak(A, T0 + STREAK_GAP_MS + DAY + 1).solved == 3


def test_nothing_is_counted_twice(book: Book) -> None:
    g = game("g1", [(A, 1), (B, 2)], winners=(A,))
    assert book.count(5, g)
    assert not book.count(5, g)  # the same record again
    assert not book.count(4, g)  # an older record
    assert not book.count(9, g)  # the same game in another record
    assert book.position == 9
    assert book.statistics(A).games[0].games == 1
    book.skip(12)
    assert book.position == 9  # a skip is written at the next flush
    book.flush()
    assert book.position == 12
    book.skip(3)
    book.flush()
    assert book.position == 12  # never back


def test_a_crash_inside_a_count_leaves_no_trace(
    book: Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = book.dump()

    def boom(*_: object) -> None:
        raise RuntimeError("killed")

    monkeypatch.setattr(book, "_rate", boom)
    with pytest.raises(RuntimeError):
        book.count(1, game("g1", [(A, 1), (B, 2)], winners=(A,)))
    assert book.dump() == before
    monkeypatch.undo()
    assert book.count(1, game("g1", [(A, 1), (B, 2)], winners=(A,)))


def test_real_race_games_counted_in_order_give_the_same_rows_every_time(tmp_path: Path) -> None:
    rng = random.Random(7)
    games = []
    for n in range(25):
        players = [keyed(p) for p in rng.sample(range(1, 7), rng.randint(1, 3))]
        games.append(finished(race_game(rng, players, f"table{n:04d}race")))
    dumps = []
    for run in range(2):
        book = Book(tmp_path / f"run{run}.sqlite3")
        for seq, one in enumerate(games, start=1):
            book.count(seq * 10, one)
        dumps.append(book.dump())
        book.close()
    assert dumps[0] == dumps[1]
    assert dumps[0].count("\n") > 40
    played = Book(tmp_path / "run0.sqlite3")
    total = sum(s.games for p in range(1, 7) for s in _stats(played, keyed(p)))
    assert total == sum(len([s for s in g.seats if s.keyed]) for g in games)


def _stats(book: Book, player: str) -> list:  # type: ignore[type-arg]
    return list(book.statistics(player).games)


CODE_BOARD = "code-MM3-PBMB-" + "-".join(["ABCDE"] * 10) + "-FGH"  # as Match Cards names it


def test_every_listed_board_opens_by_its_name_in_either_case(book: Book) -> None:
    """Match Cards names a board by its upper-case game code; the book keeps and lists it by its
    canonical lower-case name, and opens it by that name or the game's (issue 31, item 9)."""
    entry = (Entry(CODE_BOARD, A, 42_000, "ms", lower_is_better=True),)
    book.count(1, game("g1", [(A, 1)], entries=entry))
    book.count(2, game("g2", [(A, 1)], entries=(Entry(CODE_BOARD, A, 40_000, "ms", True),)))
    assert book.boards(7) == [CODE_BOARD.lower()]
    for name in [*book.boards(7), CODE_BOARD]:
        rows = book.leaderboard(7, name, 1, 20).rows
        assert [(r.player_id, r.value, r.games) for r in rows] == [(A, 40_000, 2)], name


def test_a_book_written_before_keeps_its_code_boards_by_their_canonical_names(
    tmp_path: Path,
) -> None:
    path = tmp_path / "players.sqlite3"
    old = Book(path)
    old.count(1, game("g1", [(A, 1)], entries=(Entry("level-1", A, 9, "ms", True),)))
    old._db.execute("UPDATE boards SET board = ?", (CODE_BOARD,))  # as it was written then
    old.close()
    book = Book(path)
    assert book.boards(7) == [CODE_BOARD.lower()]
    assert [r.value for r in book.leaderboard(7, CODE_BOARD, 1, 20).rows] == [9]
    book.close()


# --- ratings that resist farming (docs/players.md) -------------------------------------------


def rated(book: Book, game_id: str) -> str:
    row = book._db.execute("SELECT rating FROM games WHERE game_id = ?", (game_id,)).fetchone()
    return str(row[0])


def test_a_game_counts_for_a_rating_only_when_every_player_made_the_games_moves(
    book: Book,
) -> None:
    bot, anonymous = "botseat01", "0123456789abcdef"
    book.count(1, game("short", [(A, 1), (B, 2)], moves={A: 10, B: 9}, rated_moves=10))
    book.count(2, game("unlisted", [(A, 1), (B, 2)], moves={A: 10}, rated_moves=1))
    book.count(3, game("anon", [(A, 1), (anonymous, 2)], moves={A: 10, anonymous: 0}))
    assert [rated(book, g) for g in ("short", "unlisted", "anon")] == [NOT_PLAYED] * 3
    assert book.profile(A).ratings == [] and book.profile(B).ratings == []
    assert book.statistics(A).games[0].games == 3  # statistics count every game
    # Exactly the minimum is enough; a bot need not move (it cannot be told to resign).
    book.count(4, game("enough", [(A, 1), (B, 2)], moves={A: 10, B: 10}, rated_moves=10))
    book.count(5, game("bot", [(A, 1), (bot, 2)], bots=(bot,), moves={A: 1}))
    assert rated(book, "enough") == rated(book, "bot") == RATED
    assert book.profile(A).ratings[0].games == 2


def test_two_keys_count_for_a_rating_at_most_three_times_in_24_hours_of_game_time(
    book: Book,
) -> None:
    for n in range(REPEAT_LIMIT):
        book.count(n + 1, game(f"g{n}", [(A, 1), (B, 2)], at=T0 + n))
    book.count(10, game("fourth", [(A, 1), (B, 2)], at=T0 + REPEAT_WINDOW_MS - 1))
    book.count(11, game("other", [(A, 1), (C, 2)], at=T0 + REPEAT_WINDOW_MS - 1))
    assert rated(book, "fourth") == REPEATED and rated(book, "other") == RATED
    assert book.profile(B).ratings[0].games == REPEAT_LIMIT
    # In a game of three, one repeated pair is enough: the game is not rated.
    book.count(12, game("three", [(C, 1), (A, 2), (B, 3)], at=T0 + REPEAT_WINDOW_MS - 1))
    assert rated(book, "three") == REPEATED
    # 24 h after the first, it has left the window: one more may count.
    book.count(13, game("later", [(A, 1), (B, 2)], at=T0 + REPEAT_WINDOW_MS))
    assert rated(book, "later") == RATED
    book.count(14, game("again", [(B, 1), (A, 2)], at=T0 + REPEAT_WINDOW_MS))
    assert rated(book, "again") == REPEATED
    # A game not rated is no meeting; meetings two windows old are let go.
    book.count(15, game("much-later", [(A, 1), (B, 2)], at=T0 + 3 * REPEAT_WINDOW_MS))
    assert book._db.execute("SELECT COUNT(*) FROM meetings").fetchone()[0] == 1


def test_a_new_key_gains_at_most_the_daily_cap_in_a_utc_day(book: Book) -> None:
    midnight = (T0 // DAY + 1) * DAY
    seq = 0

    def win(at: int) -> float:
        nonlocal seq
        seq += 1
        book.count(seq, game(f"w{seq}", [(A, 1), (keyed(100 + seq), 2)], at=at))
        return book.profile(A).ratings[0].rating

    assert win(midnight - 3) < RATING_BASE + DAILY_GAIN_CAP  # one win: below the cap
    assert win(midnight - 2) == pytest.approx(RATING_BASE + DAILY_GAIN_CAP)  # capped
    assert win(midnight - 1) == pytest.approx(RATING_BASE + DAILY_GAIN_CAP)
    mine = book.profile(A).ratings[0]
    assert mine.rating == pytest.approx(shown_rating(mine.mu, mine.sigma))
    # The next UTC day, it may rise again, by the cap at most from where that day began.
    start = book.profile(A).ratings[0].rating
    for n in range(6):
        last = win(midnight + n)
    assert last == pytest.approx(start + DAILY_GAIN_CAP)
    # A loss is never held back.
    book.count(100, game("loss", [(keyed(99), 1), (A, 2)], at=midnight + 10))
    assert book.profile(A).ratings[0].rating < last
    # NEW_KEY_MS after its first rated game the key is new no more: no cap.
    first = midnight - 3
    before = book.profile(A).ratings[0].rating
    for n in range(6):
        book.count(
            200 + n, game(f"old{n}", [(A, 1), (keyed(300 + n), 2)], at=first + NEW_KEY_MS + n)
        )
    assert book.profile(A).ratings[0].rating > before + DAILY_GAIN_CAP


def test_the_cap_holds_a_key_until_new_key_ms_after_its_first_rated_game(book: Book) -> None:
    book.count(1, game("first", [(A, 1), (keyed(50), 2)], at=T0))
    end = T0 + NEW_KEY_MS  # the same UTC day as end - 1
    day_start = book.profile(A).ratings[0].rating
    for n in range(4):  # still new: held at the day's start plus the cap
        book.count(2 + n, game(f"new{n}", [(A, 1), (keyed(51 + n), 2)], at=end - 1))
    assert book.profile(A).ratings[0].rating == pytest.approx(day_start + DAILY_GAIN_CAP)
    book.count(9, game("old", [(A, 1), (keyed(60), 2)], at=end))  # new no more
    assert book.profile(A).ratings[0].rating > day_start + DAILY_GAIN_CAP + 1


def test_the_main_board_ranks_established_ratings_first_and_provisional_ones_after_them(
    book: Book,
) -> None:
    seq = 0
    for n in range(PROVISIONAL_GAMES):  # A: established, losing half; B: one game short, winning
        seq += 1
        place = 1 + n % 2
        book.count(
            seq, game(f"a{seq}", [(A, place), (keyed(500 + seq), 3 - place)], at=T0 + seq * DAY)
        )
        if n < PROVISIONAL_GAMES - 1:
            seq += 1
            book.count(seq, game(f"b{seq}", [(B, 1), (keyed(500 + seq), 2)], at=T0 + seq * DAY))
    assert book.profile(A).ratings[0].games == PROVISIONAL_GAMES
    assert book.profile(B).ratings[0].games == PROVISIONAL_GAMES - 1
    assert book.profile(B).ratings[0].rating > book.profile(A).ratings[0].rating
    rows = book.leaderboard(7, "", 1, 20).rows
    # A first, though B's rating is higher; the provisional ones after, ranked from 2 on.
    assert (rows[0].rank, rows[0].player_id, rows[0].provisional) == (1, A, False)
    assert (rows[1].rank, rows[1].player_id, rows[1].provisional) == (2, B, True)
    assert all(r.provisional for r in rows[1:]) and len(rows) == 2 + seq  # A, B, their opponents
    assert [r.rank for r in rows] == sorted(r.rank for r in rows)
    assert [r.value for r in rows[1:]] == sorted((r.value for r in rows[1:]), reverse=True)
    second = book.leaderboard(7, "", 2, 2).rows  # ranks hold across pages
    assert [r.rank for r in second] == [r.rank for r in rows[2:4]]


def test_a_book_counted_under_other_rules_starts_again_from_the_log(tmp_path: Path) -> None:
    path = tmp_path / "players.sqlite3"
    old = Book(path)
    old.count(5, game("g1", [(A, 1), (B, 2)]))
    old._db.execute("PRAGMA user_version = 1")  # as the rules before counted it
    old.close()
    book = Book(path)
    assert book.position == 0 and "(" not in book.dump().replace("-- ", "")
    assert book.count(5, game("g1", [(A, 1), (B, 2)]))
    book.close()
    again = Book(path)  # the same rules: kept
    assert again.position == 5
    again.close()
