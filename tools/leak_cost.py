"""What the lobby's leak check of a reply costs per event: each event as the acting seat's reply
carries it (checked for its own player), told by its type (the game's ``shown_by_type``) against
decoded and redacted (the game's ``by_type`` set aside, as a game that declares nothing), in
alternating rounds of the same run. ``.venv/bin/python tools/leak_cost.py [GAMES]`` from the
checkout; a quick figure, not a test."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from match.v1 import common_pb2
from match_rules import registry
from services.lobby.viewer import leaks
from tests.audit.replay_records import TABLE
from tests.services.players.games import race_game


def race_events(games: int) -> list[tuple[common_pb2.EventEnvelope, str]]:
    """Every race event of ``games`` random games, with the player whose reply would carry it
    (its own ``player``; a public event's, "ann")."""
    rng = random.Random(1)
    out = []
    for _ in range(games):
        for record in race_game(rng, ["ann", "bob"], TABLE):
            for envelope in record.events:
                if envelope.WhichOneof("body") != "race":
                    continue
                body = getattr(envelope.race, envelope.race.WhichOneof("event"))
                out.append((envelope, getattr(body, "player", "") or "ann"))
    return out


def check_all(events: list[tuple[common_pb2.EventEnvelope, str]]) -> float:
    start = time.perf_counter()
    for envelope, player in events:
        if leaks(envelope, player):
            raise SystemExit("a reply's own event was taken for a leak")
    return time.perf_counter() - start


def main(games: int) -> None:
    events = race_events(games)
    game: Any = registry.by_slug("race")  # BaseGame: its by_type set aside and back
    declared = game.by_type
    by_type, decoded = [], []
    for _ in range(7):
        by_type.append(check_all(events))
        game.by_type = None
        decoded.append(check_all(events))
        game.by_type = declared
    t, d = min(by_type) / len(events) * 1e6, min(decoded) / len(events) * 1e6
    print(
        f"race, {games} games, {len(events)} events: decoded and redacted {d:.2f} us an event, "
        f"by its type {t:.2f} us; the best of 7 alternating rounds each"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
