"""Scoring and ranking of Match, the race (pure)."""

from __future__ import annotations

from match_rules.race import events as ev
from match_rules.race.settings import BOARDS
from match_rules.race.state import Board, RaceState

# A player's time on a board is the moment of their last pair; in these cases it is the
# moment the board ended for everybody instead.
_TIMED_BY_BOARD_END = frozenset(
    {ev.Outcome.DISQUALIFIED, ev.Outcome.RESIGNED, ev.Outcome.OUT, ev.Outcome.NOT_PLAYED}
)


def board_results(state: RaceState, board: Board, ended_at: int) -> tuple[ev.BoardResult, ...]:
    """Each player's result on a board that has just ended, in seat order."""
    assert board.starts_at is not None  # a board ends only once in play, after its T0
    t0 = board.starts_at
    results = []
    for player in state.players:
        pb = board.players[player]
        outcome = pb.outcome or ev.Outcome.BOARD_ENDED
        if outcome in _TIMED_BY_BOARD_END or pb.last_pair_at is None:
            time_ms = ended_at - t0
        else:
            time_ms = pb.last_pair_at - t0
        scored = 0 if outcome is ev.Outcome.DISQUALIFIED else pb.pairs
        results.append(
            ev.BoardResult(player, outcome, scored, pb.pairs, pb.turns, max(time_ms, 0), pb.hints)
        )
    return tuple(results)


def standings(
    players: tuple[str, ...],
    out: frozenset[str],
    results: tuple[tuple[ev.BoardResult, ...], ...],
) -> tuple[ev.Standing, ...]:
    """Rank by pairs over the boards (more first), then time (less first).

    Equal on both shares the place (1, 1, 3); turns are shown and never break a tie. Players out
    of the game rank below everyone who stayed, by the same rule among themselves. A board the
    game never reached counts 0 pairs and 0 ms for everybody.
    """
    assert len(results) <= BOARDS
    totals = {p: [0, 0, 0, 0] for p in players}  # pairs, time, turns, hints
    for board in results:
        for r in board:
            t = totals[r.player]
            t[0] += r.pairs
            t[1] += r.time_ms
            t[2] += r.turns
            t[3] += r.hints

    def key(player: str) -> tuple[bool, int, int]:
        return (player in out, -totals[player][0], totals[player][1])

    order = sorted(players, key=key)  # stable: seat order among equals
    ranked: list[ev.Standing] = []
    for index, player in enumerate(order):
        tied = bool(ranked) and key(order[index - 1]) == key(player)
        place = ranked[-1].place if tied else index + 1
        pairs, time_ms, turns, hints = totals[player]
        ranked.append(ev.Standing(player, place, pairs, time_ms, turns, hints, player in out))
    return tuple(ranked)
