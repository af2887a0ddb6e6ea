"""Match Cards behind the game seam: ``GAME`` (see :mod:`match_rules.game`).

Settings (validated, defaults filled in, a typed code read), the deal (``match-cards-deal-v2``,
from the whole seed, which the game's code carries), the decider, the codec of
``MatchCardsEvent``, redaction (a player's own events to them,
:class:`~match_rules.match_cards.events.OpponentProgress` to the others), the replies, the
snapshot (``MatchCardsView``, the code once over) and results (a replay is marked and never
ranked).
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import replace

from google.protobuf import unknown_fields  # type: ignore[attr-defined]
from google.protobuf.message import Message

from match.v1 import common_pb2, match_cards_command_pb2, match_cards_pb2, match_cards_service_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import (
    BaseGame,
    Bot,
    Entry,
    Figure,
    Game,
    Keep,
    Moves,
    PrivateByType,
    Results,
    SeatInfo,
    Standing,
    TableContext,
)
from match_rules.match_cards import code as codes
from match_rules.match_cards import commands as cmd
from match_rules.match_cards import deal as dealing
from match_rules.match_cards import describe as told
from match_rules.match_cards import events as ev
from match_rules.match_cards.deal import DEAL_VERSION, deal
from match_rules.match_cards.decide import RULES
from match_rules.match_cards.errors import MatchCardsCode
from match_rules.match_cards.settings import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PICTURES,
    SIZES,
    Difficulty,
    Mode,
    Settings,
    check,
    columns,
)
from match_rules.match_cards.state import MatchCardsState, Phase, initial_state
from match_rules.match_cards.view import CardState, player_view, redact
from match_rules.protocodec import Codec

WireSettings = match_cards_pb2.MatchCardsSettings
View = match_cards_pb2.MatchCardsView
Reply = match_cards_command_pb2.MatchCardsCommandReply
MAX_CARDS = max(max(s) for s in SIZES.values())

# A game of two or more counts for a rating only when each player made at least this many
# attempts (groups found and failed attempts) on their copy (docs/rules-match-cards.md).
RATED_ATTEMPTS = 3

CODEC = Codec(
    match_cards_pb2.MatchCardsEvent,
    (*typing.get_args(ev.Event), ev.OpponentProgress),
    {
        Mode: (WireSettings.Mode, "MODE_"),
        Difficulty: (WireSettings.Difficulty, "DIFFICULTY_"),
    },
)

_PHASES = {
    Phase.NOT_STARTED: View.PHASE_WAITING_FOR_PLAYERS,
    Phase.PLAYING: View.PHASE_PLAYING,
    Phase.OVER: View.PHASE_GAME_OVER,
}
_CARD_STATES = {
    CardState.DOWN: View.CARD_STATE_DOWN,
    CardState.UP: View.CARD_STATE_UP,
    CardState.FOUND: View.CARD_STATE_FOUND,
}


def to_settings(wire: WireSettings) -> Settings:
    """The domain settings of resolved wire settings (see :meth:`MatchCards.settings`)."""
    return Settings(
        Mode[WireSettings.Mode.Name(wire.mode).removeprefix("MODE_")],
        wire.cards,
        Difficulty[WireSettings.Difficulty.Name(wire.difficulty).removeprefix("DIFFICULTY_")],
        wire.pictures,
        wire.code,
    )


def to_wire_settings(settings: Settings) -> WireSettings:
    out = WireSettings()
    CODEC.fill(out, settings)
    return out


def _invalid(message: str) -> RuleError:
    return RuleError(Code.INVALID_SETUP, message)


def _from_code(wire: WireSettings) -> WireSettings:
    """The settings a typed code carries; any other setting given must agree with them."""
    carried = to_wire_settings(codes.parse(wire.code).settings)
    for name in ("mode", "cards", "difficulty", "pictures"):
        given = getattr(wire, name)
        if given and given != getattr(carried, name):
            raise RuleError(
                MatchCardsCode.CODE_CONFLICT,
                f"the code {carried.code} carries its own {name} ({getattr(carried, name)}), "
                f"not {given}: leave {name} unset to replay it",
            )
    return carried


def level(settings: Settings) -> str:
    """The level a game is played at, as its leaderboard and best-time figure name it: the
    board's size, pairs or triples, the difficulty ("level-12-pairs-easy"), which together
    fix the limit of failed attempts. Times are compared only at one level."""
    return f"level-{settings.cards}-{settings.mode.value}-{settings.difficulty.value}"


def _winners(state: MatchCardsState, draw: bool) -> frozenset[str]:
    """A challenge table: the first place, unless all share it (a draw). Solo: the player, if
    they won (found every group within the limit)."""
    if len(state.standings) == 1:
        return frozenset(s.player for s in state.standings if s.won)
    if draw:
        return frozenset()
    return frozenset(s.player for s in state.standings if s.place == 1)


def _figures_and_entries(state: MatchCardsState) -> tuple[tuple[Figure, ...], tuple[Entry, ...]]:
    """Each player's failed attempts, and for a won game the time from the start to the last
    group found: their best at the game's level, on the level's board and on the board of the
    game's published code (a replay of a code is on no board). No main board: times and failed
    attempts compare only at one level, and a challenge table's main board is its rating."""
    name = level(state.settings)
    figures: list[Figure] = []
    entries: list[Entry] = []
    for s in state.standings:
        board = state.board(s.player)
        figures.append(Figure(s.player, "failed_attempts", board.failed, Keep.SUM))
        if not board.won:
            continue
        assert board.finished_at is not None
        time_ms = board.finished_at - state.started_at
        figures.append(Figure(s.player, f"best_time_ms/{name}", time_ms, Keep.MIN))
        if not state.replay:
            entries += [
                Entry(name, s.player, time_ms, "ms", lower_is_better=True),
                Entry(f"code-{state.published_code}", s.player, time_ms, "ms", True),
            ]
    return tuple(figures), tuple(entries)


