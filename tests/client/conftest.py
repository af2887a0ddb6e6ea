"""Every test of the client has its own player key: ``MATCH_CONFIG_DIR`` in the test's own
temporary directory (inherited by the ``match`` processes a test starts), never the user's."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The config directory of this test's ``match``: a new player each test."""
    directory = tmp_path / "match-config"
    monkeypatch.setenv("MATCH_CONFIG_DIR", str(directory))
    return directory
