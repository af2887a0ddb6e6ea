"""Who is calling: the caller a create's or join's request id is bound to, and the client's
address that per-address limits count.

A signed-in player (a session from SignIn: services/lobby/identity.py) is the caller
``player:<player id>``: a retry gets its first answer from any client of that key, over any
connection, through any lobby replica. Without a session the caller is the client's key
(``x-client-key``, a random secret the SDK makes once per client and sends with every call)
or, without one, the gRPC connection (``ipv4:1.2.3.4:5678``). With a key, a retry gets its
first answer over a new connection and through another lobby replica; without one, only over
the same connection (a retry after a reconnect makes a new table or seat).
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


def caller(context: Context, player: str | None = None) -> str:
    """The caller's identity for binding request ids: ``player`` (the signed-in player's id,
    from the session), else the client key, else the connection. INVALID_ARGUMENT for a
    predictable client key (checked with a session too: a bad key is a bad key)."""
    key = _metadata(context, CLIENT_KEY)
    if key is not None:
        validation.random_looking(CLIENT_KEY, key, "once per client")
    if player is not None:
        return "player:" + player
    if key is not None:
        return "key:" + key
    return "peer:" + str(context.peer())
