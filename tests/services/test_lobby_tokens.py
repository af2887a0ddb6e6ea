"""Player tokens, pure: signed, bound to a table and a seat, expiring, checked once then cached."""

from __future__ import annotations

import pytest

from services.lobby.tokens import TokenError, TokenExpired, Tokens

SECRET = b"k" * 32


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_token_names_its_table_player_and_seat() -> None:
    tokens = Tokens(SECRET, 60)
    claims = tokens.verify(tokens.issue("table0001", "ann", 2))
    assert (claims.table, claims.player, claims.seat) == ("table0001", "ann", 2)


def test_a_cached_token_still_expires() -> None:
    clock = Clock()
    tokens = Tokens(SECRET, 60, clock)
    token = tokens.issue("table0001", "ann", 1)
    assert tokens.verify(token).player == "ann"  # verified, now cached
    clock.now += 61
    with pytest.raises(TokenExpired):
        tokens.verify(token)


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-2] + ("A" if t[-2] != "A" else "B") + t[-1],  # signature changed
        lambda t: "x" + t,  # payload changed
        lambda t: t.replace(".", ""),
        lambda t: t + "." + t,
    ],
)
def test_a_changed_token_is_refused_even_after_the_real_one_was_cached(mangle: object) -> None:
    tokens = Tokens(SECRET, 60)
    token = tokens.issue("table0001", "ann", 1)
    tokens.verify(token)
    with pytest.raises(TokenError):
        tokens.verify(mangle(token))  # type: ignore[operator]


def test_another_lobbys_token_is_refused() -> None:
    token = Tokens(b"other" * 8, 60).issue("table0001", "ann", 1)
    with pytest.raises(TokenError, match="not one this lobby issued"):
        Tokens(SECRET, 60).verify(token)
