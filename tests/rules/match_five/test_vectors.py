"""The deal match-five-deal-v1 against its published vectors (docs/vectors/), which another
implementation can check itself against: the dice, both rounds' faces and their categories."""

from __future__ import annotations

import json
import pathlib

from match_rules.match_five.deal import DEAL_VERSION, deal

VECTORS = pathlib.Path(__file__).parents[3] / "docs" / "vectors" / "match-five-deal-v1.json"


def test_every_vector_is_dealt_again_with_its_categories() -> None:
    doc = json.loads(VECTORS.read_text())
    assert doc["version"] == DEAL_VERSION and len(doc["deals"]) >= 5
    for v in doc["deals"]:
        dealt = deal(bytes.fromhex(v["seed"]))
        assert list(dealt.dice) == v["dice"]
        assert [list(f) for f in dealt.faces] == [v["faces_1"], v["faces_2"]]
        assert [list(dealt.categories(r)) for r in (1, 2)] == [
            v["categories_1"],
            v["categories_2"],
        ]
    first = doc["deals"][0]  # the worked example of docs/dealing.md
    assert first["seed"] == "00" * 32
    assert (first["dice"], first["faces_1"]) == ([2, 2, 1, 2, 1], [4, 5, 2, 1, 2])
