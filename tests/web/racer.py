"""A person at the race's page: creates a table on the home page, presses Ready and plays
every board from what the page shows, by clicks or by the keyboard only.

The player has a perfect memory of what the page showed it: each tile's symbol, read from the
tile's label while it is up ("Tile 7, bee"). It turns a remembered pair first, the partner of
its first tile when it remembers one, otherwise a tile it has not seen. It waits out the pause
after a miss (the board's ``paused`` class, which the page keeps until the referee's pause is
surely over) and never finishes a board less than 12.5 s after its start (the page's clock,
never ahead of the referee's), as a person would not. Every look at the board checks that no
face-down tile's label names a symbol.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from playwright.sync_api import Page, expect

from match_client.symbols import NAMES as SYMBOL_NAMES

if TYPE_CHECKING:
    from tests.web.conftest import Shots

TILES = 20
COLUMNS = 4
BOARDS = 3
# The symbols' names: web/src/race/symbols.ts says them as the terminal client does.
NAMES = tuple(SYMBOL_NAMES)
UP_LABEL = re.compile(r"^Tile (\d+), ([a-z]+|symbol \d+)$")
CLEAR_NOT_BEFORE_MS = 12_500  # a clear under 12 s is disqualified; a person takes longer
BOARD_MS = 120_000
BOARD_WAIT_MS = 150_000  # the longest a board can take: Ready, countdown, the cap
# The live region's lines as they come (it keeps only the last few): an observer installed
# before the page's own script, on the whole document since #live does not exist yet.
LIVE_RECORDER = """
window.__live = [];
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target.id !== "live") continue;
    for (const n of r.addedNodes) {
      const text = (n.textContent || "").trim();
      if (text) window.__live.push(text);
    }
  }
}).observe(document, { subtree: true, childList: true });
"""
READ_TILES = """els => els.map(e => [Number(e.dataset.tile), e.dataset.state,
  e.getAttribute('aria-label'), e.getAttribute('aria-disabled') === 'true'])"""


class PageBroke(AssertionError):
    """The page showed something a player must never see."""


@dataclass(frozen=True)
class TileView:
    number: int
    state: str  # down | up | found
    label: str
    disabled: bool

    @property
    def symbol(self) -> str | None:
        """The symbol the label names, if the tile is up."""
        m = UP_LABEL.match(self.label)
        return m.group(2) if m and self.state == "up" else None


class Hands:
    """How the player acts on the page."""

    name = "hands"

    def create(self, page: Page, display_name: str) -> None:
        raise NotImplementedError

    def ready(self, page: Page) -> None:
        raise NotImplementedError

    def turn(self, page: Page, tile: int) -> None:
        raise NotImplementedError


class Clicks(Hands):
    name = "clicks"

    def create(self, page: Page, display_name: str) -> None:
        page.locator("#display-name").fill(display_name)
        page.locator("#create-race").click()

    def ready(self, page: Page) -> None:
        page.locator("#ready").click()

    def turn(self, page: Page, tile: int) -> None:
        page.locator(f'.tile[data-tile="{tile}"]').click()


def active(page: Page) -> dict[str, str | None]:
    """What has the keyboard focus: its id, and its tile number if it is a tile."""
    answer: dict[str, str | None] = page.evaluate(
        "() => { const e = document.activeElement;"
        " return { id: e ? e.id : null, tile: e && e.dataset ? e.dataset.tile ?? null : null }; }"
    )
    return answer


class Keys(Hands):
    """The keyboard only: Tab to reach things, arrows over the grid, Enter and Space to turn
    the focused tile, ``r`` for Ready. No mouse at all."""

    name = "keys"
    MAX_TABS = 60

    def __init__(self) -> None:
        self.turns = 0

    def tab_to(self, page: Page, reached: Callable[[dict[str, str | None]], bool]) -> None:
        for _ in range(self.MAX_TABS):
            if reached(active(page)):
                return
            page.keyboard.press("Tab")
        raise AssertionError(f"{self.MAX_TABS} Tabs did not reach it; focus on {active(page)}")

    def create(self, page: Page, display_name: str) -> None:
        self.tab_to(page, lambda a: a["id"] == "display-name")
        page.keyboard.press("Control+A")
        page.keyboard.type(display_name)
        self.tab_to(page, lambda a: a["id"] == "create-race")
        page.keyboard.press("Enter")

    def ready(self, page: Page) -> None:
        page.keyboard.press("r")

    def turn(self, page: Page, tile: int) -> None:
        if active(page)["tile"] is None:  # into the grid: Tab until a tile has the focus
            self.tab_to(page, lambda a: a["tile"] is not None)
        here = int(active(page)["tile"] or 0)
        row, col = divmod(here - 1, COLUMNS)
        to_row, to_col = divmod(tile - 1, COLUMNS)
        for _ in range(abs(to_row - row)):
            page.keyboard.press("ArrowDown" if to_row > row else "ArrowUp")
        for _ in range(abs(to_col - col)):
            page.keyboard.press("ArrowRight" if to_col > col else "ArrowLeft")
        expect(page.locator(f'.tile[data-tile="{tile}"]')).to_be_focused()
        self.turns += 1
        page.keyboard.press("Enter" if self.turns % 2 else " ")  # both turn a tile


@dataclass
class Player:
    page: Page
    hands: Hands
    shots: Shots | None = None
    memory: dict[int, str] = field(default_factory=dict)  # tile -> symbol, this board
    found: set[int] = field(default_factory=set)
    looks: int = 0  # board reads, each checked
    turns: int = 0
    boards_played: list[int] = field(default_factory=list)
    screens: set[str] = field(default_factory=set)
    played_s: dict[int, float] = field(default_factory=dict)  # board -> its start to my end
    misses: int = 0  # the misses seen since the page was (re)loaded

    def __post_init__(self) -> None:
        self.page.add_init_script(LIVE_RECORDER)

    # --- looking -----------------------------------------------------------------------------

    def look(self) -> dict[int, TileView]:
        """Every tile as the page shows it; learns the faces that are up, and checks that no
        face-down tile's label names a symbol (and that the last board's faces, revealed,
        show only once the game is over)."""
        rows = self.page.locator(".tile").evaluate_all(READ_TILES)
        tiles = {n: TileView(n, s, label, d) for n, s, label, d in rows}
        assert sorted(tiles) == list(range(1, TILES + 1)), sorted(tiles)
        self.looks += 1
        for t in tiles.values():
            if t.state == "down":
                if t.label != f"Tile {t.number}, face down" or any(
                    re.search(rf"\b{name}\b", t.label) for name in NAMES
                ):
                    raise PageBroke(f"a face-down tile says {t.label!r}")
            elif t.state == "found":
                assert t.label == f"Tile {t.number}, found", t.label
                self.found.add(t.number)
            elif t.state == "revealed":  # the last board's layout, once the game is over
                if self.phase() != "GAME_OVER":
                    raise PageBroke(f"a face before the game's end: {t.label!r}")
                assert UP_LABEL.match(t.label) and t.disabled, t
            else:
                assert t.state == "up", t.state
                symbol = t.symbol
                assert symbol is not None and (symbol in NAMES or symbol.startswith("symbol")), (
                    t.label
                )
                self.memory[t.number] = symbol
        return tiles

    def phase(self) -> str:
        return self.page.locator(".race").get_attribute("data-phase") or ""

    def board_number(self) -> int:
        return int(self.page.locator("#board-number").get_attribute("data-board") or 0)

    def live(self) -> list[str]:
        lines: list[str] = self.page.evaluate("() => window.__live || []")
        return lines

    def shot(self, name: str) -> None:
        """A screenshot at a named point, once per name."""
        if self.shots is not None and name not in self.screens:
            self.screens.add(name)
            self.shots.take(self.page, name)

    # --- a game --------------------------------------------------------------------------------

    def create(self, web_url: str, display_name: str) -> str:
        """Open the home page, make a race table for two (the bot takes the other seat);
        returns the table id from the race page's address."""
        self.page.goto(web_url + "/#/")
        expect(self.page.locator("#create-race")).to_be_visible()
        self.shot("home")
        self.hands.create(self.page, display_name)
        expect(self.page).to_have_url(re.compile(r"#/play/race/[a-z0-9]+$"))
        return self.page.url.rsplit("/", 1)[1]

    def play_game(self, *, stop_after_pairs: tuple[int, int] | None = None) -> None:
        """Every board from the current one to the end of the game. With ``stop_after_pairs``
        ``(board, pairs)``: return as soon as that many pairs are found on that board."""
        while True:
            board = self.wait_ready_or_over()
            if board == 0:
                return
            if self.play_board(board, stop_after_pairs):
                return

    def resume(self) -> None:
        """After a reload mid-board: play this board on (from what is remembered and what
        the page shows again), then the rest of the game."""
        assert self.phase() == "PLAYING", self.phase()
        self.play_board(self.board_number(), None)
        self.play_game()

    def wait_ready_or_over(self) -> int:
        """Until Ready is open for a board not yet played (returns its number) or the game is
        over (returns 0)."""
        deadline = time.monotonic() + BOARD_WAIT_MS / 1000
        ready = self.page.locator("#ready")
        while time.monotonic() < deadline:
            phase = self.phase()
            if phase == "GAME_OVER":
                return 0
            board = self.board_number()
            if phase == "READY" and ready.is_visible() and board not in self.boards_played:
                return board
            if phase == "PLAYING" and board not in self.boards_played:  # a reload mid-board
                return board
            self.page.wait_for_timeout(100)
        raise AssertionError(f"neither Ready nor the end came; phase {self.phase()}")

    def play_board(self, board: int, stop_after_pairs: tuple[int, int] | None) -> bool:
        """One board, from Ready (or from where a reload left it) to its end for this player.
        True when it stopped at ``stop_after_pairs``."""
        page = self.page
        if board not in self.boards_played:
            self.boards_played.append(board)
        if self.phase() == "READY":
            self.memory.clear()
            self.found.clear()
            expect(page.locator("#ready")).not_to_have_attribute("aria-disabled", "true")
            self.shot(f"ready-{board}")
            self.hands.ready(page)
            # the button says so, unless the board's countdown came at once (the bot was ready)
            expect(
                page.locator('#ready[aria-disabled="true"], .race:not([data-phase="READY"])').first
            ).to_be_attached()
        # the board's start: its tiles become turnable (the countdown is 3 s)
        expect(page.locator(".race")).to_have_attribute("data-phase", "PLAYING", timeout=60_000)
        expect(page.locator('.tile[aria-disabled="true"][data-state="down"]')).to_have_count(
            0, timeout=10_000
        )
        began = time.monotonic()
        while True:
            tiles = self.look()
            pairs = len(self.found) // 2
            if stop_after_pairs == (board, pairs):
                return True
            if pairs == 3:
                self.shot("board")
            if len(self.found) == TILES or self.phase() != "PLAYING" or self.over_for_me(tiles):
                self.shot(f"board-{board}-done")
                self.played_s[board] = self.played_s.get(board, 0) + time.monotonic() - began
                return False
            showing = [t for t in tiles.values() if t.state == "up"]
            if len(showing) == 2:  # a miss: its pause first
                self.shot("miss")
                self.wait_out_the_pause()
            tile = self.choose(tiles)
            if self.would_clear(tiles, tile):
                self.wait_clear_allowed()
            self.hands.turn(page, tile)
            self.turns += 1
            # the tile turns up; or the board ended meanwhile (20 s after another's clear)
            expect(
                page.locator(
                    f'.tile[data-tile="{tile}"]:is([data-state="up"], [data-state="found"],'
                    ' [aria-disabled="true"])'
                )
            ).to_have_count(1)

    def wait_out_the_pause(self) -> None:
        """Until the page has said this miss (the second tile may show before the miss is
        known: the stream can bring the two events apart) and its pause is over. Two tiles
        up may also be a pair whose PairFound has not come yet: then they turn found, and
        there is no pause to wait for."""
        said = self.page.wait_for_function(
            """n => {
                const misses = (window.__live || []).filter(l => l.startsWith("No pair:"));
                if (document.querySelectorAll('.tile[data-state="up"]').length < 2) {
                    return { misses: misses.length };  // a pair after all
                }
                const paused = document.getElementById("board").classList.contains("paused");
                return misses.length >= n && !paused ? { misses: misses.length } : false;
            }""",
            arg=self.misses + 1,
            timeout=5_000,
        ).json_value()
        self.misses = int(said["misses"])

    def reload(self) -> None:
        """Reload the page (the live region's record starts again)."""
        self.page.reload()
        self.misses = 0

    def over_for_me(self, tiles: dict[int, TileView]) -> bool:
        """The page takes no turn on any tile: the board is over for this player."""
        return all(t.disabled for t in tiles.values())

    def choose(self, tiles: dict[int, TileView]) -> int:
        down = [n for n, t in tiles.items() if t.state == "down"]
        showing = [n for n, t in tiles.items() if t.state == "up"]
        unseen = [n for n in down if n not in self.memory]
        if len(showing) == 1:  # the second tile: the partner if remembered, else a new one
            partner = [n for n in down if self.memory.get(n) == self.memory[showing[0]]]
            return (partner or unseen or down)[0]
        by_symbol: dict[str, list[int]] = {}
        for n in down:
            if n in self.memory:
                by_symbol.setdefault(self.memory[n], []).append(n)
        for pair in by_symbol.values():  # a remembered pair first
            if len(pair) == 2:
                return pair[0]
        return (unseen or down)[0]

    def would_clear(self, tiles: dict[int, TileView], tile: int) -> bool:
        """This turn would find the last pair."""
        found = sum(1 for t in tiles.values() if t.state == "found")
        showing = [n for n, t in tiles.items() if t.state == "up"]
        return (
            found == TILES - 2
            and len(showing) == 1
            and self.memory.get(tile) == self.memory.get(showing[0])
        )

    def wait_clear_allowed(self) -> None:
        """Until 12.5 s of the board have passed by the page's clock (the two-minute
        countdown's ``data-left-ms``), unless somebody cleared already (the clock counts the
        20 s to finish then)."""
        self.page.wait_for_function(
            """([cap, least]) => {
                const c = document.getElementById('clock');
                if (c === null || c.dataset.kind !== 'board') return true;
                return cap - Number(c.dataset.leftMs) >= least;
            }""",
            arg=[BOARD_MS, CLEAR_NOT_BEFORE_MS],
            timeout=20_000,
        )

    def finish(self) -> str:
        """At the end of the game: the published seed."""
        page = self.page
        expect(page.locator("#game-over")).to_be_visible(timeout=BOARD_WAIT_MS)
        expect(page.locator("#seed")).to_have_text(re.compile(r"^[0-9a-f]{16,}$"))
        expect(page.locator("#standings li")).to_have_count(2)
        page.locator("#game-over").scroll_into_view_if_needed()
        self.shot("game-over")
        return page.locator("#seed").inner_text()
