"""The player in the browser, in Chromium against the real stack: a key made in the page signs
in (GetChallenge, SignIn over the Connect edge), a ranked race against the bot counts for it (its
rating on the profile page, its row on the leaderboard), the key saved as a file is the terminal
client's own key file (match_client.identity loads it as the same player) and, pasted into a
fresh browser, is the same player there; the daily Number Match started from the player's page
and cleared in the page (the rules' solver chooses the moves, the page makes them by clicks)
shows a streak of 1 and a row on the day's board, and a game in progress is found again from
the player's page with nothing kept in the browser (FindMySeats). A browser without WebCrypto's
Ed25519 (a plain-http page has no crypto.subtle) signs in with @noble/ed25519 instead. Every
control of the player's pages has a name, what they do is said in the live region, the key is
made by keyboard alone, and the pages fit a phone's width.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from match_client import identity
from match_launch.stack import Stack
from match_rules.number_match import solver
from tests.web.conftest import DESKTOP_CONTEXT, Shots, open_page
from tests.web.racer import Clicks, Player

PLAYER_ID = re.compile(r"^k[0-9a-f]{23}$")
PEM = re.compile(r"^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=]{64}\n-----END PRIVATE KEY-----\n$")
FIGURES_WAIT_S = 60  # the players service folds the table log: a moment after the game ends
UNNAMED = """() => [...document.querySelectorAll(
    '#app button, #app a, #app input, #app textarea, #app select')]
  .filter(el => !el.hidden && el.offsetParent !== null)
  .filter(el => {
    const labelled = el.labels && [...el.labels].some(l => l.textContent.trim());
    const named = (el.getAttribute('aria-label') || '').trim() || (el.textContent || '').trim();
    const by = el.getAttribute('aria-labelledby');
    return !(labelled || named || (by && document.getElementById(by)));
  })
  .map(el => el.outerHTML.slice(0, 120))"""


@pytest.fixture
def other(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """A second browser: a fresh context, nothing kept in it."""
    yield from open_page(browser, request, shots, **DESKTOP_CONTEXT)


def live(page: Page) -> str:
    return page.locator("#live").inner_text()


def assert_named(page: Page) -> None:
    unnamed = page.evaluate(UNNAMED)
    assert unnamed == [], f"controls without a name: {unnamed}"


def make_key_by_keyboard(page: Page, web_url: str) -> str:
    """Open #/me and make the key with the keyboard alone; the player id it shows."""
    page.goto(web_url + "/#/me")
    expect(page.locator("#make-key")).to_be_visible()
    expect(page.locator("#key-panel")).to_contain_text("plays without a key")
    assert_named(page)
    for _ in range(12):
        if page.evaluate("document.activeElement && document.activeElement.id") == "make-key":
            break
        page.keyboard.press("Tab")
    else:
        raise AssertionError("Tab never reached #make-key")
    page.keyboard.press("Enter")
    shown = page.locator("#player-id")
    expect(shown).to_have_attribute("data-player-id", PLAYER_ID)
    player_id = shown.get_attribute("data-player-id") or ""
    expect(page.locator("#key-warning")).to_contain_text("not saved a copy")
    expect(page.locator("#key-warning")).to_contain_text("Clearing this site's data")
    expect(page.locator("#live")).to_contain_text(f"You are player {player_id}")
    expect(page.locator("#export-key")).to_be_focused()
    return player_id


def reload_until(page: Page, locator_text: str, what: str) -> None:
    """Reload until ``locator_text`` is on the page (the players service folds the log)."""
    deadline = time.monotonic() + FIGURES_WAIT_S
    while page.locator(locator_text).count() == 0:
        assert time.monotonic() < deadline, f"{what} did not appear in {FIGURES_WAIT_S} s"
        time.sleep(1)
        page.reload()
        page.wait_for_load_state()
        page.wait_for_timeout(500)


