"""The dealer's ports over JetStream: seeds in the KV bucket MATCH_SEEDS, and the table log.

Every read here goes to the stream leader (``get_last_msg``, not Direct Get), so a dealer never
reads a replica that has not yet seen a seed another dealer just stored.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import nats.errors
from google.protobuf.message import DecodeError
from nats.aio.client import Client
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


@dataclass
class _Fold:
    """How far one table's records have been folded: the next stream sequence to read, and the
    game and state after every record before it (``broken`` once they cannot be a game)."""

    next_seq: int = 1
    game: Game | None = None
    state: Any = None
    broken: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class EventLog:
    """Whether a table's game is over, from the table's own records on MATCH_EVENTS: its game's
    events folded by the game's own rules (``is_terminal``). The dealer may read messages, never
    make a consumer: it reads the table's last record's number from the stream leader, then the
    records in batches of ``batch`` by Direct Get (one request, up to ``batch`` answers). A
    replica behind the leader answers a prefix of the table, never a gap: the fold then stops
    short and the game is not over yet (the referee asks again).

    The fold is kept (the last ``keep`` tables) and continued: a reveal asked again reads only
    the records appended since. Under load a reveal can outlast the referee's wait, and the
    referee asks again; reading every record one request at a time, from the first, on every
    retry, kept the dealer busy on reveals nobody waited for any more (measured: most of a core
    for minutes after a burst of game ends, with new tables refused meanwhile). Records are
    only ever appended, so a kept fold stays true."""

    def __init__(
        self, nc: Client, keep: int = 4096, batch: int = 256, timeout_s: float = 5.0
    ) -> None:
        self._nc = nc
        self._js = nc.jetstream()
        self._keep = keep
        self._batch = batch
        self._timeout_s = timeout_s
        self._folds: OrderedDict[str, _Fold] = OrderedDict()
        self.reads = 0  # records read from the stream (tests and curiosity)
        self.requests = 0  # Direct Get requests made for them

    async def ended(self, game_id: str) -> Game | None:
        fold = self._folds.get(game_id)
        if fold is None:
            fold = self._folds[game_id] = _Fold()
            while len(self._folds) > self._keep:
                self._folds.popitem(last=False)
        self._folds.move_to_end(game_id)
        async with fold.lock:  # one fold per table at a time: a retry continues the first
            await self._continue(game_id, fold)
        if fold.broken or fold.game is None or not fold.game.is_terminal(fold.state):
            return None
        return fold.game

    async def _continue(self, game_id: str, fold: _Fold) -> None:
        """Fold the records from ``fold.next_seq`` to the table's last, keeping each step."""
        subject = subjects.events(game_id)
        try:
            last = await self._js.get_last_msg(subjects.EVENTS_STREAM, subject)
        except NotFoundError:
            return
        assert last.seq is not None
        while not fold.broken and fold.next_seq <= last.seq:
            records = await self._read(subject, fold.next_seq)
            if not records:
                return  # a replica behind the leader: not yet
            for seq, data in records:
                self.reads += 1
                _fold_record(fold, data)
                fold.next_seq = seq + 1
                if fold.broken:
                    return

    async def _read(self, subject: str, start: int) -> list[tuple[int, bytes]]:
        """Up to ``batch`` records of ``subject`` from stream sequence ``start``: one Direct Get
        request, its answers ended by the server's end-of-batch status (204; 404 if none)."""
        inbox = self._nc.new_inbox()
        sub = await self._nc.subscribe(inbox)
        self.requests += 1
        try:
            request = {"seq": start, "next_by_subj": subject, "batch": self._batch}
            await self._nc.publish(
                f"$JS.API.DIRECT.GET.{subjects.EVENTS_STREAM}",
                json.dumps(request).encode(),
                reply=inbox,
            )
            out: list[tuple[int, bytes]] = []
            while True:
                msg = await sub.next_msg(timeout=self._timeout_s)
                headers = msg.headers or {}
                status = headers.get("Status")
                if status in ("204", "404"):
                    return out
                if status:
                    raise nats.errors.Error(
                        f"reading the table log failed: {status} {headers.get('Description', '')}"
                    )
                out.append((int(headers["Nats-Sequence"]), msg.data or b""))
        finally:
            await sub.unsubscribe()


def _fold_record(fold: _Fold, data: bytes) -> None:
    for envelope in _game_events(data):
        which = envelope.WhichOneof("body")
        if which is None or which == "table":
            continue
        try:
            if fold.game is None:
                fold.game = registry.by_slug(which)
                fold.state = fold.game.initial_state(None)
            if which != fold.game.slug:
                fold.broken = True  # two games at one table: not a log to reveal on
                return
            fold.state = fold.game.evolve(fold.state, fold.game.decode(getattr(envelope, which)))
        except Exception:  # an event its game cannot fold: not the end of anything
            fold.broken = True
            return
