"""The browser client's screenshots in docs/img, taken from the real thing.

Starts the whole system (as `make test-web` does: tests/web/conftest.real_stack) and Debian's
Chromium, and takes, at 1280x800, in the light and the dark theme (prefers-color-scheme):

- docs/img/web-home-{light,dark}.png: the home page, the five games as pictures of their boards;
- docs/img/web-game-{light,dark}.png: a game's page (Match Cards, solo, two cards turned);
- docs/img/web-de-{light,dark}.png: a page in German (Number Match, the German seed's game);
- docs/img/web-el-{light,dark}.png: a page in Greek (Match Cards, the Greek seed's game).

Run: `.venv/bin/python tools/web_screens.py` (a minute or two; nothing else needs to run).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, real_stack  # noqa: E402

IMG = ROOT / "docs" / "img"
VIEW = {"width": 1280, "height": 800}
LOCALES = {"en": "en-GB", "de": "de-DE", "el": "el-GR"}


def new_page(browser: Browser, scheme: str, lang: str) -> Page:
    context = browser.new_context(
        viewport=VIEW, color_scheme=scheme, locale=LOCALES[lang], reduced_motion="reduce"
    )
    return context.new_page()


def shoot(page: Page, name: str) -> None:
    page.wait_for_timeout(300)
    path = IMG / f"{name}.png"
    page.screenshot(path=str(path), animations="disabled")
    print(path.relative_to(ROOT))


def home(browser: Browser, base: str, scheme: str) -> None:
    page = new_page(browser, scheme, "en")
    page.goto(f"{base}/#/")
    expect(page.locator("#open-tables p").first).to_be_visible()
    page.locator("body").click(position={"x": 5, "y": 400})  # the focus ring off the name field
    shoot(page, f"web-home-{scheme}")
    page.context.close()


def match_cards(browser: Browser, base: str, scheme: str, lang: str, name: str) -> None:
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


def number_match(browser: Browser, base: str, scheme: str, lang: str, name: str) -> None:
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
    with tempfile.TemporaryDirectory() as tmp:
        stacks = real_stack(Path(tmp) / "stack")
        stack = next(stacks)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
                )
                for scheme in ("light", "dark"):
                    home(browser, stack.web_url, scheme)
                    match_cards(browser, stack.web_url, scheme, "en", f"web-game-{scheme}")
                    number_match(browser, stack.web_url, scheme, "de", f"web-de-{scheme}")
                    match_cards(browser, stack.web_url, scheme, "el", f"web-el-{scheme}")
                browser.close()
        finally:
            stacks.close()


if __name__ == "__main__":
    main()
