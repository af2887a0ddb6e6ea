"""The layout shows the seam (issue 12): no library imports a service, the launcher lives in a
module whose name says so, and the ledger and the audit name no game (they go through
match_rules.registry)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIBS = ROOT / "libs"
GENERATED = LIBS / "match" / "v1"
# The slugs of the registered games (match_rules.registry), as words in a name: every game's
# package, proto module, message and oneof member is named after it.
SLUGS = frozenset({"race", "concentration", "match_cards", "number_match", "match_five"})
STATEMENT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)


def _python(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if GENERATED not in p.parents)


def _imports(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """(line, module) of every import in ``path`` (or in ``text`` as if it were that file),
    relative ones resolved to their package; ``from a import b`` gives ``a`` and ``a.b``."""
    source = path.read_text(encoding="utf-8") if text is None else text
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = path.relative_to(LIBS).parent.parts
                base = ".".join(package[: len(package) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return out


def _is_service(module: str) -> bool:
    return module == "services" or module.startswith("services.")


def test_the_libraries_are_found() -> None:
    files = _python(LIBS)
    assert len(files) > 50
    assert LIBS / "match_rules" / "registry.py" in files
    assert LIBS / "match_rules" / "race" / "bot.py" in files


# The one exception, and why: `make deploy-check` checks every alert and dashboard query against
# the metrics the services export, so it imports the ``services`` package to walk its modules
# and read the Prometheus registry. No library imports that module, and it imports nothing of a
# service by name.
READS_THE_SERVICES = {("libs/match_deploy/promql.py", "services")}


def test_no_library_imports_a_service() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in _python(LIBS)
        for line, module in _imports(path)
        if _is_service(module) and (str(path.relative_to(ROOT)), module) not in READS_THE_SERVICES
    ]
    assert not found, "a library imports a service:\n" + "\n".join(found)


def test_the_import_check_sees_every_form_of_import() -> None:
    """The check above is only as good as its reading of imports: every form is caught."""
    as_if = LIBS / "match_example" / "m.py"
    for source in (
        "import services.bot.player",
        "import services",
        "import os, services.ledger as ledger",
        "from services.bot import fill",
        "from services import bot",
        "def f() -> None:\n    from services.ledger import store\n",
    ):
        assert any(_is_service(m) for _, m in _imports(as_if, source)), source
    harmless = "from match_rules.race import bot\nimport servicesx\nfrom . import services_doc\n"
    assert not any(_is_service(m) for _, m in _imports(as_if, harmless))


def test_nothing_imports_the_deploy_check() -> None:
    """The exception above stays one: no other library imports match_deploy.promql."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _python(LIBS)
        if path.parent.name != "match_deploy"
        for line, module in _imports(path)
        if module.startswith("match_deploy")
    ]
    assert not found


def test_the_launcher_is_not_a_testing_package() -> None:
    assert (LIBS / "match_launch" / "stack.py").is_file()
    assert not (LIBS / "match_testing").exists()


def test_every_registered_game_is_known_here() -> None:
    from match_rules.registry import games

    assert {game.slug for game in games()} <= SLUGS


def _words(name: str) -> list[str]:
    """The words of a name, lower case: ``ThreeInARowEvent`` -> three, in, a, row, event."""
    split = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)  # ARow: A_Row
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", split).lower().split("_")


def test_a_name_splits_into_its_words_even_with_a_one_letter_word() -> None:
    assert _words("ThreeInARowEvent") == ["three", "in", "a", "row", "event"]
    assert _words("MatchCardsEvent") == ["match", "cards", "event"]
    assert _words("race_pb2") == ["race", "pb2"]


def _names_a_game(token: tokenize.TokenInfo) -> bool:
    """A name with a game's slug as a word (``race``, ``race_pb2``, ``RaceEvent``,
    ``concentration_pb2``), or a string that is exactly a slug (``HasField("race")``)."""
    if token.type == tokenize.NAME:
        words = _words(token.string)
        joined = f"_{'_'.join(words)}_"  # a slug of several words (match_cards) as words
        return any(word in SLUGS for word in words) or any(f"_{s}_" in joined for s in SLUGS)
    if token.type == tokenize.STRING:
        try:
            value = ast.literal_eval(token.string)
        except (ValueError, SyntaxError):
            return False
        return value in SLUGS
    return False


