"""Concentration in the terminal and for scripts: the table as a seat follows it, its lines, and
one seat played (``match play --game concentration``; the full-screen view is
``match_client.concentration.screen``).

``ConcentrationTracker`` folds what the server sends (Watch events, snapshots, FlipCard replies)
into the table as everybody sees it: the cards (down, up, taken), whose turn it is and until
when, each seat's pairs and tries, who the CPU plays and who dropped, the final standings and
the seed. It also remembers every face it saw flipped (``faces``): a card turned back down
shows no face, and remembering it is the game. No rule is judged here.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from match.v1 import common_pb2, concentration_pb2
from match_client.client import (
    MatchClient,
    Seat,
    error_details,
    is_rpc_error,
    refusal_code,
    status_name,
)
from match_client.clock import ServerClock
from match_client.following import TableFollower
from match_client.session import GameSession
from match_client.terminal import line_mode
from match_rules.words import count

View = concentration_pb2.ConcentrationView
Settings = concentration_pb2.ConcentrationSettings
Out = Callable[[str], None]
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
# Beyond the table's last event: the server answers with a snapshot of the table as it is now.
SNAPSHOT = 2**63 - 1

DOWN, UP, TAKEN = "down", "up", "taken"


def deck_size(settings: Settings) -> int:
    return (settings.cards or 52) + (2 if settings.jokers else 0)


def columns(size: int) -> int:
    """How many cards a row of the layout has: 13 for 52 cards, 9 for 36, 6 for 24..."""
    for across in (13, 9, 6):
        if size % across == 0 and size // across <= 6:
            return across
    return min(size, max(1, math.ceil(math.sqrt(size * 2))))


@dataclass(slots=True)
class Card:
    number: int
    state: str = DOWN
    face: str = ""  # while up or taken
    taken_by: str = ""


@dataclass(slots=True)
class SeatLine:
    player: str
    name: str = ""
    pairs: int = 0
    tries: int = 0
    cpu: bool = False
    takeover_at_ms: int = 0  # dropped: the CPU takes the seat then unless they return


@dataclass
class ConcentrationTracker(TableFollower):
    SLUG: ClassVar[str] = "concentration"

    settings: Settings = field(default_factory=Settings)
    cards: dict[int, Card] = field(default_factory=dict)
    seats: list[SeatLine] = field(default_factory=list)
    turn: str = ""
    deadline_ms: int = 0
    turn_down_at_ms: int = 0
    started: bool = False
    game_over: bool = False
    standings: list[concentration_pb2.ConcentrationStanding] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)
    draw: bool = False
    faces: dict[int, str] = field(default_factory=dict)  # every face seen flipped, by card

    # --- folding -----------------------------------------------------------------------------

    def seat(self, player: str) -> SeatLine | None:
        return next((s for s in self.seats if s.player == player), None)

    def _settings(self, settings: Settings) -> None:
        self.settings = settings

    def apply_snapshot(self, view: View) -> None:
        self.table_id = view.table_id or self.table_id
        self.event_number = view.event_number
        self.server_time_ms = view.server_time_ms
        self.settings = view.settings
        self.started = view.phase != View.PHASE_WAITING_FOR_PLAYERS
        self.game_over = view.phase == View.PHASE_GAME_OVER
        self.cards = {}
        for c in view.cards:
            state = {View.CARD_STATE_UP: UP, View.CARD_STATE_TAKEN: TAKEN}.get(c.state, DOWN)
            self.cards[c.card] = Card(c.card, state, c.face, c.taken_by)
            if c.face:
                self.faces[c.card] = c.face
        self.seats = []
        for s in view.seats:
            if s.display_name:
                self.names[s.player] = s.display_name
            self.seats.append(
                SeatLine(s.player, s.display_name, s.pairs, s.tries, s.cpu, s.takeover_at_ms)
            )
        self.turn = view.turn
        self.deadline_ms = view.deadline_ms
        self.turn_down_at_ms = view.turn_down_at_ms
        self.standings = list(view.standings)
        self.winners = list(view.winners)
        self.draw = view.draw
        self.commitment = view.commitment or self.commitment
        if view.HasField("seed"):
            self.seed = bytes(view.seed)

    def _game(self, event: concentration_pb2.ConcentrationEvent) -> None:
        kind = event.WhichOneof("event")
        e: Any = getattr(event, kind) if kind else None
        if kind == "game_started":
            self.started = True
            self.settings = e.settings
            self.deal_version = e.deal_version or self.deal_version
            self.cards = {n: Card(n) for n in range(1, deck_size(e.settings) + 1)}
            self.seats = [SeatLine(p, self.names.get(p, ""), cpu=p in e.cpus) for p in e.players]
        elif kind == "turn_began":
            self.turn = event.turn_began.player
            self.deadline_ms = event.turn_began.deadline
            self.turn_down_at_ms = 0
        elif kind == "card_flipped":
            self.cards[e.card] = Card(e.card, UP, e.face)
            self.faces[e.card] = e.face
        elif kind == "second_card_due":
            self.deadline_ms = event.second_card_due.deadline
        elif kind == "pair_taken":
            for n in e.cards:
                self.cards[n] = Card(n, TAKEN, self.faces.get(n, ""), e.player)
            self._count(e.player, pairs=e.pairs, tries=e.tries)
        elif kind == "attempt_missed":
            self.turn_down_at_ms = e.turn_down_at
            self.deadline_ms = 0
            self._count(e.player, tries=e.tries)
        elif kind == "cards_turned_down":
            for n in event.cards_turned_down.cards:
                self.cards[n] = Card(n)
            self.turn_down_at_ms = 0
        elif kind == "time_ran_out":
            if e.HasField("card"):
                self.cards[e.card] = Card(e.card)
            self._count(e.player, tries=e.tries)
        elif kind == "player_dropped":
            seat = self.seat(event.player_dropped.player)
            if seat is not None:
                seat.takeover_at_ms = event.player_dropped.takeover_at
        elif kind == "player_returned":
            seat = self.seat(event.player_returned.player)
            if seat is not None:
                seat.takeover_at_ms = 0
        elif kind == "seat_handed_to_cpu":
            seat = self.seat(event.seat_handed_to_cpu.player)
            if seat is not None:
                seat.cpu, seat.takeover_at_ms = True, 0
        elif kind == "game_ended":
            self.game_over = True
            self.turn = ""
            self.deadline_ms = 0
            self.standings = list(e.standings)
            self.winners = list(e.winners)
            self.draw = e.draw

    def _count(self, player: str, *, pairs: int | None = None, tries: int | None = None) -> None:
        seat = self.seat(player)
        if seat is None:
            return
        if pairs is not None:
            seat.pairs = pairs
        if tries is not None:
            seat.tries = tries

    # --- what a player knows -------------------------------------------------------------------

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def up(self) -> list[int]:
        return sorted(n for n, c in self.cards.items() if c.state == UP)

    @property
    def my_turn(self) -> bool:
        return bool(self.player) and self.turn == self.player and not self.turn_down_at_ms

    @property
    def i_am_cpu(self) -> bool:
        seat = self.seat(self.player)
        return seat is not None and seat.cpu

    def known_pair(self, besides: Sequence[int] = ()) -> tuple[int, int] | None:
        """Two face-down cards whose faces this seat saw and that are the same face."""
        by_face: dict[str, list[int]] = {}
        for n, face in sorted(self.faces.items()):
            card = self.cards.get(n)
            if card is not None and card.state == DOWN and n not in besides:
                by_face.setdefault(face, []).append(n)
        return next(((c[0], c[1]) for c in by_face.values() if len(c) >= 2), None)

    def partner_of(self, first: int) -> int | None:
        """A face-down card seen with the same face as ``first`` (identical matching)."""
        face = self.faces.get(first)
        for n, seen in sorted(self.faces.items()):
            card = self.cards.get(n)
            if n != first and seen == face and card is not None and card.state == DOWN:
                return n
        return None

    def unknown(self, besides: Sequence[int] = ()) -> list[int]:
        """Face-down cards whose face this seat never saw."""
        return [
            n
            for n, c in sorted(self.cards.items())
            if c.state == DOWN and n not in self.faces and n not in besides
        ]

    def face_down(self, besides: Sequence[int] = ()) -> list[int]:
        return [n for n, c in sorted(self.cards.items()) if c.state == DOWN and n not in besides]


# --- lines ---------------------------------------------------------------------------------


def card_label(card: Card) -> str:
    if card.state == TAKEN:
        return "  ·  "
    if card.state == UP:
        return f"{card.face:^5}"
    return f"{card.number:^5}"


def board_lines(t: ConcentrationTracker) -> list[str]:
    """The layout, row by row: numbers face down, faces up, dots for taken places."""
    if not t.cards:
        return ["no cards yet: the game has not started"]
    across = columns(t.size)
    numbers = sorted(t.cards)
    return [
        " ".join(f"[{card_label(t.cards[n])}]" for n in numbers[i : i + across])
        for i in range(0, len(numbers), across)
    ]


def seat_lines(t: ConcentrationTracker, now_ms: int = 0) -> list[str]:
    out = []
    for s in t.seats:
        marks = []
        if s.player == t.turn:
            marks.append("to play")
        if s.cpu:
            marks.append("CPU")
        if s.takeover_at_ms:
            left = max(0, s.takeover_at_ms - now_ms) // 1000 if now_ms else 0
            marks.append(f"dropped, CPU in {left} s" if now_ms else "dropped")
        mark = f" ({', '.join(marks)})" if marks else ""
        out.append(f"{t.name(s.player)}: {_score(s.pairs, s.tries)}{mark}")
    return out


def clock_line(t: ConcentrationTracker, now_ms: int) -> str:
    if t.game_over:
        return "the game is over"
    if not t.started:
        return "waiting for players"
    whose = "your" if t.turn == t.player and t.player else f"{t.name(t.turn)}'s"
    if t.turn_down_at_ms:
        return f"{whose} miss is showing"
    if t.deadline_ms:
        left = max(0, t.deadline_ms - now_ms) / 1000
        return f"{whose} turn: {left:.0f} s left to flip"
    return f"{whose} turn"


def standings_lines(t: ConcentrationTracker) -> list[str]:
    if not t.standings:
        return []
    out = ["final standings:"]
    for s in t.standings:
        win = " (winner)" if s.player in t.winners and not t.draw else ""
        out.append(f"  {s.place}. {t.name(s.player)}: {_score(s.pairs, s.tries)}{win}")
    if t.draw:
        out.append("  a draw: everybody tied")
    return out


def seed_lines(t: ConcentrationTracker) -> list[str]:
    if t.seed is None:
        return ["the seed was not published"]
    out = [f"published seed: {t.seed.hex()} ({t.deal_version})"]
    if t.commitment:
        ok = hashlib.sha256(t.seed).hexdigest() == t.commitment
        out.append(f"its SHA-256 {'matches' if ok else 'DOES NOT match'} the commitment")
    return out


def event_lines(env: common_pb2.EventEnvelope, t: ConcentrationTracker) -> list[str]:
    """What to say about one event (already folded into ``t``)."""
    if env.HasField("table"):
        e = env.table
        kind = e.WhichOneof("event")
        if kind == "player_seated":
            bot = " (CPU)" if e.player_seated.is_bot else ""
            return [f"{e.player_seated.display_name}{bot} sits at seat {e.player_seated.seat}"]
        if kind == "seed_revealed":
            return ["the seed is published"]
        return []
    if not env.HasField("concentration"):
        return []
    event = env.concentration
    kind = event.WhichOneof("event")
    body: Any = getattr(event, kind) if kind else None
    if body is None:
        return []
    if kind == "game_started":
        return [f"the game starts: {t.size} cards, {len(body.players)} players"]
    if kind == "turn_began":
        return [f"{t.name(body.player)} to play" if body.player != t.player else "your turn"]
    if kind == "card_flipped":
        return [f"{t.name(body.player)} flipped card {body.card}: {body.face}"]
    if kind == "pair_taken":
        return [f"{t.name(body.player)} took a pair ({_score(body.pairs, body.tries)})"]
    if kind == "attempt_missed":
        return [f"{t.name(body.player)} missed"]
    if kind == "time_ran_out":
        return [f"{t.name(body.player)} ran out of time"]
    if kind == "player_dropped":
        return [f"{t.name(body.player)} dropped; the CPU takes the seat unless they return"]
    if kind == "player_returned":
        return [f"{t.name(body.player)} is back"]
    if kind == "seat_handed_to_cpu":
        return [f"the CPU plays {t.name(body.player)}'s seat from now on"]
    if kind == "game_ended":
        return ["the game is over", *standings_lines(t)]
    return []


HELP = (
    "type a card's number and Enter to flip it on your turn; b shows the cards, s the seats, "
    "t the clock; Ctrl-D leaves (the CPU takes your seat if you do not come back)"
)


# --- one seat played -----------------------------------------------------------------------


class ConcentrationPlay:
    """One seat of Concentration played from the terminal: follows the stream (resuming after
    a drop), sends the flips typed, tells what happened through ``out``. ``audit`` is the line
    that says how to check the game against the ledger, told after the seed at the end."""

    def __init__(
        self,
        client: MatchClient,
        seat: Seat,
        out: Out,
        clock: ServerClock,
        *,
        audit: str = "",
        show_board: bool = True,
        resumed: bool = False,
    ) -> None:
        self.seat = seat
        self.session = GameSession.of(client, "concentration", seat)
        self.tracker = ConcentrationTracker(player=seat.player_id, table_id=seat.table_id)
        self.clock = clock
        self.out = out
        self.audit = audit
        self.show_board = show_board
        self.resumed = resumed
        self.changed: Callable[[], None] = lambda: None
        self.ended = False

    def now(self) -> int:
        return self.clock.now()

    def take(self, envelopes: Sequence[common_pb2.EventEnvelope]) -> None:
        t = self.tracker
        flipped = False
        for env in t.apply_events(envelopes):
            self.clock.observe(env.server_time_ms)
            for line in event_lines(env, t):
                self.out(line)
            flipped = flipped or env.concentration.WhichOneof("event") in (
                "card_flipped",
                "cards_turned_down",
                "pair_taken",
            )
        if flipped and self.show_board:
            for line in board_lines(t):
                self.out(line)
        self.changed()

    async def watch(self) -> None:
        failures = 0
        while not self.ended:
            t = self.tracker
            start = t.event_number or (SNAPSHOT if self.resumed else 0)
            try:
                async for item in self.session.watch(start, skip_answered=True):
                    failures = 0
                    if item.HasField("snapshot"):
                        t.apply_snapshot(item.snapshot)
                        self.clock.observe(item.snapshot.server_time_ms)
                        if self.show_board:
                            for line in board_lines(t) + seat_lines(t):
                                self.out(line)
                        self.changed()
                    else:
                        self.take([item.event])
                if t.game_over:
                    self.finish()
                    return
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                if status_name(err) in PERMANENT:
                    self.out(f"cannot follow the table: {error_details(err)}")
                    return
                failures += 1
                if failures == 1:
                    self.out("connection lost; reconnecting")
            await asyncio.sleep(min(0.5 * 2 ** min(failures, 4), 5.0))

    def finish(self) -> None:
        if self.ended:
            return
        self.ended = True
        for line in seed_lines(self.tracker):
            self.out(line)
        if self.audit:
            self.out(self.audit)
        self.changed()

    async def flip(self, card: int) -> None:
        try:
            reply = await self.session.send("FlipCard", card=card)
        except Exception as err:
            if not is_rpc_error(err):
                raise
            code = refusal_code(err)
            self.out(f"refused: {error_details(err)} ({code or status_name(err).lower()})")
            return
        self.take(list(reply.events))

    async def handle(self, line: str) -> None:
        text = line.strip().lower()
        if not text:
            return
        if text.isdigit():
            await self.flip(int(text))
        elif text in ("?", "h", "help"):
            self.out(HELP)
        elif text in ("b", "board"):
            for row in board_lines(self.tracker):
                self.out(row)
        elif text in ("s", "seats", "scores"):
            for row in seat_lines(self.tracker, self.now()) + standings_lines(self.tracker):
                self.out(row)
        elif text in ("t", "time"):
            self.out(clock_line(self.tracker, self.now()))
        else:
            self.out(f"not a command: {line.strip()!r}. Type ? for help")
        self.changed()

    async def run_lines(self) -> int:
        """The line mode: stdin in a thread, the stream in a task."""
        self.out(HELP)
        return await line_mode(self.watch, self.handle, self.out)


def settings_from(
    cards: int | None, playing_cards: bool, jokers: bool, matching: str | None, turn_limit: int
) -> Settings:
    """The settings of a new table from the command line's options (unset: the defaults)."""
    settings = Settings(cards=cards or 0, jokers=jokers, turn_limit_ms=turn_limit * 1000)
    if playing_cards:
        settings.pictures = Settings.PICTURES_PLAYING_CARDS
    if matching:
        settings.matching = {
            "identical": Settings.MATCHING_IDENTICAL,
            "rank-and-colour": Settings.MATCHING_RANK_AND_COLOUR,
            "rank": Settings.MATCHING_RANK,
        }[matching]
    return settings


def say(line: str) -> None:
    print(line, flush=True)


def _score(pairs: int, tries: int) -> str:
    return f"{count(pairs, 'pair')}, {count(tries, 'try', 'tries')}"
