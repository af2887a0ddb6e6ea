"""Replay a game's commands in this interpreter and print its events, encoded, one per line.

Run by the conformance suite in a fresh process with another PYTHONHASHSEED: the rules must give
the same bytes whatever the hash order of sets and dicts. Reads from stdin, as JSON:
``{"slug", "seed", "settings", "commands"}`` (hex, hex of the settings message, base64 of the
pickled domain commands), and optionally ``"deal"`` (hex of the game's deal message: a deal made
by the test instead of the one the seed gives). A refused command prints ``refused:<code>``.
"""

from __future__ import annotations

import base64
import json
import pickle
import sys
from typing import Any

from match_rules import registry
from match_rules.errors import RuleError
from match_rules.game import Game


def encoded(game: Game, events: list[Any]) -> list[str]:
    return [game.encode(e).SerializeToString(deterministic=True).hex() for e in events]


def replay(
    game: Game,
    seed: bytes,
    settings_bytes: bytes,
    commands: list[Any],
    deal_bytes: bytes | None = None,
) -> list[str]:
    settings = type(game.settings(None)).FromString(settings_bytes)
    dealt = game.deal(seed, settings)
    if deal_bytes is not None:
        dealt = type(dealt).FromString(deal_bytes)
    state = game.initial_state(dealt)
    lines: list[str] = []
    for command in commands:
        try:
            steps = game.decide_steps(state, command)
        except RuleError as error:
            lines.append(f"refused:{error.code.slug}")
            continue
        for event, after in steps:
            lines.extend(encoded(game, [event]))
            state = after
    return lines


def main() -> None:
    request = json.load(sys.stdin)
    game = registry.by_slug(request["slug"])
    commands = pickle.loads(base64.b64decode(request["commands"]))  # our own test's commands
    deal = request.get("deal")
    lines = replay(game, bytes.fromhex(request["seed"]), bytes.fromhex(request["settings"]),
                   commands, None if deal is None else bytes.fromhex(deal))  # fmt: skip
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
