"""Match, the race, behind the game seam: ``GAME`` (see :mod:`match_rules.game`).

Everything the shells need, in wire terms: settings (``RaceSettings``, validated, defaults filled
in), the deal (``match-deal-v1``, :mod:`match_rules.race.deal`), the decider, the codec of
``RaceEvent``, redaction, the replies (``RaceCommandReply``, with the player's ``RaceCounters``),
the snapshot (``RaceView``: ``player_view`` plus what the table adds, the names, the commitment,
the seed once revealed) and results.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import replace

from google.protobuf.message import Message

from match.v1 import common_pb2, dealer_pb2, race_command_pb2, race_pb2, race_service_pb2, views_pb2
from match_rules.deal import Strength
from match_rules.errors import Code, RuleError
from match_rules.game import (
    BaseGame,
    Bot,
    Figure,
    Game,
    Keep,
    Moves,
    PrivateByType,
    Results,
    SeatInfo,
    Standing,
    TableContext,
)
from match_rules.protocodec import Codec
from match_rules.race import commands as cmd
from match_rules.race import deal as dealing
from match_rules.race import describe as told
from match_rules.race import events as ev
from match_rules.race.decide import RULES
from match_rules.race.errors import RaceCode
from match_rules.race.settings import (
    DEFAULT_HINTS_PER_BOARD,
    DEFAULT_READY_WINDOW_MS,
    MAX_HINTS_PER_BOARD,
    MAX_PLAYERS,
    MAX_READY_WINDOW_MS,
    MIN_PLAYERS,
    MIN_READY_WINDOW_MS,
    TILES,
)
from match_rules.race.state import Phase, RaceState, initial_state, validate_deal
from match_rules.race.view import (
    Counters,
    OpponentMoved,
    Status,
    TileState,
    player_counters,
    player_view,
    redact,
)

CODEC = Codec(
    race_pb2.RaceEvent,
    (*typing.get_args(ev.Event), OpponentMoved),
    {
        ev.Outcome: (race_pb2.RaceEvent.Outcome, "OUTCOME_"),
        ev.EndReason: (race_pb2.RaceEvent.EndReason, "END_REASON_"),
    },
)


def to_proto(event: ev.Event | OpponentMoved) -> race_pb2.RaceEvent:
    result: race_pb2.RaceEvent = CODEC.to_proto(event)
    return result


def from_proto(msg: race_pb2.RaceEvent) -> ev.Event | OpponentMoved:
    result: ev.Event | OpponentMoved = CODEC.from_proto(msg)
    return result


RaceView = views_pb2.RaceView

_PHASE = {
    Phase.NOT_STARTED: RaceView.PHASE_WAITING_FOR_PLAYERS,
    Phase.READY: RaceView.PHASE_READY,
    Phase.COUNTDOWN: RaceView.PHASE_COUNTDOWN,
    Phase.PLAYING: RaceView.PHASE_PLAYING,
    Phase.OVER: RaceView.PHASE_GAME_OVER,
}
STATUS = {
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


def counters(view: Counters, event_number: int, server_time_ms: int) -> views_pb2.RaceCounters:
    """What a race command's reply tells its player after it: their counts."""
    return views_pb2.RaceCounters(
        event_number=event_number,
        server_time_ms=server_time_ms,
        board=view.board,
        status=STATUS[view.status],
        turns=view.turns,
        pairs=view.pairs,
        hints_left=view.hints_left,
        paused_until_ms=view.paused_until,
    )


def race_view(state: RaceState, viewer: str, table: TableContext) -> views_pb2.RaceView:
    """The viewer's whole view: ``player_view`` plus what the table's events add. ``table.names``
    lists the seated players in seat order; before the game they are the viewer's opponents."""
    view = player_view(state, viewer)
    phase = _PHASE[state.phase]
    if state.phase is Phase.PLAYING and state.board is not None and state.board.ended_at:
        phase = RaceView.PHASE_BETWEEN_BOARDS
    out = RaceView(
        table_id=table.table_id,
        game_id=table.table_id if state.players else "",  # a table hosts one game: its id
        event_number=table.event_number,
        server_time_ms=table.server_time_ms,
        player=viewer,
        phase=phase,
        board=view.board,
        ready_deadline_ms=(view.ready_deadline or 0) if state.phase is Phase.READY else 0,
        starts_at_ms=view.starts_at or 0,
        ends_at_ms=view.ends_at or 0,
        status=STATUS[view.status],
        turns=view.turns,
        pairs=view.pairs,
        hints_left=view.hints_left,
        paused_until_ms=view.paused_until,
        deal_version=table.deal_version or state.deal_version,
        commitment=table.commitment,
    )
    if view.outcome is not None:
        out.outcome = _OUTCOME[view.outcome]
    for t in view.tiles:
        tile = out.tiles.add(tile=t.tile, state=_TILE[t.state])
        if t.symbol is not None:
            tile.symbol = t.symbol
    for o in view.opponents:
        opponent = out.opponents.add(
            player=o.player,
            status=STATUS[o.status],
            display_name=table.names.get(o.player, ""),  # pragma: no mutate (None is "")
            is_bot=o.player in state.bots or o.player in table.bots,
        )
        for p in o.boards:
            opponent.boards.add(board=p.board, pairs=p.pairs, turns=p.turns, hints=p.hints)
    if not state.players:  # no game yet: the others are the seated players
        for player, name in table.names.items():
            if player != viewer:
                out.opponents.add(
                    player=player,
                    status=RaceView.STATUS_DONE,
                    display_name=name,
                    is_bot=player in table.bots,
                )
    for number, (layout, results) in enumerate(
        zip(view.revealed, view.results, strict=False),  # pragma: no mutate (equal lengths)
        start=1,
    ):
        # pragma: no mutate start (equivalent: only the results are read from this message)
        revealed = to_proto(ev.BoardRevealed(0, number, layout, results)).board_revealed
        # pragma: no mutate end
        out.revealed.add(board=number, layout=layout, results=revealed.results)
    if view.standings:
        # pragma: no mutate start (equivalent: only the standings are read from this message)
        ended = to_proto(ev.GameEnded(0, view.standings)).game_ended
        # pragma: no mutate end
        out.standings.extend(ended.standings)
    if table.seed is not None and state.phase is Phase.OVER:
        out.seed = table.seed
    return out


