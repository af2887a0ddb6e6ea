"""What every game's deal is made of: the seed (32 bytes, committed to by its SHA-256 before
the game and revealed after it), a byte stream per label keyed by the seed and the deal's version
(:class:`DealStream`), unbiased integers drawn from it (:func:`uniform`), and the strengths a bot
or CPU plays at. Each game's deal is its package's ``deal.py`` (the race's is ``match-deal-v1``).

The algorithm is specified, language-independently, in ``docs/dealing.md``: every label has its
own byte stream, block ``i`` being ``HMAC-SHA256(key=seed, msg=version + "/" + label + "/" +
u32be(i))``; integers in ``[0, n)`` are drawn from 4-byte big-endian words by rejection sampling.

Pure: only ``hashlib`` and ``hmac``; no clock, no I/O, no ``random`` (whose output is not
promised to stay the same across Python versions). Any change to what a stream or a draw
computes needs a new version of every deal that uses it.
"""

from __future__ import annotations

import hashlib
import hmac
from enum import Enum
from typing import Protocol

__all__ = [
    "SEED_BYTES",
    "ByteSource",
    "DealStream",
    "Strength",
    "check_seed",
    "commitment",
    "uniform",
]

SEED_BYTES = 32

_WORD_BYTES = 4
_WORD_SPACE = 1 << 32
_BLOCK_COUNTER_LIMIT = 1 << 32


class Strength(Enum):
    """The bot's strength for a game. The declaration order is the draw order: index 0, 1, 2."""

    WEAK = "weak"
    MEDIUM = "medium"
    STRONG = "strong"


class ByteSource(Protocol):
    """Anything that hands out the next ``size`` bytes of a stream (``io.BytesIO`` qualifies)."""

    def read(self, size: int, /) -> bytes: ...


class DealStream:
    """The byte stream of one label: HMAC-SHA256 in counter mode, keyed by the seed.

    Block ``i`` is ``HMAC-SHA256(seed, version + b"/" + label + b"/" + i.to_bytes(4, "big"))``,
    the version being the deal's (``b"match-deal-v1"`` for the race), and the stream is the
    blocks concatenated, consumed strictly in order.
    """

    __slots__ = ("_buffer", "_counter", "_prefix", "_seed")

    def __init__(self, seed: bytes, label: str, version: str) -> None:
        """``version`` names the deal whose stream this is (another game's deal has its own,
        so that no two games ever read the same bytes from one seed)."""
        check_seed(seed)
        self._seed = seed
        self._prefix = version.encode("ascii") + b"/" + label.encode("ascii") + b"/"
        self._counter = 0
        self._buffer = b""

    def read(self, size: int, /) -> bytes:
        """The next ``size`` bytes of the stream (never fewer: the stream does not end)."""
        if size < 0:
            raise ValueError(f"cannot read a negative number of bytes ({size})")
        while len(self._buffer) < size:
            if self._counter >= _BLOCK_COUNTER_LIMIT:
                raise ValueError("deal stream exhausted: the block counter passed 2**32 - 1")
            message = self._prefix + self._counter.to_bytes(_WORD_BYTES, "big")
            self._buffer += hmac.digest(self._seed, message, "sha256")
            self._counter += 1
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out


def uniform(stream: ByteSource, n: int) -> int:
    """An unbiased integer in ``[0, n)`` for ``1 <= n <= 2**32``, by rejection sampling.

    Reads a 4-byte big-endian word ``x``; with ``limit = 2**32 - (2**32 mod n)`` it returns
    ``x mod n`` if ``x < limit``, and otherwise discards ``x`` and reads the next word.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= _WORD_SPACE:
        raise ValueError(f"uniform() needs an integer n with 1 <= n <= 2**32, got {n!r}")
    limit = _WORD_SPACE - (_WORD_SPACE % n)
    while True:
        word = stream.read(_WORD_BYTES)
        if len(word) != _WORD_BYTES:
            raise ValueError("byte stream ended before uniform() could draw a 4-byte word")
        x = int.from_bytes(word, "big")
        if x < limit:
            return x % n


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: SHA-256 of its 32 bytes, as lowercase hex."""
    check_seed(seed)
    return hashlib.sha256(seed).hexdigest()


def check_seed(seed: object) -> None:
    """Raises ValueError unless ``seed`` is exactly :data:`SEED_BYTES` bytes."""
    if not isinstance(seed, bytes):
        raise ValueError(
            f"a seed must be bytes (exactly {SEED_BYTES} of them), got {type(seed).__name__}"
        )
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed must be exactly {SEED_BYTES} bytes, got {len(seed)}")
