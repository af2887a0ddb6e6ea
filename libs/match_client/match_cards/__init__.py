"""Match Cards in the terminal and for scripts: one player's copy as their stream tells it, its
lines, and one seat played (``match play --game match-cards``).

``MatchCardsTracker`` folds what the server sends this seat (Watch snapshots and events, the
replies to TurnCard and TurnOffNotice) into what the player may see: their own cards (a picture
only while it is turned or found), the counters (groups found of the total, the time, failed
attempts of the limit), the compare in progress, Hard's notice, the others' progress at a
challenge table, and at the end the standings and the game's code. It also keeps every picture
this seat saw turned (``seen``): a card turned back down shows none, and remembering it is the
game. No rule is judged here: the referee decides.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from match.v1 import common_pb2, lobby_pb2, match_cards_pb2
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
from match_rules.match_cards.settings import PICTURES
from match_rules.words import count

View = match_cards_pb2.MatchCardsView
Settings = match_cards_pb2.MatchCardsSettings
Out = Callable[[str], None]
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
SNAPSHOT = 2**63 - 1  # beyond the last event: the server answers with a snapshot

DOWN, UP, FOUND = "down", "up", "found"
# Cards per row (docs/rules-match-cards.md); the view's `columns` wins when a snapshot came.
COLUMNS = {12: 4, 18: 6, 20: 5, 30: 6, 60: 10}
DIFFICULTIES = ("easy", "medium", "hard")
PICTURE_SETS = ("animals", "fruit")


def group_size(settings: Settings) -> int:
    return 3 if settings.mode == Settings.MODE_TRIPLES else 2


def picture_name(picture: str) -> str:
    """The name a screen reader says for a picture id (``cat-grey`` -> ``cat, grey``)."""
    known = PICTURES.get(picture)
    return picture if known is None else known.name


@dataclass(slots=True)
class Card:
    number: int
    state: str = DOWN
    picture: str = ""  # the name, only while up or found


@dataclass(slots=True)
class PlayerLine:
    player: str
    turned: int = 0
    groups: int = 0
    failed: int = 0
    finished: bool = False
    won: bool = False
    time_ms: int = 0


@dataclass
class MatchCardsTracker(TableFollower):
    SLUG: ClassVar[str] = "match_cards"

    settings: Settings = field(default_factory=Settings)
    seats: int = 1
    limit: int = 0
    groups_total: int = 0
    started_at_ms: int = 0
    ends_at_ms: int = 0
    columns: int = 0
    cards: dict[int, Card] = field(default_factory=dict)
    seen: dict[int, str] = field(default_factory=dict)  # every picture seen turned, by card
    compare_at_ms: int = 0
    notice_on: bool = False
    notice: tuple[tuple[int, ...], bool] | None = None  # Hard: the last attempt's cards, same?
    players: list[PlayerLine] = field(default_factory=list)
    started: bool = False
    game_over: bool = False
    standings: list[match_cards_pb2.MatchCardsStanding] = field(default_factory=list)
    code: str = ""
    replay: bool = False

    # --- folding -----------------------------------------------------------------------------

    def line(self, player: str) -> PlayerLine:
        found = next((p for p in self.players if p.player == player), None)
        if found is None:
            found = PlayerLine(player)
            self.players.append(found)
        return found

    @property
    def me(self) -> PlayerLine:
        return self.line(self.player)

    def note_table(self, table: lobby_pb2.Table) -> None:
        """Names, seats, the commitment and the settings from the lobby's Table."""
        super().note_table(table)
        self.seats = table.seats or self.seats

    def _settings(self, settings: Settings) -> None:
        if not self.started:  # once started, the game's own settings stand
            self.settings = settings

    def apply_snapshot(self, view: View) -> None:
        self.table_id = view.table_id or self.table_id
        self.event_number = view.event_number
        self.server_time_ms = view.server_time_ms
        self.player = view.you or self.player
        self.settings = view.settings
        self.started = view.phase != View.PHASE_WAITING_FOR_PLAYERS
        self.game_over = view.phase == View.PHASE_GAME_OVER
        self.limit = view.limit
        self.groups_total = view.groups_total
        self.started_at_ms = view.started_at_ms
        self.ends_at_ms = view.ends_at_ms
        self.columns = view.columns
        self.cards = {}
        for c in view.cards:
            state = {View.CARD_STATE_UP: UP, View.CARD_STATE_FOUND: FOUND}.get(c.state, DOWN)
            name = (c.picture.name or picture_name(c.picture.id)) if state != DOWN else ""
            self.cards[c.card] = Card(c.card, state, name)
            if c.picture.id:
                self.seen[c.card] = c.picture.id
        self.compare_at_ms = view.compare_at_ms
        self.notice_on = view.notice_on
        self.notice = (
            (tuple(view.notice.cards), view.notice.same) if view.HasField("notice") else None
        )
        self.players = []
        for p in view.players:
            if p.display_name:
                self.names[p.player] = p.display_name
            self.players.append(
                PlayerLine(p.player, p.turned, p.groups, p.failed, p.finished, p.won, p.time_ms)
            )
        self.seats = max(self.seats, len(self.players))
        self.standings = list(view.standings)
        self.code = view.code
        self.replay = view.replay
        self.commitment = view.commitment or self.commitment
        if view.HasField("seed"):
            self.seed = bytes(view.seed)

    def _game(self, event: match_cards_pb2.MatchCardsEvent) -> None:
        kind = event.WhichOneof("event")
        e: Any = getattr(event, kind) if kind else None
        mine = getattr(e, "player", self.player) == self.player
        if kind == "game_started":
            self.started = True
            self.settings = e.settings
            self.limit = e.limit
            self.started_at_ms = e.at
            self.ends_at_ms = e.ends_at
            size = e.settings.cards or 12
            self.columns = COLUMNS.get(size, 6)
            self.groups_total = size // group_size(e.settings)
            self.cards = {n: Card(n) for n in range(1, size + 1)}
            self.players = [PlayerLine(p) for p in e.players]
            self.notice_on = e.settings.difficulty == Settings.DIFFICULTY_HARD
        elif kind == "card_turned" and mine:
            self.cards[e.card] = Card(e.card, UP, picture_name(e.picture))
            self.seen[e.card] = e.picture
            self.me.turned += 1
            if e.HasField("compare_at"):
                self.compare_at_ms = e.compare_at
        elif kind == "group_found" and mine:
            for n in e.cards:
                self.cards[n] = Card(n, FOUND, picture_name(self.seen.get(n, "")))
            self.me.groups, self.me.turned, self.compare_at_ms = e.groups, 0, 0
            self.notice = (tuple(e.cards), True) if e.notice else None
        elif kind == "attempt_failed" and mine:
            for n in e.cards:
                self.cards[n] = Card(n)
            self.me.failed, self.me.turned, self.compare_at_ms = e.failed, 0, 0
            self.notice = (tuple(e.cards), False) if e.notice else None
        elif kind == "notice_turned_off" and mine:
            self.notice_on, self.notice = False, None
        elif kind == "opponent_progress":
            p = self.line(e.player)
            p.turned, p.groups, p.failed = e.turned, e.groups, e.failed
        elif kind == "player_finished":
            p = self.line(e.player)
            p.finished, p.won, p.groups, p.failed, p.time_ms = (
                True,
                e.won,
                e.groups,
                e.failed,
                e.time_ms,
            )
            p.turned = 0
            if mine:
                self.compare_at_ms = 0
        elif kind == "game_ended":
            self.game_over = True
            self.compare_at_ms = 0
            self.standings = list(e.standings)
            self.code = e.code
            self.replay = e.replay

    # --- what a player knows -------------------------------------------------------------------

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def group(self) -> int:
        return group_size(self.settings)

    @property
    def up(self) -> list[int]:
        return sorted(n for n, c in self.cards.items() if c.state == UP)

    @property
    def finished(self) -> bool:
        return self.me.finished or self.game_over

    def elapsed_ms(self, now_ms: int) -> int:
        """The time counter: from the start, stopped at the player's end."""
        if self.me.finished:
            return self.me.time_ms
        if not self.started_at_ms:
            return 0
        return max(0, now_ms - self.started_at_ms)

    def known_group(self) -> list[int] | None:
        """Face-down cards this seat saw that show one picture, a whole group of them."""
        by_picture: dict[str, list[int]] = {}
        for n, picture in sorted(self.seen.items()):
            card = self.cards.get(n)
            if card is not None and card.state != FOUND:
                by_picture.setdefault(picture, []).append(n)
        return next((c[: self.group] for c in by_picture.values() if len(c) >= self.group), None)

    def unseen(self, besides: Sequence[int] = ()) -> list[int]:
        return [
            n
            for n, c in sorted(self.cards.items())
            if c.state == DOWN and n not in self.seen and n not in besides
        ]


