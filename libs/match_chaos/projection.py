"""The players projection against a fold of the log: what every players replica must hold for
the run's finished games, worked out here from the tables' records with the games' own rules
(not with the players service's code), and the differences from a replica's rows.

For each table whose records reveal its seed, the records up to that one are folded by the
table's game (``game.evolve`` from ``game.initial_state``) to its ``results``; the seats are
the table's PlayerSeated, less those who left. Then, as docs/players.md says, only players with
a key of their own are kept:

* ``games``: one row per game: its id (the events' game id), its kind, the time of its last
  game event;
* ``stats``: per keyed player and kind: the games, the wins (a winner of ``results``) and the
  draws (``results.draw``);
* ``figures``: per keyed player, kind and figure name: the figures of ``results`` merged by
  their own ``keep`` (a sum, a minimum or a maximum).

Ratings, leaderboards and streaks rest on the same games: the replicas are compared with each
other for those (match_chaos.run). Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from match.v1 import referee_pb2
from match_players.identity import is_keyed
from match_rules import registry
from match_rules.game import Game, Keep, Results


@dataclass(frozen=True, slots=True)
class Seated:
    player: str
    is_bot: bool  # the bot service's seats and a game's CPU players


@dataclass(frozen=True, slots=True)
class Folded:
    """One finished game, folded from its table's records."""

    table_id: str
    game_id: str
    game: Game
    ended_at_ms: int
    seats: tuple[Seated, ...]
    results: Results


class Unfolded(Exception):
    """A table's records do not make one finished game (said why)."""


def fold(table_id: str, records: Sequence[referee_pb2.TableRecord]) -> Folded | None:
    """The finished game in a table's records, up to the first that reveals its seed; None if
    none does (the game is not over). Raises Unfolded when the rules cannot fold them."""
    seats: dict[int, Seated] = {}
    game: Game | None = None
    state: Any = None
    game_id, ended = "", 0
    for record in records:
        for env in record.events:
            which = env.WhichOneof("body")
            if which == "table":
                event = env.table.WhichOneof("event")
                if event == "player_seated":
                    s = env.table.player_seated
                    seats[s.seat] = Seated(s.player_id, s.is_bot)
                elif event == "player_left":
                    seats.pop(env.table.player_left.seat, None)
                elif event == "seed_revealed":
                    return _done(table_id, game, state, game_id, ended, seats)
                continue
            if which is None:
                continue
            if game is None:
                game = registry.by_slug(which)
                state = game.initial_state(None)
            if which != game.slug:
                raise Unfolded(f"{table_id}: two games at one table ({game.slug}, {which})")
            try:
                state = game.evolve(state, game.decode(getattr(env, which)))
            except Exception as error:
                raise Unfolded(f"{table_id}: the rules cannot fold it: {error!r}") from error
            game_id = env.game_id or env.table_id
            ended = env.server_time_ms
    return None


def _done(
    table_id: str, game: Game | None, state: Any, game_id: str, ended: int, seats: dict[int, Seated]
) -> Folded:
    if game is None:
        raise Unfolded(f"{table_id}: a seed revealed before any game event")
    results = game.results(state)
    if results is None:
        raise Unfolded(f"{table_id}: the seed was revealed but the rules say it is not over")
    return Folded(table_id, game_id, game, ended, tuple(seats[n] for n in sorted(seats)), results)


@dataclass
class Rows:
    """The rows the players projection holds (or must hold) for the compared tables."""

    games: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (kind, ended_at)
    stats: dict[tuple[str, int], tuple[int, int, int]] = field(default_factory=dict)
    figures: dict[tuple[str, int, str], int] = field(default_factory=dict)


def merge(keep: Keep, before: int, value: int) -> int:
    """A figure kept over games: added up, the lowest, or the highest."""
    if keep is Keep.SUM:
        return before + value
    return min(before, value) if keep is Keep.MIN else max(before, value)


def expected(games: Iterable[Folded], keeps: Callable[[str], bool] = is_keyed) -> Rows:
    """The rows of ``games``; ``keeps``: which players the read models keep (bots never)."""
    rows = Rows()
    for g in games:
        kind = g.game.kind
        rows.games[g.game_id] = (kind, g.ended_at_ms)
        keyed = {s.player for s in g.seats if not s.is_bot and keeps(s.player)}
        for player in sorted(keyed):
            n, wins, draws = rows.stats.get((player, kind), (0, 0, 0))
            won = int(player in g.results.winners)
            rows.stats[(player, kind)] = (n + 1, wins + won, draws + int(g.results.draw))
        for figure in g.results.figures:
            if figure.player in keyed:
                key = (figure.player, kind, figure.name)
                before = rows.figures.get(key)
                value = figure.value
                rows.figures[key] = value if before is None else merge(figure.keep, before, value)
    return rows


def differences(want: Rows, have: Rows, kinds: Mapping[int, str]) -> dict[str, list[str]]:
    """What ``have`` (a replica's rows) lacks or holds otherwise than ``want``, by game kind
    (``kinds``: kind number -> the name to report it by). Rows of games ``want`` does not know
    are not compared (``have`` is read for the compared games' players and kinds only)."""
    out: dict[str, list[str]] = {}

    def note(kind: int, line: str) -> None:
        out.setdefault(kinds.get(kind, str(kind)), []).append(line)

    for game_id, (kind, ended) in sorted(want.games.items()):
        got = have.games.get(game_id)
        if got is None:
            note(kind, f"game {game_id} not counted")
        elif got != (kind, ended):
            note(kind, f"game {game_id}: (kind, ended) {got}, the log says {(kind, ended)}")
    for (player, kind), figures in sorted(want.stats.items()):
        got_stats = have.stats.get((player, kind))
        if got_stats != figures:
            note(kind, f"{player}: (games, wins, draws) {got_stats}, the log says {figures}")
    for (player, kind), _ in sorted(have.stats.items()):
        if (player, kind) not in want.stats:
            note(kind, f"{player}: statistics of no game the log has")
    for (player, kind, name), value in sorted(want.figures.items()):
        got_value = have.figures.get((player, kind, name))
        if got_value != value:
            note(kind, f"{player}: {name} {got_value}, the log says {value}")
    return out
