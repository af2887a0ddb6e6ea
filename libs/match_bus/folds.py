"""Whether a table's game is over, read from the table log (``MATCH_EVENTS``) and folded by
the game's own rules: the dealer's check before it reveals a seed (services/dealer), and what
``make bench-reveal`` measures (match_bench.reveal)."""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import nats.errors
from google.protobuf.message import DecodeError
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.errors import NotFoundError

from match.v1 import common_pb2, referee_pb2
from match_bus import subjects
from match_bus.records import unpack
from match_rules import registry
from match_rules.game import Game


def _game_events(data: bytes) -> list[common_pb2.EventEnvelope]:
    """The events of one record as stored; none for bytes that are not a record."""
    try:
        return list(referee_pb2.TableRecord.FromString(data).events)
    except DecodeError:
        return []


@dataclass
class Fold:
    """How far one table's records have been folded: the next stream sequence to read, and the
    game and state after every record before it (``broken`` once they cannot be a game)."""

    next_seq: int = 1
    game: Game | None = None
    state: Any = None
    broken: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class TableFolds:
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
        self._folds: OrderedDict[str, Fold] = OrderedDict()
        self.reads = 0  # records read from the stream (tests and curiosity)
        self.requests = 0  # Direct Get requests made for them

    async def ended(self, game_id: str) -> Game | None:
        fold = self._folds.get(game_id)
        if fold is None:
            fold = self._folds[game_id] = Fold()
            while len(self._folds) > self._keep:
                self._folds.popitem(last=False)
        self._folds.move_to_end(game_id)
        async with fold.lock:  # one fold per table at a time: a retry continues the first
            await self._continue(game_id, fold)
        if fold.broken or fold.game is None or not fold.game.is_terminal(fold.state):
            return None
        return fold.game

    async def _continue(self, game_id: str, fold: Fold) -> None:
        """Fold the records from ``fold.next_seq`` to the table's last, keeping each step: those
        on its own subject and its entries in its partition's frames (several tables' records
        in one message, match_bus.records), read side by side in stream order."""
        own = subjects.events(game_id)
        frames = subjects.frames(subjects.partition_of(game_id))
        last = max([await self._last(own), await self._last(frames)])
        while not fold.broken and fold.next_seq <= last:
            batches = [await self._read(subject, fold.next_seq) for subject in (own, frames)]
            if not any(batches):
                return  # a replica behind the leader: not yet
            # A full batch says nothing of its subject past its last record: read only so far.
            full = [batch[-1][0] for batch in batches if len(batch) >= self._batch]
            horizon = min(full) if full else last
            merged = sorted(m for batch in batches for m in batch if m[0] <= horizon)
            for seq, subject, data in merged:
                for record in unpack(subject, data):
                    if record.table_id != game_id:
                        continue
                    self.reads += 1
                    fold_record(fold, record.data)
                    if fold.broken:
                        return
                fold.next_seq = seq + 1
            if full:
                fold.next_seq = max(fold.next_seq, horizon + 1)
            elif merged:
                fold.next_seq = max(fold.next_seq, merged[-1][0] + 1)

    async def _last(self, subject: str) -> int:
        """The stream sequence of the last message on ``subject`` (0: none)."""
        try:
            last = await self._js.get_last_msg(subjects.EVENTS_STREAM, subject)
        except NotFoundError:
            return 0
        return last.seq or 0

    async def _read(self, subject: str, start: int) -> list[tuple[int, str, bytes]]:
        """Up to ``batch`` messages of ``subject`` from stream sequence ``start``, (sequence,
        subject, bytes): one Direct Get request, its answers ended by the server's end-of-batch
        status (204; 404 if none). Collected by the subscription's callback: a ``next_msg`` per
        answer costs a timer each."""
        out: list[tuple[int, str, bytes]] = []
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def answer(msg: Msg) -> None:
            if done.done():
                return
            headers = msg.headers or {}
            status = headers.get("Status")
            if status in ("204", "404"):
                done.set_result(None)
            elif status:
                reason = f"{status} {headers.get('Description', '')}".strip()
                done.set_exception(nats.errors.Error(f"reading the table log failed: {reason}"))
            else:
                out.append((int(headers["Nats-Sequence"]), subject, msg.data or b""))

        sub = await self._nc.subscribe(self._nc.new_inbox(), cb=answer)
        self.requests += 1
        try:
            request = {"seq": start, "next_by_subj": subject, "batch": self._batch}
            await self._nc.publish(
                f"$JS.API.DIRECT.GET.{subjects.EVENTS_STREAM}",
                json.dumps(request).encode(),
                reply=sub.subject,
            )
            await asyncio.wait_for(done, self._timeout_s)
            return out
        finally:
            await sub.unsubscribe()


def fold_record(fold: Fold, data: bytes) -> None:
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
