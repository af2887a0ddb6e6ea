"""The browser client in a real browser: Debian's Chromium, driven by Playwright, against the
whole system (`make test-web`; `make test` leaves this folder out).

The stack runs on the REAL clock (rate 1): the page's clock counts wall time, and a board's
countdown, pauses and grace are the players' own. The bot fills a table only when its host
starts it (REFEREE_FILL_WAIT_MS), as the page's "create" does, and thinks ten times faster
than a person (BOT_PACE 0.1): a game takes about 1.5 minutes instead of 2. That keeps the
game honest (docs/bot.md): the pace scales only its thinking time; it still knows only the
faces its own turns showed it, forgets by its own turns (so its strength is the same at any
pace), waits out the 1 s pause after every miss and never finishes a board under 12.5 s.

Playwright downloads no browser here: it launches /usr/bin/chromium (`make test-web` installs
Debian's package when it is missing). Screenshots go to ``build/web-screens/<test>/``: at the
points a test names (``shots.take(page, "board")``) and on a failure (``<n>-failure.png``,
with the page's console beside it).
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from match_launch.stack import ONE_ADDRESS_MANY_PLAYERS, Stack
from tests.conftest import running

CHROMIUM = Path("/usr/bin/chromium")
# Chromium's own background traffic (updates, sync, field trials, QUIC probes) is refused by a
# closed network, and some of it makes a headless start wait: none of it is wanted in a test.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENS = Path(__file__).resolve().parents[2] / "build" / "web-screens"
DESKTOP = {"width": 1280, "height": 900}

expect.set_options(timeout=10_000)


def real_stack(workdir: Path, **env: str) -> Iterator[Stack]:
    """The whole system on the real clock, bots filling only when a host starts a table;
    ``env`` adds to (or changes) those settings."""
    s = Stack(
        workdir,
        env={
            "REFEREE_CLOCK_RATE": "1",
            "REFEREE_CLOCK_ANCHOR_MS": str(int(time.time() * 1000)),
            "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
            "BOT_PACE": "0.1",  # quick thinking; the rules' guards hold whatever the pace
            # every browser context is a new player, all of them from 127.0.0.1
            **ONE_ADDRESS_MANY_PLAYERS,
            **env,
        },
    )
    yield from running(s)


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack for the folder: each test is a new player (a fresh browser context) at a
    table of its own, so nothing one test leaves behind matters to another."""
    yield from real_stack(tmp_path_factory.mktemp("web") / "stack")


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: make test-web installs Debian's chromium")
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()


@dataclass
class Console:
    """What a page said on its console, and the exceptions nobody caught in it."""

    lines: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def message(self, msg: ConsoleMessage) -> None:
        self.lines.append(f"[{msg.type}] {msg.text}")
        if "Content Security Policy" in msg.text:  # the page's own policy blocked something
            self.errors.append(msg.text)

    def error(self, exc: Exception) -> None:
        self.errors.append(str(exc))
        self.lines.append(f"[uncaught] {exc}")

    def listen(self, page: Page) -> Console:
        page.on("console", self.message)
        page.on("pageerror", self.error)
        return self


@dataclass
class Shots:
    """Numbered screenshots of one test, in ``build/web-screens/<test>/``; on a failure, one
    of every page it watches, with that page's console."""

    folder: Path
    n: int = 0
    taken: list[Path] = field(default_factory=list)
    watched: list[tuple[Page, Console]] = field(default_factory=list)
    failure_taken: bool = False

    @classmethod
    def named(cls, name: str) -> Shots:
        folder = SCREENS / re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        shutil.rmtree(folder, ignore_errors=True)
        return cls(folder)

    def take(self, page: Page, name: str, *, full_page: bool = False) -> Path:
        self.n += 1
        path = self.folder / f"{self.n}-{name}.png"
        self.folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), full_page=full_page, animations="disabled")
        self.taken.append(path)
        return path

    def watch(self, page: Page, console: Console | None = None) -> None:
        self.watched.append((page, console or Console()))

    def failed(self) -> None:
        if self.failure_taken:
            return
        self.failure_taken = True
        for i, (page, console) in enumerate(self.watched):
            if page.is_closed():
                continue
            self.take(page, "failure" if i == 0 else f"failure-{i}", full_page=True)
            name = "console.txt" if i == 0 else f"console-{i}.txt"
            (self.folder / name).write_text("\n".join(console.lines) + "\n")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """Keep each phase's report on the test item, for the screenshots of a failure."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def failed_now(request: pytest.FixtureRequest) -> bool:
    call = getattr(request.node, "report_call", None)
    return call is not None and bool(call.failed)


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Iterator[Shots]:
    taken = Shots.named(request.node.name)
    yield taken
    if failed_now(request):
        taken.failed()


def new_page(browser: Browser, **context: object) -> tuple[BrowserContext, Page, Console]:
    """A page in a fresh context (a new player: empty storage), its console recorded."""
    ctx = browser.new_context(**context)  # type: ignore[arg-type]
    page = ctx.new_page()
    return ctx, page, Console().listen(page)


def open_page(
    browser: Browser, request: pytest.FixtureRequest, shots: Shots, **context: object
) -> Iterator[Page]:
    """A page for one test, watched by its screenshots; uncaught exceptions in the page fail
    the test."""
    ctx, page, console = new_page(browser, **context)
    shots.watch(page, console)
    yield page
    if failed_now(request):  # before the page closes
        shots.failed()
    ctx.close()
    assert not console.errors, f"uncaught in the page: {console.errors}"


DESKTOP_CONTEXT: dict[str, object] = {"viewport": DESKTOP, "reduced_motion": "reduce"}
PHONE_CONTEXT: dict[str, object] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "reduced_motion": "reduce",
}


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """A desktop-sized page (1280x900) in a fresh context."""
    yield from open_page(browser, request, shots, **DESKTOP_CONTEXT)


@pytest.fixture
def phone(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """A phone-sized page (390x844, touch) in a fresh context."""
    yield from open_page(browser, request, shots, **PHONE_CONTEXT)


@dataclass
class FinishedGame:
    """A whole race game played by clicks, its page left at the end of the game."""

    page: Page
    console: Console
    table_id: str
    seed: str
    live: list[str]
    boards_played: list[int]
    turns: int
    looks: int
    check_href: str


@pytest.fixture(scope="session")
def game_by_clicks(stack: Stack, browser: Browser) -> Iterator[FinishedGame]:
    """One game by clicks for the folder, shared by the test of it and the auditor's page's
    (which checks that very game): a whole game takes about two minutes of wall time."""
    from tests.web.racer import Clicks, Player

    shots = Shots.named("game_by_clicks")
    ctx, page, console = new_page(browser, **DESKTOP_CONTEXT)
    shots.watch(page, console)
    try:
        player = Player(page, Clicks(), shots)
        table_id = player.create(stack.web_url, "Ada")
        player.play_game()
        seed = player.finish()
        game = FinishedGame(
            page=page,
            console=console,
            table_id=table_id,
            seed=seed,
            live=player.live(),
            boards_played=list(player.boards_played),
            turns=player.turns,
            looks=player.looks,
            check_href=page.locator("#check-game").get_attribute("href") or "",
        )
    except BaseException:
        shots.failed()
        ctx.close()
        raise
    yield game
    ctx.close()
