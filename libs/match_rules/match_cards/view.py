"""What each player may see: ``player_view`` and ``redact``.

A player sees their own copy: a card's picture only while it is turned (the current attempt,
until it is compared) or found; never a hidden card's, even one turned before (remembering it is
the game). Of the others at a challenge table: their progress (cards turned in the current
attempt, groups found, failed attempts, finished or not), never a card or a picture, like the
race's OpponentMoved. Once the game is over: the standings and the game's code.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from match_rules.match_cards import events as ev
from match_rules.match_cards.settings import Settings
from match_rules.match_cards.state import Board, MatchCardsState, Phase


class CardState(Enum):
    DOWN = "down"
    UP = "up"  # turned in the current attempt
    FOUND = "found"


@dataclass(frozen=True, slots=True)
class CardView:
    card: int
    state: CardState
    picture: str | None  # only when up or found


@dataclass(frozen=True, slots=True)
class Progress:
    """One player's counters (yours, or another player's at a challenge table)."""

    player: str
    turned: int
    groups: int
    failed: int
    finished: bool
    won: bool
    time_ms: int | None  # once finished


@dataclass(frozen=True, slots=True)
class View:
    phase: Phase
    you: str
    settings: Settings
    limit: int
    groups_total: int
    started_at: int
    ends_at: int
    cards: tuple[CardView, ...]  # your copy (empty for anyone without a seat)
    compare_at: int | None
    notice: tuple[tuple[int, ...], bool] | None  # Hard: the last attempt's cards, same or not
    notice_on: bool
    players: tuple[Progress, ...]  # everybody, in seat order
    standings: tuple[ev.Standing, ...]
    code: str  # once over
    replay: bool


def _card(board: Board, card: int) -> CardView:
    if card in board.found:
        return CardView(card, CardState.FOUND, board.pictures[card])
    if card in board.up:
        return CardView(card, CardState.UP, board.pictures[card])
    return CardView(card, CardState.DOWN, None)


def progress(state: MatchCardsState, player: str) -> Progress:
    b = state.board(player)
    time_ms = None if b.finished_at is None else b.finished_at - state.started_at
    return Progress(
        player, len(b.up), b.groups, b.failed, b.finished_at is not None, b.won, time_ms
    )


def player_view(state: MatchCardsState, player: str) -> View:
    """The game as ``player`` (or anyone without a seat) may see it now."""
    own = state.boards.get(player)
    cards = () if own is None else tuple(_card(own, n) for n in range(1, state.size + 1))
    over = state.phase is Phase.OVER
    return View(
        state.phase,
        player,
        state.settings,
        state.limit,
        state.settings.groups,
        state.started_at,
        state.ends_at,
        cards,
        None if own is None else own.compare_at,
        None if own is None else own.last,
        own is not None and own.notice,
        tuple(progress(state, p) for p in state.players),
        state.standings,
        state.published_code if over else "",  # pragma: no mutate (equivalent: set when over)
        state.replay,
    )


def redact(
    state_after: MatchCardsState, event: ev.Event, viewer: str
) -> ev.Event | ev.OpponentProgress:
    """``event`` as ``viewer`` may receive it: a player's own events go to them as they are;
    everybody else gets that player's counts (:class:`~events.OpponentProgress`)."""
    if not isinstance(event, ev.PRIVATE_EVENTS) or event.player == viewer:
        return event
    p = progress(state_after, event.player)
    return ev.OpponentProgress(event.at, event.player, p.turned, p.groups, p.failed)
