"""MATCH 5 behind the game seam: ``GAME`` (see :mod:`match_rules.game`).

Settings (validated, defaults filled in: the 3-minute sand timer, 45 s a combination), the deal
(``match-five-deal-v1``: the dice and both rounds' rolls), the decider, the codec of
``MatchFiveEvent``, redaction (a link written or erased to its author,
:class:`~match_rules.match_five.events.WritingProgress` to everybody else), the replies, the
snapshot (``MatchFiveView``) and results. No bot writes links (``bot`` None), no CPU fills a
seat: the game starts when the last seat is taken, and a player who drops is not replaced: the
timers end the writing and every vote without them.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import replace

from google.protobuf import unknown_fields  # type: ignore[attr-defined]
from google.protobuf.message import Message

from match.v1 import common_pb2, match_five_command_pb2, match_five_pb2, match_five_service_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import (
    BaseGame,
    Bot,
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
from match_rules.match_five import commands as cmd
from match_rules.match_five import deal as dealing
from match_rules.match_five import describe as told
from match_rules.match_five import events as ev
from match_rules.match_five.decide import RULES
from match_rules.match_five.settings import (
    LINK_MAX_CHARS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Settings,
    check,
)
from match_rules.match_five.state import MatchFiveState, Phase, initial_state
from match_rules.match_five.view import player_view, redact
from match_rules.protocodec import Codec
from match_rules.words import count

WireSettings = match_five_pb2.MatchFiveSettings
WireEvent = match_five_pb2.MatchFiveEvent
WireDeal = match_five_pb2.MatchFiveDeal
View = match_five_pb2.MatchFiveView
Command = match_five_command_pb2.MatchFiveCommand
Reply = match_five_command_pb2.MatchFiveCommandReply
DEAL_VERSION = dealing.DEAL_VERSION
# A game counts for a rating only when each player wrote at least this many links over its two
# rounds (docs/rules-match-5.md): a sheet left blank is not a game played.
RATED_LINKS = 3
_DEFAULTS = Settings()

CODEC = Codec(WireEvent, (*typing.get_args(ev.Event), ev.WritingProgress))

_PHASES = {
    Phase.NOT_STARTED: View.PHASE_WAITING_FOR_PLAYERS,
    Phase.WRITING: View.PHASE_WRITING,
    Phase.READING: View.PHASE_READING,
    Phase.OVER: View.PHASE_GAME_OVER,
}


def to_settings(wire: WireSettings) -> Settings:
    """The domain settings of resolved wire settings (see :meth:`MatchFive.settings`)."""
    return Settings(wire.writing_seconds, wire.vote_seconds)


def to_wire_settings(settings: Settings) -> WireSettings:
    out = WireSettings()
    CODEC.fill(out, settings)
    return out


def _invalid(message: str) -> RuleError:
    return RuleError(Code.INVALID_SETUP, message)


# A request whose text is longer than this is refused at the edge, never logged: far beyond any
# link. Up to it the referee judges a link (link_too_long and the rest), so that every refusal
# a player can make by mistake reaches them with its own code.
EDGE_MAX_CHARS = 1_000


class MatchFive(BaseGame):
    """MATCH 5, as the shells see it."""

    rules = RULES
    told = told

    kind: int = common_pb2.GAME_KIND_MATCH_FIVE
    slug: str = "match_five"
    title: str = "MATCH 5"
    min_seats: int = MIN_PLAYERS
    max_seats: int = MAX_PLAYERS
    deal_version: str = DEAL_VERSION
    cpu_fills: bool = False  # no CPU and no bot: the game starts when the last seat is taken
    leave_instead: str = (
        "say Done, or simply stop: the timers end the writing and every vote without you "
        "(your links count as written, a vote you do not cast abstains)"
    )
    public_watch: bool = False  # the links are their authors' until read: Watch needs a token
    by_type = PrivateByType(CODEC, ev.PRIVATE_EVENTS)
    watch_snapshots: bool = True
    command_message: type[Message] = Command
    reply_message: type[Message] = Reply

    @property
    def bot(self) -> Bot | None:
        return None  # people judge this game: no bot writes links or votes

    # --- settings ----------------------------------------------------------------------------

    def settings(self, wire: Message | None) -> WireSettings:
        """Defaults: 180 s to write (the sand timer), 45 s to vote on each combination."""
        if wire is None:
            wire = WireSettings()
        if not isinstance(wire, WireSettings):
            raise _invalid(f"a MATCH 5 table takes MatchFiveSettings, not {type(wire).__name__}")
        unknown = sorted({f.field_number for f in unknown_fields.UnknownFieldSet(wire)})
        if unknown:
            raise _invalid(
                f"this server knows no MATCH 5 setting numbered {unknown}: "
                "leave them out (a newer client?)"
            )
        out = WireSettings()
        out.CopyFrom(wire)
        out.writing_seconds = out.writing_seconds or _DEFAULTS.writing_seconds
        out.vote_seconds = out.vote_seconds or _DEFAULTS.vote_seconds
        check(to_settings(out))
        return out

    # --- the deal ----------------------------------------------------------------------------

    def deal(self, seed: bytes, settings: Message) -> WireDeal:
        self.settings(settings)
        dealt = dealing.deal(seed)
        return WireDeal(dice=dealt.dice, faces_1=dealt.faces[0], faces_2=dealt.faces[1])

    # --- the decider -------------------------------------------------------------------------

    def initial_state(self, deal: Message | None) -> MatchFiveState:
        state = initial_state()
        return state if deal is None else self.with_deal(state, deal)

    def with_deal(self, state: MatchFiveState, deal: Message) -> MatchFiveState:
        if not isinstance(deal, WireDeal):
            raise ValueError(f"not a MATCH 5 deal: {type(deal).__name__}")
        dealt = dealing.Deal(tuple(deal.dice), (tuple(deal.faces_1), tuple(deal.faces_2)))
        dealing.check(dealt)
        if state.dice and state.dice != dealt.dice:
            raise ValueError("the deal's dice are not the ones the game started with")
        if state.round and dealt.faces[state.round - 1] != state.faces:
            raise ValueError(f"the deal's roll is not the one round {state.round} shows")
        return replace(state, deal=dealt)

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

    def is_started(self, state: MatchFiveState) -> bool:
        return state.phase is not Phase.NOT_STARTED

    # --- the wire ----------------------------------------------------------------------------

    def command(self, wire: Message, now: int) -> cmd.Command:
        if not isinstance(wire, Command):
            raise RuleError(
                Code.MALFORMED_REQUEST,
                f"a MATCH 5 table takes MatchFiveCommand, not {type(wire).__name__}",
            )
        which = wire.WhichOneof("command")
        player = wire.player_id
        if which == "write_link":
            return cmd.WriteLink(now, player, wire.write_link.combination, wire.write_link.text)
        if which == "erase_link":
            return cmd.EraseLink(now, player, wire.erase_link.combination)
        if which == "done":
            return cmd.Done(now, player)
        if which == "vote":
            return cmd.Vote(now, player, wire.vote.ballot, wire.vote.accept)
        if which == "call_match":
            return cmd.CallMatch(now, player, wire.call_match.ballot)
        raise RuleError(
            Code.MALFORMED_REQUEST,
            "send one of write_link (a combination and its link), erase_link, done, vote (a "
            "ballot, accept or not) or call_match (a ballot)",
        )

    def encode(self, event: ev.Event | ev.WritingProgress) -> WireEvent:
        out: WireEvent = CODEC.to_proto(event)
        return out

    def decode(self, wire: Message) -> ev.Event | ev.WritingProgress:
        if not isinstance(wire, WireEvent):
            raise ValueError(f"not a MATCH 5 event: {type(wire).__name__}")
        event: ev.Event | ev.WritingProgress = CODEC.from_proto(wire)
        return event

    # --- what each player may see ------------------------------------------------------------

    def redact(
        self, state_after: MatchFiveState, event: ev.Event | ev.WritingProgress, player: str
    ) -> ev.Event | ev.WritingProgress:
        if not isinstance(event, (*typing.get_args(ev.Event), ev.WritingProgress)):
            raise TypeError(f"not an event of MATCH 5: {event!r}")
        return redact(state_after, event, player)

    def accepted(
        self,
        events: Sequence[common_pb2.EventEnvelope],
        state: MatchFiveState,
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
        """Only a text no link could ever be: everything else the referee judges, with the
        rules' own codes (combination_out_of_range, link_too_long, ballot_not_open...), which
        an edge refusal would not carry."""
        if (
            isinstance(request, match_five_service_pb2.WriteLinkRequest)
            and len(request.text) > EDGE_MAX_CHARS
        ):
            return (
                f"the link has {len(request.text)} characters: a link has at most {LINK_MAX_CHARS}"
            )
        return None

    def snapshot(self, state: MatchFiveState, player: str, table: TableContext) -> View:
        view = player_view(state, player)
        out = View(
            table_id=table.table_id,
            event_number=table.event_number,
            server_time_ms=table.server_time_ms,
            phase=_PHASES[view.phase],
            you=player,
            settings=to_wire_settings(view.settings),
            round=view.round,
            categories=view.categories,
            deadline_ms=view.deadline,
            combination=view.combination,
            commitment=table.commitment,
        )
        for c in view.combinations:
            out.combinations.add(
                combination=c.combination,
                colours=c.colours,
                categories=c.categories,
                your_link=c.your_link,
            )
        for b in view.ballots:
            CODEC.fill(out.ballots.add(), b)
        for p in view.players:
            out.players.add(
                player=p.player,
                display_name=table.names.get(p.player, ""),  # pragma: no mutate (None is "")
                links=p.links,
                done=p.done,
                total=p.total,
            )
        for closed in view.closed:
            CODEC.fill(out.closed.add(), closed)
        for read in view.read:
            CODEC.fill(out.read.add(), read)
        for scored in view.rounds:
            CODEC.fill(out.rounds.add(), scored)
        for standing in view.standings:
            CODEC.fill(out.standings.add(), standing)
        if view.phase is Phase.OVER and table.seed is not None:
            out.seed = table.seed
        return out

    # --- results -----------------------------------------------------------------------------

    def results(self, state: MatchFiveState) -> Results | None:
        if state.phase is not Phase.OVER:
            return None
        standings = tuple(
            Standing(
                s.player,
                s.place,
                s.points,
                f"{count(s.points, 'point')}, {count(s.matching, 'matching link')}",
            )
            for s in state.standings
        )
        draw = len(standings) >= 2 and all(s.place == 1 for s in standings)
        winners = frozenset() if draw else frozenset(s.player for s in standings if s.place == 1)
        figures = tuple(
            figure
            for s in state.standings
            for figure in (
                Figure(s.player, "points", s.points, Keep.SUM),
                Figure(s.player, "best_points", s.points, Keep.MAX),
                Figure(s.player, "matches", s.matching, Keep.SUM),
            )
        )
        # no entries: the main board is the rating, and the seed keeps no high score
        moves = tuple(Moves(s.player, len(state.sheets.get(s.player, {}))) for s in standings)
        return Results(
            standings, draw, winners=winners, figures=figures, moves=moves, rated_moves=RATED_LINKS
        )

    # --- the replay ----------------------------------------------------------------------------

    def describe_settings(self, settings: Message) -> str:
        assert isinstance(settings, WireSettings)
        return told.settings_text(to_settings(settings))


GAME: Game = MatchFive()
