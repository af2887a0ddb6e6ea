"""``python -m services.players``: follows the table log into the book (services/players/book.py)
and answers the lobby's questions about players on ``match.players.query`` (queue group
``players``), request and reply.

Replicas: each keeps its own book (``PLAYERS_DB``) and follows the whole log; any of them may
answer a question, from what it has taken so far (a moment behind the log at most).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import structlog
from google.protobuf.message import DecodeError
from nats.aio.client import Client
from nats.aio.msg import Msg

from match.v1 import common_pb2, players_pb2
from match_bus import subjects
from match_bus.service import BaseConfig, answerable, configured, received, run
from match_bus.service import reply as respond
from match_bus.settings import whole
from match_players import boards as board_names
from match_rules import registry
from services.players.book import MAX_PAGE_SIZE, Book, Unknown
from services.players.follow import GATHER_BYTES, Follower

log = structlog.get_logger()

Category = common_pb2.Refusal.Category


@dataclass(frozen=True, slots=True)
class PlayersConfig:
    base: BaseConfig
    db_path: Path
    # Unfinished tables' records kept as they pass (PLAYERS_KEEP_MIB): a table let go past it
    # is read back from the log when its game ends (docs/operations.md).
    keep_bytes: int = GATHER_BYTES

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> PlayersConfig:
        """The service's settings; ValueError, saying what to set, for a value it cannot use."""
        env = os.environ if env is None else env
        return cls(
            base=BaseConfig.from_env(default_metrics_port=9106),
            db_path=Path(env.get("PLAYERS_DB", "var/players.sqlite3")),
            keep_bytes=whole(env, "PLAYERS_KEEP_MIB", GATHER_BYTES >> 20, 1, "MiB") << 20,
        )


def _refusal(code: str, category: int, message: str) -> players_pb2.PlayersAnswer:
    return players_pb2.PlayersAnswer(
        refusal=common_pb2.Refusal(code=code, category=category, message=message)  # type: ignore[arg-type]
    )


class UnknownBoard(Exception):
    """A leaderboard asked for by a name that is none of the game's boards."""


def answer(book: Book, query: players_pb2.PlayersQuery, now_ms: int) -> players_pb2.PlayersAnswer:
    """The answer to one question (the lobby has checked who asks and the request's shape)."""
    which = query.WhichOneof("query")
    try:
        if which == "profile":
            return players_pb2.PlayersAnswer(profile=book.profile(query.player_id))
        if which == "statistics":
            return players_pb2.PlayersAnswer(statistics=book.statistics(query.player_id))
        if which == "streak":
            return players_pb2.PlayersAnswer(streak=book.streak(query.player_id, now_ms))
        if which == "leaderboard":
            return players_pb2.PlayersAnswer(leaderboard=_leaderboard(book, query.leaderboard))
    except Unknown as error:
        return _refusal("unknown_player", Category.CATEGORY_NOT_FOUND, str(error))
    except UnknownBoard as error:
        return _refusal("unknown_board", Category.CATEGORY_INVALID_ARGUMENT, str(error))
    return _refusal("bad_query", Category.CATEGORY_INVALID_ARGUMENT, "ask one question")


def _leaderboard(
    book: Book, request: players_pb2.GetLeaderboardRequest
) -> players_pb2.GetLeaderboardResponse:
    try:
        game = registry.by_kind(request.game_kind)
    except registry.UnknownGame:
        raise ValueError(f"no game of kind {request.game_kind} is played here") from None
    # A misspelt board would otherwise read as an empty one ("nobody is on it"), which sends
    # the asker away with the wrong idea: refuse it, naming the boards there are.
    boards = book.boards(request.game_kind)
    if request.board and board_names.canonical(request.board) not in boards:
        raise UnknownBoard(board_names.unknown(game.title, request.board, boards))
    size = min(request.page_size or 20, MAX_PAGE_SIZE)
    page = book.leaderboard(request.game_kind, request.board, request.page, size)
    return players_pb2.GetLeaderboardResponse(
        rows=page.rows,
        page=page.page,
        pages=page.pages,
        total=page.total,
        unit=page.unit,
        lower_is_better=page.lower_is_better,
        boards=boards,
    )


async def serve_players(nc: Client, config: PlayersConfig) -> Callable[[], Awaitable[None]]:
    book = Book(config.db_path)
    follower = Follower(nc.jetstream(), book, config.keep_bytes)
    following = asyncio.create_task(follower.run())

    async def on_query(msg: Msg) -> None:
        if not answerable(msg):
            return
        received(msg)
        try:
            query = players_pb2.PlayersQuery.FromString(msg.data)
            reply = answer(book, query, int(time.time() * 1000))
        except (DecodeError, ValueError) as error:
            reply = _refusal("bad_query", Category.CATEGORY_INVALID_ARGUMENT, str(error))
        await respond(msg, reply.SerializeToString())

    await nc.subscribe(subjects.PLAYERS_QUERY, queue=subjects.PLAYERS_QUEUE, cb=on_query)

    async def stop() -> None:
        following.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await following
        book.close()

    return stop


def main() -> None:
    config = configured("players", PlayersConfig.from_env)

    async def serve(nc: Client) -> Callable[[], Awaitable[None]]:
        return await serve_players(nc, config)

    run("players", config.base, serve)
