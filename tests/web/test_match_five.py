"""MATCH 5 in Chromium against the real stack: two browsers, two players. Ann makes a private
table for two with short timers and shares its invite code; Bob (on a phone) joins with it.
Each writes links (Enter saves), Bob reloads in the middle of round 2's writing, both press
Done; then both vote through every ballot of both rounds (Bob contests one link) and the end
shows the standings worked out by hand, the published seed and the link to check the game;
every score on it is the one ``match-audit verify`` re-runs, live and after a reload.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from match_launch.stack import Stack
from tests.web.conftest import Shots, open_page

# The sand timer is not what ends the writing (both press Done), nor the vote (both press
# Done): short, so that a stuck page shows quickly, but long enough for a loaded machine.
WRITING_S = "60"
VOTE_S = "30"

LINKS = {  # (player, round) -> {combination: link}
    ("ann", 1): {1: "Shark", 2: "Actor"},
    ("bob", 1): {1: "shark!", 4: "Tiger"},  # equal to Ann's once normalised: matching
    ("ann", 2): {1: "Whale", 3: "Banana"},  # Bob contests "Banana": a tie without Ann's vote
    ("bob", 2): {1: "whale", 5: "Apple"},
}


@pytest.fixture
def friend(browser: Browser, request: pytest.FixtureRequest, shots: Shots) -> Iterator[Page]:
    """The second player: a phone in a context of its own (another browser, another player)."""
    yield from open_page(
        browser,
        request,
        shots,
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        reduced_motion="reduce",
    )


def write(page: Page, links: dict[int, str]) -> None:
    for combination, text in links.items():
        field = page.locator(f'input.link[data-combination="{combination}"]')
        field.fill(text)
        field.press("Enter")
        expect(field).to_have_attribute("data-state", "saved")
        expect(field).to_have_attribute("data-saved", text)


def vote_through(players: dict[str, Page], contest: set[str]) -> None:
    """Both vote on every ballot of each open combination and press Done, until the round's
    reading is over (the writing of the next round, or the end)."""
    ann = players["ann"]
    m5 = ann.locator(".m5")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        phase = m5.get_attribute("data-phase")
        if phase != "reading":
            return
        rnd, comb = m5.get_attribute("data-round"), m5.get_attribute("data-combination")
        if comb in (None, "0"):
            time.sleep(0.05)
            continue
        for name, page in players.items():
            reading = page.locator(f'#reading[data-round="{rnd}"][data-combination="{comb}"]')
            expect(reading).to_be_visible()
            ballots = reading.locator("li.ballot")
            for i in range(ballots.count()):
                ballot = ballots.nth(i)
                text = ballot.locator(".text").inner_text()
                no = name == "bob" and any(f"“{word}”" in text for word in contest)
                ballot.locator(".vote-reject" if no else ".vote-accept").click()
                expect(ballot).to_have_attribute("data-your-vote", "2" if no else "1")
            page.locator("#done").click()
        expect(m5).not_to_have_attribute("data-combination", comb or "")  # the next one opened
    raise AssertionError("the reading did not end within a minute")


def audited_points(stack: Stack, game_id: str) -> dict[str, int]:
    """Each player's points as ``match-audit verify`` re-runs the game from the ledger (its
    rerun's standings: ``1. <player>: 6 points, 2 matching links; 2. ...``)."""
    audit = Path(sys.executable).with_name("match-audit")
    argv = [str(audit), "verify", game_id, "--addr", stack.ledger_addr]
    argv += ["--key", str(stack.workdir / "ledger.vkey")]
    deadline = time.monotonic() + 30
    while True:  # the ledger publishes a game once it has its last record
        run = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if run.returncode == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert run.returncode == 0, run.stdout + run.stderr
    rerun = next(line for line in run.stdout.splitlines() if "rerun:" in line)
    points = {p: int(n) for p, n in re.findall(r"\d+\. ([0-9a-z]+): (\d+) points?", rerun)}
    assert len(points) == 2, rerun
    return points


def expect_points(page: Page, points: dict[str, int]) -> None:
    """Every score on the end screen is the audit's: "Your points", the Players table, the
    standings and the score boxes' totals (issue 31: the first two counted round 2 twice)."""
    over = page.locator("#game-over")
    expect(over).to_be_visible()
    me = page.locator("#players tr.me").get_attribute("data-player") or ""
    expect(page.locator("#my-points")).to_have_text(f"Your points: {points[me]}")
    for player, n in points.items():
        expect(page.locator(f'#players tr[data-player="{player}"] td.num')).to_have_text(str(n))
        expect(over.locator(f'#standings li[data-player="{player}"]')).to_contain_text(
            f": {n} points ("
        )
        total = page.locator(f'#score-boxes tr[data-player="{player}"] td.num').last
        expect(total).to_have_text(str(n))


