"""C2SP signed notes (c2sp.org/signed-note) with Ed25519, and tlog checkpoints
(c2sp.org/tlog-checkpoint) as their text.

A signed note is a text ending in a newline, a blank line, then one or more signature lines
``— <key name> <base64(key id || signature)>`` (em dash U+2014). The key id of an Ed25519 key is
``SHA-256(name || 0x0A || 0x01 || public key)[:4]``, big-endian. A verifier key is written
``<name>+<8 hex digits of the key id>+<base64(0x01 || public key)>``.

A checkpoint's text is ``<origin>\\n<tree size>\\n<base64 root hash>\\n`` followed by optional,
non-empty extension lines.

Pure but for the signing and verifying, which use the ``cryptography`` package.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALG_ED25519 = 0x01
EM_DASH = "\u2014"
MAX_SIGNATURES = 100
_DECIMAL = re.compile(r"^(0|[1-9][0-9]*)$")
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


class NoteError(ValueError):
    """A note, key or checkpoint is malformed or does not verify; the message says why."""


def _b64decode(text: str, what: str) -> bytes:
    if not _BASE64.match(text) or len(text) % 4:
        raise NoteError(f"{what} is not standard base64")
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise NoteError(f"{what} is not standard base64") from None
    if _b64(data) != text:  # one encoding per value: no stray bits in the last character
        raise NoteError(f"{what} is not canonical base64")
    return data


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def check_key_name(name: str) -> None:
    """Key names are non-empty, with no Unicode space and no ``+``."""
    if not name or "+" in name or any(c.isspace() for c in name) or not name.isprintable():
        raise NoteError(f"{name!r} is not a valid key name (non-empty, no spaces, no '+')")


def key_id(name: str, public_key: bytes) -> int:
    """The Ed25519 key id: the first 4 bytes of SHA-256(name || 0x0A || 0x01 || key), big-endian."""
    digest = hashlib.sha256(name.encode() + b"\n" + bytes([ALG_ED25519]) + public_key).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass(frozen=True, slots=True)
class Verifier:
    """An Ed25519 verifier key: its name, key id and 32-byte public key."""

    name: str
    key_id: int
    public_key: bytes

    @classmethod
    def from_public_key(cls, name: str, public_key: bytes) -> Verifier:
        check_key_name(name)
        if len(public_key) != 32:
            raise NoteError(f"an Ed25519 public key is 32 bytes, not {len(public_key)}")
        return cls(name, key_id(name, public_key), public_key)

    @classmethod
    def parse(cls, text: str) -> Verifier:
        """``<name>+<hex key id>+<base64(0x01 || public key)>``; the key id must be the one the
        name and the key give."""
        text = text.strip()
        parts = text.split("+", 2)
        if len(parts) != 3 or not parts[2]:
            raise NoteError("a verifier key is <name>+<hex key id>+<base64 key>")
        name, hex_id, encoded = parts
        check_key_name(name)
        if not re.fullmatch(r"[0-9a-f]{8}", hex_id):
            raise NoteError("the key id of a verifier key is 8 lowercase hex digits")
        raw = _b64decode(encoded, "the verifier key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise NoteError("the verifier key is not an Ed25519 key (0x01 and 32 bytes)")
        verifier = cls.from_public_key(name, raw[1:])
        if verifier.key_id != int(hex_id, 16):
            raise NoteError(
                f"the verifier key's id {hex_id} is not the id of its name and key "
                f"({verifier.key_id:08x})"
            )
        return verifier

    def __str__(self) -> str:
        return f"{self.name}+{self.key_id:08x}+{_b64(bytes([ALG_ED25519]) + self.public_key)}"

    @property
    def label(self) -> str:
        """``name+keyid``: how messages name the key."""
        return f"{self.name}+{self.key_id:08x}"

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


class Signer:
    """An Ed25519 private key with its key name."""

    def __init__(self, name: str, private_key: Ed25519PrivateKey) -> None:
        check_key_name(name)
        self.name = name
        self._key = private_key
        public = private_key.public_key().public_bytes_raw()
        self.verifier = Verifier.from_public_key(name, public)

    @classmethod
    def from_seed(cls, name: str, seed: bytes) -> Signer:
        return cls(name, Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def parse_go_private_key(cls, text: str) -> Signer:
        """The Go ``golang.org/x/mod/sumdb/note`` private key form,
        ``PRIVATE+KEY+<name>+<hex id>+<base64(0x01 || seed)>`` (used by tests and tooling)."""
        prefix = "PRIVATE+KEY+"
        if not text.startswith(prefix):
            raise NoteError("a private key starts with PRIVATE+KEY+")
        name, hex_id, encoded = [*text[len(prefix) :].split("+", 2), "", ""][:3]
        raw = _b64decode(encoded, "the private key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise NoteError("the private key is not an Ed25519 key")
        signer = cls.from_seed(name, raw[1:])
        if f"{signer.verifier.key_id:08x}" != hex_id:
            raise NoteError("the private key's id does not match its name and key")
        return signer

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


@dataclass(frozen=True, slots=True)
class Signature:
    """One signature line: the key name, the key id and the signature bytes."""

    name: str
    key_id: int
    signature: bytes

    def line(self) -> str:
        blob = self.key_id.to_bytes(4, "big") + self.signature
        return f"{EM_DASH} {self.name} {_b64(blob)}\n"


@dataclass(frozen=True, slots=True)
class Note:
    """A parsed (not yet verified) signed note."""

    text: str  # ends in a newline
    signatures: tuple[Signature, ...]


def sign(text: str, *signers: Signer) -> str:
    """The signed note of ``text`` (which must end in a newline) by each signer."""
    _check_text(text)
    if not signers:
        raise NoteError("a signed note needs at least one signature")
    message = text.encode()
    lines = [Signature(s.name, s.verifier.key_id, s.sign(message)).line() for s in signers]
    return text + "\n" + "".join(lines)


def _check_text(text: str) -> None:
    if not text.endswith("\n"):
        raise NoteError("the note text must end in a newline")
    if any(ord(c) < 0x20 and c != "\n" for c in text):
        raise NoteError("the note holds a control character other than newline")


def parse(note: str) -> Note:
    """Split a signed note into its text and signature lines; no signature is checked yet."""
    if any(ord(c) < 0x20 and c != "\n" for c in note):
        raise NoteError("malformed note: it holds a control character other than newline")
    if not note.endswith("\n"):
        raise NoteError("malformed note: it does not end in a newline")
    split = note.rfind("\n\n")
    if split < 0:
        raise NoteError("malformed note: no blank line before the signatures")
    text, block = note[: split + 1], note[split + 2 :]
    if not text.strip("\n"):
        raise NoteError("malformed note: the text is empty")
    signatures: list[Signature] = []
    for line in block.splitlines():
        if not line.startswith(EM_DASH + " "):
            raise NoteError(f"malformed note: {line[:40]!r} is not a signature line")
        fields = line[2:].split(" ")
        if len(fields) != 2:
            raise NoteError(f"malformed note: signature line {line[:40]!r}")
        name, encoded = fields
        check_key_name(name)
        blob = _b64decode(encoded, f"the signature by {name}")
        if len(blob) < 5:
            raise NoteError(f"malformed note: the signature by {name} is too short")
        signatures.append(Signature(name, int.from_bytes(blob[:4], "big"), blob[4:]))
    if not signatures:
        raise NoteError("malformed note: no signature lines")
    if len(signatures) > MAX_SIGNATURES:
        raise NoteError("malformed note: too many signatures")
    return Note(text, tuple(signatures))


def open_note(note: str, verifiers: Sequence[Verifier]) -> str:
    """Verify ``note`` and return its text. It must carry a signature by a known key (same name
    and key id) that verifies; a known key's signature that does not verify fails the note.
    Signatures by unknown keys are ignored."""
    parsed = parse(note)
    message = parsed.text.encode()
    known = {(v.name, v.key_id): v for v in verifiers}
    verified = 0
    for sig in parsed.signatures:
        verifier = known.get((sig.name, sig.key_id))
        if verifier is None:
            continue
        if not verifier.verify(message, sig.signature):
            raise NoteError(f"the signature by {verifier.label} does not verify")
        verified += 1
    if not verified:
        found = ", ".join(f"{s.name}+{s.key_id:08x}" for s in parsed.signatures)
        wanted = ", ".join(v.label for v in verifiers) or "no key"
        raise NoteError(f"the note is not signed by {wanted} (it has signatures by {found})")
    return parsed.text


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A tlog checkpoint: the log's origin, its tree size and the root hash at that size."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        if not self.origin or "\n" in self.origin:
            raise NoteError("a checkpoint origin is one non-empty line")
        if self.size < 0:
            raise NoteError("a tree size is not negative")
        if len(self.root) != 32:
            raise NoteError("a checkpoint root is 32 bytes")
        for line in self.extensions:
            if not line or "\n" in line:
                raise NoteError("extension lines are non-empty single lines")
        head = f"{self.origin}\n{self.size}\n{_b64(self.root)}\n"
        return head + "".join(f"{line}\n" for line in self.extensions)

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        if not text.endswith("\n"):
            raise NoteError("malformed checkpoint: the text does not end in a newline")
        lines = text[:-1].split("\n")
        if len(lines) < 3:
            raise NoteError("malformed checkpoint: fewer than three lines")
        origin, size, root, *extensions = lines
        if not origin:
            raise NoteError("malformed checkpoint: the origin is empty")
        if not _DECIMAL.match(size):
            raise NoteError(f"malformed checkpoint: tree size {size[:24]!r} is not a decimal")
        digest = _b64decode(root, "the checkpoint's root hash")
        if len(digest) != 32:
            raise NoteError("malformed checkpoint: the root hash is not 32 bytes")
        if any(not line for line in extensions):
            raise NoteError("malformed checkpoint: an empty extension line")
        return cls(origin, int(size), digest, tuple(extensions))


def sign_checkpoint(checkpoint: Checkpoint, signer: Signer) -> str:
    return sign(checkpoint.text(), signer)


def open_checkpoint(note: str, verifier: Verifier) -> Checkpoint:
    """Verify a signed checkpoint with the log's key and parse it; its origin must be the key's
    name (the log signs under its origin)."""
    checkpoint = Checkpoint.parse(open_note(note, [verifier]))
    if checkpoint.origin != verifier.name:
        raise NoteError(
            f"the checkpoint's origin {checkpoint.origin!r} is not the key's name {verifier.name!r}"
        )
    return checkpoint
