"""Player tokens: a secret for one seat at one table, signed by the lobby.

``base64url(JSON {table, player, seat, exp}) "." base64url(HMAC-SHA256(secret, JSON))``, without
padding. ``exp`` is unix seconds. The lobby keeps no token store: the signature is the proof.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

_PART = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_TOKEN_CHARS = 512


class TokenError(Exception):
    """The token is missing, garbled or not signed by this lobby: a message for the caller."""


class TokenExpired(TokenError):
    """The token was good but its time is up."""


@dataclass(frozen=True, slots=True)
class Claims:
    table: str
    player: str
    seat: int
    exp: int  # unix seconds


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not _PART.match(text):
        raise TokenError("the player token is garbled")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise TokenError("the player token is garbled") from None


class Tokens:
    """Issues and checks player tokens with one secret."""

    CACHE_SIZE = 65_536  # verified tokens kept (a token is re-sent with every call of a seat)

    def __init__(self, secret: bytes, ttl_s: int, clock: Callable[[], float] = time.time) -> None:
        self._secret = secret
        self._ttl_s = ttl_s
        self._clock = clock
        self._verified: dict[str, Claims] = {}

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._secret, payload, hashlib.sha256).digest()

    def issue(self, table: str, player: str, seat: int) -> str:
        exp = int(self._clock()) + self._ttl_s
        claims = {"table": table, "player": player, "seat": seat, "exp": exp}
        payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
        return f"{_b64(payload)}.{_b64(self._sign(payload))}"

    def verify(self, token: str) -> Claims:
        """The token's claims; raises TokenError (or TokenExpired) with a message to show.
        A token verified before is not verified again (only its expiry is checked)."""
        claims = self._verified.get(token)
        if claims is None:
            claims = self._check(token)
            if len(self._verified) >= self.CACHE_SIZE:
                self._verified.clear()
            self._verified[token] = claims
        self.check_expiry(claims)
        return claims

    def check_expiry(self, claims: Claims) -> None:
        """TokenExpired once the token of ``claims`` (verified before) has expired."""
        if claims.exp <= self._clock():
            raise TokenExpired(
                "the player token expired: tokens last a few hours; join a table again"
            )

    def _check(self, token: str) -> Claims:
        if len(token) > MAX_TOKEN_CHARS or token.count(".") != 1:
            raise TokenError("the player token is garbled")
        payload_part, signature_part = token.split(".")
        payload, signature = _unb64(payload_part), _unb64(signature_part)
        if not hmac.compare_digest(signature, self._sign(payload)):
            raise TokenError("the player token is not one this lobby issued")
        try:
            raw = json.loads(payload)
            claims = Claims(
                table=raw["table"], player=raw["player"], seat=raw["seat"], exp=raw["exp"]
            )
        except (ValueError, KeyError, TypeError):
            raise TokenError("the player token is garbled") from None
        types_ok = isinstance(claims.table, str) and isinstance(claims.player, str)
        if not (types_ok and isinstance(claims.seat, int) and isinstance(claims.exp, int)):
            raise TokenError("the player token is garbled")
        return claims