class MatchCards(BaseGame):
    """Match Cards, as the shells see it."""

    rules = RULES
    told = told

    kind: int = common_pb2.GAME_KIND_MATCH_CARDS
    slug: str = "match_cards"
    title: str = "Match Cards"
    min_seats: int = MIN_PLAYERS
    max_seats: int = MAX_PLAYERS
    deal_version: str = DEAL_VERSION
    cpu_fills: bool = False  # no CPU: a challenge table starts when its last seat is taken
    leave_instead: str = (
        "play your copy to its end (TurnCard), or stop turning cards: whoever has not finished "
        "an hour after the start has lost, and the others play on"
    )
    public_watch: bool = False  # each player's copy is private: Watch needs a seat's token
    by_type = PrivateByType(CODEC, ev.PRIVATE_EVENTS)
    watch_snapshots: bool = True
    command_message: type[Message] = match_cards_command_pb2.MatchCardsCommand
    reply_message: type[Message] = Reply

    @property
    def bot(self) -> Bot:
        """The bot service's player for a challenge table's bot seats (imported when asked for:
        it folds the seat's view with the client's tracker, which the referee never needs)."""
        from match_rules.match_cards.botseat import BOT

        return BOT

    # --- settings ----------------------------------------------------------------------------

    def settings(self, wire: Message | None) -> WireSettings:
        """Defaults: pairs, 12 cards, easy, animals. A ``code`` replaces them with its own."""
        if wire is None:
            wire = WireSettings()
        if not isinstance(wire, WireSettings):
            raise _invalid(
                f"a Match Cards table takes MatchCardsSettings, not {type(wire).__name__}"
            )
        unknown = sorted({f.field_number for f in unknown_fields.UnknownFieldSet(wire)})
        if unknown:
            raise _invalid(
                f"this server knows no Match Cards setting numbered {unknown}: "
                "leave them out (a newer client?)"
            )
        if wire.mode not in WireSettings.Mode.values():
            raise RuleError(
                MatchCardsCode.INVALID_MODE, f"the mode is pairs or triples; {wire.mode} is neither"
            )
        if wire.difficulty not in WireSettings.Difficulty.values():
            raise RuleError(
                MatchCardsCode.INVALID_DIFFICULTY,
                f"the difficulty is easy, medium or hard; {wire.difficulty} is none of them",
            )
        if wire.code:
            return _from_code(wire)
        out = WireSettings()
        out.CopyFrom(wire)
        if out.mode == WireSettings.MODE_UNSPECIFIED:
            out.mode = WireSettings.MODE_PAIRS
        if out.difficulty == WireSettings.DIFFICULTY_UNSPECIFIED:
            out.difficulty = WireSettings.DIFFICULTY_EASY
        if out.cards == 0:
            out.cards = SIZES[Mode.PAIRS][0]
        if not out.pictures:
            out.pictures = "animals"
        check(to_settings(out))
        return out

    # --- the deal ----------------------------------------------------------------------------

    def deal(self, seed: bytes, settings: Message) -> match_cards_pb2.MatchCardsDeal:
        dealt = deal(seed, to_settings(self.settings(settings)))
        return match_cards_pb2.MatchCardsDeal(cards=dealt.cards, code=dealt.code)

    # --- the decider -------------------------------------------------------------------------

    def initial_state(self, deal: Message | None) -> MatchCardsState:
        state = initial_state()
        return state if deal is None else self.with_deal(state, deal)

    def with_deal(self, state: MatchCardsState, deal: Message) -> MatchCardsState:
        if not isinstance(deal, match_cards_pb2.MatchCardsDeal):
            raise ValueError(f"not a Match Cards deal: {type(deal).__name__}")
        if not deal.cards or (state.players and len(deal.cards) != state.size):
            raise ValueError(f"the deal has {len(deal.cards)} cards, the game {state.size}")
        if any(c not in PICTURES for c in deal.cards):
            raise ValueError("the deal names a picture of no set")
        read = codes.parse(deal.code)
        if dealing.deal(read.seed, read.settings).cards != tuple(deal.cards):
            raise ValueError("the deal's cards are not the ones its code deals")
        return replace(state, cards=tuple(deal.cards), code=deal.code)

    def start(
        self, now: int, seats: Sequence[SeatInfo], settings: Message, deal_version: str
    ) -> cmd.StartGame:
        ordered = sorted(seats, key=lambda s: s.number)
        return cmd.StartGame(
            now,
            tuple(s.player for s in ordered),
            to_settings(self.settings(settings)),
            deal_version,
        )

    def is_started(self, state: MatchCardsState) -> bool:
        return state.phase is not Phase.NOT_STARTED

    # --- the wire ----------------------------------------------------------------------------

    def command(self, wire: Message, now: int) -> cmd.Command:
        if not isinstance(wire, match_cards_command_pb2.MatchCardsCommand):
            raise RuleError(
                Code.MALFORMED_REQUEST,
                f"a Match Cards table takes MatchCardsCommand, not {type(wire).__name__}",
            )
        which = wire.WhichOneof("command")
        if which == "turn_card":
            return cmd.TurnCard(now, wire.player_id, wire.turn_card.card)
        if which == "turn_off_notice":
            return cmd.TurnOffNotice(now, wire.player_id)
        raise RuleError(
            Code.MALFORMED_REQUEST, "send turn_card with the card to turn, or turn_off_notice"
        )

    def encode(self, event: ev.Event | ev.OpponentProgress) -> match_cards_pb2.MatchCardsEvent:
        out: match_cards_pb2.MatchCardsEvent = CODEC.to_proto(event)
        return out

    def decode(self, wire: Message) -> ev.Event | ev.OpponentProgress:
        if not isinstance(wire, match_cards_pb2.MatchCardsEvent):
            raise ValueError(f"not a Match Cards event: {type(wire).__name__}")
        event: ev.Event | ev.OpponentProgress = CODEC.from_proto(wire)
        return event

    # --- what each player may see ------------------------------------------------------------

    def redact(
        self, state_after: MatchCardsState, event: ev.Event | ev.OpponentProgress, player: str
    ) -> ev.Event | ev.OpponentProgress:
        if isinstance(event, ev.OpponentProgress):
            # Already what anybody may see: the lobby redacts what it shows again and needs it
            # unchanged (services/lobby/viewer.py, shown_as_is), so redaction is idempotent.
            return event
        if not isinstance(event, typing.get_args(ev.Event)):
            raise TypeError(f"not an event of Match Cards: {event!r}")
        return redact(state_after, event, player)

    def accepted(
        self,
        events: Sequence[common_pb2.EventEnvelope],
        state: MatchCardsState,
        player: str,
        now: int,
        event_number: int,
        commitment: str = "",
    ) -> Reply:
        table = TableContext(
            table_id=events[0].table_id if events else "",
            event_number=event_number,
            server_time_ms=now,
            names={},
            commitment=commitment,
            seed=None,
        )
        return Reply(
            accepted=Reply.Accepted(events=events, view=self.snapshot(state, player, table))
        )

    def check_request(self, request: Message) -> str | RuleError | None:
        if isinstance(request, match_cards_service_pb2.TurnCardRequest) and not (
            1 <= request.card <= MAX_CARDS
        ):
            return RuleError(  # the referee's refusal for a card off the board
                Code.CARD_OUT_OF_RANGE,
                f"cards are numbered from 1 to the board's size (at most {MAX_CARDS}), "
                f"got {request.card}",
            )
        return None

    def snapshot(self, state: MatchCardsState, player: str, table: TableContext) -> View:
        view = player_view(state, player)
        out = View(
            table_id=table.table_id,
            event_number=table.event_number,
            server_time_ms=table.server_time_ms,
            phase=_PHASES[view.phase],
            you=player,
            settings=to_wire_settings(view.settings),
            limit=view.limit,
            groups_total=view.groups_total,
            started_at_ms=view.started_at,
            ends_at_ms=view.ends_at,
            columns=columns(view.settings.cards),
            compare_at_ms=view.compare_at or 0,
            notice_on=view.notice_on,
            code=view.code,
            replay=view.replay,
            commitment=table.commitment,
        )
        for card in view.cards:
            shown = out.cards.add(card=card.card, state=_CARD_STATES[card.state])
            if card.picture is not None:
                shown.picture.id = card.picture
                shown.picture.name = PICTURES[card.picture].name
        if view.notice is not None:
            out.notice.cards.extend(view.notice[0])
            out.notice.same = view.notice[1]
        for p in view.players:
            out.players.add(
                player=p.player,
                display_name=table.names.get(p.player, ""),  # pragma: no mutate (None is "")
                turned=p.turned,
                groups=p.groups,
                failed=p.failed,
                finished=p.finished,
                won=p.won,
                time_ms=p.time_ms or 0,
            )
        for standing in view.standings:
            CODEC.fill(out.standings.add(), standing)
        if view.phase is Phase.OVER and table.seed is not None:
            out.seed = table.seed
        return out

    # --- results -----------------------------------------------------------------------------

    def results(self, state: MatchCardsState) -> Results | None:
        if state.phase is not Phase.OVER:
            return None
        total = state.settings.groups
        replay = ", a replay (not ranked)" if state.replay else ""
        standings = tuple(
            Standing(
                s.player,
                s.place,
                s.groups,
                f"{'won' if s.won else 'lost'}: {s.groups} of {total} found, {s.failed} of "
                f"{state.limit} failed, {s.time_ms / 1000:.1f} s{replay}",
            )
            for s in state.standings
        )
        draw = len(standings) >= 2 and all(s.place == 1 for s in standings)
        figures, entries = _figures_and_entries(state)
        return Results(
            standings,
            draw,
            ranked=not state.replay,
            winners=_winners(state, draw),
            figures=figures,
            entries=entries,
            moves=tuple(Moves(s.player, s.groups + s.failed) for s in state.standings),
            rated_moves=RATED_ATTEMPTS,
        )

    # --- the replay ----------------------------------------------------------------------------

    def describe_settings(self, settings: Message) -> str:
        assert isinstance(settings, WireSettings)
        return told.settings_text(to_settings(settings))


GAME: Game = MatchCards()
