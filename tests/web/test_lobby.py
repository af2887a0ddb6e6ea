"""The lobby and the rematch in the browser, two people in two browser contexts against the
whole system: a Concentration table opened by one is joined from the lobby page by the other
(one click) and the game starts with both; a race of two ends, one asks for a rematch, the
other sees the offer and accepts it in one click, and the new game starts with both; once the
lobby lets the finished table go, its page says so and stops asking about it. An invite link
(`#/join/<code>`) opens the right game's page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from match_launch.stack import Stack
from tests.web.conftest import DESKTOP_CONTEXT, Shots, new_page, real_stack

TABLE_URL = re.compile(r"#/play/(?P<game>[a-z0-9-]+)/(?P<table>[a-z0-9]{8,32})$")


@pytest.fixture
def second(browser: Browser, shots: Shots) -> Iterator[Page]:
    """Another person: a page in a context of its own (its own storage, its own seats)."""
    ctx, page, console = new_page(browser, **DESKTOP_CONTEXT)
    shots.watch(page, console)
    yield page
    ctx.close()
    assert not console.errors, f"uncaught in the second page: {console.errors}"


def table_of(page: Page, game: str) -> str:
    expect(page).to_have_url(re.compile(rf"#/play/{game}/[a-z0-9]{{8,32}}$"))  # not .../new
    m = TABLE_URL.search(page.url)
    assert m is not None, page.url
    return m.group("table")


def test_a_concentration_table_is_joined_from_the_lobby_in_one_click(
    stack: Stack, page: Page, second: Page, shots: Shots
) -> None:
    page.goto(f"{stack.web_url}/#/play/concentration/new")
    page.fill("#display-name", "Cora")
    page.select_option("#players", "2")
    page.select_option("#cards", "24")
    page.uncheck("#cpu-fill")  # the table waits for a person
    page.click("#create-game")
    table = table_of(page, "concentration")
    expect(page.locator("#waiting-panel")).to_be_visible()

    # The home page leads to the lobby; the lobby lists the table under its game, in words.
    second.goto(f"{stack.web_url}/#/")
    second.click("#lobby-link")
    expect(second).to_have_url(re.compile(r"#/lobby$"))
    expect(second).to_have_title("Open tables · Match")
    expect(second.locator('.lobby-game[data-game="number-match"]')).to_contain_text("played alone")
    row = second.locator(f'.lobby-game[data-game="concentration"] li[data-table-id="{table}"]')
    expect(row).to_contain_text("Cora")
    expect(row).to_contain_text("1 of 2 seats taken, 1 free")
    expect(row).to_contain_text("24 emoji cards")
    button = row.locator("button.join-table")
    expect(button).to_have_accessible_name("Join the table of Cora, Concentration")
    shots.take(second, "lobby", full_page=True)
    # One game's lobby lists only that game's tables.
    second.click('.lobby-filter a[data-game="concentration"]')
    expect(second).to_have_url(re.compile(r"#/lobby/concentration$"))
    expect(second.locator(".lobby-game")).to_have_count(1)
    second.fill("#display-name", "Dev")
    second.locator(f'button.join-table[data-table-id="{table}"]').click()

    # Straight to the game's page, seated; the game starts with both.
    assert table_of(second, "concentration") == table
    for p in (page, second):
        expect(p.locator("#scores tbody tr")).to_have_count(2, timeout=15_000)
        expect(p.locator(".card")).to_have_count(24)
    expect(second.locator("#scores")).to_contain_text("You (Dev)")
    expect(page.locator("#scores")).to_contain_text("Dev")
    # The table is no longer listed: it has no free seat.
    page.goto(f"{stack.web_url}/#/lobby/concentration")
    expect(page.locator(".lobby-game")).to_contain_text("No open table of Concentration")


def resign(page: Page) -> None:
    button = page.locator("#resign")
    expect(button).to_be_visible(timeout=15_000)
    button.click()  # armed
    expect(button).to_have_text("Resign: press again to confirm")
    button.click()


def race_of_two(base: str, page: Page, second: Page) -> str:
    """Ann makes a race of two without the bot, Bob joins it from the lobby: its table id."""
    page.goto(f"{base}/#/")
    page.fill("#display-name", "Ann")
    page.select_option("#seats", "2")
    page.uncheck("#fill-now")
    page.click("#create-race")
    table = table_of(page, "race")
    second.goto(f"{base}/#/lobby/race")
    second.fill("#display-name", "Bob")
    second.locator(f'button.join-table[data-table-id="{table}"]').click()
    assert table_of(second, "race") == table
    return table


def test_a_rematch_starts_with_both_players(
    stack: Stack, page: Page, second: Page, shots: Shots
) -> None:
    table = race_of_two(stack.web_url, page, second)

    # Both resign at the first Ready: the game is over.
    for p in (page, second):
        resign(p)
    for p in (page, second):
        expect(p.locator("#game-over")).to_be_visible(timeout=20_000)
    offer = page.locator("#rematch")
    expect(offer).to_have_text("Play again with the same players", timeout=10_000)
    expect(second.locator("#rematch")).to_have_text("Play again with the same players")
    shots.take(page, "game-over", full_page=True)

    # Ann offers: she goes to the new table, waiting for Bob.
    offer.click()
    expect(page).not_to_have_url(re.compile(rf"/{table}$"))
    rematch = table_of(page, "race")
    expect(page.locator(".race")).to_have_attribute(
        "data-phase", "WAITING_FOR_PLAYERS", timeout=10_000
    )
    # A private table: no bot takes its seats, so nothing offers one (it would be refused).
    expect(page.locator("#waiting-panel")).to_be_visible(timeout=10_000)
    expect(page.locator("#waiting-panel")).to_contain_text("Ann")
    expect(page.locator("#start-now")).to_be_hidden()

    # Bob sees the offer (said in the live region too) and accepts in one click.
    status = second.locator("#rematch-status")
    expect(status).to_have_text("Ann asks for a rematch with the same players.", timeout=10_000)
    expect(second.locator("#live")).to_contain_text("Ann asks for a rematch")
    accept = second.locator("#rematch")
    expect(accept).to_have_accessible_name("Accept the rematch")
    shots.take(second, "offer", full_page=True)
    accept.focus()
    second.keyboard.press("Enter")
    expect(second).to_have_url(re.compile(rf"#/play/race/{rematch}$"))

    # The new game starts with both of them.
    for p in (page, second):
        expect(p.locator(".race")).to_have_attribute("data-phase", "READY", timeout=15_000)
        expect(p.locator("#players")).to_contain_text("Ann")
        expect(p.locator("#players")).to_contain_text("Bob")
    shots.take(second, "rematch-ready", full_page=True)

    # The finished table's page now says the rematch has started, and offers no button.
    page.goto(f"{stack.web_url}/#/play/race/{table}")
    expect(page.locator("#rematch-status")).to_have_text("The rematch has started.", timeout=10_000)


KEEP_S = 5  # how long the short-keeping stack's lobby lists a finished table


@pytest.fixture(scope="module")
def keeps_little(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stack whose lobby lets a finished table go KEEP_S after its game (the log's clock)."""
    workdir: Path = tmp_path_factory.mktemp("keep") / "stack"
    yield from real_stack(workdir, LOBBY_KEEP_FINISHED_S=str(KEEP_S))


