"""The pages fit the screens players have (issue 31, the web client, items 3-6): a laptop's
1280x800 and a phone's 390x844.

- The race's board is whole on the screen during a timed board: every tile within the
  viewport and above the announcement bar (the sticky ``#live`` footer), so nobody scrolls
  while the clock runs.
- The end of a race shows its result in view and, on the board, the last board's layout as
  its reveal gave it to everybody (never a blank face-down grid, never a face before the reveal).
- The home page lists all five games on its first screen.
- At a phone's width nothing scrolls sideways: the race's end, the auditor's page and Number
  Match's setup (long seeds and hashes wrap).

The screenshots of the board and of the end at 1280x800 are the README's and docs/client.md's
(docs/img/web-board.png, docs/img/web-game-over.png: copied from build/web-screens).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from match_launch.stack import Stack
from tests.web.conftest import PHONE_CONTEXT, FinishedGame, Shots, open_page
from tests.web.racer import TILES, Clicks, Player

LAPTOP = {"width": 1280, "height": 800}
LAPTOP_CONTEXT: dict[str, object] = {"viewport": LAPTOP, "reduced_motion": "reduce"}
PHONE = {"width": 390, "height": 844}
GAMES = ["race", "concentration", "match-cards", "number-match", "match-5"]


@pytest.fixture
def laptop(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """A laptop-sized page (1280x800) in a fresh context."""
    yield from open_page(browser, request, shots, **LAPTOP_CONTEXT)


def viewport(page: Page) -> dict[str, int]:
    size = page.viewport_size
    assert size is not None
    return {"width": size["width"], "height": size["height"]}


def bar_top(page: Page) -> float:
    """Where the announcement bar begins (the viewport's bottom while it says nothing)."""
    box = page.locator("footer").bounding_box()
    height = viewport(page)["height"]
    if box is None or box["height"] == 0:
        return height
    return min(box["y"], height)


def assert_in_view(page: Page, selector: str) -> None:
    """Every element the selector matches is whole within the viewport, above the bar."""
    boxes = page.locator(selector).evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })"
    )
    assert boxes, f"nothing matches {selector}"
    size, bottom = viewport(page), bar_top(page)
    for left, top, right, low in boxes:
        assert left >= 0 and right <= size["width"], (selector, left, right, size)
        assert top >= 0 and low <= bottom, (
            f"{selector} spans {top:.0f}-{low:.0f} px; the screen shows 0-{bottom:.0f} px "
            f"above the announcement bar ({size['width']}x{size['height']})"
        )


def assert_board_whole(page: Page) -> None:
    """The whole board in view and not under the announcement bar, without scrolling."""
    assert page.evaluate("() => window.scrollY") == 0, "the page was scrolled"
    assert_in_view(page, "#board")
    assert_in_view(page, "#board .tile")
    assert_in_view(page, "#clock")


def assert_no_sideways_scroll(page: Page, what: str) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= viewport(page)["width"], (
        f"{what} is {width} px wide at a {viewport(page)['width']} px viewport"
    )


def revealed_layout(page: Page, board: int) -> list[str]:
    """The labels of a revealed board's layout, tile 1 first, from its reveal's section."""
    labels: list[str] = page.locator(
        f'section.revealed[data-board="{board}"] .mini-tile'
    ).evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    return labels


def assert_end_shows_the_last_board(page: Page) -> None:
    """The board shows the last board's whole layout, as revealed, and the result is in view."""
    expect(page.locator("#game-over")).to_be_visible()
    expect(page.locator('#board .tile[data-state="revealed"]')).to_have_count(TILES)
    layout = revealed_layout(page, 3)
    assert len(layout) == TILES and all(re.fullmatch(r"Tile \d+, [a-z]+", x) for x in layout)
    shown = page.locator("#board .tile").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert shown == layout, (shown, layout)
    expect(page.locator("#my-counts")).to_have_text(re.compile(r"^Board 3, revealed: you found "))
    assert_in_view(page, "#game-over h2")
    assert_in_view(page, "#my-place")
    expect(page.locator("#my-place")).to_have_text(re.compile(r"^You placed [12] of 2, "))


