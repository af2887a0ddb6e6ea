"""The deal of Match, the race, version ``match-deal-v1``: three boards and the bot's strength
from a seed.

The algorithm is specified, language-independently, in ``docs/dealing.md``; test vectors are in
``docs/vectors/match-deal-v1.json``. In short:

* every label (``board/1``, ``board/2``, ``board/3``, ``bot-strength``) has its own byte stream
  (:class:`match_rules.deal.DealStream` with this version);
* integers in ``[0, n)`` are drawn by :func:`match_rules.deal.uniform`;
* a board picks 10 of the 25 symbols by a partial Fisher-Yates, lays each twice and shuffles the
  20 tiles with a full Fisher-Yates.

Any change to what this module computes needs a new :data:`DEAL_VERSION`.
"""

from __future__ import annotations

from dataclasses import dataclass

from match_rules.deal import ByteSource, DealStream, Strength, check_seed, uniform
from match_rules.race.settings import BOARDS, PAIRS, SYMBOLS, TILES

DEAL_VERSION = "match-deal-v1"
BOT_STRENGTH_LABEL = "bot-strength"


@dataclass(frozen=True, slots=True)
class Deal:
    """Everything dealt from one seed.

    ``boards[b - 1][t - 1]`` is the symbol (0..24) of tile ``t`` (1..20) on board ``b`` (1..3).
    ``version`` names the algorithm that produced it and is logged with every deal.
    """

    version: str
    boards: tuple[tuple[int, ...], ...]
    bot_strength: Strength


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
    return board_from_stream(DealStream(seed, board_label(board), DEAL_VERSION))


def draw_strength(seed: bytes) -> Strength:
    """The bot's strength for the game dealt from ``seed`` (stream label ``bot-strength``)."""
    return strength_from_stream(DealStream(seed, BOT_STRENGTH_LABEL, DEAL_VERSION))


def deal(seed: bytes) -> Deal:
    """Deal a whole game of Match from a 32-byte seed (``match-deal-v1``)."""
    check_seed(seed)
    boards = tuple(deal_board(seed, board) for board in range(1, BOARDS + 1))
    return Deal(version=DEAL_VERSION, boards=boards, bot_strength=draw_strength(seed))
