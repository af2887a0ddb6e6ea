"""The dealer's seed store over JetStream: seeds in the KV bucket MATCH_SEEDS (whether a game is
over is read from the table log by ``match_bus.folds.TableFolds``).

Every read here goes to the stream leader (``get_last_msg``, not Direct Get), so a dealer never
reads a replica that has not yet seen a seed another dealer just stored.
"""

from __future__ import annotations

import nats.errors
from nats.js import JetStreamContext
from nats.js.errors import (
    KeyWrongLastSequenceError,
    NotFoundError,
)
from nats.js.kv import KeyValue

from match_bus import subjects
from match_bus.jetstream import open_bucket
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
