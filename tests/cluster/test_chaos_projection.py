"""What `make chaos` holds the players projection to (match_chaos.projection): for every
registered game, a random game played to its end through the seam (tests/games/harness.py) is
written as a table's records; the fold finds its results as the rules give them, and the rows a
replica must hold; a game not counted, statistics or a figure off, and statistics of no game
are each found, under the game's kind."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from match.v1 import common_pb2, referee_pb2
from match_chaos.projection import Rows, Unfolded, differences, expected, fold
from match_rules import registry
from match_rules.game import Game
from tests.games.harness import Run, play

TABLE = "chaosfold0001"


def kept(player: str) -> bool:
    """The harness's players are p1, p2, ...: here they stand for keyed players."""
    return player.startswith("p")


def envelope(game: Game, number: int, at: int = 0) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        table_id=TABLE, event_number=number, game_kind=game.kind, server_time_ms=at
    )


def records(game: Game, run: Run, reveal: bool = True) -> list[referee_pb2.TableRecord]:
    """The table's records: created and seated, the game's events a record each, the seed."""
    number = 1
    opening = referee_pb2.TableRecord(table_id=TABLE, first_event_number=1, record_number=1)
    created = envelope(game, number)
    created.table.table_created.SetInParent()
    opening.events.append(created)
    for seat in run.seats:
        number += 1
        seated = envelope(game, number)
        s = seated.table.player_seated
        s.seat, s.player_id, s.display_name, s.is_bot = (
            seat.number,
            seat.player,
            seat.name,
            seat.is_bot,
        )
        opening.events.append(seated)
    out = [opening]
    for at, event in enumerate(run.events, start=1):
        number += 1
        env = envelope(game, number, at=1000 * at)
        getattr(env, game.slug).CopyFrom(game.encode(event))
        out.append(
            referee_pb2.TableRecord(
                table_id=TABLE, first_event_number=number, events=[env], record_number=len(out) + 1
            )
        )
    if reveal:
        number += 1
        revealed = envelope(game, number)
        revealed.table.seed_revealed.seed = run.seed
        out.append(
            referee_pb2.TableRecord(
                table_id=TABLE,
                first_event_number=number,
                events=[revealed],
                record_number=len(out) + 1,
            )
        )
    return out


def finished_run(game: Game) -> Run:
    for seed in range(1, 20):
        run = play(game, bytes([seed]) * 32, random.Random(seed), moves=3000)
        state: Any = game.initial_state(None)
        for event in run.events:
            state = game.evolve(state, event)
        if game.results(state) is not None:
            return run
    raise AssertionError(f"no random {game.slug} game ended")


GAMES = [pytest.param(game, id=game.slug) for game in registry.games()]


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_game_folds_to_its_rules_results_and_the_rows_a_replica_must_hold(
    game: Game,
) -> None:
    run = finished_run(game)
    folded = fold(TABLE, records(game, run))
    assert folded is not None
    state: Any = game.initial_state(None)
    for event in run.events:
        state = game.evolve(state, event)
    assert folded.results == game.results(state)
    assert folded.game_id == TABLE and folded.ended_at_ms == 1000 * len(run.events)
    assert [s.player for s in folded.seats] == [s.player for s in run.seats]

    want = expected([folded], kept)
    assert want.games == {TABLE: (game.kind, folded.ended_at_ms)}
    humans = [s.player for s in run.seats if not s.is_bot]
    assert sorted(p for p, _ in want.stats) == sorted(humans)  # no bot is kept
    for player in humans:
        n, wins, draws = want.stats[(player, game.kind)]
        assert (n, wins, draws) == (
            1,
            int(player in folded.results.winners),
            int(folded.results.draw),
        )
    mine = [f for f in folded.results.figures if f.player in humans]
    assert len(want.figures) == len({(f.player, f.name) for f in mine})


@pytest.mark.parametrize("game", GAMES)
def test_a_game_not_counted_or_counted_otherwise_is_found_under_its_kind(game: Game) -> None:
    run = finished_run(game)
    folded = fold(TABLE, records(game, run))
    assert folded is not None
    want = expected([folded], kept)
    kinds = {game.kind: "the-game"}
    assert differences(want, want, kinds) == {}

    assert differences(want, Rows(), kinds)["the-game"][0] == f"game {TABLE} not counted"
    player = next(s.player for s in run.seats if not s.is_bot)
    n, wins, draws = want.stats[(player, game.kind)]
    off = Rows(dict(want.games), {**want.stats, (player, game.kind): (n, wins + 1, draws)})
    off.figures = dict(want.figures)
    assert len(differences(want, off, kinds)["the-game"]) == 1
    extra = Rows(dict(want.games), {**want.stats, ("p9", game.kind): (1, 0, 0)})
    extra.figures = dict(want.figures)
    assert differences(want, extra, kinds)["the-game"] == ["p9: statistics of no game the log has"]
    if want.figures:
        key = next(iter(want.figures))
        wrong = Rows(dict(want.games), dict(want.stats), {**want.figures, key: -1})
        assert len(differences(want, wrong, kinds)["the-game"]) == 1
    late = Rows({TABLE: (game.kind, folded.ended_at_ms + 1)}, dict(want.stats))
    late.figures = dict(want.figures)
    assert "the log says" in differences(want, late, kinds)["the-game"][0]


def test_a_table_whose_seed_is_not_out_is_no_game_and_a_kept_figure_merges_by_its_rule() -> None:
    game = registry.by_slug("number_match")
    run = finished_run(game)
    assert fold(TABLE, records(game, run, reveal=False)) is None
    folded = fold(TABLE, records(game, run))
    assert folded is not None and folded.results.figures
    twice = expected([folded, replace(folded, game_id="another")], kept)
    once = expected([folded], kept)
    assert twice.stats[("p1", game.kind)][0] == 2
    for figure in folded.results.figures:
        key = (figure.player, game.kind, figure.name)
        value = once.figures[key]
        assert twice.figures[key] == (2 * value if figure.keep.value == "sum" else value)


def test_records_the_rules_cannot_fold_are_said_so() -> None:
    race = registry.by_slug("race")
    run = finished_run(race)
    broken = records(race, run)
    envelope_ = broken[2].events[0]  # the second game event
    envelope_.ClearField("race")
    envelope_.concentration.SetInParent()  # another game's event at a race table
    with pytest.raises(Unfolded, match="two games at one table"):
        fold(TABLE, broken)
