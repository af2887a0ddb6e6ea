"""What the pages tell a player, in a real browser (issue 31, the web client, item 7): the race's
waiting screen names no "Board 0" and marks nobody done; MATCH 5's invite help shows a code as
long as the real ones; Concentration's form says the idle limit that applies without a timer;
and a refusal reads as a sentence, a capital first and a full stop last, never with its slug.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from match_launch.stack import Stack
from tests.web.conftest import PHONE_CONTEXT, Shots, open_page

SLUG = re.compile(r"\b[a-z]+_[a-z_]+\b")  # a refusal's code: board_full, link_reused


def expect_sentence(text: str) -> None:
    assert re.fullmatch(r"[A-Z].*[.?!]", text, re.S), f"not a sentence: {text!r}"
    assert not SLUG.search(text), f"a refusal's slug shown to the player: {text!r}"


@pytest.fixture
def friend(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """A second player: another browser context."""
    yield from open_page(browser, request, shots, **PHONE_CONTEXT)


def test_the_race_waiting_screen_says_nobody_is_done(
    stack: Stack, page: Page, shots: Shots
) -> None:
    page.goto(f"{stack.web_url}/")
    page.fill("#display-name", "Wren")
    page.locator("#fill-now").uncheck()  # the table waits for a second player
    page.click("#create-race")
    race = page.locator(".race")
    expect(race).to_have_attribute("data-phase", "WAITING_FOR_PLAYERS")
    expect(page.locator("#board-number")).to_have_text("3 boards to play")
    expect(page.locator("#board-number")).to_have_attribute("data-board", "0")
    me = page.locator("#players tr.me td").first
    expect(me).to_have_text("waiting for players")
    expect(page.locator("#players")).not_to_contain_text("done")
    shots.take(page, "waiting")
    page.click("#start-now")  # the bot takes the seat: no open table is left behind
    expect(race).not_to_have_attribute("data-phase", "WAITING_FOR_PLAYERS")


def test_concentration_says_the_idle_limit_without_a_timer(stack: Stack, page: Page) -> None:
    page.goto(f"{stack.web_url}/#/play/concentration")
    untimed = page.locator('#turn-limit option[value="0"]')
    expect(untimed).to_have_text("2 minutes (solo: no limit)")  # IDLE_MS, rules-concentration
    assert "None" not in page.locator("#turn-limit").inner_text()


def test_match_5_invite_code_and_refusals_read_as_sentences(
    stack: Stack, page: Page, friend: Page, shots: Shots
) -> None:
    ann, bob = page, friend
    ann.goto(f"{stack.web_url}/#/play/match-5")
    help_text = ann.locator("#join-help").inner_text()
    example = re.search(r"e\.g\. ([A-Z0-9]+)\.", help_text)
    assert example is not None, help_text
    ann.fill("#display-name", "Ann")
    ann.select_option("#seats", "2")
    ann.click("#create-game")
    code_el = ann.locator("#invite-code")
    expect(code_el).to_have_text(re.compile(r"^[A-Z0-9]{4,}$"))
    code = code_el.inner_text()
    assert len(example.group(1)) == len(code) == 12, (example.group(1), code)

    # A code that opens nothing (the help's example): the lobby's words, as a sentence.
    bob.goto(f"{stack.web_url}/#/play/match-5")
    bob.fill("#display-name", "Bob")
    bob.fill("#join-code", example.group(1))
    bob.click("#join-game")
    error = bob.locator("#setup-error")
    expect(error).to_have_text(re.compile(r"^No table has the invite code "))
    expect_sentence(error.inner_text())

    bob.fill("#join-code", code)
    bob.click("#join-game")
    expect(ann.locator(".m5")).to_have_attribute("data-phase", "writing")

    # The same link twice: the rules refuse it (link_reused), and the page says why.
    first = ann.locator('input.link[data-combination="1"]')
    first.fill("Shark")
    first.press("Enter")
    expect(first).to_have_attribute("data-state", "saved")
    again = ann.locator('input.link[data-combination="2"]')
    again.fill("shark!")
    again.press("Enter")
    refused = ann.locator("#m5-error")
    expect(refused).to_contain_text("Shark")
    shots.take(ann, "refused")
    expect_sentence(refused.inner_text())
    assert "link_reused" not in refused.inner_text()
