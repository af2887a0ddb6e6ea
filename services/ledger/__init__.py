"""The ledger: an append-only SQLite copy of every record of MATCH_EVENTS, served on
``match.ledger.records``. ``python -m services.ledger``."""
