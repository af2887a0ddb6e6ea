"""The web edges answer only to their own names, and the page cannot be framed or made to
load or call anything else (issue 34, finding 5), against the real lobby and ledger.

DNS rebinding: a page on rebind.example, whose name the attacker then points at 127.0.0.1,
calls the edge with ``Host`` and ``Origin`` both rebind.example: the Origin then looks like
"the same host", and a CreateTable used to succeed. Now a Host name the edge was not given is
refused before any handler runs, and nothing is made."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from match_launch.natsserver import free_port
from match_launch.stack import Stack
from services.webedge import WebConfig, WebConfigError, host_name

LOBBY = "match.v1.LobbyService"
CREATE = {
    "gameKind": "GAME_KIND_MATCH_RACE",
    "seats": 2,
    "visibility": "VISIBILITY_OPEN",
    "displayName": "Ann",
    "race": {"readyWindowMs": 60000},
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"LOBBY_METRICS_PORT": str(free_port()), "LOBBY_WEB_HOSTS": "play.example.org"}
    workdir = tmp_path_factory.mktemp("stack")
    s = Stack(workdir, services=("dealer", "referee", "lobby", "ledger"), env=env)
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _port(url: str) -> str:
    return url.rsplit(":", 1)[1]


def _open_tables(stack: Stack) -> int:
    listed = httpx.post(
        f"{stack.web_url}/{LOBBY}/ListTables", json={"gameKind": "GAME_KIND_MATCH_RACE"}
    )
    assert listed.status_code == 200, listed.text
    return len(listed.json().get("tables", []))


def _create(stack: Stack, host: str) -> httpx.Response:
    return httpx.post(
        f"{stack.web_url}/{LOBBY}/CreateTable",
        json=CREATE,
        headers={"host": host, "origin": f"http://{host}", "x-request-id": str(uuid.uuid4())},
    )


def test_a_rebound_name_is_refused_and_makes_nothing(stack: Stack) -> None:
    port = _port(stack.web_url)
    before = _open_tables(stack)
    rebound = _create(stack, f"rebind.example:{port}")
    assert rebound.status_code == 403
    assert "does not answer to the name 'rebind.example'" in rebound.text
    assert _open_tables(stack) == before
    # the ledger's edge too
    ledger = httpx.post(
        f"{stack.ledger_web_url}/match.v1.LedgerAuditService/GetCheckpoint",
        json={},
        headers={"host": f"rebind.example:{_port(stack.ledger_web_url)}"},
    )
    assert ledger.status_code == 403


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST.:{port}", "play.example.org"]
)
def test_its_addresses_and_names_are_answered(stack: Stack, host: str) -> None:
    made = _create(stack, host.format(port=_port(stack.web_url)))
    assert made.status_code == 200, made.text


def test_the_page_cannot_be_framed_or_load_anything_else(stack: Stack) -> None:
    page = httpx.get(f"{stack.web_url}/index.html")
    if page.status_code == 404:  # a checkout whose bundle is not built: the config still says
        assert "make install" in page.text
        return
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    assert "default-src 'self'" in policy and "object-src 'none'" in policy
    ledger_origin = stack.ledger_web_url.rstrip("/")
    assert f"connect-src 'self' {ledger_origin};" in policy
    assert page.headers["x-frame-options"] == "DENY"


def test_host_names_are_read_without_port_case_or_trailing_dot() -> None:
    assert host_name("Play.Example.org.:443") == "play.example.org"
    assert host_name("localhost") == "localhost"
    assert host_name("127.0.0.1:8080") is None
    assert host_name("[::1]:8080") is None
    assert host_name("::1") is None


def test_the_names_an_edge_answers_to() -> None:
    config = WebConfig.from_env(
        {
            "LOBBY_WEB_ADDR": "0.0.0.0:8080",
            "LOBBY_WEB_ORIGINS": "https://play.example.org",
            "LOBBY_WEB_HOSTS": "Match.Example.NET, ",
        },
        "LOBBY",
    )
    assert config.answered_hosts() == {"localhost", "play.example.org", "match.example.net"}
    named = WebConfig.from_env({"LOBBY_WEB_ADDR": "edge.internal:8080"}, "LOBBY")
    assert named.answered_hosts() == {"localhost", "edge.internal"}
    with pytest.raises(WebConfigError, match="not a host name"):
        WebConfig.from_env({"LOBBY_WEB_HOSTS": "https://play.example.org"}, "LOBBY")
