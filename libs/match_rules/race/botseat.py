"""The race's player for the bot service (``GAME.bot``): one seat, as pure decisions.

It sees only what its seat is sent (its Watch stream, the replies of its own commands), folded
by the client's ``ViewTracker``; what it remembers, what it turns and how long it thinks are
:mod:`match_rules.race.bot`. No clock, no I/O: the bot service (services/bot) gives it the
server's time, sleeps as each :class:`~match_rules.game.BotCall` says and sends it.

The seat plays at the strength the table's ``BotsAssigned`` event names (drawn from the seed by
the deal, public to everybody), or at the operator's forced one. A seat resumed from a snapshot
(another replica took it over) knows what is up on its board now and nothing more: faces of
turns whose events it missed are not remembered.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.message import Message

from match.v1 import common_pb2, race_service_pb2, views_pb2
from match_client.race.tracker import RaceView, ViewTracker
from match_rules.deal import Strength
from match_rules.game import BotCall, BotEnd, Reaction, SeatBot
from match_rules.race import bot

PRESS_READY = "PressReady"
TURN_TILE = "TurnTile"
# Refusals after which only news from the table can help.
WAIT_FOR_NEWS = frozenset({"board_over", "board_not_started", "game_over", "player_out"})
# Statuses after which the seat is not ours any more.
LOST = frozenset({"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND"})


@dataclass(frozen=True, slots=True)
class _Turn:
    """What a call was decided on: a turn is sent only if all of it still holds."""

    board: int
    found: frozenset[int] = frozenset()
    showing: tuple[int, ...] = ()
    clearing: bool = False


class RaceBotSeat:
    """One bot seat of a race (:class:`match_rules.game.BotSeat`)."""

    def __init__(
        self,
        table_id: str,
        player_id: str,
        *,
        pace: float = 1.0,
        rate: float = 1.0,
        strength: str = "",
        forced: Strength | None = None,
        rng: random.Random | None = None,
        memory_rng: random.Random | None = None,
    ) -> None:
        self.table_id = table_id
        self.player_id = player_id
        self.pace = pace
        self.rate = rate
        # Seeded per seat and game (a table holds one game): choices and thinking times from
        # one stream, forgetting from another, so what is forgotten depends only on the turns.
        self.rng = rng or bot.seat_rng(table_id, player_id, "play")  # pragma: no mutate: default
        self.tracker = ViewTracker(player=player_id, table_id=table_id)
        self.forced = forced
        self.shown: str | None = None
        self.strength: Strength = forced or bot.DEFAULT_STRENGTH
        self.memory = bot.Memory(
            profile=bot.PROFILES[self.strength],
            rng=memory_rng or bot.seat_rng(table_id, player_id, "memory"),
        )
        self.readied: set[int] = set()
        self._pending: tuple[BotCall, _Turn] | None = None  # the last call decided, and on what
        if strength:  # what the table showed, as the seat's record kept it
            self.assign(strength)

    @property
    def event_number(self) -> int:
        return self.tracker.event_number

    # --- what it learns ------------------------------------------------------------------

    def observe(self, item: Message) -> int:
        assert isinstance(item, race_service_pb2.WatchResponse)
        if item.HasField("snapshot"):
            self.tracker.apply_watch(item)
            # Faces of turns whose events were missed are not remembered; what is up now is
            # seen again at every decision (the tracker holds it).
            self.memory.catch_up(self.tracker.board, self.tracker.turns)
            return item.snapshot.server_time_ms
        return self.observe_events([item.event])

    def observe_events(
        self,
        events: Iterable[common_pb2.EventEnvelope],
        counters: views_pb2.RaceCounters | None = None,
    ) -> int:
        """Events of the stream or of a reply (and a reply's counters); the latest server
        time they carry."""
        events = list(events)
        latest = 0
        for env in events:
            latest = max(latest, env.server_time_ms)
            if env.HasField("race") and env.race.HasField("tile_turned"):
                e = env.race.tile_turned
                if e.player == self.player_id:
                    self.memory.see(e.board, e.tile, e.symbol, e.turn)
            elif env.HasField("table") and env.table.HasField("bots_assigned"):
                self.assign(env.table.bots_assigned.strength)
        self.tracker.apply_events(events)
        if counters is not None:
            latest = max(latest, counters.server_time_ms)
            self.tracker.apply_counters(counters)
        return latest

    def assign(self, shown: str) -> None:
        """The table's BotsAssigned: the strength every bot at the table plays this game (a
        forced strength is kept; a blank or unknown one keeps the one played)."""
        if shown == self.shown:
            return  # the reply and the stream both carry it
        self.shown = shown
        drawn = bot.parse_strength(shown)
        if self.forced is None and drawn is not None:
            self.strength = drawn
            self.memory.profile = bot.PROFILES[drawn]

    # --- what it does ----------------------------------------------------------------------

    def ended(self) -> BotEnd | None:
        if self.tracker.game_over:
            return BotEnd.GAME_OVER
        if self.tracker.status == RaceView.STATUS_OUT:
            return BotEnd.OUT
        return None

    def decide(self, now_ms: int) -> BotCall | None:
        t = self.tracker
        if (
            t.phase == RaceView.PHASE_READY
            and t.status == RaceView.STATUS_WAITING
            and t.board not in self.readied
        ):
            request = race_service_pb2.PressReadyRequest(table_id=self.table_id)
            closes = t.ready_deadline_ms  # server clock, ``rate`` times the wall's; 0: unknown
            left = round((closes - now_ms) / self.rate) if closes else None
            delay = bot.ready_delay_ms(self.rng, self.pace, left)
            ready = BotCall(PRESS_READY, request, after_ms=delay, move=False)
            self._pending = (ready, _Turn(t.board))
            return ready
        if t.phase == RaceView.PHASE_PLAYING and t.status == RaceView.STATUS_PLAYING:
            return self._turn(now_ms)
        return None

    def _turn(self, now_ms: int) -> BotCall | None:
        t = self.tracker
        self.memory.start(t.board)
        found, turned = t.found, t.showing
        visible = {n: v.symbol for n, v in t.tiles.items() if v.up and v.symbol is not None}
        known = bot.known_faces(self.memory.recall(), visible)
        move = bot.next_move(known, found, turned, self.rng, self.memory.profile.slip)
        if move is None:
            return None
        clearing = bot.may_clear(found)
        if clearing and not t.starts_at_ms:  # T0 unknown: never risk a clear under 12 s
            return None
        think = bot.think_ms(self.rng, self.pace, bot.think_kind(turned, move))
        at = bot.earliest_turn_ms(
            now_ms=now_ms,
            think=round(think * self.rate),  # a person's pace on the wall clock
            starts_at_ms=t.starts_at_ms,
            paused_until_ms=t.paused_until_ms,
            clearing=clearing,
        )
        request = race_service_pb2.TurnTileRequest(table_id=self.table_id, tile=move.tile)
        call = BotCall(TURN_TILE, request, at_ms=at, attempts=3)
        self._pending = (call, _Turn(t.board, found, turned, clearing))
        return call

    def _decided(self, call: BotCall) -> _Turn | None:
        """What ``call`` was decided on (None: it is not the call this seat decided last)."""
        if self._pending is None or self._pending[0] is not call:
            return None
        return self._pending[1]

    def still(self, call: BotCall, now_ms: int) -> bool:
        if call.rpc != TURN_TILE:
            return True
        decided = self._decided(call)
        t = self.tracker
        if (
            decided is None
            or t.board != decided.board
            or t.status != RaceView.STATUS_PLAYING
            or t.found != decided.found
            or t.showing != decided.showing
        ):
            return False  # something changed while thinking: decide again
        # never finish a board under 12.5 s after T0
        return not (decided.clearing and now_ms < t.starts_at_ms + bot.CLEAR_NOT_BEFORE_MS)

    def answered(self, call: BotCall, reply: Message) -> int:
        assert isinstance(
            reply, race_service_pb2.PressReadyResponse | race_service_pb2.TurnTileResponse
        )
        decided = self._decided(call)
        if call.rpc == PRESS_READY and decided is not None:
            self.readied.add(decided.board)
        return self.observe_events(reply.events, reply.counters)

    def refused(self, call: BotCall, code: str | None, status: str) -> Reaction:
        if call.rpc == PRESS_READY:
            decided = self._decided(call)
            if code == "already_ready" and decided is not None:
                self.readied.add(decided.board)
            return Reaction.RETRY
        if code == "paused":
            return Reaction.PAUSE
        if code in WAIT_FOR_NEWS:
            return Reaction.WAIT
        if code == "not_seated" or status in LOST:
            return Reaction.STOP
        return Reaction.RETRY


BOT = SeatBot(RaceBotSeat)  # the game's player for the bot service (match_rules.game.Bot)