_STRENGTH = {
    Strength.WEAK: dealer_pb2.BOT_STRENGTH_WEAK,
    Strength.MEDIUM: dealer_pb2.BOT_STRENGTH_MEDIUM,
    Strength.STRONG: dealer_pb2.BOT_STRENGTH_STRONG,
}


def _boards(deal: Message) -> tuple[tuple[int, ...], ...]:
    assert isinstance(deal, dealer_pb2.RaceDeal)
    return tuple(tuple(board.layout) for board in deal.boards)


# Outcomes of a player away from a board: out of the game before it began, or resigned (before
# it began, or during it). With no tile turned on it, the player did not play it.
_AWAY = frozenset({ev.Outcome.OUT, ev.Outcome.RESIGNED, ev.Outcome.NOT_PLAYED})

# A race counts for a rating only when each player turned at least this many tiles over the
# game (docs/rules-race.md): half a board, so resigning at once rates nobody.
RATED_TURNS = 10


def _figures(state: RaceState) -> tuple[Figure, ...]:
    """Each player's pairs on each board they played (as scored: none for a disqualified
    clear), and in all. The race has no points: it ranks by pairs, then time."""
    out: list[Figure] = []
    for standing in state.standings:
        player = standing.player
        for number, board in enumerate(state.results, start=1):
            for result in board:
                played = result.turns > 0 or result.outcome not in _AWAY
                if result.player == player and played:
                    out.append(Figure(player, f"pairs_board_{number}", result.pairs, Keep.SUM))
        out.append(Figure(player, "pairs", standing.pairs, Keep.SUM))
    return tuple(out)


def _summary(standing: ev.Standing) -> str:
    line = f"{standing.pairs} pairs in {standing.time_ms / 1000:.1f} s, {standing.turns} turns"
    return line + (", out" if standing.out else "")


