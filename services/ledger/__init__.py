"""The ledger: an append-only SQLite copy of every record of MATCH_EVENTS, kept as a transparency
log (RFC 6962 Merkle tree, signed C2SP checkpoints), served on ``match.ledger.records`` and over
gRPC (``LedgerAuditService``). ``python -m services.ledger``."""
