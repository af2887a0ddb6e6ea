"""Concentration in the browser: a person makes a table with the page's form and plays it to its
end from memory, by keyboard only (arrow keys to a card, Enter or Space to flip it): solo, and
against the CPU on a phone-sized screen, with a reload in the middle (the seat comes back). A
face-down card never names a face; the end shows the standings, the published seed and the link
to check the game.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import Page, expect

from match_launch.stack import Stack
from tests.web.conftest import Shots

CARDS_JS = (
    "els => els.map(e => [Number(e.dataset.card), e.dataset.state, e.getAttribute('aria-label')])"
)
FACE_DOWN = re.compile(r"^Card \d+, face down$")
UP = re.compile(r"^Card (\d+), (.+)$")
GAME_SECONDS = 150


def cards(page: Page) -> list[tuple[int, str, str]]:
    rows: list[tuple[int, str, str]] = page.eval_on_selector_all(".card", CARDS_JS)
    return rows


def check_labels(rows: list[tuple[int, str, str]]) -> None:
    for n, state, label in rows:
        assert label.startswith(f"Card {n}, "), label
        if state == "down":
            assert FACE_DOWN.match(label), f"a face-down card names a face: {label!r}"
        else:
            assert not label.endswith("face down"), label


def focused_card(page: Page) -> int:
    value = page.evaluate("() => document.activeElement?.dataset?.card ?? ''")
    return int(value) if value else 0


def key_to(page: Page, target: int) -> None:
    """Move the focus to card `target` with the arrow keys, as a person would."""
    if focused_card(page) == 0:
        page.locator('.card[tabindex="0"]').focus()
    columns = int(page.get_attribute("#board", "data-columns") or "1")
    at = focused_card(page)
    for _ in range(200):
        if at == target:
            return
        if target >= at + columns:
            key = "ArrowDown"
        elif target <= at - columns:
            key = "ArrowUp"
        else:
            key = "ArrowRight" if target > at else "ArrowLeft"
        page.keyboard.press(key)
        at = focused_card(page)
    raise AssertionError(f"the arrow keys did not reach card {target} (at {at})")


def flip(page: Page, n: int, key: str) -> str:
    """Flip card n from the keyboard; return the face it shows."""
    card = page.locator(f'.card[data-card="{n}"]')
    # A person whose key did nothing presses it again: twice at most, and the card must then
    # turn (a CI run saw one press on a phone-sized page do nothing, cause not yet found).
    for attempt in range(3):
        key_to(page, n)
        page.keyboard.press(key)
        try:
            expect(card).not_to_have_attribute("data-state", "down", timeout=4_000)
            break
        except AssertionError:
            if attempt == 2:
                raise
    label = card.get_attribute("aria-label") or ""
    m = UP.match(label)
    assert m is not None, label
    return re.sub(r"^taken by [^:]+: ", "", m.group(2))


def my_turn_or_over(page: Page) -> bool:
    """Wait until the viewer may flip (no miss showing) or the game is over; True: may flip."""
    page.wait_for_function(
        "() => !document.querySelector('#game-over').hidden"
        " || (document.querySelector('#turn')?.dataset.myTurn === 'true'"
        "     && !document.querySelector('.card[data-state=\"up\"]'))",
        timeout=30_000,
    )
    return not page.locator("#game-over").is_visible()


def play_to_the_end(page: Page, started: float, reload_after: int = 0) -> None:
    """Play every turn of the viewer's from memory; with `reload_after`, reload the page once
    after that many tries (the seat comes back from the kept token)."""
    seen: dict[int, str] = {}  # card -> face, from every flip shown (the CPU's too)
    keys = ["Enter", "Space"]
    tries = 0
    while my_turn_or_over(page):
        tries += 1
        if tries == reload_after:
            size = page.locator(".card").count()
            page.reload()
            expect(page.locator(".card")).to_have_count(size)
            watch_flips(page)
            # The stream that ended was the seat's presence: the new one brings it back.
            expect(page.locator("#scores")).not_to_contain_text("dropped", timeout=15_000)
            check_labels(cards(page))
            if not my_turn_or_over(page):
                break
        assert time.monotonic() - started < GAME_SECONDS, "the game took too long"
        rows = cards(page)
        check_labels(rows)
        # Remember what the others flipped too: every card seen up showed its face.
        for card, label in page.evaluate("() => window.__seen || {}").items():
            m = UP.match(label or "")
            if m is not None:
                seen[int(card)] = m.group(2)
        down = [n for n, state, _ in rows if state == "down"]
        by_face: dict[str, list[int]] = {}
        for n in down:
            if n in seen:
                by_face.setdefault(seen[n], []).append(n)
        pair = next((ns[:2] for ns in by_face.values() if len(ns) >= 2), None)
        if pair is not None:
            for i, n in enumerate(pair):
                seen[n] = flip(page, n, keys[i])
            continue
        unknown = [n for n in down if n not in seen]
        first = unknown[0] if unknown else down[0]
        face = seen[first] = flip(page, first, "Enter")
        partner = next((n for n in down if n != first and seen.get(n) == face), None)
        if partner is None:
            rest = [n for n in unknown if n != first]
            partner = rest[0] if rest else next(n for n in down if n != first)
        seen[partner] = flip(page, partner, "Space")
        check_labels(cards(page))


def watch_flips(page: Page) -> None:
    """Record every face the page announces (the CPU's flips too) into window.__seen."""
    page.evaluate(
        """() => {
      window.__seen = {};
      new MutationObserver(() => {
        for (const b of document.querySelectorAll('.card[data-state="up"]')) {
          window.__seen[b.dataset.card] = b.getAttribute('aria-label');
        }
      }).observe(document.body, {subtree: true, attributes: true, childList: true});
    }"""
    )


def finish(page: Page, shots: Shots, name: str) -> None:
    expect(page.locator("#game-over")).to_be_visible()
    expect(page.locator("#seed")).to_have_text(re.compile(r"^[0-9a-f]{64}$"), timeout=20_000)
    expect(page.locator("#check-game")).to_have_attribute("href", re.compile(r"^#/audit/.+"))
    expect(page.locator("#standings li").first).to_be_visible()
    rows = cards(page)
    check_labels(rows)
    assert all(state == "found" for _, state, _ in rows)
    shots.take(page, name, full_page=True)
    assert page.locator("#live p").count() > 0


def test_a_solo_game_by_keyboard_to_its_end(stack: Stack, page: Page, shots: Shots) -> None:
    started = time.monotonic()
    page.goto(f"{stack.web_url}/#/play/concentration/new")
    page.fill("#display-name", "Cora")
    page.select_option("#players", "1")
    page.select_option("#cards", "24")
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/play/concentration/[^/]+$"))
    expect(page.locator(".card")).to_have_count(24)
    expect(page.locator("#turn")).to_have_text("Your turn: flip a card")
    watch_flips(page)
    shots.take(page, "board")
    play_to_the_end(page, started)
    finish(page, shots, "game-over")
    expect(page.locator("#result")).to_contain_text("You took every pair")
    assert time.monotonic() - started < GAME_SECONDS


def test_against_the_cpu_on_a_phone(stack: Stack, phone: Page, shots: Shots) -> None:
    started = time.monotonic()
    page = phone
    page.goto(f"{stack.web_url}/#/play/concentration")
    page.fill("#display-name", "Pip")
    page.select_option("#players", "2")
    page.select_option("#pictures", "cards")
    page.select_option("#cards", "24")
    expect(page.locator("#cpu-fill")).to_be_checked()
    page.click("#create-game")
    expect(page.locator(".card")).to_have_count(24)
    expect(page.locator("#scores tbody tr")).to_have_count(2)
    # Phone width: the cards reflow to fit, none is cut off.
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone: {width}px"
    watch_flips(page)
    shots.take(page, "phone-board")
    play_to_the_end(page, started, reload_after=4)
    finish(page, shots, "phone-game-over")
    # One line a player; a 6-6 game on 24 cards is a draw, and says so on a line of its own.
    standings = page.locator("#standings li")
    expect(standings.filter(has_text=re.compile(r"^[12]\. "))).to_have_count(2)
    if standings.count() == 3:
        expect(standings.nth(2)).to_have_text("A draw: everybody tied")
    else:
        expect(standings).to_have_count(2)
    assert time.monotonic() - started < GAME_SECONDS