class RaceGame(BaseGame):
    """Match, the race: 2-4 players, three boards, a deal of ``match-deal-v1``."""

    rules = RULES
    told = told

    kind: int = common_pb2.GAME_KIND_MATCH_RACE
    slug = "race"
    title = "Match, the race"
    min_seats = MIN_PLAYERS
    max_seats = MAX_PLAYERS
    deal_version = dealing.DEAL_VERSION
    cpu_fills = False  # the bot service fills a race's empty seats
    leave_instead = "Resign ends your game instead (your boards end now; the others play on)"
    public_watch = False  # a player's own board is private: Watch needs a seat's token
    by_type = PrivateByType(CODEC, ev.PRIVATE_EVENTS)
    watch_snapshots = False
    command_message: type[Message] = race_command_pb2.RaceCommand
    reply_message: type[Message] = race_command_pb2.RaceCommandReply

    @property
    def bot(self) -> Bot:
        """The bot service's player for a race's seats (imported when asked for: it folds the
        seat's view with the client's tracker, which the referee never needs)."""
        from match_rules.race.botseat import BOT

        return BOT

    # --- settings ------------------------------------------------------------------------

    def settings(self, wire: Message | None) -> race_pb2.RaceSettings:
        given = wire if wire is not None else race_pb2.RaceSettings()
        assert isinstance(given, race_pb2.RaceSettings)
        window = given.ready_window_ms or DEFAULT_READY_WINDOW_MS
        if not MIN_READY_WINDOW_MS <= window <= MAX_READY_WINDOW_MS:
            raise RuleError(
                RaceCode.INVALID_READY_WINDOW,
                f"race.ready_window_ms (the Ready deadline) must be {MIN_READY_WINDOW_MS} to "
                f"{MAX_READY_WINDOW_MS} (10 s to 2 min), or 0 for {DEFAULT_READY_WINDOW_MS}; "
                f"got {window}",
            )
        hints = DEFAULT_HINTS_PER_BOARD
        if given.HasField("hints_per_board"):
            hints = given.hints_per_board
            if hints > MAX_HINTS_PER_BOARD:
                raise RuleError(
                    RaceCode.INVALID_HINTS,
                    f"race.hints_per_board must be 0 to {MAX_HINTS_PER_BOARD} (leave it unset "
                    f"for {DEFAULT_HINTS_PER_BOARD}); got {hints}",
                )
        return race_pb2.RaceSettings(ready_window_ms=window, hints_per_board=hints)

    # --- the deal ------------------------------------------------------------------------

    def deal(self, seed: bytes, settings: Message) -> dealer_pb2.RaceDeal:
        dealt = dealing.deal(seed)
        return dealer_pb2.RaceDeal(
            boards=[dealer_pb2.RaceDeal.Board(layout=board) for board in dealt.boards],
            bot_strength=_STRENGTH[dealt.bot_strength],
        )

    # --- the decider ---------------------------------------------------------------------

    def initial_state(self, deal: Message | None) -> RaceState:
        return initial_state(None if deal is None else _boards(deal))

    def with_deal(self, state: RaceState, deal: Message) -> RaceState:
        boards = _boards(deal)
        validate_deal(boards)
        return replace(state, deal=boards)

    def start(
        self, now: int, seats: Sequence[SeatInfo], settings: Message, deal_version: str
    ) -> cmd.StartGame:
        assert isinstance(settings, race_pb2.RaceSettings)
        ordered = sorted(seats, key=lambda s: s.number)
        return cmd.StartGame(
            now,
            tuple(s.player for s in ordered),
            frozenset(s.player for s in ordered if s.is_bot),
            settings.ready_window_ms,
            settings.hints_per_board,
            deal_version,
        )

    def is_started(self, state: RaceState) -> bool:
        return bool(state.players)

    # --- the wire ------------------------------------------------------------------------

    def command(self, wire: Message, now: int) -> cmd.Command:
        assert isinstance(wire, race_command_pb2.RaceCommand)
        player = wire.player_id
        which = wire.WhichOneof("command")
        if which == "press_ready":
            return cmd.PressReady(now, player)
        if which == "turn_tile":
            return cmd.TurnTile(now, player, wire.turn_tile.tile)
        if which == "resign":
            return cmd.Resign(now, player)
        if which == "request_hint":
            return cmd.RequestHint(now, player)
        raise RuleError(
            Code.MALFORMED_REQUEST, "send one of press_ready, turn_tile, resign, request_hint"
        )

    def encode(self, event: ev.Event | OpponentMoved) -> race_pb2.RaceEvent:
        return to_proto(event)

    def decode(self, wire: Message) -> ev.Event | OpponentMoved:
        assert isinstance(wire, race_pb2.RaceEvent)
        return from_proto(wire)

    # --- what each player may see --------------------------------------------------------

    def redact(self, state_after: RaceState, event: ev.Event, player: str) -> object:
        return redact(state_after, event, player)

    def accepted(
        self,
        events: Sequence[common_pb2.EventEnvelope],
        state: RaceState,
        player: str,
        now: int,
        event_number: int,
        commitment: str = "",  # the race's reply carries counters, not a view
    ) -> race_command_pb2.RaceCommandReply:
        reply = race_command_pb2.RaceCommandReply()
        reply.accepted.events.extend(events)
        reply.accepted.counters.CopyFrom(
            counters(player_counters(state, player), event_number, now)
        )
        return reply

    def check_request(self, request: Message) -> str | RuleError | None:
        if isinstance(request, race_service_pb2.TurnTileRequest) and not 1 <= request.tile <= TILES:
            return RuleError(  # the referee's refusal for a tile off the board
                RaceCode.TILE_OUT_OF_RANGE, f"tiles are numbered 1 to {TILES}, got {request.tile}"
            )
        return None

    def snapshot(self, state: RaceState, player: str, table: TableContext) -> views_pb2.RaceView:
        return race_view(state, player, table)

    # --- results -------------------------------------------------------------------------

    def results(self, state: RaceState) -> Results | None:
        if state.phase is not Phase.OVER:
            return None
        standings = tuple(
            Standing(s.player, s.place, s.pairs, _summary(s)) for s in state.standings
        )
        draw = len(standings) >= 2 and all(s.place == 1 for s in standings)
        winners = frozenset() if draw else frozenset(s.player for s in standings if s.place == 1)
        # no entries: the race's main board is its rating, and it has no other
        moves = tuple(Moves(s.player, s.turns) for s in state.standings)
        return Results(
            standings,
            draw,
            winners=winners,
            figures=_figures(state),
            moves=moves,
            rated_moves=RATED_TURNS,
        )

    # --- the replay ------------------------------------------------------------------------

    def describe_settings(self, settings: Message) -> str:
        return told.describe_settings(settings)


GAME: Game = RaceGame()
