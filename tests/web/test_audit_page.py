"""The auditor's page in a real browser: from the end of a game played by clicks, follow
"check this game" and have the ledger verify it (its VerifyGame on the ledger's web edge)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import expect

from match_launch.stack import Stack
from tests.web.conftest import FinishedGame, Shots


def test_the_auditors_page_verifies_the_game(
    game_by_clicks: FinishedGame, shots: Shots, stack: Stack, tmp_path: Path
) -> None:
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
    # The command the page prints for checking on one's own machine works as printed: the
    # ledger's address is given when it is not match-audit's default (this stack's is not).
    evidence = page.locator("#audit-evidence")
    key = evidence.locator("code").first.text_content() or ""
    online = (evidence.locator("pre").text_content() or "").splitlines()[0]
    assert f"match-audit --addr {stack.ledger_addr} verify {game.table_id}" in online, online
    (tmp_path / "ledger.vkey").write_text(key + "\n")
    argv = shlex.split(online)
    argv[0] = str(Path(sys.executable).with_name("match-audit"))
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("PASS"), done.stdout
    page.locator("#audit-verdict").scroll_into_view_if_needed()
    shots.take(page, "audit")
    shots.take(page, "audit-whole", full_page=True)
    assert not game.console.errors, game.console.errors
