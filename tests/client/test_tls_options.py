"""The clients' TLS options: plain text unless given a CA file (or the system's roots), for the
SDK, `match-audit` and its ledger client alike. Over a real server: tests/e2e/test_tls.py."""

from __future__ import annotations

import io
from pathlib import Path

import grpc
import pytest

from match_audit import cli as audit_cli
from match_audit.client import LedgerClient
from match_client import client as client_module
from match_client.client import MatchClient, channel_credentials, default_ca


def test_plain_text_unless_a_ca_or_tls_is_asked_for(tmp_path: Path) -> None:
    assert channel_credentials() is None
    assert channel_credentials(None, tls=False) is None
    assert channel_credentials(tls=True) is not None
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")  # read here; checked at the handshake
    assert channel_credentials(ca) is not None
    assert channel_credentials(str(ca)) is not None
    with pytest.raises(FileNotFoundError):
        channel_credentials(tmp_path / "nope.pem")


def test_match_ca_is_the_default_ca(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATCH_CA", raising=False)
    assert default_ca() is None
    monkeypatch.setenv("MATCH_CA", "/etc/match/ca.pem")
    assert default_ca() == "/etc/match/ca.pem"


async def test_the_sdk_keeps_its_channel_options_over_tls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    opened: list[tuple[str, object, object]] = []
    secure_channel = grpc.aio.secure_channel

    def spy(target: str, credentials: object, options: object) -> object:
        opened.append((target, credentials, options))
        return secure_channel(target, credentials, options=options)

    monkeypatch.setattr(grpc.aio, "secure_channel", spy)
    async with MatchClient("127.0.0.1:1", ca_file=ca):
        pass
    async with MatchClient("127.0.0.1:1"):  # plain text: no secure channel
        pass
    ((target, credentials, options),) = opened
    assert target == "127.0.0.1:1" and credentials is not None
    assert options == client_module.CHANNEL_OPTIONS
    with pytest.raises(FileNotFoundError):
        MatchClient("127.0.0.1:1", ca_file=tmp_path / "nope.pem")


def test_ledger_client_reads_its_ca_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        LedgerClient("127.0.0.1:1", ca_file=tmp_path / "nope.pem")
    with LedgerClient("127.0.0.1:1", tls=True):
        pass


def test_match_audit_takes_ca_and_tls_after_every_online_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LEDGER_CA", raising=False)
    for command in ("verify", "replay", "export"):
        a = audit_cli.parser().parse_args([command, "g", "--ca", "ca.pem", "--tls"])
        assert (a.ca, a.tls) == ("ca.pem", True)
        b = audit_cli.parser().parse_args([command, "g"])
        assert (b.ca, b.tls) == (None, False)
    monkeypatch.setenv("LEDGER_CA", "env.pem")
    assert audit_cli.parser().parse_args(["verify", "g"]).ca == "env.pem"


def test_match_audit_names_an_unreadable_ca_file(tmp_path: Path) -> None:
    out = io.StringIO()
    missing = tmp_path / "nope.pem"
    code = audit_cli.main(["verify", "g", "--ca", str(missing)], out, out)
    assert code == audit_cli.USAGE_ERROR
    assert f"match-audit: cannot read the CA file {missing}" in out.getvalue()
