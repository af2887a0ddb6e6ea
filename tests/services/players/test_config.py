"""The players service's settings: the cap on unfinished tables' records it keeps
(``PLAYERS_KEEP_MIB``), and a value it cannot use refused before the service starts."""

from __future__ import annotations

import pytest

from services.players.follow import GATHER_BYTES
from services.players.service import PlayersConfig
from tests.refused import refused_at_start


def test_the_cap_on_kept_records_is_64_mib_unless_set() -> None:
    assert PlayersConfig.from_env({}).keep_bytes == GATHER_BYTES == 64 * 1024 * 1024
    assert PlayersConfig.from_env({"PLAYERS_KEEP_MIB": " "}).keep_bytes == GATHER_BYTES
    assert PlayersConfig.from_env({"PLAYERS_KEEP_MIB": "256"}).keep_bytes == 256 * 1024 * 1024


@pytest.mark.parametrize("value", ["0", "-4", "1.5", "lots"])
def test_a_cap_it_cannot_use_says_what_to_set(value: str) -> None:
    with pytest.raises(ValueError, match="PLAYERS_KEEP_MIB must be a whole number of MiB, 1 or"):
        PlayersConfig.from_env({"PLAYERS_KEEP_MIB": value})


def test_the_service_refuses_it_before_it_starts() -> None:
    said = refused_at_start("players", {"PLAYERS_KEEP_MIB": "none"})
    assert "players: PLAYERS_KEEP_MIB must be a whole number of MiB, 1 or more, not 'none'" in said