def test_a_key_made_in_the_page_plays_ranked_and_moves_to_another_browser(
    stack: Stack, page: Page, other: Page, shots: Shots, tmp_path: Path
) -> None:
    racer = Player(page, Clicks(), shots)  # before the first page: it records the live region
    player_id = make_key_by_keyboard(page, stack.web_url)
    assert_named(page)
    shots.take(page, "key-made", full_page=True)

    # A race against the bot, from the home page's form: the seat is this player's.
    racer.create(stack.web_url, "Keyed Kim")
    racer.play_game()
    racer.finish()

    # The profile shows the race's rating, and the leaderboard this player's row.
    page.goto(stack.web_url + "/#/me")
    reload_until(page, '#ratings li[data-game="race"]', "the race's rating")
    rating = page.locator('#ratings li[data-game="race"]')
    expect(rating).to_contain_text("Match, the race")
    expect(rating).to_contain_text("1 rated game")
    expect(page.locator("#profile-name")).to_contain_text(f"Keyed Kim, player {player_id} (you)")
    expect(page.locator("#statistics")).to_contain_text("1 game")
    # The race's figures by their names in words (player.fig.*), not the rules' identifiers.
    expect(page.locator("#statistics")).to_contain_text("pairs on board 1: ")
    expect(page.locator("#statistics")).not_to_contain_text("pairs_board")
    assert_named(page)
    shots.take(page, "profile", full_page=True)
    rating.get_by_role("link", name="the leaderboard").click()
    expect(page).to_have_url(re.compile(r"#/leaderboard/race$"))
    row = page.locator(f'#board-rows tr[data-player-id="{player_id}"]')
    expect(row).to_have_attribute("aria-current", "true")
    expect(row).to_contain_text("Keyed Kim (you)")
    expect(page.locator("#board-rows caption")).to_contain_text("Ratings")
    assert_named(page)
    shots.take(page, "leaderboard", full_page=True)
    page.goto(f"{stack.web_url}/#/player/{player_id}")
    expect(page.locator("#profile-name")).to_contain_text(f"Keyed Kim, player {player_id}")
    expect(page.locator('#ratings li[data-game="race"]')).to_be_visible()

    # Saved as a file: the terminal's key file, the same player to match_client.
    page.goto(stack.web_url + "/#/me")
    with page.expect_download() as download:
        page.click("#export-key")
    saved = tmp_path / "key.pem"
    download.value.save_as(saved)
    assert download.value.suggested_filename == f"match-key-{player_id}.pem"
    text = saved.read_text()
    assert PEM.match(text), text
    os.chmod(saved, 0o600)
    assert identity.load(saved).player_id == player_id
    expect(page.locator("#key-warning")).to_contain_text("you last saved a copy")
    expect(page.locator("#live")).to_contain_text("saved as a file")
    page.click("#show-key")
    expect(page.locator("#key-text")).to_have_value(text)

    # A fresh browser: the pasted key is the same player, with the same rating.
    other.goto(stack.web_url + "/#/me")
    expect(other.locator("#make-key")).to_be_visible()
    other.fill("#import-text", "not a key")
    other.click("#import-key")
    expect(other.locator("#import-error")).to_contain_text("This is not a key file")
    other.fill("#import-text", text)
    other.click("#import-key")
    expect(other.locator("#player-id")).to_have_attribute("data-player-id", player_id)
    expect(other.locator("#live")).to_contain_text(f"You are player {player_id} in this browser")
    expect(other.locator('#ratings li[data-game="race"]')).to_contain_text("1 rated game")
    expect(other.locator("#profile-name")).to_contain_text(f"player {player_id} (you)")
    assert_named(other)


def read_board(page: Page) -> tuple[list[int], int | None]:
    """The board as the page shows it (reading order, 0 for an empty cell), the additions left."""
    cells = page.eval_on_selector_all(
        "#board .cell",
        """els => els.map(e => [Number(e.dataset.cell),
            e.dataset.state === 'empty' ? 0 : Number(e.textContent)])""",
    )
    board = [n for _, n in sorted(cells)]
    left = page.locator("#additions-left").get_attribute("data-count") or ""
    return board, None if left == "unlimited" else int(left)


def numbers_left(page: Page) -> int:
    return int(page.locator("#numbers-left").get_attribute("data-count") or "0")


