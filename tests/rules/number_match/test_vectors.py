"""The deal number-match-deal-v1 against its published vectors (docs/vectors/), which another
implementation can check itself against: the board, the attempt, the witness and its
commitment, for every level, Classic, a daily puzzle and a replay."""

from __future__ import annotations

import json
import pathlib

from match_rules.number_match import generate, witness
from match_rules.number_match.board import Level
from match_rules.number_match.deal import deal
from match_rules.number_match.settings import Settings

VECTORS = pathlib.Path(__file__).parents[3] / "docs" / "vectors" / "number-match-deal-v1.json"


def test_every_vector_is_dealt_again_with_its_witness_and_commitment() -> None:
    doc = json.loads(VECTORS.read_text())
    assert doc["version"] == generate.DEAL_VERSION
    levels = set()
    for v in doc["vectors"]:
        settings = Settings(
            Level(v["level"]),
            v["daily_date"],
            v["utc_offset_minutes"],
            bytes.fromhex(v["replay_seed"]),
        )
        dealt = deal(bytes.fromhex(v["seed"]), settings)
        steps = witness.to_steps(dealt.moves)
        assert "".join(map(str, dealt.board)) == v["board"]
        assert (dealt.attempt, dealt.additions) == (v["attempt"], v["additions"])
        assert witness.text(dealt.board, dealt.additions, steps).split("\n")[3] == v["witness"]
        assert witness.commitment(dealt.board, dealt.additions, steps) == v["witness_commitment"]
        assert witness.check(dealt.board, dealt.additions, steps) <= (dealt.additions or 99)
        levels.add((v["level"], bool(v["daily_date"]), bool(v["replay_seed"])))
    assert {level for level, _, _ in levels} == {level.value for level in Level}
    assert any(daily for _, daily, _ in levels) and any(replay for _, _, replay in levels)
