"""Re-run the rules over a table's records: the same inputs must give the same outputs.

Every record holds the command the referee stamped on arrival (or a timer's tick) and what came
of it: the events, or the refusal. An auditor with the seed re-deals the boards, then feeds each
stamped command to the pure rules again. Any difference (an event the rules would not have
given, a refusal they would not have made, a deadline that fired at the wrong instant, a number
out of sequence, standings that do not follow from the boards) is a finding that names the
first bad record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from match.v1 import common_pb2, referee_pb2
from match_rules.errors import RuleError
from match_rules.race import commands as cmd
from match_rules.race import decide, evolve, initial_state
from match_rules.race import events as ev
from match_rules.race.codec import from_proto


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

    @property
    def ok(self) -> bool:
        return not self.findings


def _race_events(record: referee_pb2.TableRecord) -> list[ev.Event]:
    return [from_proto(e.race) for e in record.events if e.HasField("race")]  # type: ignore[misc]


def _command(stamped: referee_pb2.StampedCommand) -> cmd.Command | None:
    now = stamped.received_at_ms
    which = stamped.WhichOneof("command")
    if which == "tick":
        return cmd.Tick(now)
    if which != "race":
        return None
    race = stamped.race
    player = race.player_id
    kind = race.WhichOneof("command")
    if kind == "press_ready":
        return cmd.PressReady(now, player)
    if kind == "turn_tile":
        return cmd.TurnTile(now, player, race.turn_tile.tile)
    if kind == "resign":
        return cmd.Resign(now, player)
    if kind == "request_hint":
        return cmd.RequestHint(now, player)
    return None


def rerun(records: Sequence[referee_pb2.TableRecord], deal: tuple[tuple[int, ...], ...]) -> Rerun:
    """Re-run the rules over ``records`` (in order) with the boards dealt from the seed."""
    findings: list[Finding] = []
    state = initial_state(deal)
    seats: dict[int, tuple[str, bool]] = {}
    window, hints, version = 0, 0, ""
    next_number = 1
    accepted = refused = count = 0
    for index, record in enumerate(records):
        if record.record_number != index + 1:
            findings.append(
                Finding(
                    index,
                    f"record number {record.record_number} where "
                    f"{index + 1} was due: a record is missing, extra "
                    f"or moved",
                )
            )
            break
        numbers = [e.event_number for e in record.events]
        if numbers and (
            record.first_event_number != next_number
            or numbers != list(range(next_number, next_number + len(numbers)))
        ):
            findings.append(
                Finding(
                    index,
                    f"events numbered {numbers}, expected to start at "
                    f"{next_number}: an event is missing, extra or moved",
                )
            )
            break
        next_number += len(numbers)
        count += len(numbers)
        recorded = _race_events(record)
        for env in record.events:
            if not env.HasField("table"):
                continue
            which = env.table.WhichOneof("event")
            body = getattr(env.table, which)
            if which == "table_created":
                window, hints = body.race.ready_window_ms, body.race.hints_per_board
            elif which == "player_seated":
                seats[body.seat] = (body.player_id, body.is_bot)
            elif which == "player_left":
                seats.pop(body.seat, None)
            elif which == "seed_committed":
                version = body.deal_version
        command = _command(record.command)
        if command is None and recorded and isinstance(recorded[0], ev.GameStarted):
            order = [seats[n] for n in sorted(seats)]
            command = cmd.StartGame(
                record.command.received_at_ms,
                tuple(p for p, _ in order),
                frozenset(p for p, bot in order if bot),
                window,
                hints,
                version,
            )
        if command is None:
            if recorded:
                findings.append(Finding(index, "race events with no command that could cause them"))
                break
            continue
        try:
            expected = decide(state, command)
        except RuleError as error:
            if not record.HasField("refusal"):
                findings.append(
                    Finding(
                        index, f"the rules refuse {command} ({error.code.slug}) but it was accepted"
                    )
                )
                break
            if record.refusal.code != error.code.slug:
                findings.append(
                    Finding(
                        index,
                        f"refused as {record.refusal.code!r}; the rules say {error.code.slug!r}",
                    )
                )
                break
            refused += 1
            continue
        if record.HasField("refusal"):
            findings.append(
                Finding(
                    index, f"refused as {record.refusal.code!r}, but the rules accept {command}"
                )
            )
            break
        if expected != recorded:
            first = next(
                (i for i, (a, b) in enumerate(zip(expected, recorded, strict=False)) if a != b),
                min(len(expected), len(recorded)),
            )
            want = expected[first] if first < len(expected) else "nothing"
            got = recorded[first] if first < len(recorded) else "nothing"
            findings.append(Finding(index, f"the rules give {want}, the log has {got}"))
            break
        for event in recorded:
            state = evolve(state, event)
        if not isinstance(command, cmd.Tick):
            accepted += 1
    return Rerun(tuple(findings), accepted, refused, count)


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
