"""One table as the referee holds it: its seats, its game, and how a record becomes state.

Pure: no clock, no I/O. The service passes in ``now`` and the dealer's answers, and appends
what this module decides. Seating rules live here; the game's rules live in match_rules.
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from google.protobuf.message import Message

from match.v1 import common_pb2, dealer_pb2, referee_pb2
from match_bus.records import (
    GAME_OVER,
    GAME_STARTED,
    QUARANTINED,
    BadRecord,
    Numbering,
    StoredRecord,
)
from match_rules import registry
from match_rules.errors import Category, RuleError
from match_rules.game import Game, SeatInfo

# How many answered requests a table remembers for retries, per player (the most recent). A retry
# of an older request would be judged again: clients retry their latest command, and the SDK
# never moves on before it has an answer.
ANSWERS_PER_PLAYER = 4
EXPIRED = "table_expired"  # the refusal of any seat command at a table that expired
_CATEGORY = {
    Category.INVALID_ARGUMENT: common_pb2.Refusal.CATEGORY_INVALID_ARGUMENT,
    Category.FAILED_PRECONDITION: common_pb2.Refusal.CATEGORY_FAILED_PRECONDITION,
    Category.PERMISSION_DENIED: common_pb2.Refusal.CATEGORY_PERMISSION_DENIED,
    Category.RESOURCE_EXHAUSTED: common_pb2.Refusal.CATEGORY_RESOURCE_EXHAUSTED,
    Category.NOT_FOUND: common_pb2.Refusal.CATEGORY_NOT_FOUND,
    Category.UNAVAILABLE: common_pb2.Refusal.CATEGORY_UNAVAILABLE,
}
Seat = SeatInfo  # a seat as the table knows it: number, player, name, is_bot


class TableRefusal(Exception):
    """A table command the referee refuses; it changes nothing."""

    def __init__(self, code: str, category: Category, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.category, self.message = code, category, message

    def to_proto(self) -> common_pb2.Refusal:
        return refusal(self.code, self.category, self.message)

    @classmethod
    def of(cls, error: RuleError) -> TableRefusal:
        """A game's refusal (its settings, its presence) as a table command's."""
        return cls(error.code.slug, error.code.category, error.message)


class Quarantined(TableRefusal):
    """The table's log holds a record the referee cannot use: the table is not loaded and every
    command for it is refused until an operator repairs the log (docs/operations.md)."""

    def __init__(self, bad: BadRecord) -> None:
        super().__init__(QUARANTINED, Category.FAILED_PRECONDITION, bad.message)
        self.bad = bad


def refusal(code: str, category: Category, message: str) -> common_pb2.Refusal:
    return common_pb2.Refusal(code=code, category=_CATEGORY[category], message=message)


def kind_of(game: Game | None) -> common_pb2.GameKind:
    """The wire's game kind of ``game`` (unspecified for none)."""
    return cast(common_pb2.GameKind, game.kind if game else 0)


def game_of(envelope: common_pb2.EventEnvelope, created: Any) -> Game:
    """The game a TableCreated names: by its envelope's game kind, else by its settings' member
    (the slug); a table recorded before either was written plays the first registered game."""
    if envelope.game_kind != common_pb2.GAME_KIND_UNSPECIFIED:
        return registry.by_kind(envelope.game_kind)
    member = created.WhichOneof("settings")
    if member is not None:
        return registry.by_slug(member)
    return registry.games()[0]


