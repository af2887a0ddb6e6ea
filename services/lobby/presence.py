"""A seated player's Watch streams are their presence at the table: the lobby tells the referee.

When a seated player's last Watch stream on a table (in this lobby) ends, the lobby sends
``TableCommand.Presence(present=False)``; when the player is back (a stream of theirs follows
the table while the table shows them dropped) it sends ``present=True``. The lobby is the only
sender. It sends only what the game's rules would act on, judged on the state the stream
folded: a game whose ``presence`` is None (the race) never hears of it, and nothing is sent for
a game not started or over. Sending never holds up a stream: it runs in a task of its own, one
player's commands in order; a failure is logged and counted (match_lobby_presence_failures_total),
nothing else.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import structlog

from match.v1 import lobby_pb2, referee_pb2
from match_rules.errors import RuleError
from match_rules.game import Game
from services.lobby import metrics
from services.lobby.directory import TableDirectory
from services.lobby.referee import Referee
from services.lobby.viewer import TableViewer

log = structlog.get_logger()

Key = tuple[str, str]  # (table id, player id)


def acted_on(game: Game, state: Any, player: str, present: bool, now: int) -> bool:
    """Whether the rules would do something with the player's presence now."""
    if not game.is_started(state) or game.is_terminal(state):
        return False
    command = game.presence(max(now, game.clock(state)), player, present)
    if command is None:
        return False
    try:
        return bool(game.decide_steps(state, command))
    except RuleError:
        return False
    except Exception:  # the lobby's projection is not the referee's state: let it judge
        return True


class Presence:
    """Every seated player's Watch streams in this lobby, and what was told of them."""

    def __init__(
        self, referee: Referee, now_ms: Callable[[], int], directory: TableDirectory | None = None
    ) -> None:
        self._referee = referee
        self._directory = directory
        self._now_ms = now_ms
        self._streams: Counter[Key] = Counter()
        self._told: dict[Key, tuple[bool, int]] = {}  # what was sent last, at which event
        self._locks: dict[Key, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def stream(self, game: Game, table_id: str, player: str) -> PlayerStream | None:
        """Count one stream of ``player`` at ``table_id``; None for a game that does not care."""
        if game.presence(0, player, False) is None:
            return None
        key = (table_id, player)
        self._streams[key] += 1
        return PlayerStream(self, game, key)

    def _tell(self, game: Game, key: Key, table: TableViewer, present: bool) -> None:
        told = (present, table.event_number)
        if self._told.get(key) == told:
            return  # once per state
        if not acted_on(game, table.state, key[1], present, self._now_ms()):
            return
        self._told[key] = told
        self._spawn(key, present)

    def _ended(self, game: Game, key: Key, table: TableViewer | None) -> None:
        self._streams[key] -= 1
        if self._streams[key] > 0:
            return
        del self._streams[key]
        if table is not None:
            self._tell(game, key, table, False)
        elif self._playing(key[0]):  # it ended before it had read the table: the listing says
            self._spawn(key, False)
        self._told.pop(key, None)

    def _playing(self, table_id: str) -> bool:
        listed = self._directory.get(table_id) if self._directory is not None else None
        return listed is not None and listed.status == lobby_pb2.Table.STATUS_PLAYING

    def _spawn(self, key: Key, present: bool) -> None:
        task = asyncio.get_running_loop().create_task(self._send(key, present))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, key: Key, present: bool) -> None:
        table_id, player = key
        lock = self._locks.setdefault(key, asyncio.Lock())
        command = referee_pb2.TableCommand(
            table_id=table_id,
            player_id=player,
            request_id=uuid.uuid4().hex,
            presence=referee_pb2.TableCommand.Presence(present=present),
        )
        try:
            async with lock:  # one player's presence in the order it changed
                await self._referee.table(command)
            log.info("presence told", table_id=table_id, player_id=player, present=present)
        except Exception as error:
            metrics.PRESENCE_FAILURES.inc()
            log.warning(
                "could not tell the referee a player's presence",
                table_id=table_id,
                player_id=player,
                present=present,
                error=getattr(error, "message", repr(error)),
            )
        finally:
            if self._streams[key] == 0 and not lock.locked():
                self._locks.pop(key, None)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class PlayerStream:
    """One Watch stream of a seated player."""

    def __init__(self, presence: Presence, game: Game, key: Key) -> None:
        self._presence = presence
        self._game = game
        self._key = key
        self._done = False

    def following(self, table: TableViewer) -> None:
        """The stream has folded ``table`` up to now: if it shows the player dropped, they
        are back."""
        self._presence._tell(self._game, self._key, table, True)

    def ended(self, table: TableViewer | None) -> None:
        if not self._done:
            self._done = True
            self._presence._ended(self._game, self._key, table)
