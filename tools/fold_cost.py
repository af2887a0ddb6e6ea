"""What a lobby's viewers of one table cost to fold its records: each viewer folding alone
(decode, evolve, redact per viewer, as before services.lobby.viewer.SharedFold) against the
viewers sharing the table's fold (decode and evolve once, redact per viewer), record by record
as live viewers get them, in alternating rounds of the same run so the two read alike on a busy
machine. ``.venv/bin/python tools/fold_cost.py [GAMES]`` from the checkout; a quick figure, not
a test."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from services.lobby.viewer import SharedFold, TableViewer
from tests.audit.replay_records import TABLE
from tests.services.players.games import race_game

VIEWERS = ("ann", "bob")  # a race of two, each following the table on its seat's stream


def fold_all(tables: list[list[tuple[int, bytes]]], shared: bool) -> float:
    start = time.perf_counter()
    for records in tables:
        fold = SharedFold() if shared else None
        viewers = [TableViewer(TABLE, v, fold) for v in VIEWERS]
        for sequence, data in records:
            for viewer in viewers:
                viewer.fold_record(sequence, data)
    return time.perf_counter() - start


def main(games: int) -> None:
    rng = random.Random(1)
    tables = [
        [(i, r.SerializeToString()) for i, r in enumerate(race_game(rng, list(VIEWERS), TABLE), 1)]
        for _ in range(games)
    ]
    records = sum(len(t) for t in tables)
    alone, shared = [], []
    for _ in range(5):
        alone.append(fold_all(tables, shared=False))
        shared.append(fold_all(tables, shared=True))
    a, s = min(alone) / records * 1e6, min(shared) / records * 1e6
    print(
        f"race, {len(VIEWERS)} viewers, {games} games, {records} records: each alone "
        f"{a:.1f} us per record, sharing the fold {s:.1f} us ({100 * (a - s) / a:.0f} % less); "
        "the best of 5 alternating rounds each"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
