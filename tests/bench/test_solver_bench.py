"""``make bench-solver``'s last line, on a tiny run: the per-level difficulty figures (issue 31)
are printed for every level, Easy to Expert, next to the solver's timings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from match_bench import solver as bench


def test_the_last_line_has_both_difficulty_figures_for_every_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench.main(
        ["--boards", "1", "--states", "1", "--difficulty", "1", "--greedy", "2",
         "--out", str(tmp_path)]
    )  # fmt: skip
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("solver: gen_p99_ms=")
    for figure in ("clearable_first_moves", "greedy_clears"):
        for level in ("easy", "medium", "hard", "expert"):
            assert re.search(rf" {figure}_{level}=[01]\.\d{{3}}\b", last), (figure, level, last)
    assert (tmp_path / "bench-solver.json").exists()


def test_a_random_greedy_player_adds_only_when_no_pair_is_left() -> None:
    import random

    rng = random.Random(0)
    assert bench.greedy((1, 9), 0, rng)
    assert not bench.greedy((1, 2), 1, rng)  # 1 2 1 2: nothing pairs
    assert bench.greedy((5, 5, 3), 1, rng)  # the 3 alone, then its copy
    assert bench.Difficulty().open_share == 0.0 == bench.Difficulty().greedy_share
