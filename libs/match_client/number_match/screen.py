"""The full-screen view of ``match play --game number-match`` (Textual): the board nine cells
wide under the columns' numbers, each row labelled with its number and its cells (an empty cell
blank), a cursor, the selection and the last hint's pair highlighted; the counters (score,
additions left or "no limit", hints left, moves, time); the event log; and at the end the
outcome, the seed, how to play the board again and the command that checks the game.

Keys, as on the game's page: the arrows move the cursor, Space or Enter selects the number under
it (the first, then the second: a pair disappears; if they make no pair, the second becomes the
selection), A adds numbers, H shows a hint, U undoes, E ends the game after asking, and a click
selects a cell too. ``:`` opens the prompt, which takes the line mode's commands (``p 3 12``);
Ctrl-D leaves (the game waits: ``match play --resume``).

It is only a view over ``number_match.NumberMatchPlay``: the play follows the stream and sends
the commands exactly as in the line mode; this app redraws ``play.tracker`` a few times a second
and whenever something changed.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import Button, Input, RichLog, Static

from match_client.number_match import (
    NumberMatchPlay,
    NumberMatchTracker,
    end_lines,
    settings_text,
    status_line,
    where,
)
from match_rules.number_match.board import WIDTH

REDRAW_S = 0.2
CELL = 3  # characters a cell takes
LABEL = 5  # "  12 ": the row's number


def board_text(t: NumberMatchTracker, cursor: int | None, selection: int | None) -> Text:
    """The board as drawn: the columns' numbers on top, a row's number before it, a cell
    ``CELL`` wide (blank when empty). The selection is yellow, the hint's pair green, the
    cursor reversed (underlined over a highlighted cell)."""
    out = Text()
    out.append(" " * LABEL + "".join(f"{c:>{CELL}}" for c in range(1, WIDTH + 1)), "dim")
    hinted = t.hinted() or ()
    for start in range(0, len(t.board), WIDTH):
        out.append("\n")
        out.append(f"{start // WIDTH + 1:>{LABEL - 1}} ", "dim")
        for i in range(start, min(start + WIDTH, len(t.board))):
            n = t.board[i]
            cell = f"{n:>{CELL}}" if n else " " * CELL
            style = ""
            if i + 1 == selection:
                style = "bold black on yellow"
            elif i + 1 in hinted:
                style = "bold black on green"
            if i == cursor:
                style = f"{style} underline" if style else "bold reverse"
            out.append(cell, style)
    return out


def cell_at(x: int, y: int, size: int) -> int | None:
    """The cell (0-based) drawn at ``x``, ``y`` of the board, or None."""
    column = (x - LABEL) // CELL
    if y < 1 or x < LABEL or column >= WIDTH:
        return None
    cell = (y - 1) * WIDTH + column
    return cell if cell < size else None


class Board(Static, can_focus=True):
    """The board, with the keys of the game. A click selects the cell under it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-9)", "up", show=False),
        Binding("down", "move(9)", "down", show=False),
        Binding("left", "move(-1)", "left", show=False),
        Binding("right", "move(1)", "right", show=False),
        Binding("space", "select", "select"),
        Binding("enter", "select", "select", show=False),
        Binding("a", "add", "add numbers"),
        Binding("h", "hint", "hint"),
        Binding("u", "undo", "undo"),
        Binding("e", "end", "end the game"),
        Binding("colon", "prompt", "prompt"),
    ]

    async def on_click(self, event: events.Click) -> None:
        app: Any = self.app
        await app.click(event.x, event.y)

    def action_move(self, by: int) -> None:
        app: Any = self.app
        app.move(by)

    async def action_select(self) -> None:
        app: Any = self.app
        await app.select()

    async def action_add(self) -> None:
        app: Any = self.app
        await app.play.add()

    async def action_hint(self) -> None:
        app: Any = self.app
        await app.play.hint()

    async def action_undo(self) -> None:
        app: Any = self.app
        await app.play.undo()

    def action_end(self) -> None:
        app: Any = self.app
        app.ask_end()

    def action_prompt(self) -> None:
        self.app.query_one("#command", Input).focus()


