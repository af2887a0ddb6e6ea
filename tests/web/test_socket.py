"""The page plays over the seat's WebSocket (web/src/socket.ts), in Chromium against the stack.

Every Connect call of a game's own service is aborted by the browser here (``page.route``):
the lobby's calls (a new table, its settings) still go over Connect, and a game that plays on
proves its commands and its view went over the socket, whose frames the page is seen sending
(``page.on("websocket")``). Number Match (solo: hints, a pair, more numbers) and the race (a
board played with the bot to the first pairs) each play so. When the socket cannot open (the
browser's connection to the edge refused: ``page.route_web_socket``), the page plays over
Connect as before.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, Request, Route, WebSocket, WebSocketRoute, expect

from match_launch.stack import Stack
from tests.web.conftest import Shots
from tests.web.test_number_match import ask_hint, cell, count, hinted, new_game


def block_connect(page: Page, service: str) -> list[str]:
    """Abort every Connect call of ``service``; the paths that were tried."""
    tried: list[str] = []

    def abort(route: Route) -> None:
        tried.append(route.request.url.rsplit("/", 1)[1])
        route.abort()

    page.route(re.compile(rf"/match\.v1\.{service}/\w+$"), abort)
    return tried


def sockets(page: Page) -> list[tuple[str, list[bytes | str]]]:
    """Every WebSocket the page opens from now: its URL and the frames it sends."""
    opened: list[tuple[str, list[bytes | str]]] = []

    def seen(ws: WebSocket) -> None:
        frames: list[bytes | str] = []
        opened.append((ws.url, frames))
        ws.on("framesent", lambda payload: frames.append(payload))

    page.on("websocket", seen)
    return opened


def pair_from_a_hint(page: Page) -> None:
    for _ in range(3):
        if ask_hint(page, by_key=False) == "PAIR":
            break
        page.click("#add-numbers")
    else:
        raise AssertionError("no hint found a pair")
    numbers = count(page.locator("#numbers-left"))
    first, second = hinted(page)
    cell(page, *first).click()
    cell(page, *second).click()
    expect(page.locator("#numbers-left")).to_have_attribute("data-count", str(numbers - 2))
    expect(cell(page, *first)).to_have_attribute("data-state", "empty")


def test_a_number_match_game_goes_over_the_socket(stack: Stack, page: Page, shots: Shots) -> None:
    opened = sockets(page)
    tried = block_connect(page, "NumberMatchService")
    new_game(page, stack)
    pair_from_a_hint(page)
    pair_from_a_hint(page)
    shots.take(page, "played")
    assert tried == [], f"game calls went over Connect: {tried}"
    (url, frames), *_ = opened
    assert url == f"ws://{stack.web_addr}/match.v1.NumberMatchService/Play", opened
    assert isinstance(frames[0], str)
    assert frames[0].startswith('{"authorization":"Bearer ')  # the token: the first message
    assert len([f for f in frames[1:] if isinstance(f, bytes)]) >= 5  # view, hints, pairs
    expect(page.locator("#connection-banner")).to_be_hidden()


def test_a_race_board_goes_over_the_socket(stack: Stack, page: Page, shots: Shots) -> None:
    from tests.web.racer import Clicks, Player

    opened = sockets(page)
    tried = block_connect(page, "MatchRaceService")
    player = Player(page, Clicks(), shots)
    player.create(stack.web_url, "Lin")
    player.play_game(stop_after_pairs=(2, 2))
    assert tried == [], f"game calls went over Connect: {tried}"
    assert [url for url, _ in opened] == [f"ws://{stack.web_addr}/match.v1.MatchRaceService/Play"]


def test_the_page_plays_over_connect_when_the_socket_cannot_open(
    stack: Stack, page: Page, shots: Shots
) -> None:
    refused: list[str] = []

    def refuse(ws: WebSocketRoute) -> None:
        refused.append(ws.url)
        ws.close(code=1006)

    page.route_web_socket(re.compile(r"/Play$"), refuse)
    calls: list[str] = []

    def seen(req: Request) -> None:
        if "/match.v1.NumberMatchService/" in req.url:
            calls.append(req.url.rsplit("/", 1)[1])

    page.on("request", seen)
    new_game(page, stack)
    pair_from_a_hint(page)
    assert refused, "the page never tried its socket"
    assert "PairCells" in calls and "Watch" in calls, calls
    expect(page.locator("#connection-banner")).to_be_hidden()
