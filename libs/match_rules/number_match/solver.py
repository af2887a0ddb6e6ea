"""The solver of Number Match: exact, deterministic, bounded by a node count.

A *move* is a pair ``(i, j)`` with ``i < j`` (cells of the board as it is at that moment) or
:data:`ADD`, ``(-1, -1)``: add numbers. Keeping both plain tuples makes a move sequence hashable,
comparable and printable in a log without any type of its own.

:func:`solve` is a depth-first search over positions (a board and the additions left). It is
exact: SOLVABLE comes with a complete clearing sequence, UNSOLVABLE only after the whole tree was
searched, and UNKNOWN when the *budget*, a number of positions expanded, ran out first. The
budget is a count and never a time, so that one call gives one answer on every run and machine:
the referee calls the solver inside its pure rules and the audit calls it again later.

What makes it fast, each part tested against :func:`plain_solve` (the same search without them)
on many small boards:

* Pairing depends only on a number's class ``{1,9} {2,8} {3,7} {4,6} {5}``, and an addition
  copies classes, so the search runs on the board of classes: positions that differ only in
  ``1`` against ``9`` (and so on) are one position.
* A transposition table of failed positions. A board that cannot be cleared with ``k`` additions
  cannot be with fewer, so it keeps the most additions a board failed with.
* Restarts. Nearly all the work is in the last stretch, clearing 10 to 30 numbers with no
  addition left; a depth-first search that takes a wrong turn early spends its budget refuting
  endgame after endgame below it. So the search runs again and again, each run giving up after
  ``16 * luby(run)`` more failed positions (Luby's sequence 1 1 2 1 1 2 4 ...) and starting
  down another path, until it has an answer or the budget is spent. Proven failures stay in
  the table, so no run repeats a finished proof. On play states this cut the positions of the
  slowest hints (99th percentile) from about 2,500 to about 500 (``match_bench.solver``).
* Move order. At the root, every pair before the addition (the hint needs all pairs tried
  first). The first run tries the pairs whose numbers have the fewest other pairs first (a
  number with one partner in sight loses it when that partner is used elsewhere); later runs
  rotate and reverse that order; odd runs try the addition first below the root on boards of
  at most 20 numbers (an addition is cheapest with few numbers). Pairs that remove a row first
  and pairs of the rarest class first were measured too, and searched more positions.
* Pruning, only with no addition left (every rule is a necessary condition of a clearing):

  - *parity*: a pair removes two numbers of one class and an addition doubles every count, so
    without additions a class with an odd count can never be cleared;
  - *forced pairs*: a class with exactly two numbers must pair them with each other. If they can
    only ever see each other along reading order or their column (a diagonal needs their row
    distance to be at least their column distance, and rows only ever get closer), every number
    between them along that line must go first. If such a number cannot pair with any number of
    its class without one of the forced two going first (one of them lies between along every
    line the pair could use), the board is dead. Reading order and columns survive row removal
    (only empty rows go), which is what makes "between" a fixed fact.

* Classic's unlimited additions can repeat a position (add, then clear exactly the copies). A
  position already on the current path is cut, and a failure that relied on such a cut to a
  position above it is not remembered (it is a failure only on that path).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import compress

from match_rules.number_match.board import (
    LEVEL_CELLS,
    MAX_CELLS,
    WIDTH,
    Board,
    add_numbers,
    can_add,
    check_board,
    is_clear,
    pairs_with,
    points_for,
    remove_pair,
    sees,
)

__all__ = [
    "ADD",
    "HINT_BUDGET",
    "Hint",
    "HintKind",
    "Move",
    "Replayed",
    "Solution",
    "Status",
    "WitnessError",
    "hint",
    "plain_solve",
    "replay",
    "solve",
]

Move = tuple[int, int]
ADD: Move = (-1, -1)

# Positions one hint may expand: on 6,300 play states the slowest 1% needed 500 to 800, and
# only ~0.15% stay UNKNOWN up to 5,000. At 20-40 us a position (more on boards of hundreds of
# cells) a hint that spends it all takes 40-80 ms on one core (match_bench.solver).
HINT_BUDGET = 2_000


class Status(Enum):
    SOLVABLE = "solvable"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Solution:
    """``moves``: a complete clearing sequence when SOLVABLE, else empty; ``nodes``: positions
    expanded (at most the budget)."""

    status: Status
    moves: tuple[Move, ...]
    nodes: int


class HintKind(Enum):
    PAIR = "pair"  # this pair keeps the board clearable
    ADD = "add"  # no pair does, an addition does: time to add numbers
    STUCK = "stuck"  # proven: the board can no longer be cleared with the additions left
    UNKNOWN = "unknown"  # the budget ran out before an answer


@dataclass(frozen=True, slots=True)
class Hint:
    """``pair`` is set for PAIR only; ``moves`` is the clearing the hint rests on (PAIR, ADD)."""

    kind: HintKind
    pair: Move | None
    moves: tuple[Move, ...]
    nodes: int


class WitnessError(ValueError):
    """A witness does not clear its board; the message says at which step and why."""


@dataclass(frozen=True, slots=True)
class Replayed:
    """A witness that held: the pairs and additions it made and the points it scored."""

    pairs: int
    additions: int
    points: int


# --- the search ------------------------------------------------------------------------------

_UNLIMITED = 1 << 20  # "additions left" for Classic: more than MAX_CELLS allows, never counts down
_TO_CLASS = bytes.maketrans(bytes(range(10)), bytes((0, 1, 2, 3, 4, 5, 4, 3, 2, 1)))
_EMPTY = b"\0"
_CLASSES = (1, 2, 3, 4, 5)
_SENTINEL = 0xFF  # a value no class has: the cell one past the board, for "nothing seen yet"

# The key of the last number seen in each line through a cell: its column (0..8), its down-right
# diagonal (row - column) and its down-left diagonal (row + column), all in one list.
_ROWS = LEVEL_CELLS // WIDTH + 1
_KEY_COLUMN = [k % WIDTH for k in range(LEVEL_CELLS + 1)]
_KEY_DOWN_RIGHT = [WIDTH + 8 + k // WIDTH - k % WIDTH for k in range(LEVEL_CELLS + 1)]
_KEY_DOWN_LEFT = [WIDTH + _ROWS + 16 + k // WIDTH + k % WIDTH for k in range(LEVEL_CELLS + 1)]
_KEYS = WIDTH + 2 * _ROWS + 32


_RESTART_UNIT = 16  # failed positions; run r gives up after _RESTART_UNIT * luby(r + 1)
_ADD_FIRST_NUMBERS = 20  # odd runs try the addition first below the root on boards this small


class _OutOfBudget(Exception):
    """The budget is spent: the answer is UNKNOWN."""


class _Restart(Exception):
    """This run has failed its share of positions: start the next run (the table stays)."""


def _moves(b: bytes) -> list[Move]:
    """The legal pairs of the class board ``b``: in each line, consecutive numbers of a class
    (one pass, keeping the last number seen per line). Ordered by ``j``, then line."""
    n = len(b)
    s = b + bytes((_SENTINEL,))
    last = [n] * _KEYS
    kc, kr, kl = _KEY_COLUMN, _KEY_DOWN_RIGHT, _KEY_DOWN_LEFT
    out: list[Move] = []
    prev = n
    for j in compress(range(n), b):
        v = s[j]
        if s[prev] == v:
            out.append((prev, j))
        x = kc[j]
        i = last[x]
        if s[i] == v and i != prev:
            out.append((i, j))
        last[x] = j
        x = kr[j]
        i = last[x]
        if s[i] == v and i != prev:
            out.append((i, j))
        last[x] = j
        x = kl[j]
        i = last[x]
        if s[i] == v and i != prev:
            out.append((i, j))
        last[x] = j
        prev = j
    return out


def _remove(b: bytes, i: int, j: int) -> bytes:
    """``b`` with cells ``i < j`` emptied and the rows left empty removed."""
    nb = b[:i] + _EMPTY + b[i + 1 : j] + _EMPTY + b[j + 1 :]
    start = j - j % WIDTH
    row = nb[start : start + WIDTH]
    if row.count(0) == len(row):
        nb = nb[:start] + nb[start + WIDTH :]
    top = i - i % WIDTH
    if top != start:
        row = nb[top : top + WIDTH]
        if row.count(0) == WIDTH:
            nb = nb[:top] + nb[top + WIDTH :]
    return nb


def _added(b: bytes, cap: int = MAX_CELLS) -> bytes | None:
    """``b`` after an addition, or None when it would pass ``cap`` cells."""
    t = b.rstrip(_EMPTY)
    numbers = t.replace(_EMPTY, b"")
    if len(t) + len(numbers) > cap:
        return None
    return t + numbers


def _odd(b: bytes) -> bool:
    """Whether a class has an odd count (parity: unclearable without an addition)."""
    return any(b.count(c) & 1 for c in _CLASSES)


def _forced_dead(b: bytes) -> bool:
    """The forced-pair rule (module docstring), for a board with no addition left.

    For a class with exactly two numbers ``a < d`` that can only ever meet along one line, a
    number ``x`` between them along it that has another number of its class inside ``(a, d)``
    in reading order can pair with it first (neither forced cell lies between them on any
    line); only a class with one number inside needs the partners outside looked at.
    """
    for c in _CLASSES:
        if b.count(c) != 2:
            continue
        a = b.find(c)
        d = b.find(c, a + 1)  # pragma: no mutate (two of c: rfind finds the same)
        ra, ca = divmod(a, WIDTH)
        rd, cd = divmod(d, WIDTH)
        inside = b[a + 1 : d]
        if ca == cd:
            line = b[a + WIDTH : d : WIDTH]
        elif rd - ra >= abs(cd - ca):
            continue  # a diagonal may still come: nothing follows
        else:
            line = inside
        for v in _CLASSES:
            if v != c and v in line and inside.count(v) == 1:
                x = a + 1 + inside.index(v)  # pragma: no mutate (one v inside: rindex same)
                if not any(
                    k != x and not (_blocked(k, x, a, d) if k < x else _blocked(x, k, a, d))
                    for k in _cells(b, v)
                ):
                    return True
    return False


def _cells(b: bytes, v: int) -> list[int]:
    """The cells holding class ``v``."""
    out = []
    k = b.find(v)
    while k >= 0:
        out.append(k)
        k = b.find(v, k + 1)
    return out


def _blocked(x: int, y: int, a: int, d: int) -> bool:
    """Whether the pair ``x < y`` can only be made after cell ``a`` or ``d`` is empty: one of
    them lies between along every line the pair could ever use."""
    rx, cx = divmod(x, WIDTH)
    ry, cy = divmod(y, WIDTH)
    if cx == cy:
        return (a % WIDTH == cx and x < a < y) or (d % WIDTH == cx and x < d < y)
    if ry - rx >= abs(cy - cx):
        return False
    return x < a < y or x < d < y


def _order(moves: list[Move], run: int) -> list[Move]:
    """The order of a position's pairs in search run ``run``.

    Run 0: pairs whose two numbers have the fewest other pairs first (a number with one partner
    in sight loses it when that partner is used elsewhere), ties in :func:`_moves` order. Later
    runs rotate that order by an amount drawn from the run number, and reverse it in every other
    pair of runs, so that each run starts down another path.
    """
    if len(moves) < 2:
        return moves
    if run == 0:
        degree: dict[int, int] = {}
        for i, j in moves:
            degree[i] = degree.get(i, 0) + 1
            degree[j] = degree.get(j, 0) + 1
        return sorted(moves, key=lambda m: degree[m[0]] + degree[m[1]])
    r = ((run * 2654435761) >> 7) % len(moves)
    moves = moves[r:] + moves[:r]
    if run & 2:
        moves.reverse()
    return moves


def _luby(i: int) -> int:
    """The ``i``-th term (from 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...: the
    restart lengths that lose at most a log factor to the best fixed length (Luby, Sinclair and
    Zuckerman 1993)."""
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


class _Frame:
    """A position on the search path: its board, additions left, moves and the next to try,
    and the shallowest position on the path that a repetition below it led back to."""

    __slots__ = ("board", "left", "low", "moves", "next")

    def __init__(self, board: bytes, left: int, moves: list[Move]) -> None:
        self.board = board
        self.left = left
        self.moves = moves
        self.next = 0
        self.low = _UNLIMITED


class _Search:
    """One search: the budget and table it shares across its runs. ``smart`` False is
    :func:`plain_solve`: one run, no table, order, pruning or repetition check (a repeated
    position then only spends budget)."""

    def __init__(self, budget: int, smart: bool, cap: int = MAX_CELLS) -> None:
        self.budget = budget
        self.smart = smart
        self.cap = cap
        self.nodes = 0
        self.failed: dict[bytes, int] = {}
        self.root_repeated = False  # below a root pair, a repetition led back to the root
        self.run_number = 0
        self.fails = 0  # proven failures, all runs  # pragma: no mutate (limits are relative)
        self.fail_limit = _UNLIMITED  # when this run gives up  # pragma: no mutate (set per run)

    def _frame(self, b: bytes, adds: int, root: bool) -> _Frame:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        moves = _moves(b)
        if not self.smart:
            moves.sort()
        else:
            moves = _order(moves, self.run_number)
            if (
                adds > 0
                and not root
                and self.run_number & 1
                and len(b) - b.count(0) <= _ADD_FIRST_NUMBERS
            ):
                moves.insert(0, ADD)
                return _Frame(b, adds, moves)
        if adds > 0:
            moves.append(ADD)
        return _Frame(b, adds, moves)

    def run(self, root: bytes, adds: int) -> list[Move] | None:
        """A clearing sequence from ``root``, or None when there is none. Raises _OutOfBudget,
        and _Restart when this run has failed ``fail_limit`` positions."""
        if not root:
            return []
        smart, failed = self.smart, self.failed
        if smart and adds == 0 and (_odd(root) or _forced_dead(root)):
            return None
        # Only unlimited additions can repeat a position: with a limit, every move lowers the
        # numbers or the additions left.
        cycles = smart and adds >= _UNLIMITED  # pragma: no mutate (read only when smart)
        on_path: dict[bytes, int] = {root: 0}
        path: list[Move] = []
        stack = [self._frame(root, adds, root=True)]
        while stack:
            frame = stack[-1]
            b, left, moves, k = frame.board, frame.left, frame.moves, frame.next
            if k == len(moves):
                stack.pop()
                if stack:
                    path.pop()
                if not smart:
                    continue
                depth = len(stack)
                if cycles:
                    del on_path[b]
                    if stack and frame.low < stack[-1].low:  # pragma: no mutate (<=: the same low)
                        stack[-1].low = frame.low
                if frame.low >= depth and failed.get(b, -1) < left:
                    failed[b] = left
                self.fails += 1
                if self.fails > self.fail_limit:
                    raise _Restart
                continue
            frame.next = k + 1
            move = moves[k]
            if move[0] < 0:  # pragma: no mutate (ADD is (-1, -1): move[1] says the same)
                added = _added(b, self.cap)
                if added is None:
                    continue
                child, child_left = added, (left - 1 if left < _UNLIMITED else left)
            else:
                child, child_left = _remove(b, move[0], move[1]), left
            if not child:
                path.append(move)
                return path
            if smart:
                if failed.get(child, -1) >= child_left:  # pragma: no mutate (child_left >= 0)
                    continue
                # A pair keeps every count's parity and an addition makes all even: below the
                # root only the forced-pair rule can newly apply.
                if child_left == 0 and _forced_dead(child):
                    failed[child] = 0
                    continue
                if cycles:
                    seen = on_path.get(child)
                    if seen is not None:
                        frame.low = min(frame.low, seen)
                        if seen == 0 and stack[0].moves[stack[0].next - 1] != ADD:
                            self.root_repeated = True  # below one of the root's pairs
                        continue
                    on_path[child] = len(stack)
            stack.append(self._frame(child, child_left, root=False))
            path.append(move)
        return None


def _classes(board: Board, additions_left: int | None, budget: int) -> tuple[bytes, int]:
    check_board(board)
    if additions_left is not None and (
        isinstance(additions_left, bool)
        or not isinstance(additions_left, int)
        or additions_left < 0
    ):
        raise ValueError(f"additions_left must be None or an integer >= 0, got {additions_left!r}")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a positive number of positions, got {budget!r}")
    adds = _UNLIMITED if additions_left is None else additions_left
    return bytes(board).translate(_TO_CLASS), adds


def _solve(
    board: Board, additions_left: int | None, budget: int, smart: bool, cap: int = MAX_CELLS
) -> tuple[Solution, bool]:
    """The solution, and whether a repetition led back to the root (then a pair's failure below
    the root is not proven, see :func:`hint`)."""
    root, adds = _classes(board, additions_left, budget)
    search = _Search(budget, smart, cap)
    while True:
        if smart:
            search.fail_limit = search.fails + _RESTART_UNIT * _luby(search.run_number + 1)
        try:
            moves = search.run(root, adds)
        except _Restart:
            search.run_number += 1
            continue
        except _OutOfBudget:
            return Solution(Status.UNKNOWN, (), budget), search.root_repeated
        if moves is None:
            return Solution(Status.UNSOLVABLE, (), search.nodes), search.root_repeated
        return Solution(Status.SOLVABLE, tuple(moves), search.nodes), search.root_repeated


def solve(
    board: Board, additions_left: int | None, budget: int = HINT_BUDGET, cap: int = MAX_CELLS
) -> Solution:
    """Whether ``board`` can be cleared with ``additions_left`` additions (None: no limit),
    none of them passing ``cap`` cells, expanding at most ``budget`` positions."""
    return _solve(board, additions_left, budget, True, cap)[0]


def plain_solve(board: Board, additions_left: int | None, budget: int) -> Solution:
    """:func:`solve` without its table, move order and pruning: the plain depth-first search the
    benchmark measures it against (pairs by ``i`` then ``j``, then the addition)."""
    return _solve(board, additions_left, budget, smart=False)[0]  # pragma: no mutate (None: falsy)


def hint(
    board: Board, additions_left: int | None, budget: int = HINT_BUDGET, cap: int = MAX_CELLS
) -> Hint:
    """What to do on ``board``: a pair that keeps it clearable, else an addition, else STUCK;
    UNKNOWN when ``budget`` positions did not settle it.

    Never a guess: a PAIR or ADD hint rests on the complete clearing in ``moves``, and the search
    tries every pair before the addition, so ADD means every pair was proven to lead into a dead
    end. One exception is reported as UNKNOWN: in Classic a pair can lead back to this very
    board (add, then clear exactly the copies), and such a pair is then as good as the addition.
    No addition may pass ``cap`` cells (the game's: :func:`match_rules.number_match.decide.cap`).
    Raises ValueError on a clear board (nothing is left to hint).
    """
    if is_clear(board):
        raise ValueError("the board is already clear: there is nothing to hint")
    solution, root_repeated = _solve(board, additions_left, budget, True, cap)
    if solution.status is Status.UNKNOWN:
        return Hint(HintKind.UNKNOWN, None, (), solution.nodes)
    if solution.status is Status.UNSOLVABLE:
        return Hint(HintKind.STUCK, None, (), solution.nodes)
    first = solution.moves[0]
    if first == ADD:
        if root_repeated:
            return Hint(HintKind.UNKNOWN, None, (), solution.nodes)
        return Hint(HintKind.ADD, None, solution.moves, solution.nodes)
    return Hint(HintKind.PAIR, first, solution.moves, solution.nodes)


# --- the witness -----------------------------------------------------------------------------


def replay(board: Board, additions: int | None, moves: tuple[Move, ...] | list[Move]) -> Replayed:
    """Check that ``moves`` clear ``board`` with at most ``additions`` additions (None: no limit
    but :data:`MAX_CELLS`). Raises WitnessError naming the first step (1-based) that fails."""
    try:
        check_board(board)
    except ValueError as error:
        raise WitnessError(f"the board is not a valid board: {error}") from None
    used = pairs = points = 0
    for step, move in enumerate(moves, start=1):
        if move == ADD:
            if additions is not None and used >= additions:
                raise WitnessError(
                    f"step {step} adds numbers, but the board allows only {additions} "
                    f"addition{'s' if additions != 1 else ''} and all are used"
                )
            if not can_add(board):
                raise WitnessError(
                    f"step {step} adds numbers, but that is not possible here: the board is "
                    f"clear or would pass {MAX_CELLS} cells"
                )
            board = add_numbers(board)
            used += 1
            continue
        i, j = _pair_of(step, move, len(board))
        if not (board[i] and board[j]):
            empty = i if not board[i] else j
            raise WitnessError(f"step {step} pairs cells {i} and {j}, but cell {empty} is empty")
        if not pairs_with(board[i], board[j]):
            raise WitnessError(
                f"step {step} pairs cells {i} and {j}, but {board[i]} and {board[j]} do not "
                "pair (they must be equal or sum to 10)"
            )
        if not sees(board, i, j):
            raise WitnessError(
                f"step {step} pairs cells {i} and {j}, but they do not see each other: a "
                "number lies between them along every line that joins them (or none does)"
            )
        before = board
        board, rows = remove_pair(board, i, j)
        points += points_for(before, i, j, rows, is_clear(board))
        pairs += 1
    if not is_clear(board):
        left = sum(1 for v in board if v)
        raise WitnessError(
            f"after all {len(moves)} steps the board still holds {left} "
            f"number{'s' if left != 1 else ''}: the witness does not clear it"
        )
    return Replayed(pairs=pairs, additions=used, points=points)


def _pair_of(step: int, move: object, size: int) -> Move:
    if (
        not isinstance(move, tuple)
        or len(move) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in move)
    ):
        raise WitnessError(f"step {step} is {move!r}, neither a pair (i, j) nor ADD (-1, -1)")
    i, j = move
    if not (0 <= i < size and 0 <= j < size) or i == j:
        raise WitnessError(
            f"step {step} pairs cells {i} and {j}, but the board has cells 0..{size - 1} "
            "and a pair needs two different cells"
        )
    return (i, j)
