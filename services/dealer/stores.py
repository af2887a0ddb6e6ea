"""The dealer's ports over JetStream: seeds in the KV bucket MATCH_SEEDS, and the table log.

Every read here goes to the stream leader (``get_last_msg``, not Direct Get), so a dealer never
reads a replica that has not yet seen a seed another dealer just stored.
"""

from __future__ import annotations

import nats.errors
from google.protobuf.message import DecodeError
from nats.js import JetStreamContext
from nats.js.errors import (
    KeyWrongLastSequenceError,
    NotFoundError,
)
from nats.js.kv import KeyValue

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.jetstream import TableLog, open_bucket
from match_rules.deal import SEED_BYTES
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


def _ends_game(data: bytes) -> bool:
    try:
        record = referee_pb2.TableRecord.FromString(data)
    except DecodeError:
        return False
    return any(
        envelope.WhichOneof("body") == "race" and envelope.race.WhichOneof("event") == "game_ended"
        for envelope in record.events
    )


class EventLog:
    """Whether a game has ended, from the table's own records on MATCH_EVENTS."""

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js
        self._log = TableLog(js)

    async def has_ended(self, game_id: str) -> bool:
        # Usually the last record is the end (the referee asks right after appending it);
        # a later record (a refused command, a tick) sends us through the whole table.
        try:
            last = await self._js.get_last_msg(subjects.EVENTS_STREAM, subjects.events(game_id))
        except NotFoundError:
            return False
        if _ends_game(last.data or b""):
            return True
        return any(_ends_game(record.data) for record in await self._log.read(game_id))