@dataclass(slots=True)
class Table:
    """Everything the referee knows of a table, folded from its records. ``game`` is the game
    its TableCreated names (from the registry), ``settings`` that game's settings message as
    recorded, ``state`` the game's state (with the dealer's ``deal`` once the referee has it)."""

    table_id: str
    seats: int = 0
    visibility: int = common_pb2.VISIBILITY_UNSPECIFIED
    creator: str = ""
    invite_code: str = ""
    fill_at_ms: int = 0
    game: Game | None = None
    settings: Message | None = None
    state: Any = None
    deal: Message | None = None  # the Deal.game member the dealer answered (never in the log)
    commitment: str = ""
    deal_version: str = ""
    seated: list[Seat] = field(default_factory=list)
    started: bool = False
    seed_revealed: bool = False
    created_at_ms: int = 0  # the TableCreated's time (referee clock)
    expires_at_ms: int = 0  # from TableCreated; 0 in tables made before expiry existed
    expired: bool = False  # TableExpired: closed before its game started
    # The stream sequence of the table's last record on its own subject (not in a frame): what
    # an append on that subject is fenced on.
    last_sequence: int = 0
    # The stream sequence of its first record (always on its own subject): where a replica
    # taking its partition on must begin reading while its game is not finished (marks.py).
    first_sequence: int = 0
    records: int = 0  # records appended so far
    next_event: int = 1  # the number the next event takes
    # (player, request id) -> the serialized reply it got, for retries; see ANSWERS_PER_PLAYER
    answers: dict[tuple[str, str], bytes] = field(default_factory=dict)
    stale: bool = False  # an append's outcome is unknown: read the table again before judging
    # When the referee last took the table into memory or began an append for it (its
    # monotonic clock, seconds): a game idle since, with no deadline, stops holding its
    # partition's mark (marks.py)
    active_at: float = field(default_factory=time.monotonic)

    @property
    def game_over(self) -> bool:
        return self.game is not None and self.started and self.game.is_terminal(self.state)

    @property
    def clock(self) -> int:
        """The time of the game's latest event: a command is stamped no earlier."""
        return self.game.clock(self.state) if self.game is not None and self.started else 0

    @property
    def finished(self) -> bool:
        """Over and its seed published, or expired: nothing more will ever be appended."""
        return (self.game_over and self.seed_revealed) or self.expired

    def expiry_due(self, default_ms: int) -> int | None:
        """When the table expires unless its game starts first (None once started or closed).
        A table made before expiry existed expires ``default_ms`` after it was made."""
        if self.started or self.expired or not self.seats:
            return None
        return self.expires_at_ms or self.created_at_ms + default_ms

    def seat_of(self, player: str) -> Seat | None:
        return next((s for s in self.seated if s.player == player), None)

    def plays(self, game: Game) -> None:
        """Make this (new) table one of ``game``'s: its state before the game, no deal yet."""
        self.game = game
        self.state = game.initial_state(None)
        if self.deal is not None:
            self.state = game.with_deal(self.state, self.deal)

    def apply(
        self, record: referee_pb2.TableRecord, sequence: int | None, state_after: Any = None
    ) -> None:
        """Fold one record (as appended) into the table: ``sequence``, its stream sequence on
        the table's own subject (None: it came in a frame, which leaves that subject's fence
        where it was). ``state_after``: the game's state after the record's game events, when
        the caller has it (from ``decide_steps``), so they need not be parsed and evolved
        again."""
        if state_after is None:
            for envelope in record.events:
                self.apply_event(envelope)
        else:
            for envelope in record.events:
                if envelope.WhichOneof("body") == "table":
                    self.apply_event(envelope)
                else:
                    self.next_event = envelope.event_number + 1
            self.state = state_after
        if sequence is not None:
            self.last_sequence = sequence
            if not self.records:
                self.first_sequence = sequence
        self.records += 1

    def apply_event(self, envelope: common_pb2.EventEnvelope) -> None:
        self.next_event = envelope.event_number + 1
        which = envelope.WhichOneof("body")
        if which != "table":
            game = self.game
            if game is None or which != game.slug:
                raise ValueError(
                    f"event {envelope.event_number} is a {which} event at a table of "
                    f"{game.slug if game else 'no game'}"
                )
            self.state = game.evolve(self.state, game.decode(getattr(envelope, which)))
            if game.is_started(self.state):
                self.started = True
            return
        which = envelope.table.WhichOneof("event")
        body = getattr(envelope.table, which)
        if which == "table_created":
            self.seats, self.visibility, self.creator = body.seats, body.visibility, body.creator
            self.invite_code, self.fill_at_ms = body.invite_code, body.fill_at_ms
            self.created_at_ms, self.expires_at_ms = envelope.server_time_ms, body.expires_at_ms
            game = game_of(envelope, body)
            settings = type(getattr(body, game.slug))()
            settings.CopyFrom(getattr(body, game.slug))
            self.settings = settings
            self.plays(game)
        elif which == "player_seated":
            self.seated.append(Seat(body.seat, body.player_id, body.display_name, body.is_bot))
        elif which == "player_left":
            self.seated = [s for s in self.seated if s.player != body.player_id]
        elif which == "seed_committed":
            self.commitment, self.deal_version = body.commitment, body.deal_version
        elif which == "fill_requested":
            self.fill_at_ms = body.fill_at_ms
        elif which == "seed_revealed":
            self.seed_revealed = True
        elif which == "table_expired":
            self.expired = True

    def remember(self, player: str, request_id: str, answer: bytes) -> None:
        if not request_id:
            return
        self.answers[(player, request_id)] = answer
        mine = [key for key in self.answers if key[0] == player]
        for key in mine[:-ANSWERS_PER_PLAYER]:  # the oldest of this player's beyond the limit
            del self.answers[key]

    def answer(self, player: str, request_id: str) -> bytes | None:
        """The reply a request already got: a retry is answered with it and applies nothing."""
        return self.answers.get((player, request_id)) if request_id else None

    def with_deal(self, deal: Message) -> None:
        """Give the referee's state the dealer's deal (the events never carry it). Raises
        ValueError for a deal that does not fit the game."""
        assert self.game is not None
        self.state = self.game.with_deal(self.state, deal)
        self.deal = deal


