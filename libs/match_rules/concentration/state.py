"""The state of one game of Concentration, and ``evolve``: it records, it never judges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from match_rules.concentration import events as ev
from match_rules.concentration.cpu import NOTHING, Memory, remember
from match_rules.concentration.settings import Settings
from match_rules.deal import Strength

if TYPE_CHECKING:  # mypy checks each call's fields against dataclasses.replace
    from dataclasses import replace
else:  # the same, faster: match_rules.copying
    from match_rules.copying import replace

_DEFAULT = Settings()


def _empty() -> Mapping[Any, Any]:
    return MappingProxyType({})


class Phase(Enum):
    NOT_STARTED = "not_started"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class ConcentrationState:
    """A game folded from its events. The referee's state holds the deal (``cards``, and the
    CPU players' ``cpu_seed`` and ``cpu_strength``), which ``decide`` needs; a projection folded
    from the events alone holds none and serves ``player_view`` just as well."""

    cards: tuple[str, ...] | None
    cpu_seed: bytes | None = None
    cpu_strength: Strength = Strength.MEDIUM
    seq: int = 0  # game events folded so far: the CPU's choices are keyed by it
    phase: Phase = Phase.NOT_STARTED
    now: int = 0
    players: tuple[str, ...] = ()
    cpus: frozenset[str] = frozenset()
    settings: Settings = _DEFAULT
    turn: str | None = None  # whose turn it is
    deadline: int | None = None  # when the current flip's wait ends by itself
    up: tuple[int, ...] = ()  # face up now: a turn's first card, or a miss until it turns down
    turn_down_at: int | None = None  # a miss turns down then, and play passes
    flip_from: int = 0  # when the turn began or its first card was flipped (a CPU's clock)
    dropped: Mapping[str, int] = field(default_factory=_empty)  # player -> the CPU's takeover
    memory: Mapping[str, Memory] = field(default_factory=_empty)  # per CPU seat: what it saw
    faces: Mapping[int, str] = field(default_factory=_empty)  # on the table now: up or taken
    taken: Mapping[int, str] = field(default_factory=_empty)  # card -> the player who took it
    pairs: Mapping[str, int] = field(default_factory=_empty)
    tries: Mapping[str, int] = field(default_factory=_empty)
    standings: tuple[ev.Standing, ...] = ()
    winners: tuple[str, ...] = ()
    draw: bool = False

    def face(self, card: int) -> str:
        """The dealt face of ``card``: only the referee's state has it."""
        if self.cards is None:
            raise ValueError("this state is a projection of the events: it holds no deal")
        return self.cards[card - 1]

    @property
    def size(self) -> int:
        return self.settings.deck_size

    def next_player(self, player: str) -> str:
        """Who flips after ``player``: the next seat, round the table (a solo player again)."""
        seat = self.players.index(player)
        return self.players[(seat + 1) % len(self.players)]

    def seat(self, player: str) -> int:
        """``player``'s seat number, 1-based."""
        return self.players.index(player) + 1


def initial_state(
    cards: tuple[str, ...] | None = None,
    cpu_seed: bytes | None = None,
    cpu_strength: Strength = Strength.MEDIUM,
) -> ConcentrationState:
    """The state before StartGame: the referee passes in the deal, a projection nothing."""
    return ConcentrationState(
        cards=None if cards is None else tuple(cards), cpu_seed=cpu_seed, cpu_strength=cpu_strength
    )


def _with(mapping: Mapping[str, int], key: str, value: int) -> Mapping[str, int]:
    out = dict(mapping)
    out[key] = value
    return MappingProxyType(out)


def evolve(state: ConcentrationState, event: ev.Event) -> ConcentrationState:
    """Apply one recorded event. Only sets, appends and removes; all judgement is in decide."""
    state = _evolve(replace(state, now=event.at, seq=state.seq + 1), event)
    if state.memory:  # every CPU seat sees every event (they are all public)
        memory = {p: remember(m, event, state.seq) for p, m in state.memory.items()}
        state = replace(state, memory=MappingProxyType(memory))
    return state


def _evolve(state: ConcentrationState, event: ev.Event) -> ConcentrationState:
    match event:
        case ev.GameStarted():
            zero = MappingProxyType(dict.fromkeys(event.players, 0))
            return replace(
                state,
                phase=Phase.PLAYING,
                players=event.players,
                cpus=event.cpus,
                settings=event.settings,
                pairs=zero,
                tries=zero,
                memory=MappingProxyType(dict.fromkeys(sorted(event.cpus), NOTHING)),
            )
        case ev.TurnBegan():
            return replace(state, turn=event.player, deadline=event.deadline, flip_from=event.at)
        case ev.CardFlipped():
            faces = dict(state.faces)
            faces[event.card] = event.face
            return replace(
                state,
                up=(*state.up, event.card),
                faces=MappingProxyType(faces),
                flip_from=event.at,
            )
        case ev.SecondCardDue():
            return replace(state, deadline=event.deadline)
        case ev.PairTaken():
            taken = dict(state.taken)
            taken.update(dict.fromkeys(event.cards, event.player))
            return replace(
                state,
                up=(),
                deadline=None,
                taken=MappingProxyType(taken),
                pairs=_with(state.pairs, event.player, event.pairs),
                tries=_with(state.tries, event.player, event.tries),
            )
        case ev.AttemptMissed():
            return replace(
                state,
                deadline=None,
                turn_down_at=event.turn_down_at,
                tries=_with(state.tries, event.player, event.tries),
            )
        case ev.CardsTurnedDown():
            return replace(
                state, up=(), turn_down_at=None, faces=_without(state.faces, event.cards)
            )
        case ev.TimeRanOut():
            down = () if event.card is None else (event.card,)  # pragma: no mutate: (None,) same
            return replace(
                state,
                up=(),
                deadline=None,
                faces=_without(state.faces, down),
                tries=_with(state.tries, event.player, event.tries),
            )
        case ev.PlayerDropped():
            return replace(state, dropped=_with(state.dropped, event.player, event.takeover_at))
        case ev.PlayerReturned():
            return replace(state, dropped=_drop(state.dropped, event.player))
        case ev.SeatHandedToCpu():
            return replace(
                state,
                cpus=state.cpus | {event.player},
                dropped=_drop(state.dropped, event.player),
                memory=MappingProxyType({**state.memory, event.player: NOTHING}),
                flip_from=event.at if event.player == state.turn else state.flip_from,
            )
        case ev.GameEnded():
            return replace(
                state,
                phase=Phase.OVER,
                dropped=_empty(),
                turn=None,
                deadline=None,  # pragma: no mutate: the last PairTaken cleared it already
                standings=event.standings,
                winners=event.winners,
                draw=event.draw,
            )
    raise TypeError(f"not an event of Concentration: {event!r}")  # pragma: no cover, no mutate


def _drop(mapping: Mapping[str, int], key: str) -> Mapping[str, int]:
    return MappingProxyType({k: v for k, v in mapping.items() if k != key})


def _without(faces: Mapping[int, str], cards: tuple[int, ...]) -> Mapping[int, str]:
    return MappingProxyType({c: f for c, f in faces.items() if c not in cards})
