"""The game seam: what every game's package gives the platform, and nothing more.

A game is one package under ``match_rules/<slug>/`` with a ``game.py`` that builds one object
satisfying :class:`Game`; :mod:`match_rules.registry` lists them by kind and by slug. The shells
(referee, dealer, ledger, audit, lobby, bot, client) use only this interface, so adding a game
touches its package, its proto files, its registry line and its docs page.

**The slug convention.** A game's ``slug`` (``race``, ``concentration``) is the name of its member
in every oneof that carries something of one game: ``EventEnvelope.body`` (its events),
``StampedCommand.command`` (its player commands), ``CreateTable.settings``,
``TableCreated.settings``, ``Table.settings``, ``CreateTableRequest.settings``,
``DealRequest.settings`` and ``Deal.game``. The referee's subject for the game's commands is
``match.referee.pNN.<slug>.<table>``. The conformance suite (tests/games/) checks all of it for
every registered game.

Everything here is pure: no clock, no I/O, no randomness. Time comes in as ``now`` (the referee's
clock), deals as the dealer's answer, randomness from the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from google.protobuf.message import Message

from match.v1 import common_pb2
from match_rules.deal import Strength
from match_rules.decide import Rules
from match_rules.errors import RuleError
from match_rules.protocodec import Codec, snake


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as the table knows it when the game starts."""

    number: int  # 1-based
    player: str
    name: str
    is_bot: bool


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's result, for a rating (``place``, the game's ``draw``) and for people."""

    player: str
    place: int  # 1 is best; tied players share a place
    score: int  # the game's headline figure (race points, pairs taken)
    summary: str  # one line for people: "12 pairs, 30 tries"


class Keep(Enum):
    """How a figure is kept over a player's games (:class:`Figure`)."""

    SUM = "sum"  # added up: pairs found, games of a kind
    MIN = "min"  # the lowest kept: a best time, the fewest tries
    MAX = "max"  # the highest kept: a best score


@dataclass(frozen=True, slots=True)
class Figure:
    """One number a finished game adds to one player's statistics (``Results.figures``).
    ``name`` is the game's own ("pairs_board_1", "best_time_ms/level-3"); a name is kept the
    same way in every game that gives it."""

    player: str
    name: str
    value: int
    keep: Keep


@dataclass(frozen=True, slots=True)
class Entry:
    """A player's result on one of the game's leaderboards (``Results.entries``): each board
    keeps every player's best ``value``. ``board`` is "" for the game's main board of a solo
    game (a game with a rating ranks its main board by rating instead), else the game's own
    name: "level-hard", "daily-2026-12-01", "code-AB12CD"."""

    board: str
    player: str
    value: int
    unit: str  # what value is: "points", "ms", "tries"
    lower_is_better: bool = False
    # The board keeps a player's first value, not their best: a board everybody can learn
    # (the daily puzzle) counts the first try only.
    first_only: bool = False


@dataclass(frozen=True, slots=True)
class DailySolve:
    """A daily puzzle solved (``Results.daily``): the puzzle's date, as the player's own
    calendar named it when the game started (YYYY-MM-DD)."""

    player: str
    date: str


@dataclass(frozen=True, slots=True)
class Moves:
    """How much one player played (``Results.moves``): the game's own moves, counted the way its
    rules page says (the race's tile turns, Concentration's tries, MATCH 5's links written);
    never what is not a move (pressing Ready, a hint, resigning)."""

    player: str
    count: int


@dataclass(frozen=True, slots=True)
class Results:
    standings: tuple[Standing, ...]  # best first
    draw: bool  # two or more players, all tied: a rating counts it halfway
    # False: the game must never count for a rating or a leaderboard (Match Cards' replay of a
    # typed game code, whose deal anyone could have studied beforehand)
    ranked: bool = True
    # The players who won. A game of two or more players: the first place, unless it is a draw.
    # A solo game: the player, when the game was won (the board cleared within its limits).
    winners: frozenset[str] = frozenset()
    figures: tuple[Figure, ...] = ()  # what each player's statistics add
    entries: tuple[Entry, ...] = ()  # what each player puts on the game's leaderboards
    daily: tuple[DailySolve, ...] = ()  # daily puzzles solved (Number Match)
    # Each player's moves, and the fewest moves each player must have made for a game of two or
    # more to count for a rating (docs/players.md, "Ratings that resist farming"). A player the
    # game does not list made none: a game of two or more must list its players to be rated.
    moves: tuple[Moves, ...] = ()
    rated_moves: int = 1


