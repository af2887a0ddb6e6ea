"""The state of one game of Match Cards, and ``evolve``: it records, it never judges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING

from match_rules.match_cards import events as ev
from match_rules.match_cards.settings import Difficulty, Settings

if TYPE_CHECKING:  # mypy checks each call's fields against dataclasses.replace
    from dataclasses import replace
else:  # the same, faster: match_rules.copying
    from match_rules.copying import replace

_DEFAULT = Settings()


class Phase(Enum):
    NOT_STARTED = "not_started"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Board:
    """One player's copy of the deal."""

    up: tuple[int, ...] = ()  # the current attempt's cards, in the order turned
    compare_at: int | None = None  # the attempt is full: compared then
    pictures: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))  # up/found
    found: frozenset[int] = frozenset()
    groups: int = 0
    failed: int = 0
    notice: bool = False  # Hard's notice is on for this player
    last: tuple[tuple[int, ...], bool] | None = None  # the last attempt: its cards, same or not
    finished_at: int | None = None
    won: bool = False


@dataclass(frozen=True, slots=True)
class MatchCardsState:
    """A game folded from its events. The referee's state holds the deal (``cards``, ``code``),
    which ``decide`` needs; a projection folded from the events alone holds none."""

    cards: tuple[str, ...] | None
    code: str = ""
    phase: Phase = Phase.NOT_STARTED
    now: int = 0
    started_at: int = 0
    ends_at: int = 0
    players: tuple[str, ...] = ()
    settings: Settings = _DEFAULT
    deal_version: str = ""
    limit: int = 0
    boards: Mapping[str, Board] = field(default_factory=lambda: MappingProxyType({}))
    standings: tuple[ev.Standing, ...] = ()
    published_code: str = ""  # the code, once the game is over
    replay: bool = False

    def picture(self, card: int) -> str:
        """The dealt picture of ``card``: only the referee's state has it."""
        if self.cards is None:
            raise ValueError("this state is a projection of the events: it holds no deal")
        return self.cards[card - 1]

    @property
    def size(self) -> int:
        return self.settings.cards

    def board(self, player: str) -> Board:
        return self.boards[player]


def initial_state(cards: tuple[str, ...] | None = None, code: str = "") -> MatchCardsState:
    """The state before StartGame: the referee passes in the deal, a projection nothing."""
    return MatchCardsState(cards=None if cards is None else tuple(cards), code=code)


def _set(state: MatchCardsState, player: str, board: Board) -> MatchCardsState:
    return replace(state, boards=MappingProxyType({**state.boards, player: board}))


def evolve(state: MatchCardsState, event: ev.Event) -> MatchCardsState:
    """Apply one recorded event. Only sets, appends and removes; all judgement is in decide."""
    state = replace(state, now=event.at)
    match event:
        case ev.GameStarted():
            notice = event.settings.difficulty is Difficulty.HARD
            return replace(
                state,
                phase=Phase.PLAYING,
                started_at=event.at,
                ends_at=event.ends_at,
                players=event.players,
                settings=event.settings,
                deal_version=event.deal_version,
                limit=event.limit,
                replay=event.settings.replay,
                boards=MappingProxyType({p: Board(notice=notice) for p in event.players}),
            )
        case ev.CardTurned():
            b = state.board(event.player)
            return _set(
                state,
                event.player,
                replace(
                    b,
                    up=(*b.up, event.card),
                    compare_at=event.compare_at,
                    pictures=MappingProxyType({**b.pictures, event.card: event.picture}),
                    last=None,
                ),
            )
        case ev.GroupFound():
            b = state.board(event.player)
            return _set(
                state,
                event.player,
                replace(
                    b,
                    up=(),
                    compare_at=None,
                    found=b.found | set(event.cards),
                    groups=event.groups,
                    last=(event.cards, True) if event.notice else None,
                ),
            )
        case ev.AttemptFailed():
            b = state.board(event.player)
            pictures = {c: p for c, p in b.pictures.items() if c not in event.cards}
            return _set(
                state,
                event.player,
                replace(
                    b,
                    up=(),
                    compare_at=None,
                    pictures=MappingProxyType(pictures),
                    failed=event.failed,
                    last=(event.cards, False) if event.notice else None,
                ),
            )
        case ev.NoticeTurnedOff():
            b = state.board(event.player)
            return _set(state, event.player, replace(b, notice=False, last=None))
        case ev.PlayerFinished():
            b = state.board(event.player)
            return _set(
                state,
                event.player,
                replace(b, compare_at=None, finished_at=event.at, won=event.won),
            )
        case ev.GameEnded():
            return replace(
                state,
                phase=Phase.OVER,
                standings=event.standings,
                published_code=event.code,
                replay=event.replay,  # pragma: no mutate (GameStarted's settings set it already)
            )
    raise TypeError(f"not an event of Match Cards: {event!r}")  # pragma: no cover
