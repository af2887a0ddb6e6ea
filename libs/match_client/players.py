"""The players' figures as ``match profile`` and ``match leaderboard`` print them: pure text.

A rating has one decimal and is marked while it is provisional ("?" on a leaderboard,
"(provisional)" on a profile); a time in ms reads as m:ss.s; any other figure is a number.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import cast

from match.v1 import common_pb2, players_pb2
from match_client import registry as clients
from match_rules import registry


def kind_of(name: str) -> common_pb2.GameKind:
    """The game kind of a game as ``match leaderboard --game`` spells it ("match-cards"), from
    the two registries (a hand-kept list here once left a new game out, unnoticed)."""
    kind = registry.by_slug(clients.by_name(name).slug).kind
    return cast(common_pb2.GameKind, kind)  # the enum's values are ints at run time


NAME_WIDTH = 24
KEEPS = {"sum": "in all", "min": "lowest", "max": "highest"}


def game_title(kind: int) -> str:
    """ "Match, the race", "Concentration", ..."""
    try:
        return registry.by_kind(kind).title
    except registry.UnknownGame:
        return f"game {kind}"


def duration(ms: float) -> str:
    """A time in ms as m:ss.s (h:mm:ss.s from an hour): 83_400 -> "1:23.4"."""
    tenths = int(ms + 50) // 100  # to the nearest tenth, a half up
    minutes, tenths = divmod(tenths, 600)
    hours, minutes = divmod(minutes, 60)
    seconds = f"{tenths // 10:02d}.{tenths % 10}"
    return f"{hours}:{minutes:02d}:{seconds}" if hours else f"{minutes}:{seconds}"


def number(value: float) -> str:
    """A count as a whole number, anything else with one decimal."""
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def rating_text(value: float, provisional: bool, mark: str = "?") -> str:
    """A rating with one decimal, marked while provisional."""
    return f"{value:.1f} {mark}" if provisional else f"{value:.1f}"


def value_text(value: float, unit: str, provisional: bool = False) -> str:
    """A leaderboard's figure by its unit."""
    if unit == "rating":
        return rating_text(value, provisional)
    if unit == "ms":
        return duration(value)
    return number(value)


def day(ms: int) -> str:
    """A unix ms time as the local date."""
    return dt.datetime.fromtimestamp(ms / 1000).date().isoformat()


def _name(text: str, width: int = NAME_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# --- leaderboards ----------------------------------------------------------------------------


def leaderboard_lines(
    slug: str,
    board: str,
    page: players_pb2.GetLeaderboardResponse,
    me: str | None = None,
    match: str = "match",
) -> list[str]:
    """A page of a leaderboard: a heading, a row per player (rank, name, value, games), and a
    footer: the page of how many, how to turn it, and the game's other boards. ``me``: the
    caller's player id, whose row is marked; ``match``: the command with the options that reach
    the lobby (``MatchClient.command``), so that the commands shown work as printed."""
    kind = kind_of(slug)
    title = game_title(kind)
    which = f"board {board}" if board else "main board"
    unit = page.unit or "value"
    heading = f"{title}, {which}" + (f": {page.unit}" if page.unit else "")  # "": nothing yet
    lines = [heading + (" (lower is better)" if page.lower_is_better else "")]
    if page.pages == 0 or not page.rows:
        lines.append("nobody is on this board yet")
    else:
        lines.append(f"{'rank':>4}  {'player':<{NAME_WIDTH}}  {unit:>10}  {'games':>5}")
        for row in page.rows:
            mark = "  (you)" if me and row.player_id == me else ""
            lines.append(
                f"{row.rank:>4}  {_name(row.display_name or row.player_id):<{NAME_WIDTH}}  "
                f"{value_text(row.value, unit, row.provisional):>10}  {row.games:>5}{mark}"
            )
        if unit == "rating" and any(row.provisional for row in page.rows):
            lines.append(
                "? a provisional rating: it rests on too few games yet, and is ranked after "
                "every established one"
            )
        total = f"{page.total} player{'' if page.total == 1 else 's'}"
        footer = f"page {page.page} of {page.pages} ({total})"
        base = f"{match} leaderboard --game {slug}" + (f" --board {board}" if board else "")
        if page.page < page.pages:
            footer += f"; the next: {base} --page {page.page + 1}"
        lines.append(footer)
    others = [b or "main" for b in page.boards if b != board]
    if others:
        lines.append(
            f"other boards: {', '.join(others)} ({match} leaderboard --game {slug} --board NAME)"
        )
    return lines


def unknown_board_line(slug: str, match: str = "match") -> str:
    """What to type after the server refused a board it does not have (``unknown_board``: its
    message names the boards there are, the main board as an empty name, which the command
    line names ``main`` or leaves out)."""
    return (
        f"open one of them: {match} leaderboard --game {slug} --board NAME "
        "(the main board: leave out --board)"
    )


# --- profiles --------------------------------------------------------------------------------


def figure_text(figure: players_pb2.Statistic) -> str:
    """One statistic: "best time (level-1): 1:23.4, lowest", "pairs board 1: 17 in all"."""
    base, _, qualifier = figure.name.partition("/")
    timed = base.endswith("_ms")
    if timed:
        base = base.removesuffix("_ms")
    label = base.replace("_", " ") + (f" ({qualifier})" if qualifier else "")
    value = duration(figure.value) if timed else number(figure.value)
    keep = KEEPS.get(figure.keep, figure.keep)
    return f"{label}: {value}, {keep}" if figure.keep != "sum" else f"{label}: {value} {keep}"


def profile_lines(profile: players_pb2.Profile, own: bool = False) -> list[str]:
    """A profile: who, since when, and the ratings."""
    name = profile.display_name or "(no name yet)"
    lines = [f"{name}, player {profile.player_id}" + (" (you)" if own else "")]
    if profile.first_game_at_ms:
        lines.append(f"playing since {day(profile.first_game_at_ms)}")
    if not profile.ratings:
        lines.append("ratings: none yet (a ranked game of two or more players makes one)")
    else:
        lines.append("ratings:")
        for r in profile.ratings:
            games = f"{r.games} rated game{'' if r.games == 1 else 's'}"
            rating = rating_text(r.rating, r.provisional, "(provisional)")
            lines.append(f"  {game_title(r.game_kind)}: {rating}, {games}")
    return lines


def statistics_lines(games: Sequence[players_pb2.GameStatistics]) -> list[str]:
    """The caller's statistics, per game."""
    if not games:
        return ["statistics: no finished game yet"]
    lines = ["statistics:"]
    for g in games:
        draws = f", {g.draws} draw{'' if g.draws == 1 else 's'}" if g.draws else ""
        lines.append(
            f"  {game_title(g.game_kind)}: {g.games} game{'' if g.games == 1 else 's'}, "
            f"{g.wins} won{draws}"
        )
        lines.extend(f"    {figure_text(f)}" for f in g.figures)
    return lines


def streak_lines(streak: players_pb2.GetMyStreakResponse, match: str = "match") -> list[str]:
    """The daily puzzle streak (``match``: as in leaderboard_lines)."""
    if not streak.solved:
        return [f"daily puzzles: none solved yet ({match} play --game number-match --new --daily)"]
    days = f"{streak.current} day{'' if streak.current == 1 else 's'}"
    return [
        f"daily puzzle streak: {days} (best {streak.best}), last solved {streak.last_date}, "
        f"{streak.solved} solved in all"
    ]
