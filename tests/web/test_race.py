"""Whole race games against the bot in a real browser, played from what the page shows: by
clicks, by the keyboard only, and with a reload in the middle of a board."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from match_launch.stack import Stack
from tests.web.conftest import FinishedGame, Shots
from tests.web.racer import Clicks, Keys, Player
from tests.web.test_screens_fit import assert_board_whole

# What the aria-live region must have said over a whole game, at least.
ANNOUNCED = [
    r"^The game starts: three boards\. Players: ",
    r"^Board 1 of 3: press Ready within \d+ s",
    r"^You are ready$",
    r"^Board 1: go!$",
    r"^Tile \d+: [a-z]+$",
    r"^Pair found: tiles \d+ and \d+, [a-z]+\. \d+ pairs?$",
    r"^No pair: tiles \d+ and \d+ differ\. Paused",
    r"^Board 3: go!$",
    r"^The seed is published: [0-9a-f]+$",
]


def assert_announced(lines: list[str]) -> None:
    missing = [p for p in ANNOUNCED if not any(re.search(p, line) for line in lines)]
    assert not missing, f"#live never said {missing}; it said {lines[-40:]}"
    # the live region names a face only as a tile turns up, never one still face down
    assert not any("face down" in line for line in lines)


def test_a_whole_game_by_clicks(game_by_clicks: FinishedGame) -> None:
    """Made on the home page, every board played by clicking tiles (conftest.game_by_clicks:
    the auditor's page checks the same game)."""
    game = game_by_clicks
    assert game.boards_played == [1, 2, 3]
    assert game.turns >= 3 * 10 and game.looks > game.turns
    assert re.fullmatch(r"[0-9a-f]{64}", game.seed), game.seed
    assert_announced(game.live)
    assert any(line == f"The seed is published: {game.seed}" for line in game.live)
    assert game.check_href == f"#/audit/{game.table_id}"


def test_a_whole_game_by_keyboard_only(stack: Stack, page: Page, shots: Shots) -> None:
    player = Player(page, Keys(), shots)
    player.create(stack.web_url, "Grace")
    player.play_game()
    player.finish()
    assert player.boards_played == [1, 2, 3]
    assert_announced(player.live())


def test_a_reload_mid_board_resumes(stack: Stack, page: Page, shots: Shots) -> None:
    player = Player(page, Clicks(), shots)
    player.create(stack.web_url, "Alan")
    player.play_game(stop_after_pairs=(2, 3))
    found = sorted(player.found)
    assert len(found) == 6
    shots.take(page, "before-reload")

    player.reload()
    expect(page.locator(".race")).to_have_attribute("data-phase", "PLAYING")
    expect(page.locator("#board-number")).to_have_attribute("data-board", "2")
    for tile in found:
        expect(page.locator(f'.tile[data-tile="{tile}"]')).to_have_attribute("data-state", "found")
        expect(page.locator(f'.tile[data-tile="{tile}"]')).to_have_attribute(
            "aria-label", f"Tile {tile}, found"
        )
    shots.take(page, "after-reload")
    assert {n for n, t in player.look().items() if t.state == "found"} == set(found)

    player.resume()
    player.finish()
    assert player.boards_played == [1, 2, 3]


def test_a_board_at_phone_width(stack: Stack, phone: Page, shots: Shots) -> None:
    """390x844, touch: the board fits the width and plays by taps (clicks); then resign."""
    player = Player(phone, Clicks(), shots)
    player.create(stack.web_url, "Hedy")
    player.play_game(stop_after_pairs=(1, 3))
    assert_board_whole(phone)  # and its height: no scrolling during a timed board
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at a 390 px viewport"
    for tile in (1, 4, 17, 20):
        box = phone.locator(f'.tile[data-tile="{tile}"]').bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (tile, box)
        assert box["width"] >= 44 and box["height"] >= 44, (tile, box)  # a finger's target
    phone.locator("#board").scroll_into_view_if_needed()
    shots.take(phone, "phone-board")
    phone.locator("#resign").click()
    phone.locator("#resign").click()  # the second press confirms
    expect(phone.locator("#live")).to_contain_text("You resigned")
