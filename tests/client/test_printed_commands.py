"""Every command printed for copying works as printed (issue 31, item 8): on a lobby or a ledger
away from the default ports it carries ``--addr`` (and the TLS options), both CLIs take
their connection options before and after the subcommand, and ``match`` and ``match-audit``
are named so that the shell finds them (on PATH, else ``.venv/bin/...``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from match.v1 import players_pb2
from match_audit import cli as audit_cli
from match_client import cli, match_cards, players, scripted, terminal
from match_client.client import MatchClient, match_command
from match_client.programs import runnable
from match_launch.stack import Stack
from services.stack.__main__ import commands


def match_args(line: str) -> Any:
    words = shlex.split(line)
    assert words[0].endswith("match")
    return cli.build_parser().parse_args(words[1:])


def audit_args(line: str) -> Any:
    words = shlex.split(line)
    assert words[0].endswith("match-audit")
    return audit_cli.parser().parse_args(words[1:])


def test_the_match_command_names_the_lobby_unless_it_is_the_default() -> None:
    assert match_command("play --new") == "match play --new"
    assert match_command("play --new", "127.0.0.1:50051") == "match play --new"
    assert (
        match_command("play --new", "127.0.0.1:50151") == "match --addr 127.0.0.1:50151 play --new"
    )
    assert (
        match_command("tables", "h:1", "/tmp/my ca.pem")
        == "match --addr h:1 --ca '/tmp/my ca.pem' tables"
    )
    assert match_command("tables", "h:1", None, tls=True) == "match --addr h:1 --tls tables"
    assert match_command(address="h:1") == "match --addr h:1"
    a = match_args(match_command("play --resume", "h:1", "ca.pem"))
    assert (a.addr, a.ca, a.command) == ("h:1", "ca.pem", "play")


async def test_a_client_prints_commands_that_reach_its_own_lobby() -> None:
    match = runnable("match")
    async with MatchClient("127.0.0.1:50151") as client:
        assert client.command("profile") == f"{match} --addr 127.0.0.1:50151 profile"
        assert client.command() == f"{match} --addr 127.0.0.1:50151"
    async with MatchClient() as client:
        assert client.command("profile") == f"{match} profile"


# --- how a printed command names the program ----------------------------------------------


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An install as ``make install`` makes one: the programs in ``<project>/.venv/bin/``
    beside the Python that runs, and a PATH that finds none of them. Returns the project."""
    project = tmp_path / "project"
    bin_dir = project / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "match", "match-audit"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.chdir(project)
    return project


def test_a_program_not_on_path_is_named_by_the_script_beside_python(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert runnable("match-audit") == ".venv/bin/match-audit"  # from the project
    assert runnable("match") == ".venv/bin/match"
    elsewhere = installed.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert runnable("match-audit") == str(installed / ".venv" / "bin" / "match-audit")
    monkeypatch.chdir(installed / ".venv" / "bin")
    assert runnable("match-audit") == "./match-audit"  # a bare name would be looked up on PATH


def test_a_program_on_path_is_named_by_its_name(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(installed / ".venv" / "bin"))  # the venv activated
    assert runnable("match-audit") == "match-audit"
    assert runnable("match") == "match"


def test_a_path_with_a_space_is_quoted_for_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "my venv" / "bin" / "python"))
    monkeypatch.chdir(tmp_path)
    assert runnable("match") == "'my venv/bin/match'"
    assert shlex.split(runnable("match")) == ["my venv/bin/match"]


async def test_the_printed_commands_name_the_programs_as_the_shell_finds_them(
    installed: Path,
) -> None:
    """The newcomer's case: after ``make install``, without the venv activated, the lines at the
    end of a game and of ``make demo`` start with ``.venv/bin/``, as the README's do."""
    audit = terminal.audit_command("abcdefgh1234", "var/ledger.vkey")
    assert audit == ".venv/bin/match-audit verify abcdefgh1234 --key var/ledger.vkey"
    assert (audit_args(audit).command, audit_args(audit).game) == ("verify", "abcdefgh1234")
    assert scripted.audit_command("abcdefgh1234", {}) == audit
    async with MatchClient("127.0.0.1:50151") as client:
        assert scripted.players_lines("race", True, client.command()) == [
            "see your rating: .venv/bin/match --addr 127.0.0.1:50151 leaderboard --game race",
            "and your statistics: .venv/bin/match --addr 127.0.0.1:50151 profile",
        ]
        resume = client.command("play --resume")
    assert resume == ".venv/bin/match --addr 127.0.0.1:50151 play --resume"
    assert match_args(resume).command == "play"
    # match_command names `match` bare unless told: the stack's start message adds .venv/bin/
    assert match_command("play --new") == "match play --new"


