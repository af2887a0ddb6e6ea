"""TLS on the two gRPC servers: the settings are read and checked once at start-up (both files or
neither, the key its owner's only, the key the certificate's), plain text warns off loopback,
and the audit API over TLS answers only a client that trusts its CA."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_audit.client import LedgerClient, LedgerError
from match_audit.note import Signer
from match_launch.natsserver import free_port
from services.bot.config import BotConfig
from services.bot.config import ConfigError as BotConfigError
from services.ledger.service import LedgerConfig, serve_audit
from services.ledger.store import Store
from services.lobby.config import ConfigError, LobbyConfig
from services.tls import (
    ServerTls,
    TlsConfigError,
    is_loopback,
    plaintext_warning,
    server_tls,
)
from tests.certs import Pki, make_pki

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return make_pki(tmp_path / "pki")


def tls_env(prefix: str, pki: Pki) -> dict[str, str]:
    return {f"{prefix}_TLS_CERT": str(pki.cert), f"{prefix}_TLS_KEY": str(pki.key)}


# --- the settings ------------------------------------------------------------------------------


def test_without_certificate_and_key_both_servers_speak_plain_text() -> None:
    assert server_tls({}, "LOBBY") is None
    assert LobbyConfig.from_env({}).tls is None
    assert LedgerConfig.from_env({}).tls is None


def test_a_certificate_and_its_key_are_read_once_at_start(pki: Pki) -> None:
    lobby = LobbyConfig.from_env(tls_env("LOBBY", pki)).tls
    ledger = LedgerConfig.from_env(tls_env("LEDGER", pki)).tls
    assert lobby is not None and ledger is not None
    assert (lobby.cert_file, lobby.key_file) == (pki.cert, pki.key)
    assert lobby.cert_chain == pki.cert.read_bytes()
    assert lobby.private_key == pki.key.read_bytes()
    assert lobby.not_after[:4].isdigit()  # ISO 8601, for the start-up log
    assert "PRIVATE KEY" not in repr(lobby)  # never in a log line
    assert ledger == lobby


@pytest.mark.parametrize("prefix", ["LOBBY", "LEDGER"])
@pytest.mark.parametrize("given", ["CERT", "KEY"])
def test_a_certificate_without_its_key_or_a_key_without_its_certificate_is_refused(
    pki: Pki, prefix: str, given: str
) -> None:
    env = {f"{prefix}_TLS_{given}": str(pki.cert if given == "CERT" else pki.key)}
    missing = f"{prefix}_TLS_{'KEY' if given == 'CERT' else 'CERT'}"
    words = f"{prefix}_TLS_{given} is set but {missing} is not: give both"
    load = LobbyConfig.from_env if prefix == "LOBBY" else LedgerConfig.from_env
    with pytest.raises(ConfigError if prefix == "LOBBY" else TlsConfigError, match=words):
        load(env)


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o644])
def test_a_key_other_users_can_read_is_refused_with_the_fix(pki: Pki, mode: int) -> None:
    pki.key.chmod(mode)
    with pytest.raises(TlsConfigError) as refused:
        server_tls(tls_env("LEDGER", pki), "LEDGER")
    message = str(refused.value)
    assert f"LEDGER_TLS_KEY: secret file {pki.key} is open to others (mode {mode:04o})" in message
    assert f"chmod 600 {pki.key}" in message
    with pytest.raises(ConfigError, match="chmod 600"):
        LobbyConfig.from_env(tls_env("LOBBY", pki))


def test_a_key_readable_by_its_owner_only_is_taken(pki: Pki) -> None:
    pki.key.chmod(0o400)
    assert server_tls(tls_env("LOBBY", pki), "LOBBY") is not None


def test_a_missing_file_is_named(pki: Pki, tmp_path: Path) -> None:
    env = {**tls_env("LOBBY", pki), "LOBBY_TLS_CERT": str(tmp_path / "nope.pem")}
    with pytest.raises(TlsConfigError, match=r"LOBBY_TLS_CERT=.*nope\.pem: cannot read it"):
        server_tls(env, "LOBBY")
    env = {**tls_env("LOBBY", pki), "LOBBY_TLS_KEY": str(tmp_path / "nope.key")}
    with pytest.raises(
        TlsConfigError, match=r"LOBBY_TLS_KEY: secret file .*nope\.key does not exist"
    ):
        server_tls(env, "LOBBY")


def test_files_that_are_not_a_certificate_and_its_key_are_refused(pki: Pki, tmp_path: Path) -> None:
    swapped = {"LOBBY_TLS_CERT": str(pki.key), "LOBBY_TLS_KEY": str(pki.key)}
    with pytest.raises(TlsConfigError, match="is not a PEM certificate"):
        server_tls(swapped, "LOBBY")
    not_a_key = tmp_path / "ca-as-key.pem"
    not_a_key.write_bytes(pki.ca.read_bytes())
    not_a_key.chmod(0o600)
    with pytest.raises(TlsConfigError, match="is not an unencrypted PEM private key"):
        server_tls({**tls_env("LOBBY", pki), "LOBBY_TLS_KEY": str(not_a_key)}, "LOBBY")
    other = make_pki(tmp_path / "other")
    mixed = {"LOBBY_TLS_CERT": str(pki.cert), "LOBBY_TLS_KEY": str(other.key)}
    with pytest.raises(TlsConfigError, match="is not the key of the certificate in"):
        server_tls(mixed, "LOBBY")


@pytest.mark.parametrize("service", ["lobby", "ledger"])
def test_the_services_refuse_to_start_and_say_why(pki: Pki, tmp_path: Path, service: str) -> None:
    """The real processes: the lobby with a certificate and no key, the ledger with a key
    its group may read. Each stops before connecting to anything (NATS_URL leads nowhere)."""
    if service == "lobby":
        settings = {"LOBBY_TLS_CERT": str(pki.cert)}
    else:
        settings = tls_env("LEDGER", pki)
        pki.key.chmod(0o640)
    done = subprocess.run(
        [sys.executable, "-m", f"services.{service}"],
        env={
            **os.environ,
            "NATS_URL": "nats://127.0.0.1:1",
            "METRICS_PORT": "0",
            "LEDGER_DB": str(tmp_path / "ledger.sqlite3"),
            **settings,
        },
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    if service == "lobby":
        assert "lobby: LOBBY_TLS_CERT is set but LOBBY_TLS_KEY is not" in done.stderr
    else:
        assert f"ledger: LEDGER_TLS_KEY: secret file {pki.key} is open to others" in done.stderr
        assert f"chmod 600 {pki.key}" in done.stderr
    assert "Traceback" not in done.stderr


# --- plain text off loopback -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("addr", "loopback"),
    [
        ("127.0.0.1:50051", True),
        ("127.1.2.3:50051", True),
        ("localhost:50051", True),
        ("LOCALHOST:50051", True),
        ("[::1]:50051", True),
        ("unix:/run/match/lobby.sock", True),
        ("0.0.0.0:50051", False),
        ("[::]:50051", False),
        (":50051", False),
        ("10.0.0.5:50051", False),
        ("lobby.example.org:50051", False),
        ("128.0.0.1:50051", False),
    ],
)
def test_loopback_is_127_0_0_0_8_ipv6_1_localhost_and_unix_sockets(
    addr: str, loopback: bool
) -> None:
    assert is_loopback(addr) is loopback


def test_plain_text_off_loopback_warns_and_says_how_to_turn_tls_on(pki: Pki) -> None:
    warning = plaintext_warning("0.0.0.0:50051", None, "LOBBY")
    assert warning is not None
    assert "0.0.0.0:50051 is not a loopback address" in warning
    assert "player tokens included" in warning and "plain text" in warning
    assert "set LOBBY_TLS_CERT and LOBBY_TLS_KEY" in warning
    ledger = plaintext_warning("10.0.0.5:50052", None, "LEDGER")
    assert ledger is not None and "LEDGER_TLS_CERT and LEDGER_TLS_KEY" in ledger


def test_no_warning_on_loopback_or_with_tls(pki: Pki) -> None:
    tls = server_tls(tls_env("LOBBY", pki), "LOBBY")
    assert plaintext_warning("127.0.0.1:50051", None, "LOBBY") is None
    assert plaintext_warning("0.0.0.0:50051", tls, "LOBBY") is None


# --- the audit API over TLS, in process --------------------------------------------------------


def signer() -> Signer:
    return Signer("test.local/ledger", Ed25519PrivateKey.generate())


async def test_the_audit_api_over_tls_answers_only_who_trusts_its_ca(
    pki: Pki, tmp_path: Path
) -> None:
    tls = server_tls(tls_env("LEDGER", pki), "LEDGER")
    assert isinstance(tls, ServerTls)
    key = signer()
    store = Store.open(tmp_path / "ledger.db", key)
    addr = f"127.0.0.1:{free_port()}"
    stop = await serve_audit(store, addr, str(key.verifier), tls=tls)

    def ask(**options: object) -> str:
        with LedgerClient(addr, timeout=5, **options) as client:  # type: ignore[arg-type]
            return client.verifier_key()

    try:
        assert await asyncio.to_thread(ask, ca_file=pki.ca) == str(key.verifier)
        assert await asyncio.to_thread(ask, ca_file=str(pki.ca)) == str(key.verifier)
        for options in ({}, {"ca_file": pki.other_ca}, {"tls": True}):
            with pytest.raises(LedgerError) as failed:
                await asyncio.to_thread(ask, **options)
            assert failed.value.code == "UNAVAILABLE", options
    finally:
        await stop()
        store.close()


# --- the bot, a client of the lobby ------------------------------------------------------------


def test_the_bot_verifies_the_lobby_with_match_ca(
    pki: Pki, tmp_path: Path, bot_key: dict[str, str]
) -> None:
    base = bot_key
    assert BotConfig.from_env(base).lobby_ca is None
    assert BotConfig.from_env({**base, "MATCH_CA": str(pki.ca)}).lobby_ca == pki.ca
    with pytest.raises(BotConfigError, match=r"MATCH_CA=.*cannot be read"):
        BotConfig.from_env({**base, "MATCH_CA": str(tmp_path / "nope.pem")})
