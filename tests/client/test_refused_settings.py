"""A new table's settings refused by the lobby are told by the options the person typed
(``--ready-window 5``), not only by the API's field and unit (``race.ready_window_ms ... 5000``).

The refusals here are the lobby's own: its CreateTable check (services.lobby.validation) run on
the request the client would send, so the client's table of options can be held against the
lobby's real messages and codes without copying its rules."""

from __future__ import annotations

import argparse

import grpc  # type: ignore[import-untyped]
import pytest
from google.protobuf.message import Message

from match.v1 import common_pb2, lobby_pb2
from match_client import cli, registry
from match_client.client import settings_member
from match_rules import registry as rules
from services.lobby import validation
from services.lobby.errors import ApiError


def play(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(["play", "--new", *argv])


def refusal(settings: Message) -> grpc.aio.AioRpcError:
    """What the lobby answers a CreateTable with these settings, as the client receives it."""
    member = settings_member(settings)
    game = rules.by_slug(member)
    request = lobby_pb2.CreateTableRequest(
        game_kind=game.kind,  # type: ignore[arg-type]
        seats=game.min_seats,
        visibility=common_pb2.VISIBILITY_OPEN,
        display_name="Ann",
    )
    getattr(request, member).CopyFrom(settings)
    with pytest.raises(ApiError) as refused:
        validation.create_table(request)
    error = refused.value
    return grpc.aio.AioRpcError(
        error.code, grpc.aio.Metadata(), grpc.aio.Metadata(*error.trailing_metadata), error.message
    )


def told(*argv: str) -> str | None:
    """The line ``match play --new ARGV`` prints when the lobby refuses its settings."""
    args = play(*argv)
    game = registry.by_name(args.game)
    settings = game.new_settings(args)
    return game.refused_settings(args, settings, refusal(settings))


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (("--ready-window", "5"), "--ready-window 5 (sent as race.ready_window_ms = 5000): "),
        (("--ready-window", "2.5"), "--ready-window 2.5 (sent as race.ready_window_ms = 2500): "),
        (("--hints", "50"), "--hints 50 (sent as race.hints_per_board = 50): "),
        (
            ("--game", "concentration", "--turn-limit", "45"),
            "--turn-limit 45 (sent as concentration.turn_limit_ms = 45000): ",
        ),
        (
            ("--game", "concentration", "--cards", "53"),
            "--cards 53 (sent as concentration.cards = 53): ",
        ),
        (
            ("--game", "concentration", "--jokers"),
            "--jokers (sent as concentration.jokers = true): ",
        ),
        (
            ("--game", "match-5", "--writing-seconds", "5", "--vote-seconds", "45"),
            "--writing-seconds 5 (sent as match_five.writing_seconds = 5): ",
        ),
        (
            ("--game", "match-cards", "--triples", "--cards", "20"),
            "--triples (sent as match_cards.mode = MODE_TRIPLES), "
            "--cards 20 (sent as match_cards.cards = 20): ",
        ),
    ],
)
def test_a_refused_setting_is_told_by_the_option_typed(argv: tuple[str, ...], start: str) -> None:
    line = told(*argv)
    assert line is not None and line.startswith(start), line
    assert line.count(" (sent as ") == start.count(" (sent as ")  # only the options refused


def test_the_lobbys_message_and_code_follow_the_options() -> None:
    args = play("--hints", "50")
    settings = registry.by_name("race").new_settings(args)
    err = refusal(settings)
    line = registry.by_name("race").refused_settings(args, settings, err)
    sent = "--hints 50 (sent as race.hints_per_board = 50)"
    assert line == f"{sent}: {err.details()} (invalid_hints)"


def test_a_message_that_names_no_field_of_an_option_given_is_left_as_it_came() -> None:
    race = registry.by_name("race")
    args = play("--hints", "2")  # --ready-window not given: the field is the default's
    settings = race.new_settings(args)

    def refused(message: str, code: str = "") -> grpc.aio.AioRpcError:
        trailers = grpc.aio.Metadata(("match-refusal-code", code)) if code else grpc.aio.Metadata()
        return grpc.aio.AioRpcError(
            grpc.StatusCode.INVALID_ARGUMENT, grpc.aio.Metadata(), trailers, message
        )

    assert race.refused_settings(args, settings, refused("seats must be 2 to 4, got 5")) is None
    window = "race.ready_window_ms must be 10000 to 120000, got 1"
    assert race.refused_settings(args, settings, refused(window, "invalid_ready_window")) is None
    # A one-word field is named only with its prefix: "hints" alone is not the field.
    assert race.refused_settings(args, settings, refused("too many hints")) is None
    other = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "hints_per_board"
    )
    assert race.refused_settings(args, settings, other) is None
    assert race.refused_settings(args, settings, ValueError("hints_per_board")) is None


def test_a_one_word_field_is_named_with_its_prefix() -> None:
    cards = registry.by_name("concentration")
    args = play("--game", "concentration", "--cards", "53")
    settings = cards.new_settings(args)
    named = grpc.aio.AioRpcError(
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.aio.Metadata(),
        grpc.aio.Metadata(),
        "concentration.cards must be 52, 36 or 24",
    )
    assert (cards.refused_settings(args, settings, named) or "").startswith(
        "--cards 53 (sent as concentration.cards = 53): concentration.cards must be"
    )


def test_every_options_table_names_fields_and_options_that_exist() -> None:
    """The tables cannot drift: each field is one of the game's settings, each option is one
    ``match play`` takes and the game counts as its own (``given``) or shares with another."""
    parser = cli.command_parser(cli.build_parser(), "play")
    options = {flag for action in parser._actions for flag in action.option_strings}
    shared = {flag: names for c in registry.clients() for flag, names in c.shared.items()}
    args = play()
    for game in registry.clients():
        fields = game.new_settings(args).DESCRIPTOR.fields_by_name
        for source in game.made_from:
            assert source.field in fields, (game.name, source.field)
            for flag in source.flags:
                assert flag in options, (game.name, flag)
                assert flag in game.given(args) or game.name in shared.get(flag, ()), flag