def test_match_cards_replay_command_carries_the_address() -> None:
    t = match_cards.MatchCardsTracker(player="ann")
    t.code = "MM3-PAEA-ABCDE"
    lines = match_cards.end_lines(t, "", "match --addr 127.0.0.1:50151")
    replay = next(line for line in lines if line.startswith("replay it: "))
    assert replay == (
        "replay it: match --addr 127.0.0.1:50151 play --game match-cards --new "
        "--code MM3-PAEA-ABCDE"
    )
    a = match_args(replay.removeprefix("replay it: "))
    assert (a.addr, a.game, a.new, a.code) == (
        "127.0.0.1:50151",
        "match-cards",
        True,
        "MM3-PAEA-ABCDE",
    )


def test_leaderboard_and_demo_lines_carry_the_address() -> None:
    page = players_pb2.GetLeaderboardResponse(
        page=1, pages=2, total=30, unit="ms", boards=["", "level-easy"],
        rows=[players_pb2.LeaderboardRow(rank=1, player_id="k" + "0" * 23, value=1000, games=1)],
    )  # fmt: skip
    lines = players.leaderboard_lines("match-cards", "level-easy", page, None, "match --addr h:9")
    assert (
        "the next: match --addr h:9 leaderboard --game match-cards --board level-easy --page 2"
        in lines[-2]
    )
    assert (
        lines[-1]
        == "other boards: main (match --addr h:9 leaderboard --game match-cards --board NAME)"
    )
    assert scripted.players_lines("race", True, "match --addr h:9") == [
        "see your rating: match --addr h:9 leaderboard --game race",
        "and your statistics: match --addr h:9 profile",
    ]


def test_the_main_board_is_opened_by_the_name_the_footer_gives_it() -> None:
    a = match_args("match leaderboard --game race --board main")
    assert a.board == "main"  # cli.leaderboard asks for "" then


@pytest.mark.parametrize(
    "argv",
    [
        ["--addr", "h:7", "verify", "abcdefgh1234"],
        ["verify", "abcdefgh1234", "--addr", "h:7"],
        ["--addr", "h:7", "replay", "abcdefgh1234"],
        ["replay", "--addr", "h:7", "abcdefgh1234"],
        ["--addr", "h:7", "export", "abcdefgh1234", "-o", "x"],
        ["export", "abcdefgh1234", "--addr", "h:7"],
    ],
)
def test_match_audit_takes_its_connection_options_before_or_after_the_subcommand(
    argv: list[str],
) -> None:
    a = audit_cli.parser().parse_args(argv)
    assert (a.addr, a.game) == ("h:7", "abcdefgh1234")


def test_match_audit_options_keep_their_defaults_and_the_later_one_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LEDGER_ADDR", raising=False)
    monkeypatch.delenv("LEDGER_CA", raising=False)
    a = audit_cli.parser().parse_args(["verify", "abcdefgh1234"])
    assert (a.addr, a.ca, a.tls) == ("127.0.0.1:50052", None, False)
    b = audit_cli.parser().parse_args(["--tls", "--addr", "h:1", "verify", "g", "--addr", "h:2"])
    assert (b.addr, b.tls) == ("h:2", True)
    c = audit_cli.parser().parse_args(["--ca", "ca.pem", "replay", "g"])
    assert c.ca == "ca.pem"
    # and `match` the same way
    d = cli.build_parser().parse_args(["--tls", "--addr", "h:1", "tables", "--addr", "h:2"])
    assert (d.addr, d.tls) == ("h:2", True)


def test_the_stacks_start_message_works_on_other_ports(tmp_path: Path) -> None:
    stack = Stack(tmp_path, lobby_addr="127.0.0.1:50151", ledger_addr="127.0.0.1:50152")
    text = commands(stack, {"MATCH_VAR": "/tmp/match-var"})
    play = text.split("Play: ")[1].split("      ")[0]
    assert play == ".venv/bin/match --addr 127.0.0.1:50151 play --new"
    a = match_args(play)
    assert (a.addr, a.command, a.new) == ("127.0.0.1:50151", "play", True)
    demo_line = text.split("Demo: ")[1].split("\n")[0]
    assert demo_line == (
        "MATCH_ADDR=127.0.0.1:50151 LEDGER_ADDR=127.0.0.1:50152 MATCH_VAR=/tmp/match-var make demo"
    )
    audit = text.split("Audit: ")[1].split("      ")[0]
    b = audit_args(audit.replace("<game>", "abcdefgh1234"))
    assert (b.addr, b.command, b.key) == ("127.0.0.1:50152", "verify", str(stack.verifier_key_file))


def test_the_stacks_start_message_on_the_default_ports_is_short(tmp_path: Path) -> None:
    stack = Stack(tmp_path, lobby_addr="127.0.0.1:50051", ledger_addr="127.0.0.1:50052")
    text = commands(stack, {})
    assert "Play: .venv/bin/match play --new" in text
    assert "Demo: make demo" in text
    assert f"Audit: .venv/bin/match-audit verify <game> --key {stack.verifier_key_file}" in text
