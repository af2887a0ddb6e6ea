"""Signing in with a key: challenges and session tokens (PlayerService.GetChallenge, SignIn).

A player is an Ed25519 key pair the client keeps; its player id is derived from the public key
(match_players.identity). The lobby keeps no account and no challenge store:

**Challenge** (GetChallenge). Text signed by the lobby with a key derived from the token secret
every replica shares, so any replica can check what another gave::

    "c1." player_id "." expires_at_ms "." nonce "." hex(HMAC-SHA256(challenge_key, the rest))

``nonce`` is 128 random bits (32 hex digits); ``challenge_key = HMAC-SHA256(secret,
"match-challenge-v1")``. It lasts ``challenge_ttl_s`` (60 s).

**Sign-in** (SignIn). The challenge must be this lobby's (its HMAC), for this key (its player
id), not expired; the signature must be the key's Ed25519 signature of ``"match-sign-in-v1\\n"
+ challenge``, checked strictly (libsodium through PyNaCl: the key a canonical point of the
prime-order group, never one of the eight small-order points such as the identity, for which a
signature with R = identity and S = 0 verifies for any message under OpenSSL's rules; the
signature's S below the group order, its R not of small order); and the challenge must not
have signed anybody in before. That last check is memory: each replica remembers the nonces
it let in until they expire (at most ``MAX_USED_NONCES``; when that many are live, SignIn is
refused for a moment rather than forget one). So a challenge can sign in once per lobby
replica: a replay sent to another replica within the challenge's 60 s gets a second session
**for the same key**, which is no more than the key's owner could get by asking again, and
only somebody who saw the signed challenge in that minute can do it. Nothing of anybody
else's is reachable that way.

**Session token**. Like a seat's player token (services/lobby/tokens.py) but of another kind::

    base64url(JSON {"exp", "kind": "session", "player"}) "." base64url(HMAC-SHA256(session_key,
    JSON))

with ``session_key = HMAC-SHA256(secret, "match-session-v1")``: the seat tokens are signed with
the secret itself, so neither kind of token verifies as the other, and the ``kind`` claim says
it again. It lasts ``session_ttl_s`` (24 h).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import grpc  # type: ignore[import-untyped]
from nacl.bindings import crypto_core_ed25519_is_valid_point
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from match_players.identity import (
    PUBLIC_KEY_BYTES,
    SIGNATURE_BYTES,
    is_keyed,
    player_id,
    sign_in_message,
)
from services.lobby.errors import RETRY_AFTER_KEY, ApiError, invalid

CHALLENGE_LABEL = b"match-challenge-v1"
SESSION_LABEL = b"match-session-v1"
SESSION_KIND = "session"
CHALLENGE_VERSION = "c1"
NONCE_HEX_DIGITS = 32  # 128 bits
MAX_CHALLENGE_CHARS = 256
MAX_SESSION_CHARS = 512
MAX_USED_NONCES = 100_000  # per replica: sign-ins within one challenge lifetime
_CHALLENGE = re.compile(r"^c1\.(k[0-9a-f]{23})\.([0-9]{1,15})\.([0-9a-f]{32})\.([0-9a-f]{64})$")
_PART = re.compile(r"^[A-Za-z0-9_-]+$")

ASK_AGAIN = "ask for a new one (GetChallenge)"
FOREIGN_CHALLENGE = f"the challenge is not one this lobby gave: {ASK_AGAIN} and sign that"
OTHER_KEY = (
    f"the challenge was given for another key: {ASK_AGAIN} with this public key and sign that"
)
EXPIRED_CHALLENGE = f"the challenge expired: {ASK_AGAIN}"
FORGED = (
    'the signature does not verify: sign the UTF-8 bytes of "match-sign-in-v1\\n" followed by '
    "the challenge with the private key of this public key (Ed25519)"
)
REPLAYED = f"the challenge was used already: each signs in once; {ASK_AGAIN}"
WEAK_KEY = (
    "public_key is not a key any private key has (a small-order or non-canonical Ed25519 "
    "point): make a new key pair and send its raw 32-byte public key"
)


def _derive(secret: bytes, label: bytes) -> bytes:
    return hmac.new(secret, label, hashlib.sha256).digest()


def _unauthenticated(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.UNAUTHENTICATED, message)


def check_public_key(public_key: bytes) -> str:
    """The key's player id; INVALID_ARGUMENT unless it is 32 bytes encoding a point some
    private key has: canonical, in the prime-order group, not of small order."""
    if len(public_key) != PUBLIC_KEY_BYTES:
        raise invalid(
            f"public_key must be the raw Ed25519 public key, {PUBLIC_KEY_BYTES} bytes; got "
            f"{len(public_key)} bytes"
        )
    if not crypto_core_ed25519_is_valid_point(public_key):
        raise invalid(WEAK_KEY)
    return player_id(public_key)


@dataclass(frozen=True, slots=True)
class Challenge:
    text: str
    expires_at_ms: int
    player: str


class Challenges:
    """Gives challenges and checks signed ones (each one signs in once on this replica)."""

    def __init__(
        self,
        secret: bytes,
        ttl_s: float,
        clock: Callable[[], float] = time.time,
        max_used: int = MAX_USED_NONCES,
    ) -> None:
        self._key = _derive(secret, CHALLENGE_LABEL)
        self._ttl_ms = round(ttl_s * 1000)
        self._clock = clock
        self._max_used = max_used
        # nonce -> expiry (unix ms), in the order they were let in; every challenge lives as long,
        # so that is also the order they expire in (a clock step back only keeps some longer).
        self._used: OrderedDict[str, int] = OrderedDict()

    @property
    def ttl_ms(self) -> int:
        return self._ttl_ms

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _mac(self, body: str) -> str:
        return hmac.new(self._key, body.encode("ascii"), hashlib.sha256).hexdigest()

    def issue(self, public_key: bytes) -> Challenge:
        """A new challenge for the key (INVALID_ARGUMENT unless it is 32 bytes)."""
        player = check_public_key(public_key)
        expires = self._now_ms() + self._ttl_ms
        body = f"{CHALLENGE_VERSION}.{player}.{expires}.{secrets.token_hex(NONCE_HEX_DIGITS // 2)}"
        return Challenge(f"{body}.{self._mac(body)}", expires, player)

    def sign_in(self, public_key: bytes, challenge: str, signature: bytes) -> str:
        """The key's player id, once the signed challenge proves it; ApiError otherwise
        (INVALID_ARGUMENT for a malformed request, UNAUTHENTICATED for a proof that fails,
        RESOURCE_EXHAUSTED while this replica remembers too many sign-ins)."""
        player = check_public_key(public_key)
        if not challenge:
            raise invalid("challenge is required: the text GetChallenge answered, unchanged")
        if len(signature) != SIGNATURE_BYTES:
            raise invalid(
                f"signature must be the Ed25519 signature, {SIGNATURE_BYTES} bytes; got "
                f"{len(signature)} bytes"
            )
        parts = _CHALLENGE.match(challenge) if len(challenge) <= MAX_CHALLENGE_CHARS else None
        if parts is None:
            raise _unauthenticated(FOREIGN_CHALLENGE)
        body = challenge.rsplit(".", 1)[0]
        if not hmac.compare_digest(parts.group(4), self._mac(body)):
            raise _unauthenticated(FOREIGN_CHALLENGE)
        if not hmac.compare_digest(parts.group(1), player):
            raise _unauthenticated(OTHER_KEY)
        expires, nonce = int(parts.group(2)), parts.group(3)
        now = self._now_ms()
        if expires <= now:
            raise _unauthenticated(EXPIRED_CHALLENGE)
        try:
            VerifyKey(public_key).verify(sign_in_message(challenge), signature)
        except (BadSignatureError, ValueError):
            raise _unauthenticated(FORGED) from None
        self._forget_expired(now)
        if nonce in self._used:
            raise _unauthenticated(REPLAYED)
        if len(self._used) >= self._max_used:
            wait_ms = max(next(iter(self._used.values())) - now, 1)
            raise ApiError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many sign-ins on this lobby just now: wait {wait_ms} ms and sign in again "
                "(with a new challenge if this one has expired by then)",
                trailers=((RETRY_AFTER_KEY, str(wait_ms)),),
                quiet=True,
            )
        self._used[nonce] = expires
        return player

    def _forget_expired(self, now_ms: int) -> None:
        while self._used:
            nonce, expires = next(iter(self._used.items()))
            if expires > now_ms:
                return
            del self._used[nonce]

    def remembered(self) -> int:
        """Nonces remembered now (tests, metrics)."""
        return len(self._used)


class SessionError(Exception):
    """The session token is missing, garbled or not signed by this lobby: a message to show."""


class SessionExpired(SessionError):
    """The session token was good but its time is up."""


@dataclass(frozen=True, slots=True)
class SessionClaims:
    player: str
    exp: int  # unix seconds


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not _PART.match(text):
        raise SessionError("the session token is garbled")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise SessionError("the session token is garbled") from None


class Sessions:
    """Issues and checks session tokens: a signed-in player, for ``ttl_s``."""

    def __init__(self, secret: bytes, ttl_s: int, clock: Callable[[], float] = time.time) -> None:
        self._key = _derive(secret, SESSION_LABEL)
        self.ttl_s = ttl_s
        self._clock = clock

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()

    def issue(self, player: str) -> tuple[str, int]:
        """A session token for ``player`` and when it expires (unix ms)."""
        exp = int(self._clock()) + self.ttl_s
        claims = {"exp": exp, "kind": SESSION_KIND, "player": player}
        payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
        return f"{_b64(payload)}.{_b64(self._sign(payload))}", exp * 1000

    def verify(self, token: str) -> SessionClaims:
        """The session's claims; SessionError (or SessionExpired) with a message to show."""
        if len(token) > MAX_SESSION_CHARS or token.count(".") != 1:
            raise SessionError("the session token is garbled")
        payload_part, signature_part = token.split(".")
        payload, signature = _unb64(payload_part), _unb64(signature_part)
        if not hmac.compare_digest(signature, self._sign(payload)):
            raise SessionError("the session token is not one this lobby issued: sign in again")
        try:
            raw = json.loads(payload)
            kind, player, exp = raw["kind"], raw["player"], raw["exp"]
        except (ValueError, KeyError, TypeError):
            raise SessionError("the session token is garbled") from None
        if kind != SESSION_KIND or not isinstance(player, str) or not is_keyed(player):
            raise SessionError("the session token is garbled")
        if not isinstance(exp, int) or isinstance(exp, bool):
            raise SessionError("the session token is garbled")
        if exp <= self._clock():
            hours = self.ttl_s / 3600
            raise SessionExpired(
                f"the session expired (sessions last {hours:g} hours): sign in again "
                "(GetChallenge, then SignIn)"
            )
        return SessionClaims(player, exp)
