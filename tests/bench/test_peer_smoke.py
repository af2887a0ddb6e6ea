"""The Colyseus peer of `make bench-peer`, tiny: its room's turn rules and its driver's JSON.

Installs the peer with npm ci from its lock file when needed (CI has npm and the registry): a
failure to install fails here, loudly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from match_bench import peer

LATENCY = {"p50", "p95", "p99"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[peer.ColyseusServer]:
    peer.install()
    assert (peer.PEER_DIR / peer.STAMP).read_text().strip() == peer.lock_digest()
    log = Path(tmp_path_factory.mktemp("colyseus")) / "server.log"
    with peer.ColyseusServer(log) as started:
        yield started


def test_a_miss_pauses_the_board_and_bad_tiles_are_refused(server: peer.ColyseusServer) -> None:
    c = peer.drive(server, "check", timeout=60)["check"]
    assert c["layout_tiles"] == 20
    assert c["first"]["result"] == "flipped" and c["first"]["turns"] == 1
    assert c["miss"]["result"] == "miss" and c["miss"]["pausedUntil"] > 0
    assert c["miss"]["symbol"] != c["first"]["symbol"]
    assert c["during_pause"]["code"] == "paused"
    assert c["late_in_pause"]["code"] == "paused"
    assert [r["code"] for r in c["out_of_range"]] == ["tile_out_of_range"] * 3
    assert c["still_showing"]["code"] == "tile_face_up"  # the two of a miss, until the next turn
    after = c["after_pause"]
    assert "code" not in after and after["turnedDown"] == [1, c["miss"]["tile"]]
    assert c["pair"]["result"] == "pair" and c["pair"]["pairs"] == 1
    assert c["face_up"]["code"] == "tile_face_up"
    # the other player hears of each accepted turn, as counts only
    assert c["guest_progress_messages"] == 4
    assert set(c["guest_last_progress"]) == {"seat", "board", "pairs", "turns", "done"}
    assert c["guest_last_progress"]["pairs"] == 1


def test_the_driver_prints_full_speed_and_human_pace(server: peer.ColyseusServer) -> None:
    full = peer.drive(
        server, "full", "--rooms", "4", "--warmup", "0.5", "--seconds", "2", timeout=60
    )["full_speed"]
    assert full["turns"] > 0 and full["turns_per_s"] > 0
    assert set(full["latency_ms"]) == LATENCY and full["latency_ms"]["p99"] > 0
    assert full["refused"] == {} and full["errors"] == {}  # pairs only: never refused
    assert full["rooms"] == 4 and full["concurrency"] == 64
    assert full["cpu_s"]["server"] > 0 and full["server_cpu_us_per_turn"] > 0
    levels = ("--levels", "2,4", "--seconds", "2")
    human = peer.drive(server, "human", *levels, timeout=60)["human_pace"]
    assert [p["rooms"] for p in human] == [2, 4]
    assert all(p["turns"] > 0 and set(p["latency_ms"]) == LATENCY for p in human)
    assert all(p["refused"] == {} and p["errors"] == {} for p in human)
