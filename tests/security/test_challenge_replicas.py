"""A signed challenge replayed across lobby replicas (issue 34, finding 8): what an operator
running many replicas should expect, held as a bound.

Each replica remembers only the challenges it let in (services/lobby/identity.py), so one
signed challenge signs in at most once per replica, only while it lives (60 s), and only as the
key that signed it. The replicas here are the lobby's own challenge checker, one per replica,
sharing the token secret as a deployment's replicas do; docs/players.md says why this is
accepted rather than a store of used challenges shared by the replicas.
"""

from __future__ import annotations

import grpc  # type: ignore[import-untyped]
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from match_players.identity import player_id, sign_in_message
from services.lobby.errors import ApiError
from services.lobby.identity import EXPIRED_CHALLENGE, REPLAYED, Challenges

SECRET = b"s" * 32
REPLICAS = 3
TTL_S = 60.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def refusal(replica: Challenges, public: bytes, challenge: str, signature: bytes) -> str:
    with pytest.raises(ApiError) as caught:
        replica.sign_in(public, challenge, signature)
    assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED
    return str(caught.value.message)


def test_a_signed_challenge_signs_in_at_most_once_per_replica_and_only_while_it_lives() -> None:
    clock = Clock()
    replicas = [Challenges(SECRET, TTL_S, clock) for _ in range(REPLICAS)]
    private = Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    challenge = replicas[0].issue(public).text  # any replica's checks on every other
    signature = private.sign(sign_in_message(challenge))

    sessions = []
    for replica in replicas:
        sessions.append(replica.sign_in(public, challenge, signature))
        assert REPLAYED in refusal(replica, public, challenge, signature)  # twice: never
    assert sessions == [player_id(public)] * REPLICAS  # one per replica, all the signer's

    late = Challenges(SECRET, TTL_S, clock)  # a replica that has not seen it, a minute later
    clock.now += TTL_S
    assert EXPIRED_CHALLENGE in refusal(late, public, challenge, signature)
