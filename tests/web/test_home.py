"""The first look: the lobby's web edge serves the page, and the page draws its home."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from match_launch.stack import Stack
from tests.web.conftest import Shots


def test_home_page_loads(stack: Stack, page: Page, shots: Shots) -> None:
    page.goto(stack.web_url + "/")
    expect(page).to_have_title("Match")
    expect(page.locator("#display-name")).to_be_focused()
    expect(page.locator("#create-race")).to_be_enabled()
    expect(page.locator("#open-tables")).to_contain_text("No open race table")
    expect(page.locator("#live")).to_have_attribute("aria-live", "polite")
    shots.take(page, "home")