# --- judging table commands --------------------------------------------------------------------


def _name_problem(name: str) -> str | None:
    if not 1 <= len(name) <= 32:
        return "a display name is 1 to 32 characters"
    if any(unicodedata.category(c).startswith("C") for c in name):
        return "a display name may not hold control characters"
    return None


def _kinds() -> str:
    return ", ".join(
        f"{common_pb2.GameKind.Name(game.kind)} ({game.title})" for game in registry.games()
    )


def check_create(
    table: Table | None, cmd: referee_pb2.TableCommand.CreateTable
) -> tuple[Game, Message]:
    """The game the table will play and its settings, resolved (defaults filled in)."""
    if table is not None:
        raise TableRefusal("table_exists", Category.FAILED_PRECONDITION, "that table id is taken")
    try:
        game = registry.by_kind(cmd.game_kind)
    except registry.UnknownGame:
        raise TableRefusal(
            "unsupported_game",
            Category.INVALID_ARGUMENT,
            f"set game_kind to a game played here: {_kinds()}",
        ) from None
    if not game.min_seats <= cmd.seats <= game.max_seats:
        raise TableRefusal(
            "invalid_seats",
            Category.INVALID_ARGUMENT,
            f"a table of {game.title} has {game.min_seats} to {game.max_seats} seats, "
            f"not {cmd.seats}",
        )
    if cmd.visibility not in (common_pb2.VISIBILITY_OPEN, common_pb2.VISIBILITY_PRIVATE):
        raise TableRefusal(
            "invalid_visibility", Category.INVALID_ARGUMENT, "choose an open or a private table"
        )
    if cmd.visibility == common_pb2.VISIBILITY_PRIVATE and not cmd.invite_code:
        raise TableRefusal(
            "invalid_invite_code", Category.INVALID_ARGUMENT, "a private table needs an invite code"
        )
    problem = _name_problem(cmd.display_name)
    if problem:
        raise TableRefusal("invalid_name", Category.INVALID_ARGUMENT, problem)
    member = cmd.WhichOneof("settings")
    if member is not None and member != game.slug:
        raise TableRefusal(
            "wrong_game",
            Category.INVALID_ARGUMENT,
            f"these are settings of {member}, and the table plays {game.slug}: "
            f"set settings.{game.slug}, or leave it unset for the defaults",
        )
    try:
        return game, game.settings(getattr(cmd, game.slug) if member else None)
    except RuleError as error:
        raise TableRefusal.of(error) from None


def check_open(table: Table) -> None:
    """Refuse every seat command at a table that expired."""
    if table.expired:
        raise TableRefusal(
            EXPIRED,
            Category.FAILED_PRECONDITION,
            "this table expired: its game did not start in time; make a new table or join another",
        )


