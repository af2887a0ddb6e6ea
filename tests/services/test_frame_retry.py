"""A frame whose acknowledgement does not come in time is looked up, then sent again as it was
(same fence, same msg id): stored once, the writer keeps its fence and goes on; only when its
outcome is still unknown after the last send does the frame fail and fence the partition
(services/referee/frames.py). Over a real nats-server, stopped (SIGSTOP) while a frame is on its
way; and with acknowledgements lost on purpose, for each way a send can go."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.errors import TimeoutError as NatsTimeout
from prometheus_client import REGISTRY

from match_bus import subjects
from match_bus.jetstream import SequenceConflict, ensure_stream
from match_bus.records import unpack
from match_launch.natsserver import NatsServer
from services.referee.frames import FrameWriter

PARTITION = 3
TIMEOUT_S = 0.4


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url, max_reconnect_attempts=-1)
    await ensure_stream(client.jetstream())
    try:
        yield client
    finally:
        await client.close()


def paused(server: NatsServer, pause: bool) -> None:
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGSTOP if pause else signal.SIGCONT)


async def stored_frames(nc: Client) -> list[tuple[int, list[bytes]]]:
    """Each frame of the partition: its sequence and its records' bytes."""
    js = nc.jetstream()
    info = await js.stream_info(subjects.EVENTS_STREAM)
    out = []
    for seq in range(1, info.state.last_seq + 1):
        msg = await js.get_msg(subjects.EVENTS_STREAM, seq)
        if msg.subject == subjects.frames(PARTITION):
            out.append((seq, [r.data for r in unpack(msg.subject, msg.data or b"")]))
    return out


async def settled(nc: Client) -> None:
    """Once this returns, the stream has taken every message this connection published before:
    the server handles one connection's publishes to a stream in order, and this one is
    acknowledged only once stored."""
    await nc.jetstream().publish("match.events.test.settled", b"")


def resent() -> float:
    return REGISTRY.get_sample_value("match_referee_frame_retries_total") or 0.0


def writer(nc: Client, fenced: list[int]) -> FrameWriter:
    return FrameWriter(nc.jetstream(), PARTITION, "referee-1", fenced.append, 0, TIMEOUT_S)


async def test_a_frame_not_acknowledged_in_time_is_sent_again_and_stored_once(
    nats_server: NatsServer, nc: Client
) -> None:
    fenced: list[int] = []
    w = writer(nc, fenced)
    first = await w.append("t3retry001", b"first", {})
    retries = resent()
    paused(nats_server, True)  # the next frame is sent; its acknowledgement cannot come
    try:
        second = asyncio.create_task(w.append("t3retry001", b"second", {}))
        # The send times out, then the look-up; the server goes on before the second send,
        # which the fence refuses: the partition's last frame is this one.
        await asyncio.sleep(TIMEOUT_S * 2.25)
        assert not second.done()
    finally:
        w._timeout_s = 10.0  # the sends after this one meet a live server, however slow it is
        paused(nats_server, False)
    sequence = await asyncio.wait_for(second, 10)
    assert resent() > retries
    assert fenced == [] and w.epoch == 0 and w.last == sequence > first  # the fence kept
    third = await w.append("t3retry001", b"third", {})  # fenced on the frame it stored
    assert [records for _, records in await stored_frames(nc)] == [
        [b"first"],
        [b"second"],
        [b"third"],
    ]
    assert [seq for seq, _ in await stored_frames(nc)] == [first, sequence, third]


async def test_a_frame_never_acknowledged_fails_and_fences_its_partition(
    nats_server: NatsServer, nc: Client
) -> None:
    fenced: list[int] = []
    w = writer(nc, fenced)
    await w.append("t3retry002", b"first", {})
    paused(nats_server, True)
    try:
        with pytest.raises(NatsTimeout):
            await asyncio.wait_for(w.append("t3retry002", b"lost?", {}), 10)
    finally:
        paused(nats_server, False)
    assert fenced == [PARTITION] and w.epoch == 1 and w.last is None  # read again before going on
    # The sends made while the server was stopped are still in its socket: it may store the
    # frame now (its outcome was unknown, which is why the partition is fenced). Reading the
    # partition is a request the server may answer before it stores them, so let it settle.
    await settled(nc)
    assert await w.refresh() == 1 and w.last == (await stored_frames(nc))[-1][0]


class LosingAcks:
    """The real JetStream context, whose first ``lose`` publishes the caller never hears back
    from (a time-out): ``"stored"`` sends it and loses the ack, ``"dropped"`` never sends it,
    ``"late"`` sends it a moment after the caller gave up. Everything else is the server's."""

    def __init__(self, js: Any, *lose: str) -> None:
        self._js = js
        self._lose = list(lose)
        self.sends = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._js, name)

    async def publish(self, subject: str, data: bytes, **kwargs: Any) -> Any:
        self.sends += 1
        if not self._lose:
            return await self._js.publish(subject, data, **kwargs)
        how = self._lose.pop(0)
        if how == "stored":
            await self._js.publish(subject, data, **kwargs)
        elif how == "late":

            async def later() -> None:
                await asyncio.sleep(0.05)
                await self._js.publish(subject, data, **kwargs)

            self.late = asyncio.create_task(later())
        raise NatsTimeout


@pytest.mark.parametrize(
    ("lose", "sends", "resent_by"),
    [
        (("stored",), 1, 0),  # looked up after the time-out: it is the partition's last frame
        (("dropped",), 2, 1),  # looked up: not there, so sent again, and stored
        (("late",), 2, 1),  # not there yet; sent again; the fence refuses the second: stored
        (("dropped", "dropped"), 3, 2),
    ],
)
async def test_an_unanswered_frame_is_looked_up_then_sent_again_and_stored_once(
    nc: Client, lose: tuple[str, ...], sends: int, resent_by: int
) -> None:
    fenced: list[int] = []
    js = LosingAcks(nc.jetstream(), *lose)
    w = FrameWriter(js, PARTITION, "referee-1", fenced.append, 0, TIMEOUT_S)  # type: ignore[arg-type]
    before = resent()
    first = await w.append("t3retry003", b"first", {})
    assert js.sends == sends and resent() == before + resent_by
    second = await w.append("t3retry003", b"second", {})
    assert fenced == [] and w.last == second
    assert await stored_frames(nc) == [(first, [b"first"]), (second, [b"second"])]


async def test_a_frame_another_writer_moved_past_is_not_taken_for_this_one(nc: Client) -> None:
    """A send refused by the fence after a lost one: the partition's last frame is another
    writer's, so the frame fails and the partition is fenced."""
    fenced: list[int] = []
    js = LosingAcks(nc.jetstream(), "dropped")
    w = FrameWriter(js, PARTITION, "referee-1", fenced.append, 0, TIMEOUT_S)  # type: ignore[arg-type]
    other = FrameWriter(nc.jetstream(), PARTITION, "referee-2", lambda _: None, 0, TIMEOUT_S)
    mine = asyncio.create_task(w.append("t3retry004", b"mine", {}))
    await asyncio.sleep(0)  # the first send is lost
    await other.append("t3retry005", b"theirs", {})
    with pytest.raises(SequenceConflict):
        await mine
    assert fenced == [PARTITION] and w.last is None
    assert [records for _, records in await stored_frames(nc)] == [[b"theirs"]]
