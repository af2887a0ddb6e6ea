"""Servers that end with the run that started them, however it ends.

Every process the launcher, a test, a bench or a chaos run starts (nats-server, a service, a
peer) is started as ``subprocess.Popen(tied([...]))``: util-linux's ``setpriv --pdeathsig
KILL`` asks Linux to send it SIGKILL the moment the thread that started it ends, then execs the
program itself (same pid, nothing left in between). So a run killed with SIGKILL (a mutant
timed out by mutmut, a CI job cancelled, a test runner killed mid-test) leaves no server behind
with parent 1, holding ports and files. A clean stop still terminates each child itself first.

Why setpriv and not ``preexec_fn``: no Python runs between fork and exec, so starting a
server from a process with threads (gRPC's, the tests') stays safe (docs/testing.md, "No fork
after threads"), and Popen keeps its vfork path.

The signal follows the starting *thread*: start servers from the main thread or from a
long-lived pool (asyncio's default executor keeps its threads until the loop closes), never
from a one-off thread that ends while the server should go on.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from functools import cache


@cache
def _setpriv() -> str | None:
    return shutil.which("setpriv") if sys.platform.startswith("linux") else None


def tied(argv: Sequence[str]) -> list[str]:
    """``argv`` run so that it dies with the thread that starts it (as it is where util-linux's
    setpriv is missing: off Linux, say)."""
    setpriv = _setpriv()
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else list(argv)
