"""How a command printed for the user names a program of this install (``match``,
``match-audit``), so that the line runs when pasted into the same shell.

``make install`` puts the programs in ``.venv/bin/``, which is on PATH only in a shell where
the venv is activated; anywhere else a bare ``match-audit`` is "command not found". This module
imports nothing of the client, so that every module that prints a command can use it.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import sys
from pathlib import Path


def runnable(name: str) -> str:
    """``name`` as the user can run it: the bare name when PATH finds it, else the script
    beside the running Python (where the install put it), relative to the current directory
    when it is under it (``.venv/bin/match-audit``), else its absolute path; quoted for the
    shell."""
    if shutil.which(name):
        return name
    script = Path(sys.executable).parent / name
    text = str(script)
    with contextlib.suppress(ValueError, OSError):  # not under it, or no current directory
        text = str(script.relative_to(Path.cwd()))
    # A bare name would be looked up on PATH again: "./match-audit" runs the file here.
    return shlex.quote(f"./{text}" if text == name else text)
