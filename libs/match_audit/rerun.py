"""Re-run the rules over a table's records: the same inputs must give the same outputs.

Any registered game (match_rules.registry): the table's TableCreated names it (its envelope's
game kind, or the member of its ``settings`` oneof, the game's slug) and carries its settings.
Every record holds the command the referee stamped on arrival (or a timer's tick) and what came
of it: the events, or the refusal. An auditor with the seed re-deals (``game.deal``), then feeds
each stamped command to the pure rules again, exactly as the referee does:

* a player's command (``StampedCommand.<slug>``): ``game.command``, stamped ``received_at_ms``;
* a timer (``StampedCommand.tick``): ``game.tick``;
* ``TableCommand.Presence``: ``game.presence`` (recorded only when it changed the game);
* the record that seats the last player, or the host's StartTable that seats CPU players, or a
  one-seat table's CreateTable: ``game.start`` with the seats as the table holds them then.

The events the rules give are encoded with ``game.encode`` and compared with the log's byte for
byte (and their times with the envelopes'). Any difference (an event the rules would not have
given, a refusal they would not have made, a deadline that fired at the wrong instant, a number
out of sequence, results that do not follow from the deal) is a finding that names the first bad
record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from match.v1 import common_pb2, referee_pb2
from match_rules import registry
from match_rules.errors import RuleError
from match_rules.game import Game, Results, SeatInfo


@dataclass(frozen=True, slots=True)
class Finding:
    record: int  # 0-based index of the record in the table's history
    problem: str

    def __str__(self) -> str:
        return f"record {self.record}: {self.problem}"


@dataclass(frozen=True, slots=True)
class Rerun:
    findings: tuple[Finding, ...]
    accepted: int  # commands the rules accepted
    refused: int  # commands the rules refused
    events: int
    results: Results | None = None  # the game's, once the rules end it

    @property
    def ok(self) -> bool:
        return not self.findings


class TableError(ValueError):
    """The records do not say which registered game the table plays; ``record`` is where."""

    def __init__(self, record: int, message: str) -> None:
        super().__init__(message)
        self.record = record
        self.message = message


@dataclass(frozen=True, slots=True)
class TableGame:
    """The game a table plays and its settings, as its TableCreated records them."""

    game: Game
    settings: Message
    record: int  # the index of the record that holds TableCreated


def table_game(records: Sequence[referee_pb2.TableRecord]) -> TableGame:
    """The game of the table whose records these are, from its (one) TableCreated."""
    for index, record in enumerate(records):
        for env in record.events:
            if env.WhichOneof("body") == "table" and env.table.HasField("table_created"):
                created = env.table.table_created
                member = created.WhichOneof("settings")
                try:
                    if env.game_kind != common_pb2.GAME_KIND_UNSPECIFIED:
                        game = registry.by_kind(env.game_kind)
                    elif member is not None:
                        game = registry.by_slug(member)
                    else:
                        raise TableError(
                            index, "TableCreated names no game (no game kind, no settings)"
                        )
                except registry.UnknownGame as error:
                    raise TableError(
                        index, f"TableCreated names a game this auditor does not know ({error})"
                    ) from None
                if member is not None and member != game.slug:
                    raise TableError(
                        index,
                        f"TableCreated is of game kind {game.slug!r} but holds {member!r} settings",
                    )
                settings = (
                    getattr(created, game.slug) if member is not None else game.settings(None)
                )
                return TableGame(game, settings, index)
    raise TableError(0, "the records hold no TableCreated: the table's start is missing")


def game_messages(game: Game, record: referee_pb2.TableRecord) -> list[Message]:
    """The record's events of ``game`` (the envelopes' ``<slug>`` members), in order."""
    return [getattr(e, game.slug) for e in record.events if e.WhichOneof("body") == game.slug]


def ended_at(game: Game, records: Sequence[referee_pb2.TableRecord]) -> int | None:
    """The index of the record whose events end the game (the rules' ``is_terminal`` after
    folding the events, without the deal), or None while it is not over. Raises ValueError
    (or the game codec's error) for an event the game cannot read."""
    state = game.initial_state(None)
    for index, record in enumerate(records):
        events = game_messages(game, record)
        for message in events:
            state = game.evolve(state, game.decode(message))
        if events and game.is_terminal(state):
            return index
    return None


def game_over(records: Sequence[referee_pb2.TableRecord]) -> bool:
    """Whether the table's game is over, by its own rules (False when that cannot be read)."""
    try:
        return ended_at(table_game(records).game, records) is not None
    except ImportError:  # a game missing from this build: never a quiet "not over"
        raise
    except Exception:  # a table the rules cannot read is not a finished game to publish
        return False


def _text(message: Message) -> str:
    return text_format.MessageToString(message, as_one_line=True) or "(empty)"


@dataclass
class _Table:
    """What the auditor folds of the table's own events."""

    seats: dict[int, SeatInfo] = field(default_factory=dict)
    deal_version: str = ""

    def fold(self, record: referee_pb2.TableRecord) -> None:
        for env in record.events:
            if env.WhichOneof("body") != "table":
                continue
            which = env.table.WhichOneof("event")
            if which == "player_seated":
                s = env.table.player_seated
                self.seats[s.seat] = SeatInfo(s.seat, s.player_id, s.display_name, s.is_bot)
            elif which == "player_left":
                self.seats.pop(env.table.player_left.seat, None)
            elif which == "seed_committed":
                self.deal_version = env.table.seed_committed.deal_version


class _Stop(Exception):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _numbering(index: int, record: referee_pb2.TableRecord, next_number: int) -> None:
    if record.record_number != index + 1:
        raise _Stop(
            f"record number {record.record_number} where {index + 1} was due: a record is "
            "missing, extra or moved"
        )
    numbers = [e.event_number for e in record.events]
    if numbers and (
        record.first_event_number != next_number
        or numbers != list(range(next_number, next_number + len(numbers)))
    ):
        raise _Stop(
            f"events numbered {numbers}, expected to start at {next_number}: an event is "
            "missing, extra or moved"
        )


def _command(
    game: Game, table: _Table, record: referee_pb2.TableRecord, state: Any, settings: Message
) -> Any | None:
    """The command the referee judged for ``record`` (None: nothing the rules judge)."""
    stamped = record.command
    now = stamped.received_at_ms
    which = stamped.WhichOneof("command")
    recorded = bool(game_messages(game, record))
    if which == "tick":
        return game.tick(now)
    if which == game.slug:
        try:
            return game.command(getattr(stamped, which), now)
        except RuleError as error:
            raise _Stop(
                f"a command the referee refuses before judging it ({error.code.slug}: "
                f"{error.message}) is in the log"
            ) from None
    if which == "table":
        if stamped.table.WhichOneof("command") == "presence":
            presence = stamped.table.presence
            return game.presence(now, stamped.table.player_id, presence.present)
        if recorded and not game.is_started(state):  # the seats are taken: the game starts
            seats = [table.seats[n] for n in sorted(table.seats)]
            return game.start(now, seats, settings, table.deal_version)
        return None
    if which is not None and recorded:
        raise _Stop(f"a command of another game ({which}) on a table of {game.slug}")
    return None


def rerun(
    records: Sequence[referee_pb2.TableRecord],
    game: Game,
    settings: Message,
    deal: Message,
) -> Rerun:
    """Re-run ``game``'s rules over ``records`` (in order), with ``settings`` as the table's
    TableCreated records them and ``deal`` dealt from the seed."""
    state = game.initial_state(deal)
    table = _Table()
    next_number = 1
    accepted = refused = count = 0
    for index, record in enumerate(records):
        try:
            _numbering(index, record, next_number)
            next_number += len(record.events)
            count += len(record.events)
            table.fold(record)
            command = _command(game, table, record, state, settings)
            recorded = [
                (e.server_time_ms, getattr(e, game.slug))
                for e in record.events
                if e.WhichOneof("body") == game.slug
            ]
            if command is None:
                if recorded:
                    raise _Stop(f"events of {game.slug} with no command that could cause them")
                continue
            now = record.command.received_at_ms
            if game.is_started(state) and now < game.clock(state):
                raise _Stop(
                    f"stamped {now}, before the game's latest event at {game.clock(state)}: "
                    "the referee never stamps a command earlier"
                )
            try:
                steps = game.decide_steps(state, command)
            except RuleError as error:
                if not record.HasField("refusal"):
                    raise _Stop(
                        f"the rules refuse {command} ({error.code.slug}) but it was accepted"
                    ) from None
                if record.refusal.code != error.code.slug:
                    raise _Stop(
                        f"refused as {record.refusal.code!r}; the rules say {error.code.slug!r}"
                    ) from None
                refused += 1
                continue
            if record.HasField("refusal"):
                raise _Stop(f"refused as {record.refusal.code!r}, but the rules accept {command}")
            _compare(game, steps, recorded, now)
            if steps:
                state = steps[-1][1]
            if record.command.WhichOneof("command") != "tick":
                accepted += 1
        except _Stop as stop:
            return Rerun((Finding(index, stop.problem),), accepted, refused, count)
    return Rerun((), accepted, refused, count, game.results(state))


def _compare(
    game: Game, steps: list[tuple[Any, Any]], recorded: list[tuple[int, Message]], now: int
) -> None:
    """The events the rules give against the log's, byte for byte, and their times."""
    expected = [(_at(event, now), event, game.encode(event)) for event, _ in steps]
    for i in range(max(len(expected), len(recorded))):
        if i >= len(expected):
            raise _Stop(
                f"the rules give nothing more, the log has {_describe(game, recorded[i][1])}"
            )
        at, event, wire = expected[i]
        if i >= len(recorded):
            raise _Stop(f"the rules give {event}, the log has nothing")
        logged_at, logged = recorded[i]
        same = wire.SerializeToString(deterministic=True) == logged.SerializeToString(
            deterministic=True
        )
        if not same:
            want, got = str(event), _describe(game, logged)
            if want == got:  # the same to the game, not on the wire: show the wire
                want, got = _text(wire), _text(logged)
            raise _Stop(f"the rules give {want}, the log has {got}")
        if logged_at != at:
            raise _Stop(
                f"the log records {event} at {logged_at}; the rules say it happened at {at}"
            )


def _at(event: Any, now: int) -> int:
    """The instant the referee records for a game event: its ``at``, else the command's."""
    at = getattr(event, "at", None)
    return at if isinstance(at, int) else now


def _describe(game: Game, message: Message) -> str:
    """A logged event as the game reads it (its wire text if it cannot)."""
    try:
        return str(game.decode(message))
    except Exception:  # a forged event need not be one the game can read
        return _text(message)


def seed_events(
    records: Sequence[referee_pb2.TableRecord],
) -> tuple[common_pb2.TableEvent.SeedCommitted | None, common_pb2.TableEvent.SeedRevealed | None]:
    """The commitment and the revealed seed, as the log holds them."""
    committed = revealed = None
    for record in records:
        for env in record.events:
            if env.HasField("table"):
                which = env.table.WhichOneof("event")
                if which == "seed_committed":
                    committed = env.table.seed_committed
                elif which == "seed_revealed":
                    revealed = env.table.seed_revealed
    return committed, revealed
