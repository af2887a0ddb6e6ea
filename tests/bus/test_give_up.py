"""A request says when its sender stops waiting; a service judges nothing that came after."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from match_bus.service import GIVE_UP_HEADER, give_up_headers, given_up


def _msg(headers: dict[str, str] | None) -> Any:
    return SimpleNamespace(headers=headers)


def test_the_header_says_when_the_sender_gives_up() -> None:
    assert give_up_headers(5.0, now_ms=1_000.0) == {GIVE_UP_HEADER: "6000"}


def test_a_request_is_given_up_only_after_its_deadline() -> None:
    headers = give_up_headers(5.0, now_ms=1_000.0)
    assert not given_up(_msg(headers), now_ms=6_000.0)  # at the very instant: still waited for
    assert given_up(_msg(headers), now_ms=6_001.0)


def test_without_the_header_or_with_a_garbled_one_it_is_judged() -> None:
    assert not given_up(_msg(None), now_ms=10**15)
    assert not given_up(_msg({}), now_ms=10**15)
    assert not given_up(_msg({GIVE_UP_HEADER: "soon"}), now_ms=10**15)