def _game_names(source: str) -> list[tuple[int, str]]:
    """(line, text) of each place ``source``'s code names a game; comments and docstrings (a
    string that is a whole statement) may."""
    found = []
    before = tokenize.NEWLINE  # the last token that is not a comment or a line break
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL):
            continue
        statement = token.type == tokenize.STRING and before in STATEMENT_START
        if _names_a_game(token) and not statement:
            found.append((token.start[0], token.line.strip()))
        before = token.type
    return found


def test_the_game_check_sees_a_game_named() -> None:
    for source in (
        "from match_rules.race import decide\n",
        "from match.v1 import race_pb2\n",
        "x = envelope.race.game_ended\n",
        "RaceEvent = 1\n",
        "if envelope.HasField('race'):\n    pass\n",
        "from match_rules.concentration.game import GAME\n",
        "MatchCardsEvent = 1\n",
        "from match.v1 import match_cards_pb2\n",
    ):
        assert _game_names(source), source
    harmless = (
        '"""A module about the race."""\n'
        "# the race, for example\n"
        "trace = registry.by_slug(slug)\n"
        "message = f'no game {slug!r}'\n"
    )
    assert not _game_names(harmless)


def test_the_ledger_and_the_audit_name_no_game() -> None:
    """Every game reaches the ledger and the audit through match_rules.registry: their code
    names no game's package, proto module, message or oneof member (docstrings and comments may
    still give one as an example)."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for folder in (LIBS / "match_audit", ROOT / "services" / "ledger")
        for path in _python(folder)
        for line, text in _game_names(path.read_text(encoding="utf-8"))
    ]
    assert not found, "the ledger or the audit names a game:\n" + "\n".join(found)


def test_the_shells_name_no_game() -> None:
    """The referee hosts, the dealer deals, the lobby serves and the bot service plays every
    registered game through match_rules.registry and the Game protocol: their code names no
    game (a game without a bot player, ``game.bot is None``, is simply not played by the bot)."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for name in ("bot", "referee", "dealer", "lobby")
        for path in _python(ROOT / "services" / name)
        for line, text in _game_names(path.read_text(encoding="utf-8"))
    ]
    assert not found, "a shell names a game:\n" + "\n".join(found)


CLIENT = LIBS / "match_client"


def test_the_terminal_client_names_no_game() -> None:
    """``match`` and ``make demo`` find each game in match_client.registry (its package's
    ``CLIENT``), and the SDK calls every game through one session made from its service's
    descriptor: the client's shared modules name no game."""
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for name in ("cli.py", "client.py", "demo.py", "session.py", "terminal.py", "game.py")
        for path in [CLIENT / name]
        for line, text in _game_names(path.read_text(encoding="utf-8"))
    ]
    assert not found, "the terminal client's shared code names a game:\n" + "\n".join(found)


def test_every_game_has_a_terminal_client() -> None:
    from match_client.registry import clients
    from match_rules.registry import games

    assert [c.slug for c in clients()] == [g.slug for g in games()]
    for game in games():
        assert (CLIENT / game.slug / "game.py").is_file(), game.slug


def _module(path: Path) -> str:
    parts = path.relative_to(LIBS).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (module -> the modules it imports), or []."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str]:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return []
        path.append(node)
        for child in sorted(graph.get(node, ())):
            found = visit(child)
            if found:
                return found
        path.pop()
        done.add(node)
        return []

    for node in sorted(graph):
        found = visit(node)
        if found:
            return found
    return []


def _import_graph(folder: Path) -> dict[str, set[str]]:
    """Each module of ``folder`` -> the modules of ``folder`` it imports, anywhere in it (inside
    a function too). ``from package import module`` imports the module, not the package's
    ``__init__`` (which is already loaded, or being loaded, by then)."""
    modules = {_module(p): p for p in _python(folder)}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = [(line, m) for line, m in _imports(path) if m in modules and m != name]
        submodules = {(line, m.rpartition(".")[0]) for line, m in found}
        graph[name] = {m for line, m in found if (line, m) not in submodules}
    return graph


def test_no_import_circle_in_the_client() -> None:
    assert len(_import_graph(CLIENT)) > 20
    assert _cycle(_import_graph(CLIENT)) == []


def test_the_circle_check_sees_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"b"}}) == []