def test_the_race_at_1280x800_board_whole_and_the_end_in_view(
    stack: Stack, laptop: Page, shots: Shots
) -> None:
    """A whole game on a laptop's screen: the board whole during boards 1 and 3 (after the
    bot's clear too, when the grace's clock shows), then the end: the result beside the last
    board's layout, all of it on the screen."""
    player = Player(laptop, Clicks(), shots)
    player.create(stack.web_url, "Lin")
    player.play_game(stop_after_pairs=(1, 3))
    assert_board_whole(laptop)
    shots.take(laptop, "board-whole")  # docs/img/web-board.png
    player.play_board(1, None)
    player.play_game(stop_after_pairs=(3, 2))
    assert_board_whole(laptop)
    player.play_board(3, None)
    player.play_game()

    # The end as it comes, without scrolling: the result and the last board, whole.
    expect(laptop.locator(".race")).to_have_attribute("data-phase", "GAME_OVER")
    expect(laptop.locator("#seed")).to_have_text(re.compile(r"^[0-9a-f]{64}$"), timeout=30_000)
    expect(laptop.locator("#standings li")).to_have_count(2)
    assert_end_shows_the_last_board(laptop)
    assert_in_view(laptop, "#board .tile")
    assert_in_view(laptop, "#standings li")
    shots.take(laptop, "game-over")  # docs/img/web-game-over.png
    # The same after a reload (from the snapshot of a finished game).
    laptop.reload()
    expect(laptop.locator("#standings li")).to_have_count(2)
    assert_end_shows_the_last_board(laptop)
    assert_in_view(laptop, "#board .tile")
    player.finish()


def test_the_race_end_and_the_auditors_page_at_phone_width(
    game_by_clicks: FinishedGame, phone: Page, shots: Shots
) -> None:
    """The game played by clicks, opened on a phone by the same browser (its storage copied):
    the result first, the last board's layout, nothing wider than the screen; then the
    auditor's page of that game."""
    game = game_by_clicks
    kept = game.page.evaluate("() => JSON.stringify(Object.assign({}, localStorage))")
    phone.add_init_script(
        f"for (const [k, v] of Object.entries({kept})) localStorage.setItem(k, v);"
    )
    assert json.loads(kept), "the game's page kept nothing"
    base = game.page.url.split("#", 1)[0]
    phone.goto(f"{base}#/play/race/{game.table_id}")
    expect(phone.locator(".race")).to_have_attribute("data-phase", "GAME_OVER")
    expect(phone.locator("#seed")).to_have_text(game.seed)
    assert_end_shows_the_last_board(phone)
    assert_no_sideways_scroll(phone, "the race's end")
    shots.take(phone, "phone-game-over")

    phone.goto(f"{base}#/audit/{game.table_id}")
    expect(phone.locator("#audit-verdict")).to_have_text(
        re.compile(r"\bverified\b"), timeout=60_000
    )
    expect(phone.locator("section.audit-board").first).to_be_visible()
    assert_no_sideways_scroll(phone, "the auditor's page")
    shots.take(phone, "phone-audit", full_page=True)


@pytest.fixture(params=["laptop", "phone"])
def screen(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """A page at 1280x800, then at 390x844."""
    context = LAPTOP_CONTEXT if request.param == "laptop" else PHONE_CONTEXT
    yield from open_page(browser, request, shots, **context)


def test_every_game_on_the_home_pages_first_screen(
    stack: Stack, screen: Page, shots: Shots
) -> None:
    page = screen
    page.goto(stack.web_url + "/#/")
    expect(page.locator("#create-race")).to_be_visible()
    entries = page.locator("#games [data-game]")
    expect(entries).to_have_count(len(GAMES))
    assert [entries.nth(i).get_attribute("data-game") for i in range(len(GAMES))] == GAMES
    assert_in_view(page, "#games [data-game]")
    assert_no_sideways_scroll(page, "the home page")
    shots.take(page, "home")
    # the race's entry leads to its form (the other games' to their setup pages)
    entries.first.click()
    expect(page.locator("#seats")).to_be_focused()
    expect(page.locator('#games [data-game="number-match"]')).to_have_attribute(
        "href", "#/play/number-match/new"
    )


def test_number_match_setup_at_phone_width(stack: Stack, phone: Page, shots: Shots) -> None:
    phone.goto(f"{stack.web_url}/#/play/number-match")
    expect(phone.locator("#level")).to_be_visible()
    assert_no_sideways_scroll(phone, "Number Match's setup")
    assert_in_view(phone, "#level")
    shots.take(phone, "number-match-setup")
