"""The leak check: nothing a player received shows a face they did not turn, a layout before its
board ended, or the seed before the game's end.

It walks every field of every message over the protobuf descriptors, not a list of the events
known today: a field named like a secret (``SECRETS``) is allowed only where its owner - the
nearest enclosing message with a ``player`` - is the player who received it, a ``layout`` only
once its board has ended, a ``seed`` only once the game is over. A new field that carries a face
or a layout is caught wherever it is added (tests/e2e/test_leaks.py plants some).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from match.v1 import race_pb2, views_pb2

# Fields that carry a face or where a face is (a tile, a pair's tiles, a hint's partner).
SECRETS = frozenset({"symbol", "symbols", "tile", "tiles", "partner", "face", "faces"})
LAYOUTS = frozenset({"layout", "layouts"})
SEEDS = frozenset({"seed"})
_OVER = (views_pb2.RaceView.PHASE_BETWEEN_BOARDS, views_pb2.RaceView.PHASE_GAME_OVER)


@dataclass(frozen=True)
class Found:
    """A set field named like a secret, with the messages it sits in (outermost first)."""

    name: str
    value: Any
    path: tuple[Message, ...]
    where: str


def walk(message: Message, path: tuple[Message, ...] = (), where: str = "") -> Iterator[Found]:
    """Every set field of ``message`` and of the messages inside it, depth first, in order."""
    path = (*path, message)
    for field, value in message.ListFields():
        here = f"{where}.{field.name}" if where else f"{type(message).__name__}.{field.name}"
        if field.type != FieldDescriptor.TYPE_MESSAGE:
            yield Found(field.name, value, path, here)
        elif field.message_type.GetOptions().map_entry:  # a map: its values, named by the map
            for key, item in value.items():
                if isinstance(item, Message):
                    yield from walk(item, path, f"{here}[{key!r}]")
                else:
                    yield Found(field.name, item, path, f"{here}[{key!r}]")
        elif field.is_repeated:
            for i, item in enumerate(value):
                yield from walk(item, path, f"{here}[{i}]")
        else:
            yield from walk(value, path, here)


def _owner(path: tuple[Message, ...]) -> str | None:
    for message in reversed(path):
        if "player" in message.DESCRIPTOR.fields_by_name:
            return str(message.player)  # type: ignore[attr-defined]
    return None


def _board(path: tuple[Message, ...]) -> int | None:
    for message in reversed(path):
        if "board" in message.DESCRIPTOR.fields_by_name:
            return int(message.board)  # type: ignore[attr-defined]
    return None


def _race_events(message: Message) -> Iterator[race_pb2.RaceEvent]:
    for found in _messages(message):
        if isinstance(found, race_pb2.RaceEvent):
            yield found


def _messages(message: Message) -> Iterator[Message]:
    yield message
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            repeated = field.is_repeated
            if field.message_type.GetOptions().map_entry:
                continue
            for item in value if repeated else [value]:
                yield from _messages(item)


def check_no_leaks(me: str, received: list[Any]) -> int:
    """Assert the rules of what a player may see over everything ``me`` received; returns how
    many messages were checked (so a test can tell the check saw something)."""
    turned: set[tuple[int, int, int]] = set()  # (board, tile, symbol) that I turned
    for message in received:
        for event in _race_events(message):
            if event.WhichOneof("event") == "tile_turned" and event.tile_turned.player == me:
                t = event.tile_turned
                turned.add((t.board, t.tile, t.symbol))
    ended: set[int] = set()  # boards whose end this player has been told of, so far
    game_over = False
    for message in received:
        for found in walk(message):  # in the order received: what an event tells counts after it
            for event in found.path:
                if isinstance(event, race_pb2.RaceEvent):
                    kind = event.WhichOneof("event")
                    if kind == "board_ended":
                        ended.add(event.board_ended.board)
                    game_over = game_over or kind == "game_ended"
            _check(me, found, turned, ended, game_over)
    return len(received)


def _check(
    me: str, found: Found, turned: set[tuple[int, int, int]], ended: set[int], game_over: bool
) -> None:
    view = next((m for m in found.path if isinstance(m, views_pb2.RaceView)), None)
    if found.name in SEEDS:
        over = game_over or (view is not None and view.phase == views_pb2.RaceView.PHASE_GAME_OVER)
        assert over, f"{me} received the seed before the game's end at {found.where}"
    elif found.name in LAYOUTS:
        board = _board(found.path)
        over = board in ended
        if view is not None:
            over = over or (
                board is not None
                and (board < view.board or (board == view.board and view.phase in _OVER))
            )
        assert over, f"{me} received board {board}'s layout before its end at {found.where}"
    elif found.name in SECRETS:
        owner = _owner(found.path)
        assert owner == me and me, f"{me!r} received {owner!r}'s {found.where}: {found.value}"
        if view is not None and found.name == "symbol":
            tile = found.path[-1]
            mine = (view.board, tile.tile, found.value)  # type: ignore[attr-defined]
            assert mine in turned, f"{me}'s snapshot shows tile {mine[1]} that {me} never turned"
