"""A game's table records built with the game's own package, as the referee appends them: the
table made (TableCreated with the game's settings, SeedCommitted, the host seated), the other
players seated, the start, then one record per command or tick (a refused command recorded with
its refusal), the seed revealed with the game's end. Pure: no services."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from match.v1 import common_pb2, referee_pb2
from match_rules.errors import RuleError
from match_rules.game import Game, SeatInfo

TABLE = "replaytable01"


@dataclass(frozen=True)
class Command:
    """A player's command on the wire (``wire``: the game's ``command_message``)."""

    at: int
    wire: Message


@dataclass(frozen=True)
class Tick:
    at: int


@dataclass(frozen=True)
class Presence:
    at: int
    player: str
    present: bool


@dataclass(frozen=True)
class UntilOver:
    """Ticks at each instant the rules name (``next_deadline``) until the game is over."""


Step = Command | Tick | Presence | UntilOver


class Table:
    def __init__(self, game: Game, seed: bytes, settings: Message | None) -> None:
        self.game = game
        self.seed = seed
        self.settings = game.settings(settings)
        self.state: Any = game.initial_state(game.deal(seed, self.settings))
        self.records: list[referee_pb2.TableRecord] = []
        self.number = 0

    def envelope(self, at: int, **body: Message) -> common_pb2.EventEnvelope:
        self.number += 1
        return common_pb2.EventEnvelope(
            table_id=TABLE,
            game_id=TABLE,
            game_kind=self.game.kind,
            event_number=self.number,
            server_time_ms=at,
            **body,
        )

    def append(
        self,
        command: referee_pb2.StampedCommand,
        events: Sequence[common_pb2.EventEnvelope] = (),
        refusal: common_pb2.Refusal | None = None,
    ) -> None:
        record = referee_pb2.TableRecord(
            table_id=TABLE,
            record_number=len(self.records) + 1,
            first_event_number=self.number - len(events) + 1,
            command=command,
            events=events,
        )
        if refusal is not None:
            record.refusal.CopyFrom(refusal)
        self.records.append(record)

    def table_event(self, at: int, **event: Any) -> common_pb2.EventEnvelope:
        return self.envelope(at, table=common_pb2.TableEvent(**event))

    def run(self, command: Any, stamped: referee_pb2.StampedCommand) -> None:
        try:
            steps = self.game.decide_steps(self.state, command)
        except RuleError as error:
            refusal = common_pb2.Refusal(code=error.code.slug, message=error.message)
            self.append(stamped, refusal=refusal)
            return
        envelopes = []
        for event, after in steps:
            self.state = after
            at = getattr(event, "at", stamped.received_at_ms)
            envelopes.append(self.envelope(at, **{self.game.slug: self.game.encode(event)}))
        if self.game.is_terminal(self.state):
            envelopes.append(
                self.table_event(
                    stamped.received_at_ms,
                    seed_revealed=common_pb2.TableEvent.SeedRevealed(
                        seed=self.seed, deal_version=self.game.deal_version
                    ),
                )
            )
        self.append(stamped, envelopes)


def table_records(
    game: Game,
    seed: bytes,
    settings: Message | None,
    seats: Sequence[SeatInfo],
    start_at: int,
    steps: Sequence[Step],
) -> list[referee_pb2.TableRecord]:
    """The records of a table of ``game`` whose ``seats`` all sit down, then start at
    ``start_at`` and go through ``steps``."""
    table = Table(game, seed, settings)
    host = seats[0]
    created = common_pb2.TableEvent.TableCreated(
        seats=len(seats), visibility=common_pb2.VISIBILITY_OPEN, creator=host.player
    )
    getattr(created, game.slug).CopyFrom(table.settings)
    at = start_at - 1_000
    events = [
        table.table_event(at, table_created=created),
        table.table_event(
            at,
            seed_committed=common_pb2.TableEvent.SeedCommitted(
                commitment=hashlib.sha256(seed).hexdigest(), deal_version=game.deal_version
            ),
        ),
    ]
    for seat in seats:
        seated = common_pb2.TableEvent.PlayerSeated(
            seat=seat.number, player_id=seat.player, display_name=seat.name, is_bot=seat.is_bot
        )
        events.append(table.table_event(at, player_seated=seated))
    create = referee_pb2.TableCommand(player_id=host.player)
    create.create_table.SetInParent()
    table.append(referee_pb2.StampedCommand(received_at_ms=at, table=create), events)
    start = referee_pb2.TableCommand(player_id=host.player)
    start.start_table.SetInParent()
    table.run(
        game.start(start_at, seats, table.settings, game.deal_version),
        referee_pb2.StampedCommand(received_at_ms=start_at, table=start),
    )
    for step in steps:
        if isinstance(step, UntilOver):
            while not game.is_terminal(table.state):
                due = game.next_deadline(table.state)
                assert due is not None, "the game waits for a player: it cannot end by time"
                stamped = referee_pb2.StampedCommand(received_at_ms=due)
                stamped.tick.SetInParent()
                table.run(game.tick(due), stamped)
            continue
        stamped = referee_pb2.StampedCommand(received_at_ms=step.at)
        if isinstance(step, Command):
            getattr(stamped, game.slug).CopyFrom(step.wire)
            try:
                command = game.command(step.wire, step.at)
            except RuleError as error:
                refusal = common_pb2.Refusal(code=error.code.slug, message=error.message)
                table.append(stamped, refusal=refusal)
                continue
        elif isinstance(step, Tick):
            stamped.tick.SetInParent()
            command = game.tick(step.at)
        else:
            presence = referee_pb2.TableCommand(player_id=step.player)
            presence.presence.present = step.present
            stamped.table.CopyFrom(presence)
            command = game.presence(step.at, step.player, step.present)
        table.run(command, stamped)
    return table.records
