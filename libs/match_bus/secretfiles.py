"""Secrets at rest: files readable by their owner only, made that way, refused otherwise.

The token secret, the bot key, the ledger's signing key and the NATS identities are files.
:func:`write_secret` creates one with mode 0600 from the first byte (never a moment readable by
others); :func:`read_secret` refuses one that its group or others may read or write, with a
message that says how to fix it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class SecretFileError(RuntimeError):
    """A secret file is missing, unreadable, or open to others."""


def check_private(path: Path) -> None:
    """Raise SecretFileError unless ``path`` is a file only its owner may read or write."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise SecretFileError(f"secret file {path} does not exist") from None
    if not stat.S_ISREG(info.st_mode):
        raise SecretFileError(f"secret file {path} is not a regular file")
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise SecretFileError(
            f"secret file {path} is open to others (mode {mode:04o}); "
            f"make it private with: chmod 600 {path}"
        )


def read_secret(path: Path) -> bytes:
    """The bytes of secret file ``path``, after :func:`check_private`."""
    check_private(path)
    return path.read_bytes()


def write_secret(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file ``path`` with mode 0600 (fails if it exists)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
