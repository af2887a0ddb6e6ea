"""One viewer's view of one table, folded from the table log: what Watch sends, for any game.

The table's game comes from the registry by the log's game kind. Its part of the log is the
rules' own projection (``game.initial_state(None)``, ``game.evolve``); each game event leaves as
``game.redact(state_after_it, event, viewer)`` and a snapshot is ``game.snapshot(state, viewer,
TableContext(...))``. Nothing here is sent unredacted: ``leaks`` is checked on every envelope
before it leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from match.v1 import common_pb2
from match_bus.records import BadRecord, Numbering
from match_rules import registry
from match_rules.game import Game, TableContext

TABLE = "table"  # the EventEnvelope.body member of the table's own events (every game)


class UnreadableLog(Exception):
    """The log holds something this lobby cannot fold; it must not guess what to send."""


def shown_as_is(game: Game, event: Any, viewer: str, state: Any = None) -> bool:
    """Whether ``viewer`` may get ``event`` exactly as it is (``state``: the state after it;
    None: nothing known, so only an event anybody may see, or ``viewer``'s own, passes)."""
    try:
        after = game.initial_state(None) if state is None else state
        return game.redact(after, event, viewer) is event
    except Exception:  # the redaction needed a state it did not get: not for everybody
        return False


def leaks(envelope: common_pb2.EventEnvelope, viewer: str) -> bool:
    """True when ``envelope`` holds a game event ``viewer`` may not see as it is (another
    player's private event): the game's own redaction would change it."""
    slug = envelope.WhichOneof("body")
    if slug is None or slug == TABLE:
        return False
    try:
        game = registry.by_slug(slug)
        wire = getattr(envelope, slug)
        if game.shown_by_type(wire, viewer):
            return False  # its type proves it: public, or the viewer's own
        event = game.decode(wire)
    except Exception:
        return True  # what cannot be read cannot be shown to be harmless
    return not shown_as_is(game, event, viewer)


class SharedFold:
    """What the viewers of one table can share: the game's projection of the log is the same for
    every viewer (only the redaction is each one's), so the first viewer to fold an event keeps
    (the state before it, the event decoded, the state after it) and another viewer whose state
    is that very object takes the event and the state after instead of decoding and evolving
    again. States are immutable and ``evolve`` is pure: the same object in, the same result out,
    so a viewer that shares gives exactly what it would have folded alone. Only the last
    ``keep`` events are kept (a viewer further behind folds on its own); the first viewer to
    fold an event keeps it, so a late viewer's catch-up does not push out the live one's."""

    def __init__(self, keep: int = 32) -> None:
        self.keep = keep
        self._initial: dict[str, Any] = {}  # game slug -> the table's initial state
        self._events: dict[int, tuple[Any, Any, Any]] = {}  # event number -> (before, event, after)

    def initial(self, game: Game) -> Any:
        state = self._initial.get(game.slug)
        if state is None:
            state = self._initial[game.slug] = game.initial_state(None)
        return state

    def known(self, number: int, before: Any) -> tuple[Any, Any] | None:
        """(the event, the state after it) if event ``number`` was folded from ``before``."""
        kept = self._events.get(number)
        return (kept[1], kept[2]) if kept is not None and kept[0] is before else None

    def keep_event(self, number: int, before: Any, event: Any, after: Any) -> None:
        if number in self._events:
            return
        self._events[number] = (before, event, after)
        if len(self._events) > self.keep:
            del self._events[next(iter(self._events))]  # the oldest kept


@dataclass(slots=True)
class _Seat:
    seat: int
    display_name: str
    is_bot: bool


class TableViewer:
    """Folds a table's records for one viewer; gives back each event as that viewer sees it."""

    def __init__(self, table_id: str, viewer: str, shared: SharedFold | None = None) -> None:
        self.table_id = table_id
        self.viewer = viewer
        self.shared = SharedFold() if shared is None else shared  # the table's other viewers'
        self.game: Game | None = None  # known from the first envelope
        self.state: Any = None
        self.game_id = ""
        self.event_number = 0
        self.server_time_ms = 0
        self.seats: dict[str, _Seat] = {}
        self.commitment = ""
        self.deal_version = ""
        self.seed: bytes | None = None
        self.expired = False  # TableExpired: closed before its game started
        self.command: Any = None  # the StampedCommand of the last record folded
        self._numbering = Numbering(table_id)

    @property
    def request_id(self) -> str:
        """The request id of the command of the last record folded ("" for a timer's)."""
        command = self.command
        which = None if command is None else command.WhichOneof("command")
        if which is None or which == "tick":
            return ""
        return str(getattr(command, which).request_id)

    @property
    def finished(self) -> bool:
        """The game is over and its seed is out: nothing more will happen at this table."""
        game = self.game
        return game is not None and game.is_terminal(self.state) and self.seed is not None

    @property
    def started(self) -> bool:
        return self.game is not None and self.game.is_started(self.state)

    def fold_record(
        self, sequence: int, data: bytes, index: int = 0
    ) -> list[common_pb2.EventEnvelope]:
        """Fold the TableRecord at stream ``sequence`` (entry ``index`` of its message); its
        events as the viewer may see them (none for a refusal). Raises BadRecord for a record
        that quarantines the table: one that does not decode, does not continue the numbering,
        or cannot be folded."""
        record = self._numbering.follow(sequence, data, index)
        self.command = record.command
        if record.HasField("refusal"):
            return []
        try:
            return [self.fold(env) for env in record.events]
        except Exception as error:  # whatever the record holds, only this table's view ends
            problem = f"cannot be shown ({error})"
            raise BadRecord(self.table_id, sequence, problem, index) from error

    def _know(self, game: Game) -> Game:
        if self.game is None:
            self.game = game
            self.state = self.shared.initial(game)
        elif game is not self.game:
            raise UnreadableLog(f"the table plays {self.game.slug}, not {game.slug}")
        return game

    def fold(self, env: common_pb2.EventEnvelope) -> common_pb2.EventEnvelope:
        out = common_pb2.EventEnvelope()
        out.CopyFrom(env)
        which = env.WhichOneof("body")
        try:
            if which == TABLE:
                if env.game_kind:  # the table's game, from its first event on
                    self._know(registry.by_kind(env.game_kind))
                self._fold_table(env)
            elif which is not None:
                self._fold_game(self._know(registry.by_slug(which)), env, out)
            else:
                raise UnreadableLog(f"event {env.event_number} has no body")
        except registry.UnknownGame:
            raise UnreadableLog(
                f"event {env.event_number} is of a game this lobby does not host"
            ) from None
        self.event_number = env.event_number
        self.server_time_ms = env.server_time_ms
        return out

    def _fold_game(
        self, game: Game, env: common_pb2.EventEnvelope, out: common_pb2.EventEnvelope
    ) -> None:
        before = self.state
        known = self.shared.known(env.event_number, before)
        if known is not None:
            event, after = known
        else:
            try:
                event = game.decode(getattr(env, game.slug))
            except (ValueError, KeyError) as error:
                raise UnreadableLog(
                    f"{game.slug} event {env.event_number} cannot be read"
                ) from error
            after = game.evolve(before, event)
            self.shared.keep_event(env.event_number, before, event, after)
        started = game.is_started(before)
        self.state = after
        if not started and game.is_started(self.state):
            self.game_id = env.game_id
        seen = game.redact(self.state, event, self.viewer)
        if not shown_as_is(game, seen, self.viewer, self.state):  # pragma: no cover
            raise UnreadableLog(f"event {env.event_number} would leak what the viewer may not see")
        if seen is not event:
            getattr(out, game.slug).CopyFrom(game.encode(seen))

    def _fold_table(self, env: common_pb2.EventEnvelope) -> None:
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

    def context(self) -> TableContext:
        """The lobby's side of the table, for ``game.snapshot``: names in seat order."""
        seated = sorted(self.seats.items(), key=lambda item: item[1].seat)
        return TableContext(
            table_id=self.table_id,
            event_number=self.event_number,
            server_time_ms=self.server_time_ms,
            names={player: seat.display_name for player, seat in seated},
            commitment=self.commitment,
            seed=self.seed if self.finished else None,
            bots=frozenset(player for player, seat in seated if seat.is_bot),
            deal_version=self.deal_version,
        )

    def snapshot(self) -> Message:
        """The viewer's whole view: the game's snapshot of the state folded so far."""
        game = self.game
        if game is None:  # pragma: no cover - the first record always names its game
            raise UnreadableLog("the table's game is not known yet")
        return game.snapshot(self.state, self.viewer, self.context())
