"""The RFC 6962 / RFC 9162 Merkle tree: hashes, roots, inclusion and consistency proofs.

Pure: ``hashlib`` only, no I/O. A tree over leaves ``d[0..n)`` has the root ``MTH(d[0:n])``:

* ``MTH({}) = SHA-256()`` (the empty string);
* ``MTH({d0}) = SHA-256(0x00 || d0)``, the leaf hash;
* ``MTH(d[0:n]) = SHA-256(0x01 || MTH(d[0:k]) || MTH(d[k:n]))`` for ``n > 1``, where ``k`` is the
  largest power of two smaller than ``n``.

Proofs are made (RFC 6962 section 2.1.1 and 2.1.2, ``PATH`` and ``SUBPROOF``) from any source
of *perfect* subtree hashes: :class:`Subtrees` answers ``hash_of(level, index)``, the root of
the 2^level leaves starting at leaf ``index * 2^level``. A store keeps those (the ledger keeps
them in SQLite); :class:`LeafList` computes them from a list of leaf hashes, for tests and small
trees. Proofs are verified with the algorithms of RFC 9162 section 2.1.3.2 and 2.1.4.2.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof does not verify, or cannot be made for these sizes; the message says why."""


def leaf_hash(data: bytes) -> bytes:
    """``SHA-256(0x00 || data)``: the hash of one leaf."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """``SHA-256(0x01 || left || right)``: the hash of an interior node."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _largest_power_of_two_below(n: int) -> int:
    """The largest power of two ``k`` with ``k < n`` (for ``n >= 2``)."""
    return 1 << ((n - 1).bit_length() - 1)


class Subtrees(Protocol):
    """Where the hashes of perfect subtrees come from."""

    def hash_of(self, level: int, index: int) -> bytes:
        """The root of leaves ``[index << level, (index + 1) << level)``; level 0 is a leaf hash."""
        ...


class LeafList:
    """Perfect subtree hashes computed from a list of leaf hashes (memoised)."""

    def __init__(self, leaf_hashes: Sequence[bytes]) -> None:
        self._leaves = list(leaf_hashes)
        self._memo: dict[tuple[int, int], bytes] = {}

    def __len__(self) -> int:
        return len(self._leaves)

    def hash_of(self, level: int, index: int) -> bytes:
        if level == 0:
            return self._leaves[index]
        key = (level, index)
        found = self._memo.get(key)
        if found is None:
            found = node_hash(
                self.hash_of(level - 1, 2 * index), self.hash_of(level - 1, 2 * index + 1)
            )
            self._memo[key] = found
        return found


