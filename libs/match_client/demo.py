"""``python -m match_client.demo`` (``make demo``): one whole game against the bot, scripted.

``--game concentration`` (``make demo GAME=concentration``) plays Concentration instead: a table
of ``--seats`` (3) whose other seats CPU players take at StartTable, played by a scripted player
with a perfect memory (a pair it knows, else cards it never saw) to the end; it prints the game
id, the standings and the published seed, deals the layout again from the seed and checks every
flip against it, and ends with the ``match-audit verify`` command.

``--game match-cards`` (``make demo GAME=match-cards``) plays a solo Match Cards game (pairs, 12
cards, Easy; the table starts as it is made) with a perfect memory, and prints the game id, the
result, the counters (groups found of the total, the time, failed attempts of the limit) and the
game code published at the end, which replays the same cards in the same places
(``Settings(code=...)``), then the ``match-audit verify`` command.

``--game number-match`` (``make demo GAME=number-match``) plays a solo Number Match game (easy;
the table starts as it is made): a scripted player that asks its 3 hints (AskHint) first and
plays what they say, and otherwise plays the moves a local ``solver.solve`` finds on the board it
sees (also when a hint is refused as undecided). It prints the game id, the score, whether the
board was cleared, the published seed and the ``match-audit verify`` command.

``--game match-5`` (``make demo GAME=match-5``) plays a whole MATCH 5 game of three scripted
players, Ann, Bob and Cid, each at their own seat through the real stack, with short timers
(``--writing-seconds`` 30, ``--vote-seconds`` 10) so that even a stuck game ends. Each writes a
link for every combination from a small word list keyed by round and combination: some links
match between players (the server groups them), one is the same word spelt differently, on
which Ann calls "Match!", and Cid once tries a link he used in round 1 and is refused. Everybody
votes on every ballot: they accept most and contest a few (Bob and Cid refuse one of Ann's), then
say Done to move on. It prints the game id, each round's scores, the winner(s) and the
``match-audit verify`` command; exit 0 when the game ended.

Every demo plays as the user's player key, the one ``match`` uses (made on first use in the same
config directory; ``--anonymous``: without it), so ``match profile`` shows its games afterwards,
and it ends by saying how to see the rating or the leaderboard (``match leaderboard --game
KIND``).

The race:

Makes an open table with two seats and hints, starts it so the bot fills the other seat, and
plays the first seat through the SDK like a careful person with a good memory: it thinks before
every turn, waits out the pause after a miss and never finishes a board under 12 s. It prints the
game id, each board's result, the final standings and the published seed, then deals the three
boards again from the seed and checks them against what was revealed, and ends with the exact
``match-audit verify`` command for the game. Exit 0 when the game finished.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_client import identity, registry
from match_client.client import (
    default_address,
    default_ca,
    is_rpc_error,
)
from match_client.programs import runnable
from match_client.scripted import say
from match_client.terminal import describe_error


def user_key(anonymous: bool) -> Ed25519PrivateKey | None:
    """The user's player key, as ``match`` keeps it (made, and said, on first use); None with
    ``anonymous``. KeyFileError when the key file cannot be used."""
    if anonymous:
        return None
    key, made = identity.load_or_create(identity.config_dir())
    if made:
        say(
            f"you are player {key.player_id}: your key is {key.path}; it is the only proof, "
            f"keep a copy ({runnable('match')} key export)"
        )
    return key.private


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m match_client.demo", description=__doc__)
    parser.add_argument(
        "--game",
        choices=registry.names(),
        default=registry.default().name,
        help=f"default: {registry.default().name}",
    )
    parser.add_argument(
        "--seats", type=int, default=3, help="Concentration: seats at the table (default 3)"
    )
    parser.add_argument("--addr", default=None, help="default: $MATCH_ADDR, else 127.0.0.1:50051")
    parser.add_argument(
        "--ca", metavar="FILE", default=None, help="TLS, verified with this CA (default: $MATCH_CA)"
    )
    parser.add_argument("--tls", action="store_true", help="TLS, verified with the system's roots")
    parser.add_argument(
        "--pace", type=float, default=1.0, help="think-time scale: 1.0 is a person's pace"
    )
    parser.add_argument("--rng-seed", type=int, default=None, help="the scripted player's choices")
    parser.add_argument(
        "--writing-seconds", type=int, default=30, help="MATCH 5: the sand timer (default 30)"
    )
    parser.add_argument(
        "--vote-seconds", type=int, default=10, help="MATCH 5: each combination's vote (default 10)"
    )
    parser.add_argument(
        "--anonymous", action="store_true", help="play without your player key (no rating)"
    )
    args = parser.parse_args(argv)
    try:
        player_key = user_key(args.anonymous)
    except (identity.KeyFileError, OSError) as error:
        say(f"error: {error}")
        return 1
    args.addr = args.addr or default_address()
    args.ca = args.ca or default_ca()
    try:
        return asyncio.run(registry.by_name(args.game).demo(args, player_key))
    except KeyboardInterrupt:
        return 130
    except Exception as err:
        if not is_rpc_error(err):
            raise
        say(f"demo failed: {describe_error(err)}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
