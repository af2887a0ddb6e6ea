"""The ledger's checkpoint signing key: an Ed25519 private key in a PEM file (PKCS#8, mode 0600),
made on first start, and its verifier key written next to it for auditors.

The ledger service (services/ledger) signs its checkpoints with it, and ``python -m
match_deploy.secrets`` makes it for a deployment; the notes it signs are match_audit.note's."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

import structlog
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_audit.note import Signer
from match_bus.secretfiles import SecretFileError, check_private

log = structlog.get_logger()


class KeyFileError(RuntimeError):
    """The key file exists but is not an Ed25519 private key."""


def verifier_path(key_file: Path) -> Path:
    """Where the verifier key goes: ``ledger.key`` -> ``ledger.vkey``."""
    return key_file.with_suffix(".vkey")


def load_or_create(key_file: Path, origin: str) -> Signer:
    """The signer for ``origin`` with the key in ``key_file``, made (0600) if it is missing.
    Writes the verifier key to :func:`verifier_path` on every start.

    Several ledger replicas may start at once with one key file: the key is written to a file of
    its own and linked into place, which only one of them can do, so all of them end up with
    the one key, and none ever reads a half-written file."""
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key = _read(key_file) if key_file.exists() else _create(key_file)
    signer = Signer(origin, key)
    _write_verifier(verifier_path(key_file), str(signer.verifier))
    return signer


def _create(key_file: Path) -> Ed25519PrivateKey:
    """A new key in ``key_file``, or the one another process put there first."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    tmp = key_file.with_name(f".{key_file.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(tmp, key_file)  # fails if the key exists: exactly one process wins
        except FileExistsError:
            return _read(key_file)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(key_file.parent)
    log.info("made a new checkpoint key", path=str(key_file))
    return key


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _read(key_file: Path) -> Ed25519PrivateKey:
    try:
        check_private(key_file)  # a key others may read signs nothing
    except SecretFileError as error:
        raise KeyFileError(str(error)) from None
    try:
        key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    except (ValueError, TypeError) as error:
        raise KeyFileError(f"{key_file} is not an unencrypted PEM private key: {error}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{key_file} is not an Ed25519 key")
    return key


def _write_verifier(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")  # one per writer
    tmp.write_text(text + "\n")
    with contextlib.suppress(OSError):
        tmp.chmod(0o644)
    tmp.replace(path)
