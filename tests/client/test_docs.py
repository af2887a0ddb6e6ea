"""What a new user reads first holds: every setting `make run` reads is documented, the API's
hand-made calls work with what the install brings, and no example leaves files in the repo."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from services.stack.__main__ import METRICS

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
STACK = (ROOT / "services" / "stack" / "__main__.py").read_text(encoding="utf-8")


def test_every_setting_make_run_reads_is_in_the_readme() -> None:
    read = set(re.findall(r'get\("([A-Z_]+)"', STACK))
    read |= {f"{service}_METRICS_PORT" for service in METRICS}
    assert {"NATS_PORT", "LOBBY_ADDR", "LEDGER_ADDR", "MATCH_VAR", "NATS_URL"} <= read
    missing = sorted(name for name in read if f"`{name}`" not in README)
    assert not missing, f"README.md does not document {missing}"
    for service, port in METRICS.items():
        assert f"`{port}`" in README, f"{service}'s default metrics port {port}"


def test_grpcurl_is_said_where_to_get_and_the_same_calls_need_only_the_install() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        if "grpcurl -" in text:  # a grpcurl command line
            assert "go install github.com/fullstorydev/grpcurl" in text, path.name
    snippet = re.search(r"\.venv/bin/python - <<'PY'\n(.*?)\nPY\n", API, re.S)
    assert snippet is not None, "docs/api.md shows the calls with the project's own client"
    tree = ast.parse(snippet.group(1))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "match_client" in imported


def test_the_readmes_export_goes_under_var_not_into_the_repository() -> None:
    exports = re.findall(r"match-audit export .* -o (\S+)", README)
    assert exports and all(path.startswith(("var/", "~/")) for path in exports), exports


def test_the_client_docs_show_the_full_screen_view() -> None:
    client = (ROOT / "docs" / "client.md").read_text(encoding="utf-8")
    assert "[docs/img/match-play.svg](img/match-play.svg)" in client
    svg = (ROOT / "docs" / "img" / "match-play.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "board&#160;1&#160;ends&#160;in" in svg  # a capture
    capture = client.split("### The full-screen view", 1)[1].split("### Playing", 1)[0]
    assert " Match · table " in capture and "board 1 ends in " in capture
