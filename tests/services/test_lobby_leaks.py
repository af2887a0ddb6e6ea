"""The lobby's leak check of one envelope (services.lobby.viewer.leaks, which its replies' check
uses too): what an event's type proves passes undecoded, a private event of another player is
caught, and what does not decode, or whose type proves nothing, is decoded and redacted. Pure:
the games' own rules, no services."""

from __future__ import annotations

from typing import Any

import pytest

from match.v1 import common_pb2, match_cards_pb2, race_pb2
from match_rules import registry
from services.lobby.viewer import leaks

R = race_pb2.RaceEvent
M = match_cards_pb2.MatchCardsEvent


def race(**body: Any) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(race=R(**body))


def cards(**body: Any) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(match_cards=M(**body))


ANNS_TILE = race(tile_turned=R.TileTurned(at=5, board=1, player="ann", tile=3, symbol=7, turn=1))
ANNS_CARD = cards(card_turned=M.CardTurned(at=5, player="ann", card=2, picture="p4"))
PUBLIC = [
    race(board_ended=R.BoardEnded(at=9, board=1, reason=R.END_REASON_TIME_CAP)),
    race(opponent_moved=R.OpponentMoved(at=6, board=1, player="bob", turns=1)),
    cards(opponent_progress=M.OpponentProgress(at=6, player="bob", turned=1)),
    common_pb2.EventEnvelope(
        table=common_pb2.TableEvent(seed_revealed=common_pb2.TableEvent.SeedRevealed(seed=b"s"))
    ),
    common_pb2.EventEnvelope(),  # no body: nothing in it
]


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The slugs of the events the check decodes."""
    seen: list[str] = []
    for game in registry.games():
        monkeypatch.setattr(game, "decode", _counted(game, seen))
    return seen


def _counted(game: Any, seen: list[str]) -> Any:
    inner = game.decode

    def decode(wire: Any) -> Any:
        seen.append(game.slug)
        return inner(wire)

    return decode


@pytest.mark.parametrize("viewer_id", ["ann", "bob", ""])
def test_what_anybody_may_see_passes_by_its_type(viewer_id: str, decoded: list[str]) -> None:
    assert not any(leaks(envelope, viewer_id) for envelope in PUBLIC)
    assert decoded == []


def test_a_players_own_private_event_passes_by_its_type(decoded: list[str]) -> None:
    assert not leaks(ANNS_TILE, "ann")
    assert not leaks(ANNS_CARD, "ann")
    assert decoded == []


@pytest.mark.parametrize("viewer_id", ["bob", ""])
def test_another_players_private_event_is_caught(viewer_id: str, decoded: list[str]) -> None:
    assert leaks(ANNS_TILE, viewer_id)
    assert leaks(ANNS_CARD, viewer_id)
    assert decoded == ["race", "match_cards"]  # the type proved nothing: redacted to be sure


def test_an_event_no_type_proves_is_decoded_and_redacted(
    monkeypatch: pytest.MonkeyPatch, decoded: list[str]
) -> None:
    game = registry.by_slug("race")
    monkeypatch.setattr(game, "by_type", None)  # a game that declares nothing
    assert not leaks(PUBLIC[0], "bob")
    assert not leaks(ANNS_TILE, "ann")
    assert leaks(ANNS_TILE, "bob")
    assert decoded == ["race", "race", "race"]


def test_what_does_not_decode_is_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    game = registry.by_slug("race")

    def garbled(wire: Any) -> Any:
        raise ValueError("cannot read it")

    monkeypatch.setattr(game, "by_type", None)
    monkeypatch.setattr(game, "decode", garbled)
    assert leaks(ANNS_TILE, "ann")
