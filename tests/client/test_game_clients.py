"""The terminal client's seam: every registered game has a CLIENT, a table of any game is made
from its settings message, and one session reaches any game's service from its descriptor."""

from __future__ import annotations

import pytest

from match.v1 import lobby_pb2, players_pb2
from match_client import cli, client, registry, session
from match_rules import registry as rules


def test_every_game_is_found_by_name_and_by_kind() -> None:
    for game in rules.games():
        found = registry.by_kind(game.kind)
        assert found.slug == game.slug
        assert registry.by_name(found.name) is found
    assert registry.default() is registry.clients()[0]
    with pytest.raises(rules.UnknownGame, match="no game called 'chess'"):
        registry.by_name("chess")


def test_each_game_s_settings_make_a_table_of_that_game() -> None:
    """The CreateTableRequest member that carries a game's settings is named after its slug,
    so create_table finds the game from the message alone."""
    parser = cli.build_parser()
    for found in registry.clients():
        args = parser.parse_args(["play", "--game", found.name, "--new"])
        settings = found.new_settings(args)
        assert client.settings_member(settings) == found.slug
    assert client.settings_member(None) == ""


def test_a_message_that_is_no_game_s_settings_is_refused_with_its_name() -> None:
    with pytest.raises(ValueError, match=r"match\.v1\.Profile is no game's table settings"):
        client.settings_member(players_pb2.Profile())


def test_every_game_s_service_has_its_watch_and_its_commands_take_the_table() -> None:
    for game in rules.games():
        rpcs = session.rpcs(game.slug)
        watch = rpcs[session.WATCH]
        assert watch.streaming
        assert {"table_id", "after_event_number"} <= set(watch.request.DESCRIPTOR.fields_by_name)
        commands = [r for name, r in rpcs.items() if name != session.WATCH]
        assert commands, game.slug
        for rpc in commands:
            assert not rpc.streaming
            assert "table_id" in rpc.request.DESCRIPTOR.fields_by_name, rpc.path


def test_the_lobby_request_has_a_settings_member_for_every_game() -> None:
    members = {f.name for f in lobby_pb2.CreateTableRequest.DESCRIPTOR.fields}
    assert {game.slug for game in rules.games()} <= members
