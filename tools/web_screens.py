"""The browser client's screenshots in docs/img, taken from the real thing.

Starts the whole system (as `make test-web` does: tests/web/conftest.real_stack) and Debian's
Chromium, and takes, at 1280x800, in the light and the dark theme (prefers-color-scheme):

- docs/img/web-home-{light,dark}.png: the home page, the five games as pictures of their boards;
- docs/img/web-game-{light,dark}.png: a game's page (Match Cards, solo, two cards turned);
- docs/img/web-de-{light,dark}.png: a page in German (Number Match, the German seed's game);
- docs/img/web-el-{light,dark}.png: a page in Greek (Match Cards, the Greek seed's game);
- docs/img/web-profile-{light,dark}.png: the player's page (#/me) of a key made in the page that
  has played a ranked race against the bot (its rating, statistics, streak, the key's warning);
- docs/img/web-leaderboard-{light,dark}.png: the race's leaderboard, that player's row marked;
- docs/img/web-lobby-{light,dark}.png: the lobby (#/lobby) with an open race table and an open
  Concentration table, each waiting for a second player.

Run: `.venv/bin/python tools/web_screens.py` (a few minutes: the race is played to its end on
the real clock; nothing else needs to run).
"""

from __future__ import annotations

import contextlib
import re
import sys
import tempfile
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright  # noqa: E402

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, Shots, real_stack  # noqa: E402
from tests.web.racer import Clicks, Player  # noqa: E402

IMG = ROOT / "docs" / "img"
VIEW: ViewportSize = {"width": 1280, "height": 800}
Scheme = Literal["light", "dark"]
SCHEMES: tuple[Scheme, ...] = ("light", "dark")
LOCALES = {"en": "en-GB", "de": "de-DE", "el": "el-GR"}


def new_page(browser: Browser, scheme: Scheme, lang: str) -> Page:
    context = browser.new_context(
        viewport=VIEW, color_scheme=scheme, locale=LOCALES[lang], reduced_motion="reduce"
    )
    return context.new_page()


def shoot(page: Page, name: str, *, full_page: bool = False) -> None:
    page.wait_for_timeout(300)
    path = IMG / f"{name}.png"
    page.screenshot(path=str(path), animations="disabled", full_page=full_page)
    print(path.relative_to(ROOT))


FIGURES_WAIT_S = 60  # the players service folds the table log a moment after the game ends


def ranked_player(browser: Browser, base: str) -> Page:
    """A key made in the page, then a ranked race against the bot played to its end by clicks
    (tests/web/racer.py), until the profile shows the race's rating."""
    page = new_page(browser, "light", "en")
    racer = Player(page, Clicks(), Shots.named("web-screens"))
    page.goto(f"{base}/#/me")
    page.click("#make-key")
    expect(page.locator("#player-id")).to_have_attribute("data-player-id", re.compile("^k"))
    racer.create(base, "Kim")
    racer.play_game()
    page.goto(f"{base}/#/me")
    rating = page.locator('#ratings li[data-game="race"]')
    for _ in range(FIGURES_WAIT_S):
        if rating.count():
            break
        page.wait_for_timeout(1000)
        page.reload()
    expect(rating).to_be_visible()
    return page


def player_pages(page: Page, base: str, scheme: Scheme) -> None:
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{base}/#/me")
    expect(page.locator('#ratings li[data-game="race"]')).to_be_visible(timeout=20_000)
    expect(page.locator("#statistics li").first).to_be_visible()
    page.locator("body").click(position={"x": 5, "y": 5})
    shoot(page, f"web-profile-{scheme}", full_page=True)
    page.goto(f"{base}/#/leaderboard/race")
    expect(page.locator("#board-rows tr.me")).to_be_visible(timeout=20_000)
    shoot(page, f"web-leaderboard-{scheme}")


def open_tables(browser: Browser, base: str) -> list[Page]:
    """Two people each waiting at an open table: a race of two and a Concentration of two."""
    race = new_page(browser, "light", "en")
    race.goto(f"{base}/#/")
    race.fill("#display-name", "Ann")
    race.select_option("#seats", "2")
    race.uncheck("#fill-now")
    race.click("#create-race")
    expect(race).to_have_url(re.compile(r"#/play/race/[0-9a-z]{8,32}$"))
    conc = new_page(browser, "light", "en")
    conc.goto(f"{base}/#/play/concentration/new")
    conc.fill("#display-name", "Cora")
    conc.select_option("#players", "2")
    conc.select_option("#cards", "24")
    conc.uncheck("#cpu-fill")
    conc.click("#create-game")
    expect(conc).to_have_url(re.compile(r"#/play/concentration/[0-9a-z]{8,32}$"))
    return [race, conc]


def lobby(browser: Browser, base: str, scheme: Scheme) -> None:
    page = new_page(browser, scheme, "en")
    page.goto(f"{base}/#/lobby")
    expect(page.locator(".lobby-game .table-row")).to_have_count(2, timeout=15_000)
    page.locator("body").click(position={"x": 5, "y": 5})
    shoot(page, f"web-lobby-{scheme}")
    page.context.close()


def home(browser: Browser, base: str, scheme: Scheme) -> None:
    page = new_page(browser, scheme, "en")
    page.goto(f"{base}/#/")
    expect(page.locator("#open-tables p").first).to_be_visible()
    page.locator("body").click(position={"x": 5, "y": 400})  # the focus ring off the name field
    shoot(page, f"web-home-{scheme}")
    page.context.close()


def match_cards(browser: Browser, base: str, scheme: Scheme, lang: str, name: str) -> None:
    page = new_page(browser, scheme, lang)
    page.goto(f"{base}/#/play/match-cards/new")
    page.fill("#display-name", "Ελένη" if lang == "el" else "Ada")
    page.select_option("#cards", "20")
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/play/match-cards/[0-9a-z]+$"))
    for card in (1, 7):
        page.locator(f'.card[data-card="{card}"]').click()
        expect(page.locator(f'.card[data-card="{card}"]')).not_to_have_attribute(
            "data-state", "down"
        )
    shoot(page, name)
    page.context.close()


def number_match(browser: Browser, base: str, scheme: Scheme, lang: str, name: str) -> None:
    page = new_page(browser, scheme, lang)
    page.goto(f"{base}/#/play/number-match")
    page.fill("#display-name", "Jonas")
    page.click("#create-game")
    expect(page.locator(".nm")).to_have_attribute("data-phase", "playing")
    page.locator("#hint").click()
    expect(page.locator("#hint-text")).not_to_be_empty()
    shoot(page, name)
    page.context.close()


def main() -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as tmp,
        contextlib.contextmanager(real_stack)(Path(tmp) / "stack") as stack,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        for scheme in SCHEMES:
            home(browser, stack.web_url, scheme)
            match_cards(browser, stack.web_url, scheme, "en", f"web-game-{scheme}")
            number_match(browser, stack.web_url, scheme, "de", f"web-de-{scheme}")
            match_cards(browser, stack.web_url, scheme, "el", f"web-el-{scheme}")
        waiting = open_tables(browser, stack.web_url)
        for scheme in SCHEMES:
            lobby(browser, stack.web_url, scheme)
        for page in waiting:
            page.context.close()
        player = ranked_player(browser, stack.web_url)
        for scheme in SCHEMES:
            player_pages(player, stack.web_url, scheme)
        player.context.close()
        browser.close()


if __name__ == "__main__":
    main()
