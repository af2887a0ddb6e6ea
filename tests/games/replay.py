"""Replay a game's commands in this interpreter and print its events, encoded, one per line.

Run by the conformance suite in a fresh process with another PYTHONHASHSEED: the rules must give
the same bytes whatever the hash order of sets and dicts. Reads from stdin, as JSON:
``{"slug", "seed", "settings", "commands"}`` (hex, hex of the settings message, base64 of the
pickled domain commands).
"""

from __future__ import annotations

import base64
import json
import pickle
import sys
from typing import Any

from match_rules import registry
from match_rules.game import Game


def encoded(game: Game, events: list[Any]) -> list[str]:
    return [game.encode(e).SerializeToString(deterministic=True).hex() for e in events]


def replay(game: Game, seed: bytes, settings_bytes: bytes, commands: list[Any]) -> list[str]:
    settings = type(game.settings(None)).FromString(settings_bytes)
    state = game.initial_state(game.deal(seed, settings))
    events: list[Any] = []
    for command in commands:
        for event, after in game.decide_steps(state, command):
            events.append(event)
            state = after
    return encoded(game, events)


def main() -> None:
    request = json.load(sys.stdin)
    game = registry.by_slug(request["slug"])
    commands = pickle.loads(base64.b64decode(request["commands"]))  # our own test's commands
    lines = replay(game, bytes.fromhex(request["seed"]), bytes.fromhex(request["settings"]),
                   commands)  # fmt: skip
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
