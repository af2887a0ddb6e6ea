"""The full-screen view of ``match play --game match-cards`` (Textual): the player's copy as a grid
of cards (numbers face down, the picture's name while turned or found), the counters (groups
found of the total, the time, failed attempts of the limit), the compare in progress, Hard's
"Same picture"/"Different pictures" notice (``n`` turns it off for the rest of the game), the
others' progress at a challenge table, the event log, and at the end the result, the game code
and the command that checks the game.

It is only a view over ``match_cards.MatchCardsPlay``: the play follows the stream and sends the
cards exactly as in the line mode; this app redraws ``play.tracker`` a few times a second and
whenever something changed, and hands what is typed (or a click on a card) to it.
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

from match_client.match_cards import (
    COLUMNS,
    DOWN,
    FOUND,
    UP,
    MatchCardsPlay,
    counters_line,
    end_lines,
    notice_text,
    others_lines,
    settings_text,
)

REDRAW_S = 0.2
MAX_CARDS = 60
WIDTH = 12  # a cell: the number and the picture's name, cut to fit


class CardCell(Static):
    """One card of the player's copy. A click turns it."""

    def __init__(self, number: int) -> None:
        super().__init__(f"{number:>2}", id=f"card-{number}", classes="card")
        self.number = number

    async def on_click(self, event: events.Click) -> None:
        app: Any = self.app
        await app.turn(self.number)


def cell_label(number: int, state: str, picture: str) -> str:
    if state == DOWN:
        return str(number)
    return f"{number} {picture}"[:WIDTH]


class MatchCardsApp(App[int]):
    CSS = f"""
    Screen {{ layout: vertical; }}
    #title {{ height: 1; background: $primary; color: $text; padding: 0 1; }}
    #counters {{ height: 1; padding: 0 1; text-style: bold; }}
    #notice {{ height: 1; padding: 0 1; color: $warning; }}
    #middle {{ height: 14; }}
    #cards {{ grid-gutter: 0 1; width: 1fr; height: 12; margin: 1 1 0 1; }}
    .card {{ height: 1; width: {WIDTH}; background: $panel; content-align: center middle; }}
    .card.up {{ background: $warning 40%; text-style: bold; }}
    .card.found {{ background: $success 30%; }}
    .card.hidden {{ display: none; }}
    #others {{ width: 44; height: 14; padding: 0 1; border-left: solid $secondary; }}
    #log {{ height: 1fr; border: round $secondary; }}
    #command {{ dock: bottom; }}
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+d", "leave", "leave", priority=True)]

    def __init__(self, play: MatchCardsPlay, early: list[str] | None = None) -> None:
        super().__init__()
        self.play = play
        self.early = list(early or [])
        self.lines: list[str] = []
        self.title = "Match Cards"
        self._across = 0

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="counters")
        yield Static(id="notice")
        with Horizontal(id="middle"):
            with Grid(id="cards"):
                for n in range(1, MAX_CARDS + 1):
                    yield CardCell(n)
            yield Static(id="others")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Input(
            placeholder="a card's number and Enter (or click it); n notice off, ? help; "
            "Ctrl-D leaves",
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
        what = settings_text(t) if t.started else "waiting for players"
        self.query_one("#title", Static).update(f"Match Cards · table {t.table_id} · {what}")
        counters = counters_line(t, now) if t.started else ""
        if t.compare_at_ms:
            counters += " · comparing"
        self.query_one("#counters", Static).update(counters)
        notice = ""
        if t.notice is not None and t.notice_on:
            notice = f"{notice_text(t.notice[1])} (n: turn this notice off for the game)"
        self.query_one("#notice", Static).update(notice)
        grid = self.query_one("#cards", Grid)
        across = t.columns or COLUMNS.get(t.size, 6)
        if across != self._across:
            grid.styles.grid_size_columns = across
            self._across = across
        for n in range(1, MAX_CARDS + 1):
            cell = self.query_one(f"#card-{n}", CardCell)
            card = t.cards.get(n)
            cell.set_class(card is None, "hidden")
            if card is None:
                continue
            cell.update(cell_label(n, card.state, card.picture))
            cell.set_class(card.state == UP, "up")
            cell.set_class(card.state == FOUND, "found")
        panel = others_lines(t)
        if self.play.ended:
            panel = end_lines(t, self.play.audit, self.play.match)
        self.query_one("#others", Static).update("\n".join(panel))

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        if event.value.strip():
            self.write(f"> {event.value.strip()}")
        await self.play.handle(event.value)

    async def turn(self, number: int) -> None:
        await self.play.turn(number)

    def action_leave(self) -> None:
        self.exit(0)

    async def run_game(self) -> int:
        result = await self.run_async()
        return result if result is not None else 0
