"""The leak check: nothing a player received shows a face they did not turn, or the seed early."""

from __future__ import annotations

from typing import Any

from match.v1 import common_pb2, race_service_pb2, views_pb2

PRIVATE = {"tile_turned", "pair_found", "attempt_missed", "tiles_turned_down", "hint_given"}


def envelopes(message: Any) -> list[common_pb2.EventEnvelope]:
    if isinstance(message, race_service_pb2.WatchResponse):
        return [message.event] if message.WhichOneof("item") == "event" else []
    return list(getattr(message, "events", []))


def snapshots(message: Any) -> list[views_pb2.RaceView]:
    if isinstance(message, race_service_pb2.WatchResponse):
        return [message.snapshot] if message.WhichOneof("item") == "snapshot" else []
    return []


def check_no_leaks(me: str, received: list[Any]) -> int:
    """Assert the rules of what a player may see over everything ``me`` received; returns how
    many messages were checked (so a test can tell the check saw something)."""
    turned: set[tuple[int, int, int]] = set()  # (board, tile, symbol) that I turned
    for message in received:
        for env in envelopes(message):
            if env.HasField("race") and env.race.WhichOneof("event") == "tile_turned":
                t = env.race.tile_turned
                if t.player == me:
                    turned.add((t.board, t.tile, t.symbol))
    game_over = False
    for message in received:
        for env in envelopes(message):
            if env.HasField("table"):
                kind = env.table.WhichOneof("event")
                assert kind != "seed_revealed" or game_over, "the seed before the game's end"
                continue
            kind = env.race.WhichOneof("event")
            body = getattr(env.race, kind)
            if kind in PRIVATE:
                assert body.player == me, f"{me} received {kind} of {body.player}: {body}"
            if kind == "game_ended":
                game_over = True
        for view in snapshots(message):
            for tile in view.tiles:
                if tile.HasField("symbol"):
                    assert (view.board, tile.tile, tile.symbol) in turned, (
                        f"{me}'s snapshot shows tile {tile.tile} that {me} never turned"
                    )
            if view.HasField("seed"):
                assert view.phase == views_pb2.RaceView.PHASE_GAME_OVER, "seed in a live view"
            for opponent in view.opponents:
                assert not {f.name for f, _ in opponent.ListFields()} & {"tiles", "symbol"}
    return len(received)
