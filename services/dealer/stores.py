"""The dealer's ports over JetStream: seeds in the KV bucket MATCH_SEEDS, and the table log.

Every read here goes to the stream leader (``get_last_msg``, not Direct Get), so a dealer never
reads a replica that has not yet seen a seed another dealer just stored.
"""

from __future__ import annotations

from typing import Any

import nats.errors
from google.protobuf.message import DecodeError
from nats.js import JetStreamContext
from nats.js.errors import (
    KeyWrongLastSequenceError,
    NotFoundError,
)
from nats.js.kv import KeyValue

from match.v1 import common_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import open_bucket
from match_rules import registry
from match_rules.deal import SEED_BYTES
from match_rules.game import Game
from services.dealer.dealer import SeedLost

SEEDS_STREAM = f"KV_{subjects.SEEDS_BUCKET}"
_CREATE_ATTEMPTS = 3


def _seed_subject(game_id: str) -> str:
    return f"$KV.{subjects.SEEDS_BUCKET}.{game_id}"


async def open_seeds(js: JetStreamContext, replicas: int = 1) -> KeyValue:
    """The MATCH_SEEDS bucket, made when missing (file storage, one value per key, no TTL)."""
    return await open_bucket(
        js,
        subjects.SEEDS_BUCKET,
        "Match: each game's secret seed, written once by the dealer",
        replicas=replicas,
    )


class KvSeedStore:
    """Seeds keyed by game id. ``create`` is ``kv.create``: a key is written at most once."""

    def __init__(self, js: JetStreamContext, kv: KeyValue) -> None:
        self._js = js
        self._kv = kv

    async def get(self, game_id: str) -> bytes | None:
        try:
            msg = await self._js.get_last_msg(SEEDS_STREAM, _seed_subject(game_id))
        except NotFoundError:
            return None
        data = msg.data or b""
        operation = (msg.headers or {}).get("KV-Operation")
        if operation is not None:
            raise SeedLost(f"the seed of game {game_id} was deleted from the seed store")
        if len(data) != SEED_BYTES:
            raise SeedLost(f"the stored seed of game {game_id} is not {SEED_BYTES} bytes")
        return data

    async def create(self, game_id: str, seed: bytes) -> bytes:
        for _ in range(_CREATE_ATTEMPTS):
            try:
                await self._kv.create(game_id, seed)
                return seed
            except KeyWrongLastSequenceError:
                pass  # another dealer stored this game's seed first
            except nats.errors.TimeoutError:
                pass  # the ack was lost or late: the seed may or may not be stored
            stored = await self.get(game_id)
            if stored is not None:
                return stored
        raise TimeoutError(f"could not store the seed of game {game_id}")


def _game_events(data: bytes) -> list[common_pb2.EventEnvelope]:
    """The events of one record as stored; none for bytes that are not a record."""
    try:
        return list(referee_pb2.TableRecord.FromString(data).events)
    except DecodeError:
        return []


class EventLog:
    """Whether a table's game is over, from the table's own records on MATCH_EVENTS: its game's
    events folded by the game's own rules (``is_terminal``). The records are read one by one
    from the stream leader (the dealer may read messages, never make a consumer)."""

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def _records(self, game_id: str) -> list[bytes]:
        subject = subjects.events(game_id)
        try:
            last = await self._js.get_last_msg(subjects.EVENTS_STREAM, subject)
        except NotFoundError:
            return []
        assert last.seq is not None
        out: list[bytes] = []
        sequence = 1
        while True:
            msg = await self._js.get_msg(
                subjects.EVENTS_STREAM, seq=sequence, subject=subject, next=True
            )
            assert msg.seq is not None
            out.append(msg.data or b"")
            if msg.seq >= last.seq:
                return out
            sequence = msg.seq + 1

    async def ended(self, game_id: str) -> Game | None:
        game: Game | None = None
        state: Any = None
        for data in await self._records(game_id):
            for envelope in _game_events(data):
                which = envelope.WhichOneof("body")
                if which is None or which == "table":
                    continue
                try:
                    if game is None:
                        game = registry.by_slug(which)
                        state = game.initial_state(None)
                    if which != game.slug:
                        return None  # two games at one table: not a log to reveal on
                    state = game.evolve(state, game.decode(getattr(envelope, which)))
                except Exception:  # an event its game cannot fold: not the end of anything
                    return None
        if game is not None and game.is_terminal(state):
            return game
        return None