# --- lines ---------------------------------------------------------------------------------


def clock_text(ms: int) -> str:
    seconds = max(0, ms) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def card_label(card: Card) -> str:
    if card.state == DOWN:
        return f"{card.number}"
    if card.state == UP:
        return f"{card.number} {card.picture}"
    return f"{card.number} found: {card.picture}"


def board_lines(t: MatchCardsTracker) -> list[str]:
    """The player's copy, row by row: a number for a face-down card, the number and its
    picture's name while turned, and ``found:`` with the name once found."""
    if not t.cards:
        return ["no cards yet: the game starts when every seat is taken"]
    across = t.columns or COLUMNS.get(t.size, 6)
    numbers = sorted(t.cards)
    return [
        f"row {i // across + 1}: " + "  ".join(f"[{card_label(t.cards[n])}]" for n in row)
        for i in range(0, len(numbers), across)
        for row in [numbers[i : i + across]]
    ]


def counters_line(t: MatchCardsTracker, now_ms: int) -> str:
    """The three counters the player sees."""
    return (
        f"{t.me.groups} of {count(t.groups_total, 'group')} found, "
        f"time {clock_text(t.elapsed_ms(now_ms))}, "
        f"{t.me.failed} of {t.limit} failed attempts"
    )


def others_lines(t: MatchCardsTracker) -> list[str]:
    """At a challenge table: the others' progress (counts only, never a card)."""
    out = []
    for p in t.players:
        if p.player == t.player:
            continue
        if p.finished:
            state = f"finished, {'won' if p.won else 'lost'} in {clock_text(p.time_ms)}"
        elif p.turned:
            state = f"{count(p.turned, 'card')} turned"
        else:
            state = "playing"
        out.append(
            f"{t.name(p.player)}: {count(p.groups, 'group')} found, "
            f"{count(p.failed, 'failed attempt')} ({state})"
        )
    return out