def check_join(table: Table, player: str, cmd: referee_pb2.TableCommand.JoinTable) -> int:
    """The seat the player would take (1-based)."""
    check_open(table)
    if table.started:
        raise TableRefusal(
            "table_started",
            Category.FAILED_PRECONDITION,
            "the game at this table has started; find another table",
        )
    if table.seat_of(player) is not None:
        raise TableRefusal(
            "already_seated", Category.FAILED_PRECONDITION, "you already have a seat at this table"
        )
    if len(table.seated) >= table.seats:
        raise TableRefusal("table_full", Category.FAILED_PRECONDITION, "this table is full")
    private = table.visibility == common_pb2.VISIBILITY_PRIVATE
    if private and cmd.invite_code != table.invite_code:
        raise TableRefusal(
            "invite_required",
            Category.PERMISSION_DENIED,
            "this table is private: join it with its invite code",
        )
    if cmd.is_bot and (private or not any(not s.is_bot for s in table.seated)):
        raise TableRefusal(
            "no_bot_here",
            Category.FAILED_PRECONDITION,
            "bots fill only open tables with a person seated",
        )
    problem = _name_problem(cmd.display_name)
    if problem:
        raise TableRefusal("invalid_name", Category.INVALID_ARGUMENT, problem)
    taken = {s.number for s in table.seated}
    return min(n for n in range(1, table.seats + 1) if n not in taken)


def check_leave(table: Table, player: str) -> Seat:
    check_open(table)
    seat = table.seat_of(player)
    if seat is None:
        raise TableRefusal("not_seated", Category.PERMISSION_DENIED, "you have no seat here")
    if table.started:
        instead = table.game.leave_instead if table.game is not None else "play on"
        raise TableRefusal(
            "table_started",
            Category.FAILED_PRECONDITION,
            f"the game has started, so the seat cannot be left: {instead}",
        )
    return seat


def check_start(table: Table, player: str) -> None:
    check_open(table)
    if table.creator != player:
        raise TableRefusal(
            "not_host",
            Category.PERMISSION_DENIED,
            "only the host (who made the table) can start it",
        )
    if table.started:
        raise TableRefusal("table_started", Category.FAILED_PRECONDITION, "already started")
    cpu_fills = table.game is not None and table.game.cpu_fills
    if table.visibility != common_pb2.VISIBILITY_OPEN and not cpu_fills:
        raise TableRefusal(
            "no_bot_here",
            Category.FAILED_PRECONDITION,
            "a private table has no bot: wait for the players you invited",
        )


def cpu_seats(table: Table) -> list[Seat]:
    """A CPU player for every empty seat (a game whose rules play them, ``cpu_fills``)."""
    taken = {s.number for s in table.seated}
    return [
        Seat(n, f"cpu-{n}", f"CPU {n}", True) for n in range(1, table.seats + 1) if n not in taken
    ]


def check_presence(table: Table, player: str) -> Seat:
    """The seat of a player whose connection the lobby reports: only a seated player of a game
    under way has one that counts."""
    check_open(table)
    seat = table.seat_of(player)
    if seat is None:
        raise TableRefusal("not_seated", Category.PERMISSION_DENIED, "you have no seat here")
    if not table.started:
        raise TableRefusal(
            "game_not_started",
            Category.FAILED_PRECONDITION,
            "presence counts once the game has started; before, a player leaves the table",
        )
    if table.game_over:
        raise TableRefusal(
            "game_over", Category.FAILED_PRECONDITION, "the game is over: presence no longer counts"
        )
    return seat


# --- building records --------------------------------------------------------------------------


def at_of(event: Any, now: int) -> int:
    """The instant a game event records (its ``at``), else ``now``."""
    at = getattr(event, "at", None)
    return at if isinstance(at, int) else now


def envelope(table: Table, number: int, at: int, body: Any) -> common_pb2.EventEnvelope:
    """One numbered event of the table: a TableEvent, or one of its game's events."""
    game = table.game
    env = common_pb2.EventEnvelope(
        table_id=table.table_id,
        game_id=table.table_id,
        game_kind=kind_of(game),
        event_number=number,
        server_time_ms=at,
    )
    if isinstance(body, common_pb2.TableEvent):
        env.table.CopyFrom(body)
    else:
        assert game is not None
        getattr(env, game.slug).CopyFrom(game.encode(body))
    return env


def number_events(table: Table, items: list[tuple[int, Any]]) -> list[common_pb2.EventEnvelope]:
    return [envelope(table, table.next_event + i, at, body) for i, (at, body) in enumerate(items)]