def subtree_root(tree: Subtrees, start: int, end: int) -> bytes:
    """``MTH(d[start:end])`` for a range whose start is aligned the way RFC 6962 splits trees:
    either a perfect subtree, or a left-aligned range that splits into perfect subtrees."""
    n = end - start
    if n <= 0:
        return EMPTY_ROOT
    if n & (n - 1) == 0 and start % n == 0:
        return tree.hash_of(n.bit_length() - 1, start // n)
    k = _largest_power_of_two_below(n)
    return node_hash(subtree_root(tree, start, start + k), subtree_root(tree, start + k, end))


def root(leaf_hashes: Sequence[bytes]) -> bytes:
    """The root of a tree with these leaf hashes (``EMPTY_ROOT`` for none)."""
    return subtree_root(LeafList(leaf_hashes), 0, len(leaf_hashes))


def root_of_data(leaves: Sequence[bytes]) -> bytes:
    """The root of a tree over these leaf contents."""
    return root([leaf_hash(d) for d in leaves])


def inclusion_proof(tree: Subtrees, index: int, size: int) -> list[bytes]:
    """RFC 6962 ``PATH(index, d[0:size])``: the audit path of leaf ``index``, leaf to root."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of size {size}")
    return _path(tree, index, 0, size)


def _path(tree: Subtrees, m: int, start: int, end: int) -> list[bytes]:
    n = end - start
    if n == 1:
        return []
    k = _largest_power_of_two_below(n)
    if m < k:
        return [*_path(tree, m, start, start + k), subtree_root(tree, start + k, end)]
    return [*_path(tree, m - k, start + k, end), subtree_root(tree, start, start + k)]


def consistency_proof(tree: Subtrees, first: int, second: int) -> list[bytes]:
    """RFC 6962 ``PROOF(first, d[0:second])``: empty when ``first`` is 0 or equals ``second``."""
    if not 0 <= first <= second:
        raise ProofError(f"no consistency proof from size {first} to size {second}")
    if first == 0 or first == second:
        return []
    return _subproof(tree, first, 0, second, True)


def _subproof(tree: Subtrees, m: int, start: int, end: int, whole: bool) -> list[bytes]:
    n = end - start
    if m == n:
        return [] if whole else [subtree_root(tree, start, end)]
    k = _largest_power_of_two_below(n)
    if m <= k:
        return [*_subproof(tree, m, start, start + k, whole), subtree_root(tree, start + k, end)]
    return [*_subproof(tree, m - k, start + k, end, False), subtree_root(tree, start, start + k)]


def _check_hash(name: str, value: bytes) -> None:
    if len(value) != HASH_SIZE:
        raise ProofError(f"{name} is {len(value)} bytes, not {HASH_SIZE}")


def root_from_inclusion_proof(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root an inclusion proof leads to (RFC 9162 2.1.3.2, steps 1-4); raises ProofError
    when the proof has the wrong length for ``index`` in a tree of ``size``."""
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is not below the tree size {size}")
    _check_hash("the leaf hash", leaf)
    fn, sn = index, size - 1
    r = leaf
    for p in proof:
        _check_hash("a proof hash", p)
        if sn == 0:
            raise ProofError("the inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the inclusion proof is too short")
    return r


def verify_inclusion(
    index: int, size: int, leaf: bytes, proof: Sequence[bytes], expected_root: bytes
) -> None:
    """Raise ProofError unless ``proof`` shows leaf hash ``leaf`` at ``index`` under the root."""
    _check_hash("the root", expected_root)
    if root_from_inclusion_proof(index, size, leaf, proof) != expected_root:
        raise ProofError("the inclusion proof does not lead to the root")


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, proof: Sequence[bytes]
) -> None:
    """Raise ProofError unless ``proof`` shows the tree of size ``first`` (root ``first_root``)
    is a prefix of the tree of size ``second`` (RFC 9162 2.1.4.2)."""
    _check_hash("the first root", first_root)
    _check_hash("the second root", second_root)
    if first < 0 or second < first:
        raise ProofError(f"size {second} is smaller than size {first}: the log went back")
    if first == second:
        if proof:
            raise ProofError("a consistency proof between equal sizes must be empty")
        if first_root != second_root:
            raise ProofError(f"two different roots for the same size {first}: the log forked")
        return
    if first == 0:
        if proof:
            raise ProofError("a consistency proof from the empty tree must be empty")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    for p in proof:
        _check_hash("a proof hash", p)
    path = list(proof)
    if first & (first - 1) == 0:  # a power of two: the first tree is a node of the second
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the consistency proof is too short")
    if fr != first_root:
        raise ProofError(f"the consistency proof does not lead to the root of size {first}")
    if sr != second_root:
        raise ProofError(f"the consistency proof does not lead to the root of size {second}")


class Frontier:
    """The right edge of a growing tree: the perfect subtrees that make up its ``size`` leaves,
    biggest first. Appending a leaf says which new perfect nodes it completed."""

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        if len(hashes) != size.bit_count():
            raise ValueError(f"a tree of size {size} has {size.bit_count()} frontier hashes")
        self.size = size
        self._hashes = list(hashes)

    @staticmethod
    def levels(size: int) -> list[tuple[int, int]]:
        """The (level, index) of the frontier's perfect subtrees for ``size`` leaves, biggest
        first."""
        out: list[tuple[int, int]] = []
        start = 0
        for level in range(size.bit_length() - 1, -1, -1):
            if size >> level & 1:
                out.append((level, start >> level))
                start += 1 << level
        return out

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        """Add a leaf hash; returns every perfect node it completed, (level, index, hash),
        the leaf itself (level 0) first."""
        index = self.size
        made = [(0, index, leaf)]
        current, level = leaf, 0
        while index >> level & 1:  # the left sibling at this level is the frontier's last
            left = self._hashes.pop()
            current = node_hash(left, current)
            level += 1
            made.append((level, index >> level, current))
        self._hashes.append(current)
        self.size += 1
        return made

    def root(self) -> bytes:
        if not self._hashes:
            return EMPTY_ROOT
        r = self._hashes[-1]
        for h in reversed(self._hashes[:-1]):
            r = node_hash(h, r)
        return r