def test_two_players_by_invite_code_through_both_rounds(
    stack: Stack, page: Page, friend: Page, shots: Shots
) -> None:
    ann, bob = page, friend
    ann.goto(f"{stack.web_url}/#/play/match-5")
    ann.fill("#display-name", "Ann")
    ann.select_option("#seats", "2")
    ann.select_option("#writing-seconds", WRITING_S)
    ann.select_option("#vote-seconds", VOTE_S)
    expect(ann.locator("#private")).to_be_checked()
    ann.click("#create-game")
    expect(ann).to_have_url(re.compile(r"#/play/match-5/[0-9a-z]+$"))
    code_el = ann.locator("#invite-code")
    expect(code_el).to_have_text(re.compile(r"^[A-Z0-9]{4,}$"))
    code = code_el.inner_text()
    expect(ann.locator("#invite-link")).to_have_attribute(
        "href", re.compile(f"#/play/match-5/join/{code}$")
    )
    shots.take(ann, "invite")

    # Bob types the code (keyboard only: Tab to the fields, Enter submits).
    bob.goto(f"{stack.web_url}/#/play/match-5")
    bob.fill("#display-name", "Bob")
    bob.fill("#join-code", code.lower())
    bob.locator("#join-code").press("Enter")
    expect(bob).to_have_url(ann.url)
    for p in (ann, bob):
        expect(p.locator(".m5")).to_have_attribute("data-phase", "writing")
        expect(p.locator("input.link")).to_have_count(10)
        expect(p.locator("#categories li")).to_have_count(5)
    label = ann.locator('label[for="link-1"]').inner_text()
    assert label.startswith("1. ") and "(red and yellow)" in label, label
    expect(ann.locator("#timer")).to_contain_text("Sand timer")

    for rnd in (1, 2):
        write(ann, LINKS[("ann", rnd)])
        bob_links = LINKS[("bob", rnd)]
        first, *rest = bob_links.items()
        write(bob, dict([first]))
        if rnd == 2:  # a reload in the writing: the page comes back with Bob's link
            bob.reload()
            expect(bob.locator(".m5")).to_have_attribute("data-phase", "writing")
            field = bob.locator(f'input.link[data-combination="{first[0]}"]')
            expect(field).to_have_value(first[1])
            expect(field).to_have_attribute("data-state", "saved")
        write(bob, dict(rest))
        if rnd == 1:
            shots.take(bob, "writing")
        ann.click("#done")
        bob.locator("#done").focus()
        bob.keyboard.press("Enter")
        expect(ann.locator(".m5")).to_have_attribute("data-phase", "reading")
        if rnd == 1:
            expect(ann.locator("li.ballot")).to_have_count(2)
            shots.take(ann, "reading")
        vote_through({"ann": ann, "bob": bob}, contest={"Banana"})
        if rnd == 1:
            expect(ann.locator(".m5")).to_have_attribute("data-phase", "writing")
            expect(ann.locator(".m5")).to_have_attribute("data-round", "2")
            expect(ann.locator("#score-boxes")).to_contain_text("Round 1")

    # Round 1: Shark/shark! match (2 each), Actor 1, Tiger 1 -> Ann 3, Bob 3. Round 2:
    # Whale/whale 2 each, Banana refused (1 to 1, Ann's vote left out: 0 to 1), Apple 1 ->
    # Ann 2, Bob 3. In all: Bob 6, Ann 5.
    for p in (ann, bob):
        over = p.locator("#game-over")
        expect(over).to_be_visible()
        standings = over.locator("#standings li")
        expect(standings).to_have_count(2)
        expect(standings.nth(0)).to_have_text(
            re.compile(r"^1\. (Bob|you): 6 points \(3 \+ 3\), 2 matching links$")
        )
        expect(standings.nth(1)).to_have_text(
            re.compile(r"^2\. (Ann|you): 5 points \(3 \+ 2\), 2 matching links$")
        )
        expect(over.locator("#seed")).to_have_text(re.compile(r"^[0-9a-f]{64}$"), timeout=15_000)
        expect(over.locator("#check-game")).to_have_attribute(
            "href", re.compile(r"^#/audit/[0-9a-z]+$")
        )
    expect(ann.locator("#winner")).to_have_text("The winner: Bob")
    expect(bob.locator("#winner")).to_have_text("The winner: you")
    shots.take(ann, "over", full_page=True)
    shots.take(bob, "over-phone", full_page=True)

    # Every line the pages said (the log, also read out) starts with a capital (issue 31).
    for p in (ann, bob):
        said = p.locator("#log li").evaluate_all("els => els.map(e => e.textContent)")
        assert said, "nothing was said"
        assert all(re.match(r"[A-Z0-9“]", line) for line in said), said

    # The scores, against the audit's rerun of the game: live (the end's last snapshot has come
    # by the time the ledger has the game), then after a reload (a snapshot of the end).
    game_id = (ann.locator("#check-game").get_attribute("href") or "").rsplit("/", 1)[-1]
    points = audited_points(stack, game_id)
    assert sorted(points.values()) == [5, 6], points
    for p in (ann, bob):
        expect_points(p, points)
    for p in (ann, bob):
        p.reload()
        expect(p.locator(".m5")).to_have_attribute("data-phase", "over")
        expect_points(p, points)
