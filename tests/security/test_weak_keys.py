"""Sign-in refuses the keys and signatures that verify under lax Ed25519 rules and that no
private key made: a small-order public key (the identity point, for which R = identity and
S = 0 "signs" every message under OpenSSL's rules, so anybody could sign in as the player id
of that key, which nobody holds), a public key not in canonical form, and a signature whose S
is not reduced (the same signature written twice over). The lobby's own sign-in code
(services/lobby/identity.py, the one GetChallenge and SignIn call); the same refusals through
real gRPC: test_player_identity.py."""

from __future__ import annotations

from collections.abc import Callable

import grpc  # type: ignore[import-untyped]
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from match_players.identity import player_id, sign_in_message
from services.lobby.errors import ApiError
from services.lobby.identity import FORGED, WEAK_KEY, Challenges

SECRET = b"s" * 32
IDENTITY = bytes([1]) + bytes(31)  # the neutral point, encoded: y = 1, x = 0
# The group's order L (RFC 8032, 5.1): S must be below it.
L = 2**252 + 27742317777372353535851937790883648493
# The other points of small order, in their canonical encodings (y = 0, y = -1, and the
# points of order 8), and the identity written with y = 1 + p, a non-canonical encoding.
SMALL_ORDER = [
    bytes(32),  # y = 0: order 4
    bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),  # order 2
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # order 8
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  # order 8
]
NON_CANONICAL_IDENTITY = bytes.fromhex(
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
)


def refused(call: Callable[[], object]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call()
    return caught.value


def a_challenge_for(challenges: Challenges, public_key: bytes) -> str:
    """A challenge this lobby would have given that key, had it asked: what an attacker who got
    one before the fix holds (issue() refuses such keys now)."""
    player = player_id(public_key)
    body = f"c1.{player}.{10**13}.{'0' * 32}"
    return f"{body}.{challenges._mac(body)}"


@pytest.mark.parametrize("key", [IDENTITY, *SMALL_ORDER, NON_CANONICAL_IDENTITY])
def test_a_key_no_private_key_has_gets_no_challenge(key: bytes) -> None:
    error = refused(lambda: Challenges(SECRET, 60).issue(key))
    assert (error.code, error.message) == (grpc.StatusCode.INVALID_ARGUMENT, WEAK_KEY)


def test_the_identity_key_with_r_identity_and_s_zero_does_not_sign_in() -> None:
    challenges = Challenges(SECRET, 60, clock=lambda: 1_000.0)
    challenge = a_challenge_for(challenges, IDENTITY)
    signature = IDENTITY + bytes(32)  # R = identity, S = 0: "valid" for any message
    error = refused(lambda: challenges.sign_in(IDENTITY, challenge, signature))
    assert (error.code, error.message) == (grpc.StatusCode.INVALID_ARGUMENT, WEAK_KEY)
    assert challenges.remembered() == 0


def test_a_signature_whose_s_is_not_reduced_is_refused() -> None:
    private = Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    challenges = Challenges(SECRET, 60, clock=lambda: 1_000.0)
    challenge = a_challenge_for(challenges, public)
    good = private.sign(sign_in_message(challenge))
    s = int.from_bytes(good[32:], "little")
    assert s + L < 2**256
    malleated = good[:32] + (s + L).to_bytes(32, "little")  # the same S, plus the group order
    error = refused(lambda: challenges.sign_in(public, challenge, malleated))
    assert (error.code, error.message) == (grpc.StatusCode.UNAUTHENTICATED, FORGED)
    assert challenges.sign_in(public, challenge, good) == player_id(public)
