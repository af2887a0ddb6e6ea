"""Ports for the test stacks' servers: chosen below the kernel's ephemeral range, so no
outgoing connection on a busy machine takes one between choosing it and the server binding it;
free when chosen; never the same twice in a process."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from match_launch import natsserver
from match_launch.natsserver import ephemeral_ports, free_port


def test_ports_are_free_below_the_ephemeral_range_and_never_repeat() -> None:
    low, high = ephemeral_ports()
    assert 1024 < low <= high
    ports = [free_port() for _ in range(200)]
    assert len(set(ports)) == len(ports)
    assert all(natsserver.LOWEST_PORT <= p < low for p in ports)
    with socket.socket() as s:
        s.bind(("127.0.0.1", ports[-1]))  # still free to bind


def test_without_room_below_the_range_the_kernel_chooses(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    squeezed = tmp_path / "range"
    squeezed.write_text("10500\t60999\n")
    monkeypatch.setattr(natsserver, "EPHEMERAL_RANGE", squeezed)
    assert ephemeral_ports() == (10500, 60999)
    assert free_port() >= 10500
    monkeypatch.setattr(natsserver, "EPHEMERAL_RANGE", tmp_path / "missing")
    assert ephemeral_ports() == (32768, 60999)