@dataclass(frozen=True, slots=True)
class TableContext:
    """What a snapshot needs that the rules do not know: the lobby's side of the table."""

    table_id: str
    event_number: int  # the last event folded in
    server_time_ms: int  # the referee's clock at that event
    names: dict[str, str]  # player id -> display name, of the seated players in seat order
    commitment: str
    seed: bytes | None  # only once the game is over and the seed revealed
    bots: frozenset[str] = frozenset()  # seated players who are bots or CPU players
    deal_version: str = ""  # from the table's SeedCommitted (the game's own once it starts)


# Where an event goes in a replay's timeline (:attr:`Place.part`): with the table before play,
# in the part being played, or in the game's end (it and everything after). A positive number
# is a part of the game with its own section and T0 (the race's boards; Concentration's play).
OPENING = -1
PLAYING = 0
ENDING = -2


@dataclass(frozen=True, slots=True)
class Place:
    """Where ``match-audit replay`` puts one of the game's events (:meth:`Game.place`)."""

    part: int = PLAYING  # OPENING, PLAYING, ENDING or a part's number (1, 2, ...)
    starts: bool = False  # the event is its part's T0: times in the part count from its ``at``


@dataclass(frozen=True, slots=True)
class Told:
    """One of the game's events for people (:meth:`Game.describe`)."""

    text: str  # one line
    after: tuple[str, ...] = ()  # lines printed under its part (a layout, the standings)


class Teller(Protocol):
    """What a description may ask the replay: a player's name, an instant as the timeline shows
    it (relative to the T0 of the part being told)."""

    def name(self, player: str) -> str: ...

    def when(self, ms: int) -> str: ...


# --- the bot service's player (``Game.bot``) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotCall:
    """A command one bot seat sends: ``request`` (the request message of the game's service's
    rpc ``rpc``, its ``table_id`` set) once ``after_ms`` wall ms have passed or, with ``at_ms``,
    once the server's clock reaches ``at_ms``. ``attempts``: how often it is sent under one
    request id while its outcome is unknown (the call broke before an answer). ``move``: a move
    of the game (counted as the bot's turns), not a step around it (pressing Ready)."""

    rpc: str  # "TurnTile": the rpc's name in the game's service
    request: Message
    after_ms: int = 0
    at_ms: int = 0
    attempts: int = 1
    move: bool = True


class BotEnd(Enum):
    """Why a bot seat has nothing more to do."""

    GAME_OVER = "game_over"
    OUT = "out"  # out of the game (the game goes on without it)


class Reaction(Enum):
    """What a bot seat does after a command was refused or failed (:meth:`BotSeat.refused`)."""

    RETRY = "retry"  # decide again after a short while
    WAIT = "wait"  # decide again once something new arrives (or a poll)
    PAUSE = "pause"  # decide again after a very short while (the game is paused)
    STOP = "stop"  # the seat is not ours any more: stop playing it


class BotSeat(Protocol):
    """One bot seat's player, pure: it sees only what its seat is sent, decides from that and
    the time it is given, and draws every random choice from a source seeded by the seat and
    the game. The bot service does the I/O: it feeds it the seat's Watch stream and the replies
    of its commands, sleeps as a :class:`BotCall` says and sends it."""

    shown: str | None  # the strength the table's BotsAssigned named, once seen
    strength: Strength  # the strength it plays now

    @property
    def event_number(self) -> int:
        """Every event up to this one has been seen: a Watch resumes after it."""
        ...

    def observe(self, item: Message) -> int:
        """One item of the seat's Watch stream (the service's Watch response); the latest
        server time it carries (0: none)."""
        ...

    def ended(self) -> BotEnd | None:
        """Whether the seat has nothing more to do."""
        ...

    def decide(self, now_ms: int) -> BotCall | None:
        """What to send next, the server's clock being ``now_ms``; None: wait for news."""
        ...

    def still(self, call: BotCall, now_ms: int) -> bool:
        """Whether ``call``, decided earlier, is still to be sent now (nothing it was decided
        on has changed meanwhile)."""
        ...

    def answered(self, call: BotCall, reply: Message) -> int:
        """``call``'s reply (the rpc's response message); the latest server time it carries."""
        ...

    def refused(self, call: BotCall, code: str | None, status: str) -> Reaction:
        """``call`` was refused (``code``: the rules' refusal slug) or failed (``code`` None,
        ``status``: the gRPC status name)."""
        ...


