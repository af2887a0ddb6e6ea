"""Every NATS subject the services use, in one place (see docs/architecture.md)."""

from __future__ import annotations

import re
import zlib

EVENTS_STREAM = "MATCH_EVENTS"
EVENTS_ALL = "match.events.>"
# The log's readers that need consumers by the hundred (the lobby: one per watched table; the
# players service: one per replica) each read their own copy of it: a mirror of MATCH_EVENTS
# (the same records under the same stream sequences), made by whoever makes the log. A reader
# may make consumers on its copy only, so it can neither fill the log's consumer limit nor touch
# the ledger's durable consumer (docs/operations.md, "Threat model"). Each copy has its own cap.
EVENTS_COPIES = {"lobby": "MATCH_EVENTS_LOBBY", "players": "MATCH_EVENTS_PLAYERS"}
LOBBY_EVENTS = EVENTS_COPIES["lobby"]
PLAYERS_EVENTS = EVENTS_COPIES["players"]
# Consumers each copy takes: a lobby replica holds its table listing's and one per table while
# its feed catches up (one per table followed, if the copy does not push); a players replica
# holds one follower and a table read at a time.
COPY_MAX_CONSUMERS = {"lobby": 1000, "players": 64}
# The lobby's copy pushes each record it stores on core NATS as well (the stream's RePublish):
# ``match.live.p<NN>.<table_id>``, with headers naming its stream sequence and the sequence of
# the table's record before it, so a lobby follows a watched table with a plain subscription
# and reads the copy only to catch up (services/lobby/fanout.py). Only nats-server publishes
# there (no identity may); only the lobby subscribes.
LIVE_ALL = "match.live.>"
SEEDS_BUCKET = "MATCH_SEEDS"

# The lobbies' checkpoint of their table listing (an object store bucket): a lobby starting
# reads the log from there on (services/lobby/snapshot.py).
LOBBY_LISTING_BUCKET = "MATCH_LOBBY_LISTING"
REFEREE_ALL = "match.referee.>"
REFEREE_LEASES_BUCKET = "MATCH_REFEREE_LEASES"
# Where each partition's live tables begin on the log (key ``pNN``): a replica taking the
# partition on reads it from there (services/referee/marks.py).
REFEREE_MARKS_BUCKET = "MATCH_REFEREE_MARKS"
# Tables are spread over a fixed number of partitions; each partition has one referee at a time
# (the holder of its lease), which subscribes to ``match.referee.p<NN>.>``; a table's events are
# stored under ``match.events.p<NN>.<table_id>``. The number is fixed for the life of a stream.
PARTITIONS = 16
DEALER_COMMIT = "match.dealer.commit"
DEALER_DEAL = "match.dealer.deal"
DEALER_REVEAL = "match.dealer.reveal"
DEALER_QUEUE = "dealer"
LEDGER_RECORDS = "match.ledger.records"
LEDGER_QUEUE = "ledger"
LEDGER_DURABLE = "ledger"
# The players service (services/players): the lobby's questions, request and reply, answered by
# any replica (queue group); its durable consumer of the log (one per replica, like the ledger's).
PLAYERS_QUERY = "match.players.query"
PLAYERS_QUEUE = "players"
PLAYERS_DURABLE = "players"

_TABLE_ID = re.compile(r"^[a-z0-9]{8,32}$")


def valid_table_id(table_id: str) -> bool:
    """Table ids are 8-32 lowercase letters and digits: safe as a subject token."""
    return bool(_TABLE_ID.match(table_id))


def events(table_id: str) -> str:
    """The table's subject in the events stream: ``match.events.p<NN>.<table_id>``."""
    return f"match.events.{partition_name(partition_of(table_id))}.{table_id}"


def live(table_id: str) -> str:
    """Where the lobby's copy pushes the table's records: ``match.live.p<NN>.<table_id>``."""
    return f"match.live.{partition_name(partition_of(table_id))}.{table_id}"


# A partition's frames (match.v1.RecordFrame: several tables' records in one message, one fsync)
# are stored in the same stream, on the partition's subject with this last token. It is too
# short to be a table id, so it never names a table.
FRAME_TOKEN = "frame"


def frames(partition: int) -> str:
    """The partition's frame subject in the events stream: ``match.events.p<NN>.frame``."""
    return f"match.events.{partition_name(partition)}.{FRAME_TOKEN}"


def live_frames(partition: int) -> str:
    """Where the lobby's copy pushes the partition's frames: ``match.live.p<NN>.frame``."""
    return f"match.live.{partition_name(partition)}.{FRAME_TOKEN}"


def partition_of_frames(subject: str) -> int | None:
    """The partition whose frame subject ``subject`` is; None for any other subject."""
    parts = subject.split(".")
    if len(parts) != 4 or parts[:2] != ["match", "events"] or parts[3] != FRAME_TOKEN:
        return None
    name = parts[2]
    if len(name) != 3 or name[0] != "p" or not name[1:].isdigit():
        return None
    partition = int(name[1:])
    return partition if partition < PARTITIONS and subject == frames(partition) else None


def events_of_partition(partition: int) -> str:
    return f"match.events.{partition_name(partition)}.>"


def partition_of(table_id: str) -> int:
    """The table's partition: CRC-32 of its id, modulo PARTITIONS (stable across processes)."""
    return zlib.crc32(table_id.encode("ascii", "replace")) % PARTITIONS


def partition_name(partition: int) -> str:
    return f"p{partition:02d}"


def referee_partition(partition: int) -> str:
    """Everything the referee holding ``partition`` answers: ``match.referee.p<NN>.>``."""
    return f"match.referee.{partition_name(partition)}.>"


def referee_table(table_id: str) -> str:
    return f"match.referee.{partition_name(partition_of(table_id))}.table.{table_id}"


def referee_game(slug: str, table_id: str) -> str:
    """Where a game's player commands go: ``match.referee.p<NN>.<slug>.<table_id>`` (the slug
    is the game's, match_rules.game)."""
    return f"match.referee.{partition_name(partition_of(table_id))}.{slug}.{table_id}"


def referee_race(table_id: str) -> str:
    return referee_game("race", table_id)


def table_of(subject: str) -> str:
    """The table id, the last token of a per-table subject."""
    return subject.rsplit(".", 1)[-1]


def table_of_events(subject: str) -> str | None:
    """The table whose log ``subject`` is: ``match.events.p<NN>.<table_id>`` with a valid id in
    its own partition. None for any other subject under ``match.events.>``: a record there
    belongs to no table (nobody but the referee should publish here, and it never does that)."""
    parts = subject.split(".")
    if len(parts) != 4 or parts[0] != "match" or parts[1] != "events":
        return None
    table_id = parts[3]
    if not valid_table_id(table_id) or subject != events(table_id):
        return None
    return table_id
