"""Match Cards in the browser: a person makes a solo game with the page's form and plays it to
its end from memory (what the cards showed when turned), by mouse; a face-down card never names
its picture; the end shows the game's code and the published seed, with the audit link; a
reload in the middle comes back to the same copy (Watch resumes from a snapshot).
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
    """Every card: (number, data-state, aria-label)."""
    rows: list[tuple[int, str, str]] = page.eval_on_selector_all(".card", CARDS_JS)
    return rows


def check_labels(rows: list[tuple[int, str, str]]) -> None:
    for n, state, label in rows:
        assert label.startswith(f"Card {n}, "), label
        if state == "down":
            assert FACE_DOWN.match(label), f"a face-down card names a face: {label!r}"
        else:
            assert not label.endswith("face down"), label


def game_over(page: Page) -> bool:
    return page.locator("#game-over").is_visible()


def turn(page: Page, n: int) -> str:
    """Click card n; wait for it to show its picture; return the picture's name."""
    card = page.locator(f'.card[data-card="{n}"]')
    card.click()
    expect(card).not_to_have_attribute("data-state", "down")
    label = card.get_attribute("aria-label") or ""
    m = UP.match(label)
    assert m is not None, label
    return m.group(2).removeprefix("found: ")


def wait_settled(page: Page) -> None:
    """The attempt was compared: no card is up any more (or the game is over)."""
    page.wait_for_function(
        "() => !document.querySelector('.card[data-state=\"up\"]')"
        " || !document.querySelector('#game-over').hidden"
    )


def test_a_solo_game_played_from_memory_to_its_end(stack: Stack, page: Page, shots: Shots) -> None:
    started = time.monotonic()
    page.goto(f"{stack.web_url}/#/play/match-cards")
    page.fill("#display-name", "Mona")
    page.select_option("#players", "1")
    page.select_option("#mode", "pairs")
    page.select_option("#cards", "12")
    page.select_option("#difficulty", "easy")
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/play/match-cards/[^/]+$"))
    expect(page.locator(".card")).to_have_count(12)
    expect(page.locator("#counters")).to_contain_text("Failed attempts 0 of 20")
    shots.take(page, "board")

    seen: dict[int, str] = {}  # card -> picture name, from what the cards showed
    reloaded = False
    while not game_over(page):
        assert time.monotonic() - started < GAME_SECONDS, "the game took too long"
        rows = cards(page)
        check_labels(rows)
        down = [n for n, state, _ in rows if state == "down"]
        if not down:
            break
        by_name: dict[str, list[int]] = {}
        for n in down:
            if n in seen:
                by_name.setdefault(seen[n], []).append(n)
        pair = next((ns[:2] for ns in by_name.values() if len(ns) >= 2), None)
        if pair is not None:
            for n in pair:
                turn(page, n)
        else:
            unknown = [n for n in down if n not in seen]
            first = unknown[0]
            name = seen[first] = turn(page, first)
            partner = next((n for n in down if n != first and seen.get(n) == name), None)
            if partner is None:
                partner = unknown[1] if len(unknown) > 1 else next(n for n in down if n != first)
            seen[partner] = turn(page, partner)
        check_labels(cards(page))
        wait_settled(page)
        if not reloaded and len(seen) >= 6 and not game_over(page):
            # A reload comes back to the same copy: the token is kept, Watch starts again.
            reloaded = True
            found_before = page.locator('.card[data-state="found"]').count()
            page.reload()
            expect(page.locator(".card")).to_have_count(12)
            expect(page.locator('.card[data-state="found"]')).to_have_count(found_before)
            check_labels(cards(page))

    expect(page.locator("#game-over")).to_be_visible()
    expect(page.locator("#seed")).to_have_text(re.compile(r"^[0-9a-f]{64}$"), timeout=20_000)
    expect(page.locator("#game-code")).to_have_text(re.compile(r"^MM3-"))
    expect(page.locator("#check-game")).to_have_attribute("href", re.compile(r"^#/audit/.+"))
    expect(page.locator("#result")).to_contain_text(re.compile(r"You (won|lost)"))
    check_labels(cards(page))
    shots.take(page, "game-over", full_page=True)
    # Every event was also said in the live region.
    assert page.locator("#live p").count() > 0
    assert time.monotonic() - started < GAME_SECONDS


def test_the_form_offers_every_level_and_refuses_a_bad_code(stack: Stack, page: Page) -> None:
    page.goto(f"{stack.web_url}/#/play/match-cards/new")
    page.select_option("#mode", "triples")
    assert page.eval_on_selector_all("#cards option", "os => os.map(o => o.value)") == [
        "12",
        "18",
        "30",
        "60",
    ]
    expect(page.locator("#difficulty option").first).to_contain_text("22 failed attempts")
    page.fill("#code", "MM3-PAEA-NOT-A-CODE")
    expect(page.locator("#mode")).to_be_disabled()
    page.click("#create-game")
    # the server's words as a sentence, never the refusal's slug (code_malformed: issue 31)
    expect(page.locator("#setup-error")).to_have_text(re.compile(r"^[A-Z][^_]*\bcode\b[^_]*\.$"))