def redacted_steps(
    game: Game,
    envelopes: list[common_pb2.EventEnvelope],
    steps: list[tuple[Any, Any]],
    player: str,
) -> list[common_pb2.EventEnvelope]:
    """``redacted_for`` for game events whose states ``decide_steps`` already gave."""
    return [
        _as_seen(game, env, event, game.redact(state, event, player))
        for env, (event, state) in zip(envelopes, steps, strict=True)
    ]


def _as_seen(
    game: Game, env: common_pb2.EventEnvelope, event: Any, seen: Any
) -> common_pb2.EventEnvelope:
    """The envelope as its viewer sees it: itself, or a copy carrying the redacted event."""
    if seen is event:
        return env
    copy = common_pb2.EventEnvelope()
    copy.CopyFrom(env)
    getattr(copy, game.slug).CopyFrom(game.encode(seen))
    return copy


def redacted_for(
    table: Table, envelopes: list[common_pb2.EventEnvelope], player: str
) -> list[common_pb2.EventEnvelope]:
    """The envelopes as ``player`` may see them, given the table state *before* they applied
    (the first record of a table names its game in its TableCreated)."""
    game, state = table.game, table.state
    out = []
    for env in envelopes:
        which = env.WhichOneof("body")
        if which == "table":
            if game is None and env.table.HasField("table_created"):
                game = game_of(env, env.table.table_created)
                state = game.initial_state(None)
            out.append(env)
            continue
        if game is None or which != game.slug:
            raise ValueError(f"event {env.event_number} is not an event of this table's game")
        event = game.decode(getattr(env, which))
        state = game.evolve(state, event)
        out.append(_as_seen(game, env, event, game.redact(state, event, player)))
    return out


def table_facts(table: Table, record: referee_pb2.TableRecord, state_after: Any = None) -> set[str]:
    """The table-level facts ``record`` holds, appended after ``table``'s records (the headers
    the listings read, match_bus.records.fact_headers): its TableEvents' names, and
    ``game_started`` / ``game_over`` when the game starts with it or is over after it.
    ``state_after``: the game's state after the record, when the caller has it; else the
    record's game events are folded here (table commands only: not a turn's path)."""
    facts: set[str] = set()
    moved = False  # whether the record holds a game event
    for env in record.events:
        if env.WhichOneof("body") == "table":
            facts.add(env.table.WhichOneof("event") or "table")
        else:
            moved = True
    game = table.game
    if game is None or (not moved and state_after is None):
        return facts
    state = state_after
    if state is None:
        state = table.state
        for env in record.events:
            which = env.WhichOneof("body")
            if which != "table":
                state = game.evolve(state, game.decode(getattr(env, which)))
    started = game.is_started(state)
    if started and not table.started:
        facts.add(GAME_STARTED)
    if started and game.is_terminal(state) and not table.game_over:
        facts.add(GAME_OVER)
    return facts


def bot_strength(deal: Message) -> str | None:
    """The bot service's strength a game's deal names ("weak", "medium", "strong"), if it names
    one (a ``bot_strength`` field): the table's BotsAssigned says it when a bot sits."""
    if "bot_strength" not in deal.DESCRIPTOR.fields_by_name:
        return None
    name = dealer_pb2.BotStrength.Name(getattr(deal, "bot_strength"))  # noqa: B009
    return name.removeprefix("BOT_STRENGTH_").lower()


def _request_of(record: referee_pb2.TableRecord) -> tuple[str, str] | None:
    """(player, request id) of the record's command, if it carries a request id."""
    command = record.command
    which = command.WhichOneof("command")
    if which is None or which == "tick":
        return None
    sent = getattr(command, which)
    return (sent.player_id, sent.request_id) if sent.request_id else None


def load(
    table_id: str,
    stored: Sequence[StoredRecord | tuple[int, bytes]],
    finished_too: bool = False,
) -> Table | None:
    """The table from its records as the log holds them, in order: as read back (on its own
    subject or in frames), or ``(stream sequence, bytes)`` for records on its own subject
    (None for a finished game or an expired table unless ``finished_too``). Raises Quarantined
    at the first record that does not decode, does not continue the table's numbering, or
    cannot be folded."""
    numbering = Numbering(table_id)
    records = []
    try:
        for item in stored:
            where = item if isinstance(item, StoredRecord) else StoredRecord(item[0], item[1])
            records.append((numbering.follow(where.sequence, where.data, where.index), where))
    except BadRecord as bad:
        raise Quarantined(bad) from None
    return rebuild(table_id, records, finished_too)


