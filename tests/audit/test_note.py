"""Signed notes and checkpoints against the C2SP spec and the reference implementation's vectors
(golang.org/x/mod/sumdb/note note_test.go), round trips, and clear failures."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from match_audit import merkle, note
from match_audit.note import Checkpoint, NoteError, Signer, Verifier

# golang.org/x/mod/sumdb/note note_test.go
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"  # noqa: E501
PETER_SIG = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"  # noqa: E501
ENOCH_SIG = "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n"  # noqa: E501

# c2sp.org/tlog-checkpoint: the example (its key is not published, so only the text is checked)
SPEC_CHECKPOINT = (
    "example.com/behind-the-sofa\n"
    "20852163\n"
    "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    "\n"
    "— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/"
    "Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
)


def test_the_reference_key_and_signature_are_reproduced_byte_for_byte() -> None:
    signer = Signer.parse_go_private_key(PETER_SKEY)
    assert str(signer.verifier) == PETER_VKEY
    assert signer.verifier.key_id == 0xC74F20A3  # SHA-256(name || 0x0A || 0x01 || key)[:4]
    assert note.sign(TEXT, signer) == TEXT + "\n" + PETER_SIG  # Ed25519 is deterministic
    assert note.open_note(TEXT + "\n" + PETER_SIG, [Verifier.parse(PETER_VKEY)]) == TEXT


def test_verifier_keys_parse_and_print_back() -> None:
    for text in (PETER_VKEY, ENOCH_VKEY):
        assert str(Verifier.parse(text)) == text
    enoch = Verifier.parse(ENOCH_VKEY)
    assert (enoch.name, enoch.key_id) == ("EnochRoot", 0xAF0CFE78)


@pytest.mark.parametrize(
    "bad",
    [
        "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # wrong key id
        "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",  # length
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # not Ed25519
        "PeterNeumann+c74f20a3",
        "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T",
    ],
)
def test_a_mangled_verifier_key_is_refused(bad: str) -> None:
    with pytest.raises(NoteError):
        Verifier.parse(bad)


def test_every_substring_and_every_changed_byte_of_the_key_is_refused() -> None:
    """As the reference test does."""
    for i in range(len(PETER_VKEY)):
        for j in range(i + 1, len(PETER_VKEY) + 1):
            if (i, j) != (0, len(PETER_VKEY)):
                with pytest.raises(NoteError):
                    Verifier.parse(PETER_VKEY[i:j])
        changed = PETER_VKEY[:i] + chr(ord(PETER_VKEY[i]) + 1) + PETER_VKEY[i + 1 :]
        with pytest.raises(NoteError):
            Verifier.parse(changed)


def test_open_checks_known_keys_and_ignores_unknown_ones() -> None:
    peter, enoch = Verifier.parse(PETER_VKEY), Verifier.parse(ENOCH_VKEY)
    both = TEXT + "\n" + PETER_SIG + ENOCH_SIG
    assert note.open_note(both, [peter]) == TEXT
    assert note.open_note(both, [enoch]) == TEXT
    assert note.open_note(both, [peter, enoch]) == TEXT
    with pytest.raises(NoteError, match="not signed by"):
        note.open_note(both, [])
    parsed = note.parse(both)
    assert [(s.name, s.key_id) for s in parsed.signatures] == [
        ("PeterNeumann", 0xC74F20A3),
        ("EnochRoot", 0xAF0CFE78),
    ]


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (TEXT, "no blank line|not a signature line"),
        (TEXT + "\n", "no signature lines"),
        (TEXT + "\n" + PETER_SIG[:-1], "does not end in a newline"),
        ("\x01" + TEXT + "\n" + PETER_SIG, "control character"),
        (TEXT + "\n" + "— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSN"
         "XgKvqfqdngotpRZb6KE6RyyBwJnAM=\n", "signature line"),
        (TEXT + "\n" + PETER_SIG + "Unexpected line.\n", "not a signature line"),
        (TEXT + "\n" + PETER_SIG * 101, "too many"),
    ],
)  # fmt: skip
def test_malformed_notes_are_refused(bad: str, reason: str) -> None:
    with pytest.raises(NoteError, match=reason):
        note.open_note(bad, [Verifier.parse(PETER_VKEY)])


def test_a_bad_signature_a_wrong_key_id_or_altered_text_fails_with_a_reason() -> None:
    peter = Verifier.parse(PETER_VKEY)
    blob = bytearray(base64.b64decode(PETER_SIG.split()[-1]))
    blob[10] ^= 1
    bad_sig = f"— PeterNeumann {base64.b64encode(bytes(blob)).decode()}\n"
    with pytest.raises(NoteError, match=r"signature by PeterNeumann\+c74f20a3 does not verify"):
        note.open_note(TEXT + "\n" + bad_sig, [peter])

    blob = bytearray(base64.b64decode(PETER_SIG.split()[-1]))
    blob[3] ^= 1  # the key id
    other_id = f"— PeterNeumann {base64.b64encode(bytes(blob)).decode()}\n"
    with pytest.raises(NoteError, match=r"not signed by PeterNeumann\+c74f20a3"):
        note.open_note(TEXT + "\n" + other_id, [peter])

    altered = TEXT.replace("cryptography", "cryptographY")
    with pytest.raises(NoteError, match="does not verify"):
        note.open_note(altered + "\n" + PETER_SIG, [peter])

    impostor = Signer("PeterNeumann", Ed25519PrivateKey.generate())  # same name, other key
    with pytest.raises(NoteError, match="not signed by"):
        note.open_note(note.sign(TEXT, impostor), [peter])


def test_a_signature_in_non_canonical_base64_is_refused() -> None:
    encoded = PETER_SIG.split()[-1]  # ends "AM=": the M carries 2 unused bits
    stray = encoded[:-2] + "N="  # the same bytes, spelt another way
    assert base64.b64decode(stray) == base64.b64decode(encoded)
    with pytest.raises(NoteError, match="canonical"):
        note.open_note(TEXT + "\n" + f"— PeterNeumann {stray}\n", [Verifier.parse(PETER_VKEY)])


def test_the_spec_checkpoint_parses() -> None:
    parsed = note.parse(SPEC_CHECKPOINT)
    (signature,) = parsed.signatures
    assert signature.name == "example.com/behind-the-sofa"
    assert len(signature.signature) == 64  # Ed25519
    checkpoint = Checkpoint.parse(parsed.text)
    assert (checkpoint.origin, checkpoint.size) == ("example.com/behind-the-sofa", 20852163)
    assert checkpoint.root == base64.b64decode("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=")
    assert checkpoint.text() == parsed.text  # byte for byte


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("origin\n5\n", "fewer than three"),
        ("\n5\n" + base64.b64encode(bytes(32)).decode() + "\n", "origin is empty"),
        ("o\n05\n" + base64.b64encode(bytes(32)).decode() + "\n", "not a decimal"),
        ("o\n-5\n" + base64.b64encode(bytes(32)).decode() + "\n", "not a decimal"),
        ("o\n5\n" + base64.b64encode(bytes(31)).decode() + "\n", "not 32 bytes"),
        ("o\n5\nnot base64!\n", "base64"),
        ("o\n5\n" + base64.b64encode(bytes(32)).decode() + "\n\nx\n", "empty extension"),
        ("o\n5\n" + base64.b64encode(bytes(32)).decode(), "newline"),
    ],
)
def test_malformed_checkpoints_are_refused(text: str, reason: str) -> None:
    with pytest.raises(NoteError, match=reason):
        Checkpoint.parse(text)


def test_a_checkpoint_round_trips_and_must_be_signed_under_its_origin() -> None:
    signer = Signer("match.local/ledger", Ed25519PrivateKey.generate())
    checkpoint = Checkpoint("match.local/ledger", 7, merkle.EMPTY_ROOT, ("ext one",))
    signed = note.sign_checkpoint(checkpoint, signer)
    assert signed.startswith("match.local/ledger\n7\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
    assert note.open_checkpoint(signed, signer.verifier) == checkpoint
    elsewhere = Signer("other.example/log", Ed25519PrivateKey.generate())
    with pytest.raises(NoteError, match="origin"):
        note.open_checkpoint(note.sign_checkpoint(checkpoint, elsewhere), elsewhere.verifier)
    with pytest.raises(NoteError):
        Checkpoint("two\nlines", 1, merkle.EMPTY_ROOT).text()
    with pytest.raises(NoteError, match="end in a newline"):
        note.sign("no newline", signer)


@settings(max_examples=40, deadline=None)
@given(
    origin=st.from_regex(r"[a-z0-9./-]{1,30}", fullmatch=True),
    size=st.integers(0, 2**63),
    root=st.binary(min_size=32, max_size=32),
    data=st.data(),
)
def test_a_signed_checkpoint_round_trips_and_any_changed_byte_fails(
    origin: str, size: int, root: bytes, data: st.DataObject
) -> None:
    signer = Signer.from_seed(origin, bytes(32))
    signed = note.sign_checkpoint(Checkpoint(origin, size, root), signer)
    assert note.open_checkpoint(signed, signer.verifier) == Checkpoint(origin, size, root)
    raw = bytearray(signed.encode())
    at = data.draw(st.integers(0, len(raw) - 2), label="at")  # not the final newline
    raw[at] ^= data.draw(st.sampled_from([0x01, 0x02, 0x20]), label="xor")
    try:
        changed = raw.decode()
    except UnicodeDecodeError:
        return  # not text: nobody can even read it as a note
    with pytest.raises(NoteError):
        note.open_checkpoint(changed, signer.verifier)
