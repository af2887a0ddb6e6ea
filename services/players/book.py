"""The players' read models in one SQLite file: ratings, statistics, streaks and leaderboards.

Every row is a projection of the table log: :meth:`Book.count` takes one finished game
(services/players/facts.py) with the stream sequence of the record that revealed its seed, and
changes the tables and the position in one transaction. So a process killed at any instant has
counted a game wholly or not at all, and a game is never counted twice: a record at or below the
position is ignored, and so is a game id already counted. Deleting the file and following the
log from its first record gives the same rows (:meth:`dump`, byte for byte), because every
figure depends only on the games and their order in the stream.

What is kept (docs/players.md): only players with a key of their own; bots, CPU players and
anonymous seats take part in a rating as newcomers of average skill and keep nothing.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from openskill.models import PlackettLuce

from match.v1 import players_pb2
from match_players import boards as board_names
from match_rules.game import Keep
from services.players.facts import Finished

# Ratings: openskill's Plackett-Luce model, its defaults (mu 25, sigma 25/3). What people see is
# the ordinal (mu - 3 sigma: 99.7 % sure the skill is at least that), scaled to start at 1000.
RATING_BASE = 1000.0
RATING_SCALE = 40.0
PROVISIONAL_GAMES = 5  # a rating rests on at least this many rated games before it is firm
DAY_MS = 24 * 3600 * 1000
# Ratings that resist farming (docs/players.md, "Ratings that resist farming"). All of it is
# counted in the games' own time (their ended_at_ms), never the wall clock, so a rebuild agrees.
REPEAT_WINDOW_MS = DAY_MS  # a rolling 24 h of game time
REPEAT_LIMIT = 3  # rated games two keys may play together within REPEAT_WINDOW_MS
NEW_KEY_MS = 30 * DAY_MS  # a key is new in a game for 30 days after its first rated game in it
DAILY_GAIN_CAP = 150.0  # the most a new key's shown rating may rise in one UTC day
# Why a game of two or more did or did not count for a rating (games.rating).
RATED = "rated"
NOT_PLAYED = "not-played"  # a player made fewer than the game's rated_moves
REPEATED = "repeated"  # two of its keys had played REPEAT_LIMIT rated games within 24 h
# The rules the rows were counted by: a book counted under other rules is emptied when opened
# and counted again from the log's first record (its position goes back to 0).
SCHEMA_VERSION = 2
STREAK_GAP_MS = 48 * 3600 * 1000  # the most two consecutive daily solves may be apart
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20

SCHEMA = """
CREATE TABLE IF NOT EXISTS position (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    stream_seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    kind INTEGER NOT NULL,
    stream_seq INTEGER NOT NULL,
    ended_at_ms INTEGER NOT NULL,
    rating TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    player_id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    first_game_at_ms INTEGER NOT NULL,
    last_game_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    player_id TEXT NOT NULL,
    kind INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    rating REAL NOT NULL,
    games INTEGER NOT NULL,
    first_at_ms INTEGER NOT NULL,
    day INTEGER NOT NULL,
    day_base REAL NOT NULL,
    PRIMARY KEY (player_id, kind)
);
CREATE TABLE IF NOT EXISTS meetings (
    kind INTEGER NOT NULL,
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    game_id TEXT NOT NULL,
    ended_at_ms INTEGER NOT NULL,
    PRIMARY KEY (kind, player_a, player_b, game_id)
);
CREATE INDEX IF NOT EXISTS meetings_time ON meetings (kind, ended_at_ms);
CREATE INDEX IF NOT EXISTS ratings_board ON ratings (kind, rating);
CREATE TABLE IF NOT EXISTS stats (
    player_id TEXT NOT NULL,
    kind INTEGER NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    PRIMARY KEY (player_id, kind)
);
CREATE TABLE IF NOT EXISTS figures (
    player_id TEXT NOT NULL,
    kind INTEGER NOT NULL,
    name TEXT NOT NULL,
    value INTEGER NOT NULL,
    keep TEXT NOT NULL,
    PRIMARY KEY (player_id, kind, name)
);
CREATE TABLE IF NOT EXISTS boards (
    kind INTEGER NOT NULL,
    board TEXT NOT NULL,
    player_id TEXT NOT NULL,
    value INTEGER NOT NULL,
    unit TEXT NOT NULL,
    lower_is_better INTEGER NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (kind, board, player_id)
);
CREATE INDEX IF NOT EXISTS boards_value ON boards (kind, board, value);
CREATE TABLE IF NOT EXISTS streaks (
    player_id TEXT PRIMARY KEY,
    current INTEGER NOT NULL,
    best INTEGER NOT NULL,
    last_date TEXT NOT NULL,
    last_at_ms INTEGER NOT NULL,
    solved INTEGER NOT NULL
);
"""
# Every table, in the order (and with the key order) :meth:`Book.dump` writes them.
TABLES = (
    ("position", "id"),
    ("games", "game_id"),
    ("players", "player_id"),
    ("ratings", "player_id, kind"),
    ("meetings", "kind, player_a, player_b, game_id"),
    ("stats", "player_id, kind"),
    ("figures", "player_id, kind, name"),
    ("boards", "kind, board, player_id"),
    ("streaks", "player_id"),
)


class Unknown(Exception):
    """Nothing is known of what was asked about (NOT_FOUND)."""


def shown_rating(mu: float, sigma: float) -> float:
    return RATING_BASE + RATING_SCALE * (mu - 3 * sigma)


@dataclass(frozen=True, slots=True)
class Page:
    rows: list[players_pb2.LeaderboardRow]
    page: int
    pages: int
    total: int
    unit: str
    lower_is_better: bool


class Book:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        if self._db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            # Counted under other rules (or new): empty, so the log is followed from its start.
            for table, _ in TABLES:
                self._db.execute(f"DROP TABLE IF EXISTS {table}")
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._db.executescript(SCHEMA)
        # Boards are kept by their canonical (lower-case) name (match_players.boards); a book
        # written before kept Match Cards' code boards in upper case.
        self._db.execute("UPDATE boards SET board = lower(board) WHERE board != lower(board)")
        self._model = PlackettLuce()
        self._skipped = 0

    def close(self) -> None:
        self._db.close()

    # --- the position in the stream --------------------------------------------------------

    @property
    def position(self) -> int:
        """The stream sequence of the last record taken (0: none yet)."""
        row = self._db.execute("SELECT stream_seq FROM position WHERE id = 1").fetchone()
        return int(row[0]) if row else 0

    def _move(self, sequence: int) -> None:
        self._db.execute(
            "INSERT INTO position (id, stream_seq) VALUES (1, ?) "
            "ON CONFLICT (id) DO UPDATE SET stream_seq = excluded.stream_seq",
            (sequence,),
        )

    def skip(self, sequence: int) -> None:
        """A record with nothing to count: the position moves (never back), written at the next
        :meth:`flush` or count. Losing it to a crash only means reading those records again."""
        self._skipped = max(self._skipped, sequence)

    def flush(self) -> None:
        if self._skipped > self.position:
            self._move(self._skipped)

    def count(self, sequence: int, game: Finished, move: bool = True) -> bool:
        """Count a finished game, revealed by the record at ``sequence``; False when that
        record or that game was counted before (a redelivery, a restart). ``move``: the position
        moves to ``sequence`` with it (not for a frame's reveal that another of the same frame
        follows: the frame is taken again after a crash, and a game counted is not again)."""
        if sequence <= self.position:
            return False
        with self._transaction():
            if self._db.execute(
                "SELECT 1 FROM games WHERE game_id = ?", (game.game_id,)
            ).fetchone():
                if move:
                    self._move(sequence)
                return False
            rating = self._count(game)
            self._db.execute(
                "INSERT INTO games (game_id, kind, stream_seq, ended_at_ms, rating) "
                "VALUES (?, ?, ?, ?, ?)",
                (game.game_id, game.game.kind, sequence, game.ended_at_ms, rating),
            )
            if move:
                self._move(sequence)
        return True

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # --- counting one game -----------------------------------------------------------------

    def _count(self, game: Finished) -> str:
        """Count the game; what it did for a rating (RATED, NOT_PLAYED, REPEATED, "": none)."""
        kind = game.game.kind
        results = game.results
        keyed = [s for s in game.seats if s.keyed]
        for seat in keyed:
            self._db.execute(
                "INSERT INTO players (player_id, display_name, first_game_at_ms, last_game_at_ms) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
                "display_name = excluded.display_name, last_game_at_ms = excluded.last_game_at_ms",
                (seat.player, seat.name, game.ended_at_ms, game.ended_at_ms),
            )
            won = int(seat.player in results.winners)
            drew = int(results.draw)
            self._db.execute(
                "INSERT INTO stats (player_id, kind, games, wins, draws) VALUES (?, ?, 1, ?, ?) "
                "ON CONFLICT (player_id, kind) DO UPDATE SET games = games + 1, "
                "wins = wins + excluded.wins, draws = draws + excluded.draws",
                (seat.player, kind, won, drew),
            )
        mine = {s.player for s in keyed}
        for figure in results.figures:
            if figure.player in mine:
                self._figure(figure.player, kind, figure.name, figure.value, figure.keep)
        if results.ranked:
            for entry in results.entries:
                if entry.player in mine:
                    self._entry(
                        entry.first_only,
                        kind,
                        entry.board,
                        entry.player,
                        entry.value,
                        entry.unit,
                        entry.lower_is_better,
                    )
            for solve in results.daily:
                if solve.player in mine:
                    self._daily(solve.player, solve.date, game.ended_at_ms)
            if len(results.standings) >= 2 and mine:
                return self._rate(kind, game)
        return ""

    def _figure(self, player: str, kind: int, name: str, value: int, keep: Keep) -> None:
        merge = {
            Keep.SUM: "value + excluded.value",
            Keep.MIN: "MIN(value, excluded.value)",
            Keep.MAX: "MAX(value, excluded.value)",
        }[keep]
        self._db.execute(
            "INSERT INTO figures (player_id, kind, name, value, keep) VALUES (?, ?, ?, ?, ?) "
            f"ON CONFLICT (player_id, kind, name) DO UPDATE SET value = {merge}",
            (player, kind, name, value, keep.value),
        )

    def _entry(
        self, first: bool, kind: int, board: str, player: str, value: int, unit: str, lower: bool
    ) -> None:
        best = "MIN(value, excluded.value)" if lower else "MAX(value, excluded.value)"
        if first:
            best = "value"  # the first try stands
        self._db.execute(
            "INSERT INTO boards (kind, board, player_id, value, unit, lower_is_better, games) "
            "VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT (kind, board, player_id) DO UPDATE SET "
            f"value = {best}, games = games + 1",
            (kind, board_names.canonical(board), player, value, unit, int(lower)),
        )

    def _daily(self, player: str, day: str, at_ms: int) -> None:
        """A daily puzzle solved. The streak goes on when the puzzle is the day after the last
        one solved and was solved less than 48 h after it (what a player who never changes
        time zone can do at most: the first minute of one day, the last of the next), so a
        time zone change cannot buy an extra day; an older or the same date adds nothing."""
        row = self._db.execute(
            "SELECT current, best, last_date, last_at_ms, solved FROM streaks WHERE player_id = ?",
            (player,),
        ).fetchone()
        if row is None:
            current, best, solved = 1, 1, 1
        else:
            current, best, last_date, last_at, solved = row
            if day <= last_date:
                return
            after = date.fromisoformat(last_date) + timedelta(days=1)
            if day == after.isoformat() and at_ms - last_at < STREAK_GAP_MS:
                current += 1
            else:
                current = 1
            best = max(best, current)
            solved += 1
        self._db.execute(
            "INSERT INTO streaks (player_id, current, best, last_date, last_at_ms, solved) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
            "current = excluded.current, best = excluded.best, last_date = excluded.last_date, "
            "last_at_ms = excluded.last_at_ms, solved = excluded.solved",
            (player, current, best, day, at_ms, solved),
        )

    def _rate(self, kind: int, game: Finished) -> str:
        """Rate a game of two or more: each standing a team of one, its place its rank (tied
        places a draw, which openskill counts halfway between a win and a loss). Unless it was
        not played (a player other than a bot made fewer than the game's ``rated_moves``) or two
        of its keys have played REPEAT_LIMIT rated games together in the 24 h of game time
        before it; a new key's shown rating rises at most DAILY_GAIN_CAP in a UTC day."""
        results = game.results
        moves = {m.player: m.count for m in results.moves}
        for standing in results.standings:
            seat = game.seat(standing.player)
            bot = seat is not None and seat.is_bot
            if not bot and moves.get(standing.player, 0) < results.rated_moves:
                return NOT_PLAYED
        keys = sorted(
            {s.player for s in game.seats if s.keyed} & {s.player for s in results.standings}
        )
        pairs = [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]
        since = game.ended_at_ms - REPEAT_WINDOW_MS
        for a, b in pairs:
            (met,) = self._db.execute(
                "SELECT COUNT(*) FROM meetings WHERE kind = ? AND player_a = ? AND player_b = ? "
                "AND ended_at_ms > ?",
                (kind, a, b, since),
            ).fetchone()
            if met >= REPEAT_LIMIT:
                return REPEATED
        known: dict[str, tuple[float, float, int, int, int, float]] = {}
        teams = []
        for standing in results.standings:
            if standing.player not in keys:
                teams.append([self._model.rating()])  # a newcomer of average skill
                continue
            row = self._db.execute(
                "SELECT mu, sigma, games, first_at_ms, day, day_base FROM ratings "
                "WHERE player_id = ? AND kind = ?",
                (standing.player, kind),
            ).fetchone()
            mine = known[standing.player] = row or (
                self._model.mu,
                self._model.sigma,
                0,
                game.ended_at_ms,
                -1,
                0.0,
            )
            teams.append([self._model.rating(mu=mine[0], sigma=mine[1])])
        rated = self._model.rate(teams, ranks=[s.place for s in results.standings])
        day = game.ended_at_ms // DAY_MS  # the game's UTC day
        for standing, team in zip(results.standings, rated, strict=True):
            if standing.player not in known:
                continue  # a bot, a CPU player or an anonymous seat keeps nothing
            mu_before, sigma_before, games, first_at, last_day, base = known[standing.player]
            if last_day != day:  # the day's first rated game: gains count from here
                base = shown_rating(mu_before, sigma_before)
            mu, sigma = team[0].mu, team[0].sigma
            new = game.ended_at_ms - first_at < NEW_KEY_MS
            if new and shown_rating(mu, sigma) > base + DAILY_GAIN_CAP:
                # The gain past the cap is not credited: mu comes down to where the shown
                # rating is the day's base plus the cap (sigma, the certainty, stays).
                mu = (base + DAILY_GAIN_CAP - RATING_BASE) / RATING_SCALE + 3 * sigma
            self._db.execute(
                "INSERT INTO ratings (player_id, kind, mu, sigma, rating, games, first_at_ms, "
                "day, day_base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (player_id, kind) DO UPDATE SET mu = excluded.mu, "
                "sigma = excluded.sigma, rating = excluded.rating, games = excluded.games, "
                "day = excluded.day, day_base = excluded.day_base",
                (
                    standing.player,
                    kind,
                    mu,
                    sigma,
                    shown_rating(mu, sigma),
                    games + 1,
                    first_at,
                    day,
                    base,
                ),
            )
        for a, b in pairs:
            self._db.execute(
                "INSERT INTO meetings (kind, player_a, player_b, game_id, ended_at_ms) "
                "VALUES (?, ?, ?, ?, ?)",
                (kind, a, b, game.game_id, game.ended_at_ms),
            )
        # Meetings older than two windows can no longer matter (games arrive roughly in time
        # order; what is kept depends only on the games, so a rebuild keeps the same rows).
        self._db.execute(
            "DELETE FROM meetings WHERE kind = ? AND ended_at_ms <= ?",
            (kind, game.ended_at_ms - 2 * REPEAT_WINDOW_MS),
        )
        return RATED

    # --- reading ---------------------------------------------------------------------------

    def profile(self, player: str) -> players_pb2.Profile:
        row = self._db.execute(
            "SELECT display_name, first_game_at_ms FROM players WHERE player_id = ?", (player,)
        ).fetchone()
        if row is None:
            raise Unknown(f"no finished game of player {player} is counted yet")
        profile = players_pb2.Profile(
            player_id=player, display_name=row[0], first_game_at_ms=row[1]
        )
        for kind, mu, sigma, rating, games in self._db.execute(
            "SELECT kind, mu, sigma, rating, games FROM ratings WHERE player_id = ? ORDER BY kind",
            (player,),
        ):
            profile.ratings.add(
                game_kind=kind,
                rating=rating,
                mu=mu,
                sigma=sigma,
                games=games,
                provisional=games < PROVISIONAL_GAMES,
            )
        return profile

    def statistics(self, player: str) -> players_pb2.GetMyStatisticsResponse:
        answer = players_pb2.GetMyStatisticsResponse()
        per_kind: dict[int, players_pb2.GameStatistics] = {}
        for kind, games, wins, draws in self._db.execute(
            "SELECT kind, games, wins, draws FROM stats WHERE player_id = ? ORDER BY kind",
            (player,),
        ):
            per_kind[kind] = answer.games.add(game_kind=kind, games=games, wins=wins, draws=draws)
        for kind, name, value, keep in self._db.execute(
            "SELECT kind, name, value, keep FROM figures WHERE player_id = ? ORDER BY kind, name",
            (player,),
        ):
            if kind in per_kind:
                per_kind[kind].figures.add(name=name, value=value, keep=keep)
        return answer

    def streak(self, player: str, now_ms: int) -> players_pb2.GetMyStreakResponse:
        """The streak; ``current`` is 0 once the next daily can no longer continue it."""
        row = self._db.execute(
            "SELECT current, best, last_date, last_at_ms, solved FROM streaks WHERE player_id = ?",
            (player,),
        ).fetchone()
        if row is None:
            return players_pb2.GetMyStreakResponse()
        current, best, last_date, last_at, solved = row
        alive = now_ms - last_at < STREAK_GAP_MS
        return players_pb2.GetMyStreakResponse(
            current=current if alive else 0, best=best, last_date=last_date, solved=solved
        )

    def boards(self, kind: int) -> list[str]:
        """The game's boards that have rows, by their canonical names: "" (the main board)
        first. Each opens by its name here (:meth:`leaderboard`)."""
        names = {
            row[0]
            for row in self._db.execute("SELECT DISTINCT board FROM boards WHERE kind = ?", (kind,))
        }
        if self._db.execute("SELECT 1 FROM ratings WHERE kind = ? LIMIT 1", (kind,)).fetchone():
            names.add("")
        return sorted(names)

    def leaderboard(self, kind: int, board: str, page: int, size: int) -> Page:
        """One page; ``page`` past the last gives no rows (the caller says OUT_OF_RANGE).
        ``board`` in any case: its canonical name is looked up."""
        board = board_names.canonical(board)
        page = page or 1
        size = size or DEFAULT_PAGE_SIZE
        offset = (page - 1) * size
        rated = (
            board == ""
            and self._db.execute("SELECT 1 FROM ratings WHERE kind = ? LIMIT 1", (kind,)).fetchone()
        )
        if rated:
            # Established ratings are ranked first, among themselves; provisional ones come
            # after every established one, ranked among themselves from there on, so a flock of
            # new keys cannot crowd the top of the board (docs/players.md).
            total = self._db.execute(
                "SELECT COUNT(*) FROM ratings WHERE kind = ?", (kind,)
            ).fetchone()[0]
            query = (
                "SELECT r.player_id, p.display_name, r.rating, r.games, "
                "(SELECT COUNT(*) FROM ratings b WHERE b.kind = r.kind AND b.rating > r.rating "
                "AND (b.games >= :firm) = (r.games >= :firm)) "
                "+ CASE WHEN r.games >= :firm THEN 0 ELSE :established END "
                "FROM ratings r JOIN players p ON p.player_id = r.player_id "
                "WHERE r.kind = :kind "
                "ORDER BY r.games < :firm, r.rating DESC, r.player_id LIMIT :size OFFSET :offset"
            )
            established = self._db.execute(
                "SELECT COUNT(*) FROM ratings WHERE kind = ? AND games >= ?",
                (kind, PROVISIONAL_GAMES),
            ).fetchone()[0]
            args = {
                "firm": PROVISIONAL_GAMES,
                "established": established,
                "kind": kind,
                "size": size,
                "offset": offset,
            }
            rows = [
                players_pb2.LeaderboardRow(
                    rank=better + 1,
                    player_id=pid,
                    display_name=name,
                    value=value,
                    games=games,
                    provisional=games < PROVISIONAL_GAMES,
                )
                for pid, name, value, games, better in self._db.execute(query, args)
            ]
            return Page(rows, page, math.ceil(total / size), total, "rating", False)
        head = self._db.execute(
            "SELECT unit, lower_is_better FROM boards WHERE kind = ? AND board = ? LIMIT 1",
            (kind, board),
        ).fetchone()
        if head is None:
            return Page([], page, 0, 0, "", False)
        unit, lower = head[0], bool(head[1])
        total = self._db.execute(
            "SELECT COUNT(*) FROM boards WHERE kind = ? AND board = ?", (kind, board)
        ).fetchone()[0]
        better = "<" if lower else ">"
        order = "ASC" if lower else "DESC"
        query = (
            "SELECT e.player_id, p.display_name, e.value, e.games, "
            f"(SELECT COUNT(*) FROM boards b WHERE b.kind = e.kind AND b.board = e.board "
            f"AND b.value {better} e.value) "
            "FROM boards e JOIN players p ON p.player_id = e.player_id "
            f"WHERE e.kind = ? AND e.board = ? ORDER BY e.value {order}, e.player_id "
            "LIMIT ? OFFSET ?"
        )
        rows = [
            players_pb2.LeaderboardRow(
                rank=ahead + 1, player_id=pid, display_name=name, value=value, games=games
            )
            for pid, name, value, games, ahead in self._db.execute(
                query, (kind, board, size, offset)
            )
        ]
        return Page(rows, page, math.ceil(total / size), total, unit, lower)

    def dump(self) -> str:
        """Every row of every table, in key order: equal text, equal read models."""
        lines: list[str] = []
        for table, key in TABLES:
            lines.append(f"-- {table}")
            for row in self._db.execute(f"SELECT * FROM {table} ORDER BY {key}"):
                lines.append(repr(tuple(row)))
        return "\n".join(lines) + "\n"