class Bot(Protocol):
    """The game's player for the bot service (``Game.bot``)."""

    # A protocol's signature: its defaults are documentation, nothing runs them (no mutant here
    # could be seen; docs/testing.md).
    def seat(
        self,
        table_id: str,
        player_id: str,
        *,
        pace: float = 1.0,
        rate: float = 1.0,
        strength: str = "",
        forced: Strength | None = None,
    ) -> BotSeat:  # pragma: no mutate block
        """A new player for one bot seat. ``pace`` scales its thinking times (1: a person's);
        ``rate``: server ms per wall ms; ``strength``: what the table showed, as the seat's
        record kept it; ``forced``: the operator's BOT_FORCE_STRENGTH, played whatever the
        table shows."""
        ...


@dataclass(frozen=True, slots=True)
class SeatBot:
    """A :class:`Bot` whose seats one constructor makes, called with :meth:`Bot.seat`'s
    arguments (a game's ``BotSeat`` class): ``BOT = SeatBot(RaceBotSeat)``."""

    make: Callable[..., BotSeat]

    def seat(
        self,
        table_id: str,
        player_id: str,
        *,
        pace: float = 1.0,
        rate: float = 1.0,
        strength: str = "",
        forced: Strength | None = None,
    ) -> BotSeat:
        return self.make(
            table_id, player_id, pace=pace, rate=rate, strength=strength, forced=forced
        )


# --- the interface, in groups -----------------------------------------------------------------
# A game is one object satisfying :class:`Game`: every group below. Most adapters subclass
# :class:`BaseGame`, which gives the members a game only passes through to its rules.


class Identity(Protocol):
    """What the game is, and how the platform hosts it."""

    kind: int  # common_pb2.GameKind
    slug: str  # see the module docstring
    title: str  # for people: "Match, the race", "Concentration"
    min_seats: int
    max_seats: int
    deal_version: str
    # True: the host's StartTable seats CPU players (played by the rules) in every empty seat
    # and the game starts at once. False: StartTable asks the bot service to fill them.
    cpu_fills: bool
    # True: everything at the table is public, so anyone may Watch it without a seat's token.
    public_watch: bool
    # True: Watch sends a snapshot once the game has started and a last one once it is over
    # (with the standings and the seed) before the stream ends; the race sends only the first.
    watch_snapshots: bool
    # What a player does instead of leaving once the game is under way (LeaveTable is for
    # tables still waiting): an action the game offers, in words the refusal ends with.
    leave_instead: str

    @property
    def bot(self) -> Bot | None:
        """The bot service's player for the game's seats, or None: the bot service does not
        play the game (its CPU seats are played by the rules, or it has none)."""
        ...


class Decider(Protocol):
    """The game's rules, as the referee runs them and an auditor reruns them."""

    def initial_state(self, deal: Message | None) -> Any:
        """The state before the game: with the deal (the referee's) or without (a projection
        for views and for the ledger's replay)."""
        ...

    def with_deal(self, state: Any, deal: Message) -> Any:
        """``state`` holding ``deal`` (the events never carry it). Raises ValueError on a deal
        that does not fit."""
        ...

    def start(
        self, now: int, seats: Sequence[SeatInfo], settings: Message, deal_version: str
    ) -> Any:
        """The command that starts the game once every seat is taken."""
        ...

    def decide_steps(self, state: Any, command: Any) -> list[tuple[Any, Any]]:
        """``(event, state after it)`` for each event ``command`` causes; raises RuleError."""
        ...

    def evolve(self, state: Any, event: Any) -> Any:
        """The state after ``event``, a new value: ``state`` itself never changes (the lobby's
        viewers of a table share the states they fold, services.lobby.viewer.SharedFold)."""
        ...

    def next_deadline(self, state: Any) -> int | None:
        """When time alone changes the game next (the referee arms its timer for it)."""
        ...

    def tick(self, now: int) -> Any:
        """The command that lets time pass up to ``now``."""
        ...

    def is_started(self, state: Any) -> bool: ...

    def is_terminal(self, state: Any) -> bool: ...

    def clock(self, state: Any) -> int:
        """The time of the game's latest event (commands are stamped no earlier)."""
        ...


