"""Match Cards' bot (match_rules.match_cards.bot, .botseat), pure: the policy and memory the
limits table is measured with, and a bot seat playing whole games against the rules, fed only
what its seat is sent (each event redacted for it, as the lobby sends it)."""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass, field

import pytest

from match.v1 import common_pb2, match_cards_service_pb2
from match_rules.deal import Strength
from match_rules.errors import RuleError
from match_rules.game import BotCall, BotEnd, Reaction, TableContext
from match_rules.match_cards import bot
from match_rules.match_cards import commands as cmd
from match_rules.match_cards import events as ev
from match_rules.match_cards.botseat import BOT, TURN_CARD, MatchCardsBotSeat
from match_rules.match_cards.decide import COMPARE_MS
from match_rules.match_cards.game import GAME
from match_rules.match_cards.settings import Difficulty, Mode, Settings
from match_rules.registry import by_slug
from tests.rules.match_cards.helpers import T0, Game

TABLE = "abcdef0123456789"
W = match_cards_service_pb2.MatchCardsServiceWatchResponse


# --- the policy ----------------------------------------------------------------------------


def test_a_whole_group_remembered_is_turned_first_in_the_order_it_was_remembered() -> None:
    memory = {7: "cat", 3: "dog", 1: "cat", 9: "dog"}
    assert bot.complete_groups(memory, 2) == [[3, 9], [7, 1]]
    choice = bot.next_card(memory, range(1, 13), (), None, 2, random.Random(0))
    assert choice == bot.Choice(3, known=True)
    # a triple needs all three of its cards remembered
    assert bot.next_card({1: "cat", 2: "cat"}, [1, 2, 4], (), None, 3, random.Random(0)) == (
        bot.Choice(4, known=False)
    )


def test_after_the_first_card_the_cards_remembered_of_its_picture_then_unseen_ones() -> None:
    memory = {5: "cat", 8: "dog"}
    hidden = [1, 2, 5, 8, 11]
    # card 2 is up showing a cat: the remembered cat at 5
    assert bot.next_card(memory, hidden, (2,), "cat", 2, random.Random(0)) == bot.Choice(5, True)
    # a picture it does not remember elsewhere: a card it has not seen, never 8 (a dog)
    picks = {
        bot.next_card(memory, hidden, (2,), "owl", 2, random.Random(s)).card  # type: ignore[union-attr]
        for s in range(40)
    }
    assert picks == {1, 11}


def test_the_first_card_of_an_attempt_ignores_any_picture_said_to_be_up() -> None:
    """With nothing turned no picture is up to match: a lone card it remembers is not turned
    first, whatever ``up_picture`` says."""
    for seed in range(20):
        choice = bot.next_card({5: "cat"}, [1, 5, 7], (), "cat", 2, random.Random(seed))
        assert choice is not None and choice.card in (1, 7) and not choice.known


def test_a_card_remembered_is_turned_only_when_nothing_unseen_is_left() -> None:
    memory = {1: "cat", 2: "dog"}
    choice = bot.next_card(memory, [1, 2, 3], (3,), "owl", 2, random.Random(0))
    assert choice is not None and choice.card in (1, 2) and not choice.known
    assert bot.next_card({}, [4], (4,), "owl", 2, random.Random(0)) is None


def test_a_sighting_is_kept_with_the_strength_s_probability_drawn_once() -> None:
    memory: dict[int, str] = {}
    rng = random.Random(3)
    bot.remember(memory, 1, "cat", 1.0, rng)  # perfect: no draw
    assert memory == {1: "cat"} and rng.getstate() == random.Random(3).getstate()
    bot.remember(memory, 1, "cat", 0.0, rng)  # remembered already: no draw, kept
    assert memory == {1: "cat"} and rng.getstate() == random.Random(3).getstate()
    bot.remember(memory, 2, "dog", 0.0, rng)  # never kept, one draw
    assert 2 not in memory and rng.getstate() != random.Random(3).getstate()
    kept = 0
    for n in range(2_000):
        m: dict[int, str] = {}
        bot.remember(m, 1, "cat", bot.KEEP[Strength.WEAK], random.Random(n))
        kept += len(m)
    assert 600 <= kept <= 800  # 35 % of 2,000
    bot.forget_found(memory, (1, 5))
    assert memory == {}


