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
  that number as redacted for that player: the log is folded by the table's own game (from the
  registry: ``game.initial_state(None)``, ``game.evolve``, as the lobby's Watch folds it) and
  every game event must arrive as ``game.encode(game.redact(state_after_it, event, player))``,
  field for field; a table event as the log holds it. Where the rules cannot redact an event
  without a state the log did not give (a hand-built log), the event is not for everybody, as
  the lobby's ``shown_as_is`` says: it must arrive about the same player, in another form.

Nothing here names a game: it works for every registered game (the race, Concentration, ...).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from match.v1 import common_pb2, referee_pb2
from match_rules import registry
from match_rules.game import Game

TABLE = "table"  # the EventEnvelope.body member of a table's own events (every game)


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
    game: str = ""  # the table's game's slug ("race", "concentration"); "" if none was found


@dataclass(frozen=True, slots=True)
class Expected:
    """What the viewer must receive under one event number."""

    identity: tuple[str, str]  # (kind, player) of the event as the viewer may see it
    body: Message | None  # the body member exactly as the viewer must get it; None: unknown
    hidden: bool = False  # the rules could not redact it (no state): any other form, same player


def request_key(record: referee_pb2.TableRecord) -> tuple[str, str] | None:
    """(player, request id) of the command a record decided; None for a timer or no id. Every
    member of ``StampedCommand.command`` but the timer (a table command, any game's command)
    carries ``player_id`` and ``request_id``."""
    which = record.command.WhichOneof("command")
    if which is None:
        return None
    command = getattr(record.command, which)
    player = str(getattr(command, "player_id", ""))
    request = str(getattr(command, "request_id", ""))
    return (player, request) if request else None


def kind(envelope: common_pb2.EventEnvelope) -> str:
    """``race.tile_turned``, ``table.player_seated``, ...: what an event is, not what it says."""
    body = envelope.WhichOneof("body") or ""
    return f"{body}.{_event_kind(getattr(envelope, body)) if body else ''}"


def _event_kind(message: Message) -> str:
    oneofs = message.DESCRIPTOR.oneofs
    which = message.WhichOneof(oneofs[0].name) if oneofs else None
    return which or ""


def identity(envelope: common_pb2.EventEnvelope) -> tuple[str, str]:
    """(kind, the player it is about, if any): what redaction keeps of an event."""
    body = envelope.WhichOneof("body")
    if body is None:
        return ".", ""
    return _identity(body, getattr(envelope, body))


def _identity(body: str, message: Message) -> tuple[str, str]:
    event = _event_kind(message)
    inner = getattr(message, event) if event else None
    player = getattr(inner, "player", "") if inner is not None else ""
    return f"{body}.{event}", str(player)


def table_game(records: Sequence[referee_pb2.TableRecord]) -> Game | None:
    """The registered game the table plays: its TableCreated's game kind, else the body member
    of its first game event; None when the log names none this build knows."""
    for record in records:
        for envelope in record.events:
            which = envelope.WhichOneof("body")
            try:
                if which == TABLE and envelope.game_kind:
                    return registry.by_kind(envelope.game_kind)
                if which is not None and which != TABLE:
                    return registry.by_slug(which)
            except registry.UnknownGame:
                return None
    return None


def expected_for(
    game: Game | None, records: Sequence[referee_pb2.TableRecord], viewer: str
) -> dict[int, Expected]:
    """Every event number of the log and what ``viewer`` must receive under it: the log folded
    by the game's own rules, each game event redacted for ``viewer`` with the state after it."""
    out: dict[int, Expected] = {}
    state: Any = game.initial_state(None) if game is not None else None
    folding = game is not None
    for record in records:
        for envelope in record.events:
            number = envelope.event_number
            if number in out:
                continue  # applied twice: counted as duplicated, not redacted twice
            body = envelope.WhichOneof("body")
            if game is None or body != game.slug:
                out[number] = Expected(identity(envelope), _member(envelope))
                continue
            wire = getattr(envelope, body)
            try:
                event = game.decode(wire)
            except Exception:
                out[number] = Expected(identity(envelope), None, hidden=True)
                folding = False
                continue
            if folding:
                try:
                    state = game.evolve(state, event)
                except Exception:  # a log the rules cannot fold: redact without its state
                    folding = False
            out[number] = _redacted(game, state if folding else None, event, viewer, wire)
    return out


def _redacted(game: Game, state: Any, event: Any, viewer: str, wire: Message) -> Expected:
    for after in (state, game.initial_state(None)):
        if after is None:
            continue
        try:
            seen = game.redact(after, event, viewer)
        except Exception:
            continue
        message = wire if seen is event else game.encode(seen)
        return Expected(_identity(game.slug, message), message)
    return Expected(_identity(game.slug, wire), None, hidden=True)


def _member(envelope: common_pb2.EventEnvelope) -> Message | None:
    body = envelope.WhichOneof("body")
    return getattr(envelope, body) if body is not None else None


def matches(expected: Expected, envelope: common_pb2.EventEnvelope) -> bool:
    """Whether a received envelope is what the viewer must get under its number."""
    got = identity(envelope)
    if expected.hidden:
        return got[1] == expected.identity[1] and got[0] != expected.identity[0]
    if got != expected.identity:
        return False
    return expected.body is None or _member(envelope) == expected.body


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
    numbers = [envelope.event_number for record in records for envelope in record.events]
    last = max(numbers, default=0)
    covered = max(snapshots, default=0)
    missing = [n for n in range(1, last + 1) if n not in received and n > covered]
    keys = [k for k in (request_key(r) for r in records) if k is not None]
    twice = (
        duplicates(numbers)
        + duplicates(r.record_number for r in records if r.record_number)
        + duplicates(keys)
    )
    game = table_game(records)
    expected = expected_for(game, records, viewer)
    wrong = [
        n
        for n, copies in received.items()
        if n in expected and any(not matches(expected[n], c) for c in copies)
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
        game=game.slug if game is not None else "",
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
