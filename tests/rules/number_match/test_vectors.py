"""The deals number-match-deal-v1 and -v2 against their published vectors (docs/vectors/), which
another implementation can check itself against: the board, the attempt, the witness and its
commitment, for every level, Classic, a daily puzzle and a replay. Every version stays dealable
(old games are audited with theirs), so every version's file is checked.

A new version's file is written from the cases of the last one by
``.venv/bin/python tests/rules/number_match/test_vectors.py <version>`` (a published file is
never rewritten)."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

from match_rules.number_match import generate, witness
from match_rules.number_match.board import Level
from match_rules.number_match.deal import deal
from match_rules.number_match.settings import Settings

DOCS = pathlib.Path(__file__).parents[3] / "docs" / "vectors"


def _file(version: str) -> pathlib.Path:
    return DOCS / f"{version}.json"


def _settings(v: dict[str, object]) -> Settings:
    return Settings(
        Level(v["level"]),
        str(v["daily_date"]),
        int(v["utc_offset_minutes"]),  # type: ignore[call-overload]
        bytes.fromhex(str(v["replay_seed"])),
    )


@pytest.mark.parametrize("version", generate.DEAL_VERSIONS)
def test_every_vector_is_dealt_again_with_its_witness_and_commitment(version: str) -> None:
    doc = json.loads(_file(version).read_text())
    assert doc["version"] == version
    levels = set()
    for v in doc["vectors"]:
        settings = _settings(v)
        dealt = deal(bytes.fromhex(v["seed"]), settings, version)
        steps = witness.to_steps(dealt.moves)
        assert "".join(map(str, dealt.board)) == v["board"]
        assert (dealt.attempt, dealt.additions) == (v["attempt"], v["additions"])
        assert witness.text(dealt.board, dealt.additions, steps).split("\n")[3] == v["witness"]
        assert witness.commitment(dealt.board, dealt.additions, steps) == v["witness_commitment"]
        assert witness.check(dealt.board, dealt.additions, steps) <= (dealt.additions or 99)
        levels.add((v["level"], bool(v["daily_date"]), bool(v["replay_seed"])))
    assert {level for level, _, _ in levels} == {level.value for level in Level}
    assert any(daily for _, daily, _ in levels) and any(replay for _, _, replay in levels)


def write(version: str) -> None:
    """Write ``version``'s vectors file from the cases of the newest existing one."""
    last = json.loads(_file(generate.DEAL_VERSIONS[-2]).read_text())
    vectors = []
    for v in last["vectors"]:
        dealt = deal(bytes.fromhex(v["seed"]), _settings(v), version)
        steps = witness.to_steps(dealt.moves)
        vectors.append(
            {
                **{k: v[k] for k in ("seed", "level", "daily_date", "utc_offset_minutes")},
                "replay_seed": v["replay_seed"],
                "attempt": dealt.attempt,
                "board": "".join(map(str, dealt.board)),
                "additions": dealt.additions,
                "witness": witness.text(dealt.board, dealt.additions, steps).split("\n")[3],
                "witness_commitment": witness.commitment(dealt.board, dealt.additions, steps),
            }
        )
    doc = {"version": version, "about": last["about"], "vectors": vectors}
    _file(version).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    write(sys.argv[1])