def notice_text(same: bool) -> str:
    return "Same picture" if same else "Different pictures"


def settings_text(t: MatchCardsTracker) -> str:
    s = t.settings
    mode = "triples" if s.mode == Settings.MODE_TRIPLES else "pairs"
    difficulty = DIFFICULTIES[max(0, s.difficulty - 1)] if s.difficulty else "easy"
    replay = ", a replay of a game code (not ranked)" if s.code else ""
    return (
        f"{t.size or s.cards or 12} cards in {mode}, {difficulty}, {s.pictures or 'animals'}, "
        f"{t.limit} failed attempts lose{replay}"
    )


def standings_lines(t: MatchCardsTracker) -> list[str]:
    if len(t.standings) < 2:
        return []
    out = ["final standings:"]
    for s in t.standings:
        out.append(
            f"  {s.place}. {t.name(s.player)}: {count(s.groups, 'group')}, "
            f"{count(s.failed, 'failed attempt')}, {clock_text(s.time_ms)}"
            f"{' (won)' if s.won else ''}"
        )
    return out


def end_lines(t: MatchCardsTracker, audit: str = "", match: str = "match") -> list[str]:
    """The end: the result, the counters, the standings at a challenge table, the code and how
    to check the game. ``match`` is the command with the options that reach the lobby
    (``MatchClient.command``), so that the replay command works as printed."""
    me = t.me
    out = [f"result: {'you won' if me.won else 'you lost'}"]
    out.append(f"counters: {counters_line(t, 0)}")
    out += standings_lines(t)
    if t.code:
        out.append(f"game code: {t.code}")
        out.append(f"replay it: {match} play --game match-cards --new --code {t.code}")
    if t.replay:
        out.append("this game replayed a code: it is not ranked")
    if t.seed is not None and t.commitment:
        ok = hashlib.sha256(t.seed).hexdigest() == t.commitment
        out.append(f"the published seed {'matches' if ok else 'DOES NOT match'} the commitment")
    if audit:
        out.append(audit)
    return out