class ConfirmEnd(ModalScreen[bool]):
    """Asks before the game is ended, so it is not lost by accident."""

    CSS = """
    ConfirmEnd { align: center middle; }
    #ask { width: 60; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    #ask Horizontal { height: auto; margin-top: 1; }
    #ask Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "end it"),
        Binding("e", "answer(True)", "end it", show=False),
        Binding("n", "answer(False)", "go on"),
        Binding("escape", "answer(False)", "go on", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="ask"):
            yield Static("End this game now? Its board cannot be played on afterwards.")
            with Horizontal():
                yield Button("y: end it", id="yes", variant="error")
                yield Button("n: go on", id="no", variant="primary")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class NumberMatchApp(App[int]):
    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    #counters { height: 1; padding: 0 1; text-style: bold; }
    #notice { height: 1; padding: 0 1; color: $warning; }
    #middle { height: 1fr; }
    #scroll { width: 40; height: 1fr; margin: 1 1 0 1; }
    #board { width: 40; }
    #board:focus { background: $boost; }
    #side { width: 1fr; padding: 0 1; border-left: solid $secondary; }
    #log { height: 8; border: round $secondary; }
    #command { dock: bottom; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+d", "leave", "leave", priority=True)]
    KEYS = (
        "arrows move · Space/Enter select · a add numbers · h hint · u undo · e end the game "
        "(asks first) · : prompt (p 3 12) · Ctrl-D leave"
    )

    def __init__(self, play: NumberMatchPlay, early: list[str] | None = None) -> None:
        super().__init__()
        self.play = play
        self.early = list(early or [])
        self.lines: list[str] = []
        self.title = "Number Match"
        self.cursor = 0
        self.asking = False

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="counters")
        yield Static(id="notice")
        with Horizontal(id="middle"):
            with VerticalScroll(id="scroll"):
                yield Board(id="board")
            yield Static(id="side")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Input(placeholder="press : for commands (p 3 12, a, h, u, end, ?)", id="command")

    def on_mount(self) -> None:
        for line in self.early:
            self.write(line)
        self.play.out = self.write
        self.play.changed = self.redraw
        self.play.show_board = False
        self.query_one("#board", Board).focus()
        self.redraw()
        self.set_interval(REDRAW_S, self.redraw)
        self.run_worker(self.play.watch(), name="watch", exit_on_error=False)

    def write(self, line: str) -> None:
        self.lines.append(line)
        self.query_one("#log", RichLog).write(line)

    def redraw(self) -> None:
        """Draw the tracker again (a timer and the play call it; once the app is closing its
        widgets are gone, and there is nothing left to draw)."""
        with contextlib.suppress(NoMatches):
            self._redraw()

    def _redraw(self) -> None:
        t = self.play.tracker
        what = settings_text(t) if t.started else "waiting for the game to start"
        self.query_one("#title", Static).update(f"Number Match · table {t.table_id} · {what}")
        counters = status_line(t, self.play.now()) if t.started else ""
        self.query_one("#counters", Static).update(counters)
        self.query_one("#notice", Static).update(self.notice())
        self.cursor = max(0, min(self.cursor, len(t.board) - 1))
        board = self.query_one("#board", Board)
        if not t.board:
            board.update("the board is clear" if t.started else "")
        else:
            board.update(board_text(t, self.cursor, self.play.selection))
        side = (
            end_lines(t, self.play.audit, self.play.match) if self.play.ended else self.side_lines()
        )
        self.query_one("#side", Static).update("\n".join(side))

    def notice(self) -> str:
        t = self.play.tracker
        if self.play.ended or t.game_over:
            return "the game is over"
        if self.play.notice:
            return self.play.notice
        if self.play.selection is not None:
            n = self.play.selection
            return f"selected: cell {n} ({t.board[n - 1]}); now the second number"
        return ""

    def side_lines(self) -> list[str]:
        t = self.play.tracker
        out = []
        if t.board and 0 <= self.cursor < len(t.board):
            n = t.board[self.cursor]
            under = str(n) if n else "empty"
            out.append(f"cursor: cell {self.cursor + 1}, {where(self.cursor + 1)}: {under}")
        hinted = t.hinted()
        if hinted:
            out.append(f"hint: cells {hinted[0]} and {hinted[1]} (green)")
        out += ["", *self.KEYS.split(" · ")]
        return out

    # --- what the keys do ----------------------------------------------------------------------

    def move(self, by: int) -> None:
        size = len(self.play.tracker.board)
        if not size:
            return
        self.cursor = max(0, min(self.cursor + by, size - 1))
        self.play.notice = ""
        self.redraw()
        row = self.cursor // WIDTH
        with contextlib.suppress(NoMatches):
            self.query_one("#scroll", VerticalScroll).scroll_to_region(
                Region(0, row, LABEL + CELL * WIDTH, 3), animate=False
            )

    async def select(self) -> None:
        if self.play.tracker.board:
            await self.play.select(self.cursor + 1)

    async def click(self, x: int, y: int) -> None:
        cell = cell_at(x, y, len(self.play.tracker.board))
        if cell is not None:
            self.cursor = cell
            await self.play.select(cell + 1)

    def ask_end(self) -> None:
        if self.play.ended or self.asking:
            return
        self.asking = True

        async def answered(yes: bool | None) -> None:
            self.asking = False
            if yes:
                await self.play.end()
            else:
                self.play.say("the game goes on")
            self.query_one("#board", Board).focus()

        self.push_screen(ConfirmEnd(), answered)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        if event.value.strip():
            self.write(f"> {event.value.strip()}")
        await self.play.handle(event.value)
        self.query_one("#board", Board).focus()

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.focused is self.query_one("#command", Input):
            self.query_one("#board", Board).focus()

    def action_leave(self) -> None:
        self.exit(0)

    async def run_game(self) -> int:
        result = await self.run_async()
        return result if result is not None else 0
