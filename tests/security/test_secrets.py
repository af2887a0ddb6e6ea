"""Secrets at rest: made readable by their owner only, and refused at start when others may
read them. The token secret, the bot key, the ledger's signing key and the NATS identities."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from match_audit import keys
from match_bus import access
from match_bus.access import Identities
from match_bus.secretfiles import SecretFileError, read_secret, write_secret
from match_launch.stack import Stack
from services.lobby.config import ConfigError, LobbyConfig
from tests.refused import refused_at_start


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_secret_is_made_private_and_a_shared_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    write_secret(path, b"x")
    assert mode(path) == 0o600 and read_secret(path) == b"x"
    with pytest.raises(FileExistsError):
        write_secret(path, b"y")  # never overwritten
    for shared in (0o640, 0o604, 0o660):
        path.chmod(shared)
        with pytest.raises(SecretFileError, match=f"chmod 600 {path}"):
            read_secret(path)
    with pytest.raises(SecretFileError, match="does not exist"):
        read_secret(tmp_path / "missing")


def test_identities_are_made_once_and_private(tmp_path: Path) -> None:
    ids = Identities(tmp_path / "secrets").ensure()
    assert mode(ids.folder) == 0o700
    for name in access.PRINCIPALS:
        assert mode(ids.seed_file(name)) == 0o600
        assert ids.public_key(name).startswith("U")
    keys_before = {n: ids.public_key(n) for n in access.PRINCIPALS}
    Identities(tmp_path / "secrets").ensure()
    assert {n: ids.public_key(n) for n in access.PRINCIPALS} == keys_before
    assert len(set(keys_before.values())) == len(access.PRINCIPALS)  # one identity each


def test_a_stack_makes_every_secret_private(tmp_path: Path) -> None:
    stack = Stack(tmp_path / "stack", nats_url="nats://127.0.0.1:1")  # not started
    folder = stack.workdir / "secrets"
    modes = {f.name: mode(f) for f in folder.iterdir()}
    assert mode(folder) == 0o700
    assert set(modes.values()) == {0o600}, modes
    assert {"token.secret", "bot.key", "nats-admin.nk", "nats-referee.nk"} <= set(modes)
    assert stack.service_env("lobby")["MATCH_TOKEN_SECRET_FILE"] == str(stack.token_secret_file)
    assert "MATCH_TOKEN_SECRET" not in stack.service_env("lobby")  # no secret in the environment


def test_the_lobby_refuses_a_token_secret_others_may_read(tmp_path: Path) -> None:
    path = tmp_path / "token.secret"
    write_secret(path, os.urandom(32).hex().encode())
    assert len(LobbyConfig.from_env({"MATCH_TOKEN_SECRET_FILE": str(path)}).token_secret) == 32
    path.chmod(0o644)
    with pytest.raises(ConfigError, match="open to others"):
        LobbyConfig.from_env({"MATCH_TOKEN_SECRET_FILE": str(path)})


def test_the_lobby_refuses_a_short_or_garbled_token_secret(tmp_path: Path) -> None:
    short = tmp_path / "short"
    write_secret(short, b"abcd")
    with pytest.raises(ConfigError, match="at least 16 bytes"):
        LobbyConfig.from_env({"MATCH_TOKEN_SECRET_FILE": str(short)})
    garbled = tmp_path / "garbled"
    write_secret(garbled, b"not hex at all")
    with pytest.raises(ConfigError, match="must hold hex"):
        LobbyConfig.from_env({"MATCH_TOKEN_SECRET_FILE": str(garbled)})


def test_the_ledger_refuses_a_signing_key_others_may_read(tmp_path: Path) -> None:
    key_file = tmp_path / "ledger.key"
    keys.load_or_create(key_file, "test")
    assert mode(key_file) == 0o600
    key_file.chmod(0o640)
    with pytest.raises(keys.KeyFileError, match="chmod 600"):
        keys.load_or_create(key_file, "test")


@pytest.mark.parametrize("service", ["dealer", "ledger"])
def test_a_service_refuses_to_start_with_a_shared_nats_identity(
    tmp_path: Path, service: str
) -> None:
    ids = Identities(tmp_path / "secrets").ensure()
    seed = ids.seed_file(service)
    seed.chmod(0o644)
    settings = {"NATS_NKEY_FILE": str(seed), "LEDGER_DB": str(tmp_path / "ledger.sqlite3")}
    assert f"chmod 600 {seed}" in refused_at_start(service, settings)
