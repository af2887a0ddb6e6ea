"""The bench's profiles as ``make bench`` takes them: the real py-spy (a dev dependency) on a
real process, its raw output split into a turn's hops by match_bench.hops. The split's rules
are tested on made-up stacks in test_bench_scripts.py; this checks that py-spy is there on a
fresh install and that what it writes is what the split reads (its format, its qualified
names)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from match_bench import hops

# A process whose CPU goes into a method named as the lobby's listing is (hops.HOPS).
BUSY = """
import time

class TableDirectory:
    def spin(self):
        end = time.monotonic() + 30
        while time.monotonic() < end:
            sum(range(1000))

print("ready", flush=True)
TableDirectory().spin()
"""


def test_py_spy_profiles_a_process_into_the_hops(tmp_path: Path) -> None:
    spy = Path(sys.executable).parent / "py-spy"
    assert spy.exists(), "py-spy is a dev dependency: make install brings it"
    raw = tmp_path / "prof-lobby.txt"
    with subprocess.Popen([sys.executable, "-c", BUSY], stdout=subprocess.PIPE, text=True) as busy:
        try:
            assert busy.stdout is not None and busy.stdout.readline().strip() == "ready"
            time.sleep(0.2)
            done = subprocess.run(
                [str(spy), "record", "-d", "2", "-r", "100", "-p", str(busy.pid),
                 "-f", "raw", "-o", str(raw)],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr[-2000:]
        finally:
            busy.kill()
    shares = hops.split(raw.read_text(), "lobby")
    assert sum(shares.values()) > 99
    assert shares.get("the listing (every frame's headers)", 0) > 80, shares
