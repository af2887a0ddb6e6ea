"""Number Match behind the game seam: ``GAME`` (see :mod:`match_rules.game`).

Settings (validated, defaults filled in), the deal (``number-match-deal-v1``: a solver-checked
board and its witness, from the seed, the daily date or a replayed seed), the decider, the codec
of ``NumberMatchEvent``, the replies, the snapshot (``NumberMatchView``) and results. One player
per table, who sees everything on it: nothing to redact but the witness, which no event carries
before the game is over.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import replace

from google.protobuf import unknown_fields  # type: ignore[attr-defined]
from google.protobuf.message import Message

from match.v1 import (
    common_pb2,
    number_match_command_pb2,
    number_match_pb2,
    number_match_service_pb2,
)
from match_rules.errors import Code, RuleError
from match_rules.game import (
    BaseGame,
    Bot,
    DailySolve,
    Entry,
    Figure,
    Game,
    Keep,
    PrivateByType,
    Results,
    SeatInfo,
    Standing,
    TableContext,
)
from match_rules.number_match import commands as cmd
from match_rules.number_match import deal as dealing
from match_rules.number_match import describe as told
from match_rules.number_match import events as ev
from match_rules.number_match import generate
from match_rules.number_match import witness as witnesses
from match_rules.number_match.board import LEVEL_CELLS, MAX_CELLS, WIDTH, Level
from match_rules.number_match.decide import RULES
from match_rules.number_match.errors import NumberMatchCode
from match_rules.number_match.settings import Settings, check
from match_rules.number_match.solver import WitnessError
from match_rules.number_match.state import NumberMatchState, Phase, initial_state
from match_rules.protocodec import Codec

WireSettings = number_match_pb2.NumberMatchSettings
WireEvent = number_match_pb2.NumberMatchEvent
View = number_match_pb2.NumberMatchView
Reply = number_match_command_pb2.NumberMatchCommandReply
DEAL_VERSION = generate.DEAL_VERSION
DEAL_VERSIONS = generate.DEAL_VERSIONS

CODEC = Codec(
    WireEvent,
    typing.get_args(ev.Event),
    {
        Level: (WireSettings.Level, "LEVEL_"),
        ev.Outcome: (WireEvent.Outcome, "OUTCOME_"),
        ev.HintKind: (WireEvent.HintKind, "HINT_KIND_"),
        ev.Undone: (WireEvent.Undone, "UNDONE_"),
    },
)

_PHASES = {
    Phase.NOT_STARTED: View.PHASE_WAITING_FOR_PLAYERS,
    Phase.PLAYING: View.PHASE_PLAYING,
    Phase.OVER: View.PHASE_GAME_OVER,
}


def to_settings(wire: WireSettings) -> Settings:
    """The domain settings of resolved wire settings (see :meth:`NumberMatch.settings`)."""
    return Settings(
        Level[WireSettings.Level.Name(wire.level).removeprefix("LEVEL_")],
        wire.daily_date,
        wire.utc_offset_minutes,
        bytes(wire.replay_seed),
    )


def to_wire_settings(settings: Settings) -> WireSettings:
    out = WireSettings()
    CODEC.fill(out, settings)
    return out


def _invalid(message: str) -> RuleError:
    return RuleError(Code.INVALID_SETUP, message)


def _steps(wire: Sequence[number_match_pb2.NumberMatchStep]) -> tuple[ev.Step, ...]:
    return tuple(ev.Step(s.add, s.first, s.second) for s in wire)


def _wire_steps(steps: Sequence[ev.Step]) -> list[number_match_pb2.NumberMatchStep]:
    return [
        number_match_pb2.NumberMatchStep(add=s.add, first=s.first, second=s.second) for s in steps
    ]


class NumberMatch(BaseGame):
    """Number Match, as the shells see it."""

    rules = RULES
    told = told

    kind: int = common_pb2.GAME_KIND_NUMBER_MATCH
    slug: str = "number_match"
    title: str = "Number Match"
    min_seats: int = 1
    max_seats: int = 1
    deal_version: str = DEAL_VERSION
    deal_versions: tuple[str, ...] = DEAL_VERSIONS  # what deal_as deals: every version logged
    cpu_fills: bool = False
    leave_instead: str = "EndGame ends it instead (you give up, with the score you have)"
    public_watch: bool = False  # the board is the player's: Watch needs the seat's token
    by_type = PrivateByType(CODEC)  # the table's one player sees every event
    watch_snapshots: bool = True
    command_message: type[Message] = number_match_command_pb2.NumberMatchCommand
    reply_message: type[Message] = Reply

    @property
    def bot(self) -> Bot | None:
        return None  # a solo puzzle: no bot seat

    # --- settings ----------------------------------------------------------------------------

    def settings(self, wire: Message | None) -> WireSettings:
        """Defaults: easy; a daily puzzle is hard."""
        if wire is None:
            wire = WireSettings()
        if not isinstance(wire, WireSettings):
            raise _invalid(
                f"a Number Match table takes NumberMatchSettings, not {type(wire).__name__}"
            )
        unknown = sorted({f.field_number for f in unknown_fields.UnknownFieldSet(wire)})
        if unknown:
            raise _invalid(
                f"this server knows no Number Match setting numbered {unknown}: "
                "leave them out (a newer client?)"
            )
        if wire.level not in WireSettings.Level.values():
            raise _invalid(
                f"the level is easy, medium, hard, expert or classic; {wire.level} is none of them"
            )
        out = WireSettings()
        out.CopyFrom(wire)
        if out.level == WireSettings.LEVEL_UNSPECIFIED:
            out.level = WireSettings.LEVEL_HARD if out.daily_date else WireSettings.LEVEL_EASY
        check(to_settings(out))
        return out

    # --- the deal ----------------------------------------------------------------------------

    def deal(self, seed: bytes, settings: Message) -> number_match_pb2.NumberMatchDeal:
        return self.deal_as(DEAL_VERSION, seed, settings)

    def deal_as(
        self, version: str, seed: bytes, settings: Message
    ) -> number_match_pb2.NumberMatchDeal:
        """The deal of an older version in :data:`DEAL_VERSIONS` too: the auditor re-deals a
        game with the version it was dealt with."""
        chosen = to_settings(self.settings(settings))
        dealt = dealing.deal(seed, chosen, version)
        out = number_match_pb2.NumberMatchDeal(
            board=dealt.board,
            witness=_wire_steps(witnesses.to_steps(dealt.moves)),
            attempt=dealt.attempt,
        )
        if chosen.level.additions is not None:
            out.additions = chosen.level.additions
        return out

    # --- the decider -------------------------------------------------------------------------

    def initial_state(self, deal: Message | None) -> NumberMatchState:
        state = initial_state()
        return state if deal is None else self.with_deal(state, deal)

    def with_deal(self, state: NumberMatchState, deal: Message) -> NumberMatchState:
        if not isinstance(deal, number_match_pb2.NumberMatchDeal):
            raise ValueError(f"not a Number Match deal: {type(deal).__name__}")
        board = tuple(deal.board)
        if not board or len(board) > MAX_CELLS or any(not 1 <= n <= 9 for n in board):
            raise ValueError("the deal's board must hold 1 to 540 numbers, each 1..9")
        if state.start_board and state.start_board != board:
            raise ValueError("the deal's board is not the board the game started with")
        steps = _steps(deal.witness)
        additions = deal.additions if deal.HasField("additions") else None
        if state.phase is not Phase.NOT_STARTED and additions != state.additions:
            raise ValueError("the deal's additions are not the ones the game started with")
        try:
            witnesses.check(board, additions, steps)
        except WitnessError as error:
            raise ValueError(f"the deal's witness does not clear its board: {error}") from None
        return replace(state, dealt=board, witness=steps, dealt_additions=additions)

    def start(
        self, now: int, seats: Sequence[SeatInfo], settings: Message, deal_version: str
    ) -> cmd.StartGame:
        (seat,) = seats
        return cmd.StartGame(now, seat.player, to_settings(self.settings(settings)), deal_version)

    def is_started(self, state: NumberMatchState) -> bool:
        return state.phase is not Phase.NOT_STARTED

    # --- the wire ----------------------------------------------------------------------------

    def command(self, wire: Message, now: int) -> cmd.Command:
        if not isinstance(wire, number_match_command_pb2.NumberMatchCommand):
            raise RuleError(
                Code.MALFORMED_REQUEST,
                f"a Number Match table takes NumberMatchCommand, not {type(wire).__name__}",
            )
        which = wire.WhichOneof("command")
        player = wire.player_id
        if which == "pair_cells":
            return cmd.PairCells(now, player, wire.pair_cells.first, wire.pair_cells.second)
        simple: dict[str | None, type] = {
            "add_numbers": cmd.AddNumbers,
            "ask_hint": cmd.AskHint,
            "undo": cmd.Undo,
            "end_game": cmd.EndGame,
        }
        if which in simple:
            made: cmd.Command = simple[which](now, player)
            return made
        raise RuleError(
            Code.MALFORMED_REQUEST,
            "send one of pair_cells (with its two cells), add_numbers, ask_hint, undo or end_game",
        )

    def encode(self, event: ev.Event) -> WireEvent:
        out: WireEvent = CODEC.to_proto(event)
        return out

    def decode(self, wire: Message) -> ev.Event:
        if not isinstance(wire, WireEvent):
            raise ValueError(f"not a Number Match event: {type(wire).__name__}")
        event: ev.Event = CODEC.from_proto(wire)
        return event

    # --- what each player may see ------------------------------------------------------------

    def redact(self, state_after: NumberMatchState, event: ev.Event, player: str) -> ev.Event:
        if not isinstance(
            event,
            (
                ev.GameStarted,
                ev.CellsPaired,
                ev.NumbersAdded,
                ev.HintGiven,
                ev.MoveUndone,
                ev.GameOver,
            ),
        ):
            raise TypeError(f"not an event of Number Match: {event!r}")
        return event  # the table's one player sees the whole board; the witness only at the end

    def accepted(
        self,
        events: Sequence[common_pb2.EventEnvelope],
        state: NumberMatchState,
        player: str,
        now: int,
        event_number: int,
        commitment: str = "",
    ) -> Reply:
        table = TableContext(
            table_id=events[0].table_id if events else "",
            event_number=event_number,
            server_time_ms=now,
            names={},  # pragma: no mutate (equivalent: Number Match's view never reads names)
            commitment=commitment,
            seed=None,
        )
        return Reply(
            accepted=Reply.Accepted(events=events, view=self.snapshot(state, player, table))
        )

    def check_request(self, request: Message) -> str | RuleError | None:
        if isinstance(request, number_match_service_pb2.PairCellsRequest):
            for name in ("first", "second"):
                cell = getattr(request, name)
                if not 1 <= cell <= LEVEL_CELLS:
                    return RuleError(  # the referee's refusal for a cell off the board
                        NumberMatchCode.CELL_OUT_OF_RANGE,
                        f"{name} is {cell}: cells are numbered from 1, row by row, on a board "
                        f"of at most {LEVEL_CELLS} cells",
                    )
        return None

    def snapshot(self, state: NumberMatchState, player: str, table: TableContext) -> View:
        over = state.phase is Phase.OVER
        out = View(
            table_id=table.table_id,
            event_number=table.event_number,
            server_time_ms=table.server_time_ms,
            phase=_PHASES[state.phase],
            you=player,
            settings=to_wire_settings(state.settings),
            columns=WIDTH,
            board=state.board,
            hints_left=state.hints_left,
            score=state.score,
            moves=len(state.path),
            can_undo=bool(state.history) and not over,
            started_at_ms=state.started_at,
            idle_ends_at_ms=self.next_deadline(state) or 0,
            time_ms=state.time_ms,
            witness_commitment=state.witness_commitment,
            replay=state.replay,
            commitment=table.commitment,
        )
        if state.additions_left is not None:
            out.additions_left = state.additions_left
        if state.hint is not None:
            out.hint.kind = WireEvent.HintKind.Value(f"HINT_KIND_{state.hint.kind.name}")  # type: ignore[assignment]
            out.hint.first = state.hint.first
            out.hint.second = state.hint.second
        if state.outcome is not None:
            out.outcome = WireEvent.Outcome.Value(f"OUTCOME_{state.outcome.name}")  # type: ignore[assignment]
        if over and state.revealed is not None:
            out.witness.extend(_wire_steps(state.revealed))
        if over and table.seed is not None:
            out.seed = table.seed
        return out

    # --- results -----------------------------------------------------------------------------

    def results(self, state: NumberMatchState) -> Results | None:
        if state.phase is not Phase.OVER or state.outcome is None:
            return None
        cleared = state.outcome is ev.Outcome.CLEARED
        how = "cleared" if cleared else f"not cleared ({state.outcome.value.replace('_', ' ')})"
        replay = ", a replay (not ranked)" if state.replay else ""
        summary = (
            f"{how}: {state.score} points in {state.time_ms / 1000:.1f} s, "
            f"{state.hints_used} of 3 hints{replay}"
        )
        player, score = state.player, state.score
        # The daily puzzle is a hard board (its settings say so): its figures count at level hard.
        level = f"level-{state.settings.level.value}"
        figures = [Figure(player, f"best_score/{level}", score, Keep.MAX)]
        if cleared:
            figures.append(Figure(player, f"best_time_ms/{level}", state.time_ms, Keep.MIN))
        figures.append(Figure(player, "hints", state.hints_used, Keep.SUM))
        entries: list[Entry] = []
        daily: tuple[DailySolve, ...] = ()
        date = state.settings.daily_date
        if not state.replay and date:
            # Everybody gets the same daily board, and may play it again that day: its board
            # keeps each player's first try, and it goes on no other board.
            entries.append(Entry(f"daily-{date}", player, score, "points", first_only=True))
            if cleared:
                daily = (DailySolve(player, date),)
        elif not state.replay:
            # pragma: no mutate start (equivalent: entries is still empty: = is +=)
            entries += [Entry(level, player, score, "points"), Entry("", player, score, "points")]
            # pragma: no mutate end
        return Results(
            (Standing(player, 1, score, summary),),
            draw=False,
            ranked=not state.replay,
            winners=frozenset({player}) if cleared else frozenset(),
            figures=tuple(figures),
            entries=tuple(entries),
            daily=daily,
        )

    def proofs(self, state: NumberMatchState) -> tuple[str, ...]:
        """What the audit checks from the log alone once the game is over: the revealed witness
        is the one committed at the start, and it clears the starting board within its
        additions. Raises ValueError saying what fails."""
        if state.phase is not Phase.OVER:
            return ()
        steps = state.revealed or ()
        committed = witnesses.commitment(state.start_board, state.additions, steps)
        if committed != state.witness_commitment:
            raise ValueError(
                "the witness revealed at the end is not the one committed at the start "
                f"(SHA-256 {committed[:16]}…, committed {state.witness_commitment[:16]}…)"
            )
        try:
            used = witnesses.check(state.start_board, state.additions, steps)
        except WitnessError as error:
            raise ValueError(f"the revealed witness does not clear the board: {error}") from None
        limit = "no limit" if state.additions is None else f"{state.additions} allowed"
        pairs = sum(1 for s in steps if not s.add)
        return (
            f"witness: replayed; its {pairs} pairs and {used} additions ({limit}) clear the "
            f"{len(state.start_board)}-number board, and it is the one committed at the start: "
            "the board was solvable when it was dealt",
        )

    # --- the replay ----------------------------------------------------------------------------

    def describe_settings(self, settings: Message) -> str:
        assert isinstance(settings, WireSettings)
        return told.settings_text(to_settings(settings))


GAME: Game = NumberMatch()
