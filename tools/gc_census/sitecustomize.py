"""What each process's garbage collector does, and (for one service) what it finds: a
measurement aid, never part of a service. Python imports ``sitecustomize`` at start-up from
``PYTHONPATH``, so every process of a bench run (the services, which inherit the environment,
and the driver) loads this:

    GC_CENSUS=lobby PYTHONPATH=tools/gc_census .venv/bin/python -m match_bench --loop-rounds 0 \
        --idle-tables 0 --idle-per-game 0 --group-sync '' --no-games --no-pinned --no-profile

Each process (the bench's driver, ``match_bench``, and each service) writes
``var/gc-census/<process>.<pid>.log``: a line for every collection over 5 ms and every full
one (time, generation, milliseconds, objects freed). The service that ``GC_CENSUS`` names (or
``all``) also runs with ``gc.DEBUG_SAVEALL``: what each collection finds is kept rather than
freed, counted by type (a frame by its code, a task and a coroutine by their function), and
written as a ``census`` line whenever 3,000 objects have come. The objects kept are never
freed, and they make later collections slower: the pauses of that service are not its own in
such a run. docs/performance.md, "What the collector was left, and by whom", is what it found.
Unset, ``GC_CENSUS`` leaves every process alone."""

from __future__ import annotations

import collections
import gc
import os
import sys
import time
import types
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[2] / "var" / "gc-census"  # the checkout's var/
_PROCESSES = ("lobby", "referee", "dealer", "ledger", "bot", "players", "match_bench")


def _process() -> str | None:
    argv = " ".join(sys.orig_argv)
    return next((name for name in _PROCESSES if name in argv), None)


def _kind(thing: object) -> str:
    name = type(thing).__qualname__
    if isinstance(thing, types.FrameType):
        code = thing.f_code
        return f"frame:{Path(code.co_filename).name}:{code.co_qualname}"
    if isinstance(thing, types.CoroutineType):
        return f"coroutine:{thing.__qualname__}"
    if isinstance(thing, BaseException):
        return f"exception:{name}"
    if isinstance(thing, types.FunctionType):
        return f"function:{thing.__qualname__}"
    get_coro = getattr(thing, "get_coro", None)
    if name == "Task" and get_coro is not None:
        return f"Task:{getattr(get_coro(), '__qualname__', '?')}"
    return name


class _Census:
    def __init__(self, process: str, keep: bool) -> None:
        folder = FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        self._out = open(folder / f"{process}.{os.getpid()}.log", "w", buffering=1)  # noqa: SIM115
        self._keep = keep
        self._began = 0.0
        self._seen = 0
        self._kinds: collections.Counter[str] = collections.Counter()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        took_ms = (time.perf_counter() - self._began) * 1000
        generation = info["generation"]
        if took_ms > 5 or generation == 2:
            self._out.write(
                f"{time.time():.3f} generation={generation} ms={took_ms:.1f} "
                f"freed={info['collected']}\n"
            )
        if self._keep and len(gc.garbage) > self._seen:
            self._kinds.update(_kind(thing) for thing in gc.garbage[self._seen :])
            self._seen = len(gc.garbage)
            if sum(self._kinds.values()) > 3000:
                self._out.write(f"census {time.time():.3f} {self._kinds.most_common(40)!r}\n")
                self._kinds.clear()


def _install() -> None:
    wanted = os.environ.get("GC_CENSUS", "").strip()
    process = _process()
    if not wanted or process is None:
        return
    keep = wanted in (process, "all") and process != "match_bench"
    gc.callbacks.append(_Census(process, keep))
    if keep:
        gc.set_debug(gc.DEBUG_SAVEALL)


_install()