class Wire(Protocol):
    """The game's protobuf messages, both ways."""

    command_message: type[Message]  # what the lobby sends the referee: RaceCommand, ...
    # What the referee answers: RaceCommandReply, ...; a oneof ``result`` of ``accepted`` (see
    # :meth:`Views.accepted`) or ``refusal`` (a common.v1 Refusal: ``reply_message(refusal=r)``).
    reply_message: type[Message]

    def settings(self, wire: Message | None) -> Message:
        """The table's settings, validated, defaults filled in (``wire`` None: all defaults).
        Raises RuleError with a message a person can act on."""
        ...

    def deal(self, seed: bytes, settings: Message) -> Message:
        """The deal of ``deal_version`` (docs/dealing.md): the ``Deal.game`` member's message."""
        ...

    def command(self, wire: Message, now: int) -> Any:
        """The domain command of a ``command_message`` stamped ``now``. Raises RuleError for a
        command the client may not send (none set, the start)."""
        ...

    def presence(self, now: int, player: str, present: bool) -> Any | None:
        """The command for a seated player's connection dropping or coming back, or None when
        the game does not care."""
        ...

    def encode(self, event: Any) -> Message:
        """The event (or a redacted form of it) as the ``EventEnvelope.body`` member message."""
        ...

    def decode(self, wire: Message) -> Any: ...

    def check_request(self, request: Message) -> str | RuleError | None:
        """A cheap check of a client's request (its service's request message) that needs no
        state, made at the edge to spare the referee the round trip (the referee judges again):
        what is wrong with it, in words a person can act on, or None. A RuleError is answered
        as the referee answers it, its slug in ``match-refusal-code``: return the rules' own
        refusal where there is one (the same a client gets for the same mistake from the
        referee); a bare sentence is INVALID_ARGUMENT without a slug."""
        ...


class Views(Protocol):
    """What each player may see."""

    def redact(self, state_after: Any, event: Any, player: str) -> Any:
        """``event`` as ``player`` (or a spectator, "") may receive it, given the state after it."""
        ...

    def shown_by_type(self, wire: Message, player: str) -> bool:
        """Whether the event ``wire`` (its ``EventEnvelope.body`` member, undecoded) goes to
        ``player`` as it is by its type alone: a type every player may see, or a private one of
        ``player``'s own. False only says the type proves nothing: the caller decodes the event
        and runs ``redact``. Never True for an event ``redact`` would change (the conformance
        suite compares the two on every event of random games)."""
        ...

    def accepted(
        self,
        events: Sequence[common_pb2.EventEnvelope],
        state: Any,
        player: str,
        now: int,
        event_number: int,
        commitment: str = "",
    ) -> Message:
        """The ``reply_message`` for an applied command: the events as ``player`` sees them and
        what the game tells its player after it. ``commitment``: the table's seed commitment,
        which the rules do not know and the referee passes, for a view that carries it as the
        Watch snapshots do (TableContext)."""
        ...

    def snapshot(self, state: Any, player: str, table: TableContext) -> Message:
        """The table as ``player`` may see it now: the game's view message."""
        ...


class Outcome(Protocol):
    """Results and proofs: what a finished game gives the players service and the auditor."""

    def results(self, state: Any) -> Results | None:
        """The final standings, once the game is over (None before)."""
        ...

    def proofs(self, state: Any) -> tuple[str, ...]:
        """What ``match-audit verify`` proves of a finished game from its log alone, beyond the
        rerun (``state`` folded from the logged events, without the deal): one line per proof
        for the report (none: nothing more to prove). Raises ValueError saying what fails."""
        ...


