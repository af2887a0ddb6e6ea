"""Match Cards' player for the bot service (``GAME.bot``): one seat of a challenge table, as pure
decisions.

It sees only what its seat is sent (its Watch stream, the replies of its own TurnCard calls),
folded by the client's ``MatchCardsTracker``; what it remembers, which card it turns and how long
it thinks are :mod:`match_rules.match_cards.bot`. No clock, no I/O: the bot service
(services/bot) gives it the server's time, sleeps as each :class:`~match_rules.game.BotCall`
says and sends it.

It plays at the operator's forced strength (BOT_FORCE_STRENGTH), else at the strength a table's
BotsAssigned names, else at :data:`bot.DEFAULT_STRENGTH` (Match Cards' deal draws none). A seat
resumed from a snapshot (another replica took it over) sees what is up now and remembers
nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from match.v1 import common_pb2, match_cards_service_pb2
from match_client.match_cards import DOWN, UP, MatchCardsTracker
from match_rules.deal import Strength
from match_rules.game import BotCall, BotEnd, Reaction, SeatBot
from match_rules.match_cards import bot

TURN_CARD = "TurnCard"
# Refusals after which only news from the table can help.
WAIT_FOR_NEWS = frozenset({"comparing", "game_not_started", "game_over", "player_finished"})
# Statuses after which the seat is not ours any more.
LOST = frozenset({"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND"})


@dataclass(frozen=True, slots=True)
class _Turn:
    """What a call was decided on: it is sent only if this still holds."""

    up: tuple[int, ...]
    groups: int
    failed: int


class MatchCardsBotSeat:
    """One bot seat of a Match Cards table (:class:`match_rules.game.BotSeat`)."""

    def __init__(
        self,
        table_id: str,
        player_id: str,
        *,
        pace: float = 1.0,
        rate: float = 1.0,
        strength: str = "",
        forced: Strength | None = None,
    ) -> None:
        self.table_id = table_id
        self.player_id = player_id
        self.pace = pace
        self.rate = rate
        # One stream per purpose: what is forgotten depends only on the cards seen, the cards
        # chosen only on the choices, however long the bot thinks.
        self.rng = bot.seat_rng(table_id, player_id, "play")
        self.memory_rng = bot.seat_rng(table_id, player_id, "memory")
        self.think_rng = bot.seat_rng(table_id, player_id, "think")
        self.tracker = MatchCardsTracker(player=player_id, table_id=table_id)
        self.memory: dict[int, str] = {}
        self.forced = forced
        self.shown: str | None = None
        self.strength: Strength = forced or bot.DEFAULT_STRENGTH
        self._pending: tuple[BotCall, _Turn] | None = None  # the last call decided, and on what
        if strength:  # what the table showed, as the seat's record kept it
            self.assign(strength)

    @property
    def event_number(self) -> int:
        return self.tracker.event_number

    # --- what it learns ------------------------------------------------------------------

    def observe(self, item: Message) -> int:
        assert isinstance(item, match_cards_service_pb2.MatchCardsServiceWatchResponse)
        if item.HasField("snapshot"):
            # Taken over mid-game: what is up now is seen at every decision; nothing else.
            self.tracker.apply_snapshot(item.snapshot)
            self.memory = {}
            return item.snapshot.server_time_ms
        return self.observe_events([item.event])

    def observe_events(self, events: Iterable[common_pb2.EventEnvelope]) -> int:
        """Events of the stream or of a reply; the latest server time they carry. Each is seen
        once (a reply and the stream both carry it): one memory draw per sighting."""
        latest = 0
        for env in self.tracker.apply_events(list(events)):
            latest = max(latest, env.server_time_ms)
            if env.HasField("table") and env.table.HasField("bots_assigned"):
                self.assign(env.table.bots_assigned.strength)
            if not env.HasField("match_cards"):
                continue
            kind = env.match_cards.WhichOneof("event")
            # no kind: one this build does not know (a newer server's), passed over
            e: Any = getattr(env.match_cards, kind) if kind else None
            if getattr(e, "player", "") != self.player_id:  # pragma: no mutate (both kinds have it)
                continue
            if kind == "card_turned":
                keep = bot.KEEP[self.strength]
                bot.remember(self.memory, e.card, e.picture, keep, self.memory_rng)
            elif kind == "group_found":
                bot.forget_found(self.memory, e.cards)
        return latest

    def assign(self, shown: str) -> None:
        """A table's BotsAssigned (a forced strength is kept; an unknown one changes nothing)."""
        self.shown = shown
        try:
            drawn = Strength(shown.strip().lower())
        except ValueError:
            return
        if self.forced is None:
            self.strength = drawn

    # --- what it does ----------------------------------------------------------------------

    def ended(self) -> BotEnd | None:
        t = self.tracker
        if t.game_over:
            return BotEnd.GAME_OVER
        if t.started and t.me.finished:
            return BotEnd.OUT  # its copy is over; the others play on
        return None

    def decide(self, now_ms: int) -> BotCall | None:
        t = self.tracker
        if not t.started or t.game_over or t.me.finished:
            return None
        up = tuple(t.up)
        if len(up) >= t.group or t.compare_at_ms:
            return None  # the attempt is being compared: its result is on its way
        hidden = [n for n, c in t.cards.items() if c.state in (DOWN, UP)]
        memory = {n: p for n, p in self.memory.items() if n in hidden}
        up_picture = t.seen.get(up[0]) if up else None
        choice = bot.next_card(memory, hidden, up, up_picture, t.group, self.rng)
        if choice is None:
            return None
        think = bot.think_ms(self.think_rng, self.pace, bot.think_kind(up, choice))
        request = match_cards_service_pb2.TurnCardRequest(table_id=self.table_id, card=choice.card)
        call = BotCall(TURN_CARD, request, at_ms=now_ms + round(think * self.rate), attempts=3)
        self._pending = (call, _Turn(up, t.me.groups, t.me.failed))
        return call

    def still(self, call: BotCall, now_ms: int) -> bool:
        t = self.tracker
        if self._pending is None or self._pending[0] is not call:
            return False
        decided = self._pending[1]
        now = _Turn(tuple(t.up), t.me.groups, t.me.failed)
        return now == decided and not t.compare_at_ms and not t.me.finished and not t.game_over

    def answered(self, call: BotCall, reply: Message) -> int:
        assert isinstance(reply, match_cards_service_pb2.TurnCardResponse)
        return self.observe_events(reply.events)

    def refused(self, call: BotCall, code: str | None, status: str) -> Reaction:
        if code in WAIT_FOR_NEWS:
            return Reaction.WAIT
        if code == "not_seated" or status in LOST:
            return Reaction.STOP
        return Reaction.RETRY  # card_found, card_turned: its view was behind; decide again


BOT = SeatBot(MatchCardsBotSeat)  # the game's player for the bot service (match_rules.game.Bot)
