"""The suite's timeout (tests/timeouts.py), run on small suites of its own in a fresh pytest: a
hung asyncio test fails alone and names the line it waited on; one that will not end, ends the
run with its name last."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HUNG = """
import asyncio

async def waits(never):
    await never.wait()  # the helper's line, named too

async def test_hangs():
    never = asyncio.Event()
    await waits(never)  # the line the report names

async def test_after_it_runs():
    await asyncio.sleep(0)
"""

STUBBORN = """
import asyncio
import time

async def test_will_not_end():
    while True:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            pass

def test_blocks_the_thread():
    time.sleep(60)
"""


def run(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_it.py").write_text(source)
    (tmp_path / "conftest.py").write_text(
        "import tests.timeouts\ntests.timeouts.GRACE = 1.0\n"
        "from tests.timeouts import pytest_runtest_makereport, pytest_timeout_set_timer\n"
    )
    return subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
            "-o", "asyncio_mode=auto", "-o", "timeout=1.5", "-o", "timeout_method=thread",
            "-o", "asyncio_default_fixture_loop_scope=function", "--rootdir", str(tmp_path),
            "-ra", *args, str(tmp_path),
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "300"},
    )  # fmt: skip


def test_a_hung_asyncio_test_fails_alone_naming_where_it_waited(tmp_path: Path) -> None:
    done = run(tmp_path, HUNG)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 1 passed" in out
    assert "test_it.py::test_hangs still running after 1.5 s, its tasks cancelled" in out
    assert "await waits(never)  # the line the report names" in out
    assert "await never.wait()  # the helper's line, named too" in out
    assert "test_it.py::test_hangs - Timeout: test_it.py::test_hangs" in out  # the summary


def test_a_test_that_will_not_end_ends_the_run_with_its_name_last(tmp_path: Path) -> None:
    done = run(tmp_path, STUBBORN, "-k", "will_not_end")
    tail = done.stdout.rstrip().splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Timeout: test_it.py::test_will_not_end" in "\n".join(tail[-12:])
    assert tail[-1].endswith("and not ended 1.0 s later")


def test_a_test_blocking_its_thread_ends_the_run_with_every_stack(tmp_path: Path) -> None:
    done = run(tmp_path, STUBBORN, "-k", "blocks_the_thread")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "time.sleep(60)" in out  # pytest-timeout's stacks, the main thread's among them
    assert out.rstrip().endswith("still running after 1.5 s")