def event_lines(env: common_pb2.EventEnvelope, t: MatchCardsTracker) -> list[str]:
    """What to say about one event (already folded into ``t``)."""
    if env.HasField("table"):
        seated = env.table.player_seated
        if env.table.WhichOneof("event") == "player_seated":
            return [f"{seated.display_name} sits at seat {seated.seat}"]
        return []
    if not env.HasField("match_cards"):
        return []
    event = env.match_cards
    kind = event.WhichOneof("event")
    e: Any = getattr(event, kind) if kind else None
    if e is None:
        return []
    mine = getattr(e, "player", t.player) == t.player
    if kind == "game_started":
        who = f", {len(e.players)} players on their own copies" if len(e.players) > 1 else ""
        return [f"the game starts: {settings_text(t)}{who}"]
    if kind == "card_turned" and mine:
        line = f"card {e.card}: {picture_name(e.picture)}"
        if e.HasField("compare_at"):
            line += " (comparing for 1.5 s)"
        return [line]
    if kind == "group_found" and mine:
        out = [
            f"found: {t.cards[e.cards[0]].picture} ({'cards ' + _list(e.cards)}), "
            f"{e.groups} of {t.groups_total} groups"
        ]
        return out + ([notice_text(True)] if e.notice else [])
    if kind == "attempt_failed" and mine:
        out = [
            f"no match: cards {_list(e.cards)} turn face down, "
            f"{e.failed} of {t.limit} failed attempts"
        ]
        return out + ([notice_text(False)] if e.notice else [])
    if kind == "notice_turned_off" and mine:
        return ["the Same/Different pictures notice is off for the rest of the game"]
    if kind == "player_finished":
        if mine:
            how = "you found every group" if e.won else "you reached the limit of failed attempts"
            if not e.won and e.failed < t.limit:
                how = "the hour is up"
            return [f"your game is over: {how} ({clock_text(e.time_ms)})"]
        won = "found every group" if e.won else "lost"
        return [
            f"{t.name(e.player)} finished: {won}, {count(e.groups, 'group')}, "
            f"{count(e.failed, 'failed attempt')}"
        ]
    if kind == "opponent_progress" and not e.turned:
        return [
            f"{t.name(e.player)}: {count(e.groups, 'group')} found, "
            f"{count(e.failed, 'failed attempt')}"
        ]
    if kind == "game_ended":
        return ["the game is over"]
    return []


def _list(cards: Sequence[int]) -> str:
    return ", ".join(str(c) for c in cards)


HELP = (
    "type a card's number and Enter to turn it (2 cards an attempt, 3 for triples; they are "
    "compared 1.5 s after the last); b shows the cards, c the counters, o the other players, "
    "n turns Hard's Same/Different pictures notice off for the rest of the game; Ctrl-D leaves"
)


# --- one seat played -----------------------------------------------------------------------


