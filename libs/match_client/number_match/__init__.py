"""Number Match in the terminal and for scripts: the board as the player's stream tells it, its
lines, and the one seat played (``match play --game number-match``).

``NumberMatchTracker`` folds what the server sends (Watch snapshots and events, and every
command's reply, which carries the table as it is after it) into what the player sees: the
board, nine cells to a row (0 an empty cell), the score, the additions and hints left, the moves,
the last hint while it applies, and at the end the outcome, the witness and the seed. A pair or
an addition is folded with the pure board rules (``match_rules.number_match.board``), an undo
from the boards it kept; whatever it cannot fold (an undo right after a snapshot) it leaves to
the next view. No move is judged here: the referee decides, and its refusal is shown as it is.

``NumberMatchPlay`` is one seat played: it follows the stream, keeps the player's selection
(the seed: tap the first number, then the second; if they make no pair, the second becomes the
new selection) and sends the commands; the line mode and the full-screen view
(``number_match_screen``) both drive it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from match.v1 import common_pb2, number_match_pb2
from match_client.client import (
    MatchClient,
    Seat,
    error_details,
    is_rpc_error,
    refusal_code,
    sent_politely,
    status_name,
)
from match_client.clock import ServerClock
from match_client.following import TableFollower
from match_client.session import GameSession
from match_client.terminal import line_mode
from match_rules.number_match.board import WIDTH, Level, add_numbers, remove_pair
from match_rules.number_match.events import Step
from match_rules.words import count

RATE_LIMIT_TRIES = 20  # sends of one command the lobby's rate limit may turn away

View = number_match_pb2.NumberMatchView
Settings = number_match_pb2.NumberMatchSettings
Event = number_match_pb2.NumberMatchEvent
Out = Callable[[str], None]
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
SNAPSHOT = 2**63 - 1  # beyond the last event: the server answers with a snapshot
LEVEL_VALUES = {
    "easy": Settings.LEVEL_EASY,
    "medium": Settings.LEVEL_MEDIUM,
    "hard": Settings.LEVEL_HARD,
    "expert": Settings.LEVEL_EXPERT,
    "classic": Settings.LEVEL_CLASSIC,
}
LEVELS = tuple(LEVEL_VALUES)
HINTS = 3  # per game (the seed)
SEED_BYTES = 32

PAIR, ADD, STUCK = Event.HINT_KIND_PAIR, Event.HINT_KIND_ADD, Event.HINT_KIND_STUCK
OUTCOMES: dict[int, str] = {
    Event.OUTCOME_CLEARED: "the board is clear",
    Event.OUTCOME_NO_MOVES: "no pair and no addition left",
    Event.OUTCOME_GAVE_UP: "you ended the game",
    Event.OUTCOME_IDLE: "nothing was played for 30 minutes",
}


def level_name(settings: Settings) -> str:
    """``easy`` .. ``classic``; unset: easy, or hard for a daily puzzle (the server's default)."""
    if not settings.level:
        return "hard" if settings.daily_date else "easy"
    return Settings.Level.Name(settings.level).removeprefix("LEVEL_").lower()


def additions_text(left: int | None) -> str:
    """``4 additions left``, or ``additions: no limit`` (Classic)."""
    return "additions: no limit" if left is None else f"{count(left, 'addition')} left"


@dataclass(frozen=True, slots=True)
class Before:
    """What an undo of the next move brings back."""

    board: tuple[int, ...]
    additions_left: int | None


@dataclass
class NumberMatchTracker(TableFollower):
    SLUG: ClassVar[str] = "number_match"

    settings: Settings = field(default_factory=Settings)
    started: bool = False
    game_over: bool = False
    board: tuple[int, ...] = ()
    start_board: tuple[int, ...] = ()  # from the start event (a snapshot does not say it)
    additions: int | None = None  # what the level gives; None: no limit (Classic)
    additions_left: int | None = None
    hints_left: int = 0
    score: int = 0
    moves: int = 0  # pairs and additions made, undone ones not counted
    started_at_ms: int = 0
    hint: tuple[int, int, int] | None = None  # (kind, first, second) while it applies
    outcome: int = 0
    time_ms: int = 0
    hints_used: int | None = None  # told at the end; before it, HINTS - hints_left
    witness_commitment: str = ""
    witness: list[Step] = field(default_factory=list)
    replay: bool = False
    history: list[Before] = field(default_factory=list)
    # The folded board may be wrong (an undo the tracker had no board for): the next view
    # (a reply's, or a fresh Watch's snapshot) puts it right.
    stale: bool = False
    last_pair: tuple[int, int] = (0, 0)  # the numbers of the last pair folded

    # --- folding -----------------------------------------------------------------------------

    def _settings(self, settings: Settings) -> None:
        if not self.started:  # once started, the game's own settings stand
            self.settings = settings

    def apply_snapshot(self, view: View) -> None:
        """The table as the server sees it (a Watch snapshot, or a reply's view): everything
        it says wins. The boards kept for undo stay only if the board is the one folded."""
        if list(view.board) != list(self.board):
            self.history = []
        self.table_id = view.table_id or self.table_id
        self.event_number = max(self.event_number, view.event_number)
        self.server_time_ms = view.server_time_ms or self.server_time_ms
        self.player = view.you or self.player
        self.settings = view.settings
        self.started = view.phase != View.PHASE_WAITING_FOR_PLAYERS
        self.game_over = view.phase == View.PHASE_GAME_OVER
        self.board = tuple(view.board)
        self.additions_left = view.additions_left if view.HasField("additions_left") else None
        self.additions = Level[level_name(view.settings).upper()].additions
        self.hints_left = view.hints_left
        self.score = view.score
        self.moves = view.moves
        self.started_at_ms = view.started_at_ms or self.started_at_ms
        self.hint = None
        if view.HasField("hint") and view.hint.kind:
            self.hint = (view.hint.kind, view.hint.first, view.hint.second)
        self.outcome = view.outcome
        self.time_ms = view.time_ms
        self.witness_commitment = view.witness_commitment or self.witness_commitment
        self.witness = [Step(s.add, s.first, s.second) for s in view.witness] or self.witness
        self.replay = view.replay
        self.commitment = view.commitment or self.commitment
        if view.HasField("seed"):
            self.seed = bytes(view.seed)
        self.stale = False

    def apply_view(self, view: View) -> bool:
        """A reply's view, unless the stream has already brought later events; True if
        applied."""
        if view.event_number < self.event_number:
            return False
        self.apply_snapshot(view)
        return True

    def _moved(self) -> None:
        self.history.append(Before(self.board, self.additions_left))
        self.moves += 1
        self.hint = None

    def _game(self, event: Event) -> None:
        kind = event.WhichOneof("event")
        e: Any = getattr(event, kind) if kind else None
        if kind == "game_started":
            self.started = True
            self.settings = e.settings
            self.deal_version = e.deal_version or self.deal_version
            self.board = self.start_board = tuple(e.board)
            self.additions = e.additions if e.HasField("additions") else None
            self.additions_left = self.additions
            self.hints_left = e.hints
            self.started_at_ms = e.at
            self.witness_commitment = e.witness_commitment
            self.replay = e.replay
            self.score, self.moves, self.history, self.hint = 0, 0, [], None
        elif kind == "cells_paired":
            before = self.board
            self._moved()
            try:
                self.last_pair = (before[e.first - 1], before[e.second - 1])
                self.board, _ = remove_pair(before, e.first - 1, e.second - 1)
            except (IndexError, ValueError):
                self.stale = True
            self.score = e.score
        elif kind == "numbers_added":
            before = self.board
            self._moved()
            try:
                self.board = add_numbers(before)
            except ValueError:
                self.stale = True
            self.additions_left = e.additions_left if e.HasField("additions_left") else None
        elif kind == "hint_given":
            self.hints_left = e.hints_left
            self.hint = (e.kind, e.first, e.second)
        elif kind == "move_undone":
            if self.history:
                self.board = self.history.pop().board
            else:
                self.stale = True
            self.moves = max(0, self.moves - 1)
            self.score = e.score
            self.additions_left = e.additions_left if e.HasField("additions_left") else None
            self.hint = None
        elif kind == "game_over":
            self.game_over = True
            self.outcome = e.outcome
            self.score = e.score
            self.time_ms = e.time_ms
            self.moves = e.moves
            self.hints_used = e.hints_used
            self.witness = [Step(s.add, s.first, s.second) for s in e.witness]
            self.hint = None

    # --- what the player sees ------------------------------------------------------------------

    @property
    def numbers_left(self) -> int:
        return sum(1 for n in self.board if n)

    @property
    def can_undo(self) -> bool:
        return self.moves > 0 and not self.game_over

    @property
    def cleared(self) -> bool:
        return self.outcome == Event.OUTCOME_CLEARED

    @property
    def used_hints(self) -> int:
        return self.hints_used if self.hints_used is not None else HINTS - self.hints_left

    def hinted(self) -> tuple[int, int] | None:
        """The cells of the last hint's pair, while it applies."""
        if self.hint is None or self.hint[0] != PAIR:
            return None
        return self.hint[1], self.hint[2]

    def elapsed_ms(self, now_ms: int) -> int:
        """The time counter: from the start, stopped at the end."""
        if self.game_over:
            return self.time_ms
        if not self.started_at_ms:
            return 0
        return max(0, now_ms - self.started_at_ms)


# --- lines ---------------------------------------------------------------------------------


def clock_text(ms: int) -> str:
    seconds = max(0, ms) // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def where(cell: int) -> str:
    """``row 2, column 3`` of a cell (1-based)."""
    row, column = divmod(cell - 1, WIDTH)
    return f"row {row + 1}, column {column + 1}"


def settings_text(t: NumberMatchTracker) -> str:
    s = t.settings
    name = level_name(s)
    level = Level[name.upper()]
    limit = (
        "additions without limit" if level.additions is None else count(level.additions, "addition")
    )
    text = f"{name}, {level.numbers} numbers, {limit}, {HINTS} hints"
    if s.daily_date:
        text = f"the daily puzzle of {s.daily_date} ({text})"
    if t.replay or s.replay_seed:
        text += ", the board of a finished game played again (not ranked)"
    return text


def row_label(row: int) -> str:
    """``row 2 (10-18)``: the row and its cells' numbers."""
    first = row * WIDTH + 1
    return f"row {row + 1} ({first}-{first + WIDTH - 1})"


def board_lines(t: NumberMatchTracker, selection: int | None = None) -> list[str]:
    """The board, nine cells to a row under the columns' numbers, an empty cell blank; each row
    says its cells' numbers (cell = the row's first + column - 1). The last hint's pair is
    marked ``*``, the selected cell ``^``."""
    if not t.started:
        return ["no board yet: the game has not started"]
    if not t.board:
        return ["the board is empty"]
    hinted = t.hinted() or ()
    rows = (len(t.board) + WIDTH - 1) // WIDTH
    width = len(row_label(rows - 1)) + 1
    out = [" " * width + "".join(f"{c:>3} " for c in range(1, WIDTH + 1)).rstrip()]
    for row in range(rows):
        cells = []
        for i in range(row * WIDTH, min(len(t.board), (row + 1) * WIDTH)):
            n = t.board[i]
            mark = "^" if i + 1 == selection else "*" if i + 1 in hinted else " "
            cells.append(f"{n:>3}{mark}" if n else "    ")
        out.append(f"{row_label(row) + ':':<{width}}" + "".join(cells).rstrip())
    return out


def read_lines(t: NumberMatchTracker) -> list[str]:
    """The board for a screen reader: each row's numbers with their cells, empty cells left
    out (``row 2: 4 in cell 10, 6 in cell 11, 7 in cell 13``)."""
    if not t.board:
        return board_lines(t)
    out = []
    for row in range(0, len(t.board), WIDTH):
        said = [f"{n} in cell {row + k + 1}" for k, n in enumerate(t.board[row : row + WIDTH]) if n]
        out.append(f"row {row // WIDTH + 1}: " + (", ".join(said) or "empty"))
    return out


def status_line(t: NumberMatchTracker, now_ms: int) -> str:
    """The counters the player sees."""
    return (
        f"score {t.score}, {additions_text(t.additions_left)}, "
        f"{count(t.hints_left, 'hint')} left, {count(t.moves, 'move')}, "
        f"{count(t.numbers_left, 'number')} on the board, time {clock_text(t.elapsed_ms(now_ms))}"
    )


def hint_text(t: NumberMatchTracker, kind: int, first: int, second: int) -> str:
    if kind == PAIR:
        a, b = t.board[first - 1 : first], t.board[second - 1 : second]
        numbers = f" ({a[0]} and {b[0]})" if a and b else ""
        return (
            f"hint: cells {first} and {second}{numbers}, {where(first)} and {where(second)}: a "
            "pair that keeps the board clearable"
        )
    if kind == ADD:
        return "hint: no pair keeps the board clearable: time to add numbers (a)"
    return (
        "hint: the board can no longer be cleared with the additions left: undo (u) or end "
        "the game and play its board again"
    )


def witness_lines(t: NumberMatchTracker) -> list[str]:
    """The revealed witness (the solver's clearing of the starting board, committed when the
    game started), checked here when this client saw the start: the board was solvable."""
    if not t.witness:
        return []
    steps = ", ".join("+" if s.add else f"{s.first}-{s.second}" for s in t.witness)
    out = [f"the solver's clearing of this board (+ adds numbers): {steps}"]
    if not (t.start_board and t.witness_commitment):
        return out
    try:
        from match_rules.number_match import witness as witnesses
        from match_rules.number_match.solver import WitnessError
    except ImportError:  # pragma: no cover - the SDK alone, without the rules
        return out
    committed = witnesses.commitment(t.start_board, t.additions, t.witness)
    if committed != t.witness_commitment:
        return [*out, "the revealed clearing DOES NOT match the commitment made at the start"]
    try:
        witnesses.check(t.start_board, t.additions, t.witness)
    except WitnessError as error:
        return [*out, f"the revealed clearing DOES NOT clear the board: {error}"]
    return [
        *out,
        "the solver's clearing matches the commitment made at the start and clears the board: "
        "the board was solvable",
    ]


def replay_line(t: NumberMatchTracker, match: str = "match") -> str:
    """How to play the board again: ``match`` is the command with the options that reach the
    lobby (``MatchClient.command``), so that it works as printed."""
    s = t.settings
    if s.daily_date:  # its board comes from the date (docs/rules-number-match.md), not the seed
        from match_rules.number_match.generate import daily_seed

        return (
            f"play this daily puzzle again (not ranked): {match} play --game number-match --new "
            f"--level hard --replay-seed {daily_seed(s.daily_date).hex()}"
        )
    if level_name(s) == "classic":
        return f"play it again: {match} play --game number-match --new --level classic"
    if t.seed is None:
        return ""
    return (
        f"play this board again: {match} play --game number-match --new "
        f"--level {level_name(s)} --replay-seed {t.seed.hex()}"
    )


def end_lines(t: NumberMatchTracker, audit: str = "", match: str = "match") -> list[str]:
    """The end: the outcome, the counters, the seed, how to play the board again and how to
    check the game."""
    outcome = OUTCOMES.get(t.outcome, "over")
    result = "you cleared the board" if t.cleared else f"not cleared: {outcome}"
    out = [f"result: {result}"]
    out.append(
        f"score {t.score} in {clock_text(t.time_ms)}, {count(t.moves, 'move')}, "
        f"{t.used_hints} of {HINTS} hints used"
    )
    if t.replay:
        out.append("this game played a finished game's board again: it is not ranked")
    if t.seed is not None:
        out.append(f"the seed: {t.seed.hex()}")
        if t.commitment:
            ok = hashlib.sha256(t.seed).hexdigest() == t.commitment
            out.append(f"the published seed {'matches' if ok else 'DOES NOT match'} the commitment")
    out += witness_lines(t)
    line = replay_line(t, match)
    if line:
        out.append(line)
    if audit:
        out.append(audit)
    return out


def event_lines(env: common_pb2.EventEnvelope, t: NumberMatchTracker) -> list[str]:
    """What to say about one event (already folded into ``t``)."""
    if env.HasField("table"):
        if env.table.WhichOneof("event") == "seed_revealed":
            return ["the game's seed is published"]
        return []
    if not env.HasField("number_match"):
        return []
    event = env.number_match
    kind = event.WhichOneof("event")
    e: Any = getattr(event, kind) if kind else None
    if e is None:
        return []
    if kind == "game_started":
        return [f"the game starts: {settings_text(t)}"]
    if kind == "cells_paired":
        a, b = t.last_pair
        rows = f", {count(e.rows_removed, 'row')} removed" if e.rows_removed else ""
        return [
            f"pair: cells {e.first} and {e.second} ({a} and {b}), +{e.points}{rows}, "
            f"score {e.score}"
        ]
    if kind == "numbers_added":
        left = "" if not e.HasField("additions_left") else f"; {e.additions_left} left"
        return [f"numbers added: {count(e.count, 'number')} copied after the last one{left}"]
    if kind == "hint_given":
        return [hint_text(t, e.kind, e.first, e.second) + f" ({e.hints_left} left)"]
    if kind == "move_undone":
        what = "addition (you get it back)" if e.undone == Event.UNDONE_ADD else "pair"
        return [f"undone: the last {what}; score {e.score}"]
    if kind == "game_over":
        return [f"the game is over: {OUTCOMES.get(e.outcome, 'over')}"]
    return []


HELP = (
    "cells are numbered from 1, row by row, 9 to a row, on the board as it is now (each row "
    "says its cells). Type two cells to pair them (p 3 12, or 3 12); one cell selects it and "
    "the next one typed pairs with it (if they make no pair, the second is the new selection). "
    "a adds numbers, h hint, u undo, b the board, r reads the numbers with their cells, s the "
    "score, end ends the game (asks first), ? help; Ctrl-D leaves"
)


# --- one seat played -----------------------------------------------------------------------


class Reply(Protocol):
    @property
    def events(self) -> Sequence[common_pb2.EventEnvelope]: ...

    @property
    def view(self) -> View: ...


_PAIR = re.compile(r"^(?:p|pair)?\s*(\d+)[\s,\-]+(\d+)$")


class NumberMatchPlay:
    """One seat of Number Match played from the terminal: follows the stream (resuming after a
    drop), sends what the player does, tells what happened through ``out``."""

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
        self.session = GameSession.of(client, "number_match", seat)
        self.tracker = NumberMatchTracker(player=seat.player_id, table_id=seat.table_id)
        self.clock = clock
        self.out = out
        self.audit = audit
        # `match` and the options that reach this lobby, for the commands printed to be copied
        self.match = client.command()
        self.show_board = show_board
        self.resumed = resumed
        self.selection: int | None = None  # the selected cell (1-based)
        self.confirm_end = False
        self.notice = ""  # the last thing said about the player's own action (the screen shows it)
        self.board_shown_at = -1
        self.board_due = False  # the board changed and was not shown yet
        self.changed: Callable[[], None] = lambda: None
        self.ended = False
        self.ready = asyncio.Event()  # set once the stream has shown the board

    def now(self) -> int:
        return self.clock.now()

    def show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out(line)

    def say(self, line: str) -> None:
        """A line about the player's own action: shown, and kept for the screen's notice."""
        self.notice = line
        self.out(line)

    def show_position(self) -> None:
        self.board_due = False
        if self.show_board and not self.tracker.game_over:
            self.show(board_lines(self.tracker, self.selection))
            self.out(status_line(self.tracker, self.now()))
            self.board_shown_at = self.tracker.event_number

    def take(self, envelopes: Sequence[common_pb2.EventEnvelope], view: View | None = None) -> None:
        """Fold and tell new events; then a reply's ``view`` (the table after them), and the
        board when it changed (not while the folded board may be wrong: the view to come
        shows it)."""
        t = self.tracker
        # One at a time: each is told as things stood right after it.
        for env in (e for one in envelopes for e in t.apply_events([one])):
            self.clock.observe(env.server_time_ms)
            self.show(event_lines(env, t))
            kind = env.number_match.WhichOneof("event") if env.HasField("number_match") else None
            if kind in ("game_started", "cells_paired", "numbers_added", "move_undone"):
                self.board_due = True
            elif kind == "hint_given" and env.number_match.hint_given.kind == PAIR:
                self.board_due = True  # its pair marked on the board
        if view is not None and view.event_number:
            t.apply_view(view)
        self._keep_selection()
        if self.board_due and not t.stale:
            self.show_position()
        if t.game_over and t.seed is not None:
            self.finish()
        self.changed()

    def _keep_selection(self) -> None:
        """A selection survives only while its cell still holds a number (cells move when a
        row goes)."""
        board = self.tracker.board
        if self.selection is not None and not (
            self.selection <= len(board) and board[self.selection - 1]
        ):
            self.selection = None

    async def watch(self) -> None:
        """Follow the stream until the game is over and its seed out (the server then ends
        it); after a drop, from the last event folded; a fresh snapshot when the folded board
        may be wrong."""
        failures = 0
        t = self.tracker
        while not self.ended:
            start = SNAPSHOT if t.stale or (self.resumed and not t.event_number) else t.event_number
            try:
                async for item in self.session.watch(start, skip_answered=True):
                    failures = 0
                    if item.HasField("snapshot"):
                        self.snapshot(item.snapshot)
                    else:
                        self.take([item.event])
                    if self.ended or t.stale:
                        break
                if self.ended or t.game_over:
                    self.finish()
                    return
                if t.stale:
                    continue  # a snapshot at once
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

    def snapshot(self, view: View) -> None:
        t = self.tracker
        t.apply_snapshot(view)
        self.clock.observe(view.server_time_ms)
        self._keep_selection()
        self.ready.set()
        if t.game_over:
            if t.seed is not None:
                self.finish()
        elif t.started:
            if self.resumed and self.board_shown_at < 0:  # no start event said it
                self.out(f"the game: {settings_text(t)}")
            if self.board_shown_at != t.event_number:  # not twice for the same board
                self.show_position()
                self.board_shown_at = t.event_number
        else:
            self.out("waiting for the game to start")
        self.changed()

    def finish(self) -> None:
        if self.ended:
            return
        self.ended = True
        self.selection = None
        self.show(end_lines(self.tracker, self.audit, self.match))
        self.changed()

    async def call(self, send: Callable[[], Awaitable[Reply]]) -> bool:
        """Send a command; tell its events, or the server's refusal. True if accepted. A call
        the lobby's rate limit turned away is sent again after the wait it names."""
        try:
            reply = await sent_politely(send, RATE_LIMIT_TRIES)
        except Exception as err:
            if not is_rpc_error(err):
                raise
            code = refusal_code(err)
            failed = status_name(err) in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN")
            word = "error" if failed else "refused"
            self.say(f"{word}: {error_details(err)} ({code or status_name(err).lower()})")
            self.changed()
            return False
        self.notice = ""
        self.take(list(reply.events), reply.view)
        return True

    # --- what the player does ------------------------------------------------------------------

    async def pair(self, first: int, second: int) -> bool:
        self.selection = None
        return await self.call(lambda: self.session.send("PairCells", first=first, second=second))

    async def select(self, cell: int) -> None:
        """Tap a cell: the first number is selected; the second is paired with it, and if they
        make no pair it becomes the new selection. The same cell again lets go of it."""
        board = self.tracker.board
        if not 1 <= cell <= len(board):
            self.say(f"cell {cell} is not on the board: its cells are 1 to {len(board)}")
        elif not board[cell - 1]:
            self.say(f"cell {cell} is empty: pick a number")
        elif self.selection == cell:
            self.selection = None
            self.say(f"cell {cell} is no longer selected")
        elif self.selection is None:
            self.selection = cell
            self.say(f"selected cell {cell} ({board[cell - 1]}), {where(cell)}: now the second")
        else:
            first = self.selection
            paired = await self.pair(first, cell)
            if not paired and self.tracker.board[cell - 1 : cell] == (board[cell - 1],):
                self.selection = cell  # no pair: the second is the new selection
                self.out(f"cell {cell} ({board[cell - 1]}) is selected now")
        self.changed()

    async def add(self) -> None:
        await self.call(lambda: self.session.send("AddNumbers"))

    async def hint(self) -> None:
        await self.call(lambda: self.session.send("AskHint"))

    async def undo(self) -> None:
        self.selection = None
        await self.call(lambda: self.session.send("Undo"))

    async def end(self) -> None:
        self.confirm_end = False
        await self.call(lambda: self.session.send("EndGame"))

    async def handle(self, line: str) -> None:
        text = line.strip().lower()
        if not text:
            return
        confirming, self.confirm_end = self.confirm_end, False
        pair = _PAIR.match(text)
        if pair:
            await self.pair(int(pair[1]), int(pair[2]))
        elif text.isdigit():
            await self.select(int(text))
        elif text in ("end", "e", "y", "yes") and confirming:
            await self.end()
        elif text in ("end", "e"):
            self.confirm_end = True
            self.say("end the game now? Type y to end it (or end again); anything else goes on")
        elif text in ("a", "add", "+"):
            await self.add()
        elif text in ("h", "hint"):
            await self.hint()
        elif text in ("u", "undo"):
            await self.undo()
        elif text in ("?", "help"):
            self.out(HELP)
        elif text in ("b", "board"):
            self.show(board_lines(self.tracker, self.selection))
            self.out(status_line(self.tracker, self.now()))
        elif text in ("r", "read"):
            self.show(read_lines(self.tracker))
        elif text in ("s", "score", "status", "t", "time"):
            self.out(status_line(self.tracker, self.now()))
        elif confirming:
            self.out("the game goes on")
        else:
            self.out(f"not a command: {line.strip()!r}. Type ? for help")
        self.changed()

    async def run_lines(self) -> int:
        """The line mode: stdin in a thread, the stream in a task."""
        self.out(HELP)
        return await line_mode(self.watch, self.handle, self.out, ready=self.ready)


def local_today(now: dt.datetime | None = None) -> tuple[str, int]:
    """Today's date in the local time zone and its offset from UTC in minutes (the daily
    puzzle changes at the player's midnight)."""
    local = now if now is not None and now.tzinfo else (now or dt.datetime.now()).astimezone()
    offset = local.utcoffset() or dt.timedelta()
    return local.date().isoformat(), round(offset.total_seconds() / 60)


def parse_seed(text: str) -> bytes:
    """A revealed seed as typed: 64 hex digits. Raises ValueError saying what is wrong."""
    try:
        seed = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError(
            f"--replay-seed is 64 hex digits (a finished game's seed), not {text!r}"
        ) from None
    if len(seed) != SEED_BYTES:
        raise ValueError(
            f"--replay-seed is the {SEED_BYTES}-byte seed a finished game revealed "
            f"(64 hex digits), not {len(seed)} bytes"
        )
    return seed


def settings_from(
    level: str | None,
    daily: bool = False,
    replay_seed: str | None = None,
    now: dt.datetime | None = None,
) -> Settings:
    """The settings of a new table from the command line's options (unset: easy; the daily
    puzzle: today's date where the player is)."""
    settings = Settings()
    if level:
        settings.level = LEVEL_VALUES[level]
    if daily:
        settings.daily_date, settings.utc_offset_minutes = local_today(now)
    if replay_seed:
        settings.replay_seed = parse_seed(replay_seed)
    return settings
