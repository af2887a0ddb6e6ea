"""Game codes, format version 3: ``MM3-PAEA-`` then the dealer's whole 32-byte seed
(docs/dealing.md, "Game codes, format 3", vectors in docs/vectors/match-cards-code-v3.json).

``MM`` + the format's version (``3``) + four symbols of settings, then 53 symbols: 52 carrying
the 256-bit seed and a 4-bit tag, and a check symbol. Every symbol after ``MM`` is from
:data:`ALPHABET`, 32 symbols with none of the confusable ``I``, ``O``, ``0``, ``1``; a symbol's
value is its index (5 bits). Written ``MM3-PAEA-`` then the 53 symbols in groups of five.

- settings: the mode (``P`` pairs, ``T`` triples); the size, ``A``-``D`` indexing the mode's
  sizes (pairs 12 20 30 60, triples 12 18 30 60); the difficulty (``E``, ``M``, ``H``); the
  picture set, ``A``-... indexing :data:`~match_rules.match_cards.settings.PICTURE_SETS`
  (``A`` animals, ``B`` fruit);
- the seed: the 260-bit number ``seed << 4 | tag``, big-endian, five bits per symbol. The deal
  depends on the whole seed, so knowing some cards leaves 2**256 deals to search: a code that
  re-deals a board without a lookup must carry all the entropy of the deal (format 2 carried 30
  bits, which a player could search during play, and is refused);
- the tag: the first four bits of ``SHA-256("match-cards-code-v3" + settings symbols + seed)``;
- the check: Luhn mod 32 over the values of the 57 symbols before it (version included), which
  catches every single mistyped symbol and every swap of two neighbours but for the pair of
  values 0 and 31 (``A`` and ``9``); the tag catches 15 in 16 of the other mistakes.

Reading a code refuses, each with its own code: not ``MM`` then a symbol (``code_malformed``),
another version, format 2 included (``code_version_unknown``), not the shape
(``code_malformed``), a check or tag that does not fit (``code_check_failed``), a size that does
not exist (``code_size_unknown``), another unknown setting letter (``code_setting_unknown``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from match_rules.errors import RuleError
from match_rules.match_cards.errors import MatchCardsCode
from match_rules.match_cards.settings import PICTURE_SETS, SIZES, Difficulty, Mode, Settings

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
VERSION = "3"
SEED_BYTES = 32
TAG_BITS = 4
_SEED_SYMBOLS = (8 * SEED_BYTES + TAG_BITS) // 5  # 52
_GROUP = 5
_MODES = {"P": Mode.PAIRS, "T": Mode.TRIPLES}
_DIFFICULTIES = {"E": Difficulty.EASY, "M": Difficulty.MEDIUM, "H": Difficulty.HARD}
_LENGTH = 2 + 1 + 4 + _SEED_SYMBOLS + 1  # MM, version, 4 settings, seed and tag, check: 60
_TAG_DOMAIN = b"match-cards-code-v3"
EXAMPLE = "MM3-PAEA-BCDEF-...(53 symbols in groups of five)"


@dataclass(frozen=True, slots=True)
class GameCode:
    """A code read: the settings it carries (``code`` set to its canonical text) and the
    dealer's 32-byte seed."""

    settings: Settings
    seed: bytes


def _luhn(values: list[int]) -> int:
    """The Luhn mod 32 check symbol's value for ``values``."""
    total, factor = 0, 2
    for value in reversed(values):
        addend = factor * value
        total += addend // 32 + addend % 32
        factor = 3 - factor
    return (32 - total % 32) % 32


def _tag(settings_symbols: str, seed: bytes) -> int:
    # pragma: no mutate start (equivalent: codecs know "ASCII" as "ascii")
    digest = hashlib.sha256(_TAG_DOMAIN + settings_symbols.encode("ascii") + seed).digest()
    # pragma: no mutate end
    return digest[0] >> (8 - TAG_BITS)


def _settings_symbols(settings: Settings) -> str:
    mode = "P" if settings.mode is Mode.PAIRS else "T"
    size = ALPHABET[SIZES[settings.mode].index(settings.cards)]
    difficulty = settings.difficulty.name[0]
    pictures = ALPHABET[[s.name for s in PICTURE_SETS].index(settings.pictures)]
    return mode + size + difficulty + pictures


