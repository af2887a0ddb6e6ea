"""The fenced append (match_bus.jetstream.TableLog.append) against a real nats-server: a stale
writer is refused, a retry whose ack was lost is recognised as landed, and a duplicate ack for
a msg id that names other bytes is refused, never believed."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path

import nats
import nats.errors
import pytest
from nats.aio.client import Client

from match_bus import subjects
from match_bus.jetstream import SequenceConflict, TableLog, ensure_stream
from match_launch import natsserver
from match_launch.natsserver import NatsServer

TABLE = "fence0000001"


@pytest.fixture
async def log(nats_server: NatsServer) -> AsyncIterator[TableLog]:
    nc: Client = await nats.connect(nats_server.url)
    js = nc.jetstream()
    await ensure_stream(js)
    yield TableLog(js, timeout=2.0)
    await nc.close()


async def stored(log: TableLog) -> list[bytes]:
    return [r.data for r in await log.read(TABLE)]


async def test_a_stale_expected_sequence_is_a_conflict_and_appends_nothing(log: TableLog) -> None:
    first = await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)
    await log.append(TABLE, b"two", f"{TABLE}:{first}:a", first)
    with pytest.raises(SequenceConflict):  # a writer that still believes the table ends at one
        await log.append(TABLE, b"forked", f"{TABLE}:{first}:b", first)
    with pytest.raises(SequenceConflict):  # nor may anyone write a new table over it
        await log.append(TABLE, b"new", f"{TABLE}:0:b", 0)
    assert await stored(log) == [b"one", b"two"]


async def test_the_same_msg_id_with_the_same_bytes_is_recognised_as_landed(log: TableLog) -> None:
    first = await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)
    # The stream answers "duplicate" (the sequence fits: the retry raced nothing) ...
    assert await log.append(TABLE, b"one", f"{TABLE}:0:a", first) == first
    # ... or "wrong last sequence" (the retry names the sequence before its own record)
    assert await log.append(TABLE, b"one", f"{TABLE}:0:a", 0) == first
    assert await stored(log) == [b"one"]


async def test_the_same_msg_id_with_other_bytes_is_refused_not_believed(log: TableLog) -> None:
    """Inside the duplicate window the stream answers "duplicate" with the first record's
    sequence, whatever the bytes: believing it would fold a record the log does not hold."""
    first = await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)
    with pytest.raises(SequenceConflict, match="names another record"):
        await log.append(TABLE, b"other", f"{TABLE}:0:a", first)
    assert await stored(log) == [b"one"]


async def test_an_earlier_try_that_landed_after_the_table_moved_is_recognised(
    log: TableLog,
) -> None:
    """Our first try landed but its ack was lost; the retry (another msg id: say a new
    process) meets a moved sequence, finds its own bytes last, and takes that sequence."""
    first = await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)
    landed = await log.append(TABLE, b"two", f"{TABLE}:{first}:a", first)
    again = await log.append(TABLE, b"two", f"{TABLE}:{first}:a-retry", first)
    assert again == landed
    assert await stored(log) == [b"one", b"two"]


async def test_a_moved_table_whose_last_record_is_not_ours_is_a_conflict(log: TableLog) -> None:
    first = await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)
    await log.append(TABLE, b"theirs", f"{TABLE}:{first}:b", first)
    with pytest.raises(SequenceConflict, match="moved past"):
        await log.append(TABLE, b"mine", f"{TABLE}:{first}:a", first)


async def test_a_duplicate_ack_for_a_record_no_longer_stored_is_a_conflict(
    nats_server: NatsServer,
) -> None:
    """The stream says "duplicate" for a msg id whose record was removed since: nothing proves
    the bytes were ours, so it is refused."""
    nc: Client = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        log = TableLog(js, timeout=2.0)
        first = await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)
        await js.delete_msg(subjects.EVENTS_STREAM, first)
        with pytest.raises(SequenceConflict, match="names another record"):
            await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)  # the table is empty again
        assert await stored(log) == []
    finally:
        await nc.close()


async def test_an_append_nobody_answers_gives_up_after_the_log_s_own_timeout(
    nats_server: NatsServer,
) -> None:
    """NATS paused (SIGSTOP): the append waits the TableLog's timeout (0.3 s here), not the
    JetStream context's default of 5 s, so the referee can answer UNAVAILABLE in time."""
    nc: Client = await nats.connect(nats_server.url)
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        log = TableLog(js, timeout=0.3)
        assert nats_server.process is not None
        os.kill(nats_server.process.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with pytest.raises(nats.errors.TimeoutError):
                await log.append(TABLE, b"one", f"{TABLE}:0:a", 0)
            waited = time.monotonic() - started
        finally:
            os.kill(nats_server.process.pid, signal.SIGCONT)
        assert waited < 2.5, waited  # 0.3 s and some scheduling, far from 5 s
    finally:
        await nc.close()


def test_a_nats_server_whose_port_was_taken_meanwhile_starts_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """free_port() gives the port back before nats-server binds it: somebody may take it."""
    with socket.socket() as thief:
        thief.bind(("127.0.0.1", 0))
        thief.listen()
        taken = thief.getsockname()[1]
        ports = iter([taken])
        real = natsserver.free_port
        monkeypatch.setattr(natsserver, "free_port", lambda: next(ports, None) or real())
        server = natsserver.NatsServer(tmp_path / "nats")
        assert server.port == taken
        server.start()
        try:
            assert server.port != taken
            assert server.url.endswith(f":{server.port}")
        finally:
            server.stop()