class Draw(random.Random):
    """A random source whose ``random()`` always draws ``value``."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def test_a_sighting_is_kept_only_on_a_draw_below_the_probability() -> None:
    """``random()`` draws from [0, 1): a draw of exactly ``keep`` forgets, so ``keep`` 0 never
    keeps anything."""
    for value, keep, kept in ((0.35, 0.35, False), (0.3499, 0.35, True), (0.0, 0.0, False)):
        memory: dict[int, str] = {}
        bot.remember(memory, 1, "cat", keep, Draw(value))
        assert (memory == {1: "cat"}) is kept, (value, keep)


def test_the_strengths_keep_more_the_stronger_they_are_and_weak_is_the_limits_forgetful() -> None:
    from match_rules.match_cards.limits import FORGETFUL_KEEP

    keeps = [bot.KEEP[s] for s in (Strength.WEAK, Strength.MEDIUM, Strength.STRONG)]
    assert keeps == sorted(keeps) and keeps[0] == FORGETFUL_KEEP == 0.35


def test_thinking_times_are_a_person_s_scaled_by_the_pace_and_bounded() -> None:
    assert bot.think_kind((), bot.Choice(1, True)) is bot.Think.KNOWN
    assert bot.think_kind((), bot.Choice(1, False)) is bot.Think.NEW
    assert bot.think_kind((2,), bot.Choice(1, False)) is bot.Think.NEXT
    times = [bot.think_ms(random.Random(n), 1.0, bot.Think.NEW) for n in range(500)]
    assert min(times) >= bot.THINK_MIN_MS and max(times) <= bot.THINK_MAX_MS
    assert 800 <= sorted(times)[250] <= 1_000  # the median, about 900 ms
    fast = bot.think_ms(random.Random(1), 0.1, bot.Think.KNOWN)
    assert fast == round(bot.think_ms(random.Random(1), 1.0, bot.Think.KNOWN) * 0.1)


def test_thinking_times_spread_around_the_median_by_think_sigma() -> None:
    """Lognormal: the logarithm of time / median has THINK_SIGMA (0.35) for its deviation."""
    median = bot.THINK_MEDIAN_MS[bot.Think.NEXT]
    logs = [
        math.log(bot.think_ms(random.Random(n), 1.0, bot.Think.NEXT) / median) for n in range(2_000)
    ]
    assert abs(statistics.pstdev(logs) - bot.THINK_SIGMA) < 0.03
    assert abs(statistics.fmean(logs)) < 0.03


# --- a seat against the rules ---------------------------------------------------------------


@dataclass
class Table:
    """A referee in miniature: the rules, a clock, and the bot seat fed what the lobby sends it."""

    seat: MatchCardsBotSeat
    game: Game
    number: int = 0
    now: int = T0
    turns: int = 0
    sent: list[common_pb2.EventEnvelope] = field(default_factory=list)

    def envelopes(self, events: list[ev.Event]) -> list[common_pb2.EventEnvelope]:
        out = []
        for e in events:
            self.number += 1
            shown = GAME.redact(self.game.state, e, "bot")
            env = common_pb2.EventEnvelope(
                event_number=self.number,
                table_id=TABLE,
                server_time_ms=e.at,
                match_cards=GAME.encode(shown),
            )
            out.append(env)
        self.sent.extend(out)
        return out

    def stream(self, envelopes: list[common_pb2.EventEnvelope]) -> None:
        for env in envelopes:
            self.seat.observe(W(event=env))

    def play(self, limit: int = 2_000) -> None:
        while self.seat.ended() is None and limit:
            limit -= 1
            call = self.seat.decide(self.now)
            if call is None:
                board = self.game.state.board("bot")
                assert board.compare_at is not None, "the bot stopped with cards to turn"
                self.now = board.compare_at
                self.stream(self.envelopes(self.game.run(cmd.Tick(self.now))))
                continue
            assert call.rpc == TURN_CARD and call.at_ms > self.now and call.attempts == 3
            self.now = call.at_ms
            assert self.seat.still(call, self.now)
            request = call.request
            assert isinstance(request, match_cards_service_pb2.TurnCardRequest)
            events = self.game.turn(request.card, self.now, "bot")  # a refusal raises
            self.turns += 1
            sent = self.envelopes(events)
            self.seat.answered(call, match_cards_service_pb2.TurnCardResponse(events=sent))
            self.stream(sent)  # the stream brings the same events again
        assert limit, "the game never ended"


def start(settings: Settings, strength: Strength | None, seed: int = 1) -> Table:
    seat = MatchCardsBotSeat(TABLE, "bot", pace=1.0, rate=1.0, forced=strength)
    table = Table(seat, Game(settings, players=("bot",), seed=seed))
    table.stream(table.envelopes(table.game.events))
    return table


def finished(table: Table) -> ev.PlayerFinished:
    (done,) = [e for e in table.game.events if isinstance(e, ev.PlayerFinished)]
    return done


def test_registered_with_its_bot() -> None:
    assert by_slug("match_cards").bot is BOT is GAME.bot
    made = BOT.seat(TABLE, "bot", pace=0.5, rate=2.0, strength="weak", forced=None)
    assert isinstance(made, MatchCardsBotSeat)
    assert (made.pace, made.rate, made.strength, made.shown) == (0.5, 2.0, Strength.WEAK, "weak")


@pytest.mark.parametrize(
    ("mode", "cards"), [(Mode.PAIRS, 12), (Mode.PAIRS, 30), (Mode.TRIPLES, 18)]
)
def test_a_strong_bot_plays_a_whole_game_and_wins_it_sending_no_move_the_rules_refuse(
    mode: Mode, cards: int
) -> None:
    table = start(Settings(mode, cards, Difficulty.EASY), Strength.STRONG)
    table.play()
    done = finished(table)
    assert done.won and done.groups == cards // Settings(mode, cards).group
    assert table.seat.ended() is BotEnd.GAME_OVER
    assert table.turns == (done.groups + done.failed) * Settings(mode, cards).group


def test_a_weak_bot_needs_more_failed_attempts_than_a_strong_one_over_many_deals() -> None:
    failed = {}
    for strength in (Strength.WEAK, Strength.STRONG):
        total = 0
        for seed in range(12):
            table = start(Settings(Mode.PAIRS, 20, Difficulty.EASY), strength, seed)
            table.play()
            total += finished(table).failed
        failed[strength] = total
    assert failed[Strength.WEAK] > failed[Strength.STRONG] * 1.3, failed


def test_a_bot_that_reaches_the_limit_is_out_and_stops() -> None:
    table = start(Settings(Mode.PAIRS, 12, Difficulty.HARD), Strength.WEAK, seed=4)
    table.play()
    done = finished(table)
    assert not done.won and done.failed == table.game.state.limit
    assert table.seat.ended() is BotEnd.GAME_OVER and table.seat.decide(table.now) is None


def test_it_remembers_only_cards_its_seat_was_shown_and_draws_once_per_sighting() -> None:
    table = start(Settings(), Strength.STRONG)
    table.play()
    shown = {
        env.match_cards.card_turned.card: env.match_cards.card_turned.picture
        for env in table.sent
        if env.match_cards.HasField("card_turned")
    }
    assert table.seat.memory.items() <= shown.items()
    # the same sightings, each seen twice (a reply and the stream), drew as often as once each
    once = MatchCardsBotSeat(TABLE, "bot", forced=Strength.WEAK)
    twice = MatchCardsBotSeat(TABLE, "bot", forced=Strength.WEAK)
    once.observe_events(table.sent)
    twice.observe_events(table.sent)
    twice.observe_events(table.sent)
    assert once.memory_rng.getstate() == twice.memory_rng.getstate()


def test_the_other_players_progress_and_other_events_teach_it_nothing() -> None:
    seat = MatchCardsBotSeat(TABLE, "bot")
    game = Game(Settings(), players=("bot", "ann"))
    table = Table(seat, game)
    table.stream(table.envelopes(game.events))
    g = game.groups()[0]
    table.stream(table.envelopes([*game.turn(g[0], T0, "ann"), *game.turn(g[1], T0, "ann")]))
    table.stream(table.envelopes(game.run(cmd.Tick(T0 + COMPARE_MS))))
    assert seat.memory == {} and seat.tracker.line("ann").groups == 1
    assert seat.decide(T0 + COMPARE_MS) is not None  # its own copy is untouched


def test_before_the_start_while_comparing_and_once_out_it_sends_nothing() -> None:
    seat = MatchCardsBotSeat(TABLE, "bot")
    assert seat.decide(0) is None and seat.ended() is None
    seat.tracker.started = True  # a view that shows no card to turn
    assert seat.decide(0) is None
    table = start(Settings(), Strength.STRONG)
    s = table.seat
    a, b = table.game.miss()[:2]
    table.stream(table.envelopes([*table.game.turn(a, T0, "bot"), *table.game.turn(b, T0, "bot")]))
    assert s.tracker.compare_at_ms == T0 + COMPARE_MS and s.decide(T0) is None
    # a challenge table: its copy is over (the limit), the game goes on for the others
    two = Game(Settings(Mode.PAIRS, 12, Difficulty.HARD), players=("bot", "ann"))
    t2 = Table(MatchCardsBotSeat(TABLE, "bot"), two)
    t2.stream(t2.envelopes(two.events))
    at = T0
    while two.state.board("bot").finished_at is None:
        at = two.attempt(two.miss(), at, "bot")
    t2.stream(t2.envelopes(two.events[len(t2.sent) :]))
    assert t2.seat.ended() is BotEnd.OUT and t2.seat.decide(at) is None


def test_a_call_is_sent_only_while_what_it_was_decided_on_still_holds() -> None:
    table = start(Settings(), Strength.STRONG)
    s = table.seat
    call = s.decide(T0)
    assert call is not None and s.still(call, call.at_ms)
    other = BotCall(TURN_CARD, call.request, at_ms=call.at_ms)
    assert not s.still(other, call.at_ms)  # not the call it decided last
    request = call.request
    assert isinstance(request, match_cards_service_pb2.TurnCardRequest)
    table.stream(table.envelopes(table.game.turn(request.card, T0, "bot")))  # it moved on
    assert not s.still(call, call.at_ms)


def test_a_seat_taken_over_from_a_snapshot_sees_what_is_up_and_remembers_nothing() -> None:
    table = start(Settings(), Strength.STRONG)
    g = table.game.groups()
    at = table.game.attempt(g[0], T0, "bot")
    table.game.turn(g[1][0], at, "bot")
    context = TableContext(TABLE, 9, at, {"bot": "Bot"}, "", None)
    view = GAME.snapshot(table.game.state, "bot", context)
    fresh = MatchCardsBotSeat(TABLE, "bot", forced=Strength.STRONG)
    fresh.memory = {5: "stale"}
    assert fresh.observe(W(snapshot=view)) == at
    assert fresh.memory == {} and fresh.event_number == 9
    call = fresh.decide(at)
    assert call is not None
    request = call.request
    assert isinstance(request, match_cards_service_pb2.TurnCardRequest)
    assert request.card not in (*g[0], g[1][0])  # never a found card, never the one up


def test_the_strength_is_a_table_s_bots_assigned_unless_forced() -> None:
    def assigned(strength: str) -> W:
        body = common_pb2.TableEvent(
            bots_assigned=common_pb2.TableEvent.BotsAssigned(strength=strength)
        )
        return W(event=common_pb2.EventEnvelope(event_number=1, table=body))

    s = MatchCardsBotSeat(TABLE, "bot")
    assert s.shown is None and s.strength is bot.DEFAULT_STRENGTH
    s.observe(assigned("strong"))
    assert (s.shown, s.strength) == ("strong", Strength.STRONG)
    s = MatchCardsBotSeat(TABLE, "bot", strength="nonsense")
    assert (s.shown, s.strength) == ("nonsense", bot.DEFAULT_STRENGTH)
    s = MatchCardsBotSeat(TABLE, "bot", strength="weak", forced=Strength.STRONG)
    assert s.strength is Strength.STRONG


def test_what_it_does_after_a_refusal() -> None:
    s = MatchCardsBotSeat(TABLE, "bot")
    call = BotCall(TURN_CARD, match_cards_service_pb2.TurnCardRequest(table_id=TABLE, card=1))
    for code in ("comparing", "player_finished", "game_over", "game_not_started"):
        assert s.refused(call, code, "FAILED_PRECONDITION") is Reaction.WAIT
    assert s.refused(call, "not_seated", "PERMISSION_DENIED") is Reaction.STOP
    assert s.refused(call, None, "UNAUTHENTICATED") is Reaction.STOP
    for code in ("card_found", "card_turned", None):
        assert s.refused(call, code, "UNAVAILABLE") is Reaction.RETRY


def test_a_turn_the_rules_refuse_raises_in_the_miniature_referee() -> None:
    """The harness above would notice a refused move (the rules raise, nothing is swallowed)."""
    table = start(Settings(), Strength.STRONG)
    with pytest.raises(RuleError):
        table.game.turn(99, T0, "bot")


def test_each_draw_comes_from_the_seat_s_own_stream_for_its_purpose() -> None:
    """Choices from seat_rng(table, player, "play"), thinking from "think", forgetting from
    "memory": a game can be replayed exactly, and thinking longer never changes a choice."""
    table = start(Settings(), None)
    s = table.seat
    call = s.decide(T0)
    assert call is not None
    request = call.request
    assert isinstance(request, match_cards_service_pb2.TurnCardRequest)
    assert request.table_id == TABLE
    choice = bot.next_card({}, range(1, 13), (), None, 2, bot.seat_rng(TABLE, "bot", "play"))
    think = bot.think_ms(bot.seat_rng(TABLE, "bot", "think"), 1.0, bot.Think.NEW)
    assert choice is not None and (request.card, call.at_ms) == (choice.card, T0 + think)
    keep = bot.KEEP[bot.DEFAULT_STRENGTH]
    memory: dict[int, str] = {}
    bot.remember(memory, 3, "cat", keep, bot.seat_rng(TABLE, "bot", "memory"))
    fresh = MatchCardsBotSeat(TABLE, "bot")
    fresh.observe_events(table.sent)  # the table so far, as its stream brings it
    fresh.observe_events(table.envelopes(table.game.turn(3, T0, "bot")))
    assert fresh.memory == ({3: table.game.cards[2]} if memory else {})


def test_its_thinking_is_a_person_s_on_the_wall_clock_whatever_the_server_s_rate() -> None:
    """``rate``: server ms per wall ms; ``pace`` scales the thinking time itself."""
    slow = MatchCardsBotSeat(TABLE, "bot", pace=1.0, rate=10.0)
    assert (slow.pace, slow.rate) == (1.0, 10.0)
    table = Table(slow, Game(Settings(), players=("bot",)))
    table.stream(table.envelopes(table.game.events))
    call = slow.decide(T0)
    think = bot.think_ms(bot.seat_rng(TABLE, "bot", "think"), 1.0, bot.Think.NEW)
    assert call is not None and call.at_ms == T0 + think * 10
    defaults = MatchCardsBotSeat(TABLE, "bot")
    assert (defaults.pace, defaults.rate, defaults.forced) == (1.0, 1.0, None)
    made = BOT.seat(TABLE, "p1", forced=Strength.WEAK)
    assert isinstance(made, MatchCardsBotSeat)
    assert (made.table_id, made.player_id, made.forced) == (TABLE, "p1", Strength.WEAK)
    assert (made.pace, made.rate, made.shown) == (1.0, 1.0, None)  # Bot.seat's defaults


def test_what_the_seat_observes_returns_the_server_time_and_found_cards_leave_memory() -> None:
    table = start(Settings(), Strength.STRONG)
    s = table.seat
    g = table.game.groups()[0]
    turned = table.envelopes([*table.game.turn(g[0], T0 + 5, "bot")])
    assert s.observe(W(event=turned[0])) == T0 + 5
    table.stream(table.envelopes(table.game.turn(g[1], T0 + 6, "bot")))
    assert set(s.memory) <= set(g) and s.memory  # a strong memory kept at least one
    table.stream(table.envelopes(table.game.run(cmd.Tick(T0 + 6 + COMPARE_MS))))
    assert s.memory == {}  # found: nothing more to find there


def test_a_full_attempt_not_yet_compared_and_a_game_over_send_nothing() -> None:
    table = start(Settings(), Strength.STRONG)
    s = table.seat
    a, b = table.game.miss()[:2]
    table.stream(table.envelopes([*table.game.turn(a, T0, "bot"), *table.game.turn(b, T0, "bot")]))
    s.tracker.compare_at_ms = 0  # the attempt's cards are up; its compare not told yet
    assert s.decide(T0) is None
    # the game is over: nothing, even with cards still down on a copy not told it finished
    left = start(Settings(), Strength.STRONG).seat
    left.tracker.game_over = True
    assert left.decide(T0) is None
    over = MatchCardsBotSeat(TABLE, "bot")
    over.tracker.started, over.tracker.game_over = True, True
    assert over.decide(0) is None
    assert over.refused(BotCall(TURN_CARD, W()), "not_seated", "FAILED_PRECONDITION") is (
        Reaction.STOP
    )


def test_a_fresh_seat_follows_its_own_table_and_has_decided_nothing() -> None:
    seat = MatchCardsBotSeat(TABLE, "bot")
    assert (seat.tracker.player, seat.tracker.table_id) == ("bot", TABLE)
    assert seat.rng.random() == bot.seat_rng(TABLE, "bot", "play").random()
    assert seat.memory_rng.random() == bot.seat_rng(TABLE, "bot", "memory").random()
    assert seat.think_rng.random() == bot.seat_rng(TABLE, "bot", "think").random()
    never = BotCall(TURN_CARD, match_cards_service_pb2.TurnCardRequest(table_id=TABLE, card=1))
    assert seat.still(never, 0) is False


def test_a_seat_that_remembers_a_whole_group_turns_it_first_and_knows_where_to_go() -> None:
    table = start(Settings(), Strength.STRONG)
    s = table.seat
    pair = table.game.groups()[3]
    picture = table.game.cards[pair[0] - 1]
    s.memory = {pair[1]: picture, pair[0]: picture}  # in the order remembered
    call = s.decide(T0)
    assert call is not None
    request = call.request
    assert isinstance(request, match_cards_service_pb2.TurnCardRequest)
    think = bot.think_ms(bot.seat_rng(TABLE, "bot", "think"), 1.0, bot.Think.KNOWN)
    assert (request.card, call.at_ms) == (pair[1], T0 + think)


def test_a_later_card_it_does_not_remember_is_thought_over_as_a_later_one() -> None:
    """The first card of an attempt (not remembered) is Think.NEW, the second Think.NEXT."""
    table = start(Settings(), Strength.STRONG)
    s = table.seat
    first = s.decide(T0)
    assert first is not None
    request = first.request
    assert isinstance(request, match_cards_service_pb2.TurnCardRequest)
    table.stream(table.envelopes(table.game.turn(request.card, first.at_ms, "bot")))
    second = s.decide(first.at_ms)
    assert second is not None
    think = bot.seat_rng(TABLE, "bot", "think")
    new = bot.think_ms(think, 1.0, bot.Think.NEW)
    later = bot.think_ms(think, 1.0, bot.Think.NEXT)
    assert (first.at_ms, second.at_ms) == (T0 + new, T0 + new + later)


def test_each_event_of_a_batch_is_looked_at_and_the_latest_time_returned() -> None:
    """Another player's progress and table news in the middle of a batch do not hide the
    seat's own card after them; news other than BotsAssigned shows no strength."""
    seat = MatchCardsBotSeat(TABLE, "bot", forced=Strength.STRONG)
    game = Game(Settings(), players=("bot", "ann"))
    table = Table(seat, game)
    table.stream(table.envelopes(game.events))
    groups = game.groups()
    ann = table.envelopes(game.turn(groups[0][0], T0 + 1, "ann"))
    table.number += 1
    seated = common_pb2.TableEvent.PlayerSeated(player_id="cat", display_name="Cat")
    news = common_pb2.EventEnvelope(
        event_number=table.number,
        table_id=TABLE,
        server_time_ms=T0 + 2,
        table=common_pb2.TableEvent(player_seated=seated),
    )
    card = groups[1][0]
    mine = table.envelopes(game.turn(card, T0 + 3, "bot"))
    assert seat.observe_events([*ann, news, *mine]) == T0 + 3
    assert seat.memory == {card: game.cards[card - 1]}  # kept at 95 %: this draw keeps it
    assert seat.shown is None and seat.strength is Strength.STRONG


def test_events_without_a_server_time_give_zero() -> None:
    """0, which the bot's clock passes over (1 would put the server's clock in 1970)."""
    seat = MatchCardsBotSeat(TABLE, "bot")
    assert seat.observe_events([]) == 0
    call = BotCall(TURN_CARD, match_cards_service_pb2.TurnCardRequest(table_id=TABLE, card=1))
    assert seat.answered(call, match_cards_service_pb2.TurnCardResponse()) == 0


def test_an_event_of_a_kind_it_does_not_know_teaches_it_nothing() -> None:
    """A newer server's event (a field number this build has not heard of: no kind set) is
    passed over, as the client's tracker passes it over; the seat plays on."""
    table = start(Settings(), Strength.STRONG)
    s = table.seat
    table.number += 1
    unknown = common_pb2.EventEnvelope(
        event_number=table.number, table_id=TABLE, server_time_ms=T0 + 7
    )
    unknown.match_cards.MergeFromString(bytes([0xC2, 0x3E, 0x00]))  # field 1000, empty
    assert unknown.match_cards.WhichOneof("event") is None
    assert s.observe(W(event=unknown)) == T0 + 7
    assert s.memory == {} and s.event_number == table.number
    assert s.decide(T0 + 7) is not None
