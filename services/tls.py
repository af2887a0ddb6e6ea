"""TLS for a service's gRPC server (the lobby's public API, the ledger's audit API).

Off unless ``<PREFIX>_TLS_CERT`` and ``<PREFIX>_TLS_KEY`` name PEM files: the certificate (its
chain, leaf first) and its private key, readable by the service's user only. Both are read and
checked once, at start-up; a bad pair stops the service with a sentence saying what to fix.
Plain text is meant for a loopback address: :func:`plaintext_warning` says when it is not.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import grpc  # type: ignore[import-untyped]
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from match_bus.secretfiles import SecretFileError, check_private


class TlsConfigError(ValueError):
    """The TLS settings cannot be served; the message says which file and what to do."""


@dataclass(frozen=True, slots=True)
class ServerTls:
    """A certificate chain and its key, as read at start-up."""

    cert_file: Path
    key_file: Path
    cert_chain: bytes = field(repr=False)
    private_key: bytes = field(repr=False)
    not_after: str = ""  # the leaf's expiry (ISO 8601, UTC), for the start-up log

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.private_key, self.cert_chain)])


def server_tls(env: Mapping[str, str], prefix: str) -> ServerTls | None:
    """``<prefix>_TLS_CERT`` and ``<prefix>_TLS_KEY``: both, read and checked; neither, None
    (plain text); one alone is an error, as is a key file others may read."""
    cert_name, key_name = f"{prefix}_TLS_CERT", f"{prefix}_TLS_KEY"
    cert_text, key_text = env.get(cert_name, "").strip(), env.get(key_name, "").strip()
    if not cert_text and not key_text:
        return None
    if not cert_text or not key_text:
        given, missing = (cert_name, key_name) if cert_text else (key_name, cert_name)
        raise TlsConfigError(
            f"{given} is set but {missing} is not: give both (PEM files: the certificate and "
            f"its private key) to serve TLS, or neither to serve plain text"
        )
    cert_file, key_file = Path(cert_text), Path(key_text)
    _check_owner_only(key_file, key_name)
    cert_chain = _read(cert_file, cert_name)
    private_key = _read(key_file, key_name)
    try:
        leaf = x509.load_pem_x509_certificate(cert_chain)
    except ValueError:
        raise TlsConfigError(
            f"{cert_name}={cert_file} is not a PEM certificate (-----BEGIN CERTIFICATE-----)"
        ) from None
    try:
        key = serialization.load_pem_private_key(private_key, password=None)
    except (ValueError, TypeError):
        raise TlsConfigError(
            f"{key_name}={key_file} is not an unencrypted PEM private key "
            "(-----BEGIN PRIVATE KEY-----; a key with a passphrase cannot be used)"
        ) from None
    public = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(*public) != leaf.public_key().public_bytes(*public):
        raise TlsConfigError(
            f"{key_name}={key_file} is not the key of the certificate in {cert_name}={cert_file} "
            "(the first certificate in that file must be the server's own)"
        )
    return ServerTls(
        cert_file,
        key_file,
        cert_chain,
        private_key,
        leaf.not_valid_after_utc.isoformat(),
    )


def _check_owner_only(key_file: Path, name: str) -> None:
    try:
        check_private(key_file)
    except SecretFileError as error:
        raise TlsConfigError(f"{name}: {error}") from None


def _read(path: Path, name: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise TlsConfigError(f"{name}={path}: cannot read it ({error.strerror})") from None


def is_loopback(addr: str) -> bool:
    """Whether a gRPC server address (``host:port``, ``[v6]:port``, ``unix:path``) is reachable
    from this machine only: 127.0.0.0/8, ::1, localhost or a Unix socket."""
    if addr.startswith(("unix:", "unix-abstract:")):
        return True
    host = addr.rsplit(":", 1)[0] if addr.count(":") == 1 or addr.startswith("[") else addr
    host = host.removeprefix("[").removesuffix("]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plaintext_warning(addr: str, tls: ServerTls | None, prefix: str) -> str | None:
    """What to log when a server would speak plain text where others can reach it; else None."""
    if tls is not None or is_loopback(addr):
        return None
    return (
        f"TLS is off and {addr} is not a loopback address: traffic, player tokens included, goes "
        f"over the network in plain text; set {prefix}_TLS_CERT and {prefix}_TLS_KEY (PEM files) "
        "to serve TLS (docs/operations.md, TLS)"
    )


def add_port(server: grpc.aio.Server, addr: str, tls: ServerTls | None) -> int:
    """Bind ``addr``: TLS with ``tls``, plain text without. Returns the port."""
    if tls is None:
        return int(server.add_insecure_port(addr))
    return int(server.add_secure_port(addr, tls.credentials()))
