"""The table listing: every table of the log folded into a ``match.v1.Table``, kept live by one
ordered consumer on ``match.events.>``. It serves ListTables, GetTable and invite codes.

Open tables waiting for players are also kept in two indexes (``listing.SortedKeys``), by
creation time and by bot fill time, per game kind: a ListTables page costs a binary search and
the page, the same for 10 tables as for 10,000.

It is a projection and lags the log by a moment; ``sync`` waits until it has read everything the
stream held when it was called, for a caller that must see its own write (a table just made).

Only records that hold a table-level fact are decoded: the referee's headers on each record
(match_bus.records.fact_headers) name the facts it holds (a table made, a seat taken or left, the
game started or over, ...) and its place in its table's numbering, so a turn's record is taken
from its headers alone (its numbering checked, nothing decoded or folded), and a record with
facts is folded without the game's rules (the headers say when the game started and ended). A
record without the headers (written before them) is decoded and folded with the game's own
projection, as it always was.

A lobby stores the listing (``snapshot``) and a lobby that starts goes on from it
(services/lobby/snapshot.py): a change to how a record is folded here must bump that module's
``VERSION``, or lobbies of the new code go on from what the old code made of the log.

A record that does not decode or does not continue its table's numbering (match_bus.records)
quarantines that table: the listing leaves it out from then on, and ``quarantined`` says why. A
record on a subject that names no table is skipped. Either is counted and logged once; every
other table goes on.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import structlog
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from match.v1 import common_pb2, lobby_listing_pb2, lobby_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import follow_copy
from match_bus.records import (
    GAME_OVER,
    GAME_STARTED,
    BadRecord,
    Numbering,
    Unpacked,
    facts_of,
    numbers_of,
    unpack,
)
from match_players.identity import is_keyed
from services.lobby import metrics
from services.lobby.games import of_slug
from services.lobby.listing import Key, SortedKeys

log = structlog.get_logger()

IDLE_CHECK_S = 5.0  # after this long without a message, check the consumer is not stuck
MAX_BACKOFF_S = 5.0
MAX_EXPIRED_KEPT = 100_000  # expired table ids remembered for a clear refusal (then NOT_FOUND)
KEEP_FINISHED_MS = 3_600_000  # a finished table stays listed this long after its game ends
MAX_ARCHIVED_KEPT = 100_000  # archived table ids remembered for a clear refusal (then NOT_FOUND)
SNAPSHOT_SLICE = 500  # tables a snapshot takes between two turns of the loop (~2 ms)
SLICE_ALL = 1 << 62


class ConsumerStalled(Exception):
    """The stream has records the consumer does not deliver: re-create it."""


class TableDirectory:
    def __init__(self, js: JetStreamContext, keep_finished_ms: int = KEEP_FINISHED_MS) -> None:
        self._js = js
        self._keep_finished_ms = keep_finished_ms
        self._tables: dict[str, lobby_pb2.Table] = {}
        self._invites: dict[str, str] = {}  # invite code -> table id
        self._left: dict[str, set[str]] = {}  # table id -> players who gave up their seat
        # A keyed player's tables whose game is not over (FindMySeats): player id -> table ids,
        # kept as seats are taken and left and as tables finish, expire or are quarantined.
        self._seats_of: dict[str, set[str]] = {}
        self._numbering: dict[str, Numbering] = {}  # where each table's records have got to
        self._quarantined: dict[str, BadRecord] = {}  # table id -> the record that stopped it
        # Counted for the limits (services/lobby/quotas.py): tables waiting for their game to
        # start (any visibility), and tables whose game is not over that have a bot seated or
        # whose host asked for bots (StartTable: FillRequested).
        self._waiting: set[str] = set()
        self._botted: set[str] = set()
        self._filling: set[str] = set()  # FillRequested: the bot fills them whole
        # Tables that expired (TableExpired): out of the listing and out of memory; only their
        # ids are kept, oldest dropped first, so a join or GetTable is told why.
        self._expired: OrderedDict[str, None] = OrderedDict()
        # Finished tables by when their game ended (the referee's clock), oldest first: each
        # leaves memory once the log's clock is ``keep_finished_ms`` past it, so the listing
        # holds the last hour's games, not every game ever played. Their ids are kept, oldest
        # dropped first, like the expired ones'.
        self._finished: OrderedDict[str, int] = OrderedDict()
        self._archived: OrderedDict[str, None] = OrderedDict()
        self._log_ms = 0  # the latest server time of a record read: the log's own clock
        # The listed tables (open, waiting, a seat free), by game kind (0: every kind)
        self._by_created: dict[int, SortedKeys] = {}  # (created_at_ms, table id)
        self._by_fill: dict[int, SortedKeys] = {}  # (fill_at_ms, table id)
        self._listed: dict[str, tuple[int, Key, Key]] = {}  # table id -> (kind, keys)
        # Each playing table's game state, the game's own projection (gone once it is over), for
        # tables whose records come without the referee's headers
        self._games: dict[str, Any] = {}
        # Tables with a game event taken from the headers alone: their projection is not kept
        self._unfolded: set[str] = set()
        self.decoded = 0  # records decoded (the others were taken from their headers)
        self._last_seq = 0  # the last stream sequence folded (waiters told)
        self._taken_seq = 0  # the same, set as soon as the message is taken
        # What the copy held as the listing read it: the first sequence folded (0: none yet),
        # and the ranges of sequences it did not hold between two folded (removed before);
        # a record removed since, not among them, is one the listing folded (a repair).
        self._first_seq = 0
        self._gaps: list[tuple[int, int]] = []
        self._folding = asyncio.Lock()  # held to fold a message, or to take a snapshot
        self._advanced = asyncio.Condition()

    # --- reading ---------------------------------------------------------------------------

    def get(self, table_id: str) -> lobby_pb2.Table | None:
        """A copy of the table, invite code included (the caller decides who may see it)."""
        table = self._tables.get(table_id)
        if table is None:
            return None
        copy = lobby_pb2.Table()
        copy.CopyFrom(table)
        return copy

    def made_at(self, table_id: str) -> int | None:
        """When the table was made (unix ms, the referee's clock), if it is known."""
        table = self._tables.get(table_id)
        return None if table is None else table.created_at_ms

    def table_of_invite(self, code: str) -> str | None:
        return self._invites.get(code)

    def quarantined(self, table_id: str) -> BadRecord | None:
        """The record that quarantined the table, if one did."""
        return self._quarantined.get(table_id)

    def expired(self, table_id: str) -> bool:
        """Whether the table expired (its game did not start in time)."""
        return table_id in self._expired

    @property
    def keep_finished_s(self) -> int:
        """How long a finished table stays listed after its game ends."""
        return self._keep_finished_ms // 1000

    def archived(self, table_id: str) -> bool:
        """Whether the table finished long enough ago to have left the listing."""
        return table_id in self._archived

    def waiting(self) -> int:
        """Tables waiting for their game to start, open and private."""
        return len(self._waiting)

    def known(self, table_id: str) -> bool:
        """Whether the listing holds the table (it lags the log by a moment)."""
        return table_id in self._tables

    def is_waiting(self, table_id: str) -> bool:
        return table_id in self._waiting

    def is_over(self, table_id: str) -> bool:
        """Finished, expired or quarantined: it holds no seat any more."""
        table = self._tables.get(table_id)
        if table is None:
            return (
                table_id in self._expired
                or table_id in self._quarantined
                or table_id in self._archived
            )
        return table.status == lobby_pb2.Table.STATUS_FINISHED

    def bot_seats(self, table_id: str) -> int:
        """The seats bots hold at the table, or will: every free seat of a waiting table where a
        bot already sat or whose host asked for bots (the bot fills a table whole); 0 once the
        game is over."""
        table = self._tables.get(table_id)
        if table is None or table.status == lobby_pb2.Table.STATUS_FINISHED:
            return 0
        bots = sum(1 for s in table.taken if s.is_bot)
        committed = bots or table_id in self._filling
        if committed and table.status == lobby_pb2.Table.STATUS_WAITING:
            return bots + max(table.seats - len(table.taken), 0)
        return bots

    def bot_seats_in_use(self) -> int:
        """``bot_seats`` summed over every table: the bots the whole system plays or will."""
        return sum(self.bot_seats(t) for t in self._botted)

    def has_left(self, table_id: str, player_id: str) -> bool:
        """Whether the player gave up their seat at the table and has not sat down again (a
        keyed player keeps their id, so they may)."""
        return player_id in self._left.get(table_id, ())

    def seats_of(self, player_id: str, table_id: str = "") -> list[lobby_pb2.Table]:
        """Copies of the tables (invite codes included) where the keyed player holds a seat and
        the game is not over, newest first; only ``table_id``'s when it is given."""
        tables = self._seats_of.get(player_id, set())
        if table_id:
            tables = tables & {table_id}
        found = [self._tables[t] for t in tables if t in self._tables]
        found.sort(key=lambda t: (t.created_at_ms, t.table_id), reverse=True)
        copies = []
        for table in found:
            copy = lobby_pb2.Table()
            copy.CopyFrom(table)
            copies.append(copy)
        return copies

    def _index_seats(self, table_id: str, before: set[str], after: set[str]) -> None:
        """The keyed players of the table were ``before`` and are ``after`` a change."""
        for player in before - after:
            held = self._seats_of.get(player)
            if held is not None:
                held.discard(table_id)
                if not held:
                    del self._seats_of[player]
        for player in after - before:
            self._seats_of.setdefault(player, set()).add(table_id)

    def _unindex(self, table: lobby_pb2.Table) -> None:
        """The table holds nobody's seat any more (finished, expired, quarantined)."""
        self._index_seats(table.table_id, _keyed(table), set())

    def newest_open(
        self, game_kind: int, size: int, before: Key | None = None
    ) -> tuple[list[lobby_pb2.Table], Key | None]:
        """A page of open tables waiting for players with a free seat, newest first, after the
        cursor ``before``; and the cursor of the next page (None on the last). No invite codes."""
        keys, more = self._index(self._by_created, game_kind).newest(size, before)
        return self._copies(keys), keys[-1] if more and keys else None

    def fill_due(
        self, game_kind: int, size: int, upto_ms: int, after: Key | None = None
    ) -> tuple[list[lobby_pb2.Table], Key | None]:
        """A page of the same tables whose bot fill time is at most ``upto_ms``, soonest due
        first, after the cursor ``after``; and the next page's cursor (None on the last)."""
        keys, more = self._index(self._by_fill, game_kind).oldest(size, upto_ms, after)
        return self._copies(keys), keys[-1] if more and keys else None

    def open_tables(self, game_kind: int) -> list[lobby_pb2.Table]:
        """Every listed table of ``game_kind``, newest first (tests and tools; not served)."""
        return self.newest_open(game_kind, len(self._listed) or 1)[0]

    def listed(self) -> int:
        """How many tables ListTables would show (every game kind)."""
        return len(self._listed)

    @staticmethod
    def _index(indexes: dict[int, SortedKeys], game_kind: int) -> SortedKeys:
        return indexes.get(game_kind) or SortedKeys()

    def _copies(self, keys: list[Key]) -> list[lobby_pb2.Table]:
        out = []
        for _, table_id in keys:
            copy = lobby_pb2.Table()
            copy.CopyFrom(self._tables[table_id])
            copy.invite_code = ""
            out.append(copy)
        return out

    def _relist(self, table_id: str) -> None:
        """Put the table in the indexes, move it, or take it out, as its state now says."""
        table = self._tables.get(table_id)
        listed = self._listed.pop(table_id, None)
        if listed is not None:
            kind, created, fill = listed
            for k in (common_pb2.GAME_KIND_UNSPECIFIED, kind):
                self._by_created[k].discard(created)
                self._by_fill[k].discard(fill)
        if (
            table is None
            or table.visibility != common_pb2.VISIBILITY_OPEN
            or table.status != lobby_pb2.Table.STATUS_WAITING
            or len(table.taken) >= table.seats
        ):
            return
        created, fill = (table.created_at_ms, table_id), (table.fill_at_ms, table_id)
        for k in (common_pb2.GAME_KIND_UNSPECIFIED, table.game_kind):
            self._by_created.setdefault(k, SortedKeys()).add(created)
            self._by_fill.setdefault(k, SortedKeys()).add(fill)
        self._listed[table_id] = (table.game_kind, created, fill)

    async def sync(self, timeout_s: float = 2.0) -> bool:
        """Wait until every record the stream holds now is folded; False if that took too long."""
        try:
            info = await self._js.stream_info(subjects.EVENTS_STREAM)
        except Exception as error:  # NATS down: answer from what we have
            log.warning("cannot read the stream's position", error=repr(error))
            return False
        target = info.state.last_seq
        async with self._advanced:
            try:
                await asyncio.wait_for(
                    self._advanced.wait_for(lambda: self._last_seq >= target), timeout_s
                )
            except TimeoutError:
                return False
        return True

    # --- folding ---------------------------------------------------------------------------

    def apply(self, record: referee_pb2.TableRecord, facts: frozenset[str] | None = None) -> None:
        """Fold a record: with the game's projection (``facts`` None: a record without the
        referee's headers), or by the ``facts`` its headers name."""
        if record.HasField("refusal"):
            return  # a refused command changed nothing
        for envelope in record.events:
            if envelope.server_time_ms > self._log_ms:
                self._log_ms = envelope.server_time_ms
        if facts is not None:
            self._apply_facts(record, facts)
            return
        for envelope in record.events:
            self._apply_event(envelope)
            self._relist(envelope.table_id)

    def _apply_facts(self, record: referee_pb2.TableRecord, facts: frozenset[str]) -> None:
        """The record's table events, then what its headers say of the game (started, over):
        the game's own events are not decoded."""
        table_id = record.table_id
        game_id = ""
        for envelope in record.events:
            if envelope.WhichOneof("body") == "table":
                self._apply_table_event(envelope)
                self._relist(table_id)
            else:
                game_id = game_id or envelope.game_id
                self._unfolded.add(table_id)
        table = self._tables.get(table_id)
        if table is None or table.status == lobby_pb2.Table.STATUS_FINISHED:
            return
        if GAME_STARTED in facts and table.status == lobby_pb2.Table.STATUS_WAITING:
            table.status = lobby_pb2.Table.STATUS_PLAYING
            table.game_id = game_id
            self._waiting.discard(table_id)
            self._filling.discard(table_id)
        if GAME_OVER in facts:
            self._finish(table)
        self._relist(table_id)

    def _finish(self, table: lobby_pb2.Table) -> None:
        table.status = lobby_pb2.Table.STATUS_FINISHED
        self._unindex(table)
        self._botted.discard(table.table_id)
        self._games.pop(table.table_id, None)
        self._unfolded.discard(table.table_id)
        self._finished[table.table_id] = self._log_ms  # the record that ended it set the clock

    def _archive_due(self) -> None:
        """Forget the tables whose game ended ``keep_finished_ms`` or more before the log's
        clock (what the listing answers about them from then on: ``archived``)."""
        horizon = self._log_ms - self._keep_finished_ms
        while self._finished:
            table_id, ended_ms = next(iter(self._finished.items()))
            if ended_ms > horizon:
                return
            del self._finished[table_id]
            table = self._tables.get(table_id)
            if table is not None:
                self._forget(table, keep_left=True)  # a seat given up stays given up
            # Past this many, a record still to come for the oldest (there should be none)
            # would meet a table the listing never saw begin: quarantined, logged.
            for gone in _remember(self._archived, table_id, MAX_ARCHIVED_KEPT):
                self._left.pop(gone, None)
            metrics.ARCHIVED.inc()

    def _apply_event(self, env: common_pb2.EventEnvelope) -> None:
        which = env.WhichOneof("body")
        if which == "table":
            self._apply_table_event(env)
            return
        table = self._tables.get(env.table_id)
        game = of_slug(which)
        if table is None or game is None or table.status == lobby_pb2.Table.STATUS_FINISHED:
            return
        if env.table_id in self._unfolded:
            # Earlier game events came with the referee's headers and were not folded: a record
            # without them (from a referee older than its predecessor) cannot be folded onto
            # them. The table stays as it is until a record with the headers says more.
            log.warning(
                "a record without fact headers after records with them; not folded",
                table_id=env.table_id,
                event_number=env.event_number,
            )
            return
        # The game's own projection says when it started and when it is over.
        state = self._games.get(env.table_id)
        try:
            event = game.decode(getattr(env, game.slug))
            state = game.evolve(game.initial_state(None) if state is None else state, event)
        except Exception as error:  # the viewer quarantines what it cannot show; list it as is
            log.warning(
                "cannot fold a game event into the listing",
                table_id=env.table_id,
                event_number=env.event_number,
                error=repr(error),
            )
            return
        if table.status == lobby_pb2.Table.STATUS_WAITING and game.is_started(state):
            table.status = lobby_pb2.Table.STATUS_PLAYING
            table.game_id = env.game_id
            self._waiting.discard(env.table_id)
            self._filling.discard(env.table_id)
        if game.is_terminal(state):
            self._finish(table)
        else:
            self._games[env.table_id] = state

    def _apply_table_event(self, env: common_pb2.EventEnvelope) -> None:
        event = env.table
        kind = event.WhichOneof("event")
        if kind == "table_created":
            made = event.table_created
            table = lobby_pb2.Table(
                table_id=env.table_id,
                game_kind=env.game_kind,
                visibility=made.visibility,
                seats=made.seats,
                status=lobby_pb2.Table.STATUS_WAITING,
                created_at_ms=env.server_time_ms,
                invite_code=made.invite_code,
                fill_at_ms=made.fill_at_ms,
                expires_at_ms=made.expires_at_ms,
            )
            settings = made.WhichOneof("settings")  # the game's slug
            if settings is not None and settings in lobby_pb2.Table.DESCRIPTOR.fields_by_name:
                getattr(table, settings).CopyFrom(getattr(made, settings))
            self._tables[env.table_id] = table
            self._waiting.add(env.table_id)
            if made.invite_code:
                self._invites[made.invite_code] = env.table_id
            return
        existing = self._tables.get(env.table_id)
        if existing is None:
            return
        table = existing
        if kind == "table_expired":
            self._forget_expired(table)
            return
        before = _keyed(table)
        if kind == "player_seated":
            seated = event.player_seated
            left = self._left.get(env.table_id)
            if left is not None:  # sat down again: their tokens work again
                left.discard(seated.player_id)
            kept = [s for s in table.taken if s.seat != seated.seat]
            kept.append(
                lobby_pb2.Table.Seat(
                    seat=seated.seat,
                    player_id=seated.player_id,
                    display_name=seated.display_name,
                    is_bot=seated.is_bot,
                )
            )
            del table.taken[:]
            table.taken.extend(sorted(kept, key=lambda s: s.seat))
            if seated.is_bot:
                self._botted.add(env.table_id)
        elif kind == "player_left":
            gone = event.player_left.player_id
            kept = [s for s in table.taken if s.player_id != gone]
            del table.taken[:]
            table.taken.extend(kept)
            self._left.setdefault(env.table_id, set()).add(gone)
        elif kind == "fill_requested":
            table.fill_at_ms = event.fill_requested.fill_at_ms
            if table.visibility == common_pb2.VISIBILITY_OPEN:
                self._filling.add(env.table_id)
                self._botted.add(env.table_id)
        elif kind == "seed_committed":
            table.commitment = event.seed_committed.commitment
        if table.status != lobby_pb2.Table.STATUS_FINISHED:
            self._index_seats(env.table_id, before, _keyed(table))

    def _forget_expired(self, table: lobby_pb2.Table) -> None:
        """An expired table leaves the listing and memory; its id is kept for a clear refusal."""
        self._forget(table)
        _remember(self._expired, table.table_id, MAX_EXPIRED_KEPT)

    def _forget(self, table: lobby_pb2.Table, keep_left: bool = False) -> None:
        """Everything the listing holds about the table, gone (expired, or finished long ago);
        ``keep_left``: but who gave up a seat there (their tokens stay refused)."""
        table_id = table.table_id
        self._unindex(table)
        self._tables.pop(table_id, None)
        self._numbering.pop(table_id, None)
        self._games.pop(table_id, None)
        self._unfolded.discard(table_id)
        if not keep_left:
            self._left.pop(table_id, None)
        self._waiting.discard(table_id)
        self._botted.discard(table_id)
        self._filling.discard(table_id)
        self._relist(table_id)
        if table.invite_code and self._invites.get(table.invite_code) == table_id:
            del self._invites[table.invite_code]

    def take(
        self, subject: str, sequence: int, data: bytes, headers: Mapping[str, str] | None = None
    ) -> None:
        """Fold one message of the stream, a record or a partition's frame of records
        (match_bus.records.unpack), into the tables: each record into its own, unless it
        quarantines it or belongs to none. ``headers``: the message's; a record whose headers
        (a frame's entry: its own) say it holds no table-level fact is only counted in its
        table's numbering, never decoded."""
        for record in unpack(subject, data, headers):
            self._take(subject, sequence, record)

    def _take(self, subject: str, sequence: int, unpacked: Unpacked) -> None:
        table_id, data, headers = unpacked.table_id, unpacked.data, unpacked.headers
        if table_id is None:
            metrics.STRAY.inc()
            log.error(
                "skipped a record on a subject that names no table",
                subject=subject,
                sequence=sequence,
                frame_index=unpacked.index,
            )
            return
        if table_id in self._quarantined or table_id in self._expired or table_id in self._archived:
            return  # quarantined: logged once; expired or archived: its game can change no more
        numbering = self._numbering.get(table_id)
        if numbering is None:
            numbering = self._numbering[table_id] = Numbering(table_id)
        facts = facts_of(headers)
        numbers = numbers_of(headers) if facts is not None else None
        if numbers is None:
            facts = None  # headers that do not describe the record: read it
        try:
            if facts is not None and not facts and numbers is not None:
                numbering.skip(sequence, numbers, unpacked.index)  # a turn: no table-level fact
                return
            record = numbering.follow(sequence, data, unpacked.index)
        except BadRecord as bad:
            self._quarantine(bad)
            return
        self.decoded += 1
        self.apply(record, facts)
        if self._finished:
            self._archive_due()

    def _quarantine(self, bad: BadRecord) -> None:
        self._quarantined[bad.table_id] = bad
        self._finished.pop(bad.table_id, None)  # said quarantined from now on, never archived
        table = self._tables.pop(bad.table_id, None)
        if table is not None:
            self._unindex(table)
        self._relist(bad.table_id)
        self._numbering.pop(bad.table_id, None)
        self._games.pop(bad.table_id, None)
        self._unfolded.discard(bad.table_id)
        self._waiting.discard(bad.table_id)
        self._botted.discard(bad.table_id)
        self._filling.discard(bad.table_id)
        metrics.QUARANTINED.set(len(self._quarantined))
        log.error(
            "table quarantined: its log holds a record the lobby cannot use",
            table_id=bad.table_id,
            sequence=bad.sequence,
            frame_index=bad.index,
            problem=bad.problem,
        )

    def indexed_players(self) -> int:
        """Keyed players with a seat at a table whose game is not over (tests)."""
        return len(self._seats_of)

    # --- a checkpoint of the listing (services/lobby/snapshot.py) -------------------------

    def passed(self, seq: int) -> None:
        """The message at stream sequence ``seq`` is folded (the next after ``folded``): note
        where the listing began, and the sequences the copy did not hold before it."""
        if not self._first_seq:
            self._first_seq = seq
        elif seq > self._taken_seq + 1:
            self._gaps.append((self._taken_seq + 1, seq - 1))
        self._taken_seq = seq

    @property
    def first_folded(self) -> int:
        """The first stream sequence folded into this listing (0: none yet)."""
        return self._first_seq

    @property
    def gaps(self) -> list[tuple[int, int]]:
        """The sequences the copy did not hold when the listing read past them (a copy)."""
        return list(self._gaps)

    @property
    def folded(self) -> int:
        """The last stream sequence folded into the tables (set as each message is taken)."""
        return self._taken_seq

    def can_snapshot(self) -> bool:
        """Whether ``snapshot`` can hold the whole listing: not while a table is folded with its
        game's own projection (records written before the referee's headers), whose state is
        the game's and not the listing's."""
        return not self._games

    def snapshot(self) -> lobby_listing_pb2.ListingSnapshot:
        """The whole listing as it stands after stream sequence ``folded``: restored into an
        empty directory, it answers and folds on exactly as this one does."""
        return build_snapshot(self.snapshot_parts())

    def snapshot_parts(self) -> SnapshotParts:
        """What ``snapshot`` is built from, taken at once (nothing may be folded meanwhile) and
        cheaply: each table as its bytes, the rest as plain values. ``build_snapshot`` makes the
        message of them, in any thread."""
        taken: list[SnapshotParts] = []
        for _ in self._parts(SLICE_ALL, taken):
            pass
        return taken[0]

    async def snapshot_parts_paused(self, every: int = SNAPSHOT_SLICE) -> SnapshotParts:
        """``snapshot_parts`` as the running lobby takes them: folding waits meanwhile (the
        listing lags the log a moment), and the loop runs other work every ``every`` tables, so
        no call waits on a snapshot of a large listing (~3.5 us a table)."""
        taken: list[SnapshotParts] = []
        async with self._folding:
            for _ in self._parts(every, taken):
                await asyncio.sleep(0)
        return taken[0]

    def _parts(self, every: int, taken: list[SnapshotParts]) -> Iterator[None]:
        """``snapshot_parts``, put in ``taken`` at the end, pausing (a yield) every ``every``
        entries."""
        if self._games:
            raise ValueError("a table is folded with its game's projection: no snapshot")
        held = (self._numbering, self._tables, self._waiting, self._botted, self._filling)
        tables = []
        ids = list(dict.fromkeys(t for held_ids in (*held, self._unfolded) for t in held_ids))
        for n, table_id in enumerate(ids, start=1):
            table = self._tables.get(table_id)
            numbering = self._numbering.get(table_id)
            tables.append(
                (
                    table_id,
                    None if table is None else table.SerializeToString(),
                    0 if numbering is None else numbering.records,
                    0 if numbering is None else numbering.next_event,
                    table_id in self._waiting,
                    table_id in self._botted,
                    table_id in self._filling,
                    table_id in self._unfolded,
                )
            )
            if n % every == 0:
                yield
        left = []
        for n, (table_id, players) in enumerate(self._left.items(), start=1):
            left.append((table_id, tuple(players)))
            if n % (every * 4) == 0:
                yield
        # Up to 100,000 ids each, and an OrderedDict walks at ~0.3 us a key: in slices too.
        expired: list[str] = []
        archived: list[str] = []
        for kept, into in ((self._expired, expired), (self._archived, archived)):
            for n, table_id in enumerate(kept, start=1):
                into.append(table_id)
                if n % (every * 20) == 0:
                    yield
        taken.append(
            SnapshotParts(
                sequence=self._taken_seq,
                first_sequence=self._first_seq,
                gaps=list(self._gaps),
                log_ms=self._log_ms,
                tables=tables,
                expired=expired,
                archived=archived,
                finished=list(self._finished.items()),
                quarantined=[
                    (b.table_id, b.sequence, b.index, b.problem) for b in self._quarantined.values()
                ],
                left=left,
                invites=list(self._invites.items()),
            )
        )

    def restore(self, snap: lobby_listing_pb2.ListingSnapshot) -> None:
        """Take the listing ``snap`` holds, in place of this directory's (which must not have
        folded anything yet); the log is then followed from the message after its sequence."""
        if self._taken_seq or self._numbering or self._tables:
            raise ValueError("restore into a directory that has folded records")
        for listed in snap.tables:
            table_id = listed.table_id
            if listed.HasField("table"):
                table = lobby_pb2.Table()
                table.CopyFrom(listed.table)
                self._tables[table_id] = table
            if listed.records:
                self._numbering[table_id] = Numbering(
                    table_id, records=listed.records, next_event=listed.next_event
                )
            for flag, held in (
                (listed.waiting, self._waiting),
                (listed.botted, self._botted),
                (listed.filling, self._filling),
                (listed.unfolded, self._unfolded),
            ):
                if flag:
                    held.add(table_id)
        for table_id in snap.expired:
            self._expired[table_id] = None
        for table_id in snap.archived:
            self._archived[table_id] = None
        for finished in snap.finished:
            self._finished[finished.table_id] = finished.ended_ms
        for q in snap.quarantined:
            self._quarantined[q.table_id] = BadRecord(q.table_id, q.sequence, q.problem, q.index)
        for given_up in snap.left:
            self._left[given_up.table_id] = set(given_up.player_ids)
        for invite in snap.invites:
            self._invites[invite.code] = invite.table_id
        for table_id, table in self._tables.items():
            if table.status != lobby_pb2.Table.STATUS_FINISHED:
                self._index_seats(table_id, set(), _keyed(table))
            self._relist(table_id)
        self._log_ms = snap.log_ms
        self._taken_seq = self._last_seq = snap.sequence
        self._first_seq = snap.first_sequence
        self._gaps = [(gap.first, gap.last) for gap in snap.gaps]
        metrics.QUARANTINED.set(len(self._quarantined))

    async def _ingest(self, msg: Msg) -> None:
        seq = msg.metadata.sequence.stream
        if seq <= self._last_seq:
            return  # seen before the consumer was re-created
        async with self._folding:  # not while a snapshot is being taken
            if seq <= self._taken_seq:
                return  # folded while this one waited
            self.take(msg.subject, seq, msg.data, msg.headers)
            self.passed(seq)  # at once: a snapshot taken after holds this message
        async with self._advanced:
            self._last_seq = seq
            self._advanced.notify_all()

    # --- following the log -----------------------------------------------------------------

    async def run(self) -> None:
        """Follow the log forever, re-creating the consumer whenever it fails or goes quiet."""
        backoff = 0.25
        while True:
            start = self._last_seq
            try:
                await self._follow()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning(
                    "table listing consumer failed; re-creating it",
                    error=repr(error),
                    after_seq=self._last_seq,
                )
            backoff = 0.25 if self._last_seq > start else min(backoff * 2, MAX_BACKOFF_S)
            await asyncio.sleep(backoff)

    async def _follow(self) -> NoReturn:
        await follow_copy(
            self._js,
            subjects.LOBBY_EVENTS,  # the lobby's own copy of the log (same sequences)
            self._last_seq,
            self._ingest,
            self._check_stalled,
            IDLE_CHECK_S,
        )

    async def _check_stalled(self) -> None:
        """Nothing came for a while: fine if the log holds nothing more, else re-create."""
        info = await self._js.stream_info(subjects.EVENTS_STREAM)
        if info.state.last_seq > self._last_seq:
            raise ConsumerStalled(f"stream at {info.state.last_seq}, folded {self._last_seq}")


@dataclass(frozen=True, slots=True)
class SnapshotParts:
    """A listing's state as plain values (``TableDirectory.snapshot_parts``)."""

    sequence: int
    first_sequence: int  # the first sequence folded
    gaps: list[tuple[int, int]]  # sequences the copy did not hold when read past, first to last
    log_ms: int
    # (table id, the Table's bytes or None, records, next event, waiting, botted, filling,
    # unfolded)
    tables: list[tuple[str, bytes | None, int, int, bool, bool, bool, bool]]
    expired: list[str]
    archived: list[str]
    finished: list[tuple[str, int]]
    quarantined: list[tuple[str, int, int, str]]  # (table id, sequence, index, problem)
    left: list[tuple[str, tuple[str, ...]]]
    invites: list[tuple[str, str]]


def build_snapshot(parts: SnapshotParts) -> lobby_listing_pb2.ListingSnapshot:
    """The ``ListingSnapshot`` of ``parts``: pure, so it may run off the event loop."""
    snap = lobby_listing_pb2.ListingSnapshot(
        sequence=parts.sequence, first_sequence=parts.first_sequence, log_ms=parts.log_ms
    )
    for first, last in parts.gaps:
        snap.gaps.add(first=first, last=last)
    for table_id, table, records, next_event, waiting, botted, filling, unfolded in parts.tables:
        listed = snap.tables.add(
            table_id=table_id,
            records=records,
            next_event=next_event,
            waiting=waiting,
            botted=botted,
            filling=filling,
            unfolded=unfolded,
        )
        if table is not None:
            listed.table.MergeFromString(table)
    snap.expired.extend(parts.expired)
    snap.archived.extend(parts.archived)
    for table_id, ended_ms in parts.finished:
        snap.finished.add(table_id=table_id, ended_ms=ended_ms)
    for table_id, sequence, index, problem in parts.quarantined:
        snap.quarantined.add(table_id=table_id, sequence=sequence, index=index, problem=problem)
    for table_id, players in parts.left:
        snap.left.add(table_id=table_id, player_ids=sorted(players))
    for code, table_id in parts.invites:
        snap.invites.add(code=code, table_id=table_id)
    return snap


def _remember(ids: OrderedDict[str, None], table_id: str, most: int) -> list[str]:
    """Keep ``table_id`` among ``ids`` (a table let go of, kept for a clear refusal), at most
    ``most`` of them: the oldest dropped first, and given back."""
    ids[table_id] = None
    dropped = []
    while len(ids) > most:
        dropped.append(ids.popitem(last=False)[0])
    return dropped


def _keyed(table: lobby_pb2.Table) -> set[str]:
    """The keyed players seated at the table."""
    return {s.player_id for s in table.taken if is_keyed(s.player_id)}
