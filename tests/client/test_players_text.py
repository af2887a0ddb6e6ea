"""``match profile`` and ``match leaderboard`` as they print: a rating with one decimal and its
provisional mark, a time as m:ss.s, the page of how many and the other boards; and the
commands against a faked lobby."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from match.v1 import common_pb2, players_pb2
from match_client import cli, identity, players
from match_client.client import match_command

RACE = common_pb2.GAME_KIND_MATCH_RACE
NUMBER_MATCH = common_pb2.GAME_KIND_NUMBER_MATCH


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0:00.0"),
        (83_400, "1:23.4"),
        (59_960, "1:00.0"),  # rounds to the tenth
        (9_050, "0:09.1"),
        (3_725_000, "1:02:05.0"),
    ],
)
def test_a_time_reads_as_minutes_seconds_and_tenths(ms: int, text: str) -> None:
    assert players.duration(ms) == text


def test_values_by_unit() -> None:
    assert players.value_text(27.345, "rating") == "27.3"
    assert players.value_text(27.35, "rating", provisional=True) == "27.4 ?"
    assert players.value_text(83_400, "ms") == "1:23.4"
    assert players.value_text(950, "points") == "950"
    assert players.value_text(12.5, "tries") == "12.5"


def test_every_game_is_spelt_as_match_play_spells_it() -> None:
    from match_rules import registry

    kinds = {name: players.kind_of(name) for name in cli.GAMES}
    assert sorted(kinds.values()) == sorted(g.kind for g in registry.games())
    assert kinds["race"] == RACE
    assert players.game_title(RACE) == "Match, the race"
    assert players.game_title(99) == "game 99"


def row(rank: int, name: str, value: float, games: int, **kw: Any) -> players_pb2.LeaderboardRow:
    return players_pb2.LeaderboardRow(
        rank=rank, player_id=kw.pop("pid", f"k{rank:023d}"), display_name=name, value=value,
        games=games, **kw,
    )  # fmt: skip


def test_a_rating_leaderboard_page() -> None:
    page = players_pb2.GetLeaderboardResponse(
        rows=[
            row(1, "Ann", 31.25, 40),
            row(2, "Bob", 24.0, 12),
            row(3, "Demo", 24.0, 3, provisional=True, pid="kme"),
        ],
        page=1,
        pages=3,
        total=47,
        unit="rating",
        boards=["", "weekly"],
    )
    assert players.leaderboard_lines("race", "", page, me="kme") == [
        "Match, the race, main board: rating",
        "rank  player                        rating  games",
        "   1  Ann                             31.2     40",
        "   2  Bob                             24.0     12",
        "   3  Demo                          24.0 ?      3  (you)",
        "? a provisional rating: it rests on too few games yet, and is ranked after every "
        "established one",
        "page 1 of 3 (47 players); the next: match leaderboard --game race --page 2",
        "other boards: weekly (match leaderboard --game race --board NAME)",
    ]


def test_a_times_board_and_its_last_page() -> None:
    page = players_pb2.GetLeaderboardResponse(
        rows=[row(21, "A very long name indeed, longer than the column", 83_400, 2)],
        page=2,
        pages=2,
        total=21,
        unit="ms",
        lower_is_better=True,
        boards=["", "level-1", "level-3"],
    )
    lines = players.leaderboard_lines("number-match", "level-3", page)
    assert lines[0] == "Number Match, board level-3: ms (lower is better)"
    assert lines[2] == "  21  A very long name indeed…      1:23.4      2"
    assert lines[3] == "page 2 of 2 (21 players)"
    assert lines[4] == (
        "other boards: main, level-1 (match leaderboard --game number-match --board NAME)"
    )


def test_an_empty_board() -> None:
    page = players_pb2.GetLeaderboardResponse(page=1, pages=0, unit="rating")
    assert players.leaderboard_lines("match-5", "", page) == [
        "MATCH 5, main board: rating",
        "nobody is on this board yet",
    ]


def test_a_board_nobody_is_on_names_no_unit() -> None:
    # Nothing counted yet: the players service cannot tell what the board will rank.
    page = players_pb2.GetLeaderboardResponse(page=1, pages=0)
    assert players.leaderboard_lines("number-match", "", page) == [
        "Number Match, main board",
        "nobody is on this board yet",
    ]


def a_profile() -> players_pb2.Profile:
    first = int(dt.datetime(2026, 11, 30, 12).timestamp() * 1000)
    return players_pb2.Profile(
        player_id="k0123456789abcdef0123456",
        display_name="Ann",
        first_game_at_ms=first,
        ratings=[
            players_pb2.Rating(game_kind=RACE, rating=27.34, games=14),
            players_pb2.Rating(
                game_kind=common_pb2.GAME_KIND_CONCENTRATION, rating=3.0, games=1, provisional=True
            ),
        ],
    )


def test_a_profile_statistics_and_streak() -> None:
    assert players.profile_lines(a_profile(), own=True) == [
        "Ann, player k0123456789abcdef0123456 (you)",
        "playing since 2026-11-30",
        "ratings:",
        "  Match, the race: 27.3, 14 rated games",
        "  Concentration: 3.0 (provisional), 1 rated game",
    ]
    games = [
        players_pb2.GameStatistics(
            game_kind=RACE,
            games=14,
            wins=9,
            draws=1,
            figures=[players_pb2.Statistic(name="pairs_board_1", value=120, keep="sum")],
        ),
        players_pb2.GameStatistics(
            game_kind=NUMBER_MATCH,
            games=1,
            wins=1,
            figures=[
                players_pb2.Statistic(name="best_time_ms/level-1", value=83_400, keep="min"),
                players_pb2.Statistic(name="best_score", value=950, keep="max"),
            ],
        ),
    ]
    assert players.statistics_lines(games) == [
        "statistics:",
        "  Match, the race: 14 games, 9 won, 1 draw",
        "    pairs board 1: 120 in all",
        "  Number Match: 1 game, 1 won",
        "    best time (level-1): 1:23.4, lowest",
        "    best score: 950, highest",
    ]
    streak = players_pb2.GetMyStreakResponse(current=3, best=5, last_date="2026-12-01", solved=12)
    assert players.streak_lines(streak) == [
        "daily puzzle streak: 3 days (best 5), last solved 2026-12-01, 12 solved in all"
    ]


def test_a_new_players_profile() -> None:
    fresh = players_pb2.Profile(player_id="k0123456789abcdef0123456")
    assert players.profile_lines(fresh) == [
        "(no name yet), player k0123456789abcdef0123456",
        "ratings: none yet (a ranked game of two or more players makes one)",
    ]
    assert players.statistics_lines([]) == ["statistics: no finished game yet"]
    assert players.streak_lines(players_pb2.GetMyStreakResponse()) == [
        "daily puzzles: none solved yet (match play --game number-match --new --daily)"
    ]


# --- the commands, the lobby faked -----------------------------------------------------------


class FakeClient:
    """The PlayerService calls ``match profile`` and ``match leaderboard`` make."""

    def __init__(self) -> None:
        self.signed_in_with: Any = None
        self.asked: list[tuple[Any, ...]] = []

    async def sign_in(self, key: Any) -> None:
        self.signed_in_with = key

    async def my_profile(self) -> players_pb2.Profile:
        return a_profile()

    async def my_statistics(self) -> list[players_pb2.GameStatistics]:
        return []

    async def my_streak(self) -> players_pb2.GetMyStreakResponse:
        return players_pb2.GetMyStreakResponse()

    def command(self, rest: str = "") -> str:  # a client of the default lobby
        return match_command(rest)

    async def profile(self, player_id: str) -> players_pb2.Profile:
        self.asked.append(("profile", player_id))
        return players_pb2.Profile(player_id=player_id, display_name="Bob")

    async def leaderboard(
        self, kind: int, board: str = "", page: int = 1, page_size: int = 20
    ) -> players_pb2.GetLeaderboardResponse:
        self.asked.append(("leaderboard", kind, board, page))
        return players_pb2.GetLeaderboardResponse(
            rows=[row(1, "Ann", 20.0, 4, pid=self.me)], page=page, pages=1, total=1, unit="rating"
        )

    me = ""


def parse(*argv: str) -> Any:
    return cli.build_parser().parse_args(list(argv))


async def test_match_profile_signs_in_with_the_key_and_prints_everything(tmp_path: Path) -> None:
    settings = cli.Settings.from_env({"MATCH_CONFIG_DIR": str(tmp_path)})
    client = FakeClient()
    said: list[str] = []
    assert await cli.profile(client, parse("profile"), settings, said.append) == 1  # type: ignore[arg-type]
    assert said[0].startswith("no player key yet")
    key, _ = identity.load_or_create(tmp_path)
    said.clear()
    assert await cli.profile(client, parse("profile"), settings, said.append) == 0  # type: ignore[arg-type]
    assert client.signed_in_with is not None
    assert identity.public_bytes(client.signed_in_with) == key.public
    assert said[0] == "Ann, player k0123456789abcdef0123456 (you)"
    assert "statistics: no finished game yet" in said and said[-1].startswith("daily puzzles:")
    said.clear()
    other = "k" + "1" * 23
    assert await cli.profile(client, parse("profile", other), settings, said.append) == 0  # type: ignore[arg-type]
    assert said[0] == f"Bob, player {other}" and client.asked == [("profile", other)]


async def test_match_leaderboard_marks_the_callers_row(tmp_path: Path) -> None:
    settings = cli.Settings.from_env({"MATCH_CONFIG_DIR": str(tmp_path)})
    key, _ = identity.load_or_create(tmp_path)
    client = FakeClient()
    client.me = key.player_id
    said: list[str] = []
    argv = ("leaderboard", "--game", "race", "--page", "1")
    assert await cli.leaderboard(client, parse(*argv), settings, said.append) == 0  # type: ignore[arg-type]
    assert client.asked == [("leaderboard", RACE, "", 1)]
    assert said[2].endswith("  (you)")
    said.clear()
    argv = ("leaderboard", "--game", "race", "--page", "0")
    assert await cli.leaderboard(client, parse(*argv), settings, said.append) == 1  # type: ignore[arg-type]
    assert said == ["--page counts from 1"]