def test_the_daily_puzzle_cleared_in_the_page_shows_a_streak_of_one(
    stack: Stack, page: Page, shots: Shots
) -> None:
    player_id = make_key_by_keyboard(page, stack.web_url)
    expect(page.locator("#streak")).to_have_attribute("data-current", "0")
    expect(page.locator("#streak")).to_contain_text("No daily puzzle solved yet")
    page.click("#play-daily")
    expect(page).to_have_url(re.compile(r"#/play/number-match/[0-9a-z]+$"))
    expect(page.locator(".nm")).to_have_attribute("data-phase", "playing")
    table_id = page.url.rsplit("/", 1)[1]

    # The seat is the player's, wherever they are: with nothing kept in this browser, "your
    # games in progress" (FindMySeats) finds it and takes the player back to it.
    page.evaluate("localStorage.removeItem('match.seats')")
    page.goto(stack.web_url + "/#/me")
    seat = page.locator(f'#online-seats li[data-table-id="{table_id}"]')
    expect(seat).to_contain_text("Number Match")
    assert_named(page)
    seat.get_by_role("button", name=f"Go back to Number Match at table {table_id}").click()
    expect(page).to_have_url(re.compile(rf"#/play/number-match/{table_id}$"))
    expect(page.locator(".nm")).to_have_attribute("data-phase", "playing")
    expect(page.locator("#board .cell").first).to_be_visible()

    board, additions = read_board(page)
    solution = solver.solve(tuple(board), additions, budget=5_000_000)
    assert solution.status is solver.Status.SOLVABLE, solution
    for i, j in solution.moves:
        if (i, j) == (-1, -1):
            before = additions
            page.click("#add-numbers")
            assert before is not None
            additions = before - 1
            expect(page.locator("#additions-left")).to_have_attribute("data-count", str(additions))
            continue
        before_n = numbers_left(page)
        page.click(f'#board .cell[data-cell="{i + 1}"]')
        page.click(f'#board .cell[data-cell="{j + 1}"]')
        if before_n > 2:
            expect(page.locator("#numbers-left")).to_have_attribute("data-count", str(before_n - 2))
    expect(page.locator(".nm")).to_have_attribute("data-phase", "over", timeout=15_000)
    expect(page.locator("#outcome")).to_contain_text("clear")
    shots.take(page, "daily-cleared", full_page=True)

    page.goto(stack.web_url + "/#/me")
    reload_until(page, '#streak[data-current="1"]', "the streak of 1")
    expect(page.locator("#streak")).to_contain_text("Streak: 1 day (best 1)")
    assert_named(page)
    shots.take(page, "streak", full_page=True)

    # The day's own board among Number Match's boards, this player on it.
    day = page.locator("#play-daily").inner_text().split("(")[1].rstrip(")")
    page.goto(stack.web_url + "/#/leaderboard/number-match")
    board = page.locator("#boards").get_by_role("link", name=f"daily-{day}")
    expect(board).to_be_visible()
    board.click()
    expect(page).to_have_url(re.compile(rf"#/leaderboard/number-match/daily-{day}$"))
    expect(page.locator("h1")).to_contain_text(f"leaderboard, daily-{day}")
    mine = page.locator(f'#board-rows tr[data-player-id="{player_id}"]')
    expect(mine).to_have_attribute("aria-current", "true")
    assert_named(page)


def test_without_webcrypto_ed25519_the_page_signs_in_with_noble(
    stack: Stack, phone: Page, shots: Shots
) -> None:
    """A page with no crypto.subtle (plain http, not 127.0.0.1) makes and uses its key with
    @noble/ed25519: the lobby lets it in, and the pages fit a phone."""
    phone.add_init_script(
        "Object.defineProperty(globalThis.crypto, 'subtle', { value: undefined })"
    )
    phone.goto(stack.web_url + "/#/me")
    assert phone.evaluate("crypto.subtle === undefined")
    expect(phone.locator("#make-key")).to_be_visible()
    phone.click("#make-key")
    expect(phone.locator("#player-id")).to_have_attribute("data-player-id", PLAYER_ID)
    # signed in: the "my" calls answered (GetMyStreak, FindMySeats need the session)
    expect(phone.locator("#streak")).to_have_attribute("data-current", "0")
    expect(phone.locator("#online-seats")).to_contain_text("None")
    expect(phone.locator("#profile .error")).to_have_count(0)
    drawn = "#board-rows, #board-empty"  # a leaderboard's page once it has its answer
    for hash_, ready in (
        ("#/me", "#streak"),
        ("#/leaderboard/race", drawn),
        ("#/leaderboard/number-match", drawn),
    ):
        phone.goto(stack.web_url + "/" + hash_)
        expect(phone.locator(ready)).to_be_visible()
        wide = phone.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"{hash_} is {wide} px wide on a 390 px phone"
    shots.take(phone, "me-phone", full_page=True)
    phone.goto(stack.web_url + "/#/leaderboard/no-such-game")
    expect(phone.locator("#app h1")).to_have_text(
        'There is no game "no-such-game": choose one of these.'
    )
    expect(phone.locator("#board-games a")).to_have_count(5)
