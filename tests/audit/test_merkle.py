"""The RFC 6962 Merkle tree against published vectors (transparency-dev/merkle, the same ones
as Certificate Transparency's), and properties: every proof verifies, any change fails."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from match_audit import merkle
from match_audit.merkle import ProofError


def h(text: str) -> bytes:
    return bytes.fromhex(text)


def b64(text: str) -> bytes:
    return base64.b64decode(text)


# transparency-dev/merkle proof/verify_test.go (from RFC 6962's reference tests): the 8 leaves,
# the roots of the trees of their first 1..8, and proofs among them.
LEAVES = [h(x) for x in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                         "606162636465666768696a6b6c6d6e6f")]  # fmt: skip
ROOTS = [
    h("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),  # size 0: SHA-256("")
    h("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"),
    h("fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"),
    h("aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77"),
    h("d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
    h("4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4"),
    h("76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef"),
    h("ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c"),
    h("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"),
]
# (leaf, tree size, proof), the leaf 1-based as in the Go test.
INCLUSION = [
    (1, 1, []),
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (3, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (2, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]  # fmt: skip
CONSISTENCY = [
    (1, 1, []),
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
]  # fmt: skip
TREE = merkle.LeafList([merkle.leaf_hash(leaf) for leaf in LEAVES])


@pytest.mark.parametrize("size", range(9))
def test_the_roots_of_the_first_n_leaves_are_the_published_ones(size: int) -> None:
    assert merkle.root_of_data(LEAVES[:size]) == ROOTS[size]
    frontier = merkle.Frontier()
    for leaf in LEAVES[:size]:
        frontier.append(merkle.leaf_hash(leaf))
    assert frontier.root() == ROOTS[size]


def test_the_hashes_are_domain_separated() -> None:
    assert ROOTS[0] == merkle.EMPTY_ROOT
    assert merkle.leaf_hash(b"") == ROOTS[1]  # the tree of one empty leaf
    assert merkle.node_hash(ROOTS[1], merkle.leaf_hash(b"\x00")) == ROOTS[2]


@pytest.mark.parametrize(("leaf", "size", "proof"), INCLUSION)
def test_published_inclusion_proofs_are_made_and_verify(
    leaf: int, size: int, proof: list[str]
) -> None:
    expected = [h(p) for p in proof]
    assert merkle.inclusion_proof(TREE, leaf - 1, size) == expected
    merkle.verify_inclusion(leaf - 1, size, TREE.hash_of(0, leaf - 1), expected, ROOTS[size])


@pytest.mark.parametrize(("first", "second", "proof"), CONSISTENCY)
def test_published_consistency_proofs_are_made_and_verify(
    first: int, second: int, proof: list[str]
) -> None:
    expected = [h(p) for p in proof]
    assert merkle.consistency_proof(TREE, first, second) == expected
    merkle.verify_consistency(first, second, ROOTS[first], ROOTS[second], expected)


def test_the_testdata_files_happy_paths() -> None:
    """testdata/inclusion/1/happy-path.json and testdata/consistency/3/happy-path.json."""
    merkle.verify_inclusion(
        0,
        8,
        b64("bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0="),
        [
            b64("lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c="),
            b64("Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4="),
            b64("a0eq8p7jwq+a+Im8H7klTavTEXfxYjLdaqsDXKOb9uQ="),
        ],
        b64("XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg="),
    )
    merkle.verify_consistency(
        2,
        5,
        b64("+sVCA+fMaWzw38tCySodnbr3CtnmIfS9jZhmLwDjwSU="),
        b64("Tju7H3tHjc/nH7YxYxUZo7yhLJrvyhYSv85ME6hiZNQ="),
        [
            b64("Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4="),
            b64("vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms="),
        ],
    )


SOME_HASH = h("abacaba000000000000000000000000000000000000000000060061e00123456")


@pytest.mark.parametrize(("leaf", "size", "proof"), INCLUSION[1:])
def test_corrupted_inclusion_proofs_fail(leaf: int, size: int, proof: list[str]) -> None:
    """The probes of transparency-dev's corruptInclusionProof."""
    index, path, root = leaf - 1, [h(p) for p in proof], ROOTS[size]
    leaf_h = TREE.hash_of(0, index)
    probes = [
        (index - 1, size, leaf_h, path, root),
        (index + 1, size, leaf_h, path, root),
        (index ^ 2, size, leaf_h, path, root),
        (index, size * 2, leaf_h, path, root),
        (index, size // 2, leaf_h, path, root),
        (index, size, merkle.leaf_hash(b"WrongLeaf"), path, root),
        (index, size, leaf_h, path, ROOTS[0]),
        (index, size, leaf_h, path, SOME_HASH),
        (index, size, leaf_h, [*path, b""], root),
        (index, size, leaf_h, [*path, root], root),
        (index, size, leaf_h, [b"", *path], root),
        (index, size, leaf_h, [root, *path], root),
        (index, size, leaf_h, path[:-1], root),
        (index, size, leaf_h, [path[0], SOME_HASH, *path[1:]], root),
    ]
    for i in range(len(path)):
        bad = list(path)
        bad[i] = bytes([bad[i][0] ^ 8]) + bad[i][1:]
        probes.append((index, size, leaf_h, bad, root))
    for probe in probes:
        with pytest.raises(ProofError):
            merkle.verify_inclusion(*probe)


@pytest.mark.parametrize(("first", "second", "proof"), CONSISTENCY[1:])
def test_corrupted_consistency_proofs_fail(first: int, second: int, proof: list[str]) -> None:
    """The probes of transparency-dev's corruptConsistencyProof."""
    path, r1, r2 = [h(p) for p in proof], ROOTS[first], ROOTS[second]
    probes = [
        (first - 1, second, r1, r2, path),
        (first + 1, second, r1, r2, path),
        (first ^ 2, second, r1, r2, path),
        (first, second * 2, r1, r2, path),
        (first, second // 2, r1, r2, path),
        (first, second, SOME_HASH, r2, path),
        (first, second, r1, SOME_HASH, path),
        (first, second, r2, r1, path),
        (first, second, r1, r2, []),
        (first, second, r1, r2, [*path, b""]),
        (first, second, r1, r2, [*path, r1]),
        (first, second, r1, r2, [*path, r2]),
        (first, second, r1, r2, [b"", *path]),
        (first, second, r1, r2, [r1, *path]),
        (first, second, r1, r2, [r2, *path]),
        (first, second, r1, r2, [path[0], *path]),
        (first, second, r1, r2, path[:-1]),
    ]
    for i in range(len(path)):
        bad = list(path)
        bad[i] = bytes([bad[i][0] ^ 16]) + bad[i][1:]
        probes.append((first, second, r1, r2, bad))
    for probe in probes:
        with pytest.raises(ProofError):
            merkle.verify_consistency(*probe)


def test_the_edge_cases_of_consistency() -> None:
    e = merkle.EMPTY_ROOT
    merkle.verify_consistency(0, 0, e, e, [])
    merkle.verify_consistency(0, 5, e, ROOTS[5], [])  # the empty tree is a prefix of any
    merkle.verify_consistency(3, 3, ROOTS[3], ROOTS[3], [])
    with pytest.raises(ProofError, match="forked"):
        merkle.verify_consistency(3, 3, ROOTS[3], ROOTS[4], [])
    with pytest.raises(ProofError, match="went back"):
        merkle.verify_consistency(4, 3, ROOTS[4], ROOTS[3], [])
    with pytest.raises(ProofError):
        merkle.verify_consistency(3, 3, ROOTS[3], ROOTS[3], [e])
    with pytest.raises(ProofError):
        merkle.verify_consistency(1, 2, ROOTS[1], ROOTS[2], [])
    with pytest.raises(ProofError, match="not in a tree"):
        merkle.inclusion_proof(TREE, 8, 8)
    with pytest.raises(ProofError):
        merkle.consistency_proof(TREE, 5, 4)
    with pytest.raises(ProofError, match="not below"):
        merkle.verify_inclusion(0, 0, ROOTS[1], [], ROOTS[1])
    with pytest.raises(ProofError, match="32"):
        merkle.verify_inclusion(0, 1, b"short", [], ROOTS[1])


def test_the_frontier_names_the_nodes_each_leaf_completes() -> None:
    frontier = merkle.Frontier()
    made = [frontier.append(TREE.hash_of(0, i)) for i in range(8)]
    assert [[(lv, ix) for lv, ix, _ in m] for m in made] == [
        [(0, 0)],
        [(0, 1), (1, 0)],
        [(0, 2)],
        [(0, 3), (1, 1), (2, 0)],
        [(0, 4)],
        [(0, 5), (1, 2)],
        [(0, 6)],
        [(0, 7), (1, 3), (2, 1), (3, 0)],
    ]
    assert all(hash_ == TREE.hash_of(lv, ix) for m in made for lv, ix, hash_ in m)
    assert merkle.Frontier.levels(7) == [(2, 0), (1, 2), (0, 6)]
    again = merkle.Frontier(7, [TREE.hash_of(lv, ix) for lv, ix in merkle.Frontier.levels(7)])
    assert again.root() == ROOTS[7]
    with pytest.raises(ValueError):
        merkle.Frontier(7, [])


# --- properties --------------------------------------------------------------------------

leaves_strategy = st.lists(st.binary(max_size=24), min_size=1, max_size=70)


@settings(max_examples=60, deadline=None)
@given(leaves=leaves_strategy, data=st.data())
def test_every_inclusion_proof_verifies_and_a_changed_byte_fails(
    leaves: list[bytes], data: st.DataObject
) -> None:
    size = data.draw(st.integers(1, len(leaves)), label="size")
    index = data.draw(st.integers(0, size - 1), label="index")
    tree = merkle.LeafList([merkle.leaf_hash(x) for x in leaves])
    root = merkle.subtree_root(tree, 0, size)
    assert root == merkle.root_of_data(leaves[:size])
    proof = merkle.inclusion_proof(tree, index, size)
    merkle.verify_inclusion(index, size, merkle.leaf_hash(leaves[index]), proof, root)

    changed = bytearray(leaves[index] + b"\x00")
    at = data.draw(st.integers(0, len(changed) - 1), label="at")
    changed[at] ^= data.draw(st.integers(1, 255), label="xor")
    with pytest.raises(ProofError):
        merkle.verify_inclusion(index, size, merkle.leaf_hash(bytes(changed)), proof, root)
    if proof:
        which = data.draw(st.integers(0, len(proof) - 1), label="which")
        bad = list(proof)
        bad[which] = bytes([bad[which][0] ^ 1]) + bad[which][1:]
        with pytest.raises(ProofError):
            merkle.verify_inclusion(index, size, merkle.leaf_hash(leaves[index]), bad, root)


@settings(max_examples=60, deadline=None)
@given(leaves=leaves_strategy, data=st.data())
def test_every_consistency_proof_verifies_and_a_changed_byte_fails(
    leaves: list[bytes], data: st.DataObject
) -> None:
    second = data.draw(st.integers(1, len(leaves)), label="second")
    first = data.draw(st.integers(1, second), label="first")
    tree = merkle.LeafList([merkle.leaf_hash(x) for x in leaves])
    r1, r2 = merkle.subtree_root(tree, 0, first), merkle.subtree_root(tree, 0, second)
    proof = merkle.consistency_proof(tree, first, second)
    merkle.verify_consistency(first, second, r1, r2, proof)
    if first == second:
        assert proof == []
        return
    which = data.draw(st.integers(0, len(proof) - 1), label="which")
    byte = data.draw(st.integers(0, 31), label="byte")
    bad = [bytearray(p) for p in proof]
    bad[which][byte] ^= 0x80
    with pytest.raises(ProofError):
        merkle.verify_consistency(first, second, r1, r2, [bytes(p) for p in bad])
    other = bytearray(leaves[first - 1] + b"!")  # the old tree's last leaf, rewritten
    forged = merkle.root_of_data([*leaves[: first - 1], bytes(other)])
    with pytest.raises(ProofError):
        merkle.verify_consistency(first, second, forged, r2, proof)
