"""What every game's scripted demo player (``make demo``) shares: how it signs in, what it says,
and the commands it prints at the end."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_client.client import MatchClient, is_rpc_error, status_name
from match_client.terminal import audit_command as ledger_command
from match_client.terminal import say

__all__ = ["GAME_TIMEOUT_S", "audit_command", "players_lines", "say", "sign_in"]

GAME_TIMEOUT_S = 15 * 60


async def sign_in(
    client: MatchClient, player: Ed25519PrivateKey | None, out: Callable[[str], None]
) -> bool:
    """Sign in with the player's key (None: play anonymously); False when the lobby has no
    player keys (then anonymously, said)."""
    if player is None:
        return False
    try:
        await client.sign_in(player)
    except Exception as err:
        if not is_rpc_error(err) or status_name(err) != "UNIMPLEMENTED":
            raise
        out("this lobby does not know player keys: playing without yours")
        return False
    return True


def players_lines(slug: str, rated: bool, match: str = "match") -> list[str]:
    """Where the signed-in player's game shows now; ``match`` is the command with the options
    that reach the lobby (``MatchClient.command``), so that the commands work as printed."""
    what = "your rating" if rated else "the leaderboard"
    return [
        f"see {what}: {match} leaderboard --game {slug}",
        f"and your statistics: {match} profile",
    ]


def audit_command(game: str, env: Mapping[str, str] = os.environ) -> str:
    """The exact ``match-audit verify`` for the game, with the key where ``make run`` keeps it
    ($MATCH_VAR/ledger.vkey, or $MATCH_LEDGER_KEY) and the ledger's address when not the
    default ($LEDGER_ADDR)."""
    key = env.get("MATCH_LEDGER_KEY") or str(Path(env.get("MATCH_VAR") or "var") / "ledger.vkey")
    return ledger_command(game, key, env.get("LEDGER_ADDR") or None)
