"""Number Match in Chromium against the real stack: a game made from the setup form, played by
pointer and by the seed's keys (arrows, Space or Enter, A, H, U) through the hints, an
addition, an undo and a reload, then ended; the end shows the published seed and the link to
check the game. And the board fits a phone's width.
"""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from match_launch.stack import Stack
from tests.web.conftest import Shots


def new_game(page: Page, stack: Stack, level: str = "easy") -> str:
    page.goto(f"{stack.web_url}/#/play/number-match")
    page.fill("#display-name", "Nina")
    page.select_option("#level", level)
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/play/number-match/[0-9a-z]+$"))
    expect(page.locator(".nm")).to_have_attribute("data-phase", "playing")
    return page.url.rsplit("/", 1)[1]


def count(locator: Locator, attr: str = "data-count") -> int:
    value = locator.get_attribute(attr)
    assert value is not None and value.isdigit(), value
    return int(value)


def cell(page: Page, row: str, col: str) -> Locator:
    return page.locator(f'#board .cell[data-row="{row}"][data-col="{col}"]')


def hinted(page: Page) -> list[tuple[str, str]]:
    hint = page.locator('#board .cell[data-hint="true"]')
    expect(hint).to_have_count(2)
    return [
        (hint.nth(i).get_attribute("data-row") or "", hint.nth(i).get_attribute("data-col") or "")
        for i in range(2)
    ]


def ask_hint(page: Page, by_key: bool) -> str:
    """Ask a hint; what it said (PAIR, ADD or STUCK)."""
    before = count(page.locator("#hints-left"))
    if by_key:
        page.keyboard.press("h")
    else:
        page.click("#hint")
    expect(page.locator("#hints-left")).to_have_attribute("data-count", str(before - 1))
    kind = page.locator("#hint-text").get_attribute("data-kind") or ""
    assert kind in ("PAIR", "ADD", "STUCK"), kind
    return kind


def keyboard_to(page: Page, row: int, col: int) -> None:
    """Move the focus over the board with the arrow keys to a cell, then select it (Space)."""
    focused = page.locator("#board .cell:focus")
    if focused.count() == 0:
        page.locator('#board .cell[tabindex="0"]').focus()
    at_row = int(page.locator("#board .cell:focus").get_attribute("data-row") or 0)
    at_col = int(page.locator("#board .cell:focus").get_attribute("data-col") or 0)
    for _ in range(abs(row - at_row)):
        page.keyboard.press("ArrowDown" if row > at_row else "ArrowUp")
    for _ in range(abs(col - at_col)):
        page.keyboard.press("ArrowRight" if col > at_col else "ArrowLeft")
    expect(page.locator("#board .cell:focus")).to_have_attribute("data-row", str(row))
    expect(page.locator("#board .cell:focus")).to_have_attribute("data-col", str(col))
    page.keyboard.press("Space")


def test_a_game_with_hints_an_addition_an_undo_a_reload_and_the_end(
    stack: Stack, page: Page, shots: Shots
) -> None:
    new_game(page, stack)
    numbers = page.locator('#board .cell:not([data-state="empty"])')
    expect(numbers).to_have_count(27)
    label = page.locator("#board .cell").first.get_attribute("aria-label") or ""
    assert re.fullmatch(r"Row 1, column 1: [1-9]", label), label
    assert count(page.locator("#hints-left")) == 3
    assert count(page.locator("#additions-left")) == 5
    shots.take(page, "board")

    pairs = 0
    for n in range(3):
        kind = ask_hint(page, by_key=n == 1)
        if kind == "ADD":
            page.click("#add-numbers")
            continue
        assert kind == "PAIR", "a fresh easy board is never stuck"
        (r1, c1), (r2, c2) = hinted(page)
        score = page.locator("#score").get_attribute("data-score")
        if n == 1:  # by keyboard: arrows, then Space on each number
            keyboard_to(page, int(r1), int(c1))
            expect(cell(page, r1, c1)).to_have_attribute("data-state", "selected")
            keyboard_to(page, int(r2), int(c2))
        else:  # by pointer: tap the first, then the second
            cell(page, r1, c1).click()
            expect(cell(page, r1, c1)).to_have_attribute("data-state", "selected")
            cell(page, r2, c2).click()
        expect(page.locator("#score")).not_to_have_attribute("data-score", score or "")
        pairs += 1
        if n == 0:
            shots.take(page, "paired")
    assert pairs >= 2
    left = count(page.locator("#numbers-left"))

    # No hint is left: add numbers (the A key), then undo it (U).
    expect(page.locator("#hint")).to_have_attribute("aria-disabled", "true")
    additions = count(page.locator("#additions-left"))
    page.locator('#board .cell[tabindex="0"]').focus()
    page.keyboard.press("a")
    expect(page.locator("#additions-left")).to_have_attribute("data-count", str(additions - 1))
    expect(page.locator("#numbers-left")).to_have_attribute("data-count", str(2 * left))
    page.keyboard.press("u")
    expect(page.locator("#additions-left")).to_have_attribute("data-count", str(additions))
    expect(page.locator("#numbers-left")).to_have_attribute("data-count", str(left))
    expect(page.locator("#live")).to_contain_text("Undone")

    # A reload picks the game up where it is (the seat's token is kept in the browser).
    score = page.locator("#score").get_attribute("data-score") or ""
    page.reload()
    expect(page.locator(".nm")).to_have_attribute("data-phase", "playing")
    expect(page.locator("#score")).to_have_attribute("data-score", score)
    expect(page.locator("#numbers-left")).to_have_attribute("data-count", str(left))
    expect(page.locator("#hints-left")).to_have_attribute("data-count", "0")

    # End the game: it asks first.
    page.click("#end-game")
    expect(page.locator("#end-game")).to_contain_text("Press again")
    page.click("#end-game")
    over = page.locator("#game-over")
    expect(over).to_be_visible()
    expect(over.locator("#outcome")).to_contain_text("you ended the game")
    expect(over.locator("#seed")).to_have_text(re.compile(r"^[0-9a-f]{64}$"), timeout=15_000)
    expect(over.locator("#seed-check")).to_have_text("(it matches its commitment)")
    expect(over.locator("#check-game")).to_have_attribute(
        "href", re.compile(r"^#/audit/[0-9a-z]+$")
    )
    expect(page.locator(".nm")).to_have_attribute("data-phase", "over")
    expect(page.locator("#board .cell").first).to_have_attribute("aria-disabled", "true")
    shots.take(page, "over", full_page=True)


def test_the_board_fits_a_phone(stack: Stack, phone: Page, shots: Shots) -> None:
    new_game(phone, stack, "expert")
    expect(phone.locator('#board .cell:not([data-state="empty"])')).to_have_count(54)
    widths = phone.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " Math.round(document.querySelector('#board .cell').getBoundingClientRect().width)]"
    )
    scroll, client, cell_width = widths
    assert scroll <= client, f"the page scrolls sideways on a phone: {widths}"
    assert cell_width >= 30, f"cells too small to tap: {widths}"
    # A tap selects, a second tap on the same number lets go of it.
    cell_no = phone.locator('#board .cell[data-state="number"]').first.get_attribute("data-cell")
    first = phone.locator(f'#board .cell[data-cell="{cell_no}"]')
    first.tap()
    expect(first).to_have_attribute("data-state", "selected")
    first.tap()
    expect(first).not_to_have_attribute("data-state", "selected")
    shots.take(phone, "phone", full_page=True)
