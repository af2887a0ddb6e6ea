"""A test that outlives its timeout fails alone, and says where it waited.

pytest-timeout's ``thread`` method (pyproject.toml) prints every thread's stack and ends the
whole run. For an asyncio test that stack says only that the loop sat in ``select``: the
coroutine that waited, and the test's name, are nowhere in the tail of the output. So, before
pytest-timeout's own timer, this one takes the turn:

- an asyncio test still running at its timeout has each of its loop's tasks' stacks recorded
  (where each coroutine waits) and every task cancelled: the test fails with that record as its
  report, its fixtures tear down, and the run goes on to the other tests;
- a test that does not end within ``GRACE`` seconds of that (it swallowed the cancel, or hangs
  in a thread), or one whose main thread is not in an event loop, ends the run as pytest-timeout
  does, printing every thread's stack, then the test's name and its tasks last, where the tail of
  a CI log shows them.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import traceback
from collections.abc import Generator, Iterator
from types import FrameType
from typing import Any, NoReturn

import pytest
import pytest_timeout  # type: ignore[import-untyped]

GRACE = 60.0
_TIMED_OUT = pytest.StashKey[str]()


def _main_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop the main thread is running (its innermost), found from its frames."""
    frame: FrameType | None = sys._current_frames().get(threading.main_thread().ident or 0)
    while frame is not None:
        loop = frame.f_locals.get("self") if frame.f_code.co_name == "_run_once" else None
        if isinstance(loop, asyncio.AbstractEventLoop):
            return loop
        frame = frame.f_back
    return None


def _awaiting(coro: Any) -> Iterator[FrameType]:
    """The frames of ``coro`` and of each coroutine it awaits, outermost first: where the test
    is, down to the helper that waits (a task's own stack stops at its first frame)."""
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        frame = frame or getattr(coro, "ag_frame", None)
        if frame is not None:
            yield frame
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)


def _task_stacks(loop: asyncio.AbstractEventLoop) -> str:
    lines = []
    for task in sorted(asyncio.all_tasks(loop), key=lambda t: t.get_name()):
        lines.append(f"task {task.get_name()}: {task.get_coro()!r}")
        frames = list(_awaiting(task.get_coro()))
        for frame in frames:
            lines.extend(
                "  " + line
                for line in traceback.format_stack(frame, limit=1)[-1].rstrip().splitlines()
            )
        if not frames:
            lines.append("  (no frames: not started, or done)")
    return "\n".join(lines) or "no tasks"


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    for task in asyncio.all_tasks(loop):
        task.cancel("the test's timeout")


def _end_the_run(item: pytest.Item, said: str) -> NoReturn:
    """pytest-timeout's last resort, with the test's name and ``said`` printed last."""
    terminal = item.config.get_terminal_writer()
    try:
        capman = item.config.pluginmanager.getplugin("capturemanager")
        if capman:
            capman.suspend_global_capture(item)
        terminal.sep("+", title="Timeout")
        pytest_timeout.dump_stacks(terminal)
        terminal.sep("+", title=f"Timeout: {item.nodeid}")
        terminal.write(said + "\n")
    except Exception:
        traceback.print_exc()
    finally:
        terminal.flush()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)


class _Watch:
    def __init__(self, item: pytest.Item, settings: Any) -> None:
        self.item = item
        self.settings = settings
        self.done = threading.Event()
        self.thread = threading.Thread(
            target=self._watch, name=f"timeout {item.nodeid}", daemon=True
        )

    def _watch(self) -> None:
        if self.done.wait(self.settings.timeout):
            return
        loop = _main_loop()
        if loop is None:
            _end_the_run(self.item, f"still running after {self.settings.timeout} s")
        try:
            stacks = _task_stacks(loop)
        except Exception as error:  # the loop changed under us: say so, cancel anyway
            stacks = f"(its tasks could not be read: {error!r})"
        said = (
            f"still running after {self.settings.timeout} s, its tasks cancelled; "
            f"where each waited:\n{stacks}"
        )
        self.item.stash[_TIMED_OUT] = said
        loop.call_soon_threadsafe(_cancel_all, loop)
        if not self.done.wait(GRACE):
            _end_the_run(self.item, f"{said}\nand not ended {GRACE} s later")


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    if settings.method != "thread":
        return None
    watch = _Watch(item, settings)

    def cancel() -> None:
        watch.done.set()
        watch.thread.join()

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  # pytest-timeout calls it
    watch.thread.start()
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    report = yield
    said = item.stash.get(_TIMED_OUT, None)
    if said is not None:  # the phase the timeout hit fails, whatever became of the cancel
        del item.stash[_TIMED_OUT]
        report.outcome = "failed"
        report.longrepr = f"Timeout: {item.nodeid} {said}\n\n{report.longrepr or ''}"
    return report
