"""``ViewTracker``: one player's view of a race game, kept up to date from what the server sends.

Pure: no I/O, no clock. Feed it the Watch stream (``apply_watch``) and the events of command
replies (``apply_events``); it holds the latest ``RaceView`` snapshot with every later event
applied, so it knows what a fresh snapshot would say: the phase and board, the player's own tiles
(a face per tile from their own ``TileTurned``/``PairFound``, down again on their own
``TilesTurnedDown``), the pause, the counters, everybody's counts, the revealed layouts, the
standings and, after the game, the seed. It only ever holds what the server sent.

Events are numbered per table with no gaps. A command's reply usually carries events before the
Watch stream delivers them, so events are applied once each, in whatever order they come:
``event_number`` is the highest number up to which every event has been applied (resume a Watch
from it), and an event already applied is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from match.v1 import common_pb2, lobby_pb2, race_pb2, race_service_pb2, views_pb2

RaceView = views_pb2.RaceView
RaceEvent = race_pb2.RaceEvent
Phase = RaceView.Phase
Status = RaceView.Status
TileState = RaceView.TileState
Outcome = RaceEvent.Outcome

TILES = 20
CAP_MS = 120_000
DEFAULT_HINTS_PER_BOARD = 3

PRIVATE_KINDS = frozenset(
    {"tiles_turned_down", "tile_turned", "pair_found", "attempt_missed", "hint_given"}
)

# Phases within one board, in the order they come (a stale event never moves a board back).
_PHASE_RANK = {
    RaceView.PHASE_UNSPECIFIED: 0,
    RaceView.PHASE_WAITING_FOR_PLAYERS: 0,
    RaceView.PHASE_READY: 1,
    RaceView.PHASE_COUNTDOWN: 2,
    RaceView.PHASE_PLAYING: 3,
    RaceView.PHASE_BETWEEN_BOARDS: 4,
    RaceView.PHASE_GAME_OVER: 5,
}


@dataclass(frozen=True, slots=True)
class Tile:
    """One of the viewer's own tiles: ``symbol`` only while it is up (showing or found)."""

    number: int
    state: TileState = RaceView.TILE_STATE_DOWN
    symbol: int | None = None

    @property
    def up(self) -> bool:
        return self.state != RaceView.TILE_STATE_DOWN


@dataclass(frozen=True, slots=True)
class Progress:
    """A player's counts on one board."""

    board: int
    pairs: int = 0
    turns: int = 0
    hints: int = 0


@dataclass(slots=True)
class PlayerInfo:
    """What the viewer knows of a player at the table (the viewer included): name and counts."""

    player: str
    display_name: str = ""
    is_bot: bool = False
    out: bool = False  # out of the game: missed a Ready or resigned
    ready: bool = False  # pressed Ready for the current board
    done: bool = False  # their current board is over for them
    boards: dict[int, Progress] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.display_name or self.player


@dataclass(frozen=True, slots=True)
class Revealed:
    """A board after its reveal: the whole layout (``layout[0]`` is tile 1) and the results."""

    board: int
    layout: tuple[int, ...]
    results: tuple[RaceEvent.BoardResult, ...]


def _down_tiles() -> dict[int, Tile]:
    return {t: Tile(t) for t in range(1, TILES + 1)}


