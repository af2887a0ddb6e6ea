"""Concentration behind the game seam: ``GAME`` (see :mod:`match_rules.game`).

Everything the shells need, in wire terms: settings (validated, defaults filled in), the deal
(``concentration-deal-v1``), the decider, the codec of ``ConcentrationEvent``, redaction (none
needed: every event is public), the replies, the snapshot (``ConcentrationView``) and results.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import replace

from google.protobuf import unknown_fields  # type: ignore[attr-defined]
from google.protobuf.message import Message

from match.v1 import common_pb2, concentration_command_pb2, concentration_pb2
from match_rules.concentration import commands as cmd
from match_rules.concentration import describe as told
from match_rules.concentration import events as ev
from match_rules.concentration.deal import CPU_SEED_BYTES, DEAL_VERSION, deal
from match_rules.concentration.decide import RULES
from match_rules.concentration.errors import ConcentrationCode
from match_rules.concentration.settings import (
    DECK_SIZES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Matching,
    Pictures,
    Settings,
    check,
)
from match_rules.concentration.state import ConcentrationState, Phase, initial_state
from match_rules.concentration.view import CardState, player_view, redact
from match_rules.deal import Strength
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
from match_rules.protocodec import Codec
from match_rules.words import count

WireSettings = concentration_pb2.ConcentrationSettings
View = concentration_pb2.ConcentrationView
Reply = concentration_command_pb2.ConcentrationCommandReply

# A table of two or more counts for a rating only when each player made at least this many
# tries (two cards flipped) of their own (docs/rules-concentration.md).
RATED_TRIES = 3

CODEC = Codec(
    concentration_pb2.ConcentrationEvent,
    typing.get_args(ev.Event),
    {
        Pictures: (WireSettings.Pictures, "PICTURES_"),
        Matching: (WireSettings.Matching, "MATCHING_"),
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
    CardState.TAKEN: View.CARD_STATE_TAKEN,
}


def to_settings(wire: WireSettings) -> Settings:
    """The domain settings of resolved wire settings (see :meth:`Concentration.settings`)."""
    return Settings(
        Pictures[WireSettings.Pictures.Name(wire.pictures).removeprefix("PICTURES_")],
        wire.cards,
        wire.jokers,
        Matching[WireSettings.Matching.Name(wire.matching).removeprefix("MATCHING_")],
        wire.turn_limit_ms,
    )


def to_wire_settings(settings: Settings) -> WireSettings:
    out = WireSettings()
    CODEC.fill(out, settings)
    return out


def _invalid(message: str) -> RuleError:
    return RuleError(Code.INVALID_SETUP, message)


class Concentration(BaseGame):
    """Concentration, as the shells see it."""

    rules = RULES
    told = told

    kind: int = common_pb2.GAME_KIND_CONCENTRATION
    slug: str = "concentration"
    title: str = "Concentration"
    min_seats: int = MIN_PLAYERS
    max_seats: int = MAX_PLAYERS
    deal_version: str = DEAL_VERSION
    cpu_fills: bool = True
    leave_instead: str = (
        "stop following the table instead (close the game or its Watch stream): at a table of "
        "two or more a CPU player takes your seat 30 s later, and solo the board waits as you "
        "left it"
    )
    public_watch: bool = True  # every flip is seen by everyone at the table
    by_type = PrivateByType(CODEC)  # every event is public
    watch_snapshots: bool = True
    command_message: type[Message] = concentration_command_pb2.ConcentrationCommand
    reply_message: type[Message] = Reply
    bot: Bot | None = None  # its CPU seats are played by the rules (cpu.py), not the bot service

    # --- settings ----------------------------------------------------------------------------

    def settings(self, wire: Message | None) -> WireSettings:
        """Defaults: unset pictures are emoji, 0 cards are 52, unset matching is identical."""
        if wire is None:
            wire = WireSettings()
        if not isinstance(wire, WireSettings):
            raise _invalid(
                f"a Concentration table takes ConcentrationSettings, not {type(wire).__name__}"
            )
        unknown = sorted({f.field_number for f in unknown_fields.UnknownFieldSet(wire)})
        if unknown:
            raise _invalid(
                f"this server knows no Concentration setting numbered {unknown}: "
                "leave them out (a newer client?)"
            )
        out = WireSettings()
        out.CopyFrom(wire)
        if out.pictures not in WireSettings.Pictures.values():
            raise RuleError(
                Code.INVALID_PICTURES,
                f"card pictures are emoji or playing cards; {out.pictures} is neither",
            )
        if out.matching not in WireSettings.Matching.values():
            raise RuleError(
                ConcentrationCode.INVALID_MATCHING,
                f"matching is identical, rank and colour, or rank; {out.matching} is none of them",
            )
        if out.pictures == WireSettings.PICTURES_UNSPECIFIED:
            out.pictures = WireSettings.PICTURES_EMOJI
        if out.matching == WireSettings.MATCHING_UNSPECIFIED:
            out.matching = WireSettings.MATCHING_IDENTICAL
        if out.cards == 0:
            out.cards = DECK_SIZES[0]
        check(to_settings(out))
        return out

    # --- the deal ----------------------------------------------------------------------------

    def deal(self, seed: bytes, settings: Message) -> concentration_pb2.ConcentrationDeal:
        dealt = deal(seed, to_settings(self.settings(settings)))
        return concentration_pb2.ConcentrationDeal(
            cards=dealt.cards, cpu_strength=dealt.cpu_strength.value, cpu_seed=dealt.cpu_seed
        )

    # --- the decider -------------------------------------------------------------------------

    def initial_state(self, deal: Message | None) -> ConcentrationState:
        state = initial_state()
        return state if deal is None else self.with_deal(state, deal)

    def with_deal(self, state: ConcentrationState, deal: Message) -> ConcentrationState:
        if not isinstance(deal, concentration_pb2.ConcentrationDeal):
            raise ValueError(f"not a Concentration deal: {type(deal).__name__}")
        strengths = {s.value: s for s in Strength}
        if deal.cpu_strength not in strengths:
            raise ValueError(f"a deal's CPU strength is one of {sorted(strengths)}")
        if len(deal.cpu_seed) != CPU_SEED_BYTES:
            raise ValueError(f"a deal's CPU seed has {CPU_SEED_BYTES} bytes")
        if not deal.cards or (state.players and len(deal.cards) != state.size):
            raise ValueError(f"the deal has {len(deal.cards)} cards, the game {state.size}")
        return replace(
            state,
            cards=tuple(deal.cards),
            cpu_seed=bytes(deal.cpu_seed),
            cpu_strength=strengths[deal.cpu_strength],
        )

    def start(
        self, now: int, seats: Sequence[SeatInfo], settings: Message, deal_version: str
    ) -> cmd.StartGame:
        ordered = sorted(seats, key=lambda s: s.number)
        return cmd.StartGame(
            now,
            tuple(s.player for s in ordered),
            frozenset(s.player for s in ordered if s.is_bot),
            to_settings(self.settings(settings)),
            deal_version,
        )

    def is_started(self, state: ConcentrationState) -> bool:
        return state.phase is not Phase.NOT_STARTED

    # --- the wire ----------------------------------------------------------------------------

    def command(self, wire: Message, now: int) -> cmd.Command:
        if not isinstance(wire, concentration_command_pb2.ConcentrationCommand):
            raise RuleError(
                Code.MALFORMED_REQUEST,
                f"a Concentration table takes ConcentrationCommand, not {type(wire).__name__}",
            )
        if wire.WhichOneof("command") != "flip_card":
            raise RuleError(Code.MALFORMED_REQUEST, "send flip_card with the card to flip")
        return cmd.FlipCard(now, wire.player_id, wire.flip_card.card)

    def presence(self, now: int, player: str, present: bool) -> cmd.Command:
        return cmd.PlayerBack(now, player) if present else cmd.PlayerAway(now, player)

    def encode(self, event: ev.Event) -> concentration_pb2.ConcentrationEvent:
        out: concentration_pb2.ConcentrationEvent = CODEC.to_proto(event)
        return out

    def decode(self, wire: Message) -> ev.Event:
        if not isinstance(wire, concentration_pb2.ConcentrationEvent):
            raise ValueError(f"not a Concentration event: {type(wire).__name__}")
        event: ev.Event = CODEC.from_proto(wire)
        return event

    # --- what each player may see ------------------------------------------------------------

    def redact(self, state_after: ConcentrationState, event: ev.Event, player: str) -> ev.Event:
        """Every event is public. A face travels only in the CardFlipped of its own card (the
        flip everybody saw); anything else is a bug, and is refused here rather than sent."""
        if not isinstance(event, typing.get_args(ev.Event)):
            raise TypeError(f"not an event of Concentration: {event!r}")
        if (
            isinstance(event, ev.CardFlipped)
            and state_after.cards is not None
            and state_after.face(event.card) != event.face
        ):
            raise ValueError(f"card {event.card} was flipped with a face that is not its own")
        return redact(event, player)  # pragma: no mutate (equivalent: every event is public)

    def accepted(
        self,
        events: Sequence[common_pb2.EventEnvelope],
        state: ConcentrationState,
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

    def snapshot(self, state: ConcentrationState, player: str, table: TableContext) -> View:
        view = player_view(state, player)  # pragma: no mutate (equivalent: the same for all)
        out = View(
            table_id=table.table_id,
            event_number=table.event_number,
            server_time_ms=table.server_time_ms,
            phase=_PHASES[view.phase],
            you=player,
            settings=to_wire_settings(view.settings),
            turn=view.turn or "",
            deadline_ms=view.deadline or 0,
            turn_down_at_ms=view.turn_down_at or 0,
            winners=view.winners,
            draw=view.draw,
            commitment=table.commitment,
        )
        for card in view.cards:
            out.cards.add(
                card=card.card,
                state=_CARD_STATES[card.state],
                face=card.face or "",
                taken_by=card.taken_by or "",
            )
        for seat in view.seats:
            out.seats.add(
                player=seat.player,
                display_name=table.names.get(seat.player, ""),  # pragma: no mutate (None is "")
                pairs=seat.pairs,
                tries=seat.tries,
                cpu=seat.cpu,
                takeover_at_ms=seat.takeover_at or 0,
            )
        for standing in view.standings:
            CODEC.fill(out.standings.add(), standing)
        if view.phase is Phase.OVER and table.seed is not None:
            out.seed = table.seed
        return out

    # --- results -----------------------------------------------------------------------------

    def results(self, state: ConcentrationState) -> Results | None:
        if state.phase is not Phase.OVER:
            return None
        figures = [Figure(s.player, "pairs", s.pairs, Keep.SUM) for s in state.standings]
        entries: tuple[Entry, ...] = ()
        if len(state.players) == 1:
            # Solo: the game ends only once every card is taken, so it is always won; its
            # record is the tries, per deck size (cards on the table, jokers included). A table
            # of two or more is ranked by its rating on the main board, and has no other.
            (solo,) = state.standings
            cards = f"{state.settings.deck_size}-cards"
            figures += [
                Figure(solo.player, f"best_tries/{cards}", solo.tries, Keep.MIN),
                Figure(solo.player, "tries", solo.tries, Keep.SUM),
            ]
            entries = (Entry(f"solo-{cards}", solo.player, solo.tries, "tries", True),)
        return Results(
            tuple(
                Standing(
                    s.player,
                    s.place,
                    s.pairs,
                    f"{count(s.pairs, 'pair')}, {count(s.tries, 'try', 'tries')}",
                )
                for s in state.standings
            ),
            state.draw,
            winners=frozenset() if state.draw else frozenset(state.winners),
            figures=tuple(figures),
            entries=entries,
            moves=tuple(Moves(s.player, s.tries) for s in state.standings),
            rated_moves=RATED_TRIES,
        )

    # --- the replay ----------------------------------------------------------------------------

    def describe_settings(self, settings: Message) -> str:
        assert isinstance(settings, WireSettings)
        return told.settings_text(to_settings(settings))


GAME: Game = Concentration()
