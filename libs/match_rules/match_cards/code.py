"""Game codes, format version 2: ``MM2-PAEA-BCDEFGH`` (docs/dealing.md, "Match Cards game
codes", vectors in docs/vectors/match-cards-code-v2.json).

``MM`` + the format's version (``2``), then four letters of settings, then seven: six of the
short seed and a check letter. Every letter after ``MM`` is from :data:`ALPHABET`, 32 symbols
with none of the confusable ``I``, ``O``, ``0``, ``1``; a symbol's value is its index (5 bits).

- settings: the mode (``P`` pairs, ``T`` triples); the size, ``A``-``D`` indexing the mode's
  sizes (pairs 12 20 30 60, triples 12 18 30 60); the difficulty (``E``, ``M``, ``H``); the
  picture set, ``A``-... indexing :data:`~match_rules.match_cards.settings.PICTURE_SETS`
  (``A`` animals, ``B`` fruit);
- the short seed: 30 bits, big-endian, five per symbol. A new game's short seed is the first
  30 bits of the dealer's 32-byte seed (:func:`short_seed`), and the deal depends on it alone:
  the commitment stays over the full seed (a 30-bit seed could be brute-forced against a
  SHA-256 commitment; 256 bits cannot), and the code is shown only once the game is over;
- the check: Luhn mod 32 over the values of the eleven symbols before it (version included),
  which catches every single mistyped symbol and every swap of two neighbours but for the pair
  of values 0 and 31 (``A`` and ``9``).

Reading a code refuses, each with its own code: not the shape (``code_malformed``), another
version (``code_version_unknown``), a check that does not fit (``code_check_failed``), a size
that does not exist (``code_size_unknown``), another unknown setting letter
(``code_setting_unknown``).
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.errors import Code, RuleError
from match_rules.match_cards.settings import PICTURE_SETS, SIZES, Difficulty, Mode, Settings

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
VERSION = "2"
SEED_BITS = 30
_SEED_SYMBOLS = 6
_MODES = {"P": Mode.PAIRS, "T": Mode.TRIPLES}
_DIFFICULTIES = {"E": Difficulty.EASY, "M": Difficulty.MEDIUM, "H": Difficulty.HARD}
_LENGTH = 14  # MM, version, 4 settings, 6 seed, check; hyphens apart
EXAMPLE = "MM2-PAEA-BCDEFGH"


@dataclass(frozen=True, slots=True)
class GameCode:
    """A code read: the settings it carries (``code`` set to its canonical text) and its seed."""

    settings: Settings
    short_seed: int


def short_seed(seed: bytes) -> int:
    """The code's seed of a game dealt from the dealer's 32-byte ``seed``: its first 30 bits."""
    return int.from_bytes(seed[:4], "big") >> (32 - SEED_BITS)


def _luhn(values: list[int]) -> int:
    """The Luhn mod 32 check symbol's value for ``values``."""
    total, factor = 0, 2
    for value in reversed(values):
        addend = factor * value
        total += addend // 32 + addend % 32
        factor = 3 - factor
    return (32 - total % 32) % 32


def encode(settings: Settings, seed: int) -> str:
    """The code of ``settings`` (its own ``code`` ignored) and the short ``seed``."""
    if not 0 <= seed < 1 << SEED_BITS:
        raise ValueError(f"a code's seed has {SEED_BITS} bits, got {seed}")
    mode = "P" if settings.mode is Mode.PAIRS else "T"
    size = ALPHABET[SIZES[settings.mode].index(settings.cards)]
    difficulty = settings.difficulty.name[0]
    pictures = ALPHABET[[s.name for s in PICTURE_SETS].index(settings.pictures)]
    symbols = [ALPHABET[(seed >> (5 * i)) & 31] for i in reversed(range(_SEED_SYMBOLS))]
    body = VERSION + mode + size + difficulty + pictures + "".join(symbols)
    check = ALPHABET[_luhn([ALPHABET.index(c) for c in body])]
    return f"MM{VERSION}-{body[1:5]}-{body[5:]}{check}"


def _malformed(message: str) -> RuleError:
    return RuleError(Code.CODE_MALFORMED, f"{message}; a game code looks like {EXAMPLE}")


def parse(text: str) -> GameCode:
    """The settings and seed of a typed code (case, spaces and hyphens as typed are forgiven),
    or a RuleError saying what to fix."""
    squeezed = "".join(text.split()).replace("-", "").upper()
    if len(squeezed) != _LENGTH or not squeezed.startswith("MM"):
        raise _malformed(f"{text.strip()!r} is not a game code")
    for place, char in enumerate(squeezed[2:], start=3):
        if char not in ALPHABET:
            hint = " (codes have no I, O, 0 or 1)" if char in "IO01" else ""
            raise _malformed(f"symbol {place} of the code, {char!r}, is not in codes{hint}")
    body = squeezed[2:]
    if body[0] != VERSION:
        raise RuleError(
            Code.CODE_VERSION_UNKNOWN,
            f"this is a version {body[0]} code (MM{body[0]}-...); this server reads "
            f"version {VERSION} codes (MM{VERSION}-...)",
        )
    values = [ALPHABET.index(c) for c in body]
    if _luhn(values[:-1]) != values[-1]:
        raise RuleError(
            Code.CODE_CHECK_FAILED,
            "the code does not check out: a symbol was mistyped or two were swapped; copy it "
            "again from the end-of-game window",
        )
    mode = _MODES.get(body[1])
    if mode is None:
        raise RuleError(
            Code.CODE_SETTING_UNKNOWN,
            f"the code's mode letter is {body[1]!r}: P (pairs) or T (triples) are known",
        )
    sizes = SIZES[mode]
    if values[2] >= len(sizes):
        raise RuleError(
            Code.CODE_SIZE_UNKNOWN,
            f"the code's size letter {body[2]!r} names no board: {mode.value} come in "
            + ", ".join(f"{ALPHABET[i]} ({n} cards)" for i, n in enumerate(sizes)),
        )
    difficulty = _DIFFICULTIES.get(body[3])
    if difficulty is None or values[4] >= len(PICTURE_SETS):
        raise RuleError(
            Code.CODE_SETTING_UNKNOWN,
            f"the code's difficulty {body[3]!r} or picture set {body[4]!r} is unknown: "
            "difficulty E, M or H, pictures "
            + ", ".join(f"{ALPHABET[i]} ({s.name})" for i, s in enumerate(PICTURE_SETS)),
        )
    seed = 0
    for value in values[5:-1]:
        seed = seed << 5 | value
    settings = Settings(mode, sizes[values[2]], difficulty, PICTURE_SETS[values[4]].name)
    canonical = encode(settings, seed)
    return GameCode(Settings(mode, settings.cards, difficulty, settings.pictures, canonical), seed)
