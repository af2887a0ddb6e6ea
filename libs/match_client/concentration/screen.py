"""The full-screen view of ``match play --game concentration`` (Textual): the layout as a grid of
cards (numbers face down, faces up, empty places taken), whose turn it is and the turn timer,
each seat's pairs and tries with the CPU's and the dropped seats marked, the event log, and at
the end the final standings and the published seed.

It is only a view over ``concentration.ConcentrationPlay``: the play follows the stream and
sends the flips exactly as in the line mode; this app redraws ``play.tracker`` a few times a
second and whenever something changed, and hands what is typed (or a click on a card) to it.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal
from textual.css.query import NoMatches
from textual.widgets import Input, RichLog, Static

from match_client import symbols
from match_client.concentration import (
    TAKEN,
    UP,
    Card,
    ConcentrationPlay,
    clock_line,
    columns,
    seat_lines,
    seed_lines,
    standings_lines,
)
from match_rules.concentration.settings import PALETTE

REDRAW_S = 0.2
URGENT_MS = 10_000
MAX_CARDS = 54  # 52 and two jokers
EMOJI = dict(PALETTE)  # an emoji deck's face names and their pictures


def card_label(card: Card, emoji: bool) -> str:
    """``7`` face down, ``·`` taken; up, its face: a picture's emoji where the terminal draws
    emoji, else its name (a cell is 7 wide: the event log names every face flipped), and a
    playing card as ``QH``."""
    if card.state == TAKEN:
        return "·"
    if card.state != UP:
        return str(card.number)
    picture = EMOJI.get(card.face) if emoji else None
    return picture or card.face


class CardCell(Static):
    """One place of the layout. A click flips it."""

    def __init__(self, number: int) -> None:
        super().__init__(f"{number:>2}", id=f"card-{number}", classes="card")
        self.number = number

    async def on_click(self, event: events.Click) -> None:
        app: Any = self.app
        await app.flip(self.number)


class ConcentrationApp(App[int]):
    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    #clock { height: 1; padding: 0 1; text-style: bold; }
    #clock.urgent { color: $error; }
    #middle { height: 16; }
    #cards { grid-gutter: 0 1; width: 1fr; height: 14; margin: 1 1 0 1; }
    .card { height: 1; width: 7; background: $panel; content-align: center middle; }
    .card.up { background: $warning 40%; text-style: bold; }
    .card.taken { background: $surface; color: $text-muted; }
    .card.hidden { display: none; }
    #seats { width: 44; height: 16; padding: 0 1; border-left: solid $secondary; }
    #log { height: 1fr; border: round $secondary; }
    #command { dock: bottom; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+d", "leave", "leave", priority=True)]

    def __init__(self, play: ConcentrationPlay, early: list[str] | None = None) -> None:
        super().__init__()
        self.play = play
        self.early = list(early or [])
        self.lines: list[str] = []
        self.title = "Concentration"
        self.emoji = symbols.terminal_shows_emoji()  # MATCH_EMOJI=0/1 decides, as in the race
        self._across = 0
        self._told_end = False

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="clock")
        with Horizontal(id="middle"):
            with Grid(id="cards"):
                for n in range(1, MAX_CARDS + 1):
                    yield CardCell(n)
            yield Static(id="seats")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Input(
            placeholder="a card's number and Enter (or click it); s seats, ? help; Ctrl-D leaves",
            id="command",
        )

    def on_mount(self) -> None:
        for line in self.early:
            self.write(line)
        self.play.out = self.write
        self.play.changed = self.redraw
        self.play.show_board = False
        self.query_one("#command", Input).focus()
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
        now = self.play.now()
        you = t.name(t.player) if t.player else "watching"
        self.query_one("#title", Static).update(
            f"Concentration · table {t.table_id} · {t.size or '?'} cards · {you}"
        )
        clock = self.query_one("#clock", Static)
        clock.update(clock_line(t, now))
        urgent = bool(t.deadline_ms) and t.deadline_ms - now <= URGENT_MS and not t.game_over
        clock.set_class(urgent, "urgent")
        grid = self.query_one("#cards", Grid)
        across = columns(t.size) if t.size else 1
        if across != self._across:
            grid.styles.grid_size_columns = across
            self._across = across
        for n in range(1, MAX_CARDS + 1):
            cell = self.query_one(f"#card-{n}", CardCell)
            card = t.cards.get(n)
            cell.set_class(card is None, "hidden")
            if card is None:
                continue
            cell.update(card_label(card, self.emoji))
            cell.set_class(card.state == UP, "up")
            cell.set_class(card.state == TAKEN, "taken")
        panel = seat_lines(t, now)
        if t.game_over:
            panel += standings_lines(t)
            if t.seed is not None:
                panel += seed_lines(t)
            if self.play.ended and self.play.audit:
                panel.append(self.play.audit)
        self.query_one("#seats", Static).update("\n".join(panel) or "no seats yet")

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        if event.value.strip():
            self.write(f"> {event.value.strip()}")
        await self.play.handle(event.value)

    async def flip(self, number: int) -> None:
        await self.play.flip(number)

    def action_leave(self) -> None:
        self.exit(0)

    async def run_game(self) -> int:
        result = await self.run_async()
        return result if result is not None else 0