def rebuild(
    table_id: str,
    records: list[tuple[referee_pb2.TableRecord, StoredRecord]],
    finished_too: bool = False,
) -> Table | None:
    """The table folded from its records (None for a finished game or an expired table unless
    ``finished_too``).
    Only the answers a retry could still ask for are worked out: each player's last few.
    Raises Quarantined for a record the rules cannot fold (an event out of place)."""
    if not finished_too and any(
        env.HasField("table")
        and (env.table.HasField("seed_revealed") or env.table.HasField("table_expired"))
        for record, _ in reversed(records)  # the reveal or expiry is at the end
        for env in record.events
    ):
        return None
    wanted: set[int] = set()
    per_player: dict[str, int] = {}
    for index in range(len(records) - 1, -1, -1):
        key = _request_of(records[index][0])
        if key is not None and per_player.get(key[0], 0) < ANSWERS_PER_PLAYER:
            per_player[key[0]] = per_player.get(key[0], 0) + 1
            wanted.add(index)
    table = Table(table_id)
    for index, (record, where) in enumerate(records):
        own = None if where.framed else where.sequence  # the fence of its own subject
        try:
            fold(table, record, own, remember=index in wanted)
        except Exception as error:  # whatever the record holds, only its own table is lost
            problem = f"cannot be folded into the table ({error!r})"
            raise Quarantined(BadRecord(table_id, where.sequence, problem, where.index)) from error
    return table


def accepted_reply(
    table: Table, seen: list[common_pb2.EventEnvelope], player: str, now: int
) -> Message:
    """The game's reply to an applied command (``Game.accepted``), with the table's seed
    commitment, which the rules do not know, for a view that carries it as every Watch
    snapshot does."""
    assert table.game is not None
    return table.game.accepted(
        seen, table.state, player, now, table.next_event - 1, commitment=table.commitment
    )


def fold(
    table: Table, record: referee_pb2.TableRecord, sequence: int | None, remember: bool = True
) -> None:
    """Apply a record read back from the log, remembering the reply its command got, exactly as
    the referee that appended it answered (so a retry after a failover gets the same answer)."""
    command = record.command
    which = command.WhichOneof("command")
    key = _request_of(record) if remember else None
    if key is None:
        table.apply(record, sequence)
    elif which == "table":
        player = command.table.player_id
        table_reply = referee_pb2.TableCommandReply()
        table_reply.accepted.events.extend(redacted_for(table, list(record.events), player))
        table_reply.accepted.seat = _seat_in(table, record, command.table)
        table.apply(record, sequence)
        table.remember(player, command.table.request_id, table_reply.SerializeToString())
    else:  # a player's command of the table's game: the member named after its slug
        game = table.game
        if game is None or which != game.slug:
            raise ValueError(f"a {which} command at a table of {game.slug if game else 'none'}")
        player, request_id = key
        if record.HasField("refusal"):
            reply = game.reply_message(refusal=record.refusal)
            table.apply(record, sequence)
        else:
            seen = redacted_for(table, list(record.events), player)
            table.apply(record, sequence)
            reply = accepted_reply(table, seen, player, command.received_at_ms)
        table.remember(player, request_id, reply.SerializeToString())


def _seat_in(
    table: Table, record: referee_pb2.TableRecord, command: referee_pb2.TableCommand
) -> int:
    """The seat a table command's reply named: the one its player took or gave up, or holds
    (a presence); ``table`` as it was before the record."""
    if command.HasField("presence"):
        seat = table.seat_of(command.player_id)
        return seat.number if seat is not None else 0
    for env in record.events:
        which = env.table.WhichOneof("event") if env.HasField("table") else None
        if which == "player_seated" and env.table.player_seated.player_id == command.player_id:
            return env.table.player_seated.seat
        if which == "player_left" and env.table.player_left.player_id == command.player_id:
            return env.table.player_left.seat
    return 0
