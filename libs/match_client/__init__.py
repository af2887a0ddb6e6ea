"""The Python client of Match over gRPC: the SDK the bot, the CLI and the tests use.

``MatchClient`` (the lobby and the players service over one channel), ``GameSession`` (one
seat's calls to its game's own service, made from the service's descriptor), ``refusal_code``
(the rules' slug of a refused call) and ``retry_after_ms`` (the wait a rate-limited call was
given). Each game's terminal client is a package ``match_client.<slug>`` (its tracker, its
lines, its full-screen view, its scripted demo player), listed in ``match_client.registry``.
See docs/client.md.
"""

from __future__ import annotations

from match_client.client import (
    DEFAULT_ADDRESS,
    MatchClient,
    Seat,
    default_address,
    default_ca,
    refusal_code,
    retry_after_ms,
)
from match_client.clock import ServerClock
from match_client.session import GameSession

__all__ = [
    "DEFAULT_ADDRESS",
    "GameSession",
    "MatchClient",
    "Seat",
    "ServerClock",
    "default_address",
    "default_ca",
    "refusal_code",
    "retry_after_ms",
]
