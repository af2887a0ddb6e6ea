"""What a chaos run counts, per game: pure functions over the table's records (as the stream
holds them) and what the scripted player received.

* **lost**: the event numbers from 1 to the highest event number in the table's log that the
  player never received (not in any command reply, not on its Watch stream, and not covered by
  a snapshot it was sent). Every event of a table is numbered, and Watch sends every one of them
  to every seated player (another player's private event as ``OpponentMoved``), so a player who
  followed the game to its end should hold every number. A number missing from the log itself
  (a hole in the table's history) can reach nobody, so it counts as lost too.
* **duplicated**: decisions applied twice, counted in the log: every extra occurrence of an
  event number among the table's records, every extra record with an already used record
  number, and every record that decides a (player, request id) pair an earlier record of the
  table had already decided (a retry judged again instead of answered with its first answer).
* **mismatched**: event numbers the player received with another event than the log holds under
  that number (compared by kind and by the player the event is about; another player's private
  event must arrive as ``OpponentMoved`` about that player).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from match.v1 import common_pb2, referee_pb2
from match_client.tracker import PRIVATE_KINDS


@dataclass(frozen=True, slots=True)
class GameCheck:
    table_id: str
    records: int
    last_event: int  # the highest event number in the log
    received: int  # distinct event numbers the player received
    lost: int
    duplicated: int
    mismatched: int
    notes: tuple[str, ...]


def request_key(record: referee_pb2.TableRecord) -> tuple[str, str] | None:
    """(player, request id) of the command a record decided; None for a timer or no id."""
    which = record.command.WhichOneof("command")
    if which == "race":
        command = record.command.race
        player, request = command.player_id, command.request_id
    elif which == "table":
        player, request = record.command.table.player_id, record.command.table.request_id
    else:
        return None
    return (player, request) if request else None


def kind(envelope: common_pb2.EventEnvelope) -> str:
    """``race.tile_turned``, ``table.player_seated``, ...: what an event is, not what it says."""
    body = envelope.WhichOneof("body") or ""
    inner = getattr(envelope, body) if body else None
    which = inner.WhichOneof("event") if inner is not None else None
    return f"{body}.{which or ''}"


def identity(envelope: common_pb2.EventEnvelope) -> tuple[str, str]:
    """(kind, the player it is about, if any): what redaction keeps of an event."""
    logged = kind(envelope)
    body, _, event = logged.partition(".")
    inner = getattr(getattr(envelope, body), event) if body and event else None
    player = getattr(inner, "player", "") if inner is not None else ""
    return logged, str(player)


def seen_as(envelope: common_pb2.EventEnvelope, viewer: str) -> tuple[str, str]:
    """The identity ``viewer`` should receive for a logged event (another player's private
    event arrives as ``OpponentMoved`` about that player)."""
    logged, player = identity(envelope)
    body, _, event = logged.partition(".")
    if body == "race" and event in PRIVATE_KINDS and player != viewer:
        return "race.opponent_moved", player
    return logged, player


def duplicates(values: Iterable[object]) -> int:
    """How many values occur again after their first occurrence."""
    return sum(n - 1 for n in Counter(values).values() if n > 1)


def check_game(
    table_id: str,
    records: Sequence[referee_pb2.TableRecord],
    viewer: str,
    received: Mapping[int, Sequence[common_pb2.EventEnvelope]],
    snapshots: Sequence[int] = (),
) -> GameCheck:
    logged: dict[int, common_pb2.EventEnvelope] = {}
    numbers: list[int] = []
    for record in records:
        for envelope in record.events:
            numbers.append(envelope.event_number)
            logged.setdefault(envelope.event_number, envelope)
    last = max(numbers, default=0)
    covered = max(snapshots, default=0)
    missing = [n for n in range(1, last + 1) if n not in received and n > covered]
    keys = [k for k in (request_key(r) for r in records) if k is not None]
    twice = (
        duplicates(numbers)
        + duplicates(r.record_number for r in records if r.record_number)
        + duplicates(keys)
    )
    wrong = [
        n
        for n, copies in received.items()
        if n in logged and any(identity(c) != seen_as(logged[n], viewer) for c in copies)
    ]
    notes = []
    if missing:
        notes.append(f"never received: {_ranges(missing)}")
    if twice:
        notes.append(f"applied twice: {twice} (event numbers, record numbers, request ids)")
    if wrong:
        notes.append(f"received another event than the log's: {_ranges(wrong)}")
    if snapshots:
        notes.append(f"snapshots at {list(snapshots)}")
    return GameCheck(
        table_id=table_id,
        records=len(records),
        last_event=last,
        received=len(received),
        lost=len(missing),
        duplicated=twice,
        mismatched=len(wrong),
        notes=tuple(notes),
    )


def _ranges(numbers: Sequence[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    out: list[str] = []
    ordered = sorted(numbers)
    start = prev = ordered[0]
    for n in [*ordered[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)
