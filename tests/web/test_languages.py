"""The page in German and in Greek (issue 35, item 5), its themes and its motion (item 6).

Every page is walked in each language, chosen from the browser's language (the context's
locale): home, each game's setup page and its table through a real game start (a race against
the bot, Concentration and Match Cards solo, Number Match played to its end, MATCH 5 with a
friend who joins by the invite code), the auditor's page checking that finished Number Match
game, and every game's rules; then the player's pages (#/me before and after a key is made
there, the player's public profile, a leaderboard, a leaderboard of no game) and the lobby (every
game's open tables with a race table of the first player's listed, an invite link), and the
end of that race of two people: the rematch offered by one and seen by the other. On each page,
after it has settled, two checks:

- no message key fell back (``window.matchI18n.missingKeys()``: a key the page asked for that
  the language's catalog lacks, or that no catalog has), and
- no English catalog message that the language says differently shows in the page's text
  (``window.matchI18n.englishOnly()``; its runs of three words or more between placeholders,
  so that a word both languages share, a name or a number, is not mistaken for one left
  untranslated). What a server wrote in its own words and the page marks ``translate="no"``
  (the ledger's check lines and replay on the auditor's page) is left out.

Then the switch: an English page switched to Greek in the top bar is Greek, and stays Greek
after a reload. The themes: the page's colours follow prefers-color-scheme (dark and light). The
flip: a card turning up animates where motion is allowed, and not at all under reduced motion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from match_launch.stack import Stack
from tests.web.conftest import DESKTOP_CONTEXT, Shots, open_page

GAMES = ["race", "concentration", "match-cards", "number-match", "match-5"]
WORDS = 3  # an English message this long or longer must not show on a German or Greek page


def assert_all_translated(page: Page, where: str) -> None:
    """No key fell back, and no English message the language translates shows in the page."""
    lang = page.evaluate("() => window.matchI18n.locale()")
    assert page.evaluate("() => document.documentElement.lang") == lang, where
    missing = page.evaluate("() => window.matchI18n.missingKeys()")
    assert missing == [], f"{where}: untranslated message keys {missing}"
    english = page.evaluate("() => window.matchI18n.englishOnly()")
    text = page.evaluate(
        "() => { const body = document.body.cloneNode(true);"
        " body.querySelectorAll('[translate=no]').forEach(e => e.remove());"
        " return [body.innerText || body.textContent, ...[...body.querySelectorAll("
        "'[aria-label],[title],[placeholder]')].map(e => [e.getAttribute('aria-label'),"
        " e.getAttribute('title'), e.getAttribute('placeholder')].join('\\n'))].join('\\n'); }"
    )
    shown = [part for e in english for part in literal_parts(e) if part in text]
    assert shown == [], f"{where} ({lang}): English left in the page: {shown}"


def literal_parts(message: str) -> list[str]:
    """The runs of fixed words in an English message, long enough to be told apart: the whole
    message when it has no placeholder, else the text between its `{placeholders}` (a message
    with a plural or a select is left to the key check)."""
    if "plural," in message or "select," in message:
        return []
    parts = [p.strip(" .,:;()") for p in re.split(r"\{[^{}]*\}", message)]
    return [p for p in parts if len(p.split()) >= WORDS]


@pytest.fixture(params=["de", "el"])
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def in_language(
    browser: Browser, request: pytest.FixtureRequest, shots: Shots, lang: str
) -> Iterator[Page]:
    locale = {"de": "de-DE", "el": "el-GR"}[lang]
    yield from open_page(browser, request, shots, **DESKTOP_CONTEXT, locale=locale)


@pytest.fixture
def speaker(
    browser: Browser, request: pytest.FixtureRequest, shots: Shots, lang: str
) -> Iterator[Page]:
    """A desktop page whose browser speaks `lang` (a fresh player)."""
    yield from in_language(browser, request, shots, lang)


@pytest.fixture
def friend_speaker(
    browser: Browser, request: pytest.FixtureRequest, shots: Shots, lang: str
) -> Iterator[Page]:
    """A second player, in a context of their own, speaking the same language."""
    yield from in_language(browser, request, shots, lang)


def test_every_page_in_german_and_in_greek(
    stack: Stack, speaker: Page, friend_speaker: Page, shots: Shots, lang: str
) -> None:
    page, base = speaker, stack.web_url
    page.goto(f"{base}/#/")
    expect(page.locator("#games [data-game]")).to_have_count(len(GAMES))
    expect(page.locator("#open-tables p").first).to_be_visible()
    assert_all_translated(page, "home")
    shots.take(page, f"home-{lang}")

    for slug in GAMES:
        page.goto(f"{base}/#/rules/{slug}")
        expect(page.locator(f'.rules[data-game="{slug}"] li').first).to_be_visible()
        assert_all_translated(page, f"the rules of {slug}")
    page.goto(f"{base}/#/rules/chess")
    assert_all_translated(page, "the rules of no game")

    # The race against the bot, from the home page: Ready, then the board.
    page.goto(f"{base}/#/")
    page.locator("#display-name").fill("Lena")
    page.locator("#create-race").click()
    expect(page).to_have_url(re.compile(r"#/play/race/[0-9a-z]+$"))
    expect(page.locator("#ready")).to_be_visible(timeout=20_000)
    assert_all_translated(page, "the race, Ready")
    page.locator("#ready").click()
    expect(page.locator(".race")).to_have_attribute("data-phase", "PLAYING", timeout=30_000)
    page.locator('.tile[data-tile="1"]').click()
    expect(page.locator('.tile[data-tile="1"]')).to_have_attribute("data-state", "up")
    assert_all_translated(page, "the race, playing")
    shots.take(page, f"race-{lang}")

    # Concentration, solo.
    page.goto(f"{base}/#/play/concentration/new")
    expect(page.locator("#create-game")).to_be_visible()
    assert_all_translated(page, "Concentration's setup")
    page.select_option("#players", "1")
    page.select_option("#pictures", "cards")
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/play/concentration/[0-9a-z]+$"))
    page.locator('.card[data-card="1"]').click()
    expect(page.locator('.card[data-card="1"]')).to_have_attribute("data-state", "up")
    assert_all_translated(page, "Concentration, playing")

    # Match Cards, solo.
    page.goto(f"{base}/#/play/match-cards/new")
    expect(page.locator("#create-game")).to_be_visible()
    assert_all_translated(page, "Match Cards' setup")
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/play/match-cards/[0-9a-z]+$"))
    page.locator('.card[data-card="1"]').click()
    expect(page.locator('.card[data-card="1"]')).to_have_attribute("data-state", "up")
    assert_all_translated(page, "Match Cards, playing")
    shots.take(page, f"match-cards-{lang}")

    # Number Match, to its end (asked twice), then the auditor's page of that game.
    page.goto(f"{base}/#/play/number-match")
    expect(page.locator("#level")).to_be_visible()
    assert_all_translated(page, "Number Match's setup")
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/play/number-match/[0-9a-z]+$"))
    expect(page.locator(".nm")).to_have_attribute("data-phase", "playing")
    table_id = page.url.rsplit("/", 1)[1]
    page.locator("#hint").click()
    expect(page.locator("#hint-text")).not_to_be_empty()
    assert_all_translated(page, "Number Match, playing")
    page.click("#end-game")
    page.click("#end-game")
    expect(page.locator("#game-over")).to_be_visible()
    expect(page.locator("#seed-check")).not_to_be_empty(timeout=15_000)
    assert_all_translated(page, "Number Match, over")
    page.goto(f"{base}/#/audit/{table_id}")
    expect(page.locator("#audit-checks li").first).to_be_visible(timeout=60_000)
    assert_all_translated(page, "the auditor's page")
    page.goto(f"{base}/#/audit")
    page.click("#audit-verify")
    expect(page.locator("#audit-verdict")).not_to_be_empty()
    assert_all_translated(page, "the auditor's page, no id")

    # MATCH 5: a friend joins by the invite code; both are in the writing.
    page.goto(f"{base}/#/play/match-5")
    expect(page.locator("#create-game")).to_be_visible()
    assert_all_translated(page, "MATCH 5's setup")
    page.select_option("#seats", "2")
    page.click("#create-game")
    code = page.locator("#invite-code")
    expect(code).to_have_text(re.compile(r"^[A-Z0-9]{4,}$"))
    assert_all_translated(page, "MATCH 5, waiting")
    friend_speaker.goto(f"{base}/#/play/match-5")
    friend_speaker.fill("#join-code", code.inner_text())
    friend_speaker.locator("#join-code").press("Enter")
    for p in (page, friend_speaker):
        expect(p.locator(".m5")).to_have_attribute("data-phase", "writing")
    page.locator("#link-1").fill("Hai")
    page.locator("#link-1").press("Enter")
    expect(page.locator("#saved-1")).not_to_have_text(re.compile("…|\\.\\.\\."))
    assert_all_translated(page, "MATCH 5, writing")
    assert_all_translated(friend_speaker, "MATCH 5, the friend writing")


PLAYER_ID = re.compile(r"^k[0-9a-f]{23}$")


def resign(page: Page) -> None:
    """Resign the race (the button asks to be pressed again to confirm)."""
    button = page.locator("#resign")
    expect(button).to_be_visible(timeout=15_000)
    button.click()
    button.click()


def test_the_players_pages_and_the_lobby_in_german_and_in_greek(
    stack: Stack, speaker: Page, friend_speaker: Page, lang: str
) -> None:
    page, friend, base = speaker, friend_speaker, stack.web_url

    # The player's page without a key, then with one made there.
    page.goto(f"{base}/#/me")
    expect(page.locator("#make-key")).to_be_visible()
    assert_all_translated(page, "the player's page, no key")
    page.click("#make-key")
    shown = page.locator("#player-id")
    expect(shown).to_have_attribute("data-player-id", PLAYER_ID)
    player_id = shown.get_attribute("data-player-id") or ""
    expect(page.locator("#key-warning")).to_be_visible()
    for panel in ("#profile", "#streak", "#online-seats", "#statistics"):
        expect(page.locator(panel)).to_be_visible(timeout=20_000)
    page.click("#show-key")
    expect(page.locator("#key-text")).to_be_visible()
    page.fill("#import-text", "not a key")
    page.click("#import-key")
    expect(page.locator("#import-error")).not_to_be_empty()
    assert_all_translated(page, "the player's page, a key made")

    page.goto(f"{base}/#/player/{player_id}")
    expect(page.locator("#public-profile")).to_be_visible(timeout=20_000)
    assert_all_translated(page, "a player's profile")
    page.goto(f"{base}/#/leaderboard/race")
    expect(page.locator("#board-empty, #board-rows").first).to_be_visible(timeout=20_000)
    assert_all_translated(page, "the race's leaderboard")
    page.goto(f"{base}/#/leaderboard/number-match")
    expect(page.locator("#board-empty, #board-rows").first).to_be_visible(timeout=20_000)
    assert_all_translated(page, "Number Match's leaderboard")
    page.goto(f"{base}/#/leaderboard/chess")
    expect(page.locator("#board-games li").first).to_be_visible()
    assert_all_translated(page, "the leaderboard of no game")

    # A race of two people: the player makes it without the bot; the friend finds it in the
    # lobby (every game's open tables, then the race's) and joins it.
    page.goto(f"{base}/#/")
    page.fill("#display-name", "Lena")
    page.select_option("#seats", "2")
    page.uncheck("#fill-now")
    page.click("#create-race")
    expect(page).to_have_url(re.compile(r"#/play/race/[0-9a-z]{8,32}$"))
    table = page.url.rsplit("/", 1)[1]
    friend.goto(f"{base}/#/")
    friend.click("#lobby-link")
    row = friend.locator(f'.lobby-game[data-game="race"] li[data-table-id="{table}"]')
    expect(row).to_contain_text("Lena", timeout=15_000)
    expect(friend.locator('.lobby-game[data-game="number-match"] .lobby-solo')).to_be_visible()
    assert_all_translated(friend, "the lobby")
    friend.goto(f"{base}/#/lobby/race")
    friend.fill("#display-name", "Nikos")
    friend.locator(f'button.join-table[data-table-id="{table}"]').click()
    expect(friend).to_have_url(re.compile(rf"#/play/race/{table}$"))
    friend.goto(f"{base}/#/join/ABCDEFGH2345")
    expect(friend.locator("#join-invite")).to_be_visible()
    assert_all_translated(friend, "an invite link")
    friend.goto(f"{base}/#/play/race/{table}")

    # Both resign at the first Ready; one offers the rematch, the other sees the offer.
    for p in (page, friend):
        resign(p)
    for p in (page, friend):
        expect(p.locator("#game-over")).to_be_visible(timeout=20_000)
        expect(p.locator("#rematch")).to_be_visible(timeout=10_000)
    assert_all_translated(page, "the race's end, the rematch offered")
    page.click("#rematch")
    expect(page).not_to_have_url(re.compile(rf"/{table}$"))
    expect(friend.locator("#rematch-status")).to_contain_text("Lena", timeout=10_000)
    assert_all_translated(friend, "the race's end, a rematch asked for")


def test_the_language_switch_is_remembered(stack: Stack, page: Page) -> None:
    page.goto(f"{stack.web_url}/#/play/number-match")
    expect(page.locator("#create-game")).to_have_text("Start the game")
    page.select_option("#language", "el")
    expect(page.locator("#create-game")).to_have_text("Ξεκινήστε το παιχνίδι")
    expect(page.locator("html")).to_have_attribute("lang", "el")
    page.reload()
    expect(page.locator("#create-game")).to_have_text("Ξεκινήστε το παιχνίδι")
    expect(page.locator("#language")).to_have_value("el")
    assert_all_translated(page, "Number Match's setup after the switch")


BACKGROUND = {"light": "rgb(244, 242, 236)", "dark": "rgb(20, 20, 19)"}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_theme_follows_the_system(
    stack: Stack, browser: Browser, request: pytest.FixtureRequest, shots: Shots, scheme: str
) -> None:
    for page in open_page(browser, request, shots, **DESKTOP_CONTEXT, color_scheme=scheme):
        page.goto(f"{stack.web_url}/#/")
        expect(page.locator("#games [data-game]")).to_have_count(len(GAMES))
        colours = page.evaluate(
            "() => { const s = getComputedStyle(document.body);"
            " const p = getComputedStyle(document.querySelector('.game-card'));"
            " return [s.backgroundColor, s.color, p.backgroundColor]; }"
        )
        assert colours[0] == BACKGROUND[scheme], colours
        other = BACKGROUND["dark" if scheme == "light" else "light"]
        assert other not in colours, colours
        shots.take(page, f"home-{scheme}")


def flip_animation(page: Page) -> str:
    """The animation a card gets as it turns face up (the stylesheet's rule, on a card made
    the way the card grid makes one)."""
    name: str = page.evaluate(
        "() => { const b = document.createElement('button'); b.className = 'card';"
        " b.dataset.state = 'down'; document.getElementById('app').append(b);"
        " b.dataset.state = 'up'; const n = getComputedStyle(b).animationName; b.remove();"
        " return n; }"
    )
    return name


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_card_flips_only_where_motion_is_allowed(
    stack: Stack, browser: Browser, request: pytest.FixtureRequest, shots: Shots, motion: str
) -> None:
    context = {**DESKTOP_CONTEXT, "reduced_motion": motion}
    for page in open_page(browser, request, shots, **context):
        page.goto(f"{stack.web_url}/#/")
        expect(page.locator("#games [data-game]")).to_have_count(len(GAMES))
        assert flip_animation(page) == ("flip" if motion == "no-preference" else "none")
