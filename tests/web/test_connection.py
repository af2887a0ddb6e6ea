"""A move made while the connection is down (issue 31, the web client, item 1), in Chromium
against the real stack, at a desktop's size and a phone's: the browser goes offline
(``context.set_offline``), the player makes a move, and

- a banner nobody can miss (role=alert, at the top, above the board) says the connection is
  lost and the move is waiting; the move is sent again, always with the same request id, and
  applied once the connection is back (a 10 s cut), after which the banner goes;
- a move whose connection does not come back within the retry limit (rpc.ts RETRY_LIMIT_MS,
  30 s, for a game with no clock) is given up: the page says plainly it was NOT made, and it
  is not made when the connection comes back.

The rpc layer is every game's: Number Match shows both (solo, its moves need no other player: a
pair from a hint), and the race a tile turned during an 8 s cut while the board's clock runs.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from match_launch.stack import Stack
from tests.web.conftest import PHONE_CONTEXT, Shots, open_page
from tests.web.test_number_match import ask_hint, cell, count, hinted, new_game

SIZES: dict[str, dict[str, object]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}, "reduced_motion": "reduce"},
    "phone": PHONE_CONTEXT,
}
RETRY_LIMIT_S = 30  # web/src/rpc.ts RETRY_LIMIT_MS


@pytest.fixture(params=list(SIZES))
def sized(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """A page at a desktop's size (1280x800) and at a phone's (390x844, touch)."""
    yield from open_page(browser, request, shots, **SIZES[request.param])


def pick(page: Page, row: str, col: str) -> None:
    target = cell(page, row, col)
    if page.viewport_size and page.viewport_size["width"] < 600:
        target.tap()
    else:
        target.click()


def ready_pair(page: Page, stack: Stack) -> tuple[tuple[str, str], tuple[str, str]]:
    """A new game with a hinted pair, its first number selected: the second one is the move."""
    new_game(page, stack)
    for _ in range(3):
        kind = ask_hint(page, by_key=False)
        if kind == "PAIR":
            break
        page.click("#add-numbers")
    else:
        raise AssertionError("no hint found a pair")
    first, second = hinted(page)
    pick(page, *first)
    expect(cell(page, *first)).to_have_attribute("data-state", "selected")
    return first, second


def request_ids(page: Page, method: str) -> list[str]:
    """The x-request-id of every call of ``method`` the page sends from now (offline tries too)."""
    ids: list[str] = []

    def seen(req: Request) -> None:
        if req.url.endswith(f"/{method}"):
            ids.append(req.headers.get("x-request-id", ""))

    page.on("request", seen)
    return ids


def banner_on_screen(page: Page) -> None:
    """The banner is at the top of what the player sees, big, and read out at once."""
    banner = page.locator("#connection-banner")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("role", "alert")
    expect(page.get_by_role("alert").filter(has_text="Connection lost")).to_have_count(1)
    box = banner.bounding_box()
    assert box is not None and box["y"] <= 80 and box["height"] >= 40, box
    assert page.evaluate("() => document.body.hasAttribute('data-connection-lost')")


def test_a_move_made_offline_is_sent_when_the_connection_is_back(
    stack: Stack, sized: Page, shots: Shots
) -> None:
    page = sized
    first, second = ready_pair(page, stack)
    score = page.locator("#score").get_attribute("data-score") or ""
    numbers = count(page.locator("#numbers-left"))
    ids = request_ids(page, "PairCells")
    expect(page.locator("#connection-banner")).to_be_hidden()

    page.context.set_offline(True)
    pick(page, *second)
    banner = page.locator("#connection-banner")
    expect(banner).to_contain_text("Connection lost", timeout=5_000)
    banner_on_screen(page)
    expect(banner).to_contain_text("Your move is waiting")
    shots.take(page, "offline")
    time.sleep(10)  # a 10 s cut: the move is still waiting, not given up
    expect(banner).to_contain_text("Your move is waiting")
    expect(page.locator("#nm-error")).not_to_contain_text("NOT made")
    assert len(ids) >= 5, ids  # tried again and again, not 4 times in 4 s
    assert page.locator("#score").get_attribute("data-score") == score

    page.context.set_offline(False)
    expect(page.locator("#score")).not_to_have_attribute("data-score", score)
    expect(cell(page, *first)).to_have_attribute("data-state", "empty")
    expect(cell(page, *second)).to_have_attribute("data-state", "empty")
    expect(page.locator("#numbers-left")).to_have_attribute("data-count", str(numbers - 2))
    expect(banner).to_be_hidden()
    expect(banner).to_have_text("")
    expect(page.locator("#nm-error")).to_have_text("")
    assert len(set(ids)) == 1 and re.fullmatch(r"[0-9a-f]{32}", ids[0]), ids  # one request id
    shots.take(page, "back")
    # still in play: the next hint is answered at once
    ask_hint(page, by_key=False)


def test_a_move_the_connection_does_not_come_back_for_is_not_made(
    stack: Stack, sized: Page, shots: Shots
) -> None:
    page = sized
    first, second = ready_pair(page, stack)
    score = page.locator("#score").get_attribute("data-score") or ""
    numbers = count(page.locator("#numbers-left"))

    page.context.set_offline(True)
    started = time.monotonic()
    pick(page, *second)
    banner = page.locator("#connection-banner")
    expect(banner).to_contain_text("Your move is waiting", timeout=5_000)
    error = page.locator("#nm-error")
    expect(error).to_have_text(
        re.compile(r"^Your move was NOT made: the connection to the server was lost"),
        timeout=(RETRY_LIMIT_S + 10) * 1000,
    )
    waited = time.monotonic() - started
    assert RETRY_LIMIT_S - 2 <= waited <= RETRY_LIMIT_S + 10, waited
    expect(error).to_have_attribute("role", "alert")
    expect(banner).to_contain_text("A move was NOT made")
    expect(banner).not_to_contain_text("waiting")
    banner_on_screen(page)
    shots.take(page, "not-made")

    page.context.set_offline(False)
    expect(banner).to_be_hidden(timeout=15_000)
    time.sleep(2)  # nothing was left to arrive late
    assert page.locator("#score").get_attribute("data-score") == score
    expect(page.locator("#numbers-left")).to_have_attribute("data-count", str(numbers))
    expect(cell(page, *first)).not_to_have_attribute("data-state", "empty")
    expect(cell(page, *second)).not_to_have_attribute("data-state", "empty")


def test_a_turn_made_offline_in_a_race_is_made_when_the_connection_is_back(
    stack: Stack, sized: Page, shots: Shots
) -> None:
    """The race, whose board's clock keeps running: a tile turned during an 8 s cut turns up
    once the connection is back (the board's clock bounds the retry, and it has time left)."""
    from tests.web.racer import Clicks, Player

    page = sized
    player = Player(page, Clicks(), shots)
    player.create(stack.web_url, "Lin")
    player.play_game(stop_after_pairs=(1, 1))
    tiles = player.look()
    if sum(t.state == "up" for t in tiles.values()) == 2:
        player.wait_out_the_pause()
        tiles = player.look()
    tile = next(n for n, t in sorted(tiles.items()) if t.state == "down")
    ids = request_ids(page, "TurnTile")

    page.context.set_offline(True)
    player.hands.turn(page, tile)
    banner = page.locator("#connection-banner")
    expect(banner).to_contain_text("Your move is waiting", timeout=5_000)
    banner_on_screen(page)
    shots.take(page, "race-offline")
    time.sleep(8)
    assert page.locator(f'.tile[data-tile="{tile}"]').get_attribute("data-state") == "down"

    page.context.set_offline(False)
    expect(
        page.locator(f'.tile[data-tile="{tile}"]:is([data-state="up"], [data-state="found"])')
    ).to_have_count(1)
    expect(banner).to_be_hidden()
    expect(page.locator("#race-error")).to_have_text("")
    assert len(ids) >= 4 and len(set(ids)) == 1, ids
