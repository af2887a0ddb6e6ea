"""The race as one player may see it now, as the wire's ``RaceView``: ``player_view`` plus what
the table adds (names, the commitment, the seed once revealed).

Pure: the lobby folds the table's records and passes in the state (a projection, no deal) and
the table's side as a :class:`match_rules.game.TableContext`. Moved from the lobby's viewer so
that every shell shows a race the same way (``GAME.snapshot``).
"""

from __future__ import annotations

from match.v1 import race_pb2, views_pb2
from match_rules.game import TableContext
from match_rules.race import events as ev
from match_rules.race.codec import to_proto
from match_rules.race.state import Phase, RaceState
from match_rules.race.view import Counters, Status, TileState, player_view

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
