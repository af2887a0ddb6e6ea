"""The player's key: who you are to Match, with nothing to sign up for.

A player is an Ed25519 key pair. ``match`` makes one the first time it needs it and keeps the
private key in ``key.pem`` in the user's config directory: ``$MATCH_CONFIG_DIR`` when set, else
``$XDG_CONFIG_HOME/match``, else ``~/.config/match``. The directory is made owner-only (0700)
and the file is written owner-only (0600), whole or not at all. The player id is derived from
the public key ("k" and 23 hex digits), so the same key is the same player on any computer.

The key is the identity: there is no account, no password and no way to recover it. A key file
that others may read is refused (``chmod 600`` it), and a key file that cannot be read as a key
is an error, never replaced: replacing it would make a new player and lose the old one. ``match
key export`` copies it somewhere safe; copying that file to ``key.pem`` in the config directory
of another computer (mode 0600) plays as the same player there.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_client.programs import runnable
from match_players.identity import SIGN_IN_PREFIX, player_id, sign_in_message

__all__ = [
    "KEY_FILE",
    "SIGN_IN_PREFIX",
    "KeyFileError",
    "PlayerKey",
    "config_dir",
    "export",
    "key_path",
    "load",
    "load_or_create",
    "pem",
    "player_id",
    "public_bytes",
    "sign_in_message",
]

KEY_FILE = "key.pem"


class KeyFileError(Exception):
    """The key file cannot be used as it is: a sentence that says why and what to do."""


def config_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where ``match`` keeps its key (see the module's text)."""
    if env.get("MATCH_CONFIG_DIR"):
        return Path(env["MATCH_CONFIG_DIR"]).expanduser()
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]).expanduser() / "match"
    return Path(env.get("HOME") or Path.home()).expanduser() / ".config" / "match"


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    """The raw 32-byte public key."""
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def pem(key: Ed25519PrivateKey) -> bytes:
    """The private key as PKCS#8 PEM, unencrypted (what ``key.pem`` holds)."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@dataclass(frozen=True, slots=True)
class PlayerKey:
    """A player's key and the file it is kept in."""

    private: Ed25519PrivateKey
    path: Path

    @property
    def public(self) -> bytes:
        return public_bytes(self.private)

    @property
    def player_id(self) -> str:
        return player_id(self.public)

    def sign_in(self, challenge: str) -> bytes:
        """The signature of a sign-in challenge."""
        return self.private.sign(sign_in_message(challenge))


def key_path(directory: Path) -> Path:
    return directory / KEY_FILE


def load(path: Path) -> PlayerKey:
    """The key kept in ``path``. KeyFileError when it is missing, open to others or not a key
    (the file is left as it is)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise KeyFileError(f"no key in {path}") from None
    except OSError as error:
        raise KeyFileError(f"cannot read the key file {path}: {error.strerror}") from None
    with os.fdopen(fd, "rb") as file:
        mode = stat.S_IMODE(os.fstat(file.fileno()).st_mode)
        if mode & 0o077:
            raise KeyFileError(
                f"the key file {path} may be read by other users (mode {mode:04o}), and whoever "
                f"reads it can play as you; it is not used like that. Make it yours alone: "
                f"chmod 600 {path}"
            )
        data = file.read()
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as error:
        raise KeyFileError(_broken(path, str(error).rstrip("."))) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(_broken(path, "it is not an Ed25519 key"))
    return PlayerKey(key, path)


def _broken(path: Path, why: str) -> str:
    return (
        f"the key file {path} is not a usable key ({why}). It is left as it is: it may be the "
        f"only copy of your identity. Put back the copy you exported "
        f"({runnable('match')} key export), or move the file away to start again as a new player"
    )


def load_or_create(directory: Path) -> tuple[PlayerKey, bool]:
    """The key in ``directory``, made (and kept) when there is none; True when it was made now.
    Two processes making one at once keep one key: the first written wins, and the other
    loads it."""
    path = key_path(directory)
    if path.exists() or path.is_symlink():
        return load(path), False
    _private_directory(directory)
    key = Ed25519PrivateKey.generate()
    tmp = directory / f".{KEY_FILE}.{os.getpid()}.tmp"
    _write_private(tmp, pem(key))
    try:
        os.link(tmp, path)  # never over a key that is there (a rename would replace it)
    except FileExistsError:
        return load(path), False
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    _sync_directory(directory)
    return PlayerKey(key, path), True


def export(key: PlayerKey, out: Path | None, stdout: IO[bytes] | None = None) -> None:
    """The key as PEM: to a new file ``out`` (mode 0600; an existing file is not replaced), or
    to ``stdout``. KeyFileError when ``out`` exists or cannot be written."""
    data = pem(key.private)
    if out is None:
        if stdout is None:
            raise ValueError("export needs a file or stdout")
        stdout.write(data)
        stdout.flush()
        return
    try:
        if out.resolve() == key.path.resolve():
            raise KeyFileError(f"{out} is the key file itself: export it somewhere else")
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeyFileError(f"{out} exists: it is not replaced; give another file") from None
    except OSError as error:
        raise KeyFileError(f"cannot write {out}: {error.strerror}") from None
    _write_fd(fd, data)


def _private_directory(directory: Path) -> None:
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):  # not ours to change (e.g. a shared directory)
        if directory.stat().st_mode & 0o077:
            directory.chmod(0o700)


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    _write_fd(fd, data)


def _write_fd(fd: int, data: bytes) -> None:
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
