"""What the protocodec costs per event, each game: every event of a few random games (the
conformance suite's, tests/games/harness.play) encoded to the wire and decoded back, timed,
beside protobuf's own work on the same events in the same run (the message serialized and
parsed: what any codec pays), so the codec's share reads the same on a busy machine.
``.venv/bin/python tools/codec_cost.py [GAMES]`` from the checkout; a quick figure, not a test."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from match_rules import registry
from tests.games.harness import play


def main(games: int) -> None:
    for game in registry.games():
        events = []
        for i in range(games):
            run = play(game, bytes([i]) * 32, random.Random(i))
            events.extend(run.events)
        wires = [game.encode(e) for e in events]
        rounds = max(1, 20_000 // max(len(events), 1))
        start = time.perf_counter()
        for _ in range(rounds):
            for e in events:
                game.encode(e)
        enc = (time.perf_counter() - start) / (rounds * len(events)) * 1e6
        start = time.perf_counter()
        for _ in range(rounds):
            for w in wires:
                game.decode(w)
        dec = (time.perf_counter() - start) / (rounds * len(wires)) * 1e6
        blobs = [w.SerializeToString() for w in wires]
        parse = type(wires[0]).FromString
        start = time.perf_counter()
        for _ in range(rounds):
            for b in blobs:
                parse(b).SerializeToString()
        proto = (time.perf_counter() - start) / (rounds * len(blobs)) * 1e6
        print(
            f"{game.slug:14} events={len(events):5} encode_us={enc:6.2f} decode_us={dec:6.2f} "
            f"protobuf_parse_and_serialize_us={proto:5.2f}"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