class MatchCardsPlay:
    """One seat of Match Cards played from the terminal: follows the stream (resuming after a
    drop), sends the cards typed, tells what happened through ``out``."""

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
        self.session = GameSession.of(client, "match_cards", seat)
        self.tracker = MatchCardsTracker(player=seat.player_id, table_id=seat.table_id)
        self.clock = clock
        self.out = out
        self.audit = audit
        # `match` and the options that reach this lobby, for the commands printed to be copied
        self.match = client.command()
        self.show_board = show_board
        self.resumed = resumed
        self.board_shown_at = -1  # the event number the board was last shown at
        self.changed: Callable[[], None] = lambda: None
        self.ended = False
        # Set once the stream has shown the copy: lines typed (or piped) earlier wait for it.
        self.ready = asyncio.Event()

    def now(self) -> int:
        return self.clock.now()

    def show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out(line)

    def take(self, envelopes: Sequence[common_pb2.EventEnvelope]) -> None:
        t = self.tracker
        board = False
        for env in t.apply_events(envelopes):
            self.clock.observe(env.server_time_ms)
            self.show(event_lines(env, t))
            kind = env.match_cards.WhichOneof("event") if env.HasField("match_cards") else None
            mine = getattr(getattr(env.match_cards, kind or "", None), "player", "") == t.player
            if kind == "game_started" or (kind in ("group_found", "attempt_failed") and mine):
                board = True
            if kind in ("group_found", "attempt_failed") and mine and not t.me.finished:
                self.out(counters_line(t, self.now()))
            if kind == "game_ended":
                self.finish()
        if board and self.show_board and not t.game_over:
            self.show(board_lines(t))
            self.board_shown_at = t.event_number
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
                        self.ready.set()
                        if t.game_over:
                            self.finish()
                            return
                        if t.started:
                            if self.resumed:  # a new session saw the start event say it
                                self.out(f"the game: {settings_text(t)}")
                            self.show([counters_line(t, self.now()), *others_lines(t)])
                            # the game's start event showed it a moment ago: not twice
                            if self.show_board and self.board_shown_at != t.event_number:
                                self.show(board_lines(t))
                                self.board_shown_at = t.event_number
                        else:
                            self.out(f"waiting for players: {t.seats} seats")
                        self.changed()
                    else:
                        self.take([item.event])
                    if self.ended:
                        return
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
        self.show(end_lines(self.tracker, self.audit, self.match))
        self.changed()

    async def call(self, send: Callable[[], Any]) -> None:
        try:
            reply = await send()
        except Exception as err:
            if not is_rpc_error(err):
                raise
            code = refusal_code(err)
            self.out(f"refused: {error_details(err)} ({code or status_name(err).lower()})")
            return
        self.take(list(reply.events))

    async def turn(self, card: int) -> None:
        await self.call(lambda: self.session.send("TurnCard", card=card))

    async def turn_off_notice(self) -> None:
        await self.call(lambda: self.session.send("TurnOffNotice"))

    async def handle(self, line: str) -> None:
        text = line.strip().lower()
        t = self.tracker
        if not text:
            return
        if text.isdigit():
            await self.turn(int(text))
        elif text in ("?", "h", "help"):
            self.out(HELP)
        elif text in ("b", "board"):
            self.show(board_lines(t))
        elif text in ("c", "t", "counters", "time"):
            self.out(counters_line(t, self.now()))
        elif text in ("o", "s", "others", "players"):
            self.show(others_lines(t) or ["nobody else: a solo game"])
        elif text in ("n", "notice"):
            await self.turn_off_notice()
        else:
            self.out(f"not a command: {line.strip()!r}. Type ? for help")
        self.changed()

    async def run_lines(self) -> int:
        """The line mode: stdin in a thread, the stream in a task."""
        self.out(HELP)
        return await line_mode(self.watch, self.handle, self.out, ready=self.ready)


def settings_from(
    cards: int | None,
    triples: bool,
    difficulty: str | None,
    pictures: str | None,
    code: str | None,
) -> Settings:
    """The settings of a new table from the command line's options (unset: the defaults; with
    a code, the code's settings hold)."""
    settings = Settings(cards=cards or 0, pictures=pictures or "", code=(code or "").strip())
    if triples:
        settings.mode = Settings.MODE_TRIPLES
    if difficulty:
        settings.difficulty = {
            "easy": Settings.DIFFICULTY_EASY,
            "medium": Settings.DIFFICULTY_MEDIUM,
            "hard": Settings.DIFFICULTY_HARD,
        }[difficulty]
    return settings
