"""One player's view of one table, folded from the table log: what Watch sends.

The race part is the rules' own projection (``initial_state()`` with no deal, ``evolve``); each
race event leaves as ``redact(state_after_it, event, viewer)`` and a snapshot is
``player_view(state, viewer)``. Nothing here is sent unredacted: ``leaks`` is checked on every
envelope before it leaves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from match.v1 import common_pb2, race_pb2, views_pb2
from match_bus.records import BadRecord, Numbering
from match_rules.race import Phase, evolve, initial_state, player_view, redact
from match_rules.race import events as ev
from match_rules.race.codec import from_proto, to_proto
from match_rules.race.view import OpponentMoved, Status, TileState

RaceView = views_pb2.RaceView

_PHASE = {
    Phase.NOT_STARTED: RaceView.PHASE_WAITING_FOR_PLAYERS,
    Phase.READY: RaceView.PHASE_READY,
    Phase.COUNTDOWN: RaceView.PHASE_COUNTDOWN,
    Phase.PLAYING: RaceView.PHASE_PLAYING,
    Phase.OVER: RaceView.PHASE_GAME_OVER,
}
_STATUS = {
    Status.WAITING: RaceView.STATUS_WAITING,
    Status.READY: RaceView.STATUS_READY,
    Status.PLAYING: RaceView.STATUS_PLAYING,
    Status.DONE: RaceView.STATUS_DONE,
    Status.OUT: RaceView.STATUS_OUT,
}
_Wire = race_pb2.RaceEvent
_OUTCOME = {
    ev.Outcome.CLEARED: _Wire.OUTCOME_CLEARED,
    ev.Outcome.DISQUALIFIED: _Wire.OUTCOME_DISQUALIFIED,
    ev.Outcome.OUT_OF_TURNS: _Wire.OUTCOME_OUT_OF_TURNS,
    ev.Outcome.RESIGNED: _Wire.OUTCOME_RESIGNED,
    ev.Outcome.BOARD_ENDED: _Wire.OUTCOME_BOARD_ENDED,
    ev.Outcome.OUT: _Wire.OUTCOME_OUT,
    ev.Outcome.NOT_PLAYED: _Wire.OUTCOME_NOT_PLAYED,
}
_TILE = {
    TileState.DOWN: RaceView.TILE_STATE_DOWN,
    TileState.SHOWING: RaceView.TILE_STATE_SHOWING,
    TileState.FOUND: RaceView.TILE_STATE_FOUND,
}
# The oneof field names of the private events (the field is the class name in snake_case).
PRIVATE = frozenset(re.sub(r"(?<!^)(?=[A-Z])", "_", c.__name__).lower() for c in ev.PRIVATE_EVENTS)


class UnreadableLog(Exception):
    """The log holds something this lobby cannot fold; it must not guess what to send."""


def leaks(envelope: common_pb2.EventEnvelope, viewer: str) -> bool:
    """True when ``envelope`` holds another player's private race event."""
    if envelope.WhichOneof("body") != "race":
        return False
    kind = envelope.race.WhichOneof("event")
    return kind in PRIVATE and getattr(envelope.race, kind).player != viewer


@dataclass(slots=True)
class _Seat:
    seat: int
    display_name: str
    is_bot: bool


