"""The simulator and the bench: the bot against the rules core, on a simulated clock.

No bot is ever disqualified (at a person's pace, and at a pace so fast that only the bot's own
guard keeps a clear after 12 s); the strengths come out ordered in a cheap run of the bench.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from match_botsim import bench
from match_botsim.players import KINDS, SimPlayer
from match_botsim.sim import BoardRecord, game_seed, play_game
from match_botsim.stats import mean_ci, rate_ci, t_quantile
from match_rules.race import bot
from match_rules.race import events as ev

BOARDS = 200  # per strength
GAMES = -(-BOARDS // 3)


def solo(kind: str, pace: float, games: int = GAMES, label: str = "test") -> list[BoardRecord]:
    records = []
    for i in range(games):
        player = SimPlayer(kind, f"{label}/{kind}/{i}", pace)
        game = play_game(game_seed(f"{label}/{i}"), [("bot", player), ("idle", None)])
        assert game.refused == 0, f"{kind}: a turn refused in game {i}"
        records += [r for r in game.boards if r.player == "bot"]
    return records


@pytest.mark.parametrize("pace", [1.0, 0.05])
@pytest.mark.parametrize("strength", ["weak", "medium", "strong"])
def test_no_bot_is_disqualified_in_many_simulated_games(strength: str, pace: float) -> None:
    records = solo(strength, pace)
    assert len(records) >= BOARDS
    assert not [r for r in records if r.disqualified]
    cleared = [r for r in records if r.cleared]
    assert len(cleared) >= 0.9 * len(records)
    assert min(r.time_ms for r in cleared) >= bot.CLEAR_NOT_BEFORE_MS


def test_at_a_fast_pace_only_the_guard_keeps_the_clears_honest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The no-disqualification test means something: without the guard the same bot would be
    disqualified at this pace."""
    monkeypatch.setattr(bot, "CLEAR_NOT_BEFORE_MS", 0)
    records = solo("strong", 0.05, games=10)
    assert [r for r in records if r.disqualified]


def test_a_game_is_reproducible_and_each_player_is_told_only_its_own_turns() -> None:
    def run() -> tuple[tuple[BoardRecord, ...], tuple[ev.Standing, ...]]:
        a, b = SimPlayer("weak", "x/a"), SimPlayer("perfect", "x/b")
        game = play_game(game_seed("x"), [("a", a), ("b", b)])
        assert a.memory.board == 3 and b.memory.board == 3
        return game.boards, game.standings

    assert run() == run()
    boards, standings = run()
    assert len(boards) == 6 and {s.player for s in standings} == {"a", "b"}


def test_a_turn_budget_counts_the_pairs_of_the_first_turns_only() -> None:
    player = SimPlayer("perfect", "budget")
    full = play_game(game_seed("budget"), [("p", player), ("idle", None)], budget=80)
    player = SimPlayer("perfect", "budget")
    short = play_game(game_seed("budget"), [("p", player), ("idle", None)], budget=20)
    for f, s in zip(full.boards, short.boards, strict=True):
        if f.player == "p":
            assert f.pairs_in_budget == f.found == 10
            assert s.pairs_in_budget < 10  # nobody clears in 20 turns without luck
    idle = [r for r in full.boards if r.player == "idle"]
    assert all(r.outcome is ev.Outcome.BOARD_ENDED and r.turns == 0 for r in idle)


def test_an_unknown_player_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="no such player kind"):
        SimPlayer("genius", "s")


def test_the_strengths_are_ordered_in_a_cheap_bench() -> None:
    report = bench.measure(games=40, h2h=4, matchups=(("strong", "random"),), workers=1)
    assert report.ordered, report.line()
    pairs = [report.solo[k].pairs.mean for k in KINDS]
    assert pairs == sorted(pairs)
    assert all(report.solo[k].disqualified == 0 for k in KINDS)
    assert report.h2h[0].win_rate.mean == 1.0
    assert re.fullmatch(
        r"bench-bot: random=\d+\.\d\d weak=\d+\.\d\d medium=\d+\.\d\d strong=\d+\.\d\d "
        r"perfect=\d+\.\d\d ordered=yes",
        report.line(),
    )


def test_the_bench_prints_a_table_writes_json_and_a_chart_and_ends_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--games", "4", "--h2h-games", "2", "--workers", "2", "--out", str(tmp_path)]
    assert bench.main(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("bench-bot: random=")
    assert any(line.startswith("strong v perfect") for line in out)
    data = json.loads((tmp_path / "bench-bot.json").read_text(), parse_constant=_no_constant)
    assert data["line"] == out[-1]
    assert set(data["solo"]) == set(KINDS) and len(data["head_to_head"]) == len(bench.MATCHUPS)
    png = (tmp_path / "bench-bot.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    # The numbers do not depend on how many processes played the games.
    inline = bench.measure(games=4, h2h=2, workers=1)
    assert inline.line() == out[-1]


# --- the intervals -----------------------------------------------------------------------


def test_t_quantiles_match_the_tables() -> None:
    for df, expected in ((1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423)):
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_quantile(0.975, 1e9) == pytest.approx(1.95996, abs=1e-4)
    assert t_quantile(0.025, 10) == pytest.approx(-2.2281, abs=1e-4)
    with pytest.raises(ValueError):
        t_quantile(1.0, 5)


def test_a_mean_and_its_t_interval() -> None:
    i = mean_ci([1, 2, 3, 4])
    assert i.mean == 2.5 and i.n == 4
    assert i.half_width == pytest.approx(3.1824 * 1.29099 / 2, abs=1e-3)
    assert mean_ci([7]).lo == mean_ci([7]).hi == 7
    assert mean_ci([2, 2.1, 1.9]).above(mean_ci([1, 1.1, 0.9]))
    with pytest.raises(ValueError):
        mean_ci([])


def test_a_rate_and_its_wilson_interval() -> None:
    all_won = rate_ci([1.0] * 100)
    assert all_won.mean == 1.0 and all_won.hi == 1.0 and 0.95 < all_won.lo < 0.97
    half = rate_ci([0.0, 1.0] * 50)
    assert half.lo == pytest.approx(0.4038, abs=1e-3) and half.hi == pytest.approx(0.5962, abs=1e-3)
    with pytest.raises(ValueError):
        rate_ci([2.0])
    with pytest.raises(ValueError):
        rate_ci([])


def _no_constant(name: str) -> None:
    raise AssertionError(f"bench-bot.json holds {name}, which is not JSON")