class ViewTracker:
    def __init__(self, player: str = "", table_id: str = "") -> None:
        self.player = player
        self.table_id = table_id
        self.game_id = ""
        self.event_number = 0  # every event up to this one has been applied
        self.server_time_ms = 0  # the latest server time seen
        self.phase: Phase = RaceView.PHASE_WAITING_FOR_PLAYERS
        self.board = 0
        self.ready_deadline_ms = 0
        self.starts_at_ms = 0
        self.ends_at_ms = 0
        self.board_ended = False
        self.taken_by = ""
        self.tiles: dict[int, Tile] = _down_tiles()
        self.turns = 0
        self.pairs = 0
        self.hints_left = 0
        self.hints_per_board: int | None = None
        self.has_bot = False
        self.paused_until_ms = 0
        self.outcome: Outcome = RaceEvent.OUTCOME_UNSPECIFIED
        self.last_hint: tuple[int, int] | None = None  # (showing tile, its partner)
        self.players: dict[str, PlayerInfo] = {}
        self.revealed: list[Revealed] = []
        self.standings: list[RaceEvent.Standing] = []
        self.deal_version = ""
        self.commitment = ""
        self.seed: bytes | None = None
        self.fill_at_ms = 0
        self._applied: set[int] = set()  # numbers above event_number already applied

    # --- derived -------------------------------------------------------------------------

    @property
    def me(self) -> PlayerInfo:
        return self._info(self.player)

    @property
    def status(self) -> Status:
        return self.status_of(self.player)

    @property
    def opponents(self) -> list[PlayerInfo]:
        return [p for p in self.players.values() if p.player != self.player]

    @property
    def game_over(self) -> bool:
        return self.phase == RaceView.PHASE_GAME_OVER

    @property
    def found(self) -> frozenset[int]:
        return frozenset(t for t, v in self.tiles.items() if v.state == RaceView.TILE_STATE_FOUND)

    @property
    def showing(self) -> tuple[int, ...]:
        """The viewer's tiles up but not found: one of an attempt, or the two of a miss."""
        return tuple(t for t, v in self.tiles.items() if v.state == RaceView.TILE_STATE_SHOWING)

    def name(self, player: str) -> str:
        info = self.players.get(player)
        return info.name if info is not None else player

    def status_of(self, player: str) -> Status:
        """A player's state on the current board, as ``player_view`` states it."""
        info = self.players.get(player)
        if info is None:
            return RaceView.STATUS_UNSPECIFIED
        if info.out:
            return RaceView.STATUS_OUT
        if self.phase == RaceView.PHASE_READY:
            return RaceView.STATUS_READY if info.ready else RaceView.STATUS_WAITING
        if self.phase == RaceView.PHASE_COUNTDOWN:
            return RaceView.STATUS_READY
        if self.phase == RaceView.PHASE_PLAYING and not info.done and not self.board_ended:
            return RaceView.STATUS_PLAYING
        return RaceView.STATUS_DONE

    # --- input ---------------------------------------------------------------------------

    def apply_watch(self, item: race_service_pb2.WatchResponse) -> list[common_pb2.EventEnvelope]:
        """Apply one Watch item; returns the events newly applied (none for a snapshot)."""
        which = item.WhichOneof("item")
        if which == "snapshot":
            self.apply_snapshot(item.snapshot)
            return []
        if which == "event":
            return self.apply_events([item.event])
        return []

    def apply_events(
        self, envelopes: Iterable[common_pb2.EventEnvelope]
    ) -> list[common_pb2.EventEnvelope]:
        """Apply events (from Watch or from a command's reply); returns those newly applied."""
        return [env for env in envelopes if self.apply_event(env)]

    def apply_event(self, env: common_pb2.EventEnvelope) -> bool:
        """Apply one event unless it was applied already; True when it was applied now."""
        n = env.event_number
        if n <= self.event_number or n in self._applied:
            return False
        self._applied.add(n)
        while self.event_number + 1 in self._applied:
            self.event_number += 1
            self._applied.discard(self.event_number)
        if env.table_id:
            self.table_id = env.table_id
        if env.game_id:
            self.game_id = env.game_id
        self.server_time_ms = max(self.server_time_ms, env.server_time_ms)
        body = env.WhichOneof("body")
        if body == "race":
            self._race(env.race)
        elif body == "table":
            self._table(env.table)
        return True

    def apply_counters(self, counters: views_pb2.RaceCounters) -> None:
        """The viewer's counters returned with a command (only for the board the tracker is on)."""
        self.server_time_ms = max(self.server_time_ms, counters.server_time_ms)
        if counters.board != self.board or self.board_ended:
            return
        self.hints_left = counters.hints_left
        self.paused_until_ms = max(self.paused_until_ms, counters.paused_until_ms)

    def note_table(self, table: lobby_pb2.Table) -> None:
        """Learn names, bots and settings from the lobby's ``Table`` (never a face)."""
        self.table_id = table.table_id or self.table_id
        self.game_id = table.game_id or self.game_id
        self.commitment = table.commitment or self.commitment
        self.fill_at_ms = table.fill_at_ms or self.fill_at_ms
        for seat in table.taken:
            info = self._info(seat.player_id)
            info.display_name = seat.display_name or info.display_name
            info.is_bot = info.is_bot or seat.is_bot
        if table.HasField("race") and self.hints_per_board is None:
            race = table.race
            self.hints_per_board = (
                race.hints_per_board
                if race.HasField("hints_per_board")
                else DEFAULT_HINTS_PER_BOARD
            )

    def apply_snapshot(self, view: views_pb2.RaceView) -> None:
        """Start again from a snapshot: everything it says replaces what was known."""
        names = {p: (i.display_name, i.is_bot) for p, i in self.players.items()}
        self.player = view.player or self.player
        self.table_id = view.table_id or self.table_id
        self.game_id = view.game_id
        self.event_number = view.event_number
        self._applied.clear()
        self.server_time_ms = max(self.server_time_ms, view.server_time_ms)
        self.phase = view.phase
        self.board = view.board
        self.ready_deadline_ms = view.ready_deadline_ms
        self.starts_at_ms = view.starts_at_ms
        self.ends_at_ms = view.ends_at_ms
        self.board_ended = view.phase in (
            RaceView.PHASE_BETWEEN_BOARDS,
            RaceView.PHASE_GAME_OVER,
        )
        self.taken_by = ""
        self.tiles = _down_tiles()
        for tv in view.tiles:
            if 1 <= tv.tile <= TILES:
                symbol = tv.symbol if tv.HasField("symbol") else None
                self.tiles[tv.tile] = Tile(tv.tile, tv.state, symbol)
        self.turns = view.turns
        self.pairs = view.pairs
        self.hints_left = view.hints_left
        self.paused_until_ms = view.paused_until_ms
        self.outcome = view.outcome
        self.last_hint = None
        if self.hints_per_board is None and view.phase in (
            RaceView.PHASE_READY,
            RaceView.PHASE_COUNTDOWN,
        ):
            self.hints_per_board = view.hints_left  # nobody has a hint before T0
        self.players = {}
        me = self._info(self.player)
        self._set_status(me, view.status)
        live = view.phase in (
            RaceView.PHASE_READY,
            RaceView.PHASE_COUNTDOWN,
            RaceView.PHASE_PLAYING,
        )
        if live and self.board and view.outcome != RaceEvent.OUTCOME_OUT:
            me.boards = {self.board: Progress(self.board, view.pairs, view.turns)}
        for ov in view.opponents:
            info = self._info(ov.player)
            info.display_name = ov.display_name
            info.is_bot = ov.is_bot
            if ov.is_bot:
                self.has_bot = True
            self._set_status(info, ov.status)
            info.boards = {p.board: Progress(p.board, p.pairs, p.turns, p.hints) for p in ov.boards}
        for p, (display_name, is_bot) in names.items():
            if p in self.players:
                info = self.players[p]
                info.display_name = info.display_name or display_name
                info.is_bot = info.is_bot or is_bot
        self.revealed = [
            Revealed(rb.board, tuple(rb.layout), tuple(rb.results)) for rb in view.revealed
        ]
        for rb in self.revealed:
            for r in rb.results:
                info = self._info(r.player)
                info.boards.setdefault(rb.board, Progress(rb.board, r.found, r.turns, r.hints))
        for info in self.players.values():
            info.boards = dict(sorted(info.boards.items()))
        self.standings = list(view.standings)
        self.deal_version = view.deal_version or self.deal_version
        self.commitment = view.commitment or self.commitment
        self.seed = view.seed if view.HasField("seed") else None

    # --- internals -----------------------------------------------------------------------

    def _info(self, player: str) -> PlayerInfo:
        info = self.players.get(player)
        if info is None:
            info = self.players[player] = PlayerInfo(player)
        return info

    def _set_status(self, info: PlayerInfo, status: Status) -> None:
        info.out = status == RaceView.STATUS_OUT
        info.ready = status == RaceView.STATUS_READY
        info.done = status == RaceView.STATUS_DONE

    def _advance(self, board: int, phase: Phase) -> bool:
        """Move to ``phase`` of ``board`` unless the tracker is already further on."""
        if phase == RaceView.PHASE_GAME_OVER:
            self.phase = phase
            return True
        if self.phase == RaceView.PHASE_GAME_OVER or board < self.board:
            return False
        if board == self.board and _PHASE_RANK[phase] < _PHASE_RANK[self.phase]:
            return False
        self.phase = phase
        return True

    def _reset_own_board(self) -> None:
        self.tiles = _down_tiles()
        self.turns = 0
        self.pairs = 0
        self.paused_until_ms = 0
        self.outcome = RaceEvent.OUTCOME_UNSPECIFIED
        self.last_hint = None
        self.hints_left = (self.hints_per_board or 0) if self.has_bot else 0

    def _progress(self, player: str, board: int) -> Progress:
        return self._info(player).boards.get(board, Progress(board))

    def _mine(self, player: str, board: int) -> bool:
        return player == self.player and board == self.board and not self.board_ended

    def _race(self, event: race_pb2.RaceEvent) -> None:
        kind = event.WhichOneof("event")
        if not self.player and kind in PRIVATE_KINDS:
            # Only the viewer's own private events reach a client unredacted: a Watch started
            # from event 1 with only a token learns whose view it is from the first one.
            self.player = getattr(event, kind).player
        if kind == "game_started":
            e = event.game_started
            for p in e.players:
                self._info(p)
            order = list(e.players)
            self.players = {
                p: self.players[p] for p in order + [q for q in self.players if q not in order]
            }
            for p in e.bots:
                self._info(p).is_bot = True
            self.has_bot = bool(e.bots)
            self.hints_per_board = e.hints_per_board
            self.deal_version = e.deal_version or self.deal_version
        elif kind == "ready_opened":
            e1 = event.ready_opened
            if e1.board <= self.board or not self._advance(e1.board, RaceView.PHASE_READY):
                return
            self.board = e1.board
            self.ready_deadline_ms = e1.deadline
            self.starts_at_ms = 0
            self.ends_at_ms = 0
            self.board_ended = False
            self.taken_by = ""
            self._reset_own_board()
            if self.me.out:
                self.outcome = RaceEvent.OUTCOME_OUT  # out before this board began
            for info in self.players.values():
                info.ready = False
                info.done = False
                if not info.out:
                    info.boards[e1.board] = Progress(e1.board)
        elif kind == "player_ready":
            self._info(event.player_ready.player).ready = True
        elif kind == "player_missed_ready":
            e2 = event.player_missed_ready
            info = self._info(e2.player)
            info.out = True
            if e2.board == self.board:
                info.boards.pop(e2.board, None)
                if e2.player == self.player:
                    self.outcome = RaceEvent.OUTCOME_OUT
        elif kind == "countdown_started":
            e3 = event.countdown_started
            if self._advance(e3.board, RaceView.PHASE_COUNTDOWN):
                self.board = e3.board
                self.starts_at_ms = e3.starts_at
                self.ends_at_ms = self.ends_at_ms or e3.starts_at + CAP_MS
                self.ready_deadline_ms = 0
        elif kind == "board_started":
            e4 = event.board_started
            if self._advance(e4.board, RaceView.PHASE_PLAYING):
                self.starts_at_ms = self.starts_at_ms or e4.at
                self.ends_at_ms = self.ends_at_ms or e4.at + CAP_MS
        elif kind == "tiles_turned_down":
            e5 = event.tiles_turned_down
            if self._mine(e5.player, e5.board):
                for t in e5.tiles:
                    if t in self.tiles and self.tiles[t].state == RaceView.TILE_STATE_SHOWING:
                        self.tiles[t] = Tile(t)
        elif kind == "tile_turned":
            e6 = event.tile_turned
            if e6.board == self.board:
                self._set_progress(e6.player, e6.board, turns=e6.turn)
            if self._mine(e6.player, e6.board) and e6.tile in self.tiles:
                self.tiles[e6.tile] = Tile(e6.tile, RaceView.TILE_STATE_SHOWING, e6.symbol)
                self.turns = max(self.turns, e6.turn)
        elif kind == "pair_found":
            e7 = event.pair_found
            if e7.board == self.board:
                self._set_progress(e7.player, e7.board, pairs=e7.pairs)
            if self._mine(e7.player, e7.board):
                for t in e7.tiles:
                    if t in self.tiles:
                        self.tiles[t] = Tile(t, RaceView.TILE_STATE_FOUND, e7.symbol)
                self.pairs = max(self.pairs, e7.pairs)
        elif kind == "attempt_missed":
            e8 = event.attempt_missed
            if self._mine(e8.player, e8.board):
                self.paused_until_ms = max(self.paused_until_ms, e8.paused_until)
        elif kind == "hint_given":
            e9 = event.hint_given
            if e9.board == self.board:
                self._set_progress(e9.player, e9.board, hints=e9.hints_used)
            if self._mine(e9.player, e9.board):
                self.last_hint = (e9.tile, e9.partner)
                if self.hints_per_board is not None:
                    self.hints_left = max(self.hints_per_board - e9.hints_used, 0)
                else:
                    self.hints_left = max(self.hints_left - 1, 0)
        elif kind == "opponent_moved":
            m = event.opponent_moved
            if m.board == self.board and not self.board_ended:
                info = self._info(m.player)
                info.boards[m.board] = Progress(m.board, m.pairs, m.turns, m.hints)
        elif kind == "turns_exhausted":
            self._done(
                event.turns_exhausted.player,
                event.turns_exhausted.board,
                RaceEvent.OUTCOME_OUT_OF_TURNS,
            )
        elif kind == "board_cleared":
            self._done(
                event.board_cleared.player, event.board_cleared.board, RaceEvent.OUTCOME_CLEARED
            )
        elif kind == "clear_disqualified":
            e10 = event.clear_disqualified
            self._done(e10.player, e10.board, RaceEvent.OUTCOME_DISQUALIFIED)
        elif kind == "board_taken":
            e11 = event.board_taken
            if e11.board == self.board:
                self.taken_by = e11.player
                self.ends_at_ms = e11.grace_until
        elif kind == "player_resigned":
            e12 = event.player_resigned
            info = self._info(e12.player)
            if e12.board == self.board and not self.board_ended and not info.out:
                self._done(e12.player, e12.board, RaceEvent.OUTCOME_RESIGNED)
            info.out = True
        elif kind == "board_ended":
            e13 = event.board_ended
            if e13.board == self.board and self._advance(e13.board, RaceView.PHASE_BETWEEN_BOARDS):
                # As a snapshot says it: the board is over; its faces are gone (the reveal
                # shows the whole layout), the counts move to the results.
                self.board_ended = True
                self._reset_own_board()
                for info in self.players.values():
                    info.boards.pop(e13.board, None)
                    info.done = True
        elif kind == "board_revealed":
            e14 = event.board_revealed
            if all(r.board != e14.board for r in self.revealed):
                self.revealed.append(Revealed(e14.board, tuple(e14.layout), tuple(e14.results)))
                self.revealed.sort(key=lambda r: r.board)
            for r in e14.results:
                self._info(r.player).boards[e14.board] = Progress(
                    e14.board, r.found, r.turns, r.hints
                )
        elif kind == "game_ended":
            self._advance(self.board, RaceView.PHASE_GAME_OVER)
            self.board_ended = True
            self.standings = list(event.game_ended.standings)

    def _set_progress(
        self,
        player: str,
        board: int,
        *,
        turns: int | None = None,
        pairs: int | None = None,
        hints: int | None = None,
    ) -> None:
        p = self._progress(player, board)
        self._info(player).boards[board] = Progress(
            board,
            p.pairs if pairs is None else pairs,
            p.turns if turns is None else turns,
            p.hints if hints is None else hints,
        )

    def _done(self, player: str, board: int, outcome: Outcome) -> None:
        if board != self.board or self.board_ended:
            return
        self._info(player).done = True
        if player == self.player and self.outcome == RaceEvent.OUTCOME_UNSPECIFIED:
            self.outcome = outcome

    def _table(self, event: common_pb2.TableEvent) -> None:
        kind = event.WhichOneof("event")
        if kind == "table_created":
            e = event.table_created
            self.fill_at_ms = e.fill_at_ms
            if e.HasField("race"):
                self.hints_per_board = (
                    e.race.hints_per_board
                    if e.race.HasField("hints_per_board")
                    else DEFAULT_HINTS_PER_BOARD
                )
        elif kind == "player_seated":
            s = event.player_seated
            info = self._info(s.player_id)
            info.display_name = s.display_name
            info.is_bot = s.is_bot
        elif kind == "player_left":
            if self.phase == RaceView.PHASE_WAITING_FOR_PLAYERS:
                self.players.pop(event.player_left.player_id, None)
        elif kind == "seed_committed":
            self.commitment = event.seed_committed.commitment
            self.deal_version = event.seed_committed.deal_version or self.deal_version
        elif kind == "seed_revealed":
            self.seed = event.seed_revealed.seed
            self.deal_version = event.seed_revealed.deal_version or self.deal_version
        elif kind == "fill_requested":
            self.fill_at_ms = event.fill_requested.fill_at_ms
