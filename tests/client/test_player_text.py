"""What a player reads in the line mode: a player who is out is told so and never invited
again, standings between boards, plain words, a neutral name, and how to audit the game."""

from __future__ import annotations

import getpass

import grpc  # type: ignore[import-untyped, unused-ignore]
import pytest

from match.v1 import common_pb2, race_pb2
from match_client import cli, scripted, symbols, terminal
from match_client.client import Seat
from match_client.programs import runnable
from match_client.race import play as race_play
from match_client.race import text
from match_client.race.tracker import ViewTracker

RE = race_pb2.RaceEvent


def envelope(n: int, **race: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(event_number=n, race=RE(**race))  # type: ignore[arg-type]


def game(*players: str) -> ViewTracker:
    t = ViewTracker(player="ann")
    t.apply_events([envelope(1, game_started=RE.GameStarted(players=list(players)))])
    return t


def result(player: str, pairs: int, time_ms: int) -> RE.BoardResult:
    return RE.BoardResult(
        player=player, outcome=RE.OUTCOME_BOARD_ENDED, pairs=pairs, found=pairs, time_ms=time_ms
    )


def test_a_player_who_missed_ready_is_told_and_never_invited_again() -> None:
    t = game("ann", "bob")
    lines = race_play.events_lines(
        t,
        [
            envelope(2, ready_opened=RE.ReadyOpened(at=0, board=1, deadline=30_000)),
            envelope(3, player_missed_ready=RE.PlayerMissedReady(at=30_000, board=1, player="ann")),
            envelope(
                4, countdown_started=RE.CountdownStarted(at=30_000, board=1, starts_at=33_000)
            ),
            envelope(5, board_started=RE.BoardStarted(at=33_000, board=1)),
            envelope(
                6, board_ended=RE.BoardEnded(at=153_000, board=1, reason=RE.END_REASON_TIME_CAP)
            ),
            envelope(7, ready_opened=RE.ReadyOpened(at=153_000, board=2, deadline=183_000)),
        ],
    )
    said = "\n".join(lines)
    assert "whoever has not by then is out of the game" in lines[0]  # warned when it opens
    assert lines[1].startswith("you did not press Ready in time and are out of the game")
    assert "board 1: go!" not in said
    assert "board 1 has started for the others (you are out of the game)" in said
    assert "Ready is open for the others" in lines[-1] and "Type r" not in lines[-1]


def test_help_says_what_missing_ready_costs() -> None:
    assert "r       press Ready" in text.HELP and "you are warned 10 seconds before" in text.HELP
    assert "is out of the game" in text.HELP and "t       the time left" in text.HELP


async def test_ready_and_turns_are_not_sent_for_a_player_who_is_out() -> None:
    said: list[str] = []
    seat = Seat("t", "ann", "token", 1)
    g = race_play.Game(object(), seat, said.append, settings=cli.Settings.from_env({}))  # type: ignore[arg-type]
    g.tracker.apply_events(
        [
            envelope(1, game_started=RE.GameStarted(players=["ann", "bob"])),
            envelope(2, ready_opened=RE.ReadyOpened(at=0, board=1, deadline=30_000)),
            envelope(3, player_missed_ready=RE.PlayerMissedReady(at=30_000, board=1, player="ann")),
        ]
    )
    for command in (text.Simple("ready"), text.Turn(3), text.Simple("hint")):
        await g.handle(command)  # the client has nothing to send: no session call is made
    assert said == ["you are out of the game: you can follow it, not play; Ctrl-D leaves"] * 3


def test_the_end_of_a_board_is_said_in_plain_words() -> None:
    assert "grace" not in " ".join(text.END_TEXT.values())
    t = game("ann", "bob")
    ended = envelope(2, board_ended=RE.BoardEnded(board=0, reason=RE.END_REASON_GRACE_OVER))
    assert race_play.events_lines(t, [ended]) == [
        "board 0 ended: the 20 seconds to finish after the first clear are up"
    ]


def test_standings_between_boards_rank_as_the_game_does() -> None:
    t = game("ann", "bob", "cy", "dee")
    t.apply_events(
        [
            envelope(2, player_missed_ready=RE.PlayerMissedReady(at=1, board=1, player="dee")),
            envelope(3, board_revealed=RE.BoardRevealed(board=1, layout=[0] * 20, results=[
                result("ann", 4, 50_000), result("bob", 6, 90_000), result("cy", 4, 50_000),
                result("dee", 0, 120_000),
            ])),
            envelope(4, board_revealed=RE.BoardRevealed(board=2, layout=[0] * 20, results=[
                result("ann", 3, 40_000), result("bob", 1, 30_000), result("cy", 3, 40_000),
                result("dee", 9, 120_000),
            ])),
        ]
    )  # fmt: skip
    assert text.running_lines(t) == [
        "standings after board 2 of 3:",
        "1. you: 7 pairs, 90.0 s",  # equal on pairs and time: the place is shared
        "1. cy: 7 pairs, 90.0 s",
        "3. bob: 7 pairs, 120.0 s",
        "4. dee: 9 pairs, 240.0 s, out of the game",  # out: below everybody who stayed
    ]
    assert text.scores_lines(t)[0] == "standings after board 2 of 3:"  # `s` between boards


def test_symbols_have_distinct_short_names_and_an_emoji_each() -> None:
    assert len(set(symbols.NAMES)) == len(symbols.NAMES) == 25
    assert len(set(symbols.EMOJI)) == 25
    assert symbols.name(5) == "fish" and symbols.name(99) == "symbol 99"
    assert symbols.terminal_shows_emoji({"TERM": "xterm-256color"}, "utf-8")
    assert not symbols.terminal_shows_emoji({"TERM": "linux"}, "utf-8")
    assert not symbols.terminal_shows_emoji({"TERM": "xterm"}, "ascii")
    assert not symbols.terminal_shows_emoji({"TERM": "xterm", "MATCH_EMOJI": "0"}, "utf-8")


def test_the_default_name_is_neutral_never_the_login_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(getpass, "getuser", lambda: "root")
    a = cli.build_parser().parse_args(["play", "--new"])
    name = cli.display_name(a)
    assert name.startswith("Guest ") and "root" not in name
    assert cli.display_name(a, ask=lambda prompt: "  Ann \n") == "Ann"
    assert cli.display_name(a, ask=lambda prompt: "").startswith("Guest ")
    named = cli.build_parser().parse_args(["play", "--new", "--name", "Bo"])
    assert cli.display_name(named, ask=lambda prompt: "ignored") == "Bo"


def test_plain_lines_when_not_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = cli.Settings.from_env({})
    a = cli.build_parser().parse_args(["play", "--new"])
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert cli.use_plain(a, settings)  # piped: the line mode
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert not cli.use_plain(a, settings)  # a terminal: the full-screen view
    assert cli.use_plain(cli.build_parser().parse_args(["play", "--new", "--plain"]), settings)
    assert cli.use_plain(a, cli.Settings.from_env({"MATCH_PLAIN": "1"}))


def test_the_audit_command_is_printed_whole() -> None:
    audit = runnable("match-audit")
    assert terminal.audit_command("abc", "var/ledger.vkey") == (
        f"{audit} verify abc --key var/ledger.vkey"
    )
    settings = cli.Settings.from_env({"MATCH_VAR": "/srv/m", "LEDGER_ADDR": "h:1"})
    assert (settings.ledger_key, settings.ledger_addr) == ("/srv/m/ledger.vkey", "h:1")
    assert terminal.audit_command("abc", settings.ledger_key, settings.ledger_addr) == (
        f"{audit} verify abc --key /srv/m/ledger.vkey --addr h:1"
    )


def test_the_demo_ends_with_the_audit_command() -> None:
    audit = runnable("match-audit")
    assert scripted.audit_command("abc", {}) == f"{audit} verify abc --key var/ledger.vkey"
    env = {"MATCH_VAR": "/tmp/v", "LEDGER_ADDR": "127.0.0.1:9"}
    assert scripted.audit_command("abc", env) == (
        f"{audit} verify abc --key /tmp/v/ledger.vkey --addr 127.0.0.1:9"
    )


async def test_a_lobby_nobody_runs_is_said_with_how_to_start_one() -> None:
    """Real gRPC to a port nothing listens on (the stack not started): the error says so and
    names `make run`; a lobby that answers with UNAVAILABLE of its own gets no such hint."""
    from match_client.client import MatchClient
    from match_launch.natsserver import free_port

    async with MatchClient(f"127.0.0.1:{free_port()}", timeout=5) as client:
        with pytest.raises(Exception) as refused:
            await client.list_tables()
    said = terminal.describe_error(refused.value)
    assert said.startswith("cannot reach the server (") and "Connection refused" in said, said
    assert said.endswith(terminal.NOT_RUNNING), said
    busy = grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(),
        details="the referee is not answering; try again",
    )  # fmt: skip
    assert terminal.describe_error(busy) == (
        "cannot reach the server (the referee is not answering; try again)"
    )
