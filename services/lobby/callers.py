"""Who is calling: the caller a create's or join's request id is bound to, and the client's
address that per-address limits count.

The seam for player keys: until a player has a key of their own (a later issue), the caller is
the client's key (``x-client-key``, a random secret the SDK makes once per client and sends
with every call) or, without one, the gRPC connection (``ipv4:1.2.3.4:5678``). With a key, a
retry gets its first answer over a new connection and through another lobby replica; without
one, only over the same connection (a retry after a reconnect makes a new table or seat).
When player keys land, ``caller`` returns the player's key instead and nothing else changes.
"""

from __future__ import annotations

from typing import Any

from services.lobby import validation

CLIENT_KEY = "x-client-key"

Context = Any  # grpc.aio.ServicerContext


def _metadata(context: Context, key: str) -> str | None:
    for k, v in context.invocation_metadata() or ():
        if k == key:
            return str(v)
    return None


def caller(context: Context) -> str:
    """The caller's identity for binding request ids; INVALID_ARGUMENT for a predictable key."""
    key = _metadata(context, CLIENT_KEY)
    if key is not None:
        validation.random_looking(CLIENT_KEY, key, "once per client")
        return "key:" + key
    return "peer:" + str(context.peer())
