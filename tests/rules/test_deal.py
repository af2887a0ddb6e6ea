"""The deal of Match (match-deal-v1): seed -> three boards and the bot's strength.

The algorithm is specified in docs/dealing.md; the vectors in docs/vectors/match-deal-v1.json are
checked here against the Python reference and, through Node, against an independent JavaScript
version.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from match_rules.deal import SEED_BYTES, DealStream, Strength, commitment, uniform
from match_rules.race.deal import (
    BOT_STRENGTH_LABEL,
    DEAL_VERSION,
    Deal,
    board_from_stream,
    board_label,
    deal,
    deal_board,
    draw_strength,
    strength_from_stream,
)

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "dealing.md"
VECTORS_PATH = ROOT / "docs" / "vectors" / "match-deal-v1.json"
JS_CHECKER = ROOT / "docs" / "vectors" / "deal_v1.mjs"

WORDS_PER_BOARD_WITHOUT_REJECTION = 29  # 10 draws to choose symbols + 19 to shuffle


def _load_vectors() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
    return loaded


VECTORS: list[dict[str, Any]] = _load_vectors()["vectors"]


def _seed(text: str) -> bytes:
    return hashlib.sha256(text.encode("ascii")).digest()


class CountingSource:
    """Wraps a byte source and counts the 4-byte words uniform() reads from it."""

    def __init__(self, inner: DealStream) -> None:
        self.inner = inner
        self.words = 0

    def read(self, size: int, /) -> bytes:
        self.words += 1
        return self.inner.read(size)


def _is_a_board(board: tuple[int, ...]) -> bool:
    counts = Counter(board)
    return (
        len(board) == 20
        and len(counts) == 10
        and all(0 <= symbol <= 24 for symbol in counts)
        and set(counts.values()) == {2}
    )


# --- the vectors ------------------------------------------------------------------------------


@pytest.mark.parametrize("vector", VECTORS, ids=[v["seed_hex"][:12] for v in VECTORS])
def test_every_vector_in_the_vectors_file_is_reproduced(vector: dict[str, Any]) -> None:
    seed = bytes.fromhex(vector["seed_hex"])
    dealt = deal(seed)
    assert commitment(seed) == vector["commitment"]
    assert [list(board) for board in dealt.boards] == vector["boards"]
    assert dealt.bot_strength.value == vector["bot_strength"]
    assert dealt.version == DEAL_VERSION


def test_the_vectors_file_covers_the_required_seeds_and_every_strength() -> None:
    document = _load_vectors()
    assert document["version"] == DEAL_VERSION == "match-deal-v1"
    seeds = [vector["seed_hex"] for vector in VECTORS]
    assert len(VECTORS) >= 8
    assert len(set(seeds)) == len(seeds)
    assert bytes(32).hex() in seeds
    assert (b"\xff" * 32).hex() in seeds
    assert bytes(range(32)).hex() in seeds
    assert _seed("match-1").hex() in seeds
    assert {vector["bot_strength"] for vector in VECTORS} == {"weak", "medium", "strong"}


def test_the_vectors_exercise_rejection_sampling_on_a_board() -> None:
    rejecting = []
    for vector in VECTORS:
        seed = bytes.fromhex(vector["seed_hex"])
        for board in (1, 2, 3):
            source = CountingSource(DealStream(seed, board_label(board), DEAL_VERSION))
            board_from_stream(source)
            assert source.words >= WORDS_PER_BOARD_WITHOUT_REJECTION
            if source.words > WORDS_PER_BOARD_WITHOUT_REJECTION:
                rejecting.append((vector["seed_hex"], board))
    # three seeds were searched for: one rejection each, on boards 1, 3 and 2
    assert len(rejecting) >= 3
    assert {board for _, board in rejecting} == {1, 2, 3}


def test_the_javascript_implementation_reproduces_every_vector() -> None:
    node = shutil.which("node")
    assert node is not None, "node (v20) is part of this machine image and must be on PATH"
    result = subprocess.run(
        [node, str(JS_CHECKER), str(VECTORS_PATH)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"PASS: {len(VECTORS)}/{len(VECTORS)} vectors reproduced" in result.stdout


def test_the_worked_example_in_the_spec_matches_the_code() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    seed = bytes(32)
    message = b"match-deal-v1/board/1/" + (0).to_bytes(4, "big")
    block = hmac.digest(seed, message, "sha256")
    assert message.hex() in spec
    assert block.hex() in spec
    assert DealStream(seed, "board/1", DEAL_VERSION).read(32) == block
    assert f"board 1 = {list(deal_board(seed, 1))}" in spec
    assert commitment(seed) in spec
    assert deal(seed).bot_strength is Strength.WEAK


# --- the boards -------------------------------------------------------------------------------


def test_every_board_is_ten_distinct_symbols_from_0_to_24_each_exactly_twice() -> None:
    for k in range(300):
        dealt = deal(_seed(f"shape-{k}"))
        assert len(dealt.boards) == 3
        for board in dealt.boards:
            assert _is_a_board(board), board


def test_boards_differ_between_seeds() -> None:
    layouts = {deal(_seed(f"between-{k}")).boards for k in range(200)}
    assert len(layouts) == 200
    first_boards = {deal(_seed(f"between-{k}")).boards[0] for k in range(200)}
    assert len(first_boards) == 200


def test_the_three_boards_of_a_game_differ() -> None:
    for k in range(200):
        boards = deal(_seed(f"within-{k}")).boards
        assert len(set(boards)) == 3


def test_a_deal_is_deterministic() -> None:
    seed = _seed("determinism")
    first = deal(seed)
    assert deal(seed) == first
    assert deal(bytes(seed)) == first
    assert tuple(deal_board(seed, b) for b in (1, 2, 3)) == first.boards
    assert draw_strength(seed) is first.bot_strength
    assert isinstance(first, Deal)
    assert all(isinstance(board, tuple) for board in first.boards)


def test_each_board_and_the_strength_use_their_own_stream() -> None:
    seed = _seed("streams")
    for b in (1, 2, 3):
        assert (
            board_from_stream(DealStream(seed, f"board/{b}", DEAL_VERSION))
            == deal(seed).boards[b - 1]
        )
    assert (
        strength_from_stream(DealStream(seed, BOT_STRENGTH_LABEL, DEAL_VERSION))
        is deal(seed).bot_strength
    )
    assert BOT_STRENGTH_LABEL == "bot-strength"


def test_the_deal_comes_from_the_seed_not_from_the_commitment() -> None:
    seed = _seed("commit-vs-seed")
    assert deal(bytes.fromhex(commitment(seed))).boards != deal(seed).boards


def test_board_numbers_outside_1_to_3_are_refused() -> None:
    for bad in (0, 4, -1, True, "1", 1.0):
        with pytest.raises(ValueError, match=r"board must be an integer in 1\.\.3"):
            board_label(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="board must be"):
        deal_board(bytes(32), 4)
    assert [board_label(b) for b in (1, 2, 3)] == ["board/1", "board/2", "board/3"]


def test_tile_positions_and_strengths_are_not_grossly_skewed() -> None:
    games = 3000
    at_position: list[Counter[int]] = [Counter() for _ in range(20)]
    partner_of_tile_1: Counter[int] = Counter()
    strengths: Counter[Strength] = Counter()
    for k in range(games):
        dealt = deal(_seed(f"stats-{k}"))
        strengths[dealt.bot_strength] += 1
        for board in dealt.boards:
            for position, symbol in enumerate(board):
                at_position[position][symbol] += 1
            partner_of_tile_1[board.index(board[0], 1)] += 1
    samples = games * 3
    expected_per_symbol = samples / 25  # P(symbol s on tile t) = 10/25 * 2/20 = 1/25
    for counts in at_position:
        assert set(counts) == set(range(25))
        for symbol in range(25):
            assert 0.7 * expected_per_symbol < counts[symbol] < 1.3 * expected_per_symbol
    expected_partner = samples / 19  # tile 1's partner is any of the 19 other tiles
    assert set(partner_of_tile_1) == set(range(1, 20))
    for count in partner_of_tile_1.values():
        assert 0.7 * expected_partner < count < 1.3 * expected_partner
    for strength in Strength:
        assert 0.8 * games / 3 < strengths[strength] < 1.2 * games / 3


# --- the commitment and the seed ----------------------------------------------------------------


def test_the_commitment_is_the_lowercase_hex_sha256_of_the_seed() -> None:
    for seed in (bytes(32), b"\xff" * 32, bytes(range(32)), _seed("commitment")):
        assert commitment(seed) == hashlib.sha256(seed).hexdigest()
        assert len(commitment(seed)) == 64
        assert commitment(seed) == commitment(seed).lower()
    assert commitment(bytes(32)) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


@pytest.mark.parametrize("length", [0, 1, 16, 31, 33, 64])
def test_seeds_of_the_wrong_length_are_refused(length: int) -> None:
    seed = bytes(length)
    for function in (deal, commitment):
        with pytest.raises(ValueError, match=f"exactly {SEED_BYTES} bytes, got {length}"):
            function(seed)
    with pytest.raises(ValueError, match="exactly 32 bytes"):
        DealStream(seed, "board/1", DEAL_VERSION)


@pytest.mark.parametrize(
    "seed",
    [None, "0" * 32, "0" * 64, 0, bytearray(32), memoryview(bytes(32)), list(range(32))],
    ids=["None", "str32", "str64", "int", "bytearray", "memoryview", "list"],
)
def test_seeds_that_are_not_bytes_are_refused(seed: object) -> None:
    said = f"a seed must be bytes (exactly 32 of them), got {type(seed).__name__}"
    for function in (deal, commitment):
        with pytest.raises(ValueError) as caught:
            function(seed)  # type: ignore[arg-type]
        assert str(caught.value) == said


# --- the byte stream ----------------------------------------------------------------------------


def test_the_stream_is_hmac_sha256_blocks_with_a_big_endian_counter() -> None:
    seed = bytes(range(32))
    label = "board/2"
    expected = b"".join(
        hmac.digest(seed, b"match-deal-v1/board/2/" + i.to_bytes(4, "big"), "sha256")
        for i in range(4)
    )
    stream = DealStream(seed, label, DEAL_VERSION)
    assert stream.read(0) == b""
    got = stream.read(5) + stream.read(30) + stream.read(1) + stream.read(92)  # across blocks
    assert got == expected


def test_the_stream_refuses_negative_reads_and_running_past_its_counter() -> None:
    stream = DealStream(bytes(32), "board/1", DEAL_VERSION)
    with pytest.raises(ValueError, match="negative"):
        stream.read(-1)
    stream._counter = 2**32 - 1  # white-box: jump to the last block
    assert len(stream.read(32)) == 32
    with pytest.raises(ValueError) as caught:
        stream.read(1)
    assert str(caught.value) == "deal stream exhausted: the block counter passed 2**32 - 1"


# --- uniform ------------------------------------------------------------------------------------


def test_uniform_rejects_a_word_at_or_above_the_limit_and_reads_the_next() -> None:
    # n = 3: limit = 2**32 - 1, so 0xffffffff is the one rejected value
    stream = io.BytesIO(b"\xff\xff\xff\xff" + (7).to_bytes(4, "big") + b"rest")
    assert uniform(stream, 3) == 7 % 3
    assert stream.read() == b"rest"  # exactly two words consumed
    # n = 25: 2**32 mod 25 = 21, so limit = 2**32 - 21
    limit = 2**32 - 21
    stream = io.BytesIO((limit - 1).to_bytes(4, "big"))
    assert uniform(stream, 25) == (limit - 1) % 25  # the last accepted value
    stream = io.BytesIO(limit.to_bytes(4, "big") + (2**32 - 1).to_bytes(4, "big") + bytes(4))
    assert uniform(stream, 25) == 0  # two rejections, then 0


def test_uniform_returns_x_mod_n_below_the_limit() -> None:
    for n, x in ((1, 123456), (2, 2**32 - 1), (16, 0xDEADBEEF), (24, 2**32 - 17), (25, 99)):
        assert uniform(io.BytesIO(x.to_bytes(4, "big")), n) == x % n
    assert uniform(io.BytesIO(b"\xff\xff\xff\xff"), 2**32) == 2**32 - 1


def test_a_rejection_in_the_strength_stream_moves_to_the_next_word() -> None:
    crafted = io.BytesIO(b"\xff\xff\xff\xff" + (2).to_bytes(4, "big"))
    assert strength_from_stream(crafted) is Strength.STRONG


def test_uniform_refuses_a_bad_n() -> None:
    for bad in (0, -1, 2**32 + 1, True, 2.0, "3"):
        with pytest.raises(ValueError, match=r"1 <= n <= 2\*\*32"):
            uniform(io.BytesIO(bytes(8)), bad)  # type: ignore[arg-type]


def test_uniform_refuses_a_stream_that_runs_dry() -> None:
    said = "byte stream ended before uniform() could draw a 4-byte word"
    for dry in (b"\x00\x01\x02", b"\xff\xff\xff\xff"):  # short; rejected, nothing after it
        with pytest.raises(ValueError) as caught:
            uniform(io.BytesIO(dry), 3)
        assert str(caught.value) == said


def test_strengths_are_ordered_weak_medium_strong() -> None:
    assert [s.value for s in Strength] == ["weak", "medium", "strong"]
    for index, strength in enumerate(Strength):
        assert strength_from_stream(io.BytesIO(index.to_bytes(4, "big"))) is strength
