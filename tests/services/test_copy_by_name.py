"""The lobby's copy of a message's fields by name (services.lobby.playing.copy_by_name), which
builds every forwarded command and every answer: each kind of field, what is skipped, and what
is left unset."""

from __future__ import annotations

from match.v1 import concentration_pb2
from services.lobby.playing import copy_by_name

View = concentration_pb2.ConcentrationView


def full_view() -> View:
    view = View(server_time_ms=7, you="ann", turn="bob", draw=True, seed=b"\x01\x02")
    view.settings.cards = 24
    view.cards.add(card=1)
    view.cards.add(card=2)
    view.winners.extend(["ann", "bob"])
    return view


def test_every_kind_of_field_is_copied() -> None:
    source = full_view()
    target = View()
    copy_by_name(source, target)
    assert target == source
    assert target.HasField("seed") and target.HasField("settings")


def test_skipped_fields_and_unset_ones_stay_as_they_were() -> None:
    source = full_view()
    source.ClearField("seed")
    source.ClearField("settings")
    target = View(you="carl", seed=b"\xff")
    copy_by_name(source, target, frozenset({"you"}))
    assert target.you == "carl"  # skipped
    assert target.seed == b"\xff"  # unset in the source (presence): not copied over
    assert not target.HasField("settings")
    assert [c.card for c in target.cards] == [1, 2] and target.turn == "bob"


def test_only_the_fields_both_messages_have_are_copied() -> None:
    source = full_view()
    target = concentration_pb2.ConcentrationStanding()
    copy_by_name(source, target)  # no field in common but maybe a name: nothing breaks
    names = {f.name for f in target.DESCRIPTOR.fields} & {f.name for f in View.DESCRIPTOR.fields}
    for name in names:
        assert getattr(target, name) == getattr(source, name)
