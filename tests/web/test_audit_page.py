"""The auditor's page in a real browser: from the end of a game played by clicks, follow
"check this game" and have the ledger verify it (its VerifyGame on the ledger's web edge)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.web.conftest import FinishedGame, Shots


def test_the_auditors_page_verifies_the_game(game_by_clicks: FinishedGame, shots: Shots) -> None:
    game = game_by_clicks
    page = game.page
    shots.watch(page, game.console)
    if page.locator("#check-game").count() == 0:  # another test moved on: back to its end
        page.goto(page.url.split("#", 1)[0] + f"#/play/race/{game.table_id}")
    page.locator("#check-game").click()
    expect(page).to_have_url(re.compile(rf"#/audit/{game.table_id}$"))
    field = page.locator("#audit-game-id")
    expect(field).to_have_value(game.table_id)
    verdict = page.locator("#audit-verdict")
    # the page checks the game it was sent to at once; then ask again, as an auditor would
    expect(verdict).to_have_text(re.compile(r"verified|FAILED"), timeout=60_000)
    page.locator("#audit-verify").click()
    expect(page.locator("#audit-verify")).to_be_enabled(timeout=60_000)
    expect(verdict).to_have_text(re.compile(r"\bverified\b"))
    expect(verdict).not_to_contain_text("FAILED")

    checks = page.locator("#audit-checks li")
    expect(checks.first).to_be_visible()
    assert checks.count() >= 4
    statuses = checks.evaluate_all("els => els.map(e => [e.dataset.check, e.dataset.status])")
    assert all(status != "failed" for _, status in statuses), statuses
    assert any(status == "passed" for _, status in statuses), statuses
    expect(page.locator("#audit-seed")).to_contain_text(game.seed)
    # the replay: the table's part, the three boards, the end of the game
    parts = page.locator("section.audit-board")
    expect(parts.first).to_be_visible()
    titled = parts.evaluate_all(
        "els => els.map(e => [e.dataset.board, e.querySelector('h3').textContent,"
        " e.querySelectorAll('li').length])"
    )
    boards = [(n, lines) for n, title, lines in titled if title.lower().startswith("board ")]
    assert [n for n, _ in boards] == ["1", "2", "3"], titled
    assert all(lines >= 20 for _, lines in boards), titled  # at least every pair found
    page.locator("#audit-verdict").scroll_into_view_if_needed()
    shots.take(page, "audit")
    shots.take(page, "audit-whole", full_page=True)
    assert not game.console.errors, game.console.errors
