"""The Python client of Match over gRPC: the SDK the bot, the CLI and the tests use.

``MatchClient`` (the lobby and the race over one channel), ``PlayerSession`` (one seat's calls),
``refusal_code`` (the rules' slug of a refused call), ``retry_after_ms`` (the wait a
rate-limited call was given) and ``ViewTracker`` (one player's view, kept up to date from what
the server sends). See docs/client.md.
"""

from __future__ import annotations

from match_client.client import (
    DEFAULT_ADDRESS,
    MatchClient,
    PlayerSession,
    Seat,
    default_address,
    default_ca,
    refusal_code,
    retry_after_ms,
)
from match_client.clock import ServerClock
from match_client.tracker import ViewTracker

__all__ = [
    "DEFAULT_ADDRESS",
    "MatchClient",
    "PlayerSession",
    "Seat",
    "ServerClock",
    "ViewTracker",
    "default_address",
    "default_ca",
    "refusal_code",
    "retry_after_ms",
]
