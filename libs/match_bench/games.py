"""Scripted load for every game that has a script (match_bench.scripts.<slug>), at full speed.

Nothing here names a game: a game is found by its slug in match_rules.registry and its script
module by the same slug. A table is made with ``MatchClient.create_table`` (the settings
message says the game) and joined by invite for its other seats; its deal comes from the
dealer's internal subject (the bench's privilege); its seats send the script's commands through
their transports (match_bench.transport) until the script has no more, then a new table takes
its place. At most ``concurrency`` commands are in flight (a closed loop, like the race's full
speed); a table's commands wait for a slot outside the latency, a refused one is sent again after
a pause outside the slot.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, cast

import grpc  # type: ignore[import-untyped, unused-ignore]
from nats.aio.client import Client

from match.v1 import common_pb2, dealer_pb2
from match_bench import transport
from match_bench.players import Channels, Sink, pause
from match_bus import subjects
from match_client.client import MatchClient, refusal_code, retry_after_ms
from match_client.session import rpcs
from match_rules import registry

SCRIPTS = "match_bench.scripts"
POLL_S = 0.05  # after a refused command, before sending it again
TRIES = 100  # refusals in a row before a seat gives its table up
# The most commands a second one seat sends, retries included: under the lobby's limit per
# player (20 a second, burst 40: services/lobby/config.py), which the bench keeps on, as every
# app meets it. A seat faster than that was throttled (RESOURCE_EXHAUSTED) now and then when
# few tables carried the load; the feeder opens more tables instead.
SEAT_RATE = 18.0


def scripted_slugs() -> list[str]:
    """The registered games that have a script, in the registry's order."""
    return [s for s in registry.slugs() if importlib.util.find_spec(f"{SCRIPTS}.{s}") is not None]


def script_of(slug: str) -> ModuleType:
    return importlib.import_module(f"{SCRIPTS}.{slug}")


async def fetch_deal(nc: Client, table_id: str, kind: int) -> dealer_pb2.Deal:
    request = dealer_pb2.DealRequest(
        table_id=table_id, game_id=table_id, game_kind=cast(common_pb2.GameKind, kind)
    )
    msg = await nc.request(subjects.DEALER_DEAL, request.SerializeToString(), 10)
    reply = dealer_pb2.DealResponse.FromString(msg.data)
    if not reply.HasField("deal"):
        raise RuntimeError(f"the dealer did not deal table {table_id}: {reply}")
    return reply.deal


@dataclass
class Table:
    """One table of a scripted game: its script and a transport per seat."""

    slug: str
    table_id: str
    script: Any
    seats: list[transport.Transport]
    given_up: int = 0  # seats that stopped on refusals


@dataclass
class Counts:
    tables: int = 0
    opening: int = 0  # tables being made and dealt now
    finished: int = 0  # tables whose every seat ran its script to the end
    given_up: int = 0
    failed_to_open: int = 0
    errors: list[str] = field(default_factory=list)


async def open_table(
    client: MatchClient, channels: Channels, nc: Client, slug: str, n: int, via: str = "unary"
) -> Table:
    """A private table of ``slug``, every seat taken (the host's, then by invite), dealt."""
    module = script_of(slug)
    game = registry.by_slug(slug)
    host = await client.create_table(
        module.settings(),
        seats=module.SEATS,
        visibility=common_pb2.VISIBILITY_PRIVATE,
        display_name=f"b{n}",
    )
    seats = [host]
    for i in range(1, module.SEATS):
        seats.append(
            await client.join_table(
                invite_code=host.invite_code, display_name=f"b{n}s{i}", anonymous=True
            )
        )
    deal = await fetch_deal(nc, host.table_id, game.kind)
    ways = [transport.make(via, channels.pick(), slug, s.token) for s in seats]
    return Table(slug, host.table_id, module.Script(deal, len(seats)), ways)


async def play_seat(table: Table, seat: int, sink: Sink, stop: asyncio.Event) -> bool:
    """Send the seat's commands, at most ``SEAT_RATE`` a second, until its script has no more
    (True) or ``stop`` (False); a refused command is sent again after a pause, up to ``TRIES``
    in a row (then False)."""
    way = table.seats[seat]
    calls = rpcs(table.slug)
    tries = 0
    next_at = 0.0  # when the seat may send again (SEAT_RATE)
    while not stop.is_set():
        early = next_at - time.monotonic()
        if early > 0:
            await pause(stop, early)
            continue
        next_at = time.monotonic() + 1 / SEAT_RATE
        command = table.script.next(seat)
        if command is None:
            return True
        rpc, fields = command
        request = calls[rpc].request(table_id=table.table_id, **fields)
        await sink.slot()
        stats = sink.stats
        sink.enter()
        t0 = time.perf_counter()
        reply, wait = None, None
        try:
            reply = await way.send(rpc, request)
        except grpc.aio.AioRpcError as error:
            code = refusal_code(error)
            if code is None:
                stats.errors[error.code().name] += 1
            else:
                stats.refused[f"{rpc}:{code}"] += 1
            wait = retry_after_ms(error)
        finally:
            sink.leave()
            sink.free()
        if reply is None:
            tries += 1
            if tries >= TRIES:
                table.given_up += 1
                return False
            await pause(stop, (wait or 0) / 1000 or POLL_S)
            continue
        stats.latencies.append(time.perf_counter() - t0)
        table.script.answered(seat, reply)
        tries = 0
        wait_s = table.script.pause_s(seat)
        if wait_s > 0:
            await pause(stop, wait_s)
    return False


async def keep_playing(
    opener: Callable[[int], Any], n: int, sink: Sink, stop: asyncio.Event, counts: Counts
) -> None:
    """Play a table to the end of its script, then another, until ``stop``."""
    while not stop.is_set():
        counts.opening += 1
        try:
            table: Table = await opener(n)
        except (grpc.aio.AioRpcError, TimeoutError, RuntimeError) as error:
            counts.failed_to_open += 1
            if len(counts.errors) < 5:
                counts.errors.append(f"{error!r:.200}")
            await pause(stop, 1.0)
            continue
        finally:
            counts.opening -= 1
        counts.tables += 1
        done = await asyncio.gather(
            *(play_seat(table, seat, sink, stop) for seat in range(len(table.seats)))
        )
        counts.given_up += table.given_up
        if all(done):
            counts.finished += 1
        for way in table.seats:
            await way.close()
        n += 1_000_000