class Telling(Protocol):
    """The log told for people (``match-audit replay``)."""

    def place(self, event: Any) -> Place:
        """The part of the timeline ``event`` (a decoded event of the log) belongs to."""
        ...

    def heading(self, part: int) -> str:
        """The title of a numbered part's section ("board 2"), or of the end (ENDING)."""
        ...

    def describe(self, event: Any, teller: Teller) -> Told:
        """``event`` (a decoded event of the log) as one line for people. The log is over:
        every face may be shown."""
        ...

    def describe_command(self, wire: Message, teller: Teller) -> str:
        """A ``command_message`` for people ("Ann turns tile 4"), e.g. one that was refused."""
        ...

    def describe_settings(self, settings: Message) -> str:
        """The table's settings (the ``TableCreated.settings`` member) for people."""
        ...


class Game(Identity, Decider, Wire, Views, Outcome, Telling, Protocol):
    """One game, as the shells see it: every group above. ``State``, ``Command`` and ``Event``
    are the game's own (frozen dataclasses); the shells only pass them back to the same game."""


class PrivateByType:
    """Which of a game's events may be shown as they are, told by their wire type: every event
    class of ``codec`` is public but those of ``private``, which name their ``player`` and go to
    that player only (as the games' ``redact`` does: a private event of another player is
    redacted, everything else goes as it is). The lobby's leak check of what it pushes asks
    this first and decodes and redacts only what the type does not prove (docs/architecture.md,
    "A turn, hop by hop")."""

    def __init__(self, codec: Codec, private: Sequence[type] = ()) -> None:
        self.oneof = codec.oneof
        self.own = frozenset(snake(cls.__name__) for cls in private)
        self.public = frozenset(snake(name) for name in codec.classes) - self.own

    def shown(self, wire: Message, player: str) -> bool:
        member = wire.WhichOneof(self.oneof)
        if member in self.public:
            return True
        return member in self.own and getattr(wire, member).player == player


# --- the base adapter ------------------------------------------------------------------------


class Narration(Protocol):
    """A game's ``describe`` module, as :class:`BaseGame` tells its log with it."""

    def place(self, event: Any) -> Place: ...

    def heading(self, part: int) -> str: ...

    def describe(self, event: Any, teller: Teller) -> Told: ...

    def describe_command(self, wire: Message, teller: Teller) -> str: ...


class BaseGame:
    """The members of :class:`Game` that a game passes straight through to its rules
    (``rules``: its ``decide.RULES``) and to its ``describe`` module (``told``), and the
    defaults most games keep (no presence, no edge check, no proof beyond the rerun). A game's
    adapter subclasses it and writes the rest: identity, the wire, the views, the results."""

    rules: Rules[Any, Any]
    told: Narration

    def decide_steps(self, state: Any, command: Any) -> list[tuple[Any, Any]]:
        return self.rules.decide_steps(state, command)

    def evolve(self, state: Any, event: Any) -> Any:
        return self.rules.evolve(state, event)

    def next_deadline(self, state: Any) -> int | None:
        return self.rules.next_deadline(state)

    def is_terminal(self, state: Any) -> bool:
        return self.rules.is_terminal(state)

    def tick(self, now: int) -> Any:
        return self.rules.tick(now)

    def clock(self, state: Any) -> int:
        now: int = state.now
        return now

    def presence(self, now: int, player: str, present: bool) -> Any | None:
        return None  # the game does not care whether a player's connection drops

    # Which events are public by their type (None: no type proves anything; every event is
    # decoded and redacted wherever it is checked).
    by_type: PrivateByType | None = None

    def shown_by_type(self, wire: Message, player: str) -> bool:
        by_type = self.by_type
        return by_type is not None and by_type.shown(wire, player)

    def check_request(self, request: Message) -> str | RuleError | None:
        return None  # nothing to check before the referee judges it

    def proofs(self, state: Any) -> tuple[str, ...]:
        return ()  # the rerun from the revealed seed proves everything there is

    def place(self, event: Any) -> Place:
        return self.told.place(event)

    def heading(self, part: int) -> str:
        return self.told.heading(part)

    def describe(self, event: Any, teller: Teller) -> Told:
        return self.told.describe(event, teller)

    def describe_command(self, wire: Message, teller: Teller) -> str:
        return self.told.describe_command(wire, teller)
