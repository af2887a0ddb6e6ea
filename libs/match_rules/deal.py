"""The deal of Match, version ``match-deal-v1``: three boards and the bot's strength from a seed.

The algorithm is specified, language-independently, in ``docs/dealing.md``; test vectors are in
``docs/vectors/deal-v1.json``. In short:

* every label (``board/1``, ``board/2``, ``board/3``, ``bot-strength``) has its own byte stream,
  block ``i`` being ``HMAC-SHA256(key=seed, msg=b"match-deal-v1/" + label + b"/" + u32be(i))``;
* integers in ``[0, n)`` are drawn from 4-byte big-endian words by rejection sampling;
* a board picks 10 of the 25 symbols by a partial Fisher-Yates, lays each twice and shuffles the
  20 tiles with a full Fisher-Yates.

Pure: only ``hashlib`` and ``hmac``; no clock, no I/O, no ``random`` (whose output is not
promised to stay the same across Python versions). Any change to what this module computes needs
a new :data:`DEAL_VERSION`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

__all__ = [
    "BOARDS",
    "BOT_STRENGTH_LABEL",
    "DEAL_VERSION",
    "PAIRS",
    "SEED_BYTES",
    "SYMBOLS",
    "TILES",
    "ByteSource",
    "Deal",
    "DealStream",
    "Strength",
    "board_from_stream",
    "board_label",
    "commitment",
    "deal",
    "deal_board",
    "draw_strength",
    "strength_from_stream",
    "uniform",
]

DEAL_VERSION = "match-deal-v1"
SEED_BYTES = 32

BOARDS = 3
TILES = 20  # 4 across, 5 down, numbered 1..20 row-major
PAIRS = TILES // 2
SYMBOLS = 25  # symbols are 0..24

_WORD_BYTES = 4
_WORD_SPACE = 1 << 32
_BLOCK_COUNTER_LIMIT = 1 << 32
BOT_STRENGTH_LABEL = "bot-strength"


class Strength(Enum):
    """The bot's strength for a game. The declaration order is the draw order: index 0, 1, 2."""

    WEAK = "weak"
    MEDIUM = "medium"
    STRONG = "strong"


@dataclass(frozen=True, slots=True)
class Deal:
    """Everything dealt from one seed.

    ``boards[b - 1][t - 1]`` is the symbol (0..24) of tile ``t`` (1..20) on board ``b`` (1..3).
    ``version`` names the algorithm that produced it and is logged with every deal.
    """

    version: str
    boards: tuple[tuple[int, ...], ...]
    bot_strength: Strength


class ByteSource(Protocol):
    """Anything that hands out the next ``size`` bytes of a stream (``io.BytesIO`` qualifies)."""

    def read(self, size: int, /) -> bytes: ...


class DealStream:
    """The byte stream of one label: HMAC-SHA256 in counter mode, keyed by the seed.

    Block ``i`` is ``HMAC-SHA256(seed, version + b"/" + label + b"/" + i.to_bytes(4, "big"))``,
    the version being ``b"match-deal-v1"`` for the race
    and the stream is the blocks concatenated, consumed strictly in order.
    """

    __slots__ = ("_buffer", "_counter", "_prefix", "_seed")

    def __init__(self, seed: bytes, label: str, version: str = DEAL_VERSION) -> None:
        """``version`` names the deal whose stream this is (another game's deal has its own,
        so that no two games ever read the same bytes from one seed)."""
        _check_seed(seed)
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


def board_label(board: int) -> str:
    """The stream label of board ``board`` (1..3): ``"board/1"``, ``"board/2"``, ``"board/3"``."""
    if isinstance(board, bool) or not isinstance(board, int) or not 1 <= board <= BOARDS:
        raise ValueError(f"board must be an integer in 1..{BOARDS}, got {board!r}")
    return f"board/{board}"


def board_from_stream(stream: ByteSource) -> tuple[int, ...]:
    """The 20 symbols of one board, tile 1 first, drawn from that board's stream.

    Draws 10 distinct symbols with a partial Fisher-Yates over ``[0..24]``, lays each twice in
    the order drawn, then shuffles the 20 tiles with Fisher-Yates (from the last position down).
    """
    symbols = list(range(SYMBOLS))
    for i in range(PAIRS):
        j = i + uniform(stream, SYMBOLS - i)
        symbols[i], symbols[j] = symbols[j], symbols[i]
    tiles = [symbol for symbol in symbols[:PAIRS] for _ in range(2)]
    for i in range(TILES - 1, 0, -1):
        j = uniform(stream, i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tuple(tiles)


def strength_from_stream(stream: ByteSource) -> Strength:
    """The bot's strength: ``uniform(3)`` indexes ``(WEAK, MEDIUM, STRONG)``."""
    strengths = tuple(Strength)
    return strengths[uniform(stream, len(strengths))]


def deal_board(seed: bytes, board: int) -> tuple[int, ...]:
    """The 20 symbols of board ``board`` (1..3), tile 1 first (stream label ``board/<b>``)."""
    return board_from_stream(DealStream(seed, board_label(board)))


def draw_strength(seed: bytes) -> Strength:
    """The bot's strength for the game dealt from ``seed`` (stream label ``bot-strength``)."""
    return strength_from_stream(DealStream(seed, BOT_STRENGTH_LABEL))


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: SHA-256 of its 32 bytes, as lowercase hex."""
    _check_seed(seed)
    return hashlib.sha256(seed).hexdigest()


def deal(seed: bytes) -> Deal:
    """Deal a whole game of Match from a 32-byte seed (``match-deal-v1``)."""
    _check_seed(seed)
    boards = tuple(deal_board(seed, board) for board in range(1, BOARDS + 1))
    return Deal(version=DEAL_VERSION, boards=boards, bot_strength=draw_strength(seed))


def _check_seed(seed: object) -> None:
    if not isinstance(seed, bytes):
        raise ValueError(
            f"a seed must be bytes (exactly {SEED_BYTES} of them), got {type(seed).__name__}"
        )
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed must be exactly {SEED_BYTES} bytes, got {len(seed)}")