def encode(settings: Settings, seed: bytes) -> str:
    """The code of ``settings`` (its own ``code`` ignored) and the dealer's 32-byte ``seed``."""
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a code carries a {SEED_BYTES}-byte seed, got {len(seed)} bytes")
    head = _settings_symbols(settings)
    # pragma: no mutate start (equivalent: from_bytes is big-endian by default)
    number = int.from_bytes(seed, "big") << TAG_BITS | _tag(head, seed)
    # pragma: no mutate end
    symbols = "".join(ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(_SEED_SYMBOLS)))
    body = VERSION + head + symbols
    # pragma: no mutate start (equivalent: the symbols are distinct, so rindex is index)
    tail = symbols + ALPHABET[_luhn([ALPHABET.index(c) for c in body])]
    # pragma: no mutate end
    groups = [tail[i : i + _GROUP] for i in range(0, len(tail), _GROUP)]
    return "-".join([f"MM{VERSION}", head, *groups])


def _malformed(message: str) -> RuleError:
    return RuleError(
        MatchCardsCode.CODE_MALFORMED,
        f"{message}; a game code is MM3-, four letters of settings, then 53 symbols in groups "
        "of five: copy it whole from the end-of-game window",
    )


def parse(text: str) -> GameCode:
    """The settings and seed of a typed code (case, spaces and hyphens as typed are forgiven),
    or a RuleError saying what to fix."""
    squeezed = "".join(text.split()).replace("-", "").upper()
    if len(squeezed) < 3 or not squeezed.startswith("MM"):
        raise _malformed(f"{text.strip()[:20]!r} is not a game code")
    version = squeezed[2]
    if version == "2":
        raise RuleError(
            MatchCardsCode.CODE_VERSION_UNKNOWN,
            "version 2 codes (MM2-...) carried a 30-bit seed, which a player could search "
            "during play for the whole board, so they no longer deal: replay a version 3 code "
            "(MM3-...) shown at the end of a game, or start a new game",
        )
    if version != VERSION:
        raise RuleError(
            MatchCardsCode.CODE_VERSION_UNKNOWN,
            f"this is a version {version} code (MM{version}-...); this server reads "
            f"version {VERSION} codes (MM{VERSION}-...)",
        )
    if len(squeezed) != _LENGTH:
        raise _malformed(f"the code has {len(squeezed) - 3} symbols after MM3, not {_LENGTH - 3}")
    for place, char in enumerate(squeezed[3:], start=4):
        if char not in ALPHABET:
            # pragma: no mutate start (equivalent: X is a symbol, never looked up here)
            hint = " (codes have no I, O, 0 or 1)" if char in "IO01" else ""
            # pragma: no mutate end
            raise _malformed(f"symbol {place} of the code, {char!r}, is not in codes{hint}")
    body = squeezed[2:]
    values = [ALPHABET.index(c) for c in body]  # pragma: no mutate (equivalent: symbols distinct)
    head = body[1:5]
    number = 0
    for value in values[5:-1]:
        number = number << 5 | value
    # pragma: no mutate start (equivalent: to_bytes is big-endian by default)
    seed = (number >> TAG_BITS).to_bytes(SEED_BYTES, "big")
    # pragma: no mutate end
    if _luhn(values[:-1]) != values[-1] or _tag(head, seed) != number & 15:
        raise RuleError(
            MatchCardsCode.CODE_CHECK_FAILED,
            "the code does not check out: a symbol was mistyped or two were swapped; copy it "
            "again from the end-of-game window",
        )
    mode = _MODES.get(head[0])
    if mode is None:
        raise RuleError(
            MatchCardsCode.CODE_SETTING_UNKNOWN,
            f"the code's mode letter is {head[0]!r}: P (pairs) or T (triples) are known",
        )
    sizes = SIZES[mode]
    if values[2] >= len(sizes):
        raise RuleError(
            MatchCardsCode.CODE_SIZE_UNKNOWN,
            f"the code's size letter {head[1]!r} names no board: {mode.value} come in "
            + ", ".join(f"{ALPHABET[i]} ({n} cards)" for i, n in enumerate(sizes)),
        )
    difficulty = _DIFFICULTIES.get(head[2])
    if difficulty is None or values[4] >= len(PICTURE_SETS):
        raise RuleError(
            MatchCardsCode.CODE_SETTING_UNKNOWN,
            f"the code's difficulty {head[2]!r} or picture set {head[3]!r} is unknown: "
            "difficulty E, M or H, pictures "
            + ", ".join(f"{ALPHABET[i]} ({s.name})" for i, s in enumerate(PICTURE_SETS)),
        )
    settings = Settings(mode, sizes[values[2]], difficulty, PICTURE_SETS[values[4]].name)
    canonical = encode(settings, seed)
    return GameCode(Settings(mode, settings.cards, difficulty, settings.pictures, canonical), seed)
