"""Every registered game has every piece docs/architecture.md's "How to add a game" lists.

The checklist and this test name the same pieces, in the same order: a game missing one is
named here with the piece and the path it should be at, so the list cannot drift from the tree
(as the two lists it replaced did). Each piece is found by the game's slug (``race``,
``match_cards``: Python, protos, tests) or its name (``race``, ``match-cards``: the command
line, the web folder, the docs pages), as the registries give them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from match_client import registry as clients
from match_rules import registry

ROOT = Path(__file__).resolve().parent.parent
CHECKLIST = ROOT / "docs" / "architecture.md"


@dataclass(frozen=True)
class Names:
    """What a game's pieces are named after."""

    slug: str  # match_cards: the rules package, its protos, its Python tests
    name: str  # match-cards: `match play --game`, `make demo GAME=`, its web folder, its docs page
    title: str  # Match Cards
    deal_version: str  # match-cards-deal-v2


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def missing(game: Names, root: Path = ROOT, chaos_kinds: tuple[str, ...] = ()) -> list[str]:
    """Each piece of the checklist ``game`` lacks under ``root``: "<step>: <what> (<path>)"."""
    slug, name = game.slug, game.name
    out: list[str] = []

    def need(step: str, ok: bool, what: str) -> None:
        if not ok:
            out.append(f"{step}: {what}")

    def file(step: str, relative: str) -> None:
        need(step, (root / relative).is_file(), relative)

    rules = f"libs/match_rules/{slug}"
    for part in ("decide.py", "errors.py", "describe.py", "game.py", "events.py"):
        file("1 rules", f"{rules}/{part}")
    need(
        "1 rules",
        any((root / "tests" / "rules" / slug).glob("test_*.py")),
        f"tests/rules/{slug}/test_*.py",
    )
    file("2 deal", f"docs/vectors/{game.deal_version}.json")
    need(
        "2 deal",
        game.deal_version in _text(root / "docs" / "dealing.md"),
        f"{game.deal_version} specified in docs/dealing.md",
    )
    for proto in (slug, f"{slug}_command", f"{slug}_service"):
        file("3 protobuf", f"proto/match/v1/{proto}.proto")
    need(
        "3 protobuf",
        "rpc Play(stream " in _text(root / f"proto/match/v1/{slug}_service.proto"),
        f"rpc Play in proto/match/v1/{slug}_service.proto",
    )
    need(
        "4 adapter",
        f'"match_rules.{slug}.game"' in _text(root / "libs/match_rules/registry.py"),
        "its line in libs/match_rules/registry.py",
    )
    file("5 conformance", f"tests/games/harness_{slug}.py")
    need(
        "5 conformance",
        f"match_rules.{slug}" in _text(root / "tests/proto/test_contract.py"),
        "its events pinned in tests/proto/test_contract.py",
    )
    file("6 docs", f"docs/rules-{name}.md")
    need(
        "6 docs",
        f"docs/rules-{name}.md" in _text(root / "README.md"),
        "README.md's list of games links docs/rules-{name}.md".replace("{name}", name),
    )
    file("9 end to end", f"tests/e2e/test_{slug}.py")
    file("9 end to end", f"tests/e2e/players_{slug}.py")
    need(
        "9 end to end",
        name in chaos_kinds,
        "a chaos player (its entry in GAMES, libs/match_chaos/games.py)",
    )
    file("10 terminal client", f"libs/match_client/{slug}/game.py")
    file("10 terminal client", f"libs/match_client/{slug}/demo.py")
    need(
        "10 terminal client",
        f'"match_client.{slug}.game"' in _text(root / "libs/match_client/registry.py"),
        "its line in libs/match_client/registry.py",
    )
    file("11 web page", f"web/src/{name}/page.ts")
    file("11 web page", f"web/src/{name}/tracker.ts")
    need(
        "11 web page",
        f'slug: "{name}"' in _text(root / "web/src/games.ts"),
        "its entry in web/src/games.ts",
    )
    need(
        "11 web page",
        any(f"src/{name}/" in _text(t) for t in (root / "web" / "test").glob("*.test.ts")),
        f"a unit test in web/test/ of web/src/{name}/",
    )
    file("11 web page", f"tests/web/test_{slug}.py")
    return out


def _games() -> list[Names]:
    by_slug = {c.slug: c for c in clients.clients()}
    return [
        Names(g.slug, by_slug[g.slug].name if g.slug in by_slug else "", g.title, g.deal_version)
        for g in registry.games()
    ]


def _chaos_kinds() -> tuple[str, ...]:
    from match_chaos import games  # only its list of games: nothing is started

    return games.NAMES


@pytest.mark.parametrize("game", _games(), ids=lambda g: g.slug)
def test_every_registered_game_has_every_piece(game: Names) -> None:
    assert game.name, f"{game.slug} has no terminal client in libs/match_client/registry.py"
    assert missing(game, chaos_kinds=_chaos_kinds()) == []


def test_the_terminal_clients_are_the_registered_games() -> None:
    assert [c.slug for c in clients.clients()] == [g.slug for g in registry.games()]


def test_a_game_with_nothing_lacks_every_piece(tmp_path: Path) -> None:
    """The check finds what is missing: a game that exists nowhere lacks all of it."""
    sixth = Names("three_in_a_row", "three-in-a-row", "Three in a Row", "three-in-a-row-deal-v1")
    lacking = missing(sixth, root=ROOT)
    steps = {line.split(":")[0] for line in lacking}
    assert steps == {
        "1 rules",
        "2 deal",
        "3 protobuf",
        "4 adapter",
        "5 conformance",
        "6 docs",
        "9 end to end",
        "10 terminal client",
        "11 web page",
    }
    assert "11 web page: web/src/three-in-a-row/page.ts" in lacking
    assert missing(sixth, root=tmp_path) == lacking


def test_the_checklist_names_every_piece_the_test_checks() -> None:
    """docs/architecture.md's numbered steps are the ones this test checks, by name."""
    text = CHECKLIST.read_text(encoding="utf-8")
    section = text.split("## How to add a game", 1)[1].split("\n## ", 1)[0]
    steps = re.findall(r"^(\d+)\. \*\*([^*]+)\.\*\*", section, re.M)
    named = {int(n): title.lower() for n, title in steps}
    assert named == {
        1: "rules",
        2: "deal",
        3: "protobuf",
        4: "adapter",
        5: "conformance",
        6: "docs",
        7: "proofs",
        8: "players",
        9: "end to end",
        10: "terminal client",
        11: "web page",
    }
    for piece in ("harness_<slug>.py", "players_<slug>.py", "web/src/<name>/", "test_<slug>.py"):
        assert piece in section, piece
