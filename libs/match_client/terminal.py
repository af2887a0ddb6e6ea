"""What every game's terminal client shares: the settings read from the environment, the
line-mode loop (stdin in a thread, the table's stream, the clock's ticks), the words of a
failed call and the ledger line at the end.

Nothing here names a game; each game's package (``match_client.<slug>``) plays its seats with
these, and ``match_client.cli`` finds the game in ``match_client.registry``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from match.v1 import lobby_pb2
from match_bus.clock import Clock
from match_client import identity
from match_client.client import error_details, refusal_code, status_name
from match_client.clock import ServerClock
from match_client.programs import runnable
from match_client.seats import state_dir
from match_rules import registry

Out = Callable[[str], None]
TICK_S = 0.25  # how often the line mode looks at the clock for a milestone to say
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
# A Watch from beyond the table's last event starts with a snapshot (docs/api.md, "Watch"):
# a resumed seat gets its view as it is now, not the whole game told again.
SNAPSHOT = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Settings:
    """What the environment says, read once at start."""

    state_dir: Path
    config_dir: Path  # where the player's key is kept (match_client.identity)
    ledger_key: str  # the ledger's verifier key file, for the audit command at the end
    ledger_addr: str | None  # only when not the default
    plain: bool  # $MATCH_PLAIN: always the line mode
    clock: Clock  # the system clock (tests run it faster: REFEREE_CLOCK_RATE)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        var = env.get("MATCH_VAR") or "var"
        return cls(
            state_dir=state_dir(env),
            config_dir=identity.config_dir(env),
            # Where `make run` keeps the ledger's verifier key; the operator's copy elsewhere.
            ledger_key=env.get("MATCH_LEDGER_KEY") or str(Path(var) / "ledger.vkey"),
            ledger_addr=env.get("LEDGER_ADDR") or None,
            plain=env.get("MATCH_PLAIN", "") not in ("", "0"),
            clock=Clock.from_env(env),
        )

    def server_clock(self) -> ServerClock:
        return ServerClock(self.clock.now_ms, self.clock.rate)


def say(line: str) -> None:
    print(line, flush=True)


def describe_error(err: BaseException) -> str:
    """A failed call as the server put it: its message, and the refusal code if any."""
    code = refusal_code(err)
    status = status_name(err)
    if status == "UNAVAILABLE":
        details = error_details(err)
        hint = NOT_RUNNING if "connection refused" in details.lower() else ""
        return f"cannot reach the server ({details}){hint}"
    return f"{error_details(err)} ({code or status.lower()})"


# Nothing listens at the address: most often the stack is not started (a newcomer's first run).
NOT_RUNNING = ". Is Match running there? `make run` starts it on this machine (README)"


def audit_command(game_id: str, key_file: str, ledger_addr: str | None = None) -> str:
    """The exact command that checks a finished game against the ledger (docs/audit.md), with
    ``match-audit`` named so that it runs in the user's shell (programs.runnable)."""
    addr = f" --addr {ledger_addr}" if ledger_addr else ""
    return f"{runnable('match-audit')} verify {game_id} --key {key_file}{addr}"


def clock_time(unix_ms: int) -> str:
    """A server time as the local time of day, to the second."""
    return dt.datetime.fromtimestamp(unix_ms / 1000).strftime("%H:%M:%S")


def table_line(table: lobby_pb2.Table) -> str:
    created = dt.datetime.fromtimestamp(table.created_at_ms / 1000).strftime("%Y-%m-%d %H:%M:%S")
    names = ", ".join(s.display_name for s in table.taken)
    try:
        game = registry.by_kind(table.game_kind).slug
    except registry.UnknownGame:
        game = f"kind {table.game_kind}"
    return (
        f"{table.table_id}  {game}  {len(table.taken)}/{table.seats} seats  created {created}"
        + (f"  players: {names}" if names else "")
    )


def audit_line(game_id: str, settings: Settings) -> str:
    command = audit_command(game_id, settings.ledger_key, settings.ledger_addr)
    return f"check this game against the ledger: {command}"


def start_stdin_reader(queue: asyncio.Queue[str | None]) -> None:
    """Read stdin lines in a daemon thread (it never holds up the exit) into ``queue``;
    None marks the end of input."""
    loop = asyncio.get_running_loop()

    def put(item: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: we are exiting
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def reader() -> None:
        for line in sys.stdin:
            put(line)
        put(None)

    threading.Thread(target=reader, name="stdin", daemon=True).start()


async def line_mode(
    watch: Callable[[], Coroutine[Any, Any, None]],
    handle: Callable[[str], Awaitable[None]],
    out: Out,
    *,
    ready: asyncio.Event | None = None,
    ticks: Callable[[], Coroutine[Any, Any, None]] | None = None,
    settled: Callable[[], None] | None = None,
) -> int:
    """The line mode of one seat: stdin in a thread, each line to ``handle`` (once ``ready``
    is set, when given), the table's stream (``watch``) and the clock's ``ticks`` in tasks,
    until the stream or the input ends; ``settled`` is called then, before the tasks are
    stopped. The exit code: 0, whichever ended first (what went wrong was told as a line)."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    start_stdin_reader(queue)

    async def read() -> None:
        while True:
            line = await queue.get()
            if line is None:
                out("input closed; bye")
                return
            if ready is not None:
                await ready.wait()
            await handle(line)

    watcher = asyncio.create_task(watch())
    ticker = asyncio.create_task(ticks()) if ticks is not None else None
    reader = asyncio.create_task(read())
    tasks = [t for t in (watcher, reader, ticker) if t is not None]
    try:
        await asyncio.wait({watcher, reader}, return_when=asyncio.FIRST_COMPLETED)
        if settled is not None:
            settled()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return 0
