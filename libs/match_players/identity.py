"""A player's identity without sign-up: an Ed25519 key pair the client makes and keeps.

The player id is derived from the raw 32-byte public key, the same way everywhere (the lobby,
the players service, the client)::

    player_id = "k" + hex(SHA-256(b"match-player-v1\\0" + public_key))[:23]

24 characters, 92 bits of the hash: the leading ``k`` tells it from the anonymous ids the lobby
derives for players without a key (16 hex digits, services/lobby/ids.py), so a keyed id can
never be an anonymous one.

Signing in (docs/players.md): the lobby gives a challenge for the key; the client signs the
UTF-8 bytes of ``SIGN_IN_PREFIX + challenge`` (``sign_in_message``) with its private key. The
prefix keeps that signature from meaning anything anywhere else.
"""

from __future__ import annotations

import hashlib
import re

PLAYER_ID_LABEL = b"match-player-v1\0"
SIGN_IN_PREFIX = b"match-sign-in-v1\n"
PUBLIC_KEY_BYTES = 32  # a raw Ed25519 public key
SIGNATURE_BYTES = 64  # an Ed25519 signature
KEYED_PREFIX = "k"
KEYED_HEX_DIGITS = 23
PLAYER_ID_CHARS = len(KEYED_PREFIX) + KEYED_HEX_DIGITS  # 24
_KEYED = re.compile(rf"^{KEYED_PREFIX}[0-9a-f]{{{KEYED_HEX_DIGITS}}}$")


def player_id(public_key: bytes) -> str:
    """The player id of a raw Ed25519 public key (32 bytes; ValueError otherwise)."""
    if len(public_key) != PUBLIC_KEY_BYTES:
        raise ValueError(
            f"an Ed25519 public key is {PUBLIC_KEY_BYTES} bytes (raw), got {len(public_key)}"
        )
    digest = hashlib.sha256(PLAYER_ID_LABEL + public_key).hexdigest()
    return KEYED_PREFIX + digest[:KEYED_HEX_DIGITS]


def is_keyed(player_id: str) -> bool:
    """True for the id of a key (``k`` and 23 lowercase hex digits); False for an anonymous
    player's id, a bot's, or anything else."""
    return bool(_KEYED.match(player_id))


def sign_in_message(challenge: str) -> bytes:
    """What the client signs to sign in with ``challenge``: the prefix, then its UTF-8 bytes."""
    return SIGN_IN_PREFIX + challenge.encode("utf-8")