class TableViewer:
    """Folds a table's records for one viewer; gives back each event as that viewer sees it."""

    def __init__(self, table_id: str, viewer: str) -> None:
        self.table_id = table_id
        self.viewer = viewer
        self.state = initial_state()
        self.game_id = ""
        self.event_number = 0
        self.server_time_ms = 0
        self.seats: dict[str, _Seat] = {}
        self.commitment = ""
        self.deal_version = ""
        self.seed: bytes | None = None
        self.expired = False  # TableExpired: closed before its game started
        self._numbering = Numbering(table_id)

    @property
    def finished(self) -> bool:
        """The game is over and its seed is out: nothing more will happen at this table."""
        return self.state.phase is Phase.OVER and self.seed is not None

    def fold_record(self, sequence: int, data: bytes) -> list[common_pb2.EventEnvelope]:
        """Fold the TableRecord at stream ``sequence``; its events as the viewer may see them
        (none for a refusal). Raises BadRecord for a record that quarantines the table: one
        that does not decode, does not continue the numbering, or cannot be folded."""
        record = self._numbering.follow(sequence, data)
        if record.HasField("refusal"):
            return []
        try:
            return [self.fold(env) for env in record.events]
        except Exception as error:  # whatever the record holds, only this table's view ends
            problem = f"cannot be shown ({error})"
            raise BadRecord(self.table_id, sequence, problem) from error

    def fold(self, env: common_pb2.EventEnvelope) -> common_pb2.EventEnvelope:
        out = common_pb2.EventEnvelope()
        out.CopyFrom(env)
        which = env.WhichOneof("body")
        if which == "race":
            self._fold_race(env, out)
        elif which == "table":
            self._fold_table(env, out)
        else:
            raise UnreadableLog(f"event {env.event_number} has a body this lobby cannot show")
        self.event_number = env.event_number
        self.server_time_ms = env.server_time_ms
        if leaks(out, self.viewer):  # pragma: no cover - redact makes this impossible
            raise UnreadableLog(f"event {env.event_number} would leak a face")
        return out

    def _fold_race(self, env: common_pb2.EventEnvelope, out: common_pb2.EventEnvelope) -> None:
        try:
            event = from_proto(env.race)
        except (ValueError, KeyError) as error:
            raise UnreadableLog(f"race event {env.event_number} cannot be read") from error
        if isinstance(event, OpponentMoved):
            raise UnreadableLog(f"event {env.event_number}: OpponentMoved is never logged")
        self.state = evolve(self.state, event)
        if isinstance(event, ev.GameStarted):
            self.game_id = env.game_id
            self.deal_version = self.deal_version or event.deal_version
        seen = redact(self.state, event, self.viewer)
        if seen is not event:
            out.race.CopyFrom(to_proto(seen))

    def _fold_table(self, env: common_pb2.EventEnvelope, out: common_pb2.EventEnvelope) -> None:
        event = env.table
        kind = event.WhichOneof("event")
        if kind == "player_seated":
            s = event.player_seated
            self.seats[s.player_id] = _Seat(s.seat, s.display_name, s.is_bot)
        elif kind == "player_left":
            self.seats.pop(event.player_left.player_id, None)
        elif kind == "seed_committed":
            self.commitment = event.seed_committed.commitment
            self.deal_version = event.seed_committed.deal_version
        elif kind == "seed_revealed":
            self.seed = event.seed_revealed.seed
        elif kind == "table_expired":
            self.expired = True
        elif kind == "bots_assigned":
            pass  # public: the strength has its own stream of the deal and shows no layout
        elif kind is None:
            raise UnreadableLog(f"table event {env.event_number} is empty")

    # --- the snapshot ----------------------------------------------------------------------

    def snapshot(self) -> views_pb2.RaceView:
        """The viewer's whole view: ``player_view`` plus what the table's events add."""
        state = self.state
        view = player_view(state, self.viewer)
        phase = _PHASE[state.phase]
        if state.phase is Phase.PLAYING and state.board is not None and state.board.ended_at:
            phase = RaceView.PHASE_BETWEEN_BOARDS
        out = RaceView(
            table_id=self.table_id,
            game_id=self.game_id,
            event_number=self.event_number,
            server_time_ms=self.server_time_ms,
            player=self.viewer,
            phase=phase,
            board=view.board,
            ready_deadline_ms=(view.ready_deadline or 0) if state.phase is Phase.READY else 0,
            starts_at_ms=view.starts_at or 0,
            ends_at_ms=view.ends_at or 0,
            status=_STATUS[view.status],
            turns=view.turns,
            pairs=view.pairs,
            hints_left=view.hints_left,
            paused_until_ms=view.paused_until,
            deal_version=self.deal_version or state.deal_version,
            commitment=self.commitment,
        )
        if view.outcome is not None:
            out.outcome = _OUTCOME[view.outcome]
        for t in view.tiles:
            tile = out.tiles.add(tile=t.tile, state=_TILE[t.state])
            if t.symbol is not None:
                tile.symbol = t.symbol
        for o in view.opponents:
            seat = self.seats.get(o.player)
            opponent = out.opponents.add(
                player=o.player,
                status=_STATUS[o.status],
                display_name=seat.display_name if seat else "",
                is_bot=o.player in state.bots or bool(seat and seat.is_bot),
            )
            for p in o.boards:
                opponent.boards.add(board=p.board, pairs=p.pairs, turns=p.turns, hints=p.hints)
        if not state.players:  # no game yet: the others are the seated players
            for player, seat in sorted(self.seats.items(), key=lambda item: item[1].seat):
                if player != self.viewer:
                    out.opponents.add(
                        player=player,
                        status=RaceView.STATUS_DONE,
                        display_name=seat.display_name,
                        is_bot=seat.is_bot,
                    )
        for number, (layout, results) in enumerate(
            zip(view.revealed, view.results, strict=False), start=1
        ):
            revealed = to_proto(ev.BoardRevealed(0, number, layout, results)).board_revealed
            out.revealed.add(board=number, layout=layout, results=revealed.results)
        if view.standings:
            ended = to_proto(ev.GameEnded(0, view.standings)).game_ended
            out.standings.extend(ended.standings)
        if self.seed is not None and state.phase is Phase.OVER:
            out.seed = self.seed
        return out
