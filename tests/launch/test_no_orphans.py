"""Nothing a run starts outlives it, however it ends: a run killed with SIGKILL mid-test (as
mutmut kills a mutant's run that took too long, or a CI job is cancelled) takes its
nats-servers (one, or a three-node cluster) and its services down with it
(match_launch.child)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A run as the tests start one: a nats-server, a cluster and a stack with one service, then it
# says the pids of all it started and waits to be killed.
RUN = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from match_launch.natscluster import NatsCluster
    from match_launch.natsserver import NatsServer
    from match_launch.stack import Stack

    work = Path(sys.argv[1])
    server = NatsServer(work / "nats").start()
    cluster = NatsCluster(work / "cluster")
    cluster.start()
    stack = Stack(work / "stack", services=("players",))
    stack.start()
    pids = [server.process.pid, *(p.pid for p in cluster.processes.values())]
    pids += [p.pid for p in stack.processes.values()]
    pids.append(stack.nats.process.pid)
    print(" ".join(map(str, pids)), flush=True)
    time.sleep(600)
    """
)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"  # a zombie is dead
    except FileNotFoundError:
        return False


@pytest.mark.stack
def test_a_run_killed_mid_test_leaves_no_server_running(tmp_path: Path) -> None:
    run = subprocess.Popen(
        [sys.executable, "-c", RUN, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,  # so that a failure below can still clean up the whole group
    )
    try:
        assert run.stdout is not None
        line = run.stdout.readline()
        pids = [int(p) for p in line.split()]
        assert len(pids) == 1 + 3 + 1 + 1, f"the run did not start: {line!r}"
        assert all(alive(pid) for pid in pids)

        os.kill(run.pid, signal.SIGKILL)  # no clean-up, no atexit, no finally
        run.wait(10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [pid for pid in pids if alive(pid)]
        assert not left, f"still running after their run was killed: {left}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        run.wait(10)
        if run.stdout is not None:
            run.stdout.close()