def test_the_rematch_block_stops_asking_once_the_lobby_lets_the_table_go(
    keeps_little: Stack, page: Page, second: Page, shots: Shots
) -> None:
    """A finished game's page asks the lobby about a rematch (GetTable) while it is open; once
    the lobby has let the table go (NOT_FOUND table_archived), the page says so in the block,
    offers no button, and asks no more."""
    race_of_two(keeps_little.web_url, page, second)
    for p in (page, second):
        resign(p)
    offer = page.locator("#rematch")
    expect(offer).to_have_text("Play again with the same players", timeout=20_000)
    asks: list[str] = []
    page.on("request", lambda r: asks.append(r.url) if r.url.endswith("/GetTable") else None)
    page.wait_for_timeout(KEEP_S * 1000 + 1000)
    assert asks, "the open page did not ask about a rematch"
    # A table made after the keep moves the log's clock past it: the lobby lets the finished
    # table go, and the page's next ask is answered table_archived.
    second.goto(f"{keeps_little.web_url}/#/")
    second.fill("#display-name", "Bob")
    second.click("#create-race")
    table_of(second, "race")
    status = page.locator("#rematch-status")
    expect(status).to_have_text(
        "This game finished a while ago and the lobby no longer keeps it, so a rematch cannot"
        " be asked here any more: start a new table instead.",
        timeout=15_000,
    )
    expect(offer).to_be_hidden()
    shots.take(page, "archived", full_page=True)
    asked = len(asks)
    page.wait_for_timeout(6_000)  # three of the first minutes' 2 s turns
    assert len(asks) == asked, f"the page asked {len(asks) - asked} more times after"


def test_an_invite_link_opens_the_right_games_page(
    stack: Stack, page: Page, second: Page, shots: Shots
) -> None:
    """MATCH 5 makes private tables in the page; its invite code, opened as `#/join/<code>`,
    seats the friend and opens MATCH 5's page (the code alone does not say the game)."""
    page.goto(f"{stack.web_url}/#/play/match-5")
    page.fill("#display-name", "Ines")
    page.select_option("#seats", "2")
    page.check("#private")
    page.click("#create-game")
    table = table_of(page, "match-5")
    code = page.locator("#invite-code").inner_text(timeout=10_000).strip()
    assert re.fullmatch(r"[2-9A-Z]{12}", code), code
    second.goto(f"{stack.web_url}/#/join/{code}")
    expect(second.locator("h1")).to_have_text("Join a table")
    expect(second.locator("#invite")).to_contain_text(code)
    second.fill("#display-name", "Jon")
    second.click("#join-invite")
    assert table_of(second, "match-5") == table
    expect(second.locator("#players")).to_contain_text("Ines", timeout=15_000)
