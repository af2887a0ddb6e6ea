"""What each player may see: ``player_view`` and ``redact``.

At a Concentration table everything that happens is public: every flip is seen by everyone
(the seed: "Everyone sees each card you flip"), so ``redact`` passes every event as it is, and
the events never hold the face of a card nobody flipped. The view shows the table as it is now:
the faces of the cards face up and of the pairs taken, never of a card face down, even one that
was flipped before (remembering it is the game; the event log, which the player saw, has it).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from match_rules.concentration import events as ev
from match_rules.concentration.settings import Settings
from match_rules.concentration.state import ConcentrationState, Phase


class CardState(Enum):
    DOWN = "down"
    UP = "up"
    TAKEN = "taken"  # an empty place


@dataclass(frozen=True, slots=True)
class CardView:
    card: int
    state: CardState
    face: str | None  # only when up or taken
    taken_by: str | None = None


@dataclass(frozen=True, slots=True)
class SeatView:
    player: str
    pairs: int
    tries: int
    cpu: bool  # the CPU plays this seat (shown to everyone)
    takeover_at: int | None = None  # dropped: the CPU takes the seat then unless they return


@dataclass(frozen=True, slots=True)
class View:
    phase: Phase
    you: str
    settings: Settings
    cards: tuple[CardView, ...]
    seats: tuple[SeatView, ...]
    turn: str | None
    deadline: int | None  # when the current flip's wait ends by itself
    turn_down_at: int | None  # a miss showing turns down then
    standings: tuple[ev.Standing, ...]
    winners: tuple[str, ...]
    draw: bool


def _card(state: ConcentrationState, card: int) -> CardView:
    if card in state.taken:
        return CardView(card, CardState.TAKEN, state.faces[card], state.taken[card])
    if card in state.up:
        return CardView(card, CardState.UP, state.faces[card])
    return CardView(card, CardState.DOWN, None)


def player_view(state: ConcentrationState, player: str) -> View:
    """The table as ``player`` (or a spectator) may see it now: the same for everybody."""
    cards = tuple(_card(state, n) for n in range(1, state.size + 1)) if state.players else ()
    seats = tuple(
        SeatView(p, state.pairs[p], state.tries[p], p in state.cpus, state.dropped.get(p))
        for p in state.players
    )
    return View(
        state.phase,
        player,
        state.settings,
        cards,
        seats,
        state.turn,
        state.deadline,
        state.turn_down_at,
        state.standings,
        state.winners,
        state.draw,
    )


def redact(event: ev.Event, player: str) -> ev.Event:
    """``event`` as ``player`` may receive it: every event of this game is public.

    Only a CardFlipped carries a face, and the rules emit one only when that card is flipped
    for everybody to see: no event ever names the face of a card nobody flipped."""
    return event
