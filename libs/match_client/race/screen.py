"""The full-screen view of ``match play``: one board redrawn in place, with the clock, the
standings and the event log (Textual).

It is only a view over ``match_client.race.play.Game``: the game follows the stream and sends
commands exactly as in the line mode; this app draws ``game.tracker`` a few times a second and
whenever something changed, writes every line the game tells into the log, and hands what is
typed at the prompt (or a click on a tile) to ``game.handle``. ``--plain`` keeps the line mode
for screen readers.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal
from textual.css.query import NoMatches
from textual.widgets import Input, RichLog, Static

from match_client import symbols
from match_client.race import text, timing
from match_client.race.play import Game
from match_client.race.tracker import RaceView, Revealed, Tile, ViewTracker

REDRAW_S = 0.2
URGENT_MS = 10_000  # the clock turns red in the last ten seconds

PHASE = {
    RaceView.PHASE_WAITING_FOR_PLAYERS: "waiting for players",
    RaceView.PHASE_READY: "Ready is open",
    RaceView.PHASE_COUNTDOWN: "starting",
    RaceView.PHASE_PLAYING: "playing",
    RaceView.PHASE_BETWEEN_BOARDS: "between boards",
    RaceView.PHASE_GAME_OVER: "game over",
}


def tile_label(tile: Tile, emoji: bool) -> Text:
    """``7`` face down; ``7 🐟 fish`` (or ``7 fish``) when up."""
    if not tile.up or tile.symbol is None:
        return Text(f"{tile.number:>2}")
    face = symbols.name(tile.symbol)
    if emoji:
        face = f"{symbols.emoji(tile.symbol)} {face}"
    return Text(f"{tile.number:>2} {face}")


def title_text(t: ViewTracker, name: str) -> str:
    board = f"board {t.board} of {text.BOARDS}" if t.board else "no board yet"
    out = " (out of the game)" if timing.is_out(t) else ""
    return f"Match · table {t.table_id} · {board} · {PHASE.get(t.phase, '')} · you: {name}{out}"


def last_revealed(t: ViewTracker) -> Revealed | None:
    """Once the game is over, its last board as its reveal gave it to everybody (the view
    holds no face of a board before its reveal)."""
    if not t.game_over or not t.revealed:
        return None
    return max(t.revealed, key=lambda r: r.board)


def revealed_tiles(last: Revealed) -> dict[int, Tile]:
    """A revealed layout as tiles, every face up."""
    return {
        n: Tile(n, RaceView.TILE_STATE_FOUND, symbol) for n, symbol in enumerate(last.layout, 1)
    }


def end_text(t: ViewTracker, last: Revealed) -> str:
    """Beside the last board's layout: the place, and how that board went for the player."""
    lines = []
    mine = next((s for s in t.standings if s.player == t.player), None)
    if mine is not None:
        lines.append(f"you placed {mine.place} of {len(t.standings)}")
    board = f"board {last.board} revealed"
    result = next((r for r in last.results if r.player == t.player), None)
    if result is not None:
        board += (
            f": you found {text.count(result.found, 'pair')} in {text.count(result.turns, 'turn')}"
        )
    lines.append(board)
    return "\n".join(lines)


def scores_text(t: ViewTracker) -> str:
    lines = text.scores_lines(t)
    return "\n".join(lines)


class TileCell(Static):
    """One tile: its number, and its symbol while it is up. A click turns it."""

    def __init__(self, number: int) -> None:
        super().__init__(f"{number:>2}", id=f"tile-{number}", classes="tile")
        self.number = number

    async def on_click(self, event: events.Click) -> None:
        app: Any = self.app
        await app.turn(self.number)


class MatchApp(App[int]):
    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; background: $primary; color: $text; padding: 0 1; }
    #clock { height: 1; padding: 0 1; text-style: bold; }
    #clock.urgent { color: $error; }
    #middle { height: 11; }
    #board { grid-size: 4 5; grid-gutter: 1 1; width: 64; height: 9; margin: 1 1 0 1; }
    .tile { height: 1; padding: 0 1; background: $panel; }
    .tile.showing { background: $warning 40%; text-style: bold; }
    .tile.found { background: $success 40%; }
    .tile.revealed { background: $secondary 30%; }
    #scores { width: 1fr; height: 11; padding: 0 1; border-left: solid $secondary; }
    #log { height: 1fr; border: round $secondary; }
    #command { dock: bottom; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+d", "leave", "leave", priority=True),
    ]

    def __init__(self, game: Game, early: list[str] | None = None, name: str = "") -> None:
        super().__init__()
        self.game = game
        self.early = list(early or [])
        self.player_name = name
        self.emoji = symbols.terminal_shows_emoji()
        self.lines: list[str] = []  # everything written to the log, in order
        self.title = "Match"

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="clock")
        with Horizontal(id="middle"):
            with Grid(id="board"):
                for n in range(1, 21):
                    yield TileCell(n)
            yield Static(id="scores")
        yield RichLog(id="log", wrap=True, markup=False)
        yield Input(
            placeholder="a tile 1-20, r Ready, h hint, s standings, t time, ? help; Ctrl-D leaves",
            id="command",
        )

    def on_mount(self) -> None:
        for line in self.early:
            self.write(line)
        self.write("type a tile's number and Enter, or click it; ? for help")
        self.game.out = self.write
        self.game.changed = self.redraw
        self.game.show_boards = False
        self.query_one("#command", Input).focus()
        self.redraw()
        self.set_interval(REDRAW_S, self.tick)
        self.run_worker(self.game.watch(), name="watch", exit_on_error=False)

    def write(self, line: str) -> None:
        self.lines.append(line)
        self.query_one("#log", RichLog).write(line)

    def tick(self) -> None:
        self.game.tick()
        self.redraw()

    def redraw(self) -> None:
        """Draw the tracker again (a timer and the play call it; once the app is closing its
        widgets are gone, and there is nothing left to draw)."""
        with contextlib.suppress(NoMatches):
            self._redraw()

    def _redraw(self) -> None:
        t = self.game.tracker
        now = self.game.now()
        self.query_one("#title", Static).update(title_text(t, self.player_name))
        clock = self.query_one("#clock", Static)
        line = timing.clock_line(t, now)
        if not line and t.game_over:
            line = "the game is over; Ctrl-D leaves"
        clock.update(line or " ")
        d = timing.deadline(t)
        clock.set_class(d is not None and d.at_ms - now <= URGENT_MS, "urgent")
        # Once the game is over: the last board's layout and the result beside it.
        last = last_revealed(t)
        tiles = revealed_tiles(last) if last is not None else t.tiles
        for n, tile in tiles.items():
            cell = self.query_one(f"#tile-{n}", TileCell)
            cell.update(tile_label(tile, self.emoji))
            cell.set_class(tile.state == RaceView.TILE_STATE_SHOWING, "showing")
            cell.set_class(last is None and tile.state == RaceView.TILE_STATE_FOUND, "found")
            cell.set_class(last is not None, "revealed")
        own = text.own_summary(t) if t.board else ""
        summary = end_text(t, last) if last is not None else own
        self.query_one("#scores", Static).update(
            "\n".join(x for x in (summary, scores_text(t)) if x)
        )

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        if event.value.strip():
            self.write(f"> {event.value.strip()}")
        await self.game.handle(text.parse_command(event.value))
        if self.game.left.is_set():  # left the table before its game started: nothing to show
            self.exit(0)

    async def turn(self, number: int) -> None:
        await self.game.handle(text.Turn(number))

    def action_leave(self) -> None:
        self.exit(0)

    async def run_game(self) -> int:
        result = await self.run_async()
        return result if result is not None else 0
