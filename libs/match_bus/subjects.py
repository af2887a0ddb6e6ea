"""Every NATS subject the services use, in one place (see docs/architecture.md)."""

from __future__ import annotations

import re

EVENTS_STREAM = "MATCH_EVENTS"
EVENTS_ALL = "match.events.>"
SEEDS_BUCKET = "MATCH_SEEDS"

REFEREE_ALL = "match.referee.>"
REFEREE_QUEUE = "referee"
DEALER_COMMIT = "match.dealer.commit"
DEALER_DEAL = "match.dealer.deal"
DEALER_REVEAL = "match.dealer.reveal"
DEALER_QUEUE = "dealer"
LEDGER_RECORDS = "match.ledger.records"
LEDGER_QUEUE = "ledger"
LEDGER_DURABLE = "ledger"

_TABLE_ID = re.compile(r"^[a-z0-9]{8,32}$")


def valid_table_id(table_id: str) -> bool:
    """Table ids are 8-32 lowercase letters and digits: safe as a subject token."""
    return bool(_TABLE_ID.match(table_id))


def events(table_id: str) -> str:
    return f"match.events.{table_id}"


def referee_table(table_id: str) -> str:
    return f"match.referee.table.{table_id}"


def referee_race(table_id: str) -> str:
    return f"match.referee.race.{table_id}"


def table_of(subject: str) -> str:
    """The table id, the last token of a per-table subject."""
    return subject.rsplit(".", 1)[-1]
